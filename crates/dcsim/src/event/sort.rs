//! Sorting events into the order they are served in: time, tie key, then the event.

use std::cmp::Ordering;

use super::Entry;

/// Runs up to this size are sorted by insertion (nearly all: a few events each).
const INSERTION_SORT: usize = 24;

/// The order events are served in: time, tie key, then the event itself.
#[inline]
pub(super) fn order(a: &Entry, b: &Entry) -> Ordering {
    (a.time, a.key).cmp(&(b.time, b.key)).then_with(|| a.ev.ident().cmp(&b.ev.ident()))
}

/// What the sorts need of an entry: the number that orders it first, and the full order
/// for entries that number leaves tied.
pub(super) trait Sorted: Copy {
    /// What ordering needs besides the entries themselves.
    type Cx: Copy;
    /// The tie key is computed when asked for (a hash), not stored: a crowded run is
    /// first sorted by time alone, and by `lead` only if two of its events share a
    /// picosecond.
    const TIES_HASHED: bool;
    /// The entry's time from the start of its run's span, below `2^time_bits`.
    fn at(&self, cx: Self::Cx) -> u64;
    /// The leading sort number, below `2^(time_bits + 32)`: the time and the tie key.
    fn lead(&self, cx: Self::Cx) -> u64;
    /// Served after `b`.
    fn later(&self, b: &Self, cx: Self::Cx) -> bool;
}

/// A time-major store's entries, the context being the start of their span: led by
/// time and tie key, packed.
impl Sorted for Entry {
    type Cx = u64;
    const TIES_HASHED: bool = false;
    #[inline(always)]
    fn at(&self, base: u64) -> u64 {
        self.time - base
    }
    #[inline(always)]
    fn lead(&self, base: u64) -> u64 {
        (self.time - base) << 32 | self.key as u64
    }
    #[inline(always)]
    fn later(&self, b: &Self, _: u64) -> bool {
        order(self, b).is_gt()
    }
}

/// Sorts entries into serving order, earliest first, or latest first if `latest_first`
/// (a store that serves from the end); their times from the span's start take
/// `time_bits`. `keys` and `spare` are scratch space.
#[inline]
pub(super) fn sort_events<T: Sorted>(v: &mut [T], cx: T::Cx, time_bits: u32, latest_first: bool, keys: &mut Vec<u64>, spare: &mut Vec<T>) {
    let n = v.len();
    if n > INSERTION_SORT {
        let idx_bits = index_bits(n);
        if T::TIES_HASHED && time_bits + idx_bits <= 64 {
            return by_time(v, cx, time_bits, idx_bits, latest_first, keys, spare);
        }
        if lead_fits(time_bits, idx_bits) && packed(v, cx, idx_bits, latest_first, keys, spare) {
            return;
        }
        if latest_first {
            v.sort_unstable_by(|a, b| compare(b, a, cx));
        } else {
            v.sort_unstable_by(|a, b| compare(a, b, cx));
        }
        return;
    }
    // Events are mostly filled in time order (each kind of event is scheduled a fixed
    // time ahead of the event that schedules it), so latest first the reversed run is
    // nearly sorted and the insertion sort moves little.
    if latest_first {
        v.reverse();
    }
    for k in 1..n {
        sink(v, k, latest_first, cx);
    }
}

/// The full order as an `Ordering`, for the comparison sorts.
#[inline]
fn compare<T: Sorted>(a: &T, b: &T, cx: T::Cx) -> Ordering {
    if a.later(b, cx) {
        Ordering::Greater
    } else if b.later(a, cx) {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// The bits an index into a run of `n` (at least 2) entries takes.
#[inline]
fn index_bits(n: usize) -> u32 {
    usize::BITS - (n - 1).leading_zeros()
}

/// Whether a leading number (`time_bits` of time and a 32-bit tie key) packs with an
/// index of `idx_bits` into one `u64`.
#[inline]
fn lead_fits(time_bits: u32, idx_bits: u32) -> bool {
    time_bits + 32 + idx_bits <= 64
}

/// Runs of events due at one picosecond up to this size are put in order by insertion.
const INSERTION_TIES: usize = 8;

/// Fills `keys` with each entry's `number` packed with its index (`idx_bits` wide) and
/// sorts them: a crowded run sorts 8-byte numbers and then moves each entry once. True
/// if two entries share a number (then their order is for the caller to settle).
#[inline]
fn sort_keys<T>(keys: &mut Vec<u64>, v: &[T], idx_bits: u32, number: impl Fn(&T) -> u64) -> bool {
    keys.clear();
    keys.extend(v.iter().enumerate().map(|(k, e)| number(e) << idx_bits | k as u64));
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] >> idx_bits == w[1] >> idx_bits)
}

