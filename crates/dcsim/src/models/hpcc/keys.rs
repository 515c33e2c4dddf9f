//! Scenario keys of `type = "hpcc"` and the checks of its parameters.

use serde::Deserialize;

use super::{HpccAi, HpccParams};
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, RateStr, SizeStr, TimeStr};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccKeys {
    /// Target utilisation (default 0.95).
    pub eta: Option<f64>,
    /// Additive increases in a row before a multiplicative step (default 5).
    pub max_stage: Option<i64>,
    /// Additive step as a rate (default 10 Mb/s per 25 Gb/s of line rate).
    pub rate_ai: Option<RateStr>,
    /// Additive step as the paper's window step W_AI (bytes per T); not with `rate_ai`.
    pub w_ai: Option<SizeStr>,
    /// Lowest rate (default 100 Mb/s).
    pub rate_min: Option<RateStr>,
    /// T (default: the largest base RTT among the run's flows).
    pub base_rtt: Option<TimeStr>,
    /// Limit bytes in flight to R x T (default true).
    pub window: Option<bool>,
}

impl Keys for HpccKeys {
    type Out = HpccParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<HpccParams> {
        let mut p = HpccParams::default();
        let k = |key: &str| at(path, key);
        if let Some(v) = self.eta {
            p.eta = v;
        }
        if let Some(v) = self.max_stage {
            p.max_stage = count_at_least(v, 0, &k("max_stage"))?;
        }
        p.ai = match (&self.rate_ai, &self.w_ai) {
            (Some(_), Some(_)) => return Err(Error::scenario(k("w_ai"), "give either rate_ai or w_ai, not both")),
            (Some(r), None) => Some(HpccAi::Rate(r.rate(&k("rate_ai"))?)),
            (None, Some(w)) => Some(HpccAi::Window(w.bytes(&k("w_ai"))?)),
            (None, None) => None,
        };
        if let Some(v) = &self.rate_min {
            p.rate_min = v.rate(&k("rate_min"))?;
        }
        if let Some(v) = &self.base_rtt {
            p.base_rtt = Some(v.time(&k("base_rtt"))?);
        }
        if let Some(v) = self.window {
            p.window = v;
        }
        Ok(p)
    }
}

impl Check for HpccParams {
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return Err(Error::scenario(k("eta"), format!("must be in (0, 1] (got {})", self.eta)));
        }
        match self.ai {
            Some(HpccAi::Rate(r)) if r.0 == 0 => return Err(Error::scenario(k("rate_ai"), "must be > 0")),
            Some(HpccAi::Window(0)) => return Err(Error::scenario(k("w_ai"), "must be > 0")),
            Some(HpccAi::Rate(r)) => {
                if let Some(lr) = ctx.line_rate.filter(|lr| r > *lr) {
                    return Err(Error::scenario(k("rate_ai"), format!("must be <= the smallest host link rate ({r} > {lr})")));
                }
            }
            _ => {}
        }
        if self.rate_min.0 == 0 {
            return Err(Error::scenario(k("rate_min"), "must be > 0"));
        }
        if let Some(lr) = ctx.line_rate.filter(|lr| self.rate_min > *lr) {
            return Err(Error::scenario(k("rate_min"), format!("must be <= the smallest host link rate ({} > {lr})", self.rate_min)));
        }
        if self.base_rtt.is_some_and(|t| t.0 == 0) {
            return Err(Error::scenario(k("base_rtt"), "must be > 0"));
        }
        Ok(())
    }
}
