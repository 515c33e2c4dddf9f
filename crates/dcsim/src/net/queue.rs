//! Egress queues of switch ports: one queue per (port, priority), each served by an
//! arbitration among its arrivals (FIFO, round robin over ingress ports, round robin over
//! flows), and a scheduler across the 8 priorities of a port (strict, RR, DWRR/ETS).

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use crate::ids::{FlowId, PktId, PortId};
use crate::net::prio_slots::PrioSlots;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SchedulerKind {
    /// Higher priority number first.
    Strict,
    /// One packet per non-empty priority in turn.
    RoundRobin,
    /// Deficit weighted round robin (ETS); priorities in `strict_mask` are served first.
    Dwrr,
}

/// What a DWRR deficit counts (`switch.scheduler.unit`): switches of the seed-004
/// generation schedule ETS in packets or in buffer cells rather than in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EtsUnit {
    /// Frame bytes; quantum one maximum frame on the wire per unit of weight.
    #[default]
    Bytes,
    /// Frames: one frame per unit of weight, whatever its size.
    Packets,
    /// Cells of this many bytes (a frame costs its size rounded up to cells); quantum
    /// the cells of one maximum frame per unit of weight.
    Cells(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerPlan {
    pub kind: SchedulerKind,
    pub weights: [u32; 8],
    pub strict_mask: u8,
    /// DWRR's unit (bytes unless set).
    pub unit: EtsUnit,
}

/// How one egress (port, priority) queue shares its service among its arrivals.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arbitration {
    /// One FIFO: first come, first served.
    Fifo,
    /// Round robin over the ingress ports that have packets queued (VOQ arbitration).
    PerPort,
    /// Round robin over the flows that have packets queued.
    PerFlow,
}

const NONE: u32 = u32::MAX;

/// Entries an empty ring keeps (2 KiB). A ring grows to its queue's deepest backlog;
/// kept at that size, every port of a long run would hold room for the deepest burst
/// it ever saw, not for what is queued now. Giving the room back when the queue
/// empties and growing it again with the next burst costs a few copies per burst of
/// hundreds of frames (k = 16, 20 ms: one shrink per 39,000 link hops).
const RING_KEPT: usize = 256;

#[cold]
#[inline(never)]
fn shrink(fifo: &mut VecDeque<Queued>) {
    fifo.shrink_to(RING_KEPT);
}

/// What the egress side needs of a queued packet, kept beside its id so that dequeuing,
/// scheduling and releasing the MMU charge never touch the (cold) packet itself. 8 bytes,
/// eight to a cache line: a queue's ring is written once at enqueue and read once at
/// dequeue, usually out of cache on a large fabric. The ingress port is given by its
/// index within the switch (`Simulation::ingress_of`); the flow and the frame's kind,
/// which only a congested queue's bookkeeping needs, are read from the packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: PktId,
    pub frame: u16,
    /// The ingress port's index within its node (`Port::local`).
    pub in_local: u16,
}
const _: () = assert!(std::mem::size_of::<Queued>() == 8);

/// Most ports a node may have: `Queued::in_local` holds a port's index within its node.
pub const MAX_NODE_PORTS: usize = 1 << 16;

/// Packets of one arbitration class (an ingress port or a flow) inside an egress queue.
#[derive(Clone, Default)]
struct SubQueue {
    fifo: VecDeque<Queued>,
    next_active: u32,
    key: u32,
}

/// One egress (port, priority) queue.
#[derive(Copy, Clone)]
pub struct EgressQueue {
    pub bytes: u64,
    pub pkts: u32,
    /// Ring of non-empty sub-queues, served in turn (a FIFO of sub-queue ids).
    active_head: u32,
    active_tail: u32,
    /// Per-port arbitration: the first of this queue's sub-queues (one per ingress port).
    sub_base: u32,
}

/// An egress queue and, beside it, its own sub-queue (the only one under FIFO
/// arbitration): 24 + 40 bytes, one cache line for what an enqueue or a dequeue touches.
#[derive(Clone)]
#[repr(C, align(64))]
struct Cell {
    q: EgressQueue,
    own: SubQueue,
}
const _: () = assert!(std::mem::size_of::<Cell>() == 64);

