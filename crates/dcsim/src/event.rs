//! The event enum and the event queue.
//!
//! Order: by time; among events due at the same picosecond, the one with the smallest
//! tie key, a seeded hash of (time, event). So no sender wins a tie because of its index
//! or because its event was scheduled first: symmetric senders get symmetric service,
//! reproducibly. The order depends only on the tied events themselves, not on when they
//! were scheduled, so an engine that schedules them in another order (partitioned,
//! parallel) serves them in the same order. An event scheduled for the current time
//! still runs after the event that scheduled it.

use crate::ids::{FlowId, PktId, PortId};
use crate::rng::{mix64, stream_key};
use crate::units::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port finished serializing its current frame.
    TxDone(PortId),
    /// The last bit of a packet reached the receiving port.
    Arrive(PortId, PktId),
    /// A received pause on (port, priority) ran out; stale if the generation moved on.
    PauseExpire(PortId, u8, u32),
    /// Re-send XOFF for the ingress (port, priority) if it is still congested.
    PfcRefresh(PortId, u8, u32),
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
    /// A receiver may send the CNP it held back for a flow (interval or NIC limit).
    CnpDeferred(FlowId),
    /// A switch finished processing a frame that arrived on the port: forward it.
    Forward(PortId, PktId),
    /// Entry k of the switches' rate schedule takes effect.
    PortRate(u32),
    /// FECN: switches recompute their advertised rates.
    FecnTick,
    /// A TCP receiver's delayed-ACK timer; stale if the generation moved on.
    DelAck(FlowId, u32),
    /// Step k of the link failures (down, up, routes converged).
    Link(u32),
    /// Injected pause storm k sends its next pause frame (or its XON at the end).
    PauseStorm(u32),
    /// NIC k finished processing the frame at the head of its receive buffer.
    RxDone(u32),
    /// Receive-buffer processing-rate change k takes effect.
    RxRate(u32),
    /// InfiniBand credits: every port sends its periodic FCPs.
    IbTick,
    /// A flow's software rate limiter (perftest's) may post its next burst.
    SwBurst(FlowId),
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
            Event::PauseExpire(p, c, g) => (2, p.0 as u64, (c as u64) << 32 | g as u64),
            Event::PfcRefresh(p, c, g) => (3, p.0 as u64, (c as u64) << 32 | g as u64),
            Event::QpWake(f) => (4, f.0 as u64, 0),
            Event::FlowStart(f) => (5, f.0 as u64, 0),
            Event::FlowStop(f) => (6, f.0 as u64, 0),
            Event::Rto(f, g) => (7, f.0 as u64, g as u64),
            Event::CcTimer(f, k, g) => (8, f.0 as u64, (k as u64) << 32 | g as u64),
            Event::CnpDeferred(f) => (9, f.0 as u64, 0),
            Event::Forward(p, _) => (10, p.0 as u64, 0),
            Event::PortRate(k) => (11, k as u64, 0),
            Event::FecnTick => (12, 0, 0),
            Event::DelAck(f, g) => (13, f.0 as u64, g as u64),
            Event::Link(k) => (14, k as u64, 0),
            Event::PauseStorm(k) => (15, k as u64, 0),
            Event::RxDone(k) => (16, k as u64, 0),
            Event::RxRate(k) => (17, k as u64, 0),
            Event::IbTick => (18, 0, 0),
            Event::SwBurst(f) => (19, f.0 as u64, 0),
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

/// Monotone priority queue over times (a radix heap, Ahuja et al. 1990): an entry sits in
/// the bucket of the highest bit in which its time differs from the last time taken out.
/// Used for far-future events only (timers), so its few moves per entry are rare work.
struct RadixHeap {
    buckets: Vec<Vec<Entry>>,
    occupied: u128,
    last: u64,
    /// The smallest time held (u64::MAX when empty), valid unless `stale`: kept on push,
    /// recomputed after a removal, so a peek costs nothing when nothing left.
    min_cache: u64,
    stale: bool,
}

impl RadixHeap {
    fn new() -> Self {
        RadixHeap { buckets: (0..65).map(|_| Vec::new()).collect(), occupied: 0, last: 0, min_cache: u64::MAX, stale: false }
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        if !self.stale {
            self.min_cache = self.min_cache.min(e.time);
        }
        self.put(e);
    }

