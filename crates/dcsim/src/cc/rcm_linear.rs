//! `rcm_linear`: the seed OMNeT++ study's reaction point (seeds.md, section 000).
//!
//! T is the wire time of one MTU packet at line rate. After k CNPs without recovery the
//! queue pair's packets start (k+1) T apart, i.e. it sends at line_rate / (k+1)
//! (the "spacing" reading of the seed; the other reading, an idle gap of (k+1) T after
//! each packet, is the `gap` option: line_rate / (k+2)). Each recovery step, after a
//! configured time and/or number of bytes without a CNP, goes one level back (k -> k-1).
//!
//! TO BE IMPLEMENTED: see the parameter struct for the contract.

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

#[derive(Clone, Debug)]
pub struct RcmLinear {
    pub(crate) p: RcmLinearParams,
    pub(crate) line_rate: Rate,
    pub(crate) mtu_wire: u32,
    pub(crate) level: u32,
}

impl RcmLinear {
    pub fn new(p: RcmLinearParams, line_rate: Rate, mtu_wire: u32) -> Self { RcmLinear { p, line_rate, mtu_wire, level: 0 } }
    /// Current level k (number of unrecovered CNPs).
    pub fn level(&self) -> u32 { self.level }
}

impl CongestionControl for RcmLinear {
    fn on_start(&mut self, _: &mut CcCtx) {}
    fn on_send(&mut self, _: &mut CcCtx, _: u32) {}
    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}
    fn on_cnp(&mut self, _: &mut CcCtx) {}
    fn on_timer(&mut self, _: &mut CcCtx, _: TimerKind) {}
    fn rate(&self) -> Rate { self.line_rate }
}