/// Scheduling state of one port across its priorities.
#[derive(Copy, Clone, Default)]
struct PortSched {
    nonempty: u8,
    last: u8,
    deficit: [u32; 8],
}

/// Tiny deterministic hasher for the per-flow sub-queue map (never iterated).
#[derive(Default)]
pub struct FxHasher(u64);
impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub struct EgressQueues {
    /// Per (port, priority): the queue and its own sub-queue (sub-queue id = cell index).
    cells: Vec<Cell>,
    sched: Vec<PortSched>,
    /// Sub-queues of per-port and per-flow arbitration: id `cells.len() + k` is `extra[k]`.
    extra: Vec<SubQueue>,
    arbitration: Arbitration,
    scheduler: SchedulerPlan,
    /// DWRR quantum per unit of weight (bytes).
    quantum: u32,
    flow_subs: HashMap<(u32, u32), u32, BuildHasherDefault<FxHasher>>,
    free_subs: Vec<u32>,
    /// A packet that arrived at an empty sub-queue, not yet written to its ring (the
    /// sub-queue's only packet meanwhile). An arrival at an idle port is dequeued at
    /// once, and then its ring, a cold line on a large fabric, is never touched; the
    /// next enqueue anywhere writes it first, so each ring keeps its order.
    pending: Option<(u32, Queued)>,
    slots: PrioSlots,
}

impl EgressQueues {
    /// `radix[p]` is the number of ports of the node owning port p (per-port arbitration
    /// keeps one sub-queue per ingress port of that node).
    /// A parallel run's merge: port `p`'s byte and packet counts as `other` (the
    /// partition that ran it) has them. Only the counts: the frames stay in the other
    /// partition's pool, so the merged queues are read for their counts alone.
    pub fn adopt_counters(&mut self, other: &EgressQueues, p: PortId) {
        for i in self.slots.of_port(p.idx()) {
            self.cells[i].q.bytes = other.cells[i].q.bytes;
            self.cells[i].q.pkts = other.cells[i].q.pkts;
        }
    }

    /// Queues for the priorities of `slots` only.
    pub fn new(radix: &[u32], arbitration: Arbitration, scheduler: SchedulerPlan, quantum: u32, slots: PrioSlots) -> Self {
        let n_cells = slots.len(radix.len()) as u32;
        let mut cells = Vec::with_capacity(n_cells as usize);
        let mut n_extra = 0u32;
        for &r in radix {
            for _ in 0..slots.per_port() {
                let q = EgressQueue { bytes: 0, pkts: 0, active_head: NONE, active_tail: NONE, sub_base: n_cells + n_extra };
                cells.push(Cell { q, own: SubQueue { next_active: NONE, ..Default::default() } });
                if arbitration == Arbitration::PerPort {
                    n_extra += r;
                }
            }
        }
        EgressQueues {
            cells,
            sched: vec![PortSched::default(); radix.len()],
            extra: (0..n_extra).map(|_| SubQueue { next_active: NONE, ..Default::default() }).collect(),
            arbitration,
            scheduler,
            quantum,
            flow_subs: HashMap::default(),
            free_subs: Vec::new(),
            pending: None,
            slots,
        }
    }

    #[inline]
    pub fn queue(&self, port: PortId, prio: u8) -> &EgressQueue {
        &self.cells[self.slots.at(port.idx(), prio)].q
    }

    #[inline(always)]
    fn sub(&self, si: u32) -> &SubQueue {
        match self.cells.get(si as usize) {
            Some(c) => &c.own,
            None => &self.extra[si as usize - self.cells.len()],
        }
    }

    #[inline(always)]
    fn sub_mut(&mut self, si: u32) -> &mut SubQueue {
        let n = self.cells.len();
        match self.cells.get_mut(si as usize) {
            Some(c) => &mut c.own,
            None => &mut self.extra[si as usize - n],
        }
    }
    /// Corrupts a queue's byte count (tests of the run's checks).
    #[cfg(test)]
    pub(crate) fn queue_bytes_mut(&mut self, port: PortId, prio: u8, add: u64) {
        self.cells[self.slots.at(port.idx(), prio)].q.bytes += add;
    }

