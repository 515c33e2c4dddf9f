//! Scenario keys of BCN: the rate regulator (`type = "bcn"` reaction point) and the
//! congestion point (`[switch.l2cm] type = "bcn"`), with the checks of their parameters.

use super::cp::BcnCpParams;
use super::rp::BcnParams;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx};

crate::params! {
    /// `type = "bcn"` rate regulator.
    pub struct BcnKeys => BcnParams {}
    /// increase gain Gi, per 64 B unit
    gi: kind::Real, POSITIVE;
    /// decrease gain Gd, per 64 B unit
    gd: kind::Real, POSITIVE;
    /// rate unit Ru of the increase
    ru: kind::Rate, POSITIVE;
    /// floor of R and the rate after BCN00 (capped at the line rate)
    rate_min => r_min: kind::Rate, POSITIVE;
    /// relative increase per drift interval without messages; 0 disables drift
    drift: kind::Real, at_least(0.0);
    /// the drift interval
    drift_interval: kind::Time, POSITIVE;
}

crate::params! {
    /// `[switch.l2cm] type = "bcn"`: the congestion point.
    pub struct BcnCpKeys => BcnCpParams {
        check_more: check_cp,
    }
    /// Qeq (16 x 1500 B)
    q_eq: kind::Size, POSITIVE;
    /// Qsc, severe congestion (over-sampling, BCN00); above `q_eq`
    q_sc: kind::Size, POSITIVE;
    /// weight of Qdelta
    w: kind::Real, POSITIVE;
    /// arriving bytes between samples (2 % of 1500 B frames)
    sample_bytes: kind::Size, POSITIVE;
    /// the same while the queue is above `q_sc` (10 %)
    oversample_bytes: kind::Size, POSITIVE;
    /// BCNMAX: -Fb_max once the queue reaches 2 Qeq
    bcn_max: kind::Bool, ANY;
    /// BCN00 instead of feedback while the queue is above `q_sc`
    bcn00: kind::Bool, ANY;
}

fn check_cp(p: &BcnCpParams, path: &str, _: &KeyCtx) -> Result<()> {
    if p.q_sc <= p.q_eq {
        return Err(Error::scenario(at(path, "q_sc"), format!("must be above q_eq ({} B <= {} B)", p.q_sc, p.q_eq)));
    }
    Ok(())
}
