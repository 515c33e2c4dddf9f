//! Scenario keys of `type = "timely"` and the checks of its parameters.

use serde::Deserialize;

use super::TimelyParams;
use crate::error::{Error, Result};
use crate::keys::{at, Check, KeyCtx, Keys, RateStr, TimeStr};
use crate::models::window_cap::WindowCap;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelyKeys {
    /// EWMA weight of the RTT difference (default 0.875).
    pub a: Option<f64>,
    /// Multiplicative decrease factor (default 0.8).
    pub beta: Option<f64>,
    pub t_low: Option<TimeStr>,
    pub t_high: Option<TimeStr>,
    pub min_rtt: Option<TimeStr>,
    pub rate_ai: Option<RateStr>,
    pub rate_hai: Option<RateStr>,
    pub rate_min: Option<RateStr>,
    /// "+win": "bdp" or a size (default none).
    pub window: Option<String>,
    /// Scale the window by rate / line rate (default false).
    pub var_window: Option<bool>,
}

impl Keys for TimelyKeys {
    type Out = TimelyParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<TimelyParams> {
        let mut p = TimelyParams::default();
        let k = |key: &str| at(path, key);
        if let Some(v) = self.a {
            p.a = v;
        }
        if let Some(v) = self.beta {
            p.beta = v;
        }
        for (v, dst, key) in
            [(&self.t_low, &mut p.t_low, "t_low"), (&self.t_high, &mut p.t_high, "t_high"), (&self.min_rtt, &mut p.min_rtt, "min_rtt")]
        {
            if let Some(v) = v {
                *dst = v.time(&k(key))?;
            }
        }
        if let Some(v) = &self.rate_ai {
            p.rate_ai = Some(v.rate(&k("rate_ai"))?);
        }
        if let Some(v) = &self.rate_hai {
            p.rate_hai = Some(v.rate(&k("rate_hai"))?);
        }
        if let Some(v) = &self.rate_min {
            p.rate_min = v.rate(&k("rate_min"))?;
        }
        if let Some(w) = &self.window {
            p.window = Some(WindowCap::parse(w, &k("window"))?);
        }
        if let Some(v) = self.var_window {
            p.var_window = v;
        }
        Ok(p)
    }
}

impl Check for TimelyParams {
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        crate::models::window_cap::check_keys(&self.window, self.var_window, k)?;
        for (key, v) in [("a", self.a), ("beta", self.beta)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(Error::scenario(k(key), format!("must be in (0, 1] (got {v})")));
            }
        }
        if self.min_rtt.0 == 0 {
            return Err(Error::scenario(k("min_rtt"), "must be > 0"));
        }
        if self.t_high <= self.t_low {
            return Err(Error::scenario(k("t_high"), format!("must be above t_low ({} <= {})", self.t_high, self.t_low)));
        }
        if self.rate_min.0 == 0 {
            return Err(Error::scenario(k("rate_min"), "must be > 0"));
        }
        if let Some(lr) = ctx.line_rate {
            if self.rate_min > lr {
                return Err(Error::scenario(k("rate_min"), format!("must be <= the smallest host link rate ({} > {lr})", self.rate_min)));
            }
        }
        Ok(())
    }
}
