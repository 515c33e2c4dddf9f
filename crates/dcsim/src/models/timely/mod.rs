//! TIMELY (Mittal et al., SIGCOMM 2015): RTT-gradient rate control at the sending NIC,
//! in the HPCC simulator's form (`CC_MODE 7`, ../shared/models/modern-cc.md 10.2). Once
//! per RTT (on the first ACK past the sequence recorded at the last update), with the RTT
//! sample the ACK carries (now minus the echoed send time of the data frame):
//!
//! ```text
//! new_diff = rtt - prev_rtt;  rtt_diff = (1 - a) rtt_diff + a new_diff
//! g = rtt_diff / min_rtt
//! rtt < T_low:        increase
//! rtt > T_high:       rate = max(R_min, rate (1 - beta (1 - T_high / rtt)))
//! g <= 0:             increase
//! otherwise:          rate = max(R_min, rate max(0, 1 - beta g))
//! increase:           rate = min(C, rate + (R_HAI after 5 increases in a row, else R_AI))
//! ```
//!
//! The first update only records the RTT. No switch side: it needs no marking.

mod keys;
pub use keys::TimelyKeys;

use crate::models::{Ack, CcCtx, CongestionControl, NicSpec};
use crate::units::{Rate, SimTime};

/// Resolved parameters (defaults: the HPCC simulator's, modern-cc.md 10.2).
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyParams {
    /// EWMA weight of the RTT difference.
    pub a: f64,
    pub beta: f64,
    pub t_low: SimTime,
    pub t_high: SimTime,
    pub min_rtt: SimTime,
    /// Additive step; `None`: 10 Mb/s per 10 Gb/s of line rate.
    pub rate_ai: Option<Rate>,
    /// Hyper-additive step after 5 increases in a row; `None`: 5 x `rate_ai`.
    pub rate_hai: Option<Rate>,
    pub rate_min: Rate,
    /// "+win": a cap on the bytes in flight (`None`: rate only).
    pub window: Option<crate::models::window_cap::WindowCap>,
    /// The cap follows the rate: window x rate / line rate (`VAR_WIN 1`, the HPCC study's +win).
    pub var_window: bool,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams {
            a: 0.875,
            beta: 0.8,
            t_low: SimTime::us(50),
            t_high: SimTime::us(500),
            min_rtt: SimTime::us(20),
            rate_ai: None,
            rate_hai: None,
            rate_min: Rate::mbps(100),
            window: None,
            var_window: false,
        }
    }
}

/// Increases in a row after which the step becomes R_HAI.
const HAI_AFTER: u32 = 5;

#[derive(Clone, Debug)]
pub struct Timely {
    p: TimelyParams,
    line: f64,
    ai: f64,
    hai: f64,
    /// Current rate (bit/s).
    pub(crate) rate: f64,
    prev_rtt: Option<f64>,
    pub(crate) rtt_diff: f64,
    pub(crate) inc_stage: u32,
    /// The next update is due when the cumulative ACK passes this sequence number.
    next_update: u32,
    /// "+win": bytes in flight allowed at line rate.
    window: Option<u64>,
}

impl Timely {
    fn increase(&mut self) {
        let step = if self.inc_stage >= HAI_AFTER { self.hai } else { self.ai };
        self.rate = (self.rate + step).min(self.line);
        self.inc_stage += 1;
    }
}

impl CongestionControl for Timely {
    type Params = TimelyParams;
    fn from_params(p: &TimelyParams, nic: &NicSpec) -> Self {
        let line = nic.line_rate.0 as f64;
        let ai = p.rate_ai.map_or(line / 1000.0, |r| r.0 as f64);
        let hai = p.rate_hai.map_or(5.0 * ai, |r| r.0 as f64);
        Timely {
            p: p.clone(),
            line,
            ai,
            hai,
            rate: line,
            prev_rtt: None,
            rtt_diff: 0.0,
            inc_stage: 0,
            next_update: 0,
            window: p.window.map(|w| w.bytes(nic)),
        }
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn window(&self) -> Option<u64> {
        crate::models::window_cap::at_rate(self.window, self.p.var_window, self.rate, self.line)
    }
    fn rate(&self) -> Rate {
        Rate(self.rate as u64)
    }

    fn on_ack(&mut self, _: &mut CcCtx, ack: &Ack<'_>) {
        if ack.acked_to <= self.next_update && self.prev_rtt.is_some() {
            return; // once per RTT
        }
        self.next_update = ack.snd_nxt;
        let rtt = ack.rtt.0 as f64;
        let Some(prev) = self.prev_rtt.replace(rtt) else { return };
        let p = &self.p;
        self.rtt_diff = (1.0 - p.a) * self.rtt_diff + p.a * (rtt - prev);
        let g = self.rtt_diff / p.min_rtt.0 as f64;
        let r_min = p.rate_min.0 as f64;
        if rtt < p.t_low.0 as f64 {
            self.increase();
        } else if rtt > p.t_high.0 as f64 {
            self.rate = (self.rate * (1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt))).max(r_min);
            self.inc_stage = 0;
        } else if g <= 0.0 {
            self.increase();
        } else {
            self.rate = (self.rate * (1.0 - p.beta * g).max(0.0)).max(r_min);
            self.inc_stage = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    fn timely() -> Timely {
        Timely::from_params(
            &TimelyParams::default(),
            &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1086, mss: 1000, base_rtt: SimTime::us(10) },
        )
    }
    fn ack(to: u32, nxt: u32, rtt_us: f64) -> Ack<'static> {
        Ack {
            newly_acked: 1000,
            acked_to: to,
            snd_nxt: nxt,
            rtt: SimTime((rtt_us * US as f64) as u64),
            ece: false,
            nak: false,
            int: &[],
            recovery: false,
        }
    }

