//! `rcm_linear`: the seed OMNeT++ study's reaction point (seeds.md, section 000).
//!
//! T is the wire time of one MTU packet at line rate. After k CNPs without recovery the
//! queue pair's packets start (k+1) T apart, i.e. it sends at line_rate / (k+1)
//! (the "spacing" reading of the seed; the other reading, an idle gap of (k+1) T after
//! each packet, is the `gap` option: line_rate / (k+2)). Each recovery step, after a
//! configured time and/or number of bytes without a CNP, goes one level back (k -> k-1).
//!
//! Rates as the engine paces them (start-to-start spacing of wire_bytes*8/rate), rounded
//! down to whole bit/s, with C the line rate:
//! - spacing reading (default): rate = C / (k+1), so MTU packets start (k+1) T apart;
//! - gap reading (`gap = true`): an idle (k+1) T after each packet of wire time T gives a
//!   start-to-start spacing of (k+2) T, rate = C T / ((k+2) T) = C / (k+2) for k >= 1;
//!   at k = 0 there is no delay at all, rate = C.
//!
//! Both readings are exact for MTU-sized packets; a shorter packet is paced in proportion
//! to its size (the delay of the seed is stated per MTU time T, a rate cannot do both).
//!
//! A CNP: k = min(k+1, max_level) and the recovery progress restarts (bytes since the CNP
//! = 0, recovery timer, kind 0, restarted for `recover_time`). Recovery steps k -> k-1:
//! - `Time`: at each expiry of the recovery timer (it is restarted by every CNP and step);
//! - `Bytes`: each time `recover_bytes` wire bytes have been sent since the last CNP/step
//!   (checked when a packet is sent; the excess is not carried over);
//! - `Either`: whichever comes first; a step restarts both the timer and the byte count;
//! - `Both`: a step needs the time and the bytes since the last CNP/step, and happens at
//!   whichever of the two completes the pair (the timer stops once its time has passed).
//!
//! The timer is stopped at k = 0, and bytes are counted only while k > 0.

use crate::models::{CcCtx, CongestionControl, TimerKind};
use crate::units::{Rate, SimTime};

/// When a recovery step happens (`rule = "time" | "bytes" | "either" | "both"`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryRule {
    /// After `recover_time` without a CNP.
    Time,
    /// After `recover_bytes` sent without a CNP.
    Bytes,
    /// Whichever of the two comes first.
    Either,
    /// Only once both have passed.
    Both,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RcmLinearParams {
    /// Time without a CNP before one step of recovery.
    pub recover_time: SimTime,
    /// Bytes sent without a CNP before one step of recovery.
    pub recover_bytes: u64,
    pub rule: RecoveryRule,
    /// Highest level k (rate line_rate / (k+1)); CNPs beyond it change nothing.
    pub max_level: u32,
    /// false (default): start-to-start spacing (k+1) T; true: idle gap (k+1) T after each packet.
    pub gap: bool,
}

impl Default for RcmLinearParams {
    /// The study did not publish its values; these are starting points (a recovery step
    /// per 50 us without a CNP), stated in every scenario that uses them.
    fn default() -> Self {
        RcmLinearParams { recover_time: SimTime::us(50), recover_bytes: 0, rule: RecoveryRule::Time, max_level: 1000, gap: false }
    }
}

/// The recovery timer's kind.
pub const TIMER_RECOVER: TimerKind = 0;

#[derive(Clone, Debug)]
pub struct RcmLinear {
    pub(crate) p: RcmLinearParams,
    pub(crate) line_rate: Rate,
    /// Wire size of an MTU packet: T = its wire time at line rate. The rates below are
    /// exact for MTU-sized packets (see the module comment).
    pub(crate) mtu_wire: u32,
    pub(crate) level: u32,
    /// Wire bytes sent since the last CNP or recovery step (counted while level > 0).
    pub(crate) bytes: u64,
    /// Rule `Both`: `recover_time` has passed since the last CNP or step.
    pub(crate) time_ok: bool,
}

impl RcmLinear {
    pub fn new(p: RcmLinearParams, line_rate: Rate, mtu_wire: u32) -> Self {
        RcmLinear { p, line_rate, mtu_wire, level: 0, bytes: 0, time_ok: false }
    }
    /// Current level k (number of unrecovered CNPs).
    pub fn level(&self) -> u32 {
        self.level
    }
    /// Wire size of an MTU packet.
    pub fn mtu_wire(&self) -> u32 {
        self.mtu_wire
    }

