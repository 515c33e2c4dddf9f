//! Packets live in one pool and move by index; queues link them intrusively through
//! `next`, so the hot loop allocates nothing once the pool has grown to its peak.

use crate::ids::{FlowId, NodeId, PktId};
use crate::units::{Rate, SimTime};

/// What a switch (or a returned FECN probe) tells a reaction point, other than CNPs:
/// the content of the feedback frames below.
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
    /// NetworkCC: a CNP-like notification sent by congested switch port `cp` itself,
    /// with the rate it computed for the flow (`None`: a plain CNP equivalent).
    SwitchCnp { cp: u32, rate: Option<Rate> },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    /// A data frame: sequence number and send time.
    Data,
    /// Cumulative ACK: the next sequence number the receiver expects, and the send time
    /// of the data frame that triggered it (echoed for RTT samples).
    Ack,
    /// Go-back-N NAK: the sequence number to resend from, and the echoed send time.
    Nak,
    /// PFC / PAUSE frame: class-enable vector and pause quanta (0 = resume).
    Pfc,
    /// RoCEv2 congestion notification packet to the sender of `flow`.
    Cnp,
    /// QCN congestion notification message: quantized |Fb| (1..=63).
    QcnCnm,
    /// BCN message from a congestion point: its id and signed Fb (64-byte units).
    Bcn,
    /// BCN00 ("stop") from a congestion point: its id.
    Bcn00,
    /// FECN rate-discovery probe travelling with `flow`: the lowest advertised rate seen
    /// so far (kb/s; `NO_RATE`: none yet).
    Probe,
    /// The probe reflected by the destination back to the source, same field.
    ProbeReply,
    /// TCP ACK: the cumulative ACK (next segment expected), the echoed send time, and
    /// one SACK block (the segment that triggered it) as an offset above the cumulative
    /// ACK in `payload` (0: none).
    TcpAck,
    /// Remote PFC message from a congested switch queue toward the source host `dst` of
    /// `flow`: the priority to pause and the pause duration (models/remote_pfc).
    RemotePfc,
    /// NetworkCC notification from a congested switch port to the source of `flow`: the
    /// port's id and the rate for the flow (bit/s; 0: none, a plain CNP equivalent).
    SwitchCnp,
    /// InfiniBand flow-control packet (models/ib_credits): the VL (`prio`) and the
    /// receiver's cumulative credit limit in 64-byte blocks.
    IbFcp,
    /// A data frame a switch cut to its header (models/trimming): the data frame's
    /// sequence number and send time, no payload, at the header priority.
    Trimmed,
    /// A UET receiver's credit grant (RCCC, models/uet) to the sender of `flow`: the
    /// cumulative grant in 256-byte quanta.
    Credit,
}

/// Congestion experienced (IP ECN = 11), set by a switch on a data packet.
pub const FLAG_CE: u8 = 1;
/// Travels in the control class: strict highest priority, never paused, not charged to
/// switch buffers (PFC, ACK, NAK, and CNPs unless given a priority).
pub const FLAG_CTRL: u8 = 2;
/// An untagged data frame.
const NO_TAG: u32 = u32::MAX;
/// On an ACK or NAK: the data frame it answers was CE-marked (ECN echo).
pub const FLAG_ECE: u8 = 4;
/// On a TCP data frame: congestion window reduced (RFC 3168 CWR).
pub const FLAG_CWR: u8 = 8;
/// A probe rate field that no FECN port has lowered yet.
pub const NO_RATE: u32 = u32::MAX;
/// The frame carries an in-band telemetry stack (HPCC): switches push a hop record on a
/// data frame as it starts transmission; on an ACK, the stack copied from the data frame.
/// (Its own bit: a TCP frame with CWR set in a run with HPCC flows must not carry INT.)
pub const FLAG_INT: u8 = 16;
/// On a NAK: it answers a trimmed header and names the one packet to resend
/// (models/trimming).
pub const FLAG_TRIM: u8 = 32;

/// Most INT hop records a frame carries (5: enough for a 3-tier fat tree).
pub const MAX_INT_HOPS: usize = 5;