    /// Prefetches the scheduling state of `port`.
    #[inline]
    pub fn prefetch_port(&self, port: PortId) {
        if let Some(s) = self.sched.get(port.idx()) {
            crate::prefetch::prefetch(s);
        }
    }

    /// Priorities of `port` with packets queued (bit p = priority p).
    #[inline]
    pub fn nonempty(&self, port: PortId) -> u8 {
        self.sched[port.idx()].nonempty
    }

    /// Appends a packet of `flow`. Whether its ingress port (`item.in_local`) or its flow
    /// counts depends on the arbitration.
    #[inline]
    pub fn enqueue(&mut self, port: PortId, prio: u8, item: Queued, flow: FlowId) {
        let qi = self.slots.at(port.idx(), prio);
        let si = match self.arbitration {
            Arbitration::Fifo => qi as u32,
            Arbitration::PerPort => self.cells[qi].q.sub_base + item.in_local as u32,
            Arbitration::PerFlow => self.flow_sub(qi as u32, flow.0),
        };
        if let Some((s, held)) = self.pending.take() {
            self.sub_mut(s).fifo.push_back(held);
        }
        let sub = self.sub_mut(si);
        let was_empty = sub.fifo.is_empty();
        if was_empty {
            self.pending = Some((si, item));
        } else {
            sub.fifo.push_back(item);
        }
        let q = &mut self.cells[qi].q;
        q.bytes += item.frame as u64;
        q.pkts += 1;
        if was_empty {
            self.append_active(qi, si);
        }
        self.sched[port.idx()].nonempty |= 1 << prio;
    }

    /// Puts sub-queue `si` at the back of queue `qi`'s ring of sub-queues with packets.
    #[inline(always)]
    fn append_active(&mut self, qi: usize, si: u32) {
        self.sub_mut(si).next_active = NONE;
        let q = &mut self.cells[qi].q;
        let tail = q.active_tail;
        if tail == NONE {
            q.active_head = si;
        }
        q.active_tail = si;
        if tail != NONE {
            self.sub_mut(tail).next_active = si;
        }
    }

    fn flow_sub(&mut self, qi: u32, flow: u32) -> u32 {
        if let Some(&s) = self.flow_subs.get(&(qi, flow)) {
            return s;
        }
        let s = match self.free_subs.pop() {
            Some(s) => s,
            None => {
                self.extra.push(SubQueue { next_active: NONE, ..Default::default() });
                (self.cells.len() + self.extra.len() - 1) as u32
            }
        };
        self.sub_mut(s).key = flow;
        self.flow_subs.insert((qi, flow), s);
        s
    }

    /// Frame size of the packet next in turn.
    #[inline]
    fn head_frame(&self, qi: usize) -> u32 {
        let s = self.cells[qi].q.active_head;
        match self.pending {
            Some((held_in, held)) if held_in == s => held.frame as u32,
            _ => self.sub(s).fifo.front().expect("non-empty queue").frame as u32,
        }
    }

    /// Calls `f` on every packet queued at (port, prio), in no particular order (for
    /// diagnostics such as deadlock detection, not the hot path).
    pub fn for_each_queued(&self, port: PortId, prio: u8, mut f: impl FnMut(&Queued)) {
        let mut s = self.cells[self.slots.at(port.idx(), prio)].q.active_head;
        while s != NONE {
            if let Some((held_in, held)) = &self.pending {
                if *held_in == s {
                    f(held);
                }
            }
            self.sub(s).fifo.iter().for_each(&mut f);
            s = self.sub(s).next_active;
        }
    }

