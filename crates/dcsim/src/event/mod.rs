//! The event enum and the event queue.
//!
//! Order: by time; among events due at the same picosecond, the one with the smallest
//! tie key, a seeded hash of (time, event). So no sender wins a tie because of its index
//! or because its event was scheduled first: symmetric senders get symmetric service,
//! reproducibly. The order depends only on the tied events themselves, not on when they
//! were scheduled, so an engine that schedules them in another order (partitioned,
//! parallel) serves them in the same order. An event scheduled for the current time
//! still runs after the event that scheduled it.
//!
//! Two stores hold the pending events: `rounds.rs` serves time in rounds, node by node
//! (the default where every event belongs to one node and every link has a delay), and
//! `wheel.rs` serves every event in time order (everything else). Both give the same
//! results; far timers wait in a radix heap (`radix.rs`).

pub mod owners;
mod radix;
mod rounds;
mod sort;
mod wheel;

use crate::ids::{FlowId, PktId, PortId};
use crate::rng::{mix64, stream_key};
use crate::units::SimTime;
use owners::Owners;
use rounds::Rounds;
use wheel::Wheel;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port finished serializing its current frame.
    TxDone(PortId),
    /// The last bit of a packet reached the receiving port.
    Arrive(PortId, PktId),
    /// A paced queue pair may send again.
    QpWake(FlowId),
    /// A flow's message is posted.
    FlowStart(FlowId),
    /// A flow's source stops sending.
    FlowStop(FlowId),
    /// Go-back-N retransmission timer of a flow.
    Rto(FlowId, u32),
    /// Timer `kind` of a flow's congestion control; stale if the generation moved on.
    CcTimer(FlowId, u8, u32),
    /// A switch finished processing a frame that arrived on the port: forward it.
    Forward(PortId, PktId),
    /// Entry k of the switches' rate schedule takes effect.
    PortRate(u32),
    /// A TCP receiver's delayed-ACK timer; stale if the generation moved on.
    DelAck(FlowId, u32),
    /// A flow's software rate limiter (perftest's) may post its next burst.
    SwBurst(FlowId),
    /// A job's rank k ends its compute (or its job starts): it takes its next step.
    Rank(u32),
    /// UET receiver credits (RCCC): host node k's NIC may send its next grant.
    Credit(u32),
    /// Fast-forward: skip the steady iterations found at this time (`sim/fast_forward`).
    FastForward,
    /// An event of a fabric model (`models/`), dispatched to it by the registry.
    Model(ModelEvent),
}

/// An event of a fabric model (`Event::Model`): the model's place in the `fabric_models!`
/// list, the event's kind and its fields. The kind is the number the event's tie key is
/// made of (`Event::ident`), stated by the model (`FabricModel::EVENTS`): one that no other
/// event uses. Packed (byte-aligned), so that `Event` stays 12 bytes: read the wide fields
/// with `a()` and `b()`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub struct ModelEvent {
    pub model: u8,
    pub kind: u8,
    /// A small field (a priority).
    pub c: u8,
    a: u32,
    b: u32,
}

impl ModelEvent {
    #[inline]
    pub const fn new(model: u8, kind: u8, c: u8, a: u32, b: u32) -> Self {
        ModelEvent { model, kind, c, a, b }
    }
    /// The first wide field (a port, a flow, an index).
    #[inline]
    pub fn a(self) -> u32 {
        self.a
    }
    /// The second wide field (a generation).
    #[inline]
    pub fn b(self) -> u32 {
        self.b
    }
}