/// One switch egress port's INT record, pushed as a data frame starts transmission.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct IntHop {
    /// When the frame started transmission.
    pub ts: SimTime,
    /// Bytes the port had put on the wire before this frame (every frame kind).
    pub tx_bytes: u64,
    /// Bytes queued at the port, all priorities, once this frame left its queue.
    pub qlen: u64,
    /// The port's line rate.
    pub rate: Rate,
}

/// The INT header of a frame: up to `MAX_INT_HOPS` hop records, first switch first.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct IntStack {
    n: u8,
    hops: [IntHop; MAX_INT_HOPS],
}

impl IntStack {
    /// Appends a hop record; a full stack stays as it is (the hop limit).
    #[inline]
    pub fn push(&mut self, h: IntHop) {
        if (self.n as usize) < MAX_INT_HOPS {
            self.hops[self.n as usize] = h;
            self.n += 1;
        }
    }
    /// Empties the stack (a fresh frame in a reused slot).
    #[inline]
    pub fn clear(&mut self) {
        self.n = 0;
    }
    /// The hop records, first switch first.
    #[inline]
    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.n as usize]
    }
}

/// 32 bytes and 32-byte aligned: one packet is one half of a cache line, never two.
/// The header fields every frame has are public; the fields that depend on the kind
/// (`word`, `stamp`) are private and read and written only through the typed
/// constructors and accessors below, so each field has one meaning per kind, stated once.
#[derive(Copy, Clone, Debug)]
#[repr(align(32))]
pub struct Packet {
    pub flow: FlowId,
    word: u32,
    /// Routing destination.
    pub dst: NodeId,
    /// Link in intrusive FIFOs (control queues).
    pub next: PktId,
    pub payload: u16,
    /// Frame bytes on the wire, without preamble and inter-frame gap.
    pub frame: u16,
    pub kind: PktKind,
    pub prio: u8,
    pub flags: u8,
    /// A data frame's entropy value, set by its sender (`models/load_balancing`,
    /// `mode = "entropy"`: switches hash it with the flow); 0 otherwise. It fills the
    /// byte the layout left free, so the packet stays 32 bytes.
    pub entropy: u8,
    stamp: u64,
}

impl Packet {
    #[allow(clippy::too_many_arguments)] // one field each: private, called by the typed constructors
    fn new(kind: PktKind, flow: FlowId, dst: NodeId, frame: u32, prio: u8, flags: u8, word: u32, stamp: u64) -> Packet {
        Packet { flow, word, dst, next: PktId::NONE, payload: 0, frame: frame as u16, kind, prio, flags, entropy: 0, stamp }
    }

