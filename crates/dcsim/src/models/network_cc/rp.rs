//! The NetworkCC reaction point: a DCQCN sender that also takes switch notifications.
//! A notification with a rate sets the current rate RC from it, `RT = RC`, and restarts
//! DCQCN's increase stages and timer, so that when notifications stop the rate recovers
//! by DCQCN's own rules (fast recovery, additive and hyper increase). How RC is set is
//! the `reaction`:
//!
//! * `lower` (explicit-rate.md 9.3, mode EXPLICIT_RATE): `RC = min(RC, rate)`; a higher
//!   rate is ignored.
//! * `follow` (RCP's sender, 9.4: the flow sends at the rate the network gives it):
//!   `RC = rate`, up or down, while notifications arrive. A flow crossing several
//!   notifying ports must send at the lowest of their rates, as RCP's minimum stamp over
//!   the path; the sender cannot see the path, so it remembers which port set its rate
//!   and takes a higher rate only from that port (a lower one from any port).
//!
//! One without a rate (`rule = "cnp"`) is a CNP. CNPs from ECN marks, if the fabric also
//! marks, are DCQCN's as usual.

use crate::models::dcqcn::rp::{DcqcnVariant, TIMER_INCREASE};
use crate::models::dcqcn::{Dcqcn, DcqcnParams};
use crate::models::{CcCtx, CongestionControl, Feedback, NicSpec, TimerKind};
use crate::units::Rate;

/// How a notified rate sets the current rate (`reaction`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reaction {
    /// `RC = min(RC, rate)` (explicit-rate.md 9.3 EXPLICIT_RATE), the default.
    Lower,
    /// `RC = rate`, up or down (RCP's sender, 9.4), a higher rate only from the port
    /// that set the current one.
    Follow,
}

/// `type = "network_cc"`: how it takes a rate and the DCQCN parameters it recovers with.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkCcParams {
    pub reaction: Reaction,
    pub dcqcn: DcqcnParams,
}

impl Default for NetworkCcParams {
    /// Lower only, recovering with DCQCN's paper set.
    fn default() -> Self {
        NetworkCcParams { reaction: Reaction::Lower, dcqcn: DcqcnParams::paper() }
    }
}

/// No port has set the rate (`NetworkCc::cp`).
const NO_CP: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct NetworkCc {
    pub(crate) dcqcn: Dcqcn,
    reaction: Reaction,
    /// `follow`: the congestion point whose notification set RC last (`NO_CP`: none).
    cp: u32,
}

impl NetworkCc {
    /// A notification from congestion point `cp` carrying `rate` (bit/s) arrived.
    pub fn take_rate(&mut self, ctx: &mut CcCtx, cp: u32, rate: Rate) {
        let d = &mut self.dcqcn;
        let r = (rate.0 as f64).max(d.p.rate_min.0 as f64).min(d.line_rate.0 as f64);
        let take = match self.reaction {
            Reaction::Lower => r < d.rc,
            Reaction::Follow => r < d.rc || cp == self.cp || self.cp == NO_CP,
        };
        if !take {
            return; // the rate stands, and the recovery goes on
        }
        self.cp = cp;
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
    fn from_params(p: &NetworkCcParams, nic: &NicSpec) -> Self {
        NetworkCc { dcqcn: Dcqcn::from_params(&p.dcqcn, nic), reaction: p.reaction, cp: NO_CP }
    }
    fn window(&self) -> Option<u64> {
        self.dcqcn.window()
    }
    #[inline]
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) {
        self.dcqcn.on_send(ctx, wire_bytes)
    }
    fn on_cnp(&mut self, ctx: &mut CcCtx) {
        self.dcqcn.on_cnp(ctx)
    }
    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) {
        match fb {
            Feedback::SwitchCnp { cp, rate: Some(r) } => self.take_rate(ctx, cp, r),
            Feedback::SwitchCnp { rate: None, .. } => self.dcqcn.on_cnp(ctx),
            _ => {}
        }
    }
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        self.dcqcn.on_timer(ctx, kind)
    }
    // Its timers are DCQCN's, so are their quiet expiries; notifications come in hooks.
    fn wants_send(&self) -> bool {
        self.dcqcn.wants_send()
    }
    fn quiet_timer(&self, kind: TimerKind) -> bool {
        self.dcqcn.quiet_timer(kind)
    }
    #[inline]
    fn rate(&self) -> Rate {
        self.dcqcn.rate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    const C: Rate = Rate(25_000_000_000);

    fn nic() -> NicSpec {
        NicSpec { line_rate: C, mtu_wire: 1106, mss: 1024, base_rtt: SimTime::us(4) }
    }
    fn cc() -> NetworkCc {
        with(Reaction::Lower)
    }
    fn with(reaction: Reaction) -> NetworkCc {
        NetworkCc::from_params(&NetworkCcParams { reaction, dcqcn: DcqcnParams::paper() }, &nic())
    }
    fn note(n: &mut NetworkCc, t_us: u64, cp: u32, gbps: u64) -> CcCtx {
        let mut ctx = CcCtx::new(SimTime::us(t_us), C);
        n.on_feedback(&mut ctx, Feedback::SwitchCnp { cp, rate: Some(Rate::gbps(gbps)) });
        ctx
    }

    #[test]
    fn follow_takes_the_rate_up_and_down_from_the_port_that_set_it() {
        let mut n = with(Reaction::Follow);
        note(&mut n, 0, 7, 5);
        assert_eq!(n.rate(), Rate::gbps(5));
        // Same port, higher rate: taken, RT = RC, the increase timer re-armed from now.
        let ctx = note(&mut n, 50, 7, 8);
        assert_eq!(n.rate(), Rate::gbps(8));
        assert_eq!(n.dcqcn.target_rate(), 8e9);
        assert_eq!(ctx.requested(), &[(TIMER_INCREASE, SimTime::us(50) + DcqcnParams::paper().increase_period)]);
        // Another port, higher rate: ignored (the flow sends at the lowest rate of its path).
        let ctx = note(&mut n, 60, 9, 12);
        assert_eq!(n.rate(), Rate::gbps(8));
        assert!(ctx.requested().is_empty());
        // Another port, lower rate: taken, and that port now owns the rate.
        note(&mut n, 70, 9, 3);
        assert_eq!(n.rate(), Rate::gbps(3));
        note(&mut n, 80, 7, 6);
        assert_eq!(n.rate(), Rate::gbps(3));
        note(&mut n, 90, 9, 4);
        assert_eq!(n.rate(), Rate::gbps(4));
        // Never above the line rate.
        note(&mut n, 100, 9, 40);
        assert_eq!(n.rate(), C);
    }

    #[test]
    fn follow_recovers_from_the_last_rate_when_notifications_stop() {
        // RC = RT = 4 Gb/s: fast recovery leaves RC at RT for F = 5 stages, then the
        // additive increase: RT = 4.04e9, RC = (4.04e9 + 4e9) / 2 = 4.02e9.
        let mut n = with(Reaction::Follow);
        note(&mut n, 0, 1, 4);
        for k in 1..=5u64 {
            n.on_timer(&mut CcCtx::new(SimTime::us(55 * k), C), TIMER_INCREASE);
            assert_eq!(n.rate(), Rate::gbps(4));
        }
        n.on_timer(&mut CcCtx::new(SimTime::us(330), C), TIMER_INCREASE);
        assert_eq!(n.rate(), Rate(4_020_000_000));
    }

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
