//! Scenario keys of FECN and E-FECN: the source (`type = "fecn"` / `"efecn"` reaction
//! point) and the switch ports (`[switch.l2cm] type = "fecn"` / `"efecn"`), with the
//! checks of their parameters.

use serde::Deserialize;

use super::source::FecnParams;
use super::switch::FecnSwitchParams;
use crate::error::{Error, Result};
use crate::keys::{at, positive, Check, KeyCtx, Keys, RateStr, SizeStr, TimeStr};

/// `type = "fecn"` or `"efecn"` source (the same keys; E-FECN also reacts to BCN00).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FecnKeys {
    pub probe_interval: Option<TimeStr>,
    pub timeout: Option<TimeStr>,
    /// Start rate (default: line rate).
    pub initial_rate: Option<RateStr>,
    pub rate_min: Option<RateStr>,
}

impl FecnKeys {
    fn build_from(&self, mut p: FecnParams, path: &str) -> Result<FecnParams> {
        let k = |key: &str| at(path, key);
        if let Some(v) = &self.probe_interval {
            p.probe_interval = v.time(&k("probe_interval"))?;
        }
        if let Some(v) = &self.timeout {
            p.timeout = v.time(&k("timeout"))?;
        }
        if let Some(v) = &self.initial_rate {
            p.initial_rate = Some(v.rate(&k("initial_rate"))?);
        }
        if let Some(v) = &self.rate_min {
            p.r_min = v.rate(&k("rate_min"))?;
        }
        Ok(p)
    }
}

impl Keys for FecnKeys {
    type Out = FecnParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<FecnParams> {
        self.build_from(FecnParams::default(), path)
    }
}

/// `type = "efecn"` source: the FECN keys with E-FECN on.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct EfecnKeys(pub FecnKeys);

impl Keys for EfecnKeys {
    type Out = FecnParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<FecnParams> {
        self.0.build_from(FecnParams::efecn(), path)
    }
}

impl Check for FecnParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        for (key, v) in [("probe_interval", self.probe_interval), ("timeout", self.timeout)] {
            if v.0 == 0 {
                return Err(Error::scenario(k(key), "must be > 0"));
            }
        }
        if self.initial_rate.is_some_and(|r| r.0 == 0) {
            return Err(Error::scenario(k("initial_rate"), "must be > 0"));
        }
        if self.r_min.0 == 0 {
            return Err(Error::scenario(k("rate_min"), "must be > 0"));
        }
        Ok(())
    }
}

/// `[switch.l2cm] type = "fecn"` or `"efecn"`: the switch ports' rate allocation.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FecnSwitchKeys {
    /// Equilibrium queue Qeq (default 24,000 B).
    pub q_eq: Option<SizeStr>,
    /// Severe-congestion threshold Qsc (default "120KB").
    pub q_sc: Option<SizeStr>,
    /// Queue-control function parameters (defaults 1.1, 1.002, 0.1).
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub c: Option<f64>,
    /// Advertised-rate update interval (default "1ms").
    pub interval: Option<TimeStr>,
    /// E-FECN only: the rate advertised under severe congestion (default "500Mbps").
    pub rate_min: Option<RateStr>,
}

impl FecnSwitchKeys {
    fn build_from(&self, mut p: FecnSwitchParams, path: &str) -> Result<FecnSwitchParams> {
        if let Some(v) = &self.q_eq {
            p.q_eq = v.bytes(&at(path, "q_eq"))?;
        }
        if let Some(v) = &self.q_sc {
            p.q_sc = v.bytes(&at(path, "q_sc"))?;
        }
        for (v, dst) in [(self.a, &mut p.a), (self.b, &mut p.b), (self.c, &mut p.c)] {
            if let Some(v) = v {
                *dst = v;
            }
        }
        if let Some(v) = &self.interval {
            p.interval = v.time(&at(path, "interval"))?;
        }
        if let Some(v) = &self.rate_min {
            if !p.efecn {
                return Err(Error::scenario(at(path, "rate_min"), "only for type = \"efecn\""));
            }
            p.r_min = v.rate(&at(path, "rate_min"))?;
        }
        Ok(p)
    }
}

impl Keys for FecnSwitchKeys {
    type Out = FecnSwitchParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<FecnSwitchParams> {
        self.build_from(FecnSwitchParams::default(), path)
    }
}

/// `[switch.l2cm] type = "efecn"`: the FECN keys with E-FECN on.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct EfecnSwitchKeys(pub FecnSwitchKeys);

impl Keys for EfecnSwitchKeys {
    type Out = FecnSwitchParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<FecnSwitchParams> {
        self.0.build_from(FecnSwitchParams::efecn(), path)
    }
}

impl Check for FecnSwitchParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        for (key, v) in [("q_eq", self.q_eq), ("q_sc", self.q_sc)] {
            if v == 0 {
                return Err(Error::scenario(at(path, key), "must be > 0"));
            }
        }
        for (key, v) in [("a", self.a), ("b", self.b), ("c", self.c)] {
            positive(v, &at(path, key))?;
        }
        if self.interval.0 == 0 {
            return Err(Error::scenario(at(path, "interval"), "must be > 0"));
        }
        if self.r_min.0 == 0 {
            return Err(Error::scenario(at(path, "rate_min"), "must be > 0"));
        }
        Ok(())
    }
}
