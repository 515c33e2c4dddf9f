//! The event enum and the event queue.
//!
//! Order: by time; among events due at the same picosecond, a seeded pseudo-random one
//! is served next. So no sender wins a tie because of its index or because its event
//! was scheduled first: symmetric senders get symmetric service, reproducibly. An event
//! scheduled for the current time still runs after the event that scheduled it.

use crate::ids::{FlowId, PktId, PortId};
use crate::rng::Rng;
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
    /// Go-back-N retransmission timer of a flow.
    Rto(FlowId, u32),
    /// Periodic statistics sample.
    Sample,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    ev: Event,
}

/// A radix heap (Ahuja et al. 1990) over event times. It relies on times being
/// monotone: nothing is scheduled before the last event popped, which a discrete-event
/// simulation guarantees. An event sits in the bucket of the highest bit in which its
/// time differs from the current time; bucket 0 holds the events due now. When bucket 0
/// is empty the lowest non-empty bucket is spread into lower ones, so each event moves a
/// few times at most. Ties: among the events due now, a seeded random one is served next.
pub struct EventQueue {
    buckets: Vec<Vec<Entry>>,
    /// Bit b set: bucket b is non-empty.
    occupied: u128,
    last: u64,
    len: usize,
    ties: Rng,
    now: SimTime,
    popped: u64,
}

impl EventQueue {
    pub fn new(seed: u64) -> Self {
        EventQueue {
            buckets: (0..65).map(|_| Vec::with_capacity(64)).collect(),
            occupied: 0,
            last: 0,
            len: 0,
            ties: Rng::stream(seed, "event-ties"),
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    #[inline]
    pub fn now(&self) -> SimTime { self.now }

    /// Events popped so far.
    #[inline]
    pub fn processed(&self) -> u64 { self.popped }

    pub fn len(&self) -> usize { self.len }
    pub fn is_empty(&self) -> bool { self.len == 0 }

    #[inline]
    fn put(&mut self, e: Entry) {
        let b = 64 - (e.time ^ self.last).leading_zeros() as usize;
        self.buckets[b].push(e);
        self.occupied |= 1 << b;
    }

    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.len += 1;
        self.put(Entry { time: at.0, ev });
    }

    /// Makes bucket 0 hold the earliest events; false if the queue is empty.
    #[inline]
    fn settle(&mut self) -> bool {
        if self.occupied & 1 != 0 {
            return true;
        }
        if self.occupied == 0 {
            return false;
        }
        let b = self.occupied.trailing_zeros() as usize;
        let mut v = std::mem::take(&mut self.buckets[b]);
        self.occupied &= !(1 << b);
        self.last = v.iter().map(|e| e.time).min().unwrap();
        for e in v.drain(..) {
            self.put(e);
        }
        // Keep the emptied vector's capacity for reuse.
        self.buckets[b] = v;
        true
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        if !self.settle() {
            return None;
        }
        Some(SimTime(self.last))
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if !self.settle() {
            return None;
        }
        let due = &mut self.buckets[0];
        let e = if due.len() == 1 {
            self.occupied &= !1;
            due.pop().unwrap()
        } else {
            let i = self.ties.below(due.len() as u64) as usize;
            due.swap_remove(i)
        };
        self.len -= 1;
        self.now = SimTime(e.time);
        self.popped += 1;
        Some((self.now, e.ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random schedules popped in (time, tie) order, against a sorted reference.
    #[test]
    fn matches_a_sorted_reference() {
        let mut q = EventQueue::new(3);
        let mut rng = Rng::stream(5, "test");
        let mut out = vec![];
        for round in 0..200u64 {
            for _ in 0..rng.below(20) {
                let at = q.now() + SimTime(rng.below(1000) * (1 + round % 3));
                q.schedule(at, Event::Sample);
            }
            for _ in 0..rng.below(15) {
                if let Some((t, _)) = q.pop() { out.push(t.0); }
            }
        }
        while let Some((t, _)) = q.pop() { out.push(t.0); }
        assert!(out.windows(2).all(|w| w[0] <= w[1]));
        assert!(q.is_empty());
    }

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new(1);
        q.schedule(SimTime(30), Event::Sample);
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
        let mut q = EventQueue::new(42);
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
}
