//! The node-major store: time cut into rounds no longer than the shortest link delay,
//! each round served node by node.
//!
//! Within a round no node can change another: whatever a node sends reaches its peer a
//! link delay later, in a later round, and every other event belongs to one node and is
//! scheduled only by that node (`owners.rs`; the same rule the parallel engine's
//! partitions rest on, `sim/parallel`). So a round may serve all of one node's events (in their order),
//! then all of the next node's, and the results are those of serving every event in time
//! order. What that buys is locality: a switch's ports, queues, buffer charges and
//! routing row stay in cache across its dozens of events of a round instead of being
//! fetched again for each, and scheduling appends to one unsorted list per round.
//!
//! Other layouts of the round's lists measured slower on the k = 16 benchmark
//! (docs/speed.md): a list per node (1.2 times the time: the writes scatter), lists per
//! block of nodes (1.1: the node is looked up as each event is scheduled).

use super::owners::Owners;
use super::radix::RadixHeap;
use super::sort::{sink, sort_events, Sorted};
use super::{tie_key, Entry, Event};

/// How many entries past a list's end `put` asks for the line it will write then.
const AHEAD: usize = 8;

/// The longest round: its events' times are kept as 32-bit offsets from its start.
const MAX_LEN: u64 = 1 << 32;

/// An event in a round's lists: its time as an offset from the round's start, and the
/// event. 16 bytes, four to a cache line: the lists of a large fabric's round pass
/// through L2 every round, and a third more of them (24-byte entries with the time and
/// tie key) measured slower (docs/speed.md). The tie key is computed only where two
/// events share a picosecond: a crowded group is sorted by offset first (`sort.rs`).
#[derive(Copy, Clone, Debug)]
struct Due {
    off: u32,
    ev: Event,
}

const _: () = assert!(std::mem::size_of::<Due>() == 16);

/// What ordering a round's events needs: the round's start (their times) and the tie
/// keys' seed.
#[derive(Copy, Clone)]
struct RoundCx {
    base: u64,
    ties: u64,
}

impl Sorted for Due {
    type Cx = RoundCx;
    const TIES_HASHED: bool = true;
    #[inline(always)]
    fn at(&self, _: RoundCx) -> u64 {
        self.off as u64
    }
    /// Offset and tie key, packed (the offset takes the bits of the round's length): many
    /// events at one picosecond (an incast's arrivals) compute each key once and sort as
    /// fast as any.
    #[inline(always)]
    fn lead(&self, cx: RoundCx) -> u64 {
        (self.off as u64) << 32 | tie_key(cx.ties, cx.base + self.off as u64, &self.ev) as u64
    }
    #[inline(always)]
    fn later(&self, b: &Self, cx: RoundCx) -> bool {
        if self.off != b.off {
            return self.off > b.off;
        }
        let t = cx.base + self.off as u64;
        (tie_key(cx.ties, t, &self.ev), self.ev.ident()) > (tie_key(cx.ties, t, &b.ev), b.ev.ident())
    }
}

pub(super) struct Rounds {
    /// Round length in ps: round r is [r·len, (r+1)·len).
    len: u64,
    /// ⌊2^64 / len⌋: the round of a time by a multiplication (`round_of`).
    inv: u64,
    /// The round served last (or being served): rounds before it hold nothing.
    cur: u64,
    /// Unsorted events of rounds cur .. cur + ring.len(), round r at r & mask. Events due
    /// later wait in `far`.
    ring: Vec<Vec<Due>>,
    /// The earliest time in each ring bucket (`u64::MAX`: empty).
    mins: Vec<u64>,
    mask: u64,
    far: RadixHeap,
    /// Events in the ring.
    in_ring: usize,
    owners: Owners,
    /// Seed of the tie keys (`tie_key`).
    ties: u64,
    serving: Serving,
    keys: Vec<u64>,
    spare: Vec<Due>,
}

/// The round being served.
#[derive(Default)]
struct Serving {
    active: bool,
    /// Its first picosecond, from which its events' offsets count.
    base: u64,
    /// Its last picosecond: an event due by then is the scheduling node's own (`local`).
    end: u64,
    /// Its events grouped by node, in node order, each group in serving order.
    entries: Vec<Due>,
    /// End of each non-empty group in `entries`.
    groups: Vec<u32>,
    group: usize,
    pos: usize,
    /// Events the node being served scheduled for itself within the round, latest first.
    local: Vec<Due>,
    /// Scratch: the round's events as taken out.
    taken: Vec<Due>,
    counts: Vec<u32>,
}

