//! The NIC side of the contract between a sender and the network: the hooks of a
//! reaction point (`CongestionControl`), the small context an algorithm sees during a
//! hook (`CcCtx`: time, line rate, timer requests, a probe request, a random draw; never
//! the world), and the feedback a switch can send it (`Feedback`, carried by frames).
//! Built-in algorithms are stored in the closed enum `models::Cc` (generated from the
//! model list in `models/mod.rs`), so the hot path dispatches with a `match`.

pub use crate::net::packet::{Feedback, IntHop};
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
    pub fn requested(&self) -> &[(TimerKind, SimTime)] {
        &self.timers[..self.n_timers]
    }
    /// Bit k set: timer k was cancelled.
    pub fn cancelled(&self) -> u8 {
        self.cancel
    }
}

/// The sending NIC as an algorithm sees it when it starts.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct NicSpec {
    /// The highest rate a queue pair may send at.
    pub line_rate: Rate,
    /// Wire size of a full packet (frame + preamble/IFG).
    pub mtu_wire: u32,
    /// Payload bytes of a full packet (the MSS of window-based algorithms).
    pub mss: u32,
    /// The largest base RTT among the run's flows (a full packet out and its ACK back
    /// along the flow's path, empty fabric): the fabric-wide `T` that HPCC and the BDP
    /// windows are configured with.
    pub base_rtt: SimTime,
}

/// What an ACK (or NAK) tells the sender, as real algorithms use it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ack<'a> {
    /// Payload bytes newly acknowledged by this cumulative ACK (0 for a duplicate).
    pub newly_acked: u64,
    /// Packets acknowledged so far (the next sequence number the receiver expects).
    pub acked_to: u32,
    /// The next sequence number the sender will send (after a NAK: the resent one).
    pub snd_nxt: u32,
    /// Round-trip time: now minus the send time of the data frame that triggered it.
    pub rtt: SimTime,
    /// The data frame that triggered it was CE-marked (ECN echo).
    pub ece: bool,
    /// A go-back-N NAK: the receiver saw a gap (a loss).
    pub nak: bool,
    /// The INT hop records of the data frame that triggered it, first switch first
    /// (empty unless the flow's frames carry INT: `CongestionControl::wants_int`).
    pub int: &'a [IntHop],
    /// The sender is in loss recovery (TCP fast recovery): the window is held, not grown.
    pub recovery: bool,
}

/// How a window-based transport (TCP) found a loss. The transport does the recovery
/// (which segments to resend, when); the algorithm sets the window and threshold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Fast retransmit: duplicate ACKs / SACKed data above a hole; fast recovery follows.
    FastRetransmit,
    /// The retransmission timer expired: everything outstanding is resent.
    Timeout,
}

/// A loss as the transport reports it (`CongestionControl::on_loss`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Loss {
    pub kind: LossKind,
    /// Payload bytes outstanding when the loss was detected (RFC 5681 FlightSize).
    pub flight: u64,
    /// The next new sequence number the sender will send (ends the window being cut).
    pub snd_nxt: u32,
}

/// The hooks of a reaction point. Rates are in bit/s of wire bytes (the pacing rate).
/// Hooks an algorithm does not use keep their empty defaults.
pub trait CongestionControl {
    /// The algorithm's resolved parameters (`Plan::ccs`).
    type Params: Clone + std::fmt::Debug + PartialEq;
    /// A fresh instance for a queue pair on `nic`.
    fn from_params(p: &Self::Params, nic: &NicSpec) -> Self
    where
        Self: Sized;
    /// (wants_acks, windowed, wants_int) read from the parameters alone, for algorithms
    /// whose instances must not be made just to ask (`None`: ask a probe instance).
    fn plan_flags(_p: &Self::Params) -> Option<(bool, bool, bool)> {
        None
    }
    /// Whether the rate can never change (the engine then skips the hooks).
    fn is_static(&self) -> bool {
        false
    }
    /// The queue pair starts sending.
    fn on_start(&mut self, _ctx: &mut CcCtx) {}
    /// A packet of `wire_bytes` (frame + preamble/IFG) was handed to the wire.
    fn on_send(&mut self, _ctx: &mut CcCtx, _wire_bytes: u32) {}
    /// An ACK or NAK arrived. Called only for algorithms whose `wants_acks` is true.
    fn on_ack(&mut self, _ctx: &mut CcCtx, _ack: &Ack<'_>) {}
    /// A window-based transport (TCP) detected a loss (once per recovery episode, and at
    /// each retransmission timeout). RoCE reports losses as NAKs in `on_ack` instead.
    fn on_loss(&mut self, _ctx: &mut CcCtx, _loss: &Loss) {}
    /// A window-based transport (TCP) has sent everything the application posted: what
    /// is measured until that data is delivered is limited by the application, not the
    /// network (BBR's app-limited rate samples). No context: nothing may be scheduled.
    fn on_app_limited(&mut self) {}
    /// Whether the algorithm needs `on_ack` (the engine skips the hook otherwise).
    fn wants_acks(&self) -> bool {
        false
    }
    /// Whether `on_send` can change anything (the engine skips the hook otherwise, and
    /// the skipped hook draws no random number: an algorithm that reads `ctx.uniform`
    /// must say true).
    fn wants_send(&self) -> bool {
        true
    }
    /// Whether an expiry of timer `kind`, as the state stands after a hook, is quiet: it
    /// changes neither the rate nor the window, asks for no probe, reads no random draw,
    /// and leaves every timer it restarts quiet. The engine then does not schedule it:
    /// it runs the quiet expiries that fell due, at their own times and in the events'
    /// order, just before the flow's next hook (DCQCN's alpha decay every microsecond
    /// costs nothing while no CNP comes). Asked after every hook, so a timer becomes
    /// an event again once a hook makes it matter.
    fn quiet_timer(&self, _kind: TimerKind) -> bool {
        false
    }
    /// Whether the flow's data frames carry an INT header for switches to stamp (HPCC);
    /// the receiver then ACKs every packet and echoes the stack in the ACK.
    fn wants_int(&self) -> bool {
        false
    }
    /// The congestion window: bytes in flight allowed (`None`: no window, rate only).
    fn window(&self) -> Option<u64> {
        None
    }
    /// A CNP for this queue pair arrived.
    fn on_cnp(&mut self, _ctx: &mut CcCtx) {}
    /// Feedback from a switch (QCN, BCN) or a returned FECN probe.
    fn on_feedback(&mut self, _ctx: &mut CcCtx, _fb: Feedback) {}
    /// BCN: the congestion point that last slowed this rate regulator down, if any (a
    /// congestion point sends positive feedback only to regulators it controls).
    fn regulator_cp(&self) -> Option<u32> {
        None
    }
    /// Timer `kind` expired.
    fn on_timer(&mut self, _ctx: &mut CcCtx, _kind: TimerKind) {}
    /// Fast-forward moved the world `by` later (`sim/fast_forward`): an algorithm that
    /// holds points in time (not durations) moves them too.
    fn shift_times(&mut self, _by: SimTime) {}
    /// Current pacing rate.
    fn rate(&self) -> Rate;
    /// The queue pair finished: stop timers.
    fn on_finish(&mut self, ctx: &mut CcCtx) {
        for k in 0..4 {
            ctx.cancel_timer(k);
        }
    }
}
