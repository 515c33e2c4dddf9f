//! The records of one flow, split by owner: what every frame of the flow says about it
//! (`FlowHeader`, fixed for the run but for a storage queue pair's message size), the sending queue pair (`Sender`, written only by
//! the source NIC), the receiver (`Receiver`, written only by the destination NIC) and
//! what is counted about it (`FlowStats`, never read by the model).

use crate::ids::NodeId;
use crate::units::{Rate, SimTime};

/// The fixed description of a flow. Switches may read it: it is what the headers of the
/// flow's frames carry (addresses, class), stored once per flow instead of per packet.
/// One cache line each: every packet sent, received and acknowledged reads it, and with
/// thousands of flows active at once it is a miss that should not be two.
#[repr(align(64))]
pub(crate) struct FlowHeader {
    pub src: NodeId,
    pub dst: NodeId,
    pub prio: u8,
    /// Index of the `[[traffic]]` entry that produced it.
    pub group: u32,
    pub start: SimTime,
    /// Payload bytes per message (u64::MAX: long-lived).
    pub size: u64,
    /// Packets per message (u32::MAX: long-lived); packets are numbered across messages.
    pub npkts: u32,
    pub last_payload: u32,
    /// UDP: constant bit rate, no ACKs, no retransmission.
    pub udp: bool,
    /// Its priority is not protected by PFC/PAUSE.
    pub lossy: bool,
    /// Its data frames carry an INT header (HPCC): switches stamp it, the receiver ACKs
    /// every packet and echoes the stack.
    pub int: bool,
    /// TCP: index of its sender and receiver state in `tcp_tx` / `tcp_rx` (`NO_TCP`:
    /// another transport).
    pub tcp: u32,
    /// UET: index of its state in `uet_tx` / `uet_rx` (`NO_UET`: another transport).
    pub uet: u32,
    /// Storage: the I/O slot the queue pair belongs to (`NO_IO`: none). Its messages'
    /// size (`size`, `npkts`, `last_payload`) changes per I/O (`sim/storage.rs`).
    pub io: u32,
    /// A job's queue pair (`collectives/world.rs`; `NO_COLL`: none): its chunks are
    /// posted as their dependencies are met, and their arrivals are counted.
    pub coll: u32,
}

const _: () = assert!(std::mem::size_of::<FlowHeader>() == 64);

/// `FlowHeader::tcp` of a flow that is not TCP.
pub(crate) const NO_TCP: u32 = u32::MAX;
/// `FlowHeader::uet` of a flow that is not UET.
pub(crate) const NO_UET: u32 = u32::MAX;

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

/// The receiving NIC's state of a flow: one cache line.
#[repr(align(64))]
pub(crate) struct Receiver {
    pub rcv_next: u32,
    /// Selective repeat: packets received above `rcv_next`, one bit per sequence number
    /// modulo the bitmap's size (`host.ooo_window`; empty with go-back-N), and the highest.
    pub ooo: Vec<u64>,
    pub highest: u32,
    pub nak_for: u32,
    pub since_ack: u32,
    /// Arrival of the oldest in-order packet not yet acknowledged (`host.ack_interval`).
    pub ack_oldest: SimTime,
    /// Reorder statistics (the flows table): packets held now and at most; data frames
    /// that arrived above `rcv_next`; and frames that arrived when the receiver already
    /// had them (delivered or held: a retransmission whose original had arrived).
    pub held_now: u32,
    pub held_peak: u32,
    pub ooo_rx: u32,
    pub dup_rx: u32,
}
const _: () = assert!(std::mem::size_of::<Receiver>() == 64);

impl Receiver {
    /// `window`: selective repeat's `host.ooo_window` (a multiple of 64), or 0 for
    /// go-back-N.
    pub fn new(window: u32) -> Self {
        Receiver {
            rcv_next: 0,
            ooo: vec![0; (window / 64) as usize],
            highest: 0,
            nak_for: u32::MAX,
            since_ack: 0,
            ack_oldest: SimTime::ZERO,
            held_now: 0,
            held_peak: 0,
            ooo_rx: 0,
            dup_rx: 0,
        }
    }
    // The bitmaps take `w`, selective repeat's window (`host.ooo_window`, a multiple of
    // 64): the held packets' bits come first, then (trimming, added at the first header)
    // the bits of packets whose trimmed header was NAKed.

