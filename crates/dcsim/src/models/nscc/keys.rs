//! Scenario keys of `type = "nscc"` and the checks of its parameters.

use super::NsccParams;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx, SizeStr};

crate::params! {
    /// `type = "nscc"`.
    pub struct NsccKeys => NsccParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// target queueing delay
    target: kind::Opt<kind::Time>, POSITIVE, shown "the base RTT";
    /// initial base RTT (each flow lowers it to the smallest RTT it measures)
    base_rtt: kind::Opt<kind::Time>, POSITIVE, shown "the fabric's largest base RTT";
    /// multiplicative-decrease gain
    gamma: kind::Real, at_least(0.0);
    /// largest cut of one decrease
    max_md: kind::Fraction, in_oc(0.0, 1.0);
    /// fair increase per adjust period, a size
    fi: by_hand(SizeStr, "size", "5 MSS x BDP / 150 KB", "");
    /// proportional increase, bytes per microsecond of delay below target
    alpha: by_hand(f64, "number", "4 MSS x BDP / 150 KB / 12 us", ">= 0");
    /// increase once per adjust period, a size
    eta: by_hand(SizeStr, "size", "0.15 MSS x BDP / 150 KB", "");
    /// fast-increase scale
    fi_scale: kind::Opt<kind::Real>, at_least(0.0), shown "scaled from the reference fabric";
    /// below this delay for a whole window of ACKs the window grows fast
    fast_increase_delay: kind::Time, ANY;
    /// quick adapt: the window cut to what was acknowledged when the delay is far above target
    quick_adapt: kind::Bool, ANY;
    /// quick adapt acts when less than max_cwnd / 2^qa_gate was acknowledged in a period (at most 30)
    qa_gate: kind::Count, ANY;
    /// delay above which quick adapt acts
    qa_threshold: kind::Opt<kind::Time>, POSITIVE, shown "4 x target";
    /// EWMA gain of the measured delay
    delay_ewma: kind::Fraction, in_oc(0.0, 1.0);
    /// bytes acknowledged per adjust period
    adjust_bytes: kind::Opt<kind::Size>, POSITIVE, shown "8 packets";
    /// adjust period
    adjust_period: kind::Opt<kind::Time>, POSITIVE, shown "the base RTT";
    /// smallest window
    min_cwnd: kind::Opt<kind::Size>, POSITIVE, shown "one packet";
    /// largest window
    max_cwnd: kind::Opt<kind::Size>, POSITIVE, shown "1.5 BDP";
    /// initial window
    init_cwnd: kind::Opt<kind::Size>, POSITIVE, shown "max_cwnd";
    /// a NAK is a loss (false on sprayed fabrics, where NAKs come from reordering)
    nak_is_loss: kind::Bool, ANY;
}

/// `fi` and `eta` are sizes kept as reals; `alpha` is written per microsecond and kept
/// per picosecond.
fn build_more(k: &NsccKeys, p: &mut NsccParams, path: &str, _: &KeyCtx) -> Result<()> {
    let key = |key: &str| at(path, key);
    if let Some(v) = &k.fi {
        p.fi = Some(v.bytes(&key("fi"))? as f64);
    }
    if let Some(v) = &k.eta {
        p.eta = Some(v.bytes(&key("eta"))? as f64);
    }
    if let Some(v) = k.alpha {
        if !(v >= 0.0 && v.is_finite()) {
            return Err(Error::scenario(key("alpha"), format!("must be >= 0 (got {v})")));
        }
        p.alpha = Some(v / 1e6);
    }
    Ok(())
}

fn check_more(p: &NsccParams, path: &str, _: &KeyCtx) -> Result<()> {
    let bad = |key: &str, why: String| Err(Error::scenario(at(path, key), why));
    if p.qa_gate > 30 {
        return bad("qa_gate", format!("must be at most 30 (got {})", p.qa_gate));
    }
    if let (Some(lo), Some(hi)) = (p.min_cwnd, p.max_cwnd) {
        if hi < lo {
            return bad("max_cwnd", format!("must be >= min_cwnd ({hi} B < {lo} B)"));
        }
    }
    Ok(())
}
