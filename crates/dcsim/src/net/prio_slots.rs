//! Where the state of a (port, priority) lives. Queues, buffer charges, counters and the
//! models' per-queue state are arrays with a slot per port and priority in use, not per
//! port and each of the 8 priorities: most runs use one or two (a k = 32 fat tree held
//! 126 MB of such state per partition for 8 priorities, a sixteenth of it used).

use std::ops::Range;

/// The priorities in use and each one's slot within a port's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrioSlots {
    /// Slots per port.
    n: u8,
    /// Each priority's slot (`UNUSED`: none).
    slot: [u32; 8],
    used: u8,
}

/// An unused priority's slot: far past the end of any array, so that an engine bug
/// that reads one is an index out of bounds, never another queue's state.
const UNUSED: u32 = 1 << 31;

impl PrioSlots {
    /// Slots for the priorities whose bits are set in `used` (at least priority 0's,
    /// when none is: a fabric without flows still has its ports' counters).
    pub fn new(used: u8) -> Self {
        let used = if used == 0 { 1 } else { used };
        let mut slot = [UNUSED; 8];
        let mut n = 0u8;
        for (p, s) in slot.iter_mut().enumerate() {
            if used & (1 << p) != 0 {
                *s = n as u32;
                n += 1;
            }
        }
        PrioSlots { n, slot, used }
    }

    /// All eight priorities (unit tests of one part alone).
    pub fn all() -> Self {
        Self::new(u8::MAX)
    }

    /// The index of (port `p`, priority `prio`) in an array of `len(ports)`.
    #[inline]
    pub fn at(&self, p: usize, prio: u8) -> usize {
        let s = self.slot[prio as usize & 7];
        debug_assert!(s != UNUSED, "priority {prio} has no state in this run (in use: {:#010b})", self.used);
        p * self.n as usize + s as usize
    }

    /// Port `p`'s slots, in priority order.
    #[inline]
    pub fn of_port(&self, p: usize) -> Range<usize> {
        p * self.n as usize..(p + 1) * self.n as usize
    }

    /// The length of an array with a slot for each (port, priority in use).
    pub fn len(&self, ports: usize) -> usize {
        ports * self.n as usize
    }

    /// Slots per port.
    pub fn per_port(&self) -> usize {
        self.n as usize
    }

    /// The priorities in use, in order.
    pub fn prios(&self) -> impl Iterator<Item = u8> {
        let used = self.used;
        (0..8u8).filter(move |p| used & (1 << p) != 0)
    }

    /// The (port, priority) of slot index `i`.
    pub fn port_prio(&self, i: usize) -> (usize, u8) {
        let (p, s) = (i / self.n as usize, (i % self.n as usize) as u32);
        (p, self.slot.iter().position(|&x| x == s).expect("a slot of a priority in use") as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_dense_in_priority_order() {
        let s = PrioSlots::new(0b1000_1000);
        assert_eq!((s.per_port(), s.len(10)), (2, 20));
        assert_eq!((s.at(0, 3), s.at(0, 7), s.at(5, 3), s.at(5, 7)), (0, 1, 10, 11));
        assert_eq!(s.of_port(5), 10..12);
        assert_eq!((s.port_prio(11), s.port_prio(10)), ((5, 7), (5, 3)));
        assert_eq!(s.prios().collect::<Vec<_>>(), vec![3, 7]);
        let all = PrioSlots::all();
        assert_eq!((all.at(2, 5), all.of_port(2)), (21, 16..24));
        assert_eq!(PrioSlots::new(0), PrioSlots::new(1));
    }

    /// A priority without state is an engine bug: never another queue's slot.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "priority 2 has no state")]
    fn a_priority_without_state_is_refused() {
        PrioSlots::new(0b1000).at(0, 2);
    }
}
