//! Reaction points: congestion-control algorithms of the sending NIC, one file each.
//!
//! The engine talks to an algorithm through `CongestionControl` (a trait, so that each
//! algorithm states the same hooks) but stores them in the closed enum `Cc`, so that the
//! hot path dispatches with a `match`, not a virtual call. An algorithm sees only a small
//! context (`CcCtx`: the time, the line rate, a place to request timers), never the world.

pub mod bcn;
pub mod dcqcn;
pub mod fecn;
pub mod fixed;
pub mod qcn;
pub mod rcm_linear;

pub use bcn::{Bcn, BcnParams};
pub use dcqcn::{Dcqcn, DcqcnParams, DcqcnVariant};
pub use fecn::{Fecn, FecnParams};
pub use fixed::FixedRate;
pub use qcn::{Qcn, QcnParams};
pub use rcm_linear::{RcmLinear, RcmLinearParams, RecoveryRule};

/// Feedback a reaction point receives from the network, other than CNPs.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Feedback {
    /// QCN congestion notification message (CNM): quantized |Fb|, 1..=63.
    Qcn { fb: u8 },
    /// BCN message from congestion point `cp`: signed feedback in 64-byte units
    /// (negative: slow down; positive: may speed up).
    Bcn { cp: u32, fb: i32 },
    /// BCN00 ("stop"): go down to the minimum rate.
    BcnStop { cp: u32 },
    /// A FECN probe back from the destination with the lowest rate advertised on its path.
    FecnRate { rate: Rate },
}

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
    /// Set by the algorithm: send one FECN rate-discovery probe now.
    pub send_probe: bool,
    /// A fresh uniform random number in [0, 1) for this hook (seeded, per flow).
    pub uniform: f64,
}

impl CcCtx {
    pub fn new(now: SimTime, line_rate: Rate) -> Self {
        CcCtx { now, line_rate, timers: [(0, SimTime::ZERO); 4], n_timers: 0, cancel: 0, send_probe: false, uniform: 0.5 }
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
    /// Feedback from a switch (QCN, BCN) or a returned FECN probe.
    fn on_feedback(&mut self, _ctx: &mut CcCtx, _fb: Feedback) {}
    /// BCN: the congestion point that last slowed this rate regulator down, if any (a
    /// congestion point sends positive feedback only to regulators it controls).
    fn regulator_cp(&self) -> Option<u32> { None }
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
    /// IEEE 802.1Qau QCN reaction point.
    Qcn(QcnParams),
    /// BCN rate regulator.
    Bcn(BcnParams),
    /// FECN (or E-FECN) source: probes and takes the advertised rate.
    Fecn(FecnParams),
}

/// The built-in algorithms (closed set: static dispatch in the hot path).
#[derive(Clone, Debug)]
pub enum Cc {
    None(Rate),
    FixedRate(FixedRate),
    RcmLinear(RcmLinear),
    Dcqcn(Dcqcn),
    Qcn(Qcn),
    Bcn(Bcn),
    Fecn(Fecn),
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
            CcPlan::Qcn(p) => Cc::Qcn(Qcn::new(p.clone(), line_rate)),
            CcPlan::Bcn(p) => Cc::Bcn(Bcn::new(p.clone(), line_rate)),
            CcPlan::Fecn(p) => Cc::Fecn(Fecn::new(p.clone(), line_rate)),
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
            Cc::Qcn($cc) => $e,
            Cc::Bcn($cc) => $e,
            Cc::Fecn($cc) => $e,
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
            Cc::Qcn(c) => c.rate(),
            Cc::Bcn(c) => c.rate(),
            Cc::Fecn(c) => c.rate(),
        }
    }
    #[inline]
    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) { dispatch!(self, c => c.on_feedback(ctx, fb), ()) }
    fn regulator_cp(&self) -> Option<u32> { dispatch!(self, c => c.regulator_cp(), None) }
    fn on_finish(&mut self, ctx: &mut CcCtx) { dispatch!(self, c => c.on_finish(ctx), ()) }
}