/// Sorts a crowded run whose tie keys are hashed on demand: by time alone, then each set
/// of events due at one picosecond by tie key, so that only tied events compute theirs.
fn by_time<T: Sorted>(v: &mut [T], cx: T::Cx, time_bits: u32, idx_bits: u32, latest_first: bool, keys: &mut Vec<u64>, spare: &mut Vec<T>) {
    let tied = sort_keys(keys, v, idx_bits, |e| e.at(cx));
    gather(v, keys, idx_bits, false, spare);
    if tied {
        let (n, mut i) = (v.len(), 0);
        while i < n {
            let t = spare[i].at(cx);
            let j = i + 1 + spare[i + 1..].iter().take_while(|e| e.at(cx) == t).count();
            if j - i > 1 {
                order_ties(&mut spare[i..j], &mut v[i..j], cx, time_bits, keys);
            }
            i = j;
        }
    }
    if latest_first {
        spare.reverse();
    }
    v.copy_from_slice(spare);
}

/// Puts events due at one picosecond in order: by insertion if few, else by their
/// packed (time, tie key) numbers, moved through `tmp`.
fn order_ties<T: Sorted>(run: &mut [T], tmp: &mut [T], cx: T::Cx, time_bits: u32, keys: &mut Vec<u64>) {
    let m = run.len();
    if m <= INSERTION_TIES {
        for k in 1..m {
            sink(run, k, false, cx);
        }
        return;
    }
    let idx_bits = index_bits(m);
    if lead_fits(time_bits, idx_bits) && !sort_keys(keys, run, idx_bits, |e| e.lead(cx)) {
        let mask = (1u64 << idx_bits) - 1;
        for (o, &k) in tmp.iter_mut().zip(keys.iter()) {
            *o = run[(k & mask) as usize];
        }
        run.copy_from_slice(tmp);
        return;
    }
    run.sort_unstable_by(|a, b| compare(a, b, cx));
}

/// Sorts a crowded run by its packed (time, tie key) numbers, unless two entries share
/// one (a collision at one picosecond): then it leaves the run as it was and says so.
#[inline]
fn packed<T: Sorted>(v: &mut [T], cx: T::Cx, idx_bits: u32, latest_first: bool, keys: &mut Vec<u64>, spare: &mut Vec<T>) -> bool {
    if sort_keys(keys, v, idx_bits, |e| e.lead(cx)) {
        return false;
    }
    gather(v, keys, idx_bits, latest_first, spare);
    v.copy_from_slice(spare);
    true
}

/// Puts into `spare` the entries of `v` in the order of the sorted `keys` (`sort_keys`),
/// or in reverse if `latest_first`.
#[inline]
fn gather<T: Copy>(v: &[T], keys: &[u64], idx_bits: u32, latest_first: bool, spare: &mut Vec<T>) {
    let mask = (1u64 << idx_bits) - 1;
    spare.clear();
    if latest_first {
        spare.extend(keys.iter().rev().map(|&k| v[(k & mask) as usize]));
    } else {
        spare.extend(keys.iter().map(|&k| v[(k & mask) as usize]));
    }
}

