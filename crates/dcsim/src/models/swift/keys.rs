//! Scenario keys of `type = "swift"` and the checks of its parameters.

use serde::Deserialize;

use super::SwiftParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, TimeStr};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwiftKeys {
    pub base_target: Option<TimeStr>,
    /// Default base_target / 6.55.
    pub hop_scale: Option<TimeStr>,
    pub hops: Option<i64>,
    pub ai: Option<f64>,
    pub beta: Option<f64>,
    pub max_mdf: Option<f64>,
    /// Default 5 x base_target.
    pub fs_range: Option<TimeStr>,
    pub fs_min_cwnd: Option<f64>,
    pub fs_max_cwnd: Option<f64>,
    pub min_cwnd: Option<f64>,
    pub max_cwnd: Option<f64>,
    pub host_target: Option<TimeStr>,
    pub retx_reset: Option<i64>,
    pub init_cwnd: Option<f64>,
}

impl Keys for SwiftKeys {
    type Out = SwiftParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<SwiftParams> {
        let mut p = SwiftParams::default();
        let k = |key: &str| at(path, key);
        if let Some(v) = &self.base_target {
            p.base_target = v.time(&k("base_target"))?;
            p.hop_scale = crate::units::SimTime((p.base_target.0 as f64 / 6.55) as u64);
            p.fs_range = crate::units::SimTime(5 * p.base_target.0);
        }
        if let Some(v) = &self.hop_scale {
            p.hop_scale = v.time(&k("hop_scale"))?;
        }
        if let Some(v) = &self.fs_range {
            p.fs_range = v.time(&k("fs_range"))?;
        }
        if let Some(v) = &self.host_target {
            p.host_target = Some(v.time(&k("host_target"))?);
        }
        if let Some(v) = self.hops {
            p.hops = count_at_least(v, 0, &k("hops"))?;
        }
        if let Some(v) = self.retx_reset {
            p.retx_reset = count_at_least(v, 1, &k("retx_reset"))?;
        }
        for (v, dst) in [
            (self.ai, &mut p.ai),
            (self.beta, &mut p.beta),
            (self.max_mdf, &mut p.max_mdf),
            (self.fs_min_cwnd, &mut p.fs_min_cwnd),
            (self.fs_max_cwnd, &mut p.fs_max_cwnd),
            (self.min_cwnd, &mut p.min_cwnd),
            (self.max_cwnd, &mut p.max_cwnd),
        ] {
            if let Some(v) = v {
                *dst = v;
            }
        }
        p.init_cwnd = self.init_cwnd;
        Ok(p)
    }
}

impl Check for SwiftParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        let bad = |key: &str, why: String| Err(Error::scenario(k(key), why));
        if self.base_target.0 == 0 {
            return bad("base_target", "must be > 0".into());
        }
        for (key, v) in [("ai", self.ai), ("min_cwnd", self.min_cwnd), ("fs_min_cwnd", self.fs_min_cwnd)] {
            if !(v > 0.0 && v.is_finite()) {
                return bad(key, format!("must be > 0 (got {v})"));
            }
        }
        for (key, v) in [("beta", self.beta), ("max_mdf", self.max_mdf)] {
            if !(v > 0.0 && v < 1.0) {
                return bad(key, format!("must be in (0, 1) (got {v})"));
            }
        }
        if !(self.max_cwnd >= self.min_cwnd && self.max_cwnd.is_finite()) {
            return bad("max_cwnd", format!("must be >= min_cwnd ({} < {})", self.max_cwnd, self.min_cwnd));
        }
        if !(self.fs_max_cwnd > self.fs_min_cwnd && self.fs_max_cwnd.is_finite()) {
            return bad("fs_max_cwnd", format!("must be above fs_min_cwnd ({} <= {})", self.fs_max_cwnd, self.fs_min_cwnd));
        }
        if let Some(w) = self.init_cwnd {
            if !(w > 0.0 && w.is_finite()) {
                return bad("init_cwnd", format!("must be > 0 (got {w})"));
            }
        }
        if self.host_target.is_some_and(|t| t.0 == 0) {
            return bad("host_target", "must be > 0".into());
        }
        Ok(())
    }
}