    #[test]
    fn updates_once_per_rtt_and_follows_each_rule() {
        let mut t = timely();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        t.rate = 5e9;
        t.on_ack(&mut x, &ack(1, 10, 60.0)); // first sample: recorded only
        assert_eq!(t.rate, 5e9);
        t.on_ack(&mut x, &ack(5, 12, 90.0)); // within the same RTT: ignored
        assert_eq!(t.rate, 5e9);
        // RTT 70 us (between T_low and T_high), rising by 10 us: rtt_diff = 0.875 x 10 us,
        // g = 8.75 / 20 = 0.4375: rate x (1 - 0.8 x 0.4375) = 0.65.
        t.on_ack(&mut x, &ack(11, 20, 70.0));
        assert!((t.rtt_diff - 8.75 * US as f64).abs() < 1.0);
        assert!((t.rate - 5e9 * 0.65).abs() < 1.0, "rate {}", t.rate);
        // Below T_low: additive increase by 10 Mb/s per 10 Gb/s.
        t.on_ack(&mut x, &ack(21, 30, 40.0));
        assert!((t.rate - (5e9 * 0.65 + 1e7)).abs() < 1.0, "rate {}", t.rate);
        // Above T_high: rate x (1 - 0.8 (1 - 500/1000)) = 0.6, stage reset.
        let before = t.rate;
        t.on_ack(&mut x, &ack(31, 40, 1000.0));
        assert!((t.rate - before * 0.6).abs() < 1.0, "rate {}", t.rate);
        assert_eq!(t.inc_stage, 0);
    }

    #[test]
    fn five_increases_then_hyper_increase_capped_at_line_rate() {
        let mut t = timely();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        t.rate = 1e9;
        let mut seq = 1;
        t.on_ack(&mut x, &ack(seq, seq + 1, 30.0));
        for k in 0..7 {
            seq += 2;
            let before = t.rate;
            t.on_ack(&mut x, &ack(seq, seq + 1, 30.0));
            let step = if k >= 5 { 5e7 } else { 1e7 };
            assert!((t.rate - (before + step)).abs() < 1.0, "increase {k}: {} -> {}", before, t.rate);
        }
        t.rate = 9.99e9;
        t.on_ack(&mut x, &ack(seq + 2, seq + 3, 30.0));
        assert_eq!(t.rate, 1e10);
    }

    #[test]
    fn never_below_the_minimum_rate() {
        let mut t = timely();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        t.on_ack(&mut x, &ack(1, 2, 100.0));
        t.on_ack(&mut x, &ack(3, 4, 400.0)); // g = 0.875 x 300 / 20 > 1: factor 0
        assert_eq!(t.rate, 1e8);
    }

    #[test]
    fn plus_win_caps_bytes_in_flight_at_one_bdp() {
        use crate::models::window_cap::WindowCap;
        assert_eq!(timely().window(), None, "rate only by default");
        let p = TimelyParams { window: Some(WindowCap::Bdp), ..TimelyParams::default() };
        // 10 Gb/s x 10 us = 12 500 B, whatever the rate does.
        let mut t = Timely::from_params(&p, &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1086, mss: 1000, base_rtt: SimTime::us(10) });
        assert_eq!(t.window(), Some(12_500));
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        t.on_ack(&mut x, &ack(1, 2, 100.0));
        t.on_ack(&mut x, &ack(3, 4, 400.0));
        assert_eq!(t.window(), Some(12_500));
        let p = TimelyParams { window: Some(WindowCap::Bytes(4000)), ..TimelyParams::default() };
        assert_eq!(
            Timely::from_params(&p, &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1086, mss: 1000, base_rtt: SimTime::us(10) }).window(),
            Some(4000)
        );
    }

    #[test]
    fn var_window_follows_the_rate() {
        use crate::models::window_cap::WindowCap;
        // 10 Gb/s x 10 us = 12 500 B at line rate, scaled by rate / 10 Gb/s, rounded down.
        let p = TimelyParams { window: Some(WindowCap::Bdp), var_window: true, ..TimelyParams::default() };
        let mut t = Timely::from_params(&p, &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1086, mss: 1000, base_rtt: SimTime::us(10) });
        assert_eq!(t.window(), Some(12_500));
        for (rate, w) in [(5e9, 6_250), (3.3e9, 4_125), (1.234e9, 1_542), (8e8, 1_000)] {
            t.rate = rate;
            assert_eq!(t.window(), Some(w), "window at {rate}");
        }
        // RTTs far above T_high cut down to rate_min (100 Mb/s): 125 B, under one packet.
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        let mut seq = 1;
        for _ in 0..40 {
            t.on_ack(&mut x, &ack(seq, seq + 1, 100_000.0));
            seq += 2;
        }
        assert_eq!(t.rate, 1e8);
        assert_eq!(t.window(), Some(125));
    }
}
