//! The time-major store: a timing wheel for the near future plus a radix heap for the rest,
//! served strictly in time order across the whole world.

use super::radix::RadixHeap;
use super::sort::{order, sort_events};
use super::{Entry, Event};

const WHEEL_SLOTS: usize = 2048;

/// The wheel has `WHEEL_SLOTS` slots of 2^shift ps, covering the window
/// [cur, cur + WHEEL_SLOTS) in slot units. Serialization ends and link arrivals, which are
/// nearly all events, land in it directly and are taken out once; an occupancy bitmap
/// finds the next non-empty slot. Timers beyond the window wait in the radix heap and move
/// into the wheel when the window reaches them. A slot is filled unsorted; when the
/// window reaches it, it is sorted once (latest first) and served from its end, so that
/// the many events of a slot due at the same picosecond (symmetric fabrics tie often)
/// cost one sort, not one scan each.
pub(super) struct Wheel {
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
    /// Wheel slot (absolute) of the earliest far timer, `u64::MAX` if none: the window's
    /// move tests it instead of the heap.
    far_due: u64,
    /// Buffers of slots served to the end, still in cache: the next slot to be filled
    /// takes the last one, so that scheduling writes to cached lines (a slot's own buffer
    /// was last used a wheel turn ago, long evicted on a large fabric).
    free: Vec<Vec<Entry>>,
    /// Scratch space of the slot sort.
    keys: Vec<u64>,
    spare: Vec<Entry>,
}

impl Wheel {
    /// A wheel spanning at least `horizon` ps.
    pub(super) fn new(horizon: u64) -> Self {
        let per_slot = (horizon / WHEEL_SLOTS as u64).max(1);
        let shift = (64 - (per_slot - 1).leading_zeros()).max(6);
        Wheel {
            wheel: (0..WHEEL_SLOTS).map(|_| Vec::new()).collect(),
            bits: [0; WHEEL_SLOTS / 64],
            sorted: [0; WHEEL_SLOTS / 64],
            shift,
            cur: 0,
            near: 0,
            far: RadixHeap::new(),
            far_due: u64::MAX,
            free: Vec::new(),
            keys: Vec::new(),
            spare: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.near + self.far.len()
    }

    #[inline(always)]
    pub(super) fn put(&mut self, e: Entry) {
        if (e.time >> self.shift) < self.cur + WHEEL_SLOTS as u64 {
            self.put_near(e);
        } else {
            self.far_due = self.far_due.min(e.time >> self.shift);
            self.far.push(e);
        }
    }

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
            self.put_near(e);
        }
        self.far_due = self.far.min().map_or(u64::MAX, |t| t >> self.shift);
    }

    /// Removes the next event if it is due no later than `limit`.
    #[inline]
    pub(super) fn take_until(&mut self, limit: u64) -> Option<Entry> {
        // Nearly every event comes from the slot being served: sorted, at the window's
        // start, served from its end (a sorted slot is never empty).
        let i = self.cur as usize & (WHEEL_SLOTS - 1);
        let bit = 1u64 << (i % 64);
        if self.sorted[i / 64] & bit != 0 {
            if self.wheel[i].last().expect("a sorted slot holds an event").time > limit {
                return None;
            }
            return Some(self.take_last(i));
        }
        self.take_from_next_slot(limit)
    }

    /// Takes the last event of wheel slot `i` (its earliest, the slot sorted); a slot
    /// left empty gives its buffer to the next slot to be filled.
    #[inline(always)]
    fn take_last(&mut self, i: usize) -> Entry {
        let v = &mut self.wheel[i];
        let e = v.pop().expect("an occupied slot holds an event");
        if v.is_empty() {
            let bit = 1u64 << (i % 64);
            self.bits[i / 64] &= !bit;
            self.sorted[i / 64] &= !bit;
            self.free.push(std::mem::take(v));
        }
        self.near -= 1;
        e
    }

    /// `take_until` when the slot being served has nothing left: the next slot in the
    /// window (or the far timers'), sorted once.
    #[inline(never)]
    fn take_from_next_slot(&mut self, limit: u64) -> Option<Entry> {
        let slot = match self.next_slot() {
            Some(s) => s,
            None => {
                let t = self.far.min()?;
                if t > limit {
                    return None;
                }
                self.advance(t >> self.shift);
                self.next_slot().unwrap()
            }
        };
        let i = slot as usize & (WHEEL_SLOTS - 1);
        let bit = 1u64 << (i % 64);
        if self.sorted[i / 64] & bit == 0 && self.wheel[i].len() > 1 {
            sort_events(&mut self.wheel[i], slot << self.shift, self.shift, true, &mut self.keys, &mut self.spare);
            self.sorted[i / 64] |= bit;
        }
        if self.wheel[i].last().expect("an occupied slot holds an event").time > limit {
            return None;
        }
        // Timers pulled in by the move land in later slots than this one (every far
        // timer is at least a window past `cur`), so the slot's last stays its minimum.
        if slot != self.cur {
            self.advance(slot);
        }
        Some(self.take_last(i))
    }

    /// The event `k` places after the next one in the slot being served (`k = 0`: the
    /// next), for prefetching ahead; `None` past the slot's end or before it is sorted.
    #[inline]
    pub(super) fn ahead(&self, k: usize) -> Option<Event> {
        let i = self.cur as usize & (WHEEL_SLOTS - 1);
        if self.sorted[i / 64] & (1 << (i % 64)) == 0 {
            return None;
        }
        let v = &self.wheel[i];
        v.len().checked_sub(1 + k).map(|j| v[j].ev)
    }

    /// The time of the next event, if any.
    pub(super) fn next_time(&mut self) -> Option<u64> {
        match self.next_slot() {
            // Every far timer is a window past the near ones.
            Some(slot) => self.wheel[slot as usize & (WHEEL_SLOTS - 1)].iter().map(|e| e.time).min(),
            None => self.far.min(),
        }
    }

    /// Keeps only the events `keep` accepts.
    pub(super) fn retain(&mut self, keep: &impl Fn(&Event) -> bool) {
        self.near = 0;
        for (i, v) in self.wheel.iter_mut().enumerate() {
            v.retain(|e| keep(&e.ev));
            self.near += v.len();
            if v.is_empty() {
                self.bits[i / 64] &= !(1 << (i % 64));
                self.sorted[i / 64] &= !(1 << (i % 64));
            }
        }
        self.far.retain(keep);
        self.far_due = self.far.min().map_or(u64::MAX, |t| t >> self.shift);
    }

    /// Takes every event out, in no particular order.
    pub(super) fn drain(&mut self, out: &mut Vec<Entry>) {
        for v in &mut self.wheel {
            out.append(v);
        }
        self.bits = [0; WHEEL_SLOTS / 64];
        self.sorted = [0; WHEEL_SLOTS / 64];
        self.near = 0;
        self.far.drain(out);
        self.far_due = u64::MAX;
    }
}
