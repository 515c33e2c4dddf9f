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
//! The timer is stopped at k = 0, and bytes are counted only while k > 0.

use super::{CcCtx, CongestionControl, TimerKind};
use crate::units::{Rate, SimTime};

/// When a recovery step happens.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
    pub fn level(&self) -> u32 { self.level }
    /// Wire size of an MTU packet.
    pub fn mtu_wire(&self) -> u32 { self.mtu_wire }

    #[inline]
    fn uses_timer(&self) -> bool { self.p.rule != RecoveryRule::Bytes }

    #[inline]
    fn bytes_ok(&self) -> bool { self.bytes >= self.p.recover_bytes }

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
    fn on_start(&mut self, _: &mut CcCtx) {}

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

    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}

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