    /// A data frame of `flow` with sequence number `seq`, sent at `sent`.
    #[inline]
    pub fn data(flow: FlowId, dst: NodeId, seq: u32, payload: u32, frame: u32, prio: u8, sent: SimTime) -> Packet {
        Packet { payload: payload as u16, ..Packet::new(PktKind::Data, flow, dst, frame, prio, 0, seq, sent.0) }
    }
    /// An ACK or NAK (`kind`) for `flow` carrying `seq`, echoing the send time of the
    /// data frame that triggered it; in the control class if `ctrl`, else in priority
    /// `prio` behind data (`host.ack_queue`).
    #[inline]
    #[allow(clippy::too_many_arguments)] // the fields of an ACK
    pub fn ack(kind: PktKind, flow: FlowId, dst: NodeId, seq: u32, frame: u32, prio: u8, echo: SimTime, ece: bool, ctrl: bool) -> Packet {
        debug_assert!(matches!(kind, PktKind::Ack | PktKind::Nak));
        let flags = if ctrl { FLAG_CTRL } else { 0 } | if ece { FLAG_ECE } else { 0 };
        Packet::new(kind, flow, dst, frame, prio, flags, seq, echo.0)
    }
    /// A TCP ACK for `flow`: cumulative `cum`, SACK of segment `sack` (above `cum`; one
    /// too far above it to encode is left out), ECN echo, the echoed send time.
    #[inline]
    #[allow(clippy::too_many_arguments)] // the fields of an ACK
    pub fn tcp_ack(flow: FlowId, dst: NodeId, cum: u32, sack: Option<u32>, frame: u32, prio: u8, echo: SimTime, ece: bool) -> Packet {
        let flags = if ece { FLAG_CTRL | FLAG_ECE } else { FLAG_CTRL };
        let off = sack.map_or(0, |s| s.wrapping_sub(cum)).try_into().unwrap_or(0u16);
        Packet { payload: off, ..Packet::new(PktKind::TcpAck, flow, dst, frame, prio, flags, cum, echo.0) }
    }
    /// Cuts a data frame to its header of `frame` bytes, moved to priority `prio`
    /// (models/trimming): its sequence number and send time stay.
    #[inline]
    pub fn trim(&mut self, frame: u32, prio: u8) {
        debug_assert_eq!(self.kind, PktKind::Data);
        self.kind = PktKind::Trimmed;
        self.payload = 0;
        self.frame = frame as u16;
        self.prio = prio;
        self.flags &= !FLAG_CE;
    }
    /// A NAK answering a trimmed header `off` packets above the cumulative ACK it
    /// carries (models/trimming): it names that packet (`nak_seq`).
    #[inline]
    pub fn with_nak_offset(mut self, off: u16) -> Packet {
        debug_assert_eq!(self.kind, PktKind::Nak);
        self.payload = off;
        self.flags |= FLAG_TRIM;
        self
    }
    /// An ACK of a UET flow (models/uet) that also reports the packet `off` above the
    /// cumulative ACK as held out of order (a selective ACK; 0: none).
    #[inline]
    pub fn with_sack(mut self, off: u16) -> Packet {
        debug_assert_eq!(self.kind, PktKind::Ack);
        self.payload = off;
        self
    }
    /// A UET ACK's selectively acknowledged packet, if any.
    #[inline]
    pub fn ack_sack(&self) -> Option<u32> {
        debug_assert_eq!(self.kind, PktKind::Ack);
        (self.payload != 0).then(|| self.word + self.payload as u32)
    }
    /// A UET receiver's credit grant to the sender `dst` of `flow`: the cumulative grant
    /// `pull` (256-byte quanta), in the control class.
    pub fn credit(flow: FlowId, dst: NodeId, pull: u32, frame: u32, prio: u8) -> Packet {
        Packet::new(PktKind::Credit, flow, dst, frame, prio, FLAG_CTRL, pull, 0)
    }
    /// Credit: the cumulative grant in quanta.
    pub fn credit_pull(&self) -> u32 {
        debug_assert_eq!(self.kind, PktKind::Credit);
        self.word
    }
    /// NAK: the packet to resend (selective repeat) or to resend from (go-back-N): the
    /// cumulative ACK, plus the offset of a trimmed header's packet above it.
    #[inline]
    pub fn nak_seq(&self) -> u32 {
        debug_assert_eq!(self.kind, PktKind::Nak);
        self.word + self.payload as u32
    }
    /// TCP ACK: the SACKed segment, if any.
    #[inline]
    pub fn sack(&self) -> Option<u32> {
        debug_assert_eq!(self.kind, PktKind::TcpAck);
        (self.payload != 0).then(|| self.word + self.payload as u32)
    }
    /// A PFC or PAUSE frame for the classes in `classes` (bit per class).
    pub fn pfc(classes: u8, quanta: u32, frame: u32) -> Packet {
        Packet::new(PktKind::Pfc, FlowId::NONE, NodeId::NONE, frame, 0, FLAG_CTRL, quanta, classes as u64)
    }
    /// An InfiniBand FCP for VL `vl` carrying the cumulative credit limit `limit`.
    pub fn fcp(vl: u8, limit: u64, frame: u32) -> Packet {
        Packet::new(PktKind::IbFcp, FlowId::NONE, NodeId::NONE, frame, vl, FLAG_CTRL, 0, limit)
    }
    /// A CNP for `flow` to its sender, of priority `prio` (control class if `ctrl`).
    pub fn cnp(flow: FlowId, dst: NodeId, frame: u32, prio: u8, ctrl: bool) -> Packet {
        Packet::new(PktKind::Cnp, flow, dst, frame, prio, if ctrl { FLAG_CTRL } else { 0 }, 0, 0)
    }
    /// A feedback frame from congestion point `cp` to the source `dst` of `flow`.
    pub fn feedback(flow: FlowId, dst: NodeId, cp: u32, fb: Feedback, frame: u32) -> Packet {
        let (kind, word) = match fb {
            Feedback::Qcn { fb } => (PktKind::QcnCnm, fb as u32),
            Feedback::Bcn { fb, .. } => (PktKind::Bcn, fb as u32),
            Feedback::BcnStop { .. } => (PktKind::Bcn00, 0),
            Feedback::FecnRate { .. } => unreachable!("FECN rates travel in probes"),
            Feedback::SwitchCnp { cp, rate } => {
                return Packet::new(PktKind::SwitchCnp, flow, dst, frame, 0, FLAG_CTRL, cp, rate.map_or(0, |r| r.0));
            }
        };
        Packet::new(kind, flow, dst, frame, 0, FLAG_CTRL, word, cp as u64)
    }
    /// A FECN probe (`Probe` or `ProbeReply`) carrying `rate_kbps`.
    pub fn probe(kind: PktKind, flow: FlowId, dst: NodeId, rate_kbps: u32, frame: u32) -> Packet {
        debug_assert!(matches!(kind, PktKind::Probe | PktKind::ProbeReply));
        Packet::new(kind, flow, dst, frame, 0, FLAG_CTRL, rate_kbps, 0)
    }

