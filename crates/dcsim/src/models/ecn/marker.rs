//! ECN marking at switch egress queues (../shared/models/ecn.md): instantaneous RED-ECN,
//! the DCTCP step, and classic RED on an averaged queue (gentle, count-spread). A marker
//! decides for one data packet from the queue length it sees.

use super::params::{EcnMode, EcnPlan};
use crate::units::{Rate, SimTime};

/// Thresholds of one port (they depend on its rate).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Thresholds {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

/// The thresholds a port of `rate` uses: a `by_speed` entry for its rate, else the
/// configured values, else the HPCC simulator's rule (100 KB and 400 KB per 25 Gb/s).
pub fn thresholds_for(plan: &EcnPlan, rate: Rate) -> Thresholds {
    if let Some(s) = plan.by_speed.iter().find(|s| s.rate == rate) {
        return Thresholds { kmin: s.kmin, kmax: s.kmax, pmax: s.pmax };
    }
    let scale = |kb: u64| (kb as u128 * 1000 * rate.0 as u128 / 25_000_000_000) as u64;
    let kmin = plan.kmin.unwrap_or(scale(100));
    let kmax = plan.kmax.unwrap_or(if plan.kmin.is_some() { kmin.max(scale(400)) } else { scale(400) });
    Thresholds { kmin, kmax: kmax.max(kmin), pmax: plan.pmax }
}

/// Averaged-RED state of one queue.
#[derive(Copy, Clone, Debug, Default)]
pub struct RedAvg {
    avg: f64,
    /// Packets since the last mark while above Kmin (spreads marks, ns-3 "count").
    count: u32,
    idle_since: Option<SimTime>,
}

/// Instantaneous RED-ECN and step marking: p(q) = 0 up to Kmin, Pmax (q-Kmin)/(Kmax-Kmin)
/// up to Kmax, 1 above; the step marks every packet above Kmin.
#[inline]
pub fn mark_instant(mode: EcnMode, th: &Thresholds, q: u64, draw: impl FnOnce() -> f64) -> bool {
    match mode {
        EcnMode::Step => q > th.kmin,
        EcnMode::Red => {
            if q <= th.kmin {
                false
            } else if q > th.kmax {
                true
            } else {
                let p = th.pmax * (q - th.kmin) as f64 / (th.kmax - th.kmin).max(1) as f64;
                draw() < p
            }
        }
        EcnMode::Off | EcnMode::RedAvg => false,
    }
}

impl RedAvg {
    /// Fast-forward moved the world `by` later.
    pub fn shift_times(&mut self, by: SimTime) {
        self.idle_since = self.idle_since.map(|t| t.later(by));
    }

    /// Classic RED on arrival (ecn.md 3.4, byte mode, gentle, "wait" off): update the
    /// average with the current queue `q`, then mark with the count-spread probability.
    /// `pkt_time` is the time one mean packet takes on the port (idle-time decay).
    pub fn on_arrival(&mut self, th: &Thresholds, wq: f64, q: u64, now: SimTime, pkt_time: SimTime, draw: impl FnOnce() -> f64) -> bool {
        if let Some(since) = self.idle_since.take() {
            // The queue was empty: decay the average as if empty packets had arrived.
            let m = (now - since).0 / pkt_time.0.max(1);
            self.avg *= (1.0 - wq).powi(m.min(i32::MAX as u64) as i32);
        }
        self.avg = (1.0 - wq) * self.avg + wq * q as f64;
        let (kmin, kmax) = (th.kmin as f64, th.kmax as f64);
        if self.avg < kmin {
            self.count = 0;
            return false;
        }
        if self.avg >= 2.0 * kmax {
            self.count = 0;
            return true;
        }
        let pb = if self.avg < kmax {
            th.pmax * (self.avg - kmin) / (kmax - kmin).max(1.0)
        } else {
            th.pmax + (1.0 - th.pmax) * (self.avg - kmax) / kmax.max(1.0)
        };
        self.count += 1;
        let c = self.count as f64;
        let pa = if c * pb < 1.0 { pb / (1.0 - c * pb) } else { 1.0 };
        if draw() < pa {
            self.count = 0;
            true
        } else {
            false
        }
    }

    /// The queue emptied at `now`.
    pub fn on_empty(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn instantaneous_red_probability() {
        let th = Thresholds { kmin: 5_000, kmax: 200_000, pmax: 0.01 };
        let mut rng = Rng::stream(1, "t");
        assert!(!mark_instant(EcnMode::Red, &th, 5_000, || rng.next_f64()));
        assert!(mark_instant(EcnMode::Red, &th, 200_001, || rng.next_f64()));
        // Halfway: p = 0.005; over 200k trials the share is within 0.0045..0.0055.
        let q = 102_500;
        let n = 200_000;
        let marked = (0..n).filter(|_| mark_instant(EcnMode::Red, &th, q, || rng.next_f64())).count();
        let share = marked as f64 / n as f64;
        assert!((0.0045..0.0055).contains(&share), "{share}");
    }

    #[test]
    fn step_marks_above_k() {
        let th = Thresholds { kmin: 30_000, kmax: 30_000, pmax: 1.0 };
        let mut rng = Rng::stream(1, "t");
        assert!(!mark_instant(EcnMode::Step, &th, 30_000, || rng.next_f64()));
        assert!(mark_instant(EcnMode::Step, &th, 30_001, || rng.next_f64()));
    }

    #[test]
    fn thresholds_scale_with_rate_unless_given() {
        let mut p = EcnPlan::default();
        let t = thresholds_for(&p, Rate::gbps(100));
        assert_eq!((t.kmin, t.kmax), (400_000, 1_600_000));
        p.kmin = Some(5_000);
        p.kmax = Some(200_000);
        assert_eq!(thresholds_for(&p, Rate::gbps(100)).kmin, 5_000);
        p.by_speed.push(crate::plan::EcnSpeedPlan { rate: Rate::gbps(40), kmin: 1, kmax: 2, pmax: 0.5 });
        assert_eq!(thresholds_for(&p, Rate::gbps(40)), Thresholds { kmin: 1, kmax: 2, pmax: 0.5 });
    }

    #[test]
    fn averaged_red_follows_a_standing_queue() {
        let th = Thresholds { kmin: 10_000, kmax: 30_000, pmax: 0.1 };
        let mut rng = Rng::stream(2, "t");
        let mut red = RedAvg::default();
        // A standing queue of 20 KB: the average converges there and marks at about
        // pb = 0.05 spread by the count (mean gap 1/(2 pb) packets: ~10 %).
        let mut marks = 0;
        for i in 0..100_000u64 {
            if red.on_arrival(&th, 0.002, 20_000, SimTime::ns(i), SimTime::ns(1), || rng.next_f64()) && i > 10_000 {
                marks += 1;
            }
        }
        let share = marks as f64 / 90_000.0;
        assert!((0.08..0.12).contains(&share), "{share}");
        // Far above 2 Kmax every packet is marked.
        let mut red = RedAvg { avg: 70_000.0, ..Default::default() };
        assert!(red.on_arrival(&th, 0.002, 70_000, SimTime::ZERO, SimTime::ns(1), || rng.next_f64()));
    }
}