    /// Removes the next packet of (port, prio) by the arbitration's turn.
    #[inline(always)]
    pub fn dequeue(&mut self, port: PortId, prio: u8) -> Queued {
        let qi = self.slots.at(port.idx(), prio);
        let si = self.cells[qi].q.active_head;
        let held = self.pending.take_if(|(held_in, _)| *held_in == si).map(|(_, h)| h);
        let sub = self.sub_mut(si);
        // A held packet is its sub-queue's only one: the ring is not touched.
        let item = match held {
            Some(h) => h,
            None => sub.fifo.pop_front().expect("dequeue from an empty queue"),
        };
        let next = sub.next_active;
        let more = !sub.fifo.is_empty();
        if !more && held.is_none() {
            // Restart the ring at its first slot (`clear` rewinds it), still in cache
            // from the last enqueue; otherwise a queue that holds a frame or two walks
            // through the whole ring a past burst grew, a cold line every four frames.
            sub.fifo.clear();
            if sub.fifo.capacity() > RING_KEPT {
                shrink(&mut sub.fifo);
            }
        }
        let key = sub.key;
        let q = &mut self.cells[qi].q;
        q.bytes -= item.frame as u64;
        q.pkts -= 1;
        let empty = q.pkts == 0;
        // Rotate: the served sub-queue goes to the back of the ring if it still has packets.
        q.active_head = next;
        if next == NONE {
            q.active_tail = NONE;
        }
        if more {
            self.append_active(qi, si);
        } else if self.arbitration == Arbitration::PerFlow {
            self.flow_subs.remove(&(qi as u32, key));
            self.free_subs.push(si);
        }
        if empty {
            self.sched[port.idx()].nonempty &= !(1 << prio);
        }
        item
    }

    /// The frame next in turn at (port, prio) under its own arbitration, if any; its
    /// ring's next line is prefetched. A congested queue's departure reads its frame
    /// (RED's draw), a miss once the frame has waited long: asked one departure ahead,
    /// the miss overlaps the work in between.
    #[inline]
    pub fn next_up(&self, port: PortId, prio: u8) -> Option<PktId> {
        let q = &self.cells[self.slots.at(port.idx(), prio)].q;
        if q.active_head == NONE {
            return None;
        }
        let sub = self.sub(q.active_head);
        if let Some(ahead) = sub.fifo.get(8) {
            crate::prefetch::prefetch(ahead);
        }
        match self.pending {
            Some((held_in, held)) if held_in == q.active_head => Some(held.id),
            _ => sub.fifo.front().map(|it| it.id),
        }
    }

    /// A frame of `bytes` in DWRR's unit.
    #[inline(always)]
    fn cost(&self, bytes: u32) -> u32 {
        match self.scheduler.unit {
            EtsUnit::Bytes => bytes,
            EtsUnit::Packets => 1,
            EtsUnit::Cells(c) => bytes.div_ceil(c),
        }
    }