impl Rounds {
    /// Rounds of `len` ps (at most `MAX_LEN`: longer ones are cut to it) from time `now`
    /// on, for the nodes `owners` names, whose events are scheduled at most about
    /// `horizon` ps ahead (longer waits go to the far heap); `ties` seeds the tie keys.
    pub(super) fn new(len: u64, owners: Owners, horizon: u64, now: u64, ties: u64) -> Self {
        assert!(len > 0, "rounds need a positive length");
        let len = len.min(MAX_LEN);
        let n = ((horizon / len + 2).clamp(2, 4096) as usize).next_power_of_two();
        let mut rounds = Rounds {
            len,
            inv: if len == 1 { u64::MAX } else { ((1u128 << 64) / len as u128) as u64 },
            cur: 0,
            ring: (0..n).map(|_| Vec::new()).collect(),
            mins: vec![u64::MAX; n],
            mask: n as u64 - 1,
            far: RadixHeap::new(),
            in_ring: 0,
            owners,
            ties,
            serving: Serving::default(),
            keys: Vec::new(),
            spare: Vec::new(),
        };
        rounds.cur = rounds.round_of(now);
        rounds
    }

    pub(super) fn round_len(&self) -> u64 {
        self.len
    }

    /// The round time `t` falls in.
    #[inline(always)]
    fn round_of(&self, t: u64) -> u64 {
        // ⌊t·inv / 2^64⌋ is ⌊t / len⌋ or one less.
        let r = ((t as u128 * self.inv as u128) >> 64) as u64;
        if self.round_end(r) < t {
            r + 1
        } else {
            r
        }
    }

    /// The last picosecond of round `r`.
    #[inline(always)]
    fn round_end(&self, r: u64) -> u64 {
        (r + 1).saturating_mul(self.len) - 1
    }

    pub(super) fn len(&self) -> usize {
        let s = &self.serving;
        self.in_ring + self.far.len() + (s.entries.len() - s.pos) + s.local.len()
    }

    #[inline(always)]
    pub(super) fn put(&mut self, time: u64, ev: Event) {
        let s = &mut self.serving;
        if s.active && time <= s.end {
            // Only the node being served schedules into its own round.
            // Rarely more than one or two events: moved into place one step at a time
            // (an insert's out-of-line memmove cost more).
            let last = s.local.len();
            s.local.push(Due { off: (time - s.base) as u32, ev });
            sink(&mut s.local, last, true, RoundCx { base: s.base, ties: self.ties });
            return;
        }
        let r = self.round_of(time);
        debug_assert!(r >= self.cur, "an event scheduled into a past round");
        if r - self.cur <= self.mask {
            let i = (r & self.mask) as usize;
            let list = &mut self.ring[i];
            crate::prefetch::prefetch_write(list.as_ptr().wrapping_add(list.len() + AHEAD));
            list.push(Due { off: (time - r * self.len) as u32, ev });
            self.mins[i] = self.mins[i].min(time);
            self.in_ring += 1;
        } else {
            self.far.push(Entry { time, key: tie_key(self.ties, time, &ev), ev });
        }
    }

    /// The time of the next event, if any (between rounds).
    pub(super) fn next_time(&mut self) -> Option<u64> {
        let far = self.far.min().unwrap_or(u64::MAX);
        let mut t = u64::MAX;
        if self.in_ring > 0 {
            for k in 0..=self.mask {
                let m = self.mins[((self.cur + k) & self.mask) as usize];
                if m != u64::MAX {
                    t = m;
                    break;
                }
            }
        }
        let t = t.min(far);
        (t != u64::MAX).then_some(t)
    }

    /// Starts serving the round of `t0` (the next event's time, `next_time`) up to `limit`
    /// at most: takes out its events and groups them by node.
    pub(super) fn begin(&mut self, t0: u64, limit: u64) {
        debug_assert!(!self.serving.active && self.serving.local.is_empty());
        let r = self.round_of(t0);
        debug_assert!(r >= self.cur);
        self.cur = r;
        let whole = self.round_end(r) <= limit;
        let base = r * self.len;
        let end = self.round_end(r).min(limit);
        let s = &mut self.serving;
        s.taken.clear();
        let i = (r & self.mask) as usize;
        let bucket = &mut self.ring[i];
        if whole {
            std::mem::swap(bucket, &mut s.taken);
            self.mins[i] = u64::MAX;
        } else {
            // A round cut short (the run's stop, a sample): the rest stays for later.
            let last = (end - base) as u32;
            s.taken.extend(bucket.iter().filter(|e| e.off <= last));
            bucket.retain(|e| e.off > last);
            self.mins[i] = bucket.iter().map(|e| base + e.off as u64).min().unwrap_or(u64::MAX);
        }
        self.in_ring -= s.taken.len();
        while self.far.min().is_some_and(|t| t <= end) {
            let e = self.far.pop_min().expect("far heap holds the minimum just seen");
            s.taken.push(Due { off: (e.time - base) as u32, ev: e.ev });
        }
        self.group(base);
        let s = &mut self.serving;
        s.active = true;
        s.base = base;
        s.end = end;
        s.group = 0;
        s.pos = 0;
    }