    /// A remote-PFC message to the source `dst` of `flow`: pause priority `prio` for `pause`.
    pub fn remote_pfc(flow: FlowId, dst: NodeId, prio: u8, pause: SimTime, frame: u32) -> Packet {
        Packet::new(PktKind::RemotePfc, flow, dst, frame, 0, FLAG_CTRL, prio as u32, pause.0)
    }
    /// Remote PFC: (priority to pause, pause duration).
    pub fn remote_pause(&self) -> (u8, SimTime) {
        debug_assert_eq!(self.kind, PktKind::RemotePfc);
        (self.word as u8, SimTime(self.stamp))
    }

    /// Control frames (PFC, ACK, NAK unless `host.ack_queue = "data"`, CNP unless
    /// `host.cnp.priority`) travel in the control queue: strict highest priority, never
    /// paused and not charged to the MMU.
    #[inline]
    pub fn is_control(&self) -> bool {
        self.flags & FLAG_CTRL != 0
    }

    /// A 64-bit identity of the frame among those of its kind (flow, and sequence number
    /// or kind-specific field): a part of the key of random draws made about it.
    #[inline]
    pub fn ident(&self) -> u64 {
        (self.flow.0 as u64) << 32 | self.word as u64
    }

    /// Data, trimmed header, ACK, NAK, TCP ACK: the sequence number.
    #[inline]
    pub fn seq(&self) -> u32 {
        debug_assert!(matches!(self.kind, PktKind::Data | PktKind::Trimmed | PktKind::Ack | PktKind::Nak | PktKind::TcpAck));
        self.word
    }
    /// Data: when the sender NIC started sending it. ACK, NAK: that time of the data
    /// frame they answer.
    #[inline]
    pub fn sent(&self) -> SimTime {
        debug_assert!(matches!(self.kind, PktKind::Data | PktKind::Trimmed | PktKind::Ack | PktKind::Nak | PktKind::TcpAck));
        SimTime(self.stamp)
    }
    /// PFC: (class-enable vector, pause quanta).
    /// FCP: (VL, cumulative credit limit).
    pub fn fcp_of(&self) -> (u8, u64) {
        debug_assert_eq!(self.kind, PktKind::IbFcp);
        (self.prio, self.stamp)
    }
    pub fn pause(&self) -> (u8, u32) {
        debug_assert_eq!(self.kind, PktKind::Pfc);
        (self.stamp as u8, self.word)
    }
    /// Feedback frames: what the congestion point said.
    pub fn feedback_of(&self) -> Feedback {
        let cp = self.stamp as u32;
        match self.kind {
            PktKind::QcnCnm => Feedback::Qcn { fb: self.word as u8 },
            PktKind::Bcn => Feedback::Bcn { cp, fb: self.word as i32 },
            PktKind::Bcn00 => Feedback::BcnStop { cp },
            PktKind::SwitchCnp => Feedback::SwitchCnp { cp: self.word, rate: (self.stamp != 0).then_some(Rate(self.stamp)) },
            k => unreachable!("{k:?} is not a feedback frame"),
        }
    }
    /// Probe, ProbeReply: the rate field (kb/s, `NO_RATE` if none).
    pub fn probe_rate(&self) -> u32 {
        debug_assert!(matches!(self.kind, PktKind::Probe | PktKind::ProbeReply));
        self.word
    }
    /// A FECN port lowers a probe's rate field to what it advertises.
    pub fn lower_probe_rate(&mut self, kbps: u32) {
        debug_assert_eq!(self.kind, PktKind::Probe);
        self.word = self.word.min(kbps);
    }
}