    /// Chooses the priority to serve next among `eligible` (non-empty and not paused),
    /// updating the scheduler's state as if the head packet of that priority is sent.
    #[inline]
    pub fn pick(&mut self, port: PortId, eligible: u8) -> Option<u8> {
        if eligible == 0 {
            return None;
        }
        let sched = self.scheduler.kind;
        let st = &mut self.sched[port.idx()];
        match sched {
            SchedulerKind::Strict => Some(7 - eligible.leading_zeros() as u8),
            SchedulerKind::RoundRobin => {
                // First eligible priority after the last one served, cyclically.
                let rot = eligible.rotate_right((st.last as u32 + 1) % 8);
                let p = ((rot.trailing_zeros() + st.last as u32 + 1) % 8) as u8;
                st.last = p;
                Some(p)
            }
            SchedulerKind::Dwrr => {
                let strict = eligible & self.scheduler.strict_mask;
                if strict != 0 {
                    return Some(7 - strict.leading_zeros() as u8);
                }
                // Deficit round robin: visit priorities from the current one; a visit to a
                // priority whose deficit cannot cover its head packet adds its quantum and
                // moves on. Terminates: every pass adds at least one quantum.
                let mut p = st.last;
                let quantum = self.cost(self.quantum);
                loop {
                    if eligible & (1 << p) != 0 {
                        let qi = self.slots.at(port.idx(), p);
                        let size = self.cost(self.head_frame(qi));
                        let st = &mut self.sched[port.idx()];
                        if st.deficit[p as usize] >= size {
                            st.deficit[p as usize] -= size;
                            st.last = p;
                            return Some(p);
                        }
                        st.deficit[p as usize] += quantum * self.scheduler.weights[p as usize];
                    } else {
                        self.sched[port.idx()].deficit[p as usize] = 0;
                    }
                    p = (p + 1) % 8;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues a frame of `flow` from input `in_local`; the entry carries its flow in the
    /// packet id, for checking the order.
    fn push(q: &mut EgressQueues, port: u32, prio: u8, flow: u32, frame: u32, in_local: u16) {
        q.enqueue(PortId(port), prio, Queued { id: PktId(flow), frame: frame as u16, in_local }, FlowId(flow));
    }

    fn sched(kind: SchedulerKind, weights: [u32; 8]) -> SchedulerPlan {
        SchedulerPlan { kind, weights, strict_mask: 0, unit: EtsUnit::Bytes }
    }

    #[test]
    fn a_ring_gives_back_its_room_when_it_empties() {
        let mut q = EgressQueues::new(&[2, 2], Arbitration::Fifo, sched(SchedulerKind::Strict, [1; 8]), 1000, PrioSlots::all());
        let cap = |q: &EgressQueues| q.sub(8).fifo.capacity();
        for f in 0..4 * RING_KEPT as u32 {
            push(&mut q, 1, 0, f, 1000, 0);
        }
        assert!(cap(&q) >= 4 * RING_KEPT - 1);
        for f in 0..4 * RING_KEPT as u32 - 1 {
            assert_eq!(q.dequeue(PortId(1), 0).id, PktId(f));
            assert!(cap(&q) >= 4 * RING_KEPT - 1, "kept while frames wait");
        }
        q.dequeue(PortId(1), 0);
        assert!(cap(&q) <= RING_KEPT, "{}", cap(&q));
        // It grows again with the next burst, and serves it in order.
        for f in 0..2 * RING_KEPT as u32 {
            push(&mut q, 1, 0, f, 1000, 0);
        }
        assert!((0..2 * RING_KEPT as u32).all(|f| q.dequeue(PortId(1), 0).id == PktId(f)));
    }

    #[test]
    fn per_port_arbitration_alternates_inputs() {
        let mut q = EgressQueues::new(&[3, 3, 3], Arbitration::PerPort, sched(SchedulerKind::Strict, [1; 8]), 1000, PrioSlots::all());
        // Four packets from input 0, then two from input 1.
        for _ in 0..4 {
            push(&mut q, 2, 0, 0, 100, 0);
        }
        for _ in 0..2 {
            push(&mut q, 2, 0, 1, 100, 1);
        }
        let order: Vec<u32> = (0..6).map(|_| q.dequeue(PortId(2), 0).id.0).collect();
        assert_eq!(order, vec![0, 1, 0, 1, 0, 0]);
        assert_eq!(q.nonempty(PortId(2)), 0);
    }

    /// A packet that finds its queue empty is held outside the ring until the next
    /// enqueue anywhere: meanwhile it is the queue's head (its frame, its diagnostics),
    /// and the packets after it, in its queue or another, keep the FIFO order.
    #[test]
    fn a_held_packet_stays_first_in_its_queue() {
        let mut q = EgressQueues::new(&[2, 2], Arbitration::Fifo, sched(SchedulerKind::Dwrr, [1; 8]), 1000, PrioSlots::all());
        push(&mut q, 0, 3, 7, 300, 0);
        let mut seen = Vec::new();
        q.for_each_queued(PortId(0), 3, |it| seen.push(it.id.0));
        assert_eq!((seen, q.head_frame(3)), (vec![7], 300));
        push(&mut q, 1, 3, 8, 100, 0); // another queue: writes the held packet to its ring
        push(&mut q, 0, 3, 9, 200, 1);
        assert_eq!(q.dequeue(PortId(0), 3).id.0, 7);
        assert_eq!(q.head_frame(3), 200);
        assert_eq!(q.dequeue(PortId(0), 3).id.0, 9);
        // Held and taken at once: the ring is never written, the counts are kept.
        push(&mut q, 0, 3, 10, 150, 0);
        assert_eq!((q.queue(PortId(0), 3).bytes, q.queue(PortId(0), 3).pkts), (150, 1));
        assert_eq!(q.dequeue(PortId(0), 3).id.0, 10);
        assert_eq!((q.queue(PortId(0), 3).bytes, q.nonempty(PortId(0))), (0, 0));
        assert_eq!(q.dequeue(PortId(1), 3).id.0, 8);
    }

    #[test]
    fn per_flow_arbitration_alternates_flows_of_one_input() {
        let mut q = EgressQueues::new(&[2, 2], Arbitration::PerFlow, sched(SchedulerKind::Strict, [1; 8]), 1000, PrioSlots::all());
        for f in [5, 5, 5, 7] {
            push(&mut q, 1, 3, f, 100, 0);
        }
        let order: Vec<u32> = (0..4).map(|_| q.dequeue(PortId(1), 3).id.0).collect();
        assert_eq!(order, vec![5, 7, 5, 5]);
    }

    #[test]
    fn strict_and_round_robin_pick() {
        let mut q = EgressQueues::new(&[1], Arbitration::Fifo, sched(SchedulerKind::Strict, [1; 8]), 1000, PrioSlots::all());
        assert_eq!(q.pick(PortId(0), 0b0000_1010), Some(3));
        let mut q = EgressQueues::new(&[1], Arbitration::Fifo, sched(SchedulerKind::RoundRobin, [1; 8]), 1000, PrioSlots::all());
        let picks: Vec<u8> = (0..4).map(|_| q.pick(PortId(0), 0b1000_0010).unwrap()).collect();
        assert_eq!(picks, vec![1, 7, 1, 7]);
    }

    #[test]
    fn dwrr_shares_bytes_by_weight() {
        let mut w = [1; 8];
        w[1] = 3;
        let mut q = EgressQueues::new(&[1], Arbitration::Fifo, sched(SchedulerKind::Dwrr, w), 1000, PrioSlots::all());
        for _ in 0..400 {
            for p in [0u8, 1] {
                push(&mut q, 0, p, p as u32, 1000, 0);
            }
        }
        let mut sent = [0u32; 2];
        for _ in 0..400 {
            let p = q.pick(PortId(0), q.nonempty(PortId(0))).unwrap();
            q.dequeue(PortId(0), p);
            sent[p as usize] += 1;
        }
        assert_eq!(sent[1], 3 * sent[0], "{sent:?}");
    }

    /// Two priorities of weight 1 with frames of 1500 and 1000 bytes: bytes share the
    /// bytes evenly (two small frames for each large one), packets the frames, and
    /// 208-byte cells the cells (8 cells of 1664 B against 5 of 1040 B).
    #[test]
    fn dwrr_units_bytes_packets_cells() {
        let share = |unit| {
            let plan = SchedulerPlan { unit, ..sched(SchedulerKind::Dwrr, [1; 8]) };
            let mut q = EgressQueues::new(&[1], Arbitration::Fifo, plan, 1500, PrioSlots::all());
            for _ in 0..2000 {
                push(&mut q, 0, 0, 0, 1500, 0);
                push(&mut q, 0, 1, 1, 1000, 0);
            }
            let mut bytes = [0u64; 2];
            for _ in 0..1200 {
                let p = q.pick(PortId(0), q.nonempty(PortId(0))).unwrap();
                bytes[p as usize] += q.dequeue(PortId(0), p).frame as u64;
            }
            bytes[0] as f64 / (bytes[0] + bytes[1]) as f64
        };
        let (b, p, c) = (share(EtsUnit::Bytes), share(EtsUnit::Packets), share(EtsUnit::Cells(208)));
        assert!((b - 0.5).abs() < 0.01, "bytes: {b}");
        assert!((p - 0.6).abs() < 0.01, "packets: {p}");
        let cells = 1500.0 / 8.0 / (1500.0 / 8.0 + 1000.0 / 5.0);
        assert!((c - cells).abs() < 0.01, "cells: {c} vs {cells}");
    }
}
