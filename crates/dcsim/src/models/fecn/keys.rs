//! Scenario keys of FECN and E-FECN: the source (`type = "fecn"` / `"efecn"` reaction
//! point) and the switch ports (`[switch.l2cm] type = "fecn"` / `"efecn"`), with the
//! checks of their parameters.

use serde::Deserialize;

use super::source::FecnParams;
use super::switch::FecnSwitchParams;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx, Keys, RateStr};

crate::params! {
    /// `type = "fecn"` or `"efecn"` source (the same keys; E-FECN also reacts to BCN00).
    pub struct FecnKeys => FecnParams {}
    /// one probe per interval
    probe_interval: kind::Time, POSITIVE;
    /// no probe back for this long: R = R_min
    timeout: kind::Time, POSITIVE;
    /// start rate C / N0, capped at the line rate
    initial_rate: kind::Opt<kind::Rate>, POSITIVE, shown "line rate";
    /// capped at the line rate; rate after a timeout; `efecn`: after BCN00 and floor of returned rates
    rate_min => r_min: kind::Rate, POSITIVE;
}

/// `type = "efecn"` source: the FECN keys with E-FECN on.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct EfecnKeys(pub FecnKeys);

impl Keys for EfecnKeys {
    type Out = FecnParams;
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<FecnParams> {
        self.0.build_onto(FecnParams::efecn(), path, ctx)
    }
}

crate::params! {
    /// `[switch.l2cm] type = "fecn"` or `"efecn"`: the switch ports' rate allocation.
    pub struct FecnSwitchKeys => FecnSwitchParams {
        build_more: build_switch,
    }
    /// Qeq
    q_eq: kind::Size, POSITIVE;
    /// E-FECN severe-congestion threshold (accepted but unused with `fecn`)
    q_sc: kind::Size, POSITIVE;
    /// queue control below Qeq (f(0) = a)
    a: kind::Real, POSITIVE;
    /// queue control above Qeq
    b: kind::Real, POSITIVE;
    /// floor of f
    c: kind::Real, POSITIVE;
    /// T, the recomputation period
    interval: kind::Time, POSITIVE;
    /// `efecn` only: the rate advertised under severe congestion
    rate_min: by_hand(RateStr, "rate", "`\"500Mbps\"`", "> 0");
}

/// `rate_min` is E-FECN's only.
fn build_switch(k: &FecnSwitchKeys, p: &mut FecnSwitchParams, path: &str, _: &KeyCtx) -> Result<()> {
    if let Some(v) = &k.rate_min {
        if !p.efecn {
            return Err(Error::scenario(at(path, "rate_min"), "only for type = \"efecn\""));
        }
        p.r_min = v.rate(&at(path, "rate_min"))?;
    }
    Ok(())
}

/// `[switch.l2cm] type = "efecn"`: the FECN keys with E-FECN on.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct EfecnSwitchKeys(pub FecnSwitchKeys);

impl Keys for EfecnSwitchKeys {
    type Out = FecnSwitchParams;
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<FecnSwitchParams> {
        self.0.build_onto(FecnSwitchParams::efecn(), path, ctx)
    }
}