    #[inline]
    fn uses_timer(&self) -> bool {
        self.p.rule != RecoveryRule::Bytes
    }

    #[inline]
    fn bytes_ok(&self) -> bool {
        self.bytes >= self.p.recover_bytes
    }

    /// One level back; both progress counters restart; the timer runs on while k > 0.
    fn step(&mut self, ctx: &mut CcCtx) {
        self.level -= 1;
        self.bytes = 0;
        self.time_ok = false;
        if self.level == 0 {
            ctx.cancel_timer(TIMER_RECOVER);
        } else if self.uses_timer() {
            ctx.restart_timer(TIMER_RECOVER, self.p.recover_time);
        }
    }
}

impl CongestionControl for RcmLinear {
    type Params = RcmLinearParams;
    fn from_params(p: &RcmLinearParams, nic: &crate::models::NicSpec) -> Self {
        RcmLinear::new(p.clone(), nic.line_rate, nic.mtu_wire)
    }

    #[inline]
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) {
        if self.level == 0 || self.p.rule == RecoveryRule::Time {
            return;
        }
        self.bytes += wire_bytes as u64;
        if !self.bytes_ok() {
            return;
        }
        match self.p.rule {
            RecoveryRule::Bytes | RecoveryRule::Either => self.step(ctx),
            RecoveryRule::Both if self.time_ok => self.step(ctx),
            _ => {}
        }
    }

    fn on_cnp(&mut self, ctx: &mut CcCtx) {
        self.level = (self.level + 1).min(self.p.max_level);
        self.bytes = 0;
        self.time_ok = false;
        if self.level == 0 {
            ctx.cancel_timer(TIMER_RECOVER);
        } else if self.uses_timer() {
            ctx.restart_timer(TIMER_RECOVER, self.p.recover_time);
        }
    }

    /// `recover_time` has passed without a CNP or step (both restart the timer).
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        if kind != TIMER_RECOVER || self.level == 0 {
            return;
        }
        match self.p.rule {
            RecoveryRule::Time | RecoveryRule::Either => self.step(ctx),
            RecoveryRule::Both => {
                if self.bytes_ok() {
                    self.step(ctx);
                } else {
                    // Wait for the bytes; the timer stays stopped until the next CNP or step.
                    self.time_ok = true;
                }
            }
            RecoveryRule::Bytes => {}
        }
    }

    /// Spacing (default): C / (k+1). Gap: C for k = 0, else C / (k+2). Rounded down.
    #[inline]
    fn rate(&self) -> Rate {
        let k = self.level as u64;
        let div = if self.p.gap && k > 0 { k + 2 } else { k + 1 };
        Rate((self.line_rate.0 / div).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000; // ps
    const C: Rate = Rate::gbps(40);
    const MTU_WIRE: u32 = 2_126; // 2048 B payload + headers + preamble/IFG (any value works)

    fn ctx(t_ps: u64) -> CcCtx {
        CcCtx::new(SimTime(t_ps), C)
    }

    fn req(c: &CcCtx) -> Vec<(u8, u64)> {
        c.requested().iter().map(|&(k, t)| (k, t.0)).collect()
    }

    fn rcm(rule: RecoveryRule, time_us: u64, bytes: u64) -> RcmLinear {
        let p = RcmLinearParams { recover_time: SimTime::us(time_us), recover_bytes: bytes, rule, ..RcmLinearParams::default() };
        RcmLinear::new(p, C, MTU_WIRE)
    }

    #[test]
    fn rates_after_k_cnps_spacing_and_gap() {
        // Spacing: C/(k+1): 40e9, 20e9, 13333333333 (40e9/3 rounded down), 10e9, 8e9.
        let mut r = rcm(RecoveryRule::Time, 50, 0);
        let spacing = [40_000_000_000, 20_000_000_000, 13_333_333_333, 10_000_000_000, 8_000_000_000];
        assert_eq!(r.rate(), Rate(spacing[0]));
        for (k, &rate) in spacing.iter().enumerate().skip(1) {
            r.on_cnp(&mut ctx(0));
            assert_eq!(r.level(), k as u32);
            assert_eq!(r.rate(), Rate(rate));
        }
        // Gap: C at k = 0, C/(k+2) after: 40e9, 13333333333, 10e9, 8e9, 6666666666.
        let p = RcmLinearParams { gap: true, ..RcmLinearParams::default() };
        let mut r = RcmLinear::new(p, C, MTU_WIRE);
        let gap = [40_000_000_000, 13_333_333_333, 10_000_000_000, 8_000_000_000, 6_666_666_666];
        assert_eq!(r.rate(), Rate(gap[0]));
        for &rate in &gap[1..] {
            r.on_cnp(&mut ctx(0));
            assert_eq!(r.rate(), Rate(rate));
        }
    }

    #[test]
    fn max_level_cap() {
        let p = RcmLinearParams { max_level: 2, ..RcmLinearParams::default() };
        let mut r = RcmLinear::new(p, C, MTU_WIRE);
        for _ in 0..5 {
            r.on_cnp(&mut ctx(0));
        }
        assert_eq!(r.level(), 2);
        assert_eq!(r.rate(), Rate(13_333_333_333));
        // max_level 0: CNPs change nothing and start no timer.
        let p = RcmLinearParams { max_level: 0, ..RcmLinearParams::default() };
        let mut r = RcmLinear::new(p, C, MTU_WIRE);
        let mut x = ctx(0);
        r.on_cnp(&mut x);
        assert_eq!((r.level(), r.rate()), (0, C));
        assert!(x.requested().is_empty());
    }

    #[test]
    fn recovery_by_time() {
        let mut r = rcm(RecoveryRule::Time, 50, 0);
        r.on_start(&mut ctx(0));
        // CNP at 0: k = 1, timer at 50 us. CNP at 10 us: k = 2, timer restarted to 60 us.
        let mut x = ctx(0);
        r.on_cnp(&mut x);
        assert_eq!(req(&x), vec![(0, 50 * US)]);
        let mut x = ctx(10 * US);
        r.on_cnp(&mut x);
        assert_eq!((r.level(), req(&x)), (2, vec![(0, 60 * US)]));
        // Bytes do nothing under Time.
        let mut x = ctx(20 * US);
        r.on_send(&mut x, 1_000_000);
        assert_eq!(r.level(), 2);
        assert!(x.requested().is_empty());
        // 60 us: k = 1 (20e9), timer to 110 us.
        let mut x = ctx(60 * US);
        r.on_timer(&mut x, 0);
        assert_eq!((r.level(), r.rate(), req(&x)), (1, Rate(20_000_000_000), vec![(0, 110 * US)]));
        // 110 us: k = 0 (40e9), the timer stops.
        let mut x = ctx(110 * US);
        r.on_timer(&mut x, 0);
        assert_eq!((r.level(), r.rate()), (0, C));
        assert!(x.requested().is_empty());
        assert_eq!(x.cancelled(), 0b1);
    }

    #[test]
    fn recovery_by_bytes() {
        let mut r = rcm(RecoveryRule::Bytes, 50, 10_000);
        // Two CNPs: k = 2; no timer under Bytes.
        let mut x = ctx(0);
        r.on_cnp(&mut x);
        r.on_cnp(&mut x);
        assert_eq!(r.level(), 2);
        assert!(x.requested().is_empty());
        // 4000 + 4000 < 10000: k = 2; +4000 = 12000 >= 10000: k = 1, count back to 0.
        r.on_send(&mut x, 4_000);
        r.on_send(&mut x, 4_000);
        assert_eq!(r.level(), 2);
        r.on_send(&mut x, 4_000);
        assert_eq!(r.level(), 1);
        // 8000 more, then a CNP resets the count: k = 2, and 4000 more (4000 < 10000) keep it.
        r.on_send(&mut x, 8_000);
        r.on_cnp(&mut x);
        r.on_send(&mut x, 4_000);
        assert_eq!(r.level(), 2);
        // 6000 more: 10000: k = 1; 10000 more: k = 0.
        r.on_send(&mut x, 6_000);
        assert_eq!(r.level(), 1);
        r.on_send(&mut x, 10_000);
        assert_eq!((r.level(), r.rate()), (0, C));
        // At k = 0 bytes are not counted: a CNP then 9999 B: still k = 1.
        r.on_send(&mut x, 9_000);
        r.on_cnp(&mut x);
        r.on_send(&mut x, 9_999);
        assert_eq!(r.level(), 1);
        // A stray timer expiry does nothing under Bytes.
        r.on_timer(&mut x, 0);
        assert_eq!(r.level(), 1);
    }

    #[test]
    fn recovery_either() {
        let mut r = rcm(RecoveryRule::Either, 50, 10_000);
        // Three CNPs at 0: k = 3, timer at 50 us.
        let mut x = ctx(0);
        for _ in 0..3 {
            r.on_cnp(&mut x);
        }
        assert_eq!((r.level(), req(&x)), (3, vec![(0, 50 * US)]));
        // 6000 B at 10 us: nothing. Timer at 50 us: k = 2 by time, bytes reset, timer 100 us.
        r.on_send(&mut ctx(10 * US), 6_000);
        let mut x = ctx(50 * US);
        r.on_timer(&mut x, 0);
        assert_eq!((r.level(), req(&x)), (2, vec![(0, 100 * US)]));
        // 6000 B at 60 us: 6000 (the earlier 6000 were reset): k = 2.
        let mut x = ctx(60 * US);
        r.on_send(&mut x, 6_000);
        assert_eq!(r.level(), 2);
        assert!(x.requested().is_empty());
        // 4000 B at 70 us: 10000: k = 1 by bytes; the timer restarts: 120 us.
        let mut x = ctx(70 * US);
        r.on_send(&mut x, 4_000);
        assert_eq!((r.level(), req(&x)), (1, vec![(0, 120 * US)]));
        // 120 us: k = 0 by time, timer stopped.
        let mut x = ctx(120 * US);
        r.on_timer(&mut x, 0);
        assert_eq!(r.level(), 0);
        assert!(x.requested().is_empty());
        assert_eq!(x.cancelled(), 0b1);
    }

    #[test]
    fn recovery_both() {
        let mut r = rcm(RecoveryRule::Both, 50, 10_000);
        // Two CNPs at 0: k = 2, timer 50 us.
        let mut x = ctx(0);
        r.on_cnp(&mut x);
        r.on_cnp(&mut x);
        assert_eq!((r.level(), req(&x)), (2, vec![(0, 50 * US)]));
        // 12000 B at 10 us: bytes done, time not: k = 2.
        r.on_send(&mut ctx(10 * US), 12_000);
        assert_eq!(r.level(), 2);
        // 50 us: both done: k = 1, both reset, timer to 100 us.
        let mut x = ctx(50 * US);
        r.on_timer(&mut x, 0);
        assert_eq!((r.level(), req(&x)), (1, vec![(0, 100 * US)]));
        // 100 us: time done, 0 bytes: no step, and the timer is not restarted.
        let mut x = ctx(100 * US);
        r.on_timer(&mut x, 0);
        assert_eq!(r.level(), 1);
        assert!(x.requested().is_empty());
        // 6000 B at 120 us: no; 4000 B at 130 us: 10000 -> k = 0, timer cancelled.
        r.on_send(&mut ctx(120 * US), 6_000);
        assert_eq!(r.level(), 1);
        let mut x = ctx(130 * US);
        r.on_send(&mut x, 4_000);
        assert_eq!((r.level(), r.rate()), (0, C));
        assert_eq!(x.cancelled(), 0b1);
        // A CNP clears the time already served: CNP at 200 us (k = 1, timer 250 us),
        // expiry at 250 us with 0 B, CNP at 260 us (k = 2, timer 310 us), 10000 B at 270 us:
        // time not served since that CNP -> k = 2.
        r.on_cnp(&mut ctx(200 * US));
        r.on_timer(&mut ctx(250 * US), 0);
        let mut x = ctx(260 * US);
        r.on_cnp(&mut x);
        assert_eq!((r.level(), req(&x)), (2, vec![(0, 310 * US)]));
        r.on_send(&mut ctx(270 * US), 10_000);
        assert_eq!(r.level(), 2);
        // 310 us: both served -> k = 1.
        r.on_timer(&mut ctx(310 * US), 0);
        assert_eq!(r.level(), 1);
    }

    #[test]
    fn finish_cancels_timers() {
        let mut r = rcm(RecoveryRule::Time, 50, 0);
        r.on_cnp(&mut ctx(0));
        let mut x = ctx(US);
        r.on_finish(&mut x);
        assert_eq!(x.cancelled(), 0b1111);
        // Through the enum as the engine uses it.
        let mut cc = crate::models::Cc::new(
            &crate::models::CcPlan::RcmLinear(RcmLinearParams::default()),
            &crate::models::NicSpec { line_rate: C, mtu_wire: MTU_WIRE, mss: 1024, base_rtt: crate::units::SimTime::us(10) },
        );
        let mut x = ctx(5 * US);
        cc.on_cnp(&mut x);
        assert_eq!(cc.rate(), Rate(20_000_000_000));
        assert_eq!(req(&x), vec![(0, 55 * US)]);
    }
}