    /// Selective repeat: whether packet `seq` is held.
    #[inline]
    pub fn held(&self, seq: u32, w: u32) -> bool {
        let i = seq % w;
        self.ooo[(i / 64) as usize] & (1 << (i % 64)) != 0
    }
    #[inline]
    pub fn set_held(&mut self, seq: u32, on: bool, w: u32) {
        let i = seq % w;
        set_bit(&mut self.ooo[(i / 64) as usize], i % 64, on);
    }
    /// Trimming (selective repeat): whether packet `seq`'s header was answered by a NAK.
    #[inline]
    pub fn trim_nacked(&self, seq: u32, w: u32) -> bool {
        let i = seq % w;
        self.ooo.get(((w + i) / 64) as usize).is_some_and(|x| x & (1 << (i % 64)) != 0)
    }
    pub fn set_trim_nacked(&mut self, seq: u32, on: bool, w: u32) {
        if self.ooo.len() < (2 * w / 64) as usize {
            if !on {
                return;
            }
            self.ooo.resize((2 * w / 64) as usize, 0);
        }
        let i = seq % w;
        set_bit(&mut self.ooo[((w + i) / 64) as usize], i % 64, on);
    }
}

#[inline]
fn set_bit(word: &mut u64, bit: u32, on: bool) {
    if on {
        *word |= 1 << bit;
    } else {
        *word &= !(1 << bit);
    }
}

/// What is counted about a flow (the flows table); the model never reads it. Grouped by
/// who writes it how often, a cache line each: the destination NIC for every data frame;
/// the destination for marks and bins, and the source's rate limits; the source for
/// every frame sent; completion. A frame touches one line of it at each end.
#[derive(Default)]
#[repr(C, align(64))]
pub(crate) struct FlowStats {
    // Destination, every data frame.
    pub pkts_rx: u64,
    /// Arrival of the last data frame (with `first_arrival`, meaningful once `pkts_rx`
    /// is not 0): the inter-packet gaps add up to `last_arrival - first_arrival`.
    pub last_arrival: SimTime,
    pub lat_sum: u128,
    pub lat_max: u64,
    pub delivered: u64,
    pub last_rx: SimTime,
    pub steady_bytes: u64,
    // Destination, now and then; the source's rate limits.
    pub first_arrival: SimTime,
    pub bin: u64,
    pub bin_bytes: u64,
    pub marked_rx: u64,
    pub cnps_sent: u64,
    pub limited_ps: u64,
    pub limited_since: Option<SimTime>,
    // Source, every frame sent; then fixed at the start.
    pub pkts_sent: u64,
    pub pkts_limited: u64,
    pub retransmits: u64,
    pub cnps_rx: u64,
    /// Feedback frames (QCN, BCN) and FECN probe replies received.
    pub feedback_rx: u64,
    pub min_rate: Rate,
    pub ideal_fct: SimTime,
    pub msgs_done: u32,
    // Completion.
    /// Completion: the last message acknowledged (RoCE), the last packet received (UDP)
    /// or the source stopped.
    pub finish: Option<SimTime>,
    pub msg_lat_sum: u128,
    /// Every completed message's latency (ps), for the per-flow percentiles; one entry
    /// per message, so it grows with completions, never with packets.
    pub msg_lats: Vec<u64>,
}

const _: () = assert!(
    std::mem::offset_of!(FlowStats, first_arrival) == 64
        && std::mem::offset_of!(FlowStats, pkts_sent) == 128
        && std::mem::offset_of!(FlowStats, finish) == 192
);

impl FlowStats {
    /// The sum of the gaps between consecutive data frames' arrivals (ps).
    pub fn ipi_sum(&self) -> u64 {
        if self.pkts_rx == 0 {
            0
        } else {
            (self.last_arrival - self.first_arrival).0
        }
    }
}
