//! Congestion points: which egress queues are congested, when, in which role, and who
//! crossed them (seed 000's statistics). An egress (port, priority) queue is evaluated
//! each time its port's arbitration sends one of its packets:
//! - it is the **root** of congestion when it was able to send since the last evaluation,
//!   a **victim** when PFC paused it in between (infiniband.md 2.2: congested only because
//!   it cannot transmit);
//! - rule 1a: congested when its queue exceeds a threshold; rule 1b: when, in addition,
//!   the inputs requesting it could bring more than its capacity; ECN marking: when its
//!   queue exceeds Kmin.

use crate::units::{Rate, SimTime};

#[derive(Copy, Clone, Debug, Default)]
pub struct CongestionPoint {
    pub congested: bool,
    /// Role since the last evaluation: root (true) or victim.
    pub root: bool,
    pub last_eval: SimTime,
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

impl CongestionPoint {
    /// Records an evaluation at `now`: whether the queue is congested and whether its
    /// port was paused since the last one. Returns the closed interval, if one ended.
    pub fn evaluate(&mut self, now: SimTime, congested: bool, paused_recently: bool) -> Option<(SimTime, u64, u64)> {
        if self.congested {
            let dt = (now - self.last_eval).0;
            if self.root {
                self.root_ps += dt;
                self.interval_root_ps += dt;
            } else {
                self.victim_ps += dt;
                self.interval_victim_ps += dt;
            }
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
        self.root = !paused_recently;
        self.last_eval = now;
        closed
    }

    /// Time spent congested so far.
    pub fn congested_ps(&self) -> u64 { self.root_ps + self.victim_ps }
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
    window: SimTime,
}

impl Demand {
    pub fn new(radix: &[u32], window: SimTime) -> Self {
        let mut base = Vec::with_capacity(radix.len());
        let mut n = 0u32;
        for &r in radix {
            base.push(n);
            n += 8 * r;
        }
        Demand { base, radix: radix.to_vec(), waiting: vec![0; n as usize], last: vec![SimTime::ZERO; n as usize], window }
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

    #[inline]
    pub fn depart(&mut self, port: usize, prio: u8, input: u32, now: SimTime) {
        let i = self.idx(port, prio, input);
        self.waiting[i] -= 1;
        if self.waiting[i] == 0 {
            self.last[i] = now;
        }
    }

    /// Sum of the rates of the inputs requesting (port, prio); `input_rate(j)` is the rate
    /// of the node's j-th port.
    pub fn requested(&self, port: usize, prio: u8, now: SimTime, input_rate: impl Fn(u32) -> Rate) -> u64 {
        let mut sum = 0;
        for j in 0..self.radix[port] {
            let i = self.idx(port, prio, j);
            let recent = self.last[i].0 > 0 && (now - self.last[i]) <= self.window;
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
        let mut cp = CongestionPoint::default();
        assert!(cp.evaluate(SimTime::us(1), true, false).is_none());
        cp.evaluate(SimTime::us(3), true, true); // 2 us as root; then victim
        cp.evaluate(SimTime::us(4), true, false); // 1 us as victim
        let closed = cp.evaluate(SimTime::us(10), false, false); // 6 us as root
        assert_eq!(closed, Some((SimTime::us(1), 8_000_000, 1_000_000)));
        assert_eq!((cp.root_ps, cp.victim_ps, cp.intervals), (8_000_000, 1_000_000, 1));
    }

    #[test]
    fn demand_counts_inputs_that_wait_or_waited_recently() {
        let mut d = Demand::new(&[3, 3, 3], SimTime::us(10));
        let rate = |_| Rate::gbps(40);
        d.arrive(0, 3, 1);
        d.arrive(0, 3, 2);
        assert_eq!(d.requested(0, 3, SimTime::us(1), rate), 80_000_000_000);
        d.depart(0, 3, 2, SimTime::us(2));
        assert_eq!(d.requested(0, 3, SimTime::us(5), rate), 80_000_000_000, "still within the window");
        assert_eq!(d.requested(0, 3, SimTime::us(20), rate), 40_000_000_000);
    }
}
