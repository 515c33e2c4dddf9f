//! The event enum and the event queue.
//!
//! Order: by time, then by a seeded random tie key. Events at the same picosecond are
//! thus served in a pseudo-random but reproducible order: no sender wins a tie because
//! of its index or because its event was scheduled first, so symmetric senders get
//! symmetric service. An event scheduled for the current time still runs after the
//! event that scheduled it (it is pushed after that one was popped).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
    tie: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool { self.time == o.time && self.tie == o.tie }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> { Some(self.cmp(o)) }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap, we want the earliest first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.tie).cmp(&(self.time, self.tie))
    }
}

pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    ties: Rng,
    now: SimTime,
    popped: u64,
}

impl EventQueue {
    pub fn new(seed: u64) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), ties: Rng::stream(seed, "event-ties"), now: SimTime::ZERO, popped: 0 }
    }

    #[inline]
    pub fn now(&self) -> SimTime { self.now }

    /// Events popped so far.
    #[inline]
    pub fn processed(&self) -> u64 { self.popped }

    pub fn len(&self) -> usize { self.heap.len() }
    pub fn is_empty(&self) -> bool { self.heap.is_empty() }

    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let tie = self.ties.next_u64();
        self.heap.push(Entry { time: at.0, tie, ev });
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> { self.heap.peek().map(|e| SimTime(e.time)) }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        self.now = SimTime(e.time);
        self.popped += 1;
        Some((self.now, e.ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
