//! The sending queue pair (written only by the source NIC) and the engine's side of its
//! congestion-control timers.

use crate::units::{Rate, SimTime};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum QpState {
    /// Not queued anywhere: nothing to send, or not started.
    Idle,
    /// In the NIC's ready ring.
    Ready,
    /// Its priority is paused: parked until resume.
    Parked,
    /// Waiting for its pacing timer.
    Waking,
}

/// The sending queue pair and its reaction point's engine state (the algorithm's own
/// state is in `Simulation::ccs`). The fields read for every frame sent or ACK taken
/// come first: with the record aligned to a cache line, a send or an ACK touches its
/// first line only.
#[repr(C, align(64))]
pub(crate) struct Sender {
    pub state: QpState,
    pub started: bool,
    /// Nothing more will be sent: the last message is acknowledged (RoCE), the last
    /// packet sent (UDP), or the source stopped.
    pub done: bool,
    pub windowed: bool,
    /// Whether the flow's congestion control can change its rate (hooks run only then).
    pub cc_dynamic: bool,
    /// The algorithm takes sends (`on_send`).
    pub cc_sends: bool,
    /// The algorithm takes ACKs (`on_ack`); it limits the bytes in flight (`window`).
    pub cc_acks: bool,
    pub rto_armed: bool,
    pub next_seq: u32,
    pub snd_una: u32,
    /// The sequence number that ends the current message.
    pub msg_limit: u32,
    /// perftest's software rate limiter: index in `Simulation::sw` (`NO_SW`: none).
    /// `msg_limit` is then the end of what the application has posted.
    pub sw: u32,
    /// Selective repeat: the one packet a NAK asked for, to resend before new data.
    pub resend: Option<u32>,
    pub next_tx: SimTime,
    /// Pacing rate in bits per second (a `Rate` in 8 bytes, so that the line holds
    /// `last_wire`; `Sender::pace`, `Sender::encode_pace`); `None` sends back to back at
    /// line rate.
    pub pace: Option<std::num::NonZeroU64>,
    /// Start and wire size of the last packet sent (0: none yet).
    pub last_tx: SimTime,
    pub last_wire: u32,
    /// Messages to send (0: until the end) and acknowledged so far; when the current
    /// one was posted.
    pub messages: u32,
    pub msgs_done: u32,
    pub rto_gen: u32,
    pub rto_mark: u32,
    /// Selective repeat, after a timeout: the next sequence number then (0: none). An
    /// ACK below it that moves `snd_una` names the next hole (NewReno's partial ACK).
    pub recover: u32,
    /// Some of its timers are held back as quiet (`CcTimers::quiet`).
    pub cc_quiet: bool,
    /// The window and rate are traced after each hook (`stats.trace_flows`).
    pub traced: bool,
    /// Hooks run so far: with the flow id, the key of the hook's random draw.
    pub cc_draws: u32,
    pub msg_start: SimTime,
    /// The traffic entry's `rate` (the application's rate limit, as a NIC's per-QP
    /// limiter), else the line rate: the pacing never exceeds it, whatever the
    /// congestion control's rate.
    pub rate_cap: Rate,
    pub line_rate: Rate,
}

const _: () = assert!(std::mem::offset_of!(Sender, last_wire) == 56 && std::mem::size_of::<Sender>() == 128);

impl Sender {
    /// The pacing rate (`None`: line rate).
    #[inline]
    pub fn pace(&self) -> Option<Rate> {
        self.pace.map(|bps| Rate(bps.get()))
    }

    /// The field's form of pacing rate `rate` (rates are at least 1 b/s).
    #[inline]
    pub fn encode_pace(rate: Option<Rate>) -> Option<std::num::NonZeroU64> {
        rate.and_then(|r| std::num::NonZeroU64::new(r.0))
    }
}

/// The engine's side of a flow's congestion-control timers: each timer's generation (an
/// expiry event is stale unless it carries the current one) and, for a timer held back
/// as quiet (`CongestionControl::quiet_timer`), when it expires (`SimTime::MAX`: not
/// held back).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CcTimers {
    pub gen: [u32; 4],
    pub quiet: [SimTime; 4],
}

impl Default for CcTimers {
    fn default() -> Self {
        CcTimers { gen: [0; 4], quiet: [SimTime::MAX; 4] }
    }
}