#[derive(Default)]
pub struct PacketPool {
    pkts: Vec<Packet>,
    /// A 32-bit header field that only some models add to data frames (BCN's rate-limiter
    /// tag: the congestion point that controls the sender's regulator), kept beside the
    /// packets so that `Packet` stays 32 bytes; empty unless enabled.
    tags: Vec<u32>,
    tags_on: bool,
    /// The INT stacks of frames (HPCC), beside the packets; empty unless enabled.
    int: Vec<IntStack>,
    int_on: bool,
    free: Vec<PktId>,
    live: usize,
    peak: usize,
}

impl PacketPool {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.live += 1;
        if self.live > self.peak {
            self.peak = self.live;
        }
        if let Some(id) = self.free.pop() {
            self.pkts[id.idx()] = p;
            id
        } else {
            self.pkts.push(p);
            PktId(self.pkts.len() as u32 - 1)
        }
    }
    #[inline]
    pub fn free(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.pkts[id.idx()]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.pkts[id.idx()]
    }
    /// Asks the CPU to bring a packet into cache ahead of its use.
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        if let Some(p) = self.pkts.get(id.idx()) {
            crate::prefetch::prefetch(p);
        }
    }

    /// Moves every time a frame carries by `by` (fast-forward's resume,
    /// `sim/fast_forward`): the send time of data frames and the one their ACKs echo,
    /// and the INT records' timestamps. Free slots too: they are overwritten on reuse.
    pub fn shift_times(&mut self, by: SimTime) {
        for p in self.pkts.iter_mut() {
            if matches!(p.kind, PktKind::Data | PktKind::Trimmed | PktKind::Ack | PktKind::Nak | PktKind::TcpAck) {
                p.stamp += by.0;
            }
        }
        for s in self.int.iter_mut() {
            let n = s.n as usize;
            s.hops[..n].iter_mut().for_each(|h| h.ts = h.ts + by);
        }
    }

    /// Data frames carry a tag from now on (`set_tag`, `tag`).
    pub fn enable_tags(&mut self) {
        self.tags_on = true;
    }
    /// Sets the tag of packet `id` (`None`: untagged).
    #[inline]
    pub fn set_tag(&mut self, id: PktId, tag: Option<u32>) {
        debug_assert!(self.tags_on);
        if self.tags.len() <= id.idx() {
            self.tags.resize(self.pkts.len(), NO_TAG);
        }
        self.tags[id.idx()] = tag.unwrap_or(NO_TAG);
    }
    /// The tag of packet `id`, if it has one.
    #[inline]
    pub fn tag(&self, id: PktId) -> Option<u32> {
        self.tags.get(id.idx()).copied().filter(|t| *t != NO_TAG)
    }

    /// Frames may carry INT stacks from now on (`int`, `int_mut`).
    pub fn enable_int(&mut self) {
        self.int_on = true;
    }
    /// Whether frames may carry INT stacks.
    #[inline]
    pub fn int_on(&self) -> bool {
        self.int_on
    }
    /// The INT stack of packet `id` (to fill: a fresh frame's must be reset first).
    #[inline]
    pub fn int_mut(&mut self, id: PktId) -> &mut IntStack {
        debug_assert!(self.int_on);
        if self.int.len() <= id.idx() {
            self.int.resize(self.pkts.len().max(id.idx() + 1), IntStack::default());
        }
        &mut self.int[id.idx()]
    }
    /// The INT stack of packet `id` (empty if it never got one).
    #[inline]
    pub fn int(&self, id: PktId) -> IntStack {
        self.int.get(id.idx()).copied().unwrap_or_default()
    }

    /// Calls `f` on every packet alive (allocated and not freed). Allocates a bitmap of
    /// the pool's size: for end-of-run checks, not the hot path.
    pub fn for_each_live(&self, mut f: impl FnMut(&Packet)) {
        let mut free = vec![false; self.pkts.len()];
        for id in &self.free {
            free[id.idx()] = true;
        }
        for (p, _) in self.pkts.iter().zip(&free).filter(|(_, &fr)| !fr) {
            f(p);
        }
    }

    /// Packets alive now, and at the most at any time.
    pub fn live(&self) -> usize {
        self.live
    }
    pub fn peak(&self) -> usize {
        self.peak
    }
    /// The peak of a parallel run's merged pool: its partitions' peaks added up.
    pub fn set_peak(&mut self, peak: usize) {
        self.peak = peak;
    }
}

