//! Reaction points: congestion-control algorithms of the sending NIC, one file each.
//!
//! The engine talks to an algorithm through `CongestionControl` (a trait, so that each
//! algorithm states the same hooks) but stores them in the closed enum `Cc`, so that the
//! hot path dispatches with a `match`, not a virtual call. An algorithm sees only a small
//! context (`CcCtx`: the time, the line rate, a place to request timers), never the world.

pub mod dcqcn;
pub mod fixed;
pub mod rcm_linear;

pub use dcqcn::{Dcqcn, DcqcnParams, DcqcnVariant};
pub use fixed::FixedRate;
pub use rcm_linear::{RcmLinear, RcmLinearParams, RecoveryRule};

use crate::units::{Rate, SimTime};

/// Which of an algorithm's timers (at most 4 per queue pair).
pub type TimerKind = u8;

/// What an algorithm may see and ask for during a hook.
pub struct CcCtx {
    pub now: SimTime,
    /// The NIC's line rate: the highest rate a queue pair may send at.
    pub line_rate: Rate,
    /// Timers to (re)start: (kind, absolute time). Restarting a kind cancels its pending
    /// expiry. Filled by the algorithm, drained by the engine after the hook.
    timers: [(TimerKind, SimTime); 4],
    n_timers: usize,
    /// Timers to cancel without restarting.
    cancel: u8,
}

impl CcCtx {
    pub fn new(now: SimTime, line_rate: Rate) -> Self {
        CcCtx { now, line_rate, timers: [(0, SimTime::ZERO); 4], n_timers: 0, cancel: 0 }
    }
    /// (Re)starts timer `kind` to expire `after` from now.
    pub fn restart_timer(&mut self, kind: TimerKind, after: SimTime) {
        debug_assert!(kind < 4);
        self.cancel &= !(1 << kind);
        if let Some(t) = self.timers[..self.n_timers].iter_mut().find(|t| t.0 == kind) {
            t.1 = self.now + after;
            return;
        }
        self.timers[self.n_timers] = (kind, self.now + after);
        self.n_timers += 1;
    }
    /// Cancels timer `kind`.
    pub fn cancel_timer(&mut self, kind: TimerKind) {
        self.cancel |= 1 << kind;
        if let Some(i) = self.timers[..self.n_timers].iter().position(|t| t.0 == kind) {
            self.timers[i] = self.timers[self.n_timers - 1];
            self.n_timers -= 1;
        }
    }
    /// Timers requested during the hook.
    pub fn requested(&self) -> &[(TimerKind, SimTime)] { &self.timers[..self.n_timers] }
    /// Bit k set: timer k was cancelled.
    pub fn cancelled(&self) -> u8 { self.cancel }
}

/// The hooks of a reaction point. Rates are in bit/s of wire bytes (the pacing rate).
pub trait CongestionControl {
    /// The queue pair starts sending.
    fn on_start(&mut self, ctx: &mut CcCtx);
    /// A packet of `wire_bytes` (frame + preamble/IFG) was handed to the wire.
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32);
    /// A cumulative ACK arrived (`newly_acked` payload bytes).
    fn on_ack(&mut self, ctx: &mut CcCtx, newly_acked: u64);
    /// A CNP for this queue pair arrived.
    fn on_cnp(&mut self, ctx: &mut CcCtx);
    /// Timer `kind` expired.
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind);
    /// Current pacing rate.
    fn rate(&self) -> Rate;
    /// The queue pair finished: stop timers.
    fn on_finish(&mut self, ctx: &mut CcCtx) {
        for k in 0..4 {
            ctx.cancel_timer(k);
        }
    }
}

/// Parameters of a reaction-point algorithm, as a scenario states them.
#[derive(Clone, Debug, PartialEq)]
pub enum CcPlan {
    /// PFC only: send at line rate.
    None,
    /// A constant pacing rate.
    FixedRate(Rate),
    /// The seed OMNeT++ study's linear inter-packet-delay scheme.
    RcmLinear(RcmLinearParams),
    /// DCQCN (paper or Mellanox variant).
    Dcqcn(DcqcnParams),
}

/// The built-in algorithms (closed set: static dispatch in the hot path).
#[derive(Clone, Debug)]
pub enum Cc {
    None(Rate),
    FixedRate(FixedRate),
    RcmLinear(RcmLinear),
    Dcqcn(Dcqcn),
}

impl Cc {
    /// A fresh instance for a queue pair on a NIC of `line_rate`, sending packets of at
    /// most `mtu_wire` bytes on the wire.
    pub fn new(plan: &CcPlan, line_rate: Rate, mtu_wire: u32) -> Cc {
        match plan {
            CcPlan::None => Cc::None(line_rate),
            CcPlan::FixedRate(r) => Cc::FixedRate(FixedRate::new((*r).min(line_rate))),
            CcPlan::RcmLinear(p) => Cc::RcmLinear(RcmLinear::new(p.clone(), line_rate, mtu_wire)),
            CcPlan::Dcqcn(p) => Cc::Dcqcn(Dcqcn::new(p.clone(), line_rate)),
        }
    }

    /// Whether the algorithm can ever change its rate (hooks can be skipped otherwise).
    #[inline]
    pub fn is_static(&self) -> bool { matches!(self, Cc::None(_) | Cc::FixedRate(_)) }
}

macro_rules! dispatch {
    ($self:ident, $cc:ident => $e:expr, $none:expr) => {
        match $self {
            Cc::None(_) => $none,
            Cc::FixedRate($cc) => $e,
            Cc::RcmLinear($cc) => $e,
            Cc::Dcqcn($cc) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_start(&mut self, ctx: &mut CcCtx) { dispatch!(self, c => c.on_start(ctx), ()) }
    #[inline]
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) { dispatch!(self, c => c.on_send(ctx, wire_bytes), ()) }
    #[inline]
    fn on_ack(&mut self, ctx: &mut CcCtx, newly_acked: u64) { dispatch!(self, c => c.on_ack(ctx, newly_acked), ()) }
    #[inline]
    fn on_cnp(&mut self, ctx: &mut CcCtx) { dispatch!(self, c => c.on_cnp(ctx), ()) }
    #[inline]
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) { dispatch!(self, c => c.on_timer(ctx, kind), ()) }
    #[inline]
    fn rate(&self) -> Rate {
        match self {
            Cc::None(r) => *r,
            Cc::FixedRate(c) => c.rate(),
            Cc::RcmLinear(c) => c.rate(),
            Cc::Dcqcn(c) => c.rate(),
        }
    }
    fn on_finish(&mut self, ctx: &mut CcCtx) { dispatch!(self, c => c.on_finish(ctx), ()) }
}
