//! Scenario keys of remote PFC, `[switch.remote_pfc]`, and the checks of the values that
//! do not depend on the rest of the plan.

use serde::Deserialize;

use super::params::RemotePfcPlan;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, SizeStr, TimeStr};

/// `[switch.remote_pfc]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemotePfcKeys {
    /// Default false.
    pub enabled: Option<bool>,
    /// Default 2 x Kmax of the port's ECN marker.
    pub threshold: Option<SizeStr>,
    /// Default Kmin of the port's ECN marker.
    pub target: Option<SizeStr>,
    /// Default 10 us.
    pub min_gap: Option<TimeStr>,
    /// Default 1.
    pub min_quanta: Option<i64>,
    /// Default 65535.
    pub max_quanta: Option<i64>,
    /// Default 64 B.
    pub message_size: Option<SizeStr>,
}

impl Keys for RemotePfcKeys {
    type Out = RemotePfcPlan;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<RemotePfcPlan> {
        let k = |key: &str| at(path, key);
        let mut p = RemotePfcPlan::default();
        if let Some(v) = self.enabled {
            p.enabled = v;
        }
        if let Some(v) = &self.threshold {
            p.threshold = Some(v.bytes(&k("threshold"))?);
        }
        if let Some(v) = &self.target {
            p.target = Some(v.bytes(&k("target"))?);
        }
        if let Some(v) = &self.min_gap {
            p.min_gap = v.time(&k("min_gap"))?;
        }
        if let Some(v) = self.min_quanta {
            p.min_quanta = count_at_least(v, 1, &k("min_quanta"))?;
        }
        if let Some(v) = self.max_quanta {
            p.max_quanta = count_at_least(v, 1, &k("max_quanta"))?;
        }
        if let Some(v) = &self.message_size {
            p.message_bytes =
                u32::try_from(v.bytes(&k("message_size"))?).map_err(|_| Error::scenario(k("message_size"), "must be at most 1500 B"))?;
        }
        Ok(p)
    }
}

impl Check for RemotePfcPlan {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        if self.max_quanta == 0 || self.max_quanta > 65535 {
            return Err(Error::scenario(k("max_quanta"), format!("must be in 1..=65535 (got {})", self.max_quanta)));
        }
        if self.min_quanta == 0 || self.min_quanta > self.max_quanta {
            return Err(Error::scenario(
                k("min_quanta"),
                format!("must be in 1..=max_quanta ({}) (got {})", self.max_quanta, self.min_quanta),
            ));
        }
        if !(64..=1500).contains(&self.message_bytes) {
            return Err(Error::scenario(k("message_size"), format!("must be in 64..=1500 B (got {} B)", self.message_bytes)));
        }
        if let (Some(t), Some(g)) = (self.threshold, self.target) {
            if g >= t {
                return Err(Error::scenario(k("target"), format!("must be below threshold ({g} B >= {t} B)")));
            }
        }
        if self.threshold == Some(0) {
            return Err(Error::scenario(k("threshold"), "must be > 0"));
        }
        Ok(())
    }
}
