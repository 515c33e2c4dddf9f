//! Scenario keys of QCN: the reaction point (`type = "qcn"` in `[host.cc]` or a traffic
//! entry's `cc`) and the congestion point (`type = "qcn"` in `[switch.l2cm]`), with the
//! checks of their parameters.

use serde::Deserialize;

use super::cp::QcnCpParams;
use super::rp::QcnParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, jitter, non_negative, open_unit, Check, KeyCtx, Keys, RateStr, SizeStr, TimeStr};

/// `type = "qcn"` reaction point.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnKeys {
    /// FAST_RECOVERY_TH (>= 1).
    pub f: Option<i64>,
    pub rate_ai: Option<RateStr>,
    pub rate_hai: Option<RateStr>,
    pub rate_min: Option<RateStr>,
    /// BC_LIMIT: bytes per byte-counter cycle.
    pub bc_limit: Option<SizeStr>,
    /// TIMER_PERIOD of the rate-increase timer.
    pub timer_period: Option<TimeStr>,
    /// Decrease gain per quantum of feedback.
    pub gd: Option<f64>,
    pub min_dec_factor: Option<f64>,
    /// Uniform jitter of BC_LIMIT and TIMER_PERIOD (+- fraction).
    pub jitter: Option<f64>,
}

impl Keys for QcnKeys {
    type Out = QcnParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<QcnParams> {
        let k = |key: &str| at(path, key);
        let mut p = QcnParams::default();
        if let Some(v) = self.f {
            p.fast_recovery_th = count_at_least(v, 1, &k("f"))?;
        }
        for (v, dst, key) in [
            (&self.rate_ai, &mut p.r_ai, "rate_ai"),
            (&self.rate_hai, &mut p.r_hai, "rate_hai"),
            (&self.rate_min, &mut p.min_rate, "rate_min"),
        ] {
            if let Some(v) = v {
                *dst = v.rate(&k(key))?;
            }
        }
        if let Some(v) = &self.bc_limit {
            p.bc_limit = v.bytes(&k("bc_limit"))?;
        }
        if let Some(v) = &self.timer_period {
            p.timer_period = v.time(&k("timer_period"))?;
        }
        for (v, dst) in [(self.gd, &mut p.gd), (self.min_dec_factor, &mut p.min_dec_factor), (self.jitter, &mut p.jitter)] {
            if let Some(v) = v {
                *dst = v;
            }
        }
        Ok(p)
    }
}

impl Check for QcnParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        if self.fast_recovery_th == 0 {
            return Err(Error::scenario(k("f"), "must be >= 1 (got 0)"));
        }
        for (key, v) in [("rate_ai", self.r_ai), ("rate_hai", self.r_hai), ("rate_min", self.min_rate)] {
            if v.0 == 0 {
                return Err(Error::scenario(k(key), "must be > 0"));
            }
        }
        if self.bc_limit == 0 {
            return Err(Error::scenario(k("bc_limit"), "must be > 0"));
        }
        if self.timer_period.0 == 0 {
            return Err(Error::scenario(k("timer_period"), "must be > 0"));
        }
        open_unit(self.gd, &k("gd"))?;
        open_unit(self.min_dec_factor, &k("min_dec_factor"))?;
        jitter(self.jitter, &k("jitter"))?;
        Ok(())
    }
}

/// `[switch.l2cm] type = "qcn"`: the congestion point.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnCpKeys {
    /// Equilibrium queue Q_EQ (default "33KB").
    pub q_eq: Option<SizeStr>,
    /// Weight of the queue derivative (default 2).
    pub w: Option<f64>,
    /// Jitter of the sampling interval, +- fraction (default 0.15).
    pub jitter: Option<f64>,
}

impl Keys for QcnCpKeys {
    type Out = QcnCpParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<QcnCpParams> {
        let mut p = QcnCpParams::default();
        if let Some(v) = &self.q_eq {
            p.q_eq = v.bytes(&at(path, "q_eq"))?;
        }
        if let Some(v) = self.w {
            p.w = v;
        }
        if let Some(v) = self.jitter {
            p.jitter = v;
        }
        Ok(p)
    }
}

impl Check for QcnCpParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if self.q_eq == 0 {
            return Err(Error::scenario(at(path, "q_eq"), "must be > 0"));
        }
        non_negative(self.w, &at(path, "w"))?;
        jitter(self.jitter, &at(path, "jitter"))?;
        Ok(())
    }
}
