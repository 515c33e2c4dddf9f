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

/// `a` is served after `b`.
#[inline(always)]
pub(super) fn later(a: &Entry, b: &Entry) -> bool {
    if a.time != b.time {
        return a.time > b.time;
    }
    if a.key != b.key {
        return a.key > b.key;
    }
    a.ev.ident() > b.ev.ident()
}

/// Sorts events due in [base, base + 2^span_bits) into serving order, earliest first, or
/// latest first if `latest_first` (a store that serves from the end). `keys` and `spare`
/// are scratch space.
#[inline]
pub(super) fn sort_events(v: &mut [Entry], base: u64, span_bits: u32, latest_first: bool, keys: &mut Vec<u64>, spare: &mut Vec<Entry>) {
    let n = v.len();
    if n > INSERTION_SORT {
        let idx_bits = usize::BITS - (n - 1).leading_zeros();
        if span_bits + 32 + idx_bits <= 64 {
            // (time, tie key, index) as one number: a crowded run sorts 8-byte numbers
            // and moves each entry once. Equal (time, tie key) pairs (a collision at one
            // picosecond) need the event itself to decide.
            keys.clear();
            keys.extend(v.iter().enumerate().map(|(k, e)| ((e.time - base) << 32 | e.key as u64) << idx_bits | k as u64));
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
        if latest_first {
            v.sort_unstable_by(|a, b| order(b, a));
        } else {
            v.sort_unstable_by(order);
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
        sink(v, k, latest_first);
    }
}

/// Moves `v[k]` into place among `v[..k]`, which is in serving order (latest first if
/// `latest_first`): one step of an insertion sort.
#[inline(always)]
pub(super) fn sink(v: &mut [Entry], k: usize, latest_first: bool) {
    let e = v[k];
    let mut j = k;
    while j > 0 && later(&e, &v[j - 1]) == latest_first {
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
        let u: Vec<Entry> = (0..60u32).map(|k| Entry { time: base + (k as u64 * 37) % 1024, key: k, ev: Event::FlowStart(FlowId(k)) }).collect();
        for latest_first in [false, true] {
            let mut want = u.clone();
            want.sort_by(|a, b| if latest_first { order(b, a) } else { order(a, b) });
            let mut got = u.clone();
            sort_events(&mut got, base, shift, latest_first, &mut Vec::new(), &mut Vec::new());
            assert!(got.iter().zip(&want).all(|(a, b)| a.ev == b.ev));
        }
    }
}
