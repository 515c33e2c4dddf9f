//! Scenario keys of `type = "dcqcn"` (a variant's defaults, then any key given) and the
//! checks of its parameters.

use serde::Deserialize;

use super::rp::{DcqcnParams, DcqcnVariant};
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, RateStr, SizeStr, TimeStr};
use crate::models::window_cap::WindowCap;
use crate::units::SimTime;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnKeys {
    /// paper | mellanox (default paper): the base parameter set.
    pub variant: Option<DcqcnVariant>,
    pub g: Option<f64>,
    pub alpha_init: Option<f64>,
    pub alpha_period: Option<TimeStr>,
    pub increase_period: Option<TimeStr>,
    pub decrease_period: Option<TimeStr>,
    pub byte_counter: Option<SizeStr>,
    pub f: Option<i64>,
    pub rate_ai: Option<RateStr>,
    pub rate_hai: Option<RateStr>,
    pub rate_min: Option<RateStr>,
    pub clamp_target_rate: Option<bool>,
    pub rate_on_first_cnp: Option<f64>,
    /// "+win": "bdp" or a size (default none).
    pub window: Option<String>,
    /// Scale the window by RC / line rate (default false).
    pub var_window: Option<bool>,
}

impl Keys for DcqcnKeys {
    type Out = DcqcnParams;
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<DcqcnParams> {
        let k = |key: &str| at(path, key);
        let mut p = match self.variant.unwrap_or(DcqcnVariant::Paper) {
            DcqcnVariant::Paper => DcqcnParams::paper(),
            DcqcnVariant::Mellanox => match ctx.line_rate {
                Some(r) => DcqcnParams::mellanox(r),
                None => return Err(Error::scenario("topology", "has no hosts")),
            },
        };
        set(&mut p.g, self.g);
        set(&mut p.alpha_init, self.alpha_init);
        for (v, dst, key) in [
            (&self.alpha_period, &mut p.alpha_period, "alpha_period"),
            (&self.increase_period, &mut p.increase_period, "increase_period"),
            (&self.decrease_period, &mut p.decrease_period, "decrease_period"),
        ] {
            if let Some(v) = v {
                *dst = v.time(&k(key))?;
            }
        }
        if let Some(v) = &self.byte_counter {
            p.byte_counter = v.bytes(&k("byte_counter"))?;
        }
        if let Some(v) = self.f {
            p.f = count_at_least(v, 0, &k("f"))?;
        }
        for (v, dst, key) in [
            (&self.rate_ai, &mut p.rate_ai, "rate_ai"),
            (&self.rate_hai, &mut p.rate_hai, "rate_hai"),
            (&self.rate_min, &mut p.rate_min, "rate_min"),
        ] {
            if let Some(v) = v {
                *dst = v.rate(&k(key))?;
            }
        }
        set(&mut p.clamp_target_rate, self.clamp_target_rate);
        set(&mut p.rate_on_first_cnp, self.rate_on_first_cnp);
        if let Some(w) = &self.window {
            p.window = Some(WindowCap::parse(w, &k("window"))?);
        }
        set(&mut p.var_window, self.var_window);
        Ok(p)
    }
}

fn set<T>(dst: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *dst = v;
    }
}

impl Check for DcqcnParams {
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        crate::models::window_cap::check_keys(&self.window, self.var_window, k)?;
        for (key, v) in [("g", self.g), ("alpha_init", self.alpha_init)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(Error::scenario(k(key), format!("must be in (0, 1] (got {v})")));
            }
        }
        for (key, v) in
            [("alpha_period", self.alpha_period), ("increase_period", self.increase_period), ("decrease_period", self.decrease_period)]
        {
            if v == SimTime::ZERO {
                return Err(Error::scenario(k(key), "must be > 0"));
            }
        }
        if self.variant == DcqcnVariant::Paper && self.f < 1 {
            return Err(Error::scenario(k("f"), "must be >= 1 with variant = \"paper\""));
        }
        for (key, v) in [("rate_ai", self.rate_ai), ("rate_hai", self.rate_hai), ("rate_min", self.rate_min)] {
            if v.0 == 0 {
                return Err(Error::scenario(k(key), "must be > 0"));
            }
        }
        if let Some(lr) = ctx.line_rate {
            if self.rate_min > lr {
                return Err(Error::scenario(k("rate_min"), format!("must be <= the smallest host link rate ({} > {lr})", self.rate_min)));
            }
        }
        let f = self.rate_on_first_cnp;
        if !(f > 0.0 && f <= 1.0) {
            return Err(Error::scenario(k("rate_on_first_cnp"), format!("must be in (0, 1] (got {f})")));
        }
        Ok(())
    }
}
