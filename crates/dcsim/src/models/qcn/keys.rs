//! Scenario keys of QCN: the reaction point (`type = "qcn"` in `[host.cc]` or a traffic
//! entry's `cc`) and the congestion point (`type = "qcn"` in `[switch.l2cm]`), with the
//! checks of their parameters.

use super::cp::QcnCpParams;
use super::rp::QcnParams;
use crate::keys::kind;

crate::params! {
    /// `type = "qcn"` reaction point.
    pub struct QcnKeys => QcnParams {}
    /// FAST_RECOVERY_TH: byte-counter or timer cycles of fast recovery
    f => fast_recovery_th: kind::Count, at_least(1.0);
    /// R_AI (AI_INC)
    rate_ai => r_ai: kind::Rate, POSITIVE;
    /// R_HAI (HAI_INC)
    rate_hai => r_hai: kind::Rate, POSITIVE;
    /// MIN_RATE, floor of CR
    rate_min => min_rate: kind::Rate, POSITIVE;
    /// BC_LIMIT: wire bytes per byte-counter cycle
    bc_limit: kind::Size, POSITIVE;
    /// TIMER_PERIOD of the rate-increase timer
    timer_period: kind::Time, POSITIVE;
    /// decrease gain per quantum of feedback: CR x (1 - gd x fb)
    gd: kind::Fraction, in_oo(0.0, 1.0);
    /// smallest factor of one CNM
    min_dec_factor: kind::Fraction, in_oo(0.0, 1.0);
    /// BC_LIMIT and TIMER_PERIOD x U(1 - jitter, 1 + jitter)
    jitter: kind::Fraction, in_co(0.0, 1.0);
}

crate::params! {
    /// `[switch.l2cm] type = "qcn"`: the congestion point.
    pub struct QcnCpKeys => QcnCpParams {}
    /// equilibrium queue Q_EQ
    q_eq: kind::Size, POSITIVE;
    /// weight of the queue change
    w: kind::Real, at_least(0.0);
    /// sampling interval x U(1 - jitter, 1 + jitter) ("30 % randomness")
    jitter: kind::Fraction, in_co(0.0, 1.0);
}
