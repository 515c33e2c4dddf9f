//! Per-flow working state held only while a flow runs: a record is created in a slot
//! when the flow starts and its slot is reused by a later flow when it finishes, so that
//! the memory follows the flows under way, not every flow of the run. Indexed by flow
//! id like a `Vec` (a flow's slot is one more load); a partition of a parallel run
//! creates the records of its own hosts' flows only. Room for every flow is reserved at
//! build: address space only (pages are touched as slots are used), so that a run never
//! reallocates a table and a process too small for the run fails at build with an
//! error instead of aborting later.

use std::ops::{Index, IndexMut};

/// `FlowSlots::slot` of a flow with no record yet (not started here).
const NOT_STARTED: u32 = u32::MAX;
/// `FlowSlots::slot` of a flow whose record was retired (finished; its slot reused).
const RETIRED: u32 = u32::MAX - 1;

pub(crate) struct FlowSlots<T> {
    /// Per flow: the slot of its record, `NOT_STARTED` or `RETIRED`.
    slot: Vec<u32>,
    items: Vec<T>,
    /// Slots of retired records, reused last in, first out.
    free: Vec<u32>,
}

impl<T> FlowSlots<T> {
    pub fn new(flows: usize, what: &str) -> crate::error::Result<Self> {
        let mut slot = crate::error::try_vec(flows, what)?;
        slot.resize(flows, NOT_STARTED);
        Ok(FlowSlots { slot, items: crate::error::try_vec(flows, what)?, free: Vec::new() })
    }

    /// Whether flow `f` has a record.
    #[inline]
    pub fn has(&self, f: usize) -> bool {
        self.slot[f] < RETIRED
    }

    /// Whether flow `f` had a record that was retired.
    #[inline]
    pub fn retired(&self, f: usize) -> bool {
        self.slot[f] == RETIRED
    }

    #[inline]
    pub fn get(&self, f: usize) -> Option<&T> {
        self.slot.get(f).and_then(|&s| self.items.get(s as usize))
    }

    #[inline]
    pub fn get_mut(&mut self, f: usize) -> Option<&mut T> {
        self.slot.get(f).and_then(|&s| self.items.get_mut(s as usize))
    }

    /// The slot of flow `f`'s record, made by `make` if it has none: a handler that
    /// reaches the record several times looks its slot up once (`at`, `at_mut`).
    #[inline]
    pub fn slot_or_insert_with(&mut self, f: usize, make: impl FnOnce() -> T) -> usize {
        if self.slot[f] >= RETIRED {
            self.insert(f, make());
        }
        self.slot[f] as usize
    }

    /// The record in slot `s` (from `slot_or_insert_with`, while no record is retired).
    #[inline]
    pub fn at(&self, s: usize) -> &T {
        &self.items[s]
    }
    #[inline]
    pub fn at_mut(&mut self, s: usize) -> &mut T {
        &mut self.items[s]
    }

    /// Creates flow `f`'s record (in a free slot if there is one).
    pub fn insert(&mut self, f: usize, v: T) {
        debug_assert!(!self.has(f), "flow {f} already has a record");
        match self.free.pop() {
            Some(s) => {
                self.items[s as usize] = v;
                self.slot[f] = s;
            }
            None => {
                self.slot[f] = self.items.len() as u32;
                self.items.push(v);
            }
        }
    }

    /// Retires flow `f`'s record: its slot is free for the next flow to start.
    pub fn retire(&mut self, f: usize) {
        debug_assert!(self.has(f));
        self.free.push(self.slot[f]);
        self.slot[f] = RETIRED;
    }

    /// A parallel run's merge: flow `f`'s record here takes the other partition's
    /// (records created at build, which every partition has). A record created at a
    /// flow's start exists in its owner's partition only; nothing reads it after the run.
    pub fn adopt(&mut self, o: &mut FlowSlots<T>, f: usize) {
        if self.has(f) && o.has(f) {
            std::mem::swap(&mut self[f], &mut o[f]);
        }
    }

    /// The number of flows (with a record or not).
    pub fn len(&self) -> usize {
        self.slot.len()
    }

    /// Hands every record to `each` with its flow, the last slot's first, giving the
    /// records' memory back as it goes: a parallel run's merge moves a partition's
    /// records into another's without holding both whole (100 ms of k = 16: 28 MiB).
    pub fn drain(self, mut each: impl FnMut(usize, T)) {
        let FlowSlots { slot, mut items, .. } = self;
        let mut flow_of = vec![u32::MAX; items.len()];
        for (f, &s) in slot.iter().enumerate().filter(|(_, &s)| s < RETIRED) {
            flow_of[s as usize] = f as u32;
        }
        drop(slot);
        /// Records between two returns of their memory.
        const CHUNK: usize = 1 << 14;
        while let Some(item) = items.pop() {
            let s = items.len();
            if flow_of[s] != u32::MAX {
                each(flow_of[s] as usize, item);
            }
            if s % CHUNK == 0 {
                items.shrink_to_fit();
            }
        }
    }

    /// The records that exist, in flow order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.slot.iter().filter(|&&s| s < RETIRED).map(|&s| &self.items[s as usize])
    }

    /// The records that exist, in slot order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        let live: Vec<bool> = {
            let mut v = vec![false; self.items.len()];
            for &s in self.slot.iter().filter(|&&s| s < RETIRED) {
                v[s as usize] = true;
            }
            v
        };
        self.items.iter_mut().zip(live).filter_map(|(t, l)| l.then_some(t))
    }
}

/// No flows: what a partition's records become once the merge has taken them.
impl<T> Default for FlowSlots<T> {
    fn default() -> Self {
        FlowSlots { slot: Vec::new(), items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Index<usize> for FlowSlots<T> {
    type Output = T;
    #[inline]
    fn index(&self, f: usize) -> &T {
        &self.items[self.slot[f] as usize]
    }
}

impl<T> IndexMut<usize> for FlowSlots<T> {
    #[inline]
    fn index_mut(&mut self, f: usize) -> &mut T {
        &mut self.items[self.slot[f] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_after_retirement() {
        let mut t = FlowSlots::new(4, "flows").unwrap();
        t.insert(2, 20u32);
        t.insert(0, 0);
        assert_eq!((t[2], t[0], t.has(1)), (20, 0, false));
        t.retire(2);
        assert!(t.retired(2) && !t.has(2) && t.get(2).is_none());
        t.insert(3, 30);
        assert_eq!((t[3], t.items.len()), (30, 2));
        assert_eq!(t.iter_mut().map(|x| *x).collect::<Vec<_>>(), vec![30, 0]);
    }

    /// Every record comes out once with its own flow, none of a retired one, across the
    /// points where the memory is given back.
    #[test]
    fn drain_hands_each_record_to_its_flow() {
        let n = 40_000;
        let mut t = FlowSlots::new(n, "flows").unwrap();
        for f in (0..n).rev().filter(|f| f % 3 != 0) {
            t.insert(f, f as u64 * 10);
        }
        t.retire(5);
        t.insert(9, 90); // reuses the retired record's slot
        let mut got = Vec::new();
        t.drain(|f, v| got.push((f, v)));
        got.sort();
        let want: Vec<_> = (0..n).filter(|f| (f % 3 != 0 && *f != 5) || *f == 9).map(|f| (f, f as u64 * 10)).collect();
        assert_eq!(got, want);
    }
}
