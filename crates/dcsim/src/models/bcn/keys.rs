//! Scenario keys of BCN: the rate regulator (`type = "bcn"` reaction point) and the
//! congestion point (`[switch.l2cm] type = "bcn"`), with the checks of their parameters.

use serde::Deserialize;

use super::cp::BcnCpParams;
use super::rp::BcnParams;
use crate::error::{Error, Result};
use crate::keys::{at, non_negative, positive, Check, KeyCtx, Keys, RateStr, SizeStr, TimeStr};

/// `type = "bcn"` rate regulator.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BcnKeys {
    /// Increase gain Gi.
    pub gi: Option<f64>,
    /// Decrease gain Gd.
    pub gd: Option<f64>,
    /// Rate unit Ru of positive feedback.
    pub ru: Option<RateStr>,
    /// Floor of the rate, and the rate after BCN00.
    pub rate_min: Option<RateStr>,
    /// Relative rate increase per drift interval without feedback.
    pub drift: Option<f64>,
    pub drift_interval: Option<TimeStr>,
}

impl Keys for BcnKeys {
    type Out = BcnParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<BcnParams> {
        let k = |key: &str| at(path, key);
        let mut p = BcnParams::default();
        for (v, dst) in [(self.gi, &mut p.gi), (self.gd, &mut p.gd), (self.drift, &mut p.drift)] {
            if let Some(v) = v {
                *dst = v;
            }
        }
        if let Some(v) = &self.ru {
            p.ru = v.rate(&k("ru"))?;
        }
        if let Some(v) = &self.rate_min {
            p.r_min = v.rate(&k("rate_min"))?;
        }
        if let Some(v) = &self.drift_interval {
            p.drift_interval = v.time(&k("drift_interval"))?;
        }
        Ok(p)
    }
}

impl Check for BcnParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        positive(self.gi, &k("gi"))?;
        positive(self.gd, &k("gd"))?;
        non_negative(self.drift, &k("drift"))?;
        for (key, v) in [("ru", self.ru), ("rate_min", self.r_min)] {
            if v.0 == 0 {
                return Err(Error::scenario(k(key), "must be > 0"));
            }
        }
        if self.drift_interval.0 == 0 {
            return Err(Error::scenario(k("drift_interval"), "must be > 0"));
        }
        Ok(())
    }
}

/// `[switch.l2cm] type = "bcn"`: the congestion point.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BcnCpKeys {
    /// Equilibrium queue Qeq (default 24,000 B).
    pub q_eq: Option<SizeStr>,
    /// Severe-congestion threshold Qsc (default "120KB").
    pub q_sc: Option<SizeStr>,
    /// Weight of the queue change (default 2).
    pub w: Option<f64>,
    /// Bytes between samples, and while the queue is above Qsc.
    pub sample_bytes: Option<SizeStr>,
    pub oversample_bytes: Option<SizeStr>,
    /// Maximum negative feedback once the queue reaches 2 Qeq (default true).
    pub bcn_max: Option<bool>,
    /// BCN00 above Qsc (default false).
    pub bcn00: Option<bool>,
}

impl Keys for BcnCpKeys {
    type Out = BcnCpParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<BcnCpParams> {
        let mut p = BcnCpParams::default();
        for (v, dst, key) in [
            (&self.q_eq, &mut p.q_eq, "q_eq"),
            (&self.q_sc, &mut p.q_sc, "q_sc"),
            (&self.sample_bytes, &mut p.sample_bytes, "sample_bytes"),
            (&self.oversample_bytes, &mut p.oversample_bytes, "oversample_bytes"),
        ] {
            if let Some(v) = v {
                *dst = v.bytes(&at(path, key))?;
            }
        }
        if let Some(v) = self.w {
            p.w = v;
        }
        if let Some(v) = self.bcn_max {
            p.bcn_max = v;
        }
        if let Some(v) = self.bcn00 {
            p.bcn00 = v;
        }
        Ok(p)
    }
}

impl Check for BcnCpParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        for (key, v) in
            [("q_eq", self.q_eq), ("q_sc", self.q_sc), ("sample_bytes", self.sample_bytes), ("oversample_bytes", self.oversample_bytes)]
        {
            if v == 0 {
                return Err(Error::scenario(at(path, key), "must be > 0"));
            }
        }
        positive(self.w, &at(path, "w"))?;
        if self.q_sc <= self.q_eq {
            return Err(Error::scenario(at(path, "q_sc"), format!("must be above q_eq ({} B <= {} B)", self.q_sc, self.q_eq)));
        }
        Ok(())
    }
}
