//! Scenario keys of `type = "bbr"` and the checks of its parameters.

use serde::Deserialize;

use super::BbrParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, TimeStr};
use crate::units::SimTime;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BbrKeys {
    /// Initial window in MSS (default 10).
    pub init_cwnd: Option<i64>,
    /// cwnd_gain in ProbeBW (default 2).
    pub cwnd_gain: Option<f64>,
    /// Round trips of the bottleneck-bandwidth max filter (default 10).
    pub bw_rounds: Option<i64>,
    /// Window of the RTprop min filter (default "10s").
    pub min_rtt_window: Option<TimeStr>,
    /// Time spent in ProbeRTT (default "200ms").
    pub probe_rtt_duration: Option<TimeStr>,
    /// Smallest window and ProbeRTT window in MSS (default 4).
    pub min_cwnd: Option<i64>,
    /// Segments added to the target window (default 3).
    pub quantization: Option<i64>,
}

impl Keys for BbrKeys {
    type Out = BbrParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<BbrParams> {
        let mut p = BbrParams::default();
        let k = |key: &str| at(path, key);
        if let Some(v) = self.init_cwnd {
            p.init_cwnd = count_at_least(v, 1, &k("init_cwnd"))?;
        }
        if let Some(v) = self.cwnd_gain {
            p.cwnd_gain = v;
        }
        if let Some(v) = self.bw_rounds {
            p.bw_rounds = count_at_least(v, 1, &k("bw_rounds"))?;
        }
        if let Some(v) = &self.min_rtt_window {
            p.min_rtt_window = v.time(&k("min_rtt_window"))?;
        }
        if let Some(v) = &self.probe_rtt_duration {
            p.probe_rtt_duration = v.time(&k("probe_rtt_duration"))?;
        }
        if let Some(v) = self.min_cwnd {
            p.min_cwnd = count_at_least(v, 1, &k("min_cwnd"))?;
        }
        if let Some(v) = self.quantization {
            p.quantization = count_at_least(v, 0, &k("quantization"))?;
        }
        Ok(p)
    }
}

impl Check for BbrParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if !(self.cwnd_gain >= 1.0 && self.cwnd_gain.is_finite()) {
            return Err(Error::scenario(at(path, "cwnd_gain"), format!("must be >= 1 (got {})", self.cwnd_gain)));
        }
        if self.init_cwnd == 0 || self.min_cwnd == 0 || self.bw_rounds == 0 {
            let key = if self.init_cwnd == 0 {
                "init_cwnd"
            } else if self.min_cwnd == 0 {
                "min_cwnd"
            } else {
                "bw_rounds"
            };
            return Err(Error::scenario(at(path, key), "must be >= 1"));
        }
        if self.min_rtt_window == SimTime::ZERO {
            return Err(Error::scenario(at(path, "min_rtt_window"), "must be > 0"));
        }
        Ok(())
    }
}
