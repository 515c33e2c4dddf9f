//! Congestion points: which egress queues are congested, when, in which role, and who
//! crossed them (seed 000's statistics). An egress (port, priority) queue is evaluated
//! each time its port's arbitration sends one of its packets:
//! - congested time while PFC pauses the queue's port is **victim** time, the rest
//!   **root** time. A root's own link is the bottleneck: it transmits without pause for as
//!   long as it is congested. A congested queue that spends at least `VICTIM_SHARE` of its
//!   congested time paused is backed up from downstream: a **victim** (infiniband.md 2.2:
//!   congested because it cannot transmit);
//! - rule 1a: congested when its queue exceeds a threshold; rule 1b: when, in addition,
//!   the inputs requesting it could bring more than its capacity; ECN marking: when its
//!   queue exceeds Kmin.

use crate::units::{Rate, SimTime};

/// Share of congested time spent paused from which a queue counts as a victim. Small:
/// a root is never paused, while a victim is paused for a large share (in the seed
/// parking lot the S1 -> S2 queue is paused about 40 % of the time).
pub const VICTIM_SHARE: f64 = 0.05;

/// Whether congested time split into root and victim time makes a victim.
pub fn victim_by_time(root_ps: u64, victim_ps: u64) -> bool {
    victim_ps > 0 && victim_ps as f64 >= VICTIM_SHARE * (root_ps + victim_ps) as f64
}

/// Distinct flows a congestion point remembers as already recorded.
pub const RECENT: usize = 8;

#[derive(Copy, Clone, Debug, Default)]
pub struct CongestionPoint {
    pub congested: bool,
    /// The flows (plus one; 0: none) of the last data frames that left while congested,
    /// `RECENT` distinct ones replaced in turn: frames of flows already seen here record
    /// their (point, flow) pair without a look-up in the set of pairs, which outgrows the
    /// cache on a long run of a large fabric (several flows interleave at one port).
    pub recent: [u32; RECENT],
    pub recent_at: u8,
    pub last_eval: SimTime,
    /// The port's total paused time for this priority at the last evaluation.
    pub last_paused: u64,
    /// Start of the current congested interval, and its root / victim time so far.
    pub since: SimTime,
    pub interval_root_ps: u64,
    pub interval_victim_ps: u64,
    pub root_ps: u64,
    pub victim_ps: u64,
    pub intervals: u64,
    /// Data packets marked CE here.
    pub marked: u64,
    /// Data packets that left while congested.
    pub pkts_while_congested: u64,
}

/// A closed congested interval of one (port, priority).
#[derive(Copy, Clone, Debug)]
pub struct Interval {
    pub port: u32,
    pub prio: u8,
    pub start: SimTime,
    pub end: SimTime,
    pub root_ps: u64,
    pub victim_ps: u64,
}

impl crate::net::capped_log::LogRow for Interval {
    type Key = (SimTime, u32, u8);
    fn key(&self) -> Self::Key {
        (self.start, self.port, self.prio)
    }
}

impl CongestionPoint {
    /// Records an evaluation at `now`: whether the queue is congested, and the port's
    /// total paused time so far for this priority. Returns the closed interval, if one
    /// ended: (start, root time, victim time).
    pub fn evaluate(&mut self, now: SimTime, congested: bool, paused_total: u64) -> Option<(SimTime, u64, u64)> {
        if self.congested {
            let dt = (now - self.last_eval).0;
            let paused = paused_total.saturating_sub(self.last_paused).min(dt);
            self.root_ps += dt - paused;
            self.interval_root_ps += dt - paused;
            self.victim_ps += paused;
            self.interval_victim_ps += paused;
        }
        let mut closed = None;
        if congested && !self.congested {
            self.since = now;
            self.interval_root_ps = 0;
            self.interval_victim_ps = 0;
            self.intervals += 1;
        } else if !congested && self.congested {
            closed = Some((self.since, self.interval_root_ps, self.interval_victim_ps));
        }
        self.congested = congested;
        self.last_eval = now;
        self.last_paused = paused_total;
        closed
    }

