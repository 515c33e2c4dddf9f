//! `bcn`: the BCN rate regulator of a source (../shared/models/bcn-fecn.md 6.3).
//!
//! One regulator per queue pair, controlled by the congestion point (CP) that last sent
//! it negative feedback (`regulator_cp`; the CP puts positive feedback only to the
//! regulators it controls). With `Fb` in 64-byte units:
//!
//! ```text
//! Fb > 0:  R = min(C, R + Gi * Fb * Ru)                 additive increase
//! Fb < 0:  R = max(R_min, R * (1 - Gd * |Fb|))          multiplicative decrease
//! BCN00:   R = R_min                                    (the spec's MIN_RATE mode)
//! drift:   no BCN for drift_interval -> R = min(C, R (1 + drift)), every drift_interval;
//!          once R = C the regulator is released (no controlling CP any more)
//! ```
//!
//! Timer kinds: 0 = drift timer, restarted by every BCN message.
//! The rate starts at the line rate C. Rates are bit/s of wire bytes, kept as f64;
//! `rate()` rounds down to whole bit/s.

use crate::models::{CcCtx, CongestionControl, Feedback, TimerKind};
use crate::units::{Rate, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct BcnParams {
    /// Additive-increase gain Gi (per 64-B unit of Fb).
    pub gi: f64,
    /// Multiplicative-decrease gain Gd (per 64-B unit of Fb).
    pub gd: f64,
    /// Rate unit Ru of the additive increase.
    pub ru: Rate,
    /// Floor of the rate, and the rate after BCN00.
    pub r_min: Rate,
    /// Relative rate increase per drift interval without BCN (0 disables drift).
    pub drift: f64,
    /// Time without BCN after which (and then every which) the rate drifts up.
    pub drift_interval: SimTime,
}

impl Default for BcnParams {
    /// Seed 002: Gi = 0.533, Gd = 0.0002667, Ru = 1 Mb/s; R_min = 10 Mb/s and drift
    /// 1 % per 1 ms as bcn-fecn.md 6.4 sets them.
    fn default() -> Self {
        BcnParams { gi: 0.533, gd: 0.000_266_7, ru: Rate::mbps(1), r_min: Rate::mbps(10), drift: 0.01, drift_interval: SimTime::ms(1) }
    }
}

/// Timer kind of the drift timer.
pub const TIMER_DRIFT: TimerKind = 0;

#[derive(Clone, Debug)]
pub struct Bcn {
    pub(crate) p: BcnParams,
    pub(crate) line_rate: Rate,
    /// Current rate R (bit/s).
    pub(crate) r: f64,
    /// The CP controlling this regulator (the one that last sent negative feedback or BCN00).
    pub(crate) cp: Option<u32>,
    /// Kept for the engine's reading of the pacing rate (`rate()`).
    pub(crate) rate: Rate,
}

impl Bcn {
    pub fn new(p: BcnParams, line_rate: Rate) -> Self {
        Bcn { p, line_rate, r: line_rate.0 as f64, cp: None, rate: line_rate }
    }

    /// Current rate R as f64 (bit/s), unrounded.
    pub fn current_rate(&self) -> f64 {
        self.r
    }

    #[inline]
    fn c(&self) -> f64 {
        self.line_rate.0 as f64
    }

    #[inline]
    fn set(&mut self, r: f64) {
        let rmin = (self.p.r_min.0 as f64).min(self.c());
        self.r = r.clamp(rmin, self.c());
        self.rate = Rate(self.r as u64);
    }

    fn arm_drift(&self, ctx: &mut CcCtx) {
        if self.p.drift > 0.0 {
            ctx.restart_timer(TIMER_DRIFT, self.p.drift_interval);
        }
    }
}

impl CongestionControl for Bcn {
    type Params = BcnParams;
    fn from_params(p: &BcnParams, nic: &crate::models::NicSpec) -> Self {
        Bcn::new(p.clone(), nic.line_rate)
    }

    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) {
        match fb {
            Feedback::Bcn { cp, fb } if fb < 0 => {
                self.cp = Some(cp);
                let r = self.r * (1.0 - self.p.gd * (-fb) as f64);
                self.set(r);
                self.arm_drift(ctx);
            }
            Feedback::Bcn { cp, fb } if fb > 0 => {
                // Positive feedback only from the CP that controls this regulator.
                if self.cp != Some(cp) {
                    return;
                }
                let r = self.r + self.p.gi * fb as f64 * self.p.ru.0 as f64;
                self.set(r);
                self.arm_drift(ctx);
            }
            Feedback::BcnStop { cp } => {
                self.cp = Some(cp);
                self.set(0.0);
                self.arm_drift(ctx);
            }
            _ => {}
        }
    }

    fn regulator_cp(&self) -> Option<u32> {
        self.cp
    }

    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        if kind != TIMER_DRIFT {
            return;
        }
        let r = self.r * (1.0 + self.p.drift);
        self.set(r);
        if self.r >= self.c() {
            // Back at line rate: the regulator is released.
            self.cp = None;
        } else {
            self.arm_drift(ctx);
        }
    }

    fn rate(&self) -> Rate {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000; // ps

    fn ctx(t_ps: u64) -> CcCtx {
        CcCtx::new(SimTime(t_ps), Rate::gbps(10))
    }

    fn close(a: f64, b: f64) -> bool {
        ((a - b) / b).abs() <= 1e-12
    }

    fn req(c: &CcCtx) -> Vec<(u8, u64)> {
        c.requested().iter().map(|&(k, t)| (k, t.0)).collect()
    }

    fn bcn() -> Bcn {
        Bcn::new(BcnParams::default(), Rate::gbps(10))
    }

    #[test]
    fn starts_at_line_rate_without_timers() {
        let mut b = bcn();
        let mut x = ctx(0);
        b.on_start(&mut x);
        assert_eq!(b.rate(), Rate::gbps(10));
        assert!(x.requested().is_empty());
        assert_eq!(b.regulator_cp(), None);
    }

    #[test]
    fn bcnmax_halves_the_rate() {
        let mut b = bcn();
        let mut x = ctx(0);
        // Fb = -1875: R = 10e9 (1 - 0.0002667 * 1875) = 10e9 * 0.4999375 = 4.999375e9.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 7, fb: -1875 });
        assert!(close(b.current_rate(), 4.999_375e9), "{}", b.current_rate());
        assert_eq!(b.rate(), Rate(4_999_375_000));
        assert_eq!(b.regulator_cp(), Some(7));
        assert_eq!(req(&x), vec![(TIMER_DRIFT, MS)]);
        // A second one: 4.999375e9 * 0.4999375 = 2.4993750390625e9.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 9, fb: -1875 });
        assert!(close(b.current_rate(), 2.499_375_039_062_5e9));
        assert_eq!(b.regulator_cp(), Some(9), "the last CP to slow it down controls it");
    }

    #[test]
    fn maximal_positive_feedback_adds_about_1g() {
        let mut b = bcn();
        let mut x = ctx(0);
        b.on_feedback(&mut x, Feedback::Bcn { cp: 3, fb: -1875 }); // 4.999375e9
                                                                   // Fb = +1875: + 0.533 * 1875 * 1e6 = + 999.375e6 -> 5.99875e9.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 3, fb: 1875 });
        assert!(close(b.current_rate(), 5.998_75e9), "{}", b.current_rate());
        // Mild: Fb = +187 -> + 0.533 * 187 * 1e6 = 99.671e6 -> 6.098421e9.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 3, fb: 187 });
        assert!(close(b.current_rate(), 6.098_421e9), "{}", b.current_rate());
        // Positive feedback from a CP that does not control the regulator is ignored.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 4, fb: 1875 });
        assert!(close(b.current_rate(), 6.098_421e9));
        // Fb = 0: nothing.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 3, fb: 0 });
        assert!(close(b.current_rate(), 6.098_421e9));
    }

    #[test]
    fn floor_and_cap() {
        let mut b = bcn();
        let mut x = ctx(0);
        // Mild negative: Fb = -188 -> x (1 - 0.0501396) = 9.498604e9.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 1, fb: -188 });
        assert!(close(b.current_rate(), 9.498_604e9), "{}", b.current_rate());
        // Cap: + 999.375e6 would give 10.497979e9 -> C = 10e9.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 1, fb: 1875 });
        assert_eq!(b.current_rate(), 10e9);
        // Floor: 10 BCNMAX: 10e9 * 0.4999375^10 = 9.76e6 < 10 Mb/s -> R_min = 10e6.
        for _ in 0..10 {
            b.on_feedback(&mut x, Feedback::Bcn { cp: 1, fb: -1875 });
        }
        assert_eq!(b.current_rate(), 10e6);
        assert_eq!(b.rate(), Rate::mbps(10));
        // A factor below zero (|Fb| beyond Fb_max, e.g. from other gains) still floors.
        b.on_feedback(&mut x, Feedback::Bcn { cp: 1, fb: -10_000 });
        assert_eq!(b.current_rate(), 10e6);
    }

    #[test]
    fn bcn00_goes_to_r_min() {
        let mut b = bcn();
        let mut x = ctx(0);
        b.on_feedback(&mut x, Feedback::BcnStop { cp: 5 });
        assert_eq!(b.rate(), Rate::mbps(10));
        assert_eq!(b.regulator_cp(), Some(5));
        assert_eq!(req(&x), vec![(TIMER_DRIFT, MS)]);
    }

    #[test]
    fn drift_recovers_and_releases() {
        let mut b = Bcn::new(BcnParams { drift: 0.5, ..BcnParams::default() }, Rate::gbps(10));
        let mut x = ctx(0);
        b.on_feedback(&mut x, Feedback::Bcn { cp: 2, fb: -1875 }); // 4.999375e9
                                                                   // No BCN for 1 ms: x 1.5 = 7.4990625e9, re-armed.
        let mut x = ctx(MS);
        b.on_timer(&mut x, TIMER_DRIFT);
        assert!(close(b.current_rate(), 7.499_062_5e9));
        assert_eq!(req(&x), vec![(TIMER_DRIFT, 2 * MS)]);
        assert_eq!(b.regulator_cp(), Some(2));
        // Next: 11.25e9 -> capped at C; the regulator is released, no re-arm.
        let mut x = ctx(2 * MS);
        b.on_timer(&mut x, TIMER_DRIFT);
        assert_eq!(b.current_rate(), 10e9);
        assert!(x.requested().is_empty());
        assert_eq!(b.regulator_cp(), None);
    }

    #[test]
    fn default_drift_is_one_percent() {
        let mut b = bcn();
        let mut x = ctx(0);
        b.on_feedback(&mut x, Feedback::Bcn { cp: 2, fb: -1875 }); // 4.999375e9
        b.on_timer(&mut ctx(MS), TIMER_DRIFT);
        // 4.999375e9 * 1.01 = 5.04936875e9.
        assert!(close(b.current_rate(), 5.049_368_75e9));
    }
}