impl Event {
    /// The event as one number (variant and fields), for its tie key.
    #[inline]
    pub(crate) fn ident(&self) -> u64 {
        let (v, a, b): (u64, u64, u64) = match *self {
            Event::TxDone(p) => (0, p.0 as u64, 0),
            // Not the packet's pool slot: it depends on allocation order, which differs
            // between engines. One port has at most one arrival per picosecond.
            Event::Arrive(p, _) => (1, p.0 as u64, 0),
            Event::QpWake(f) => (4, f.0 as u64, 0),
            Event::FlowStart(f) => (5, f.0 as u64, 0),
            Event::FlowStop(f) => (6, f.0 as u64, 0),
            Event::Rto(f, g) => (7, f.0 as u64, g as u64),
            Event::CcTimer(f, k, g) => (8, f.0 as u64, (k as u64) << 32 | g as u64),
            Event::Forward(p, _) => (10, p.0 as u64, 0),
            Event::PortRate(k) => (11, k as u64, 0),
            Event::DelAck(f, g) => (13, f.0 as u64, g as u64),
            Event::SwBurst(f) => (19, f.0 as u64, 0),
            Event::Rank(k) => (20, k as u64, 0),
            Event::Credit(k) => (22, k as u64, 0),
            Event::FastForward => (23, 0, 0),
            Event::Model(m) => (m.kind as u64, m.a() as u64, (m.c as u64) << 32 | m.b() as u64),
        };
        // Cheap and injective enough for ordering: variant, then the fields.
        (v << 56) ^ (a << 24) ^ b.rotate_left(40)
    }
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    /// Tie key: a seeded hash of (time, event), computed once when scheduled; it fills
    /// what would be padding.
    key: u32,
    ev: Event,
}

/// The tie key of an event due at `time`: a full 64-bit mix, so that the order of two tied
/// events flips pseudo-randomly with time (ties_are_broken_evenly; one multiply was
/// measurably unfair).
#[inline]
fn tie_key(ties: u64, time: u64, ev: &Event) -> u32 {
    (mix64(ties ^ time.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ev.ident()) >> 32) as u32
}

/// Where the pending events wait. The wheel stays inline: every event of a time-ordered
/// run goes through it, and one indirection less is measurable there.
#[allow(clippy::large_enum_variant)]
enum Store {
    Wheel(Wheel),
    Rounds(Box<Rounds>),
}

/// The event queue: the pending events, the clock, and the event being served.
pub struct EventQueue {
    store: Store,
    /// How far ahead nearly every event is scheduled (the longest link delay plus frame
    /// time, twice): the stores' spans.
    horizon: u64,
    /// Key of the tie-break hashes.
    ties: u64,
    now: SimTime,
    popped: u64,
    /// The event being served, or `None` between events (the loop's periodic work, which
    /// runs after every event due at `now`): what `passed` compares.
    serving: Option<Event>,
}

impl EventQueue {
    /// A time-major queue whose wheel spans at least `horizon` (the longest link delay
    /// plus the longest frame time makes nearly every event a near one).
    pub fn new(seed: u64, horizon: SimTime) -> Self {
        EventQueue {
            store: Store::Wheel(Wheel::new(horizon.0)),
            horizon: horizon.0,
            ties: stream_key(seed, "event-ties"),
            now: SimTime::ZERO,
            popped: 0,
            serving: None,
        }
    }

    /// Serves time in rounds of `len` node by node (`Some`, with the owner of each
    /// event), or every event in time order (`None`); the events pending move over.
    /// Between events only.
    pub fn set_rounds(&mut self, rounds: Option<(SimTime, Owners)>) {
        let mut all = Vec::new();
        match &mut self.store {
            Store::Wheel(w) => w.drain(&mut all),
            Store::Rounds(r) => r.drain(&mut all),
        }
        self.store = match rounds {
            Some((len, owners)) => Store::Rounds(Box::new(Rounds::new(len.0, owners, self.horizon, self.now.0, self.ties))),
            None => Store::Wheel(Wheel::new(self.horizon)),
        };
        for e in all {
            self.put(e.time, e.ev);
        }
    }

