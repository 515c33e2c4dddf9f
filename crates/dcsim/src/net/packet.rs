//! Packets live in one pool and move by index; queues link them intrusively through
//! `next`, so the hot loop allocates nothing once the pool has grown to its peak.

use crate::ids::{FlowId, NodeId, PktId};
use crate::units::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    Data,
    /// Cumulative ACK: `seq` is the next packet the receiver expects.
    Ack,
    /// Go-back-N NAK: `seq` is the packet the receiver expects (resend from there).
    Nak,
    /// PFC / PAUSE frame: `prio` holds the class-enable vector, `seq` the pause quanta
    /// (0 = resume).
    Pfc,
    /// RoCEv2 congestion notification packet to the sender of `flow`.
    Cnp,
    /// Feedback from a switch congestion point to the source of `flow` (QCN CNM, BCN):
    /// `prio` = 0 QCN, 1 BCN, 2 BCN00; `seq` = the feedback (i32 bits); `sent` = the
    /// congestion point's id.
    Cnm,
    /// FECN rate-discovery probe travelling with `flow`: `seq` = the lowest advertised
    /// rate seen so far in kb/s (u32::MAX: none yet).
    Probe,
    /// The probe reflected by the destination back to the source, `seq` as above.
    ProbeReply,
}

/// Congestion experienced (IP ECN = 11), set by a switch on a data packet.
pub const FLAG_CE: u8 = 1;
/// Travels in the control class: strict highest priority, never paused, not charged to
/// switch buffers (PFC, ACK, NAK, and CNPs unless given a priority).
pub const FLAG_CTRL: u8 = 2;

/// 32 bytes and 32-byte aligned: one packet is one half of a cache line, never two.
#[derive(Copy, Clone, Debug)]
#[repr(align(32))]
pub struct Packet {
    pub flow: FlowId,
    pub seq: u32,
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
    /// When the sender NIC started sending it (for one-way latency).
    pub sent: SimTime,
}

impl Packet {
    /// Control frames (PFC, ACK, NAK) travel in the control queue: strict highest
    /// priority, never paused and not charged to the MMU.
    #[inline]
    pub fn is_control(&self) -> bool { self.flags & FLAG_CTRL != 0 }
}

#[derive(Default)]
pub struct PacketPool {
    pkts: Vec<Packet>,
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
    pub fn get(&self, id: PktId) -> &Packet { &self.pkts[id.idx()] }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet { &mut self.pkts[id.idx()] }
    /// Asks the CPU to bring a packet into cache ahead of its use.
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = self.pkts.get(id.idx()) {
            // SAFETY: prefetching is a hint with no effect on memory; the pointer is valid.
            unsafe { std::arch::x86_64::_mm_prefetch(p as *const Packet as *const i8, std::arch::x86_64::_MM_HINT_T0) }
        }
    }

    /// Packets alive now, and at the most at any time.
    pub fn live(&self) -> usize { self.live }
    pub fn peak(&self) -> usize { self.peak }
}

/// A FIFO of packets linked through `Packet::next`.
#[derive(Copy, Clone, Debug)]
pub struct PktFifo {
    pub head: PktId,
    pub tail: PktId,
}

impl Default for PktFifo {
    fn default() -> Self { PktFifo { head: PktId::NONE, tail: PktId::NONE } }
}

impl PktFifo {
    #[inline]
    pub fn is_empty(&self) -> bool { self.head.is_none() }
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
        Packet { flow: FlowId(0), seq, dst: NodeId(0), next: PktId::NONE, payload: 0,
                 frame: 64, kind: PktKind::Data, prio: 0, flags: 0, sent: SimTime::ZERO }
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
        assert_eq!(pool.get(a).seq, 0);
        pool.free(a);
        let b = pool.alloc(pkt(9));
        assert_eq!(a, b, "freed slots are reused");
        assert_eq!(pool.get(q.pop(&pool).unwrap()).seq, 1);
        assert_eq!(pool.get(q.pop(&pool).unwrap()).seq, 2);
        assert!(q.pop(&pool).is_none());
        assert_eq!(pool.peak(), 3);
    }

    #[test]
    fn packet_is_small() {
        assert_eq!(std::mem::size_of::<Packet>(), 32);
    }
}
