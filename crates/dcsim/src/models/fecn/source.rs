//! `fecn`: the FECN / E-FECN source (../shared/models/bcn-fecn.md 7.3, 7.4).
//!
//! ```text
//! OnStart:          R = initial rate (C / N0; seed 002: N0 = 1, the line rate);
//!                   send a probe; arm the probe timer and the timeout
//! probe timer:      send a probe; re-arm (every probe_interval)
//! probe returned:   if rate > 0: R = min(C, rate) (E-FECN: at least R_min); re-arm the timeout
//! timeout:          R = R_min (no feedback for `timeout`: "return to lower rate")
//! E-FECN, BCN00:    R = R_min, then probing goes on as before
//! ```
//!
//! Timer kinds: 0 = probe timer, 1 = timeout. The timeout is armed at the start too, so
//! that a source whose probes never come back also falls back to R_min.

use crate::models::{CcCtx, CongestionControl, Feedback, TimerKind};
use crate::units::{Rate, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct FecnParams {
    /// Probe (tagging) interval T.
    pub probe_interval: SimTime,
    /// Time without a returned probe after which the rate drops to R_min.
    pub timeout: SimTime,
    /// Rate at the start (C / N0); None = the line rate (N0 = 1).
    pub initial_rate: Option<Rate>,
    /// R_min: the rate after a timeout, and (E-FECN) after BCN00 and the floor of
    /// advertised rates taken from probes.
    pub r_min: Rate,
    /// E-FECN: react to BCN00 and floor the rate at R_min.
    pub efecn: bool,
}

impl Default for FecnParams {
    /// Seed 002 FECN: T = 1 ms, timeout 2 ms, start at the line rate (N0 = 1),
    /// R_min = C / 20 = 500 Mb/s (for 10 Gb/s), E-FECN off.
    fn default() -> Self {
        FecnParams { probe_interval: SimTime::ms(1), timeout: SimTime::ms(2), initial_rate: None, r_min: Rate::mbps(500), efecn: false }
    }
}

impl FecnParams {
    /// Seed 002 E-FECN: the FECN defaults with E-FECN on.
    pub fn efecn() -> Self {
        FecnParams { efecn: true, ..FecnParams::default() }
    }
}

/// Timer kind of the probe timer.
pub const TIMER_PROBE: TimerKind = 0;
/// Timer kind of the feedback timeout.
pub const TIMER_TIMEOUT: TimerKind = 1;

#[derive(Clone, Debug)]
pub struct Fecn {
    pub(crate) p: FecnParams,
    pub(crate) line_rate: Rate,
    pub(crate) rate: Rate,
}

impl Fecn {
    pub fn new(p: FecnParams, line_rate: Rate) -> Self {
        let rate = p.initial_rate.unwrap_or(line_rate).min(line_rate);
        Fecn { p, line_rate, rate }
    }

    #[inline]
    fn r_min(&self) -> Rate {
        self.p.r_min.min(self.line_rate)
    }
}

impl CongestionControl for Fecn {
    type Params = FecnParams;
    fn from_params(p: &FecnParams, nic: &crate::models::NicSpec) -> Self {
        Fecn::new(p.clone(), nic.line_rate)
    }
    fn on_start(&mut self, ctx: &mut CcCtx) {
        self.rate = self.p.initial_rate.unwrap_or(self.line_rate).min(self.line_rate);
        ctx.send_probe = true;
        ctx.restart_timer(TIMER_PROBE, self.p.probe_interval);
        ctx.restart_timer(TIMER_TIMEOUT, self.p.timeout);
    }

    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) {
        match fb {
            Feedback::FecnRate { rate } if rate.0 > 0 => {
                let mut r = rate.min(self.line_rate);
                if self.p.efecn {
                    r = r.max(self.r_min());
                }
                self.rate = r;
                ctx.restart_timer(TIMER_TIMEOUT, self.p.timeout);
            }
            Feedback::BcnStop { .. } if self.p.efecn => self.rate = self.r_min(),
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        match kind {
            TIMER_PROBE => {
                ctx.send_probe = true;
                ctx.restart_timer(TIMER_PROBE, self.p.probe_interval);
            }
            TIMER_TIMEOUT => self.rate = self.r_min(),
            _ => {}
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
    const US: u64 = 1_000_000; // ps

    fn ctx(t_ps: u64) -> CcCtx {
        CcCtx::new(SimTime(t_ps), Rate::gbps(10))
    }

    /// Requested timers, sorted by kind, as (kind, absolute ps).
    fn req(c: &CcCtx) -> Vec<(u8, u64)> {
        let mut v: Vec<_> = c.requested().iter().map(|&(k, t)| (k, t.0)).collect();
        v.sort();
        v
    }

    #[test]
    fn start_probes_and_arms_timers() {
        let mut f = Fecn::new(FecnParams::default(), Rate::gbps(10));
        let mut x = ctx(5 * MS);
        f.on_start(&mut x);
        // N0 = 1: starts at the line rate, 10 Gb/s.
        assert_eq!(f.rate(), Rate::gbps(10));
        assert!(x.send_probe);
        assert_eq!(req(&x), vec![(TIMER_PROBE, 6 * MS), (TIMER_TIMEOUT, 7 * MS)]);
        // Each probe-timer expiry sends a probe and re-arms 1 ms later.
        let mut x = ctx(6 * MS);
        f.on_timer(&mut x, TIMER_PROBE);
        assert!(x.send_probe);
        assert_eq!(req(&x), vec![(TIMER_PROBE, 7 * MS)]);
        assert_eq!(f.rate(), Rate::gbps(10));
    }

    #[test]
    fn initial_rate_c_over_n0() {
        // FECN-PSEUDO's N0 = 200 at 10 Gb/s: 50 Mb/s; an initial rate above C is capped.
        let f = Fecn::new(FecnParams { initial_rate: Some(Rate::mbps(50)), ..FecnParams::default() }, Rate::gbps(10));
        assert_eq!(f.rate(), Rate::mbps(50));
        let f = Fecn::new(FecnParams { initial_rate: Some(Rate::gbps(40)), ..FecnParams::default() }, Rate::gbps(10));
        assert_eq!(f.rate(), Rate::gbps(10));
    }

    #[test]
    fn rate_from_feedback_and_timeout() {
        let mut f = Fecn::new(FecnParams::default(), Rate::gbps(10));
        f.on_start(&mut ctx(0));
        // Probe back at 10 us with 2.5 Gb/s (C/4): R = 2.5 Gb/s; timeout re-armed to 2.01 ms.
        let mut x = ctx(10 * US);
        f.on_feedback(&mut x, Feedback::FecnRate { rate: Rate::mbps(2500) });
        assert_eq!(f.rate(), Rate::mbps(2500));
        assert_eq!(req(&x), vec![(TIMER_TIMEOUT, 2 * MS + 10 * US)]);
        assert!(!x.send_probe);
        // Plain FECN takes a rate below R_min as it is (no floor): 200 Mb/s.
        f.on_feedback(&mut ctx(20 * US), Feedback::FecnRate { rate: Rate::mbps(200) });
        assert_eq!(f.rate(), Rate::mbps(200));
        // Above the line rate: capped.
        f.on_feedback(&mut ctx(30 * US), Feedback::FecnRate { rate: Rate::gbps(40) });
        assert_eq!(f.rate(), Rate::gbps(10));
        // Rate 0 ("no rate yet"): ignored, the timeout is not re-armed.
        let mut x = ctx(40 * US);
        f.on_feedback(&mut x, Feedback::FecnRate { rate: Rate(0) });
        assert_eq!(f.rate(), Rate::gbps(10));
        assert!(x.requested().is_empty());
        // Plain FECN ignores BCN00 and BCN feedback.
        f.on_feedback(&mut ctx(50 * US), Feedback::BcnStop { cp: 1 });
        f.on_feedback(&mut ctx(50 * US), Feedback::Bcn { cp: 1, fb: -1875 });
        assert_eq!(f.rate(), Rate::gbps(10));
        // Timeout (no probe back for 2 ms): R = R_min = 500 Mb/s; not re-armed.
        let mut x = ctx(2 * MS + 30 * US);
        f.on_timer(&mut x, TIMER_TIMEOUT);
        assert_eq!(f.rate(), Rate::mbps(500));
        assert!(x.requested().is_empty());
        // The next returned probe restores the advertised rate.
        f.on_feedback(&mut ctx(3 * MS), Feedback::FecnRate { rate: Rate::mbps(3000) });
        assert_eq!(f.rate(), Rate::mbps(3000));
    }

    #[test]
    fn efecn_stop_and_floor() {
        let mut f = Fecn::new(FecnParams::efecn(), Rate::gbps(10));
        f.on_start(&mut ctx(0));
        // BCN00: straight to R_min = 500 Mb/s, probing unchanged (no timer request).
        let mut x = ctx(100 * US);
        f.on_feedback(&mut x, Feedback::BcnStop { cp: 3 });
        assert_eq!(f.rate(), Rate::mbps(500));
        assert!(x.requested().is_empty());
        // Advertised 200 Mb/s: E-FECN floors at R_min = 500 Mb/s.
        f.on_feedback(&mut ctx(200 * US), Feedback::FecnRate { rate: Rate::mbps(200) });
        assert_eq!(f.rate(), Rate::mbps(500));
        f.on_feedback(&mut ctx(300 * US), Feedback::FecnRate { rate: Rate::mbps(2500) });
        assert_eq!(f.rate(), Rate::mbps(2500));
    }

    #[test]
    fn finish_cancels_timers() {
        let mut f = Fecn::new(FecnParams::default(), Rate::gbps(10));
        f.on_start(&mut ctx(0));
        let mut x = ctx(MS);
        f.on_finish(&mut x);
        assert_eq!(x.cancelled() & 0b11, 0b11);
    }
}