    #[inline]
    fn put(&mut self, e: Entry) {
        let b = 64 - (e.time ^ self.last).leading_zeros() as usize;
        self.buckets[b].push(e);
        self.occupied |= 1 << b;
    }

    /// Smallest time held. Does not move anything: a radix heap only accepts pushes at
    /// or after its last *removed* key, so peeking must not advance that key.
    fn min(&mut self) -> Option<u64> {
        if self.stale {
            self.stale = false;
            self.min_cache = if self.occupied & 1 != 0 {
                self.last
            } else if self.occupied == 0 {
                u64::MAX
            } else {
                let b = self.occupied.trailing_zeros() as usize;
                self.buckets[b].iter().map(|e| e.time).min().unwrap()
            };
        }
        (self.min_cache != u64::MAX).then_some(self.min_cache)
    }

    /// Removes one entry with the smallest time.
    fn pop_min(&mut self) -> Option<Entry> {
        if self.occupied & 1 == 0 {
            if self.occupied == 0 {
                return None;
            }
            let b = self.occupied.trailing_zeros() as usize;
            let mut v = std::mem::take(&mut self.buckets[b]);
            self.occupied &= !(1 << b);
            self.last = v.iter().map(|e| e.time).min().unwrap();
            for e in v.drain(..) {
                self.put(e);
            }
            self.buckets[b] = v;
        }
        let e = self.buckets[0].pop().unwrap();
        if self.buckets[0].is_empty() {
            self.occupied &= !1;
        }
        self.stale = true;
        Some(e)
    }
}

const WHEEL_SLOTS: usize = 2048;

/// Slots up to this size are sorted by insertion (nearly all: a few events each).
const INSERTION_SORT: usize = 24;

/// The tie key of an event due at `time`: a full 64-bit mix, so that the order of two tied
/// events flips pseudo-randomly with time (ties_are_broken_evenly; one multiply was
/// measurably unfair).
#[inline]
fn tie_key(ties: u64, time: u64, ev: &Event) -> u32 {
    (mix64(ties ^ time.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ev.ident()) >> 32) as u32
}

/// The order events are served in: time, tie key, then the event itself.
#[inline]
fn order(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    (a.time, a.key).cmp(&(b.time, b.key)).then_with(|| a.ev.ident().cmp(&b.ev.ident()))
}

