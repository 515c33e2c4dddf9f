//! The NetworkCC reaction point (explicit-rate.md 9.3, mode EXPLICIT_RATE): a DCQCN
//! sender that also takes switch notifications. A notification with a rate sets
//! `RC = min(RC, rate)`, `RT = RC` and restarts DCQCN's increase stages, so that when
//! notifications stop the rate recovers by DCQCN's own rules (fast recovery, additive
//! and hyper increase). One without a rate (`rule = "cnp"`) is a CNP. CNPs from ECN
//! marks, if the fabric also marks, are DCQCN's as usual.

use crate::models::dcqcn::rp::{DcqcnVariant, TIMER_INCREASE};
use crate::models::dcqcn::{Dcqcn, DcqcnParams};
use crate::models::{CcCtx, CongestionControl, Feedback, NicSpec, TimerKind};
use crate::units::Rate;

/// `type = "network_cc"`: the DCQCN parameters it recovers with.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkCcParams {
    pub dcqcn: DcqcnParams,
}

#[derive(Clone, Debug)]
pub struct NetworkCc {
    pub(crate) dcqcn: Dcqcn,
}

impl NetworkCc {
    /// A notification carrying `rate` (bit/s) arrived.
    pub fn take_rate(&mut self, ctx: &mut CcCtx, rate: Rate) {
        let d = &mut self.dcqcn;
        let r = (rate.0 as f64).max(d.p.rate_min.0 as f64).min(d.line_rate.0 as f64);
        if r >= d.rc {
            return; // RC = min(RC, rate): nothing to do, and the recovery goes on
        }
        d.rc = r;
        d.rt = r;
        d.t_stage = 0;
        d.bc_stage = 0;
        d.bytes = 0;
        if d.p.variant == DcqcnVariant::Paper {
            // The byte counter runs once the rate has been cut (as after a CNP).
            d.first_cnp = false;
        }
        ctx.restart_timer(TIMER_INCREASE, d.p.increase_period);
    }
}

impl CongestionControl for NetworkCc {
    type Params = NetworkCcParams;
    fn from_params(p: &NetworkCcParams, nic: &NicSpec) -> Self { NetworkCc { dcqcn: Dcqcn::from_params(&p.dcqcn, nic) } }
    fn window(&self) -> Option<u64> { self.dcqcn.window() }
    #[inline]
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) { self.dcqcn.on_send(ctx, wire_bytes) }
    fn on_cnp(&mut self, ctx: &mut CcCtx) { self.dcqcn.on_cnp(ctx) }
    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) {
        match fb {
            Feedback::SwitchCnp { rate: Some(r), .. } => self.take_rate(ctx, r),
            Feedback::SwitchCnp { rate: None, .. } => self.dcqcn.on_cnp(ctx),
            _ => {}
        }
    }
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) { self.dcqcn.on_timer(ctx, kind) }
    #[inline]
    fn rate(&self) -> Rate { self.dcqcn.rate() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    const C: Rate = Rate(25_000_000_000);

    fn nic() -> NicSpec { NicSpec { line_rate: C, mtu_wire: 1106, mss: 1024, base_rtt: SimTime::us(4) } }
    fn cc() -> NetworkCc { NetworkCc::from_params(&NetworkCcParams { dcqcn: DcqcnParams::paper() }, &nic()) }

    #[test]
    fn takes_a_lower_rate_and_ignores_a_higher_one() {
        let mut n = cc();
        let mut ctx = CcCtx::new(SimTime::us(10), C);
        n.on_feedback(&mut ctx, Feedback::SwitchCnp { cp: 7, rate: Some(Rate(5_000_000_000)) });
        assert_eq!(n.rate(), Rate(5_000_000_000));
        assert_eq!(n.dcqcn.target_rate(), 5e9);
        assert_eq!(ctx.requested(), &[(TIMER_INCREASE, SimTime::us(10) + DcqcnParams::paper().increase_period)]);
        let mut ctx = CcCtx::new(SimTime::us(11), C);
        n.on_feedback(&mut ctx, Feedback::SwitchCnp { cp: 7, rate: Some(Rate(8_000_000_000)) });
        assert_eq!(n.rate(), Rate(5_000_000_000));
        assert!(ctx.requested().is_empty());
        // Never below DCQCN's minimum rate.
        n.on_feedback(&mut ctx, Feedback::SwitchCnp { cp: 7, rate: Some(Rate(1)) });
        assert_eq!(n.rate(), DcqcnParams::paper().rate_min);
    }

    #[test]
    fn recovers_when_notifications_stop() {
        let mut n = cc();
        let mut ctx = CcCtx::new(SimTime::ZERO, C);
        n.on_feedback(&mut ctx, Feedback::SwitchCnp { cp: 0, rate: Some(Rate(5_000_000_000)) });
        let mut last = n.rate().0;
        // Increase-timer expiries without notifications: RC never falls and, once the
        // fast-recovery stages are over, rises by rate_ai per stage toward C.
        for k in 1..=200u64 {
            let mut ctx = CcCtx::new(SimTime::us(55 * k), C);
            n.on_timer(&mut ctx, TIMER_INCREASE);
            assert!(n.rate().0 >= last);
            last = n.rate().0;
        }
        assert!(last > 5_000_000_000 + 100 * 40_000_000 / 2, "{last}");
        assert!(n.rate() <= C);
    }

    #[test]
    fn a_notification_without_rate_is_a_cnp() {
        let mut a = cc();
        let mut b = cc();
        let mut ctx = CcCtx::new(SimTime::us(3), C);
        a.on_feedback(&mut ctx, Feedback::SwitchCnp { cp: 1, rate: None });
        let mut ctx2 = CcCtx::new(SimTime::us(3), C);
        b.dcqcn.on_cnp(&mut ctx2);
        assert_eq!(a.rate(), b.rate());
        assert!(a.rate() < C);
        assert_eq!(ctx.requested(), ctx2.requested());
    }
}
