//! Scenario keys of `type = "dctcp"` and the checks of its parameters.

use super::DctcpParams;
use crate::keys::kind;

crate::params! {
    /// `type = "dctcp"`.
    pub struct DctcpKeys => DctcpParams {}
    /// weight of a window's marked fraction in alpha (RFC 8257; ns-3 `DctcpShiftG`)
    g: kind::Fraction, in_oc(0.0, 1.0);
    /// alpha at the start (ns-3 `DctcpAlphaOnInit`)
    alpha_init: kind::Fraction, in_cc(0.0, 1.0);
    /// initial window in MSS (RFC 6928)
    init_cwnd: kind::Count, at_least(1.0);
}