    /// Whether the queue is, right now, a victim of congestion elsewhere.
    pub fn is_victim(&self) -> bool {
        self.congested && victim_by_time(self.interval_root_ps, self.interval_victim_ps)
    }

    /// Time spent congested so far.
    pub fn congested_ps(&self) -> u64 {
        self.root_ps + self.victim_ps
    }
}

/// Rule 1b's demand: per (egress queue, input port) the packets waiting and when the
/// input last stopped waiting. An input "requests" the output if it has packets waiting
/// or had some within the last `window`.
pub struct Demand {
    /// First slot of each port's (priority, input) block.
    base: Vec<u32>,
    radix: Vec<u32>,
    waiting: Vec<u32>,
    last: Vec<SimTime>,
}

impl Demand {
    pub fn new(radix: &[u32]) -> Self {
        let mut base = Vec::with_capacity(radix.len());
        let mut n = 0u32;
        for &r in radix {
            base.push(n);
            n += 8 * r;
        }
        Demand { base, radix: radix.to_vec(), waiting: vec![0; n as usize], last: vec![SimTime::ZERO; n as usize] }
    }

    #[inline]
    fn idx(&self, port: usize, prio: u8, input: u32) -> usize {
        (self.base[port] + prio as u32 * self.radix[port] + input) as usize
    }

    #[inline]
    pub fn arrive(&mut self, port: usize, prio: u8, input: u32) {
        let i = self.idx(port, prio, input);
        self.waiting[i] += 1;
    }

    /// Fast-forward moved the world `by` later.
    pub fn shift_times(&mut self, by: SimTime) {
        self.last.iter_mut().for_each(|t| *t = t.later(by));
    }

    #[inline]
    pub fn depart(&mut self, port: usize, prio: u8, input: u32, now: SimTime) {
        let i = self.idx(port, prio, input);
        self.waiting[i] -= 1;
        if self.waiting[i] == 0 {
            self.last[i] = now;
        }
    }

    /// Sum of the rates of the inputs requesting (port, prio) (waiting now or within the
    /// last `window`); `input_rate(j)` is the rate of the node's j-th port.
    pub fn requested(&self, port: usize, prio: u8, now: SimTime, window: SimTime, input_rate: impl Fn(u32) -> Rate) -> u64 {
        let mut sum = 0;
        for j in 0..self.radix[port] {
            let i = self.idx(port, prio, j);
            let recent = self.last[i].0 > 0 && (now - self.last[i]) <= window;
            if self.waiting[i] > 0 || recent {
                sum += input_rate(j).0;
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_intervals() {
        let us = |v: u64| SimTime::us(v).0;
        let mut cp = CongestionPoint::default();
        assert!(cp.evaluate(SimTime::us(1), true, 0).is_none());
        cp.evaluate(SimTime::us(3), true, 0); // 2 us, never paused: root
        assert!(!cp.is_victim());
        cp.evaluate(SimTime::us(7), true, us(3)); // 4 us, 3 of them paused
        assert!(cp.is_victim(), "3 us paused of 6 congested");
        assert!(!victim_by_time(us(100), us(1)), "1 % paused is a root");
        let closed = cp.evaluate(SimTime::us(10), false, us(3)); // 3 us sending
        assert_eq!(closed, Some((SimTime::us(1), us(6), us(3))));
        assert_eq!((cp.root_ps, cp.victim_ps, cp.intervals), (us(6), us(3), 1));
        assert!(!cp.is_victim());
    }

    #[test]
    fn demand_counts_inputs_that_wait_or_waited_recently() {
        let mut d = Demand::new(&[3, 3, 3]);
        let w = SimTime::us(10);
        let rate = |_| Rate::gbps(40);
        d.arrive(0, 3, 1);
        d.arrive(0, 3, 2);
        assert_eq!(d.requested(0, 3, SimTime::us(1), w, rate), 80_000_000_000);
        d.depart(0, 3, 2, SimTime::us(2));
        assert_eq!(d.requested(0, 3, SimTime::us(5), w, rate), 80_000_000_000, "still within the window");
        assert_eq!(d.requested(0, 3, SimTime::us(20), w, rate), 40_000_000_000);
    }
}
