//! Scenario keys of `type = "rcm_linear"` (the reaction point; the switch-side detection
//! rules are keys of `[switch.congestion]`).

use serde::Deserialize;

use super::linear::{RcmLinearParams, RecoveryRule};
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, SizeStr, TimeStr};
use crate::units::SimTime;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RcmLinearKeys {
    /// Time without a CNP before one recovery step, default "50us".
    pub recover_time: Option<TimeStr>,
    /// Bytes sent without a CNP before one recovery step, default "0B".
    pub recover_bytes: Option<SizeStr>,
    /// time | bytes | either | both (default time).
    pub rule: Option<RecoveryRule>,
    /// Highest level k (>= 1), default 1000.
    pub max_level: Option<i64>,
    /// Idle gap instead of start-to-start spacing, default false.
    pub gap: Option<bool>,
}

impl Keys for RcmLinearKeys {
    type Out = RcmLinearParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<RcmLinearParams> {
        let mut p = RcmLinearParams::default();
        if let Some(v) = &self.recover_time {
            p.recover_time = v.time(&at(path, "recover_time"))?;
        }
        if let Some(v) = &self.recover_bytes {
            p.recover_bytes = v.bytes(&at(path, "recover_bytes"))?;
        }
        if let Some(r) = self.rule {
            p.rule = r;
        }
        if let Some(v) = self.max_level {
            p.max_level = count_at_least(v, 1, &at(path, "max_level"))?;
        }
        if let Some(v) = self.gap {
            p.gap = v;
        }
        Ok(p)
    }
}

impl Check for RcmLinearParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let (time, bytes) = match self.rule {
            RecoveryRule::Time => (true, false),
            RecoveryRule::Bytes => (false, true),
            RecoveryRule::Either | RecoveryRule::Both => (true, true),
        };
        let rule = format!("{:?}", self.rule).to_lowercase();
        if time && self.recover_time == SimTime::ZERO {
            return Err(Error::scenario(at(path, "recover_time"), format!("must be > 0 with rule = \"{rule}\"")));
        }
        if bytes && self.recover_bytes == 0 {
            return Err(Error::scenario(at(path, "recover_bytes"), format!("must be > 0 with rule = \"{rule}\"")));
        }
        if self.max_level == 0 {
            return Err(Error::scenario(at(path, "max_level"), "must be >= 1"));
        }
        Ok(())
    }
}