    /// The length of the rounds served node by node, if the queue serves so.
    #[inline]
    pub fn round_len(&self) -> Option<SimTime> {
        match &self.store {
            Store::Rounds(r) => Some(SimTime(r.round_len())),
            Store::Wheel(_) => None,
        }
    }

    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events popped so far.
    #[inline]
    pub fn processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        match &self.store {
            Store::Wheel(w) => w.len(),
            Store::Rounds(r) => r.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    fn put(&mut self, time: u64, ev: Event) {
        match &mut self.store {
            Store::Rounds(r) => r.put(time, ev),
            Store::Wheel(w) => w.put(Entry { time, key: tie_key(self.ties, time, &ev), ev }),
        }
    }

    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.put(at.0, ev);
    }

    #[inline(always)]
    fn serve(&mut self, time: u64, ev: Event) -> (SimTime, Event) {
        self.now = SimTime(time);
        self.popped += 1;
        self.serving = Some(ev);
        (self.now, ev)
    }

    /// Removes and returns the next event in time order if it is due no later than
    /// `limit` (a time-major queue; one serving rounds gives `None`).
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        let Store::Wheel(w) = &mut self.store else {
            debug_assert!(false, "pop_until on a queue serving rounds");
            return None;
        };
        let e = w.take_until(limit.0)?;
        Some(self.serve(e.time, e.ev))
    }

    /// Starts serving the round of the next event, up to `limit` at most, node by node.
    /// False if no event is due by `limit` (or the queue serves in time order).
    pub fn begin_round(&mut self, limit: SimTime) -> bool {
        let Store::Rounds(r) = &mut self.store else { return false };
        match r.next_time() {
            Some(t0) if t0 <= limit.0 => {
                r.begin(t0, limit.0);
                true
            }
            _ => false,
        }
    }

    /// The next event of the round being served; `None` when it is over.
    #[inline]
    pub fn pop_round(&mut self) -> Option<(SimTime, Event)> {
        let Store::Rounds(r) = &mut self.store else { return None };
        let (time, ev) = r.pop()?;
        Some(self.serve(time, ev))
    }

    /// The event `k` places after the next one to be served (`k = 0`: the next), for
    /// prefetching ahead; `None` if the store cannot tell cheaply.
    #[inline]
    pub fn ahead(&self, k: usize) -> Option<Event> {
        match &self.store {
            Store::Wheel(w) => w.ahead(k),
            Store::Rounds(r) => r.ahead(k),
        }
    }

    /// The time of the next event, if any (the parallel engine's rounds start there).
    pub fn next_time(&mut self) -> Option<SimTime> {
        match &mut self.store {
            Store::Wheel(w) => w.next_time(),
            Store::Rounds(r) => r.next_time(),
        }
        .map(SimTime)
    }

    /// Keeps only the events `keep` accepts (a partition of the parallel engine keeps
    /// those of the nodes it owns). Their order is unchanged: it depends on the events alone.
    pub fn retain(&mut self, keep: impl Fn(&Event) -> bool) {
        match &mut self.store {
            Store::Wheel(w) => w.retain(&keep),
            Store::Rounds(r) => r.retain(&keep),
        }
    }

    /// Moves the clock to `t` (no earlier than now, with no event pending before it): the
    /// loop's periodic work runs at its own time.
    pub(crate) fn set_now(&mut self, t: SimTime) {
        debug_assert!(t >= self.now);
        self.now = t;
        self.serving = None;
    }

    /// Whether `ev` due at `at` would already have been served, had it been scheduled:
    /// due earlier, or due now and ahead of the event being served in the order (between
    /// events, everything due now has been). An event that was left out because it would
    /// find nothing to do (`sim::Simulation::tx_busy`) is scheduled late only if it has not.
    #[inline]
    pub fn passed(&self, at: SimTime, ev: Event) -> bool {
        if at != self.now {
            return at < self.now;
        }
        match self.serving {
            None => true,
            Some(cur) => (tie_key(self.ties, at.0, &ev), ev.ident()) < (tie_key(self.ties, at.0, &cur), cur.ident()),
        }
    }

    /// Where `ev` due at `at` stands in the order events are served in (smaller first).
    #[inline]
    pub fn rank(&self, at: SimTime, ev: Event) -> (u64, u32, u64) {
        (at.0, tie_key(self.ties, at.0, &ev), ev.ident())
    }

    /// Counts an event that was left out as processed (`uncount` undoes it when it is
    /// scheduled after all), so that the count matches a run that scheduled it.
    #[inline]
    pub(crate) fn count_elided(&mut self) {
        self.popped += 1;
    }
    #[inline]
    pub(crate) fn uncount_elided(&mut self) {
        self.popped -= 1;
    }

    /// Counts events processed elsewhere (the partitions of a parallel run, merged).
    pub(crate) fn add_processed(&mut self, n: u64) {
        self.popped += n;
    }

    /// Moves the clock and every pending event `by` later, but those `fixed` (which keep
    /// their time, later than `by` from now): the world resumes as it was, `by` later
    /// (`sim/fast_forward`). Between events; `rounds` as for `set_rounds`.
    pub(crate) fn shift(&mut self, by: SimTime, rounds: Option<(SimTime, Owners)>, fixed: fn(&Event) -> bool) {
        let mut all = Vec::new();
        match &mut self.store {
            Store::Wheel(w) => w.drain(&mut all),
            Store::Rounds(r) => r.drain(&mut all),
        }
        self.now = self.now + by;
        self.serving = None;
        self.store = match rounds {
            Some((len, owners)) => Store::Rounds(Box::new(Rounds::new(len.0, owners, self.horizon, self.now.0, self.ties))),
            None => Store::Wheel(Wheel::new(self.horizon)),
        };
        for e in all {
            let at = if fixed(&e.ev) { e.time } else { e.time + by.0 };
            debug_assert!(at >= self.now.0, "a fixed event due before the world resumes");
            self.put(at, e.ev);
        }
    }

    /// Removes and returns the next event (time-major).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The order events must come out in, kept by brute force: every event scheduled
    /// through it, the next one found by scanning all pending for the smallest
    /// (time, tie key, event).
    #[derive(Default)]
    struct Reference(Vec<(u64, u32, u64, Event)>);

    impl Reference {
        fn schedule(&mut self, q: &mut EventQueue, at: SimTime, ev: Event) {
            q.schedule(at, ev);
            self.0.push((at.0, tie_key(q.ties, at.0, &ev), ev.ident(), ev));
        }
        /// Removes the next event due: (time, event).
        fn take_next(&mut self) -> (u64, Event) {
            let p = &self.0;
            let k = (0..p.len()).min_by_key(|&k| (p[k].0, p[k].1, p[k].2)).unwrap();
            let e = self.0.swap_remove(k);
            (e.0, e.3)
        }
    }

    /// Thousands of events in one slot (flows starting together), events scheduled into
    /// the slot being served, and a few timers, against a reference that scans all
    /// pending events for the smallest (time, tie key, event) at each step.
    #[test]
    fn crowded_slots_serve_events_in_order() {
        let mut q = EventQueue::new(7, SimTime::ns(1000));
        let mut reference = Reference::default();
        let mut rng = Rng::stream(9, "crowd");
        for f in 0..5000u32 {
            reference.schedule(&mut q, SimTime(rng.below(4)), Event::FlowStart(FlowId(f)));
        }
        reference.schedule(&mut q, SimTime::us(50), Event::PortRate(0));
        let mut n = 0;
        while let Some((t, ev)) = q.pop() {
            assert_eq!((t.0, ev), reference.take_next(), "event {n}");
            n += 1;
            if n % 3 == 0 && n < 20_000 {
                let at = t + SimTime(rng.below(200));
                reference.schedule(&mut q, at, Event::QpWake(FlowId(n)));
            }
        }
        assert!(reference.0.is_empty() && n > 5000);
    }

    /// Served up to limits that fall inside slots (as the parallel engine's rounds do),
    /// with events scheduled into the slot being served and into the next ones: every
    /// event comes out once, in the full order, and none after its limit.
    #[test]
    fn pop_until_limits_inside_a_slot_keep_the_order() {
        let mut q = EventQueue::new(5, SimTime::ns(100));
        let mut reference = Reference::default();
        let mut rng = Rng::stream(11, "limits");
        for k in 0..400u32 {
            reference.schedule(&mut q, SimTime(rng.below(20_000)), Event::TxDone(PortId(k)));
        }
        // Timers past the wheel's window, pulled in as it moves.
        for k in 0..20u32 {
            reference.schedule(&mut q, SimTime(rng.below(1_000_000)), Event::FlowStart(FlowId(k)));
        }
        let (mut limit, mut n) = (0u64, 0u32);
        while !reference.0.is_empty() {
            limit += rng.below(300);
            while let Some((t, ev)) = q.pop_until(SimTime(limit)) {
                assert!(t.0 <= limit, "event at {} past the limit {limit}", t.0);
                assert_eq!((t.0, ev), reference.take_next(), "event {n}");
                n += 1;
                if n < 1500 && n % 2 == 0 {
                    let at = t + SimTime(rng.below(100));
                    reference.schedule(&mut q, at, Event::QpWake(FlowId(n)));
                }
            }
            assert!(reference.0.iter().all(|p| p.0 > limit), "an event due by {limit} was held back");
        }
        assert!(q.is_empty() && n > 400);
    }

    /// Rounds served node by node, against the brute-force reference: each event served
    /// is the earliest pending of its node, a node's events of a round are served in one
    /// stretch, nothing due after the round's end (or the limit) is served in it, and
    /// nothing due by then is left. Events are scheduled as a world's would be: for the
    /// node being served at any time from now, for another node a round length or more
    /// ahead.
    #[test]
    fn rounds_serve_each_node_in_order_and_nodes_in_turn() {
        // A few nodes with many events each (grouped by counting), and many nodes with
        // few events a round (grouped by sorting).
        for nodes in [7u32, 997] {
            rounds_against_the_reference(nodes, 1_000, 300, 1);
        }
        // Crowded groups (sorted on packed numbers) with many events at one picosecond.
        rounds_against_the_reference(7, 1_000, 3_000, 250);
        // Rounds longer than their offsets can span (10 ms links), served in shorter ones.
        rounds_against_the_reference(7, 10_000_000_000, 300, 1);
    }

    /// `initial` events due on a grid of `grid` ps to start with, in rounds of `len` ps
    /// at most.
    fn rounds_against_the_reference(nodes: u32, len: u64, initial: u32, grid: u64) {
        let owners = owners_by_index(nodes, nodes * 3_100);
        let node_of = |ev: &Event| owners.of(ev);
        let mut q = EventQueue::new(9, SimTime(4 * len));
        q.set_rounds(Some((SimTime(len), owners.clone())));
        let round = q.round_len().unwrap().0;
        assert!(round <= len && round <= 1 << 32);
        let mut reference = Reference::default();
        let mut rng = Rng::stream(13, "rounds");
        for k in 0..initial {
            // Most within a few rounds, some timers far past the ring.
            let at = if k % 10 == 0 { rng.below(200 * len) } else { rng.below(5 * len / grid) * grid };
            reference.schedule(&mut q, SimTime(at), Event::TxDone(PortId(k)));
        }
        let (mut limit, mut served, mut n) = (0u64, 0usize, 0u32);
        while !reference.0.is_empty() {
            // Limits inside rounds too, as a run's stops and samples make them.
            limit += rng.below(3 * len);
            while q.begin_round(SimTime(limit)) {
                let (mut done, mut node, mut end) = (Vec::new(), None, None::<u64>);
                while let Some((t, ev)) = q.pop_round() {
                    let v = node_of(&ev);
                    let round_end = *end.get_or_insert((t.0 / round + 1) * round - 1);
                    if node != Some(v) {
                        assert!(!done.contains(&v), "node {v} served twice in a round");
                        done.extend(node);
                        node = Some(v);
                    }
                    assert!(t.0 <= round_end.min(limit), "{ev:?} at {} out of its round", t.0);
                    // The earliest pending of its node, by (time, tie key, event).
                    let p = &reference.0;
                    let k = (0..p.len()).filter(|&k| node_of(&p[k].3) == v).min_by_key(|&k| (p[k].0, p[k].1, p[k].2)).unwrap();
                    assert_eq!((p[k].0, p[k].3), (t.0, ev), "event {served}");
                    reference.0.swap_remove(k);
                    served += 1;
                    n += 1;
                    if n < 3000 {
                        let own = Event::QpWake(FlowId(v + nodes * n));
                        reference.schedule(&mut q, t + SimTime(rng.below(len / 2)), own);
                        let other = Event::TxDone(PortId((v + 1 + n % (nodes - 1)) % nodes + nodes * n));
                        reference.schedule(&mut q, t + SimTime(len + rng.below(3 * len)), other);
                    }
                }
                let end = end.unwrap().min(limit);
                assert!(reference.0.iter().all(|p| p.0 > end), "an event due by {end} was left");
            }
            assert!(reference.0.iter().all(|p| p.0 > limit), "an event due by {limit} was held back");
        }
        assert!(q.is_empty() && served > 3000);
    }

    /// Owners of a world of `nodes` nodes where port and flow k (below `ids`) are node
    /// k % nodes's.
    fn owners_by_index(nodes: u32, ids: u32) -> Owners {
        Owners::new(owners::OwnerTables {
            nodes: nodes as usize,
            port_node: (0..ids).map(|i| i % nodes).collect(),
            flow_src: (0..ids).map(|i| i % nodes).collect(),
            flow_dst: Vec::new(),
            rate_step_port: Vec::new(),
            rank_node: Vec::new(),
            model_events: Vec::new(),
        })
    }

    /// Moving a queue's pending events between the stores keeps every one of them.
    #[test]
    fn switching_stores_keeps_the_pending_events() {
        let mut q = EventQueue::new(2, SimTime::ns(100));
        for k in 0..50u32 {
            q.schedule(SimTime::ns(k as u64 * 37), Event::TxDone(PortId(k)));
        }
        q.schedule(SimTime::ms(5), Event::FlowStart(FlowId(1)));
        q.set_rounds(Some((SimTime::ns(10), owners_by_index(5, 50))));
        assert_eq!((q.len(), q.round_len()), (51, Some(SimTime::ns(10))));
        q.set_rounds(None);
        let t: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(t.len(), 51);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn matches_a_sorted_reference() {
        let mut q = EventQueue::new(3, SimTime::ns(100));
        let mut rng = Rng::stream(5, "test");
        let mut out = vec![];
        for round in 0..200u64 {
            for _ in 0..rng.below(20) {
                let at = q.now() + SimTime(rng.below(1000) * (1 + round % 3));
                q.schedule(at, Event::QpWake(FlowId(0)));
            }
            for _ in 0..rng.below(15) {
                if let Some((t, _)) = q.pop() {
                    out.push(t.0);
                }
            }
        }
        while let Some((t, _)) = q.pop() {
            out.push(t.0);
        }
        assert!(out.windows(2).all(|w| w[0] <= w[1]));
        assert!(q.is_empty());
    }

    /// Far timers pushed after a peek at a later far timer still come out in order.
    #[test]
    fn far_timers_stay_ordered_after_a_peek() {
        let mut q = EventQueue::new(1, SimTime::ns(100));
        q.schedule(SimTime::ms(3), Event::QpWake(FlowId(0)));
        q.schedule(SimTime::ns(1), Event::TxDone(PortId(0)));
        // Popping the near event makes the queue look at the far one (3 ms).
        assert_eq!(q.pop().unwrap().0, SimTime::ns(1));
        q.schedule(SimTime::us(50), Event::TxDone(PortId(1)));
        q.schedule(SimTime::us(40), Event::TxDone(PortId(2)));
        let t: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(t, vec![SimTime::us(40).0, SimTime::us(50).0, SimTime::ms(3).0]);
    }

    /// `passed` says of an event that was never scheduled what serving it would have: a
    /// tied event is passed exactly when it would have been served before the current one,
    /// and one scheduled late (not passed) is then served in its place.
    #[test]
    fn passed_agrees_with_the_order_of_a_scheduled_event() {
        let tied: Vec<Event> = (0..40u32).map(|i| Event::TxDone(PortId(i))).collect();
        let at = SimTime(5_000);
        let mut full = EventQueue::new(3, SimTime::ns(100));
        tied.iter().for_each(|&e| full.schedule(at, e));
        let served: Vec<Event> = std::iter::from_fn(|| full.pop()).map(|(_, e)| e).collect();
        for (skip, &left_out) in served.iter().enumerate() {
            for late in [false, true] {
                let mut q = EventQueue::new(3, SimTime::ns(100));
                q.schedule(SimTime(10), Event::QpWake(FlowId(0)));
                tied.iter().filter(|&&e| e != left_out).for_each(|&e| q.schedule(at, e));
                q.pop();
                assert!(!q.passed(at, left_out), "nothing due then served yet");
                if late && skip == 0 {
                    q.schedule(at, left_out);
                }
                let mut got = Vec::new();
                while let Some((_, e)) = q.pop() {
                    got.push(e);
                    if late {
                        if got.len() == skip {
                            // Not passed: scheduled now, it is served next, in its place.
                            assert!(!q.passed(at, left_out));
                            q.schedule(at, left_out);
                        }
                        continue;
                    }
                    // Never scheduled: passed once the event served is after its place.
                    let k = if got.len() <= skip { got.len() - 1 } else { got.len() };
                    assert_eq!(q.passed(at, left_out), skip < k, "left out {skip}, serving {k}");
                }
                let want: Vec<Event> = served.iter().copied().filter(|&e| late || e != left_out).collect();
                assert_eq!(got, want);
            }
        }
        let mut q = EventQueue::new(3, SimTime::ns(100));
        q.set_now(at);
        assert!(q.passed(at, tied[0]), "between events, everything due now has been served");
        assert!(!q.passed(SimTime(5_001), tied[0]));
    }

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new(1, SimTime::ns(100));
        q.schedule(SimTime(30), Event::QpWake(FlowId(0)));
        q.schedule(SimTime(10), Event::TxDone(PortId(1)));
        q.schedule(SimTime(20), Event::TxDone(PortId(2)));
        let t: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(t, vec![10, 20, 30]);
    }

    /// The simultaneous-arrival rule: among events with equal times, the first scheduled
    /// is not systematically served first. Over many trials each of two tied events
    /// comes first about half the time.
    #[test]
    fn ties_are_broken_evenly() {
        let mut q = EventQueue::new(42, SimTime::ns(100));
        let mut first_a = 0;
        let n = 10_000;
        for i in 0..n {
            let t = SimTime(i as u64 * 10);
            q.schedule(t, Event::TxDone(PortId(0)));
            q.schedule(t, Event::TxDone(PortId(1)));
            if q.pop().unwrap().1 == Event::TxDone(PortId(0)) {
                first_a += 1;
            }
            q.pop();
        }
        let share = first_a as f64 / n as f64;
        assert!((0.47..0.53).contains(&share), "share {share}");
    }

    #[test]
    fn tie_order_does_not_depend_on_scheduling_order() {
        let evs: Vec<Event> =
            (0..50u32).flat_map(|i| [Event::TxDone(PortId(i)), Event::Arrive(PortId(i), PktId(7 * i)), Event::QpWake(FlowId(i))]).collect();
        let order = |perm: &[usize]| {
            let mut q = EventQueue::new(9, SimTime::ns(100));
            for &k in perm {
                q.schedule(SimTime(1234), evs[k]);
            }
            std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect::<Vec<_>>()
        };
        let forward: Vec<usize> = (0..evs.len()).collect();
        let mut shuffled = forward.clone();
        Rng::stream(3, "perm").shuffle(&mut shuffled);
        let reversed: Vec<usize> = forward.iter().rev().copied().collect();
        let a = order(&forward);
        assert_eq!(a, order(&shuffled));
        assert_eq!(a, order(&reversed));
        assert_ne!(a, evs, "ties are not served in index order");
    }

    /// The enum stays 12 bytes (an entry of the queue 24): a model's event is packed.
    #[test]
    fn events_stay_small() {
        assert_eq!(std::mem::size_of::<Event>(), 12);
        assert_eq!(std::mem::size_of::<Entry>(), 24);
        assert_eq!(std::mem::size_of::<Option<Event>>(), 12);
    }

    /// The fabric models' kinds of event (the first number of their tie keys) are their
    /// own: no two models', nor an engine event's, share one.
    #[test]
    fn model_event_kinds_are_their_own() {
        let (p, f) = (PortId(0), FlowId(0));
        let engine = [
            Event::TxDone(p),
            Event::Arrive(p, PktId(0)),
            Event::QpWake(f),
            Event::FlowStart(f),
            Event::FlowStop(f),
            Event::Rto(f, 0),
            Event::CcTimer(f, 0, 0),
            Event::Forward(p, PktId(0)),
            Event::PortRate(0),
            Event::DelAck(f, 0),
            Event::SwBurst(f),
            Event::Rank(0),
            Event::Credit(0),
            Event::FastForward,
        ];
        // Every engine variant is listed above (a new one fails to compile here).
        for e in engine {
            match e {
                Event::TxDone(_)
                | Event::Arrive(..)
                | Event::QpWake(_)
                | Event::FlowStart(_)
                | Event::FlowStop(_)
                | Event::Rto(..)
                | Event::CcTimer(..)
                | Event::Forward(..)
                | Event::PortRate(_)
                | Event::DelAck(..)
                | Event::SwBurst(_)
                | Event::Rank(_)
                | Event::Credit(_)
                | Event::FastForward => {}
                Event::Model(_) => unreachable!(),
            }
        }
        let mut kinds: Vec<u64> = engine.iter().map(|e| e.ident() >> 56).collect();
        let models = crate::models::FabricModels::event_kinds();
        assert!(!models.is_empty());
        kinds.extend(models.iter().map(|&k| k as u64));
        let n = kinds.len();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), n, "a kind of event is used twice");
    }

    /// A frame's pool slot is left out of the tie key: the same arrival (or forward) gets
    /// the same key in engines whose pools allocate in different orders.
    #[test]
    fn tie_key_ignores_the_pool_slot() {
        let (a, b) = (Event::Arrive(PortId(5), PktId(1)), Event::Arrive(PortId(5), PktId(900)));
        assert_eq!(a.ident(), b.ident());
        assert_eq!(tie_key(11, 1234, &a), tie_key(11, 1234, &b));
        assert_eq!(Event::Forward(PortId(5), PktId(1)).ident(), Event::Forward(PortId(5), PktId(900)).ident());
        assert_ne!(a.ident(), Event::Arrive(PortId(6), PktId(1)).ident());
        assert_ne!(a.ident(), Event::Forward(PortId(5), PktId(1)).ident());
    }
}
