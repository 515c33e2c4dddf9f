//! Scenario keys of `type = "hpcc"` and the checks of its parameters.

use super::{HpccAi, HpccParams};
use crate::error::{Error, Result};
use crate::keys::{at, at_most_line_rate, kind, KeyCtx, RateStr, SizeStr};

crate::params! {
    /// `type = "hpcc"`.
    pub struct HpccKeys => HpccParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// target utilisation (paper; simulator)
    eta: kind::Fraction, in_oc(0.0, 1.0);
    /// additive steps in a row before a multiplicative one is forced (simulator attribute default; its experiment script `run.py` uses 0)
    max_stage: kind::Count, ANY;
    /// additive step (simulator `run.py`); at most the smallest host link rate; not with `w_ai`
    rate_ai: by_hand(RateStr, "rate", "10 Mb/s per 25 Gb/s of line rate (40 Mb/s at 100 Gb/s)", "> 0");
    /// additive step as the paper's window step W_AI (bytes per `T`); not with `rate_ai`
    w_ai: by_hand(SizeStr, "size", "none", "> 0");
    /// floor, at most the smallest host link rate (simulator attribute default; `run.py` uses 1 Gb/s)
    rate_min: kind::Rate, POSITIVE;
    /// `T`
    base_rtt: kind::Opt<kind::Time>, POSITIVE, shown "the run's largest base RTT";
    /// limit bytes in flight to `R T` besides pacing (`VAR_WIN 1`)
    window: kind::Bool, ANY;
}

/// `rate_ai` and `w_ai` are two ways to write one step.
fn build_more(k: &HpccKeys, p: &mut HpccParams, path: &str, _: &KeyCtx) -> Result<()> {
    let key = |key: &str| at(path, key);
    p.ai = match (&k.rate_ai, &k.w_ai) {
        (Some(_), Some(_)) => return Err(Error::scenario(key("w_ai"), "give either rate_ai or w_ai, not both")),
        (Some(r), None) => Some(HpccAi::Rate(r.rate(&key("rate_ai"))?)),
        (None, Some(w)) => Some(HpccAi::Window(w.bytes(&key("w_ai"))?)),
        (None, None) => None,
    };
    Ok(())
}

fn check_more(p: &HpccParams, path: &str, ctx: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    match p.ai {
        Some(HpccAi::Rate(r)) if r.0 == 0 => return Err(Error::scenario(k("rate_ai"), "must be > 0")),
        Some(HpccAi::Window(0)) => return Err(Error::scenario(k("w_ai"), "must be > 0")),
        Some(HpccAi::Rate(r)) => at_most_line_rate(r, &k("rate_ai"), ctx)?,
        _ => {}
    }
    at_most_line_rate(p.rate_min, &k("rate_min"), ctx)
}
