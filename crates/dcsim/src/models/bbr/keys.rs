//! Scenario keys of `type = "bbr"` and the checks of its parameters.

use super::BbrParams;
use crate::keys::kind;

crate::params! {
    /// `type = "bbr"`.
    pub struct BbrKeys => BbrParams {}
    /// initial window in MSS
    init_cwnd: kind::Count, at_least(1.0);
    /// cwnd_gain in ProbeBW
    cwnd_gain: kind::Real, at_least(1.0);
    /// round trips of the bottleneck-bandwidth max filter
    bw_rounds: kind::Count, at_least(1.0);
    /// window of the RTprop min filter
    min_rtt_window: kind::Time, POSITIVE;
    /// time spent in ProbeRTT
    probe_rtt_duration: kind::Time, ANY;
    /// smallest window and ProbeRTT window in MSS
    min_cwnd: kind::Count, at_least(1.0);
    /// segments added to the target window
    quantization: kind::Count, ANY;
}