    /// Puts the events taken out into `entries`, grouped by node in node order, each
    /// group sorted into serving order; `base` is the round's start.
    fn group(&mut self, base: u64) {
        let s = &mut self.serving;
        let n = s.taken.len();
        s.entries.clear();
        s.groups.clear();
        if n == 0 {
            return;
        }
        let (owners, nodes) = (&self.owners, self.owners.nodes());
        if n * 8 < nodes {
            // Few events for many nodes (short rounds): sorting them by node costs less
            // than counting over every node.
            self.keys.clear();
            self.keys.extend(s.taken.iter().enumerate().map(|(k, e)| (owners.of(&e.ev) as u64) << 32 | k as u64));
            self.keys.sort_unstable();
            s.entries.extend(self.keys.iter().map(|&k| s.taken[k as u32 as usize]));
            for (k, w) in self.keys.windows(2).enumerate() {
                if w[0] >> 32 != w[1] >> 32 {
                    s.groups.push(k as u32 + 1);
                }
            }
            s.groups.push(n as u32);
        } else {
            // A counting sort by node: stable, two passes, each looking the node up (a
            // list of the nodes would be more to write and read back).
            s.counts.clear();
            s.counts.resize(nodes + 1, 0);
            for e in &s.taken {
                s.counts[owners.of(&e.ev) as usize + 1] += 1;
            }
            for k in 1..=nodes {
                if s.counts[k] != 0 {
                    s.groups.push(s.counts[k - 1] + s.counts[k]);
                }
                s.counts[k] += s.counts[k - 1];
            }
            s.entries.resize(n, s.taken[0]);
            for e in &s.taken {
                let at = &mut s.counts[owners.of(&e.ev) as usize];
                s.entries[*at as usize] = *e;
                *at += 1;
            }
        }
        let cx = RoundCx { base, ties: self.ties };
        let time_bits = 64 - (self.len - 1).leading_zeros();
        let mut start = 0;
        for &g in &s.groups {
            sort_events(&mut s.entries[start..g as usize], cx, time_bits, false, &mut self.keys, &mut self.spare);
            start = g as usize;
        }
    }

    /// The next event of the round, node by node, and its time; `None` when the round is
    /// over.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u64, Event)> {
        let s = &mut self.serving;
        loop {
            let Some(&end) = s.groups.get(s.group) else {
                debug_assert!(s.local.is_empty());
                s.active = false;
                return None;
            };
            if s.pos < end as usize {
                let a = s.entries[s.pos];
                if let Some(b) = s.local.last() {
                    if a.later(b, RoundCx { base: s.base, ties: self.ties }) {
                        let b = s.local.pop().expect("just seen");
                        return Some((s.base + b.off as u64, b.ev));
                    }
                }
                s.pos += 1;
                return Some((s.base + a.off as u64, a.ev));
            }
            if let Some(b) = s.local.pop() {
                return Some((s.base + b.off as u64, b.ev));
            }
            s.group += 1;
        }
    }

    /// The event `k` places after the next one taken out of the round (for prefetching).
    #[inline]
    pub(super) fn ahead(&self, k: usize) -> Option<Event> {
        let s = &self.serving;
        s.entries.get(s.pos + k).map(|e| e.ev)
    }

    /// Keeps only the events `keep` accepts (between rounds).
    pub(super) fn retain(&mut self, keep: &impl Fn(&Event) -> bool) {
        debug_assert!(!self.serving.active);
        self.in_ring = 0;
        for i in 0..self.ring.len() {
            let base = self.bucket_round(i) * self.len;
            let v = &mut self.ring[i];
            v.retain(|e| keep(&e.ev));
            self.in_ring += v.len();
            self.mins[i] = v.iter().map(|e| base + e.off as u64).min().unwrap_or(u64::MAX);
        }
        self.far.retain(keep);
    }

    /// Takes every event out, in no particular order (between rounds).
    pub(super) fn drain(&mut self, out: &mut Vec<Entry>) {
        debug_assert!(!self.serving.active);
        for i in 0..self.ring.len() {
            let base = self.bucket_round(i) * self.len;
            let ties = self.ties;
            out.extend(self.ring[i].drain(..).map(|e| {
                let time = base + e.off as u64;
                Entry { time, key: tie_key(ties, time, &e.ev), ev: e.ev }
            }));
            self.mins[i] = u64::MAX;
        }
        self.in_ring = 0;
        self.far.drain(out);
    }

    /// The round ring bucket `i` holds: the one of cur ..= cur + mask at `i`.
    fn bucket_round(&self, i: usize) -> u64 {
        self.cur + ((i as u64).wrapping_sub(self.cur) & self.mask)
    }
}
