//! Scenario keys of `type = "timely"` and the checks of its parameters.

use super::TimelyParams;
use crate::error::{Error, Result};
use crate::keys::{at, at_most_line_rate, kind, KeyCtx};
use crate::models::window_cap::{self, Window};

crate::params! {
    /// `type = "timely"`.
    pub struct TimelyKeys => TimelyParams {
        check_more: check_more,
    }
    /// EWMA weight of the RTT difference (HPCC simulator; the TIMELY pseudo-code uses 0.02)
    a: kind::Fraction, in_oc(0.0, 1.0);
    /// multiplicative decrease factor
    beta: kind::Fraction, in_oc(0.0, 1.0);
    /// RTT below which the rate increases (HPCC simulator)
    t_low: kind::Time, ANY;
    /// RTT above which the rate decreases; above `t_low` (HPCC simulator)
    t_high: kind::Time, ANY;
    /// normalises the gradient
    min_rtt: kind::Time, POSITIVE;
    /// additive step (10 Mb/s per 10 Gb/s, HPCC simulator `run.py`)
    rate_ai: kind::Opt<kind::Rate>, POSITIVE, shown "line rate / 1000";
    /// step after 5 increases in a row
    rate_hai: kind::Opt<kind::Rate>, POSITIVE, shown "5 x `rate_ai`";
    /// floor, at most the smallest host link rate; an assumption: the spec names a floor without a value
    rate_min: kind::Rate, POSITIVE;
    /// "+win" (the HPCC study's TIMELY+win): `"bdp"` (line rate x the run's largest base RTT) or a size; bytes in flight allowed besides pacing
    window: kind::Opt<Window>, POSITIVE;
    /// needs `window`; the cap follows the rate: window x rate / line rate, rounded down, at least 1 B (the HPCC study's `VAR_WIN 1`)
    var_window: kind::Bool, ANY;
}

fn check_more(p: &TimelyParams, path: &str, ctx: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    window_cap::check_keys(&p.window, p.var_window, k)?;
    if p.t_high <= p.t_low {
        return Err(Error::scenario(k("t_high"), format!("must be above t_low ({} <= {})", p.t_high, p.t_low)));
    }
    at_most_line_rate(p.rate_min, &k("rate_min"), ctx)
}