/// A FIFO of packets linked through `Packet::next`.
#[derive(Copy, Clone, Debug)]
pub struct PktFifo {
    pub head: PktId,
    pub tail: PktId,
}

impl Default for PktFifo {
    fn default() -> Self {
        PktFifo { head: PktId::NONE, tail: PktId::NONE }
    }
}

impl PktFifo {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }
    #[inline]
    pub fn push(&mut self, pool: &mut PacketPool, id: PktId) {
        pool.get_mut(id).next = PktId::NONE;
        if self.tail.is_none() {
            self.head = id;
        } else {
            pool.get_mut(self.tail).next = id;
        }
        self.tail = id;
    }
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PktId> {
        if self.head.is_none() {
            return None;
        }
        let id = self.head;
        self.head = pool.get(id).next;
        if self.head.is_none() {
            self.tail = PktId::NONE;
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u32) -> Packet {
        Packet::data(FlowId(0), NodeId(0), seq, 0, 64, 0, SimTime::ZERO)
    }

    #[test]
    fn flags_are_distinct_bits() {
        let flags = [FLAG_CE, FLAG_CTRL, FLAG_ECE, FLAG_CWR, FLAG_INT, FLAG_TRIM];
        for (i, a) in flags.iter().enumerate() {
            assert_eq!(a.count_ones(), 1);
            for b in &flags[i + 1..] {
                assert_eq!(a & b, 0, "flags {a} and {b} share a bit");
            }
        }
    }

    #[test]
    fn fifo_order_and_reuse() {
        let mut pool = PacketPool::default();
        let mut q = PktFifo::default();
        for s in 0..3 {
            let id = pool.alloc(pkt(s));
            q.push(&mut pool, id);
        }
        let a = q.pop(&pool).unwrap();
        assert_eq!(pool.get(a).seq(), 0);
        pool.free(a);
        let b = pool.alloc(pkt(9));
        assert_eq!(a, b, "freed slots are reused");
        assert_eq!(pool.get(q.pop(&pool).unwrap()).seq(), 1);
        assert_eq!(pool.get(q.pop(&pool).unwrap()).seq(), 2);
        assert!(q.pop(&pool).is_none());
        assert_eq!(pool.peak(), 3);
    }

    #[test]
    fn packet_is_small() {
        assert_eq!(std::mem::size_of::<Packet>(), 32);
    }
}