/// Sorts a slot that starts at time `base` and spans `2^shift` ps latest first, so that
/// it is served from its end. `keys` and `spare` are scratch space (`spare` and `v`
/// may trade buffers).
#[inline]
fn sort_latest_first(v: &mut Vec<Entry>, base: u64, shift: u32, keys: &mut Vec<u64>, spare: &mut Vec<Entry>) {
    let n = v.len();
    if n > INSERTION_SORT {
        let idx_bits = usize::BITS - (n - 1).leading_zeros();
        if shift + 32 + idx_bits <= 64 {
            // (time, tie key, index) as one number: a crowded slot sorts 8-byte numbers
            // and moves each entry once. Equal (time, tie key) pairs (a collision at one
            // picosecond) need the event itself to decide.
            keys.clear();
            keys.extend(v.iter().enumerate().map(|(k, e)| ((e.time - base) << 32 | e.key as u64) << idx_bits | k as u64));
            keys.sort_unstable();
            if keys.windows(2).all(|w| w[0] >> idx_bits != w[1] >> idx_bits) {
                let mask = (1u64 << idx_bits) - 1;
                spare.clear();
                spare.extend(keys.iter().rev().map(|&k| v[(k & mask) as usize]));
                std::mem::swap(v, spare);
                return;
            }
        }
        v.sort_unstable_by(|a, b| order(b, a));
        return;
    }
    // Events reach a slot mostly in time order (each kind of event is scheduled a fixed
    // time ahead of the event that schedules it), so the reversed slot is nearly sorted
    // latest first and the insertion sort moves little.
    v.reverse();
    for k in 1..n {
        let e = v[k];
        let mut j = k;
        while j > 0 && later(&e, &v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// `a` is served after `b`.
#[inline(always)]
fn later(a: &Entry, b: &Entry) -> bool {
    if a.time != b.time {
        return a.time > b.time;
    }
    if a.key != b.key {
        return a.key > b.key;
    }
    a.ev.ident() > b.ev.ident()
}


/// The event queue: a timing wheel for the near future plus a radix heap for the rest.
///
/// The wheel has `WHEEL_SLOTS` slots of 2^shift ps, covering the window
/// [cur, cur + WHEEL_SLOTS) in slot units. Serialization ends and link arrivals, which are
/// nearly all events, land in it directly and are taken out once; an occupancy bitmap
/// finds the next non-empty slot. Timers beyond the window wait in the radix heap and move
/// into the wheel when the window reaches them. A slot is filled unsorted; when the
/// window reaches it, it is sorted once (latest first) and served from its end, so that
/// the many events of a slot due at the same picosecond (symmetric fabrics tie often)
/// cost one sort, not one scan each.
pub struct EventQueue {
    wheel: Vec<Vec<Entry>>,
    /// Occupied slots, a bit each.
    bits: [u64; WHEEL_SLOTS / 64],
    /// Slots sorted latest first (by time, tie key, event), a bit each: the slot being
    /// served. An event scheduled into it is inserted in order.
    sorted: [u64; WHEEL_SLOTS / 64],
    shift: u32,
    /// Absolute index of the slot the window starts at.
    cur: u64,
    near: usize,
    far: RadixHeap,
    far_len: usize,
    /// Wheel slot (absolute) of the earliest far timer, `u64::MAX` if none: the window's
    /// move tests it instead of the heap.
    far_due: u64,
    /// Key of the tie-break hashes.
    ties: u64,
    now: SimTime,
    popped: u64,
    /// The event being served (tie key and event), or `None` between events (the loop's
    /// periodic work, which runs after every event due at `now`): what `passed` compares.
    serving: Option<(u32, Event)>,
    /// Buffers of slots served to the end, still in cache: the next slot to be filled
    /// takes the last one, so that scheduling writes to cached lines (a slot's own buffer
    /// was last used a wheel turn ago, long evicted on a large fabric).
    free: Vec<Vec<Entry>>,
    /// Scratch space of the slot sort.
    keys: Vec<u64>,
    spare: Vec<Entry>,
}

impl EventQueue {
    /// A queue whose wheel spans at least `horizon` (the longest link delay plus the
    /// longest frame time makes nearly every event a near one).
    pub fn new(seed: u64, horizon: SimTime) -> Self {
        let per_slot = (horizon.0 / WHEEL_SLOTS as u64).max(1);
        let shift = (64 - (per_slot - 1).leading_zeros()).max(6);
        EventQueue {
            wheel: (0..WHEEL_SLOTS).map(|_| Vec::new()).collect(),
            bits: [0; WHEEL_SLOTS / 64],
            sorted: [0; WHEEL_SLOTS / 64],
            shift,
            cur: 0,
            near: 0,
            far: RadixHeap::new(),
            far_len: 0,
            far_due: u64::MAX,
            ties: stream_key(seed, "event-ties"),
            now: SimTime::ZERO,
            popped: 0,
            serving: None,
            free: Vec::new(),
            keys: Vec::new(),
            spare: Vec::new(),
        }
    }

    #[inline]
    pub fn now(&self) -> SimTime { self.now }

    /// Events popped so far.
    #[inline]
    pub fn processed(&self) -> u64 { self.popped }

    pub fn len(&self) -> usize { self.near + self.far_len }
    pub fn is_empty(&self) -> bool { self.len() == 0 }

    #[inline(always)]
    fn put_near(&mut self, e: Entry) {
        let i = (e.time >> self.shift) as usize & (WHEEL_SLOTS - 1);
        let v = &mut self.wheel[i];
        if v.capacity() == 0 {
            if let Some(b) = self.free.pop() {
                *v = b;
            }
        }
        if self.sorted[i / 64] & (1 << (i % 64)) == 0 {
            v.push(e);
        } else {
            let at = v.partition_point(|x| order(&e, x).is_lt());
            v.insert(at, e);
        }
        self.bits[i / 64] |= 1 << (i % 64);
        self.near += 1;
    }

    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let e = Entry { time: at.0, key: tie_key(self.ties, at.0, &ev), ev };
        if (at.0 >> self.shift) < self.cur + WHEEL_SLOTS as u64 {
            self.put_near(e);
        } else {
            self.far.push(e);
            self.far_len += 1;
            self.far_due = self.far_due.min(at.0 >> self.shift);
        }
    }

    /// Absolute index of the first non-empty wheel slot in the window, if any.
    #[inline]
    fn next_slot(&self) -> Option<u64> {
        if self.near == 0 {
            return None;
        }
        let start = self.cur as usize & (WHEEL_SLOTS - 1);
        let (w0, b0) = (start / 64, start % 64);
        let words = WHEEL_SLOTS / 64;
        let first = self.bits[w0] & (!0u64 << b0);
        if first != 0 {
            return Some(self.cur + (first.trailing_zeros() as usize - b0) as u64);
        }
        for k in 1..=words {
            let w = (w0 + k) % words;
            let m = if k == words { self.bits[w] & !(!0u64 << b0) } else { self.bits[w] };
            if m != 0 {
                let idx = w * 64 + m.trailing_zeros() as usize;
                let off = (idx + WHEEL_SLOTS - start) % WHEEL_SLOTS;
                return Some(self.cur + off as u64);
            }
        }
        unreachable!("near events but no occupied slot")
    }

    /// Moves the window to start at slot `s` and pulls in the timers it now covers.
    #[inline(always)]
    fn advance(&mut self, s: u64) {
        self.cur = s;
        if self.far_due < s + WHEEL_SLOTS as u64 {
            self.pull_far();
        }
    }

    #[inline(never)]
    fn pull_far(&mut self) {
        let limit = self.cur + WHEEL_SLOTS as u64;
        while let Some(t) = self.far.min() {
            if (t >> self.shift) >= limit {
                break;
            }
            let e = self.far.pop_min().expect("far heap holds the minimum just seen");
            self.far_len -= 1;
            self.put_near(e);
        }
        self.far_due = self.far.min().map_or(u64::MAX, |t| t >> self.shift);
    }

    /// Removes and returns the next event if it is due no later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        // Nearly every event comes from the slot being served: sorted, at the window's
        // start, served from its end (a sorted slot is never empty).
        let i = self.cur as usize & (WHEEL_SLOTS - 1);
        let bit = 1u64 << (i % 64);
        if self.sorted[i / 64] & bit != 0 {
            let e = *self.wheel[i].last().expect("a sorted slot holds an event");
            if e.time > limit.0 {
                return None;
            }
            return Some(self.serve_last(i));
        }
        self.pop_slot(limit)
    }

    /// Takes the last event of wheel slot `i` (its earliest, the slot sorted) and serves
    /// it; a slot left empty gives its buffer to the next slot to be filled.
    #[inline(always)]
    fn serve_last(&mut self, i: usize) -> (SimTime, Event) {
        let v = &mut self.wheel[i];
        let e = v.pop().expect("an occupied slot holds an event");
        if v.is_empty() {
            let bit = 1u64 << (i % 64);
            self.bits[i / 64] &= !bit;
            self.sorted[i / 64] &= !bit;
            self.free.push(std::mem::take(v));
        }
        self.near -= 1;
        self.now = SimTime(e.time);
        self.popped += 1;
        self.serving = Some((e.key, e.ev));
        (self.now, e.ev)
    }

    /// `pop_until` when the slot being served has nothing left: the next slot in the
    /// window (or the far timers'), sorted once.
    #[inline(never)]
    fn pop_slot(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        let slot = match self.next_slot() {
            Some(s) => s,
            None => {
                let t = self.far.min()?;
                if t > limit.0 {
                    return None;
                }
                self.advance(t >> self.shift);
                self.next_slot().unwrap()
            }
        };
        let i = slot as usize & (WHEEL_SLOTS - 1);
        let bit = 1u64 << (i % 64);
        if self.sorted[i / 64] & bit == 0 && self.wheel[i].len() > 1 {
            sort_latest_first(&mut self.wheel[i], slot << self.shift, self.shift, &mut self.keys, &mut self.spare);
            self.sorted[i / 64] |= bit;
        }
        let e = *self.wheel[i].last().expect("an occupied slot holds an event");
        if e.time > limit.0 {
            return None;
        }
        // Timers pulled in by the move land in later slots than this one (every far
        // timer is at least a window past `cur`), so `e` stays the slot's minimum.
        if slot != self.cur {
            self.advance(slot);
        }
        Some(self.serve_last(i))
    }

    /// The event `k` places after the next one in the slot being served (`k = 0`: the
    /// next), for prefetching ahead; `None` past the slot's end or before it is sorted.
    #[inline]
    pub fn ahead(&self, k: usize) -> Option<Event> {
        let i = self.cur as usize & (WHEEL_SLOTS - 1);
        if self.sorted[i / 64] & (1 << (i % 64)) == 0 {
            return None;
        }
        let v = &self.wheel[i];
        v.len().checked_sub(1 + k).map(|j| v[j].ev)
    }

    /// The time of the next event, if any (the parallel engine's rounds start there).
    pub fn next_time(&mut self) -> Option<SimTime> {
        match self.next_slot() {
            // Every far timer is a window past the near ones.
            Some(slot) => {
                let i = slot as usize & (WHEEL_SLOTS - 1);
                self.wheel[i].iter().map(|e| e.time).min().map(SimTime)
            }
            None => self.far.min().map(SimTime),
        }
    }

    /// Keeps only the events `keep` accepts (a partition of the parallel engine keeps
    /// those of the nodes it owns). Their order is unchanged: it depends on the events alone.
    pub fn retain(&mut self, keep: impl Fn(&Event) -> bool) {
        self.near = 0;
        for (i, v) in self.wheel.iter_mut().enumerate() {
            v.retain(|e| keep(&e.ev));
            self.near += v.len();
            if v.is_empty() {
                self.bits[i / 64] &= !(1 << (i % 64));
                self.sorted[i / 64] &= !(1 << (i % 64));
            }
        }
        self.far_len = 0;
        for (b, v) in self.far.buckets.iter_mut().enumerate() {
            v.retain(|e| keep(&e.ev));
            self.far_len += v.len();
            if v.is_empty() {
                self.far.occupied &= !(1 << b);
            }
        }
        self.far.stale = true;
        self.far_due = self.far.min().map_or(u64::MAX, |t| t >> self.shift);
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
            Some((key, cur)) => {
                let k = tie_key(self.ties, at.0, &ev);
                (k, ev.ident()) < (key, cur.ident())
            }
        }
    }

    /// Where `ev` due at `at` stands in the order events are served in (smaller first).
    #[inline]
    pub fn rank(&self, at: SimTime, ev: Event) -> (u64, u32, u64) { (at.0, tie_key(self.ties, at.0, &ev), ev.ident()) }

    /// Counts an event that was left out as processed (`uncount` undoes it when it is
    /// scheduled after all), so that the count matches a run that scheduled it.
    #[inline]
    pub(crate) fn count_elided(&mut self) { self.popped += 1; }
    #[inline]
    pub(crate) fn uncount_elided(&mut self) { self.popped -= 1; }

    /// Counts events processed elsewhere (the partitions of a parallel run, merged).
    pub(crate) fn add_processed(&mut self, n: u64) { self.popped += n; }

    /// Removes and returns the next event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> { self.pop_until(SimTime::MAX) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A crowded slot sorted on packed (time, tie key) numbers comes out in the full order,
    /// also when two events share time and tie key (then the event decides).
    #[test]
    fn packed_sort_keeps_the_full_order_on_tie_key_collisions() {
        let mut rng = Rng::stream(3, "packed");
        let (base, shift) = (7u64 << 10, 10);
        let mut v: Vec<Entry> = (0..60)
            .map(|k| Entry { time: base + rng.below(1 << shift), key: rng.below(4) as u32, ev: Event::TxDone(PortId(k)) })
            .collect();
        v[1].time = v[0].time;
        v[1].key = v[0].key;
        let mut want = v.clone();
        want.sort_by(|a, b| order(b, a));
        sort_latest_first(&mut v, base, shift, &mut Vec::new(), &mut Vec::new());
        let ids = |v: &[Entry]| v.iter().map(|e| e.ev.ident()).collect::<Vec<_>>();
        assert_eq!(ids(&v), ids(&want));
        // Without collisions the packed numbers alone decide.
        let mut u: Vec<Entry> = (0..60u32).map(|k| Entry { time: base + (k as u64 * 37) % 1024, key: k, ev: Event::FlowStart(FlowId(k)) }).collect();
        let mut want = u.clone();
        want.sort_by(|a, b| order(b, a));
        sort_latest_first(&mut u, base, shift, &mut Vec::new(), &mut Vec::new());
        assert_eq!(ids(&u), ids(&want));
    }

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
        reference.schedule(&mut q, SimTime::us(50), Event::FecnTick);
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
                if let Some((t, _)) = q.pop() { out.push(t.0); }
            }
        }
        while let Some((t, _)) = q.pop() { out.push(t.0); }
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
        let evs: Vec<Event> = (0..50u32)
            .flat_map(|i| [Event::TxDone(PortId(i)), Event::Arrive(PortId(i), PktId(7 * i)), Event::QpWake(FlowId(i))])
            .collect();
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
