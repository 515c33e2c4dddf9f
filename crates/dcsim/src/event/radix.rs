//! The far future: timers beyond the near store's window, in a radix heap.

use super::Entry;

/// Entries a bucket keeps room for once emptied (as it is when its entries move down to
/// lower buckets) or thinned: a run's flow starts, all scheduled at build (374,302 in
/// 100 ms of the scale benchmark), pass through the buckets once and would leave each
/// holding room for the most it ever held; the timers that cycle through them are fewer.
const KEPT: usize = 1024;

/// Monotone priority queue over times (a radix heap, Ahuja et al. 1990): an entry sits in
/// the bucket of the highest bit in which its time differs from the last time taken out.
/// Used for far-future events only (timers), so its few moves per entry are rare work.
pub(super) struct RadixHeap {
    buckets: Vec<Vec<Entry>>,
    occupied: u128,
    len: usize,
    last: u64,
    /// The smallest time held (u64::MAX when empty), valid unless `stale`: kept on push,
    /// recomputed after a removal, so a peek costs nothing when nothing left.
    min_cache: u64,
    stale: bool,
}

impl RadixHeap {
    pub(super) fn new() -> Self {
        RadixHeap { buckets: (0..65).map(|_| Vec::new()).collect(), occupied: 0, len: 0, last: 0, min_cache: u64::MAX, stale: false }
    }

    #[inline]
    pub(super) fn push(&mut self, e: Entry) {
        if !self.stale {
            self.min_cache = self.min_cache.min(e.time);
        }
        self.len += 1;
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
    pub(super) fn min(&mut self) -> Option<u64> {
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
    pub(super) fn pop_min(&mut self) -> Option<Entry> {
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
            v.shrink_to(KEPT);
            self.buckets[b] = v;
        }
        let e = self.buckets[0].pop().unwrap();
        if self.buckets[0].is_empty() {
            self.occupied &= !1;
        }
        self.stale = true;
        self.len -= 1;
        Some(e)
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Keeps only the entries whose event `keep` accepts.
    pub(super) fn retain(&mut self, keep: &impl Fn(&super::Event) -> bool) {
        self.len = 0;
        for (b, v) in self.buckets.iter_mut().enumerate() {
            v.retain(|e| keep(&e.ev));
            v.shrink_to(KEPT.max(v.len()));
            self.len += v.len();
            if v.is_empty() {
                self.occupied &= !(1 << b);
            }
        }
        self.stale = true;
    }

    /// Takes every entry out, in no particular order.
    pub(super) fn drain(&mut self, out: &mut Vec<Entry>) {
        for v in &mut self.buckets {
            out.append(v);
        }
        self.occupied = 0;
        self.len = 0;
        self.stale = true;
    }
}
