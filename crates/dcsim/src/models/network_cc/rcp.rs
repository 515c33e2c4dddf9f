//! The RCP rate of one egress queue (Dukkipati & McKeown; explicit-rate.md 9.4):
//!
//! ```text
//! every control interval T:
//!     R <- R * (1 + (T/d) * (alpha (C - y) - beta q / d) / C),  clamped to [R_min, C]
//! ```
//!
//! `y` is the input rate measured over the interval (every data frame that joined the
//! queue, in wire bytes: frame + preamble/IFG, as the line rate C), `q` the queue in bits, `d` the round-trip time. `q` is the queue the arriving
//! frame found, without the frame itself: sampled at arrivals, that is the time-average
//! queue of RCP's fluid model, where counting the frame would add one frame to every
//! sample (at d = 50 us one 1 KB frame in `beta q / d` is 7 % of 25 Gb/s with the
//! default gains, a standing deficit of the input rate the rule converges to). The interval is `d` (the
//! datacenter choice of the spec); updates are made lazily, when a frame arrives at least
//! `d` after the last update, with `T` the time actually elapsed, its ratio to `d` capped
//! at 1 so that an idle spell is one interval, not many.

use crate::units::{Rate, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct RcpParams {
    pub alpha: f64,
    pub beta: f64,
    /// d, the round-trip time of the rule and its update interval; `None`: the largest
    /// base RTT among the run's flows.
    pub rtt: Option<SimTime>,
    pub rate_min: Rate,
}

impl Default for RcpParams {
    fn default() -> Self {
        RcpParams { alpha: 0.1, beta: 1.0, rtt: None, rate_min: super::RCP_RATE_MIN }
    }
}

/// One queue's RCP state.
#[derive(Clone, Debug)]
pub struct Rcp {
    /// The advertised rate R (bit/s).
    r: f64,
    /// Wire bytes that joined the queue since the last update.
    bytes: u64,
    /// Time of the last update (`None`: no frame yet).
    last: Option<SimTime>,
}

impl Rcp {
    /// A queue of a port of rate `c`: R starts at C.
    pub fn new(c: Rate) -> Self {
        Rcp { r: c.0 as f64, bytes: 0, last: None }
    }

    /// Fast-forward moved the world `by` later.
    pub fn shift_times(&mut self, by: SimTime) {
        self.last = self.last.map(|t| t.later(by));
    }

    /// The advertised rate.
    pub fn rate(&self) -> Rate {
        Rate(self.r as u64)
    }

    /// A frame of `wire` bytes on the wire (frame + preamble/IFG, the bytes the line rate
    /// `c` counts) joins the queue at `now`, finding `q_before` frame bytes queued (not
    /// counting the frame). Updates R if an interval `d` has passed.
    pub fn on_arrival(&mut self, p: &RcpParams, d: SimTime, c: Rate, now: SimTime, wire: u32, q_before: u64) {
        self.bytes += wire as u64;
        let Some(last) = self.last else {
            self.last = Some(now);
            return;
        };
        let elapsed = now - last;
        if elapsed < d || elapsed.0 == 0 {
            return;
        }
        let c_bps = c.0 as f64;
        let secs = elapsed.as_secs_f64();
        let d_secs = d.as_secs_f64();
        let y = self.bytes as f64 * 8.0 / secs;
        let q = q_before as f64 * 8.0;
        let t_over_d = (secs / d_secs).min(1.0);
        let r = self.r * (1.0 + t_over_d * (p.alpha * (c_bps - y) - p.beta * q / d_secs) / c_bps);
        self.r = r.clamp(p.rate_min.0 as f64, c_bps);
        self.bytes = 0;
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Rate = Rate(25_000_000_000);
    const D: SimTime = SimTime(10_000_000); // 10 us

    fn p() -> RcpParams {
        RcpParams { rtt: Some(D), ..RcpParams::default() }
    }

    /// Feeds `bytes` per interval d for `n` intervals with the queue at `q`; returns R.
    fn run(r: &mut Rcp, start: u64, n: u64, bytes: u32, q: u64) -> f64 {
        for k in 1..=n {
            r.on_arrival(&p(), D, C, SimTime(start + k * D.0), bytes, q);
        }
        r.r
    }

    #[test]
    fn starts_at_line_rate_and_first_frame_only_starts_the_clock() {
        let mut r = Rcp::new(C);
        assert_eq!(r.rate(), C);
        r.on_arrival(&p(), D, C, SimTime::ZERO, 1000, 1000);
        assert_eq!(r.rate(), C);
        assert_eq!(r.bytes, 1000);
    }

    #[test]
    fn one_update_by_the_formula() {
        // y = 40 Gb/s over 10 us (50 000 B), q = 12.5 KB (100 kbit): q/d = 10 Gb/s.
        // R = 25e9 * (1 + (0.1 * (25e9 - 40e9) - 1.0 * 10e9) / 25e9) = 25e9 * (1 - 0.46) = 13.5e9
        let mut r = Rcp::new(C);
        r.on_arrival(&p(), D, C, SimTime::ZERO, 0, 0);
        r.on_arrival(&p(), D, C, D, 50_000, 12_500);
        assert!((r.r - 13.5e9).abs() < 1.0, "{}", r.r);
        // No update before another d has passed: R holds, bytes accumulate.
        r.on_arrival(&p(), D, C, SimTime(D.0 + D.0 / 2), 1000, 12_500);
        assert!((r.r - 13.5e9).abs() < 1.0);
        assert_eq!(r.bytes, 1000);
    }

    #[test]
    fn converges_to_the_fair_share_and_clamps() {
        // Overload with a standing queue: R falls, never below R_min.
        let mut r = Rcp::new(C);
        r.on_arrival(&p(), D, C, SimTime::ZERO, 0, 0);
        let low = run(&mut r, 0, 50, 100_000, 200_000); // 80 Gb/s in, 200 KB queued
        assert_eq!(low, p().rate_min.0 as f64);
        // Underload, empty queue: R grows back, never above C.
        let high = run(&mut r, 50 * D.0, 400, 10_000, 0); // 8 Gb/s in
        assert_eq!(high, C.0 as f64);
        // Input exactly at C, empty queue: R is a fixed point.
        let mut r = Rcp::new(C);
        r.r = 5e9;
        r.on_arrival(&p(), D, C, SimTime::ZERO, 0, 0);
        let same = run(&mut r, 0, 10, 31_250, 0); // 31 250 B per 10 us = 25 Gb/s
        assert!((same - 5e9).abs() < 1.0, "{same}");
    }

    #[test]
    fn an_idle_spell_counts_as_one_interval() {
        // 1 ms without frames then one frame: T/d is capped at 1, not 100.
        let mut r = Rcp::new(C);
        r.r = 1e9;
        r.on_arrival(&p(), D, C, SimTime::ZERO, 0, 0);
        r.on_arrival(&p(), D, C, SimTime::ms(1), 1000, 0);
        // y = 8000 bit / 1 ms = 8 Mb/s: R = 1e9 * (1 + 0.1 * (25e9 - 8e6) / 25e9).
        let want = 1e9 * (1.0 + 0.1 * (25e9 - 8e6) / 25e9);
        assert!((r.r - want).abs() < 1.0, "{} vs {want}", r.r);
    }
}
