//! Scenario keys of `type = "nscc"` and the checks of its parameters.

use serde::Deserialize;

use super::NsccParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, SizeStr, TimeStr};
use crate::units::SimTime;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NsccKeys {
    /// Default: the base RTT.
    pub target: Option<TimeStr>,
    /// Default: the fabric's largest base RTT.
    pub base_rtt: Option<TimeStr>,
    pub gamma: Option<f64>,
    pub max_md: Option<f64>,
    /// Fair increase, a size (default 5 MSS x BDP / 150 KB).
    pub fi: Option<SizeStr>,
    /// Proportional increase, bytes per microsecond of delay below target (default
    /// 4 MSS x BDP / 150 KB / 12 us).
    pub alpha: Option<f64>,
    /// Increase once per adjust period, a size (default 0.15 MSS x BDP / 150 KB).
    pub eta: Option<SizeStr>,
    pub fi_scale: Option<f64>,
    pub fast_increase_delay: Option<TimeStr>,
    pub quick_adapt: Option<bool>,
    pub qa_gate: Option<i64>,
    /// Default 4 x target.
    pub qa_threshold: Option<TimeStr>,
    pub delay_ewma: Option<f64>,
    /// Default 8 packets.
    pub adjust_bytes: Option<SizeStr>,
    /// Default: the base RTT.
    pub adjust_period: Option<TimeStr>,
    /// Defaults: one packet, 1.5 BDP, max_cwnd.
    pub min_cwnd: Option<SizeStr>,
    pub max_cwnd: Option<SizeStr>,
    pub init_cwnd: Option<SizeStr>,
    pub nak_is_loss: Option<bool>,
}

impl Keys for NsccKeys {
    type Out = NsccParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<NsccParams> {
        let k = |key: &str| at(path, key);
        let time = |v: &Option<TimeStr>, key: &str| v.as_ref().map(|t| t.time(&k(key))).transpose();
        let size = |v: &Option<SizeStr>, key: &str| v.as_ref().map(|s| s.bytes(&k(key))).transpose();
        let d = NsccParams::default();
        Ok(NsccParams {
            target: time(&self.target, "target")?,
            base_rtt: time(&self.base_rtt, "base_rtt")?,
            gamma: self.gamma.unwrap_or(d.gamma),
            max_md: self.max_md.unwrap_or(d.max_md),
            fi: size(&self.fi, "fi")?.map(|v| v as f64),
            alpha: self.alpha.map(|v| v / 1e6),
            eta: size(&self.eta, "eta")?.map(|v| v as f64),
            fi_scale: self.fi_scale,
            fast_increase_delay: time(&self.fast_increase_delay, "fast_increase_delay")?.unwrap_or(d.fast_increase_delay),
            quick_adapt: self.quick_adapt.unwrap_or(d.quick_adapt),
            qa_gate: self.qa_gate.map(|v| count_at_least(v, 0, &k("qa_gate"))).transpose()?.unwrap_or(d.qa_gate),
            qa_threshold: time(&self.qa_threshold, "qa_threshold")?,
            delay_ewma: self.delay_ewma.unwrap_or(d.delay_ewma),
            adjust_bytes: size(&self.adjust_bytes, "adjust_bytes")?,
            adjust_period: time(&self.adjust_period, "adjust_period")?,
            min_cwnd: size(&self.min_cwnd, "min_cwnd")?,
            max_cwnd: size(&self.max_cwnd, "max_cwnd")?,
            init_cwnd: size(&self.init_cwnd, "init_cwnd")?,
            nak_is_loss: self.nak_is_loss.unwrap_or(d.nak_is_loss),
        })
    }
}

impl Check for NsccParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let bad = |key: &str, why: String| Err(Error::scenario(at(path, key), why));
        for (key, v) in [
            ("target", self.target),
            ("base_rtt", self.base_rtt),
            ("qa_threshold", self.qa_threshold),
            ("adjust_period", self.adjust_period),
        ] {
            if v == Some(SimTime::ZERO) {
                return bad(key, "must be > 0".into());
            }
        }
        for (key, v) in [("gamma", Some(self.gamma)), ("fi_scale", self.fi_scale)] {
            if let Some(v) = v {
                if !(v >= 0.0 && v.is_finite()) {
                    return bad(key, format!("must be >= 0 (got {v})"));
                }
            }
        }
        if let Some(v) = self.alpha {
            if !(v >= 0.0 && v.is_finite()) {
                return bad("alpha", format!("must be >= 0 (got {})", v * 1e6));
            }
        }
        for (key, v) in [("max_md", self.max_md), ("delay_ewma", self.delay_ewma)] {
            if !(v > 0.0 && v <= 1.0) {
                return bad(key, format!("must be in (0, 1] (got {v})"));
            }
        }
        if self.qa_gate > 30 {
            return bad("qa_gate", format!("must be at most 30 (got {})", self.qa_gate));
        }
        for (key, v) in
            [("adjust_bytes", self.adjust_bytes), ("min_cwnd", self.min_cwnd), ("max_cwnd", self.max_cwnd), ("init_cwnd", self.init_cwnd)]
        {
            if v == Some(0) {
                return bad(key, "must be > 0".into());
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_cwnd, self.max_cwnd) {
            if hi < lo {
                return bad("max_cwnd", format!("must be >= min_cwnd ({hi} B < {lo} B)"));
            }
        }
        Ok(())
    }
}
