//! Scenario keys of `type = "swift"` and the checks of its parameters.

use super::SwiftParams;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx};
use crate::units::SimTime;

crate::params! {
    /// `type = "swift"`.
    pub struct SwiftKeys => SwiftParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// base fabric delay target (before the per-hop and flow-scaling terms)
    base_target: kind::Time, POSITIVE;
    /// target added per hop
    hop_scale: kind::Time, ANY, shown "base_target / 6.55";
    /// switches on the flow's path
    hops: kind::Count, ANY;
    /// additive increase, packets per RTT
    ai: kind::Real, POSITIVE;
    /// multiplicative decrease factor
    beta: kind::Fraction, in_oo(0.0, 1.0);
    /// largest multiplicative decrease in one cut
    max_mdf: kind::Fraction, in_oo(0.0, 1.0);
    /// flow scaling: the extra target ranges over [0, fs_range] for windows between fs_max_cwnd and fs_min_cwnd packets
    fs_range: kind::Time, ANY, shown "5 x base_target";
    /// flow scaling's smallest window, packets
    fs_min_cwnd: kind::Real, POSITIVE;
    /// flow scaling's largest window, packets; above `fs_min_cwnd`
    fs_max_cwnd: kind::Real, ANY;
    /// smallest window, packets (0.01: about 10 B at 1 KB MTU)
    min_cwnd: kind::Real, POSITIVE;
    /// largest window, packets; >= `min_cwnd`
    max_cwnd: kind::Real, ANY;
    /// endpoint delay target (none: no endpoint window)
    host_target: kind::Opt<kind::Time>, POSITIVE;
    /// timeouts in a row after which the window drops to min_cwnd
    retx_reset: kind::Count, at_least(1.0);
    /// initial window, packets
    init_cwnd: kind::Opt<kind::Real>, POSITIVE, shown "one line-rate BDP over the run's largest base RTT";
}

/// `base_target` moves the defaults of `hop_scale` and `fs_range` with it.
fn build_more(k: &SwiftKeys, p: &mut SwiftParams, _: &str, _: &KeyCtx) -> Result<()> {
    if k.base_target.is_some() {
        if k.hop_scale.is_none() {
            p.hop_scale = SimTime((p.base_target.0 as f64 / 6.55) as u64);
        }
        if k.fs_range.is_none() {
            p.fs_range = SimTime(5 * p.base_target.0);
        }
    }
    Ok(())
}

fn check_more(p: &SwiftParams, path: &str, _: &KeyCtx) -> Result<()> {
    let bad = |key: &str, why: String| Err(Error::scenario(at(path, key), why));
    if !(p.max_cwnd >= p.min_cwnd && p.max_cwnd.is_finite()) {
        return bad("max_cwnd", format!("must be >= min_cwnd ({} < {})", p.max_cwnd, p.min_cwnd));
    }
    if !(p.fs_max_cwnd > p.fs_min_cwnd && p.fs_max_cwnd.is_finite()) {
        return bad("fs_max_cwnd", format!("must be above fs_min_cwnd ({} <= {})", p.fs_max_cwnd, p.fs_min_cwnd));
    }
    Ok(())
}