/// Moves `v[k]` into place among `v[..k]`, which is in serving order (latest first if
/// `latest_first`): one step of an insertion sort.
#[inline(always)]
pub(super) fn sink<T: Sorted>(v: &mut [T], k: usize, latest_first: bool, cx: T::Cx) {
    let e = v[k];
    let mut j = k;
    while j > 0 && e.later(&v[j - 1], cx) == latest_first {
        v[j] = v[j - 1];
        j -= 1;
    }
    v[j] = e;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::ids::{FlowId, PortId};
    use crate::rng::Rng;

    /// Crowded and small runs, either way round, come out in the full order, also when
    /// two events share time and tie key (then the event decides).
    #[test]
    fn sorts_into_the_full_order_either_way_with_tie_key_collisions() {
        let mut rng = Rng::stream(3, "packed");
        let (base, shift) = (7u64 << 10, 10);
        for n in [5usize, 24, 60] {
            let mut v: Vec<Entry> = (0..n as u32)
                .map(|k| Entry { time: base + rng.below(1 << shift), key: rng.below(4) as u32, ev: Event::TxDone(PortId(k)) })
                .collect();
            v[1].time = v[0].time;
            v[1].key = v[0].key;
            let ids = |v: &[Entry]| v.iter().map(|e| e.ev.ident()).collect::<Vec<_>>();
            for latest_first in [false, true] {
                let mut want = v.clone();
                want.sort_by(|a, b| if latest_first { order(b, a) } else { order(a, b) });
                let mut got = v.clone();
                sort_events(&mut got, base, shift, latest_first, &mut Vec::new(), &mut Vec::new());
                assert_eq!(ids(&got), ids(&want), "n {n}, latest first {latest_first}");
            }
        }
        // Without collisions the packed numbers alone decide.
        let u: Vec<Entry> =
            (0..60u32).map(|k| Entry { time: base + (k as u64 * 37) % 1024, key: k, ev: Event::FlowStart(FlowId(k)) }).collect();
        for latest_first in [false, true] {
            let mut want = u.clone();
            want.sort_by(|a, b| if latest_first { order(b, a) } else { order(a, b) });
            let mut got = u.clone();
            sort_events(&mut got, base, shift, latest_first, &mut Vec::new(), &mut Vec::new());
            assert!(got.iter().zip(&want).all(|(a, b)| a.ev == b.ev));
        }
    }

    /// Entries whose tie keys count as hashed on demand (as a round's are): crowded runs
    /// take the time-first path.
    #[derive(Copy, Clone)]
    struct Hashed(Entry);
    impl Sorted for Hashed {
        type Cx = u64;
        const TIES_HASHED: bool = true;
        fn at(&self, base: u64) -> u64 {
            self.0.at(base)
        }
        fn lead(&self, base: u64) -> u64 {
            self.0.lead(base)
        }
        fn later(&self, b: &Self, base: u64) -> bool {
            self.0.later(&b.0, base)
        }
    }

    /// Time first, then each set of events at one picosecond by tie key: sets of 2, of a
    /// few (insertion), of many (packed keys) and of many with two equal keys (the
    /// comparison sort) all come out in the full order, either way round.
    #[test]
    fn hashed_ties_are_settled_among_the_tied_only() {
        let mut rng = Rng::stream(5, "ties");
        let (base, shift) = (3u64 << 12, 12);
        for (n, tied) in [(30usize, vec![2usize]), (60, vec![2, 5, 8]), (300, vec![9, 40, 3]), (120, vec![50])] {
            let mut v: Vec<Hashed> = (0..n as u32)
                .map(|k| Hashed(Entry { time: base + rng.below(1 << shift), key: rng.below(1 << 20) as u32, ev: Event::TxDone(PortId(k)) }))
                .collect();
            let mut at = 0;
            for (s, &m) in tied.iter().enumerate() {
                let t = base + 100 * s as u64 + 7;
                for e in &mut v[at..at + m] {
                    e.0.time = t;
                }
                at += m;
            }
            if n == 120 {
                v[1].0.key = v[0].0.key; // equal keys in a large tied set
            }
            rng.shuffle(&mut v);
            let ids = |v: &[Hashed]| v.iter().map(|e| e.0.ev.ident()).collect::<Vec<_>>();
            for latest_first in [false, true] {
                let mut want = v.clone();
                want.sort_by(|a, b| if latest_first { order(&b.0, &a.0) } else { order(&a.0, &b.0) });
                let mut got = v.clone();
                sort_events(&mut got, base, shift, latest_first, &mut Vec::new(), &mut Vec::new());
                assert_eq!(ids(&got), ids(&want), "n {n}, tied {tied:?}, latest first {latest_first}");
            }
        }
    }
}
