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
    /// The leading sort number, below `2^lead_bits`.
    fn lead(&self, cx: Self::Cx) -> u64;
    /// Served after `b`.
    fn later(&self, b: &Self, cx: Self::Cx) -> bool;
}

/// A time-major store's entries, the context being the start of their span: led by
/// time and tie key, packed.
impl Sorted for Entry {
    type Cx = u64;
    #[inline(always)]
    fn lead(&self, base: u64) -> u64 { (self.time - base) << 32 | self.key as u64 }
    #[inline(always)]
    fn later(&self, b: &Self, _: u64) -> bool { order(self, b).is_gt() }
}

/// Sorts entries into serving order, earliest first, or latest first if `latest_first`
/// (a store that serves from the end); their leading numbers take `lead_bits`. `keys`
/// and `spare` are scratch space.
#[inline]
pub(super) fn sort_events<T: Sorted>(v: &mut [T], cx: T::Cx, lead_bits: u32, latest_first: bool, keys: &mut Vec<u64>, spare: &mut Vec<T>) {
    let n = v.len();
    if n > INSERTION_SORT {
        let idx_bits = usize::BITS - (n - 1).leading_zeros();
        if lead_bits + idx_bits <= 64 {
            // (leading number, index) as one number: a crowded run sorts 8-byte numbers
            // and moves each entry once. Equal leading numbers (a collision at one
            // picosecond) need the full order to decide.
            keys.clear();
            keys.extend(v.iter().enumerate().map(|(k, e)| e.lead(cx) << idx_bits | k as u64));
            keys.sort_unstable();
            if keys.windows(2).all(|w| w[0] >> idx_bits != w[1] >> idx_bits) {
                let mask = (1u64 << idx_bits) - 1;
                spare.clear();
                if latest_first {
                    spare.extend(keys.iter().rev().map(|&k| v[(k & mask) as usize]));
                } else {
                    spare.extend(keys.iter().map(|&k| v[(k & mask) as usize]));
                }
                v.copy_from_slice(spare);
                return;
            }
        }
        let cmp = |a: &T, b: &T| {
            if a.later(b, cx) {
                Ordering::Greater
            } else if b.later(a, cx) {
                Ordering::Less
            } else {
                Ordering::Equal
            }
        };
        if latest_first {
            v.sort_unstable_by(|a, b| cmp(b, a));
        } else {
            v.sort_unstable_by(cmp);
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
                sort_events(&mut got, base, shift + 32, latest_first, &mut Vec::new(), &mut Vec::new());
                assert_eq!(ids(&got), ids(&want), "n {n}, latest first {latest_first}");
            }
        }
        // Without collisions the packed numbers alone decide.
        let u: Vec<Entry> = (0..60u32).map(|k| Entry { time: base + (k as u64 * 37) % 1024, key: k, ev: Event::FlowStart(FlowId(k)) }).collect();
        for latest_first in [false, true] {
            let mut want = u.clone();
            want.sort_by(|a, b| if latest_first { order(b, a) } else { order(a, b) });
            let mut got = u.clone();
            sort_events(&mut got, base, shift + 32, latest_first, &mut Vec::new(), &mut Vec::new());
            assert!(got.iter().zip(&want).all(|(a, b)| a.ev == b.ev));
        }
    }
}
