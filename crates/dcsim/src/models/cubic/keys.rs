//! Scenario keys of `type = "cubic"` and the checks of its parameters.

use super::CubicParams;
use crate::keys::kind;

crate::params! {
    /// `type = "cubic"`.
    pub struct CubicKeys => CubicParams {}
    /// scaling constant C in segments / s^3 (RFC 9438)
    c: kind::Real, POSITIVE;
    /// multiplicative decrease factor (RFC 9438)
    beta: kind::Fraction, in_oo(0.0, 1.0);
    /// fast convergence (RFC 9438 4.7)
    fast_convergence: kind::Bool, ANY;
    /// initial window in MSS (RFC 6928)
    init_cwnd: kind::Count, at_least(1.0);
}
