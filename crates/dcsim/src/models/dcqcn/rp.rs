//! `dcqcn`: the DCQCN reaction point (../shared/models/dcqcn.md sections 4.4 and 4.5).
//!
//! Rates are bit/s of wire bytes. RC and RT are kept as f64 so that the halvings of the
//! spec stay exact; `rate()` hands RC to the pacer rounded down to whole bit/s.
//!
//! Timers (kinds): 0 = alpha timer (paper K / Mellanox alpha_resume_interval),
//! 1 = increase timer (paper T_inc / Mellanox rp_timer), 2 = Mellanox decrease check
//! (rate_decrease_interval). All are armed at the first CNP, not at the start.
//!
//! Both variants floor RC at R_min on a cut and never let RC or RT exceed the line rate.

use crate::models::{CcCtx, CongestionControl, TimerKind};
use crate::units::{Rate, SimTime};

/// `variant = "paper" | "mellanox"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DcqcnVariant {
    /// As published (Zhu et al., SIGCOMM 2015) and in htsim: a CNP cuts at once; alpha
    /// timer, increase timer and byte counter; fast recovery, additive, hyper increase.
    Paper,
    /// Mellanox CX4+ as in the HPCC simulator (`CC_MODE 1`): CNPs are collected and applied
    /// by a periodic decrease check; periodic alpha update; one increase timer, no byte counter.
    Mellanox,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnParams {
    pub variant: DcqcnVariant,
    /// alpha gain g.
    pub g: f64,
    pub alpha_init: f64,
    /// Paper: alpha timer period K. Mellanox: alpha_resume_interval.
    pub alpha_period: SimTime,
    /// Paper: increase timer T_inc. Mellanox: rp_timer.
    pub increase_period: SimTime,
    /// Mellanox: rate_decrease_interval.
    pub decrease_period: SimTime,
    /// Paper: byte counter B (bytes); 0 disables it.
    pub byte_counter: u64,
    /// Fast-recovery threshold F.
    pub f: u32,
    pub rate_ai: Rate,
    pub rate_hai: Rate,
    /// Floor of the current rate.
    pub rate_min: Rate,
    /// Mellanox: on a decrease, RT <- RC always (true) or only when stage != 0 (false).
    pub clamp_target_rate: bool,
    /// Mellanox: RC = RT = factor x RC on the first CNP.
    pub rate_on_first_cnp: f64,
    /// "+win": a cap on the bytes in flight (`None`: rate only, as DCQCN is).
    pub window: Option<crate::models::window_cap::WindowCap>,
    /// The cap follows RC: window x RC / line rate (`VAR_WIN 1`, the HPCC study's +win).
    pub var_window: bool,
}

impl DcqcnParams {
    /// The DCQCN paper's parameters (dcqcn.md 4.4, "simulator default set"): g = 1/256,
    /// K = T_inc = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s, R_HAI = 10 R_AI, R_min = 100 Mb/s.
    pub fn paper() -> Self {
        DcqcnParams {
            variant: DcqcnVariant::Paper,
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            alpha_period: SimTime::us(55),
            increase_period: SimTime::us(55),
            decrease_period: SimTime::us(4),
            byte_counter: 10_000_000,
            f: 5,
            rate_ai: Rate::mbps(40),
            rate_hai: Rate::mbps(400),
            rate_min: Rate::mbps(100),
            clamp_target_rate: true,
            rate_on_first_cnp: 1.0,
            window: None,
            var_window: false,
        }
    }

    /// The HPCC simulator's "dcqcn" (Mellanox CX4+) settings for a NIC of `line_rate`
    /// (dcqcn.md 4.5): alpha update every 1 us, decrease check every 4 us, rate-increase
    /// timer 300 us, g = 1/256, F = 1, R_AI = 5 Mb/s and R_HAI = 50 Mb/s per 25 Gb/s of
    /// NIC rate, R_min = 1 Gb/s... capped at the line rate / 10 for slow NICs.
    pub fn mellanox(line_rate: Rate) -> Self {
        let per25 = line_rate.0 as f64 / 25e9;
        DcqcnParams {
            variant: DcqcnVariant::Mellanox,
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            alpha_period: SimTime::us(1),
            increase_period: SimTime::us(300),
            decrease_period: SimTime::us(4),
            byte_counter: 0,
            f: 1,
            rate_ai: Rate((5e6 * per25) as u64),
            rate_hai: Rate((50e6 * per25) as u64),
            rate_min: Rate::mbps(1000).min(Rate(line_rate.0 / 10)),
            clamp_target_rate: false,
            rate_on_first_cnp: 1.0,
            window: None,
            var_window: false,
        }
    }
}

/// Timer kinds of the DCQCN reaction point.
pub const TIMER_ALPHA: TimerKind = 0;
/// Paper: the increase timer T_inc. Mellanox: the rate-increase timer (rp_timer).
pub const TIMER_INCREASE: TimerKind = 1;
/// Mellanox only: the periodic decrease check.
pub const TIMER_DECREASE: TimerKind = 2;

#[derive(Clone, Debug)]
pub struct Dcqcn {
    pub(crate) p: DcqcnParams,
    pub(crate) line_rate: Rate,
    /// Current and target rate (bit/s, as f64 to keep the paper's arithmetic exact).
    pub(crate) rc: f64,
    pub(crate) rt: f64,
    pub(crate) alpha: f64,
    /// No CNP has arrived yet (timers not armed).
    pub(crate) first_cnp: bool,
    /// Paper: timer stage counter T. Mellanox: the stage counter of the rate-increase timer.
    pub(crate) t_stage: u32,
    /// Paper: byte-counter stage counter BC.
    pub(crate) bc_stage: u32,
    /// Paper: wire bytes sent since the last byte-counter event (or CNP).
    pub(crate) bytes: u64,
    /// Mellanox: a CNP arrived since the last alpha update.
    pub(crate) alpha_cnp: bool,
    /// Mellanox: a CNP arrived since the last decrease check.
    pub(crate) decrease_cnp: bool,
    /// "+win": bytes in flight allowed at line rate.
    window: Option<u64>,
}

impl Dcqcn {
    pub fn new(p: DcqcnParams, line_rate: Rate) -> Self {
        let alpha = p.alpha_init;
        let c = line_rate.0 as f64;
        Dcqcn {
            p,
            line_rate,
            rc: c,
            rt: c,
            alpha,
            first_cnp: true,
            t_stage: 0,
            bc_stage: 0,
            bytes: 0,
            alpha_cnp: false,
            decrease_cnp: false,
            window: None,
        }
    }
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn target_rate(&self) -> f64 {
        self.rt
    }
    /// Current rate RC as f64 (bit/s), unrounded.
    pub fn current_rate(&self) -> f64 {
        self.rc
    }

    #[inline]
    fn c(&self) -> f64 {
        self.line_rate.0 as f64
    }

    /// RC <- max(R_min, RC (1 - alpha/2)), never above the line rate.
    #[inline]
    fn cut(&mut self) {
        let r = (self.rc * (1.0 - self.alpha / 2.0)).max(self.p.rate_min.0 as f64);
        self.rc = r.min(self.c());
    }

    // ---- paper variant (dcqcn.md 4.4) ----

    fn paper_cnp(&mut self, ctx: &mut CcCtx) {
        self.first_cnp = false;
        self.rt = self.rc;
        self.cut();
        // Cut with the old alpha, then update it (CUT_THEN_UPDATE).
        self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g;
        self.t_stage = 0;
        self.bc_stage = 0;
        self.bytes = 0;
        ctx.restart_timer(TIMER_ALPHA, self.p.alpha_period);
        ctx.restart_timer(TIMER_INCREASE, self.p.increase_period);
    }

    /// IncreaseRate() of dcqcn.md 4.4, with its boundaries: max(T,BC) <= F fast recovery,
    /// min(T,BC) > F hyper increase, otherwise additive increase. RC is averaged with the
    /// raised RT before RT and RC are capped at the line rate, as the spec writes it.
    fn paper_increase(&mut self) {
        let f = self.p.f;
        let (hi, lo) = (self.t_stage.max(self.bc_stage), self.t_stage.min(self.bc_stage));
        if hi <= f {
            self.rc = (self.rt + self.rc) / 2.0;
        } else if lo > f {
            self.rt += (lo - f) as f64 * self.p.rate_hai.0 as f64;
            self.rc = (self.rt + self.rc) / 2.0;
        } else {
            self.rt += self.p.rate_ai.0 as f64;
            self.rc = (self.rt + self.rc) / 2.0;
        }
        let c = self.c();
        self.rt = self.rt.min(c);
        self.rc = self.rc.min(c);
    }

    // ---- Mellanox variant (dcqcn.md 4.5) ----

    fn mlx_cnp(&mut self, ctx: &mut CcCtx) {
        self.alpha_cnp = true;
        self.decrease_cnp = true;
        if self.first_cnp {
            self.alpha = 1.0;
            self.alpha_cnp = false;
            ctx.restart_timer(TIMER_ALPHA, self.p.alpha_period);
            ctx.restart_timer(TIMER_DECREASE, self.p.decrease_period + SimTime::ns(1));
            let r = (self.p.rate_on_first_cnp * self.rc).max(self.p.rate_min.0 as f64).min(self.c());
            self.rc = r;
            self.rt = r;
            self.first_cnp = false;
        }
    }

    fn mlx_alpha_update(&mut self, ctx: &mut CcCtx) {
        self.alpha = if self.alpha_cnp { (1.0 - self.p.g) * self.alpha + self.p.g } else { (1.0 - self.p.g) * self.alpha };
        self.alpha_cnp = false;
        ctx.restart_timer(TIMER_ALPHA, self.p.alpha_period);
    }

    fn mlx_decrease_check(&mut self, ctx: &mut CcCtx) {
        ctx.restart_timer(TIMER_DECREASE, self.p.decrease_period);
        if self.decrease_cnp {
            if self.p.clamp_target_rate || self.t_stage != 0 {
                self.rt = self.rc;
            }
            self.cut();
            self.t_stage = 0;
            self.decrease_cnp = false;
            ctx.restart_timer(TIMER_INCREASE, self.p.increase_period);
        }
    }

    fn mlx_increase(&mut self, ctx: &mut CcCtx) {
        ctx.restart_timer(TIMER_INCREASE, self.p.increase_period);
        let c = self.c();
        let f = self.p.f;
        if self.t_stage < f {
            self.rc = (self.rc + self.rt) / 2.0;
        } else if self.t_stage == f {
            self.rt = (self.rt + self.p.rate_ai.0 as f64).min(c);
            self.rc = (self.rc + self.rt) / 2.0;
        } else {
            self.rt = (self.rt + self.p.rate_hai.0 as f64).min(c);
            self.rc = (self.rc + self.rt) / 2.0;
        }
        self.rc = self.rc.min(c);
        self.t_stage = self.t_stage.saturating_add(1);
    }
}

impl CongestionControl for Dcqcn {
    type Params = DcqcnParams;
    fn from_params(p: &DcqcnParams, nic: &crate::models::NicSpec) -> Self {
        Dcqcn { window: p.window.map(|w| w.bytes(nic)), ..Dcqcn::new(p.clone(), nic.line_rate) }
    }
    fn window(&self) -> Option<u64> {
        crate::models::window_cap::at_rate(self.window, self.p.var_window, self.rc, self.c())
    }
    // on_start: nothing to do, both variants arm their timers at the first CNP.

    /// Paper variant: the byte counter. Before the first CNP it is not kept: the CNP resets
    /// it and the stage counters anyway, and RC = RT = C meanwhile, so counting would change
    /// nothing. Mellanox variant: no byte counter.
    #[inline]
    fn on_send(&mut self, _: &mut CcCtx, wire_bytes: u32) {
        if self.p.variant != DcqcnVariant::Paper || self.p.byte_counter == 0 || self.first_cnp {
            return;
        }
        self.bytes += wire_bytes as u64;
        if self.bytes >= self.p.byte_counter {
            // As in dcqcn.md 4.4: the counter restarts from 0 (the excess is not carried).
            self.bytes = 0;
            self.bc_stage = self.bc_stage.saturating_add(1);
            self.paper_increase();
        }
    }

    /// Only the paper variant's byte counter counts sends.
    fn wants_send(&self) -> bool {
        self.p.variant == DcqcnVariant::Paper && self.p.byte_counter != 0
    }

    /// The alpha update only feeds the next cut, which a hook makes; the Mellanox
    /// decrease check does nothing without a CNP since the last one; an increase at
    /// RC = RT = C changes nothing (RT + step and the mean of RC and RT are capped at C).
    fn quiet_timer(&self, kind: TimerKind) -> bool {
        match kind {
            TIMER_ALPHA => true,
            TIMER_DECREASE => !self.decrease_cnp,
            TIMER_INCREASE => self.rc == self.c() && self.rt == self.c(),
            _ => false,
        }
    }

    fn on_cnp(&mut self, ctx: &mut CcCtx) {
        match self.p.variant {
            DcqcnVariant::Paper => self.paper_cnp(ctx),
            DcqcnVariant::Mellanox => self.mlx_cnp(ctx),
        }
    }

    /// Timers keep running for the life of the queue pair once armed, also after RC has
    /// recovered to the line rate (the engine cancels them in `on_finish`): the alpha
    /// decay must go on so that the next cut uses the right alpha, and an increase at
    /// RC = RT = C changes nothing.
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        match (self.p.variant, kind) {
            (DcqcnVariant::Paper, TIMER_ALPHA) => {
                self.alpha *= 1.0 - self.p.g;
                ctx.restart_timer(TIMER_ALPHA, self.p.alpha_period);
            }
            (DcqcnVariant::Paper, TIMER_INCREASE) => {
                self.t_stage = self.t_stage.saturating_add(1);
                self.paper_increase();
                ctx.restart_timer(TIMER_INCREASE, self.p.increase_period);
            }
            (DcqcnVariant::Mellanox, TIMER_ALPHA) => self.mlx_alpha_update(ctx),
            (DcqcnVariant::Mellanox, TIMER_DECREASE) => self.mlx_decrease_check(ctx),
            (DcqcnVariant::Mellanox, TIMER_INCREASE) => self.mlx_increase(ctx),
            _ => {}
        }
    }

    /// RC rounded down to whole bit/s (at least 1 bit/s, so that pacing never divides by 0).
    #[inline]
    fn rate(&self) -> Rate {
        Rate((self.rc as u64).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000; // ps

    fn ctx(t_ps: u64, c: Rate) -> CcCtx {
        CcCtx::new(SimTime(t_ps), c)
    }

    fn close(a: f64, b: f64) -> bool {
        ((a - b) / b).abs() <= 1e-9
    }

    /// Requested timers, sorted by kind, as (kind, absolute ps).
    fn req(c: &CcCtx) -> Vec<(u8, u64)> {
        let mut v: Vec<_> = c.requested().iter().map(|&(k, t)| (k, t.0)).collect();
        v.sort();
        v
    }

    #[track_caller]
    fn check(d: &Dcqcn, rc: f64, rt: f64) {
        assert_eq!(d.current_rate(), rc, "RC");
        assert_eq!(d.target_rate(), rt, "RT");
    }

    #[test]
    fn paper_script_40g() {
        let c = Rate::gbps(40);
        let mut d = Dcqcn::new(DcqcnParams::paper(), c);
        let mut x = ctx(0, c);
        d.on_start(&mut x);
        assert!(x.requested().is_empty(), "no timer before the first CNP");
        assert_eq!(d.rate(), Rate(40_000_000_000));

        // CNP at 0: RT = 40e9; RC = 40e9 (1 - 1/2) = 20e9; alpha = (255/256) 1 + 1/256 = 1.
        let mut x = ctx(0, c);
        d.on_cnp(&mut x);
        check(&d, 20e9, 40e9);
        assert_eq!(d.alpha(), 1.0);
        assert_eq!(req(&x), vec![(0, 55 * US), (1, 55 * US)]);
        assert_eq!(d.rate(), Rate(20_000_000_000));

        // CNP at 10 us: RT = 20e9; RC = 10e9; alpha stays 1; timers restarted to 65 us.
        let mut x = ctx(10 * US, c);
        d.on_cnp(&mut x);
        check(&d, 10e9, 20e9);
        assert_eq!(d.alpha(), 1.0);
        assert_eq!(req(&x), vec![(0, 65 * US), (1, 65 * US)]);

        // Alpha timer at 65, 120, 175 us: alpha = 255/256 = 0.99609375,
        // 65025/65536 = 0.9922027587890625, 16581375/16777216 = 0.98832696676254272...
        let alphas = [0.99609375, 0.9922027587890625, 16581375.0 / 16777216.0];
        for (i, &a) in alphas.iter().enumerate() {
            let t = (65 + 55 * i as u64) * US;
            let mut x = ctx(t, c);
            d.on_timer(&mut x, 0);
            assert_eq!(d.alpha(), a);
            assert_eq!(req(&x), vec![(0, t + 55 * US)], "alpha timer restarts only itself");
            check(&d, 10e9, 20e9);
        }

        // Increase timer, T = 1..5, BC = 0: max(T,BC) <= 5, fast recovery RC = (RT+RC)/2:
        // 15e9, 17.5e9, 18.75e9, 19.375e9, 19.6875e9 (RT stays 20e9).
        let fast = [15e9, 17.5e9, 18.75e9, 19.375e9, 19.6875e9];
        for (i, &rc) in fast.iter().enumerate() {
            let t = (65 + 55 * i as u64) * US;
            let mut x = ctx(t, c);
            d.on_timer(&mut x, 1);
            check(&d, rc, 20e9);
            assert_eq!(req(&x), vec![(1, t + 55 * US)]);
        }
        // T = 6, BC = 0: max = 6 > 5, min = 0 <= 5 -> additive: RT = 20e9 + 40e6 = 20.04e9,
        // RC = (20.04e9 + 19.6875e9)/2 = 19.86375e9.
        let mut x = ctx(340 * US, c);
        d.on_timer(&mut x, 1);
        check(&d, 19_863_750_000.0, 20_040_000_000.0);
        // T = 7: additive: RT = 20.08e9, RC = (20.08e9 + 19.86375e9)/2 = 19.971875e9.
        let mut x = ctx(395 * US, c);
        d.on_timer(&mut x, 1);
        check(&d, 19_971_875_000.0, 20_080_000_000.0);
        assert_eq!(d.rate(), Rate(19_971_875_000));

        // Byte counter B = 10 MB: 4 + 4 MB do nothing; the third 4 MB reaches 12 MB >= 10 MB:
        // BC = 1, counter back to 0 (the excess 2 MB is dropped). T = 7, BC = 1 -> additive:
        // RT = 20.12e9, RC = (20.12e9 + 19.971875e9)/2 = 20.0459375e9.
        let mut x = ctx(400 * US, c);
        d.on_send(&mut x, 4_000_000);
        d.on_send(&mut x, 4_000_000);
        check(&d, 19_971_875_000.0, 20_080_000_000.0);
        d.on_send(&mut x, 4_000_000);
        check(&d, 20_045_937_500.0, 20_120_000_000.0);
        assert!(x.requested().is_empty(), "byte counter requests no timer");
        // 8 MB more: 8 MB < 10 MB (the earlier excess was not carried): no change.
        d.on_send(&mut x, 4_000_000);
        d.on_send(&mut x, 4_000_000);
        check(&d, 20_045_937_500.0, 20_120_000_000.0);
        // 2 MB more: 10 MB -> BC = 2, additive: RT = 20.16e9,
        // RC = (20.16e9 + 20.0459375e9)/2 = 20.10296875e9.
        d.on_send(&mut x, 2_000_000);
        check(&d, 20_102_968_750.0, 20_160_000_000.0);
        // BC = 3, 4, 5 (min(T,BC) <= 5): additive each, RT += 40e6, RC = (RT + RC)/2:
        // BC=3: RT 20.20e9, RC (20.20e9 + 20.10296875e9)/2    = 20.151484375e9
        // BC=4: RT 20.24e9, RC (20.24e9 + 20.151484375e9)/2   = 20.1957421875e9
        // BC=5: RT 20.28e9, RC (20.28e9 + 20.1957421875e9)/2  = 20.23787109375e9
        let add = [(20_151_484_375.0, 20_200_000_000.0), (20_195_742_187.5, 20_240_000_000.0), (20_237_871_093.75, 20_280_000_000.0)];
        for &(rc, rt) in &add {
            d.on_send(&mut x, 10_000_000);
            check(&d, rc, rt);
        }
        // BC = 6, T = 7: min = 6 > 5 -> hyper: RT = 20.28e9 + (6-5) 400e6 = 20.68e9,
        // RC = (20.68e9 + 20.23787109375e9)/2 = 20.458935546875e9.
        d.on_send(&mut x, 10_000_000);
        check(&d, 20_458_935_546.875, 20_680_000_000.0);
        // Increase timer: T = 8, BC = 6: min = 6 -> hyper +400e6: RT = 21.08e9,
        // RC = (21.08e9 + 20.458935546875e9)/2 = 20.7694677734375e9.
        let mut x = ctx(450 * US, c);
        d.on_timer(&mut x, 1);
        check(&d, 20_769_467_773.437_5, 21_080_000_000.0);
        assert_eq!(d.rate(), Rate(20_769_467_773));
        // BC = 7, T = 8: min = 7 -> hyper with (7-5) 400e6 = 800e6: RT = 21.88e9,
        // RC = (21.88e9 + 20.7694677734375e9)/2 = 21.32473388671875e9.
        d.on_send(&mut x, 10_000_000);
        check(&d, 21_324_733_886.718_75, 21_880_000_000.0);
        // Alpha was untouched by all increases: still (255/256)^3.
        assert_eq!(d.alpha(), 16581375.0 / 16777216.0);

        // A CNP now cuts with alpha = 16581375/16777216: RT = RC = 21.32473388671875e9,
        // RC = RT (1 - alpha/2) = 21.32473388671875e9 x 16973057/33554432 (33554432 - 16581375 = 16973057)
        //    = 10786829107.08...; alpha = (255 x 16581375 + 16777216)/2^32 = 4245027841/2^32.
        // All stage counters and the byte counter restart.
        let mut x = ctx(500 * US, c);
        d.on_cnp(&mut x);
        assert_eq!(d.target_rate(), 21_324_733_886.718_75);
        assert!(close(d.current_rate(), 10_786_829_107.08), "{}", d.current_rate());
        assert_eq!(d.alpha(), 4245027841.0 / 4294967296.0);
        assert_eq!((d.t_stage, d.bc_stage, d.bytes), (0, 0, 0));
        assert_eq!(req(&x), vec![(0, 555 * US), (1, 555 * US)]);
    }

    #[test]
    fn paper_rate_min_floor_and_line_rate_cap() {
        let c = Rate::gbps(40);
        // R_min = 100 Mb/s, alpha = 1 throughout (CNPs back to back): each CNP halves RC:
        // 20e9, 10e9, 5e9, 2.5e9, 1.25e9, 625e6, 312.5e6, 156.25e6, then 78.125e6 < 100e6
        // -> floored at 100e6, and again 100e6 on the 10th.
        let mut d = Dcqcn::new(DcqcnParams::paper(), c);
        let expect = [20e9, 10e9, 5e9, 2.5e9, 1.25e9, 625e6, 312.5e6, 156.25e6, 100e6, 100e6];
        for &rc in &expect {
            let mut x = ctx(0, c);
            d.on_cnp(&mut x);
            assert_eq!(d.current_rate(), rc);
        }
        assert_eq!(d.rate(), Rate::mbps(100));
        assert_eq!(d.target_rate(), 100e6, "RT <- RC before the last cut");

        // A higher floor: R_min = 15 Gb/s: 40e9 -> 20e9 -> max(15e9, 10e9) = 15e9.
        let p = DcqcnParams { rate_min: Rate::gbps(15), ..DcqcnParams::paper() };
        let mut d = Dcqcn::new(p, c);
        d.on_cnp(&mut ctx(0, c));
        assert_eq!(d.current_rate(), 20e9);
        d.on_cnp(&mut ctx(0, c));
        assert_eq!(d.current_rate(), 15e9);

        // Cap: one CNP (RT = 40e9, RC = 20e9), then the increase timer only.
        // T=1..5 fast: RC = 30e9, 35e9, 37.5e9, 38.75e9, 39.375e9.
        // T=6 additive: RT = 40.04e9, RC = (40.04e9 + 39.375e9)/2 = 39.7075e9, RT -> 40e9.
        // T=7: RT 40.04e9, RC = (40.04e9 + 39.7075e9)/2 = 39.87375e9, RT -> 40e9.
        // T=8: RC = (40.04e9 + 39.87375e9)/2 = 39.956875e9.
        // T=9: RC = (40.04e9 + 39.956875e9)/2 = 39.9984375e9 (RC averages with the raised
        //      RT before the cap, as written in dcqcn.md 4.4).
        // T=10: RC = (40.04e9 + 39.9984375e9)/2 = 40.01921875e9 -> capped at 40e9.
        let mut d = Dcqcn::new(DcqcnParams::paper(), c);
        d.on_cnp(&mut ctx(0, c));
        let rcs = [30e9, 35e9, 37.5e9, 38.75e9, 39.375e9, 39.7075e9, 39.87375e9, 39.956875e9, 39.9984375e9, 40e9, 40e9];
        for &rc in &rcs {
            d.on_timer(&mut ctx(0, c), 1);
            assert_eq!(d.current_rate(), rc);
            // RT: 40e9 throughout (fast recovery keeps it; additive raises it and it is capped).
            assert_eq!(d.target_rate(), 40e9);
        }
        assert_eq!(d.rate(), c);
        // Hyper increase keeps both at the line rate too.
        for _ in 0..10 {
            d.on_send(&mut ctx(0, c), 10_000_000);
        }
        assert_eq!((d.current_rate(), d.target_rate()), (40e9, 40e9));
        // Before the first CNP the byte counter is not kept (nothing to recover).
        let mut d = Dcqcn::new(DcqcnParams::paper(), c);
        d.on_send(&mut ctx(0, c), 20_000_000);
        assert_eq!((d.bc_stage, d.bytes), (0, 0));
    }

    #[test]
    fn mellanox_first_cnp_alpha_and_decrease_check() {
        // 100 Gb/s NIC, HPCC-simulator settings: alpha every 1 us, decrease check every 4 us,
        // rp_timer 300 us, g = 1/256, F = 1, R_AI = 20 Mb/s, R_HAI = 200 Mb/s, R_min = 1 Gb/s.
        let c = Rate::gbps(100);
        let p = DcqcnParams::mellanox(c);
        assert_eq!((p.rate_ai, p.rate_hai, p.rate_min), (Rate::mbps(20), Rate::mbps(200), Rate::gbps(1)));
        let mut d = Dcqcn::new(p, c);
        d.on_start(&mut ctx(0, c));
        // First CNP at 0: alpha = 1, no cut yet; alpha update at 1 us, decrease check at
        // 4 us + 1 ns. RC = RT = 1.0 x RC = 100e9.
        let mut x = ctx(0, c);
        d.on_cnp(&mut x);
        assert_eq!(d.alpha(), 1.0);
        check(&d, 100e9, 100e9);
        assert_eq!(req(&x), vec![(0, US), (2, 4 * US + 1_000)]);
        // Alpha update at 1 us: the first CNP does not count: alpha = 255/256.
        let mut x = ctx(US, c);
        d.on_timer(&mut x, 0);
        assert_eq!(d.alpha(), 0.99609375);
        assert_eq!(req(&x), vec![(0, 2 * US)]);
        // CNP at 1.5 us: flags only, no rate change, no timer.
        let mut x = ctx(1_500_000, c);
        d.on_cnp(&mut x);
        check(&d, 100e9, 100e9);
        assert!(x.requested().is_empty());
        // 2 us, with CNP: alpha = (255/256)(255/256) + 1/256 = 65281/65536 = 0.9961090087890625.
        d.on_timer(&mut ctx(2 * US, c), 0);
        assert_eq!(d.alpha(), 0.9961090087890625);
        // 3 us, 4 us without: 16646655/16777216, then 4244897025/4294967296.
        d.on_timer(&mut ctx(3 * US, c), 0);
        assert_eq!(d.alpha(), 16646655.0 / 16777216.0);
        d.on_timer(&mut ctx(4 * US, c), 0);
        assert_eq!(d.alpha(), 4244897025.0 / 4294967296.0);
        // Decrease check at 4 us + 1 ns: one cut for the two CNPs. stage 0 and no clamp:
        // RT stays 100e9. RC = 100e9 (1 - alpha/2) = 100e9 x 4345037567 / 8589934592
        // = 50582894671.24...; rate-increase timer at 304 us + 1 ns, next check at 8 us + 1 ns.
        let mut x = ctx(4 * US + 1_000, c);
        d.on_timer(&mut x, 2);
        assert!(close(d.current_rate(), 50_582_894_671.24), "{}", d.current_rate());
        assert_eq!(d.target_rate(), 100e9);
        assert_eq!(d.rate(), Rate(50_582_894_671));
        assert_eq!(req(&x), vec![(1, 304 * US + 1_000), (2, 8 * US + 1_000)]);
        // No CNP in the next period: no cut, only the check itself is rescheduled.
        let mut x = ctx(8 * US + 1_000, c);
        d.on_timer(&mut x, 2);
        assert!(close(d.current_rate(), 50_582_894_671.24));
        assert_eq!(req(&x), vec![(2, 12 * US + 1_000)]);
        // alpha update without CNP: alpha (255/256) = 1082448741375/1099511627776.
        d.on_timer(&mut ctx(5 * US, c), 0);
        assert_eq!(d.alpha(), 1082448741375.0 / 1099511627776.0);
    }

    #[test]
    fn mellanox_stages_f1() {
        // 40 Gb/s, alpha frozen at 1 (alpha update far away) so that every cut halves;
        // F = 1, R_AI = 40 Mb/s, R_HAI = 400 Mb/s, R_min = 1 Gb/s, no clamp.
        let c = Rate::gbps(40);
        let p =
            DcqcnParams { alpha_period: SimTime::ms(1000), rate_ai: Rate::mbps(40), rate_hai: Rate::mbps(400), ..DcqcnParams::mellanox(c) };
        let mut d = Dcqcn::new(p, c);
        // CNPs at 0, 1, 2 us: one decrease at 4 us + 1 ns: RC = 20e9, RT = 40e9 (stage 0).
        d.on_cnp(&mut ctx(0, c));
        d.on_cnp(&mut ctx(US, c));
        d.on_cnp(&mut ctx(2 * US, c));
        check(&d, 40e9, 40e9);
        d.on_timer(&mut ctx(4 * US + 1_000, c), 2);
        check(&d, 20e9, 40e9);
        // CNP at 5 us; check at 8 us + 1 ns: stage still 0 -> RT kept: RC = 10e9, RT = 40e9.
        d.on_cnp(&mut ctx(5 * US, c));
        let mut x = ctx(8 * US + 1_000, c);
        d.on_timer(&mut x, 2);
        check(&d, 10e9, 40e9);
        assert_eq!(req(&x), vec![(1, 308 * US + 1_000), (2, 12 * US + 1_000)]);
        // Stage 0 < F: fast recovery: RC = (10e9 + 40e9)/2 = 25e9; stage -> 1.
        let mut x = ctx(308 * US + 1_000, c);
        d.on_timer(&mut x, 1);
        check(&d, 25e9, 40e9);
        assert_eq!(req(&x), vec![(1, 608 * US + 1_000)]);
        // CNP, then check: stage 1 != 0 -> RT = RC = 25e9, RC = 12.5e9, stage -> 0.
        d.on_cnp(&mut ctx(310 * US, c));
        d.on_timer(&mut ctx(312 * US + 1_000, c), 2);
        check(&d, 12.5e9, 25e9);
        // stage 0 fast: RC = (12.5e9 + 25e9)/2 = 18.75e9
        // stage 1 = F additive: RT = 25.04e9, RC = (18.75e9 + 25.04e9)/2 = 21.895e9
        // stage 2 hyper: RT = 25.44e9, RC = (21.895e9 + 25.44e9)/2 = 23.6675e9
        // stage 3 hyper: RT = 25.84e9, RC = (23.6675e9 + 25.84e9)/2 = 24.75375e9
        let steps = [(18.75e9, 25e9), (21.895e9, 25.04e9), (23.6675e9, 25.44e9), (24.75375e9, 25.84e9)];
        for &(rc, rt) in &steps {
            d.on_timer(&mut ctx(0, c), 1);
            check(&d, rc, rt);
        }
        // Many hyper steps: RT = min(C, RT + R_HAI) stops at 40e9, RC stays <= 40e9.
        for _ in 0..200 {
            d.on_timer(&mut ctx(0, c), 1);
        }
        assert_eq!(d.target_rate(), 40e9);
        assert_eq!(d.rate(), c);

        // clamp_target_rate = true: RT <- RC even at stage 0: 40e9 -> RT 40e9, RC 20e9;
        // second cut: RT = 20e9, RC = 10e9.
        let p = DcqcnParams { alpha_period: SimTime::ms(1000), clamp_target_rate: true, ..DcqcnParams::mellanox(c) };
        let mut d = Dcqcn::new(p, c);
        d.on_cnp(&mut ctx(0, c));
        d.on_timer(&mut ctx(4 * US + 1_000, c), 2);
        check(&d, 20e9, 40e9);
        d.on_cnp(&mut ctx(5 * US, c));
        d.on_timer(&mut ctx(8 * US + 1_000, c), 2);
        check(&d, 10e9, 20e9);

        // R_min floor (1 Gb/s here, C/10 = 4 Gb/s is higher): 40 -> 20 -> 10 -> 5 -> 2.5 -> 1.25
        // -> max(1e9, 0.625e9) = 1e9.
        let p = DcqcnParams { alpha_period: SimTime::ms(1000), ..DcqcnParams::mellanox(c) };
        let mut d = Dcqcn::new(p, c);
        for &rc in &[20e9, 10e9, 5e9, 2.5e9, 1.25e9, 1e9, 1e9] {
            d.on_cnp(&mut ctx(0, c));
            d.on_timer(&mut ctx(0, c), 2);
            assert_eq!(d.current_rate(), rc);
        }
    }

    #[test]
    fn mellanox_rate_on_first_cnp_and_finish() {
        let c = Rate::gbps(40);
        let p = DcqcnParams { rate_on_first_cnp: 0.5, ..DcqcnParams::mellanox(c) };
        let mut d = Dcqcn::new(p, c);
        d.on_cnp(&mut ctx(0, c));
        check(&d, 20e9, 20e9);
        // A later CNP does not apply the factor again.
        d.on_cnp(&mut ctx(US, c));
        check(&d, 20e9, 20e9);
        let mut x = ctx(2 * US, c);
        d.on_finish(&mut x);
        assert_eq!(x.cancelled(), 0b1111);
        assert!(x.requested().is_empty());
    }

    /// Which expiries the engine may hold back: the alpha update always; the decrease
    /// check only while no CNP waits for it; an increase only at RC = RT = C. And a
    /// quiet expiry indeed leaves the rate alone.
    #[test]
    fn mellanox_quiet_timers() {
        let c = Rate::gbps(100);
        let mut d = Dcqcn::new(DcqcnParams::mellanox(c), c);
        d.on_cnp(&mut ctx(0, c));
        assert!(d.quiet_timer(TIMER_ALPHA));
        assert!(!d.quiet_timer(TIMER_DECREASE), "a CNP waits for the check");
        d.on_timer(&mut ctx(4 * US + 1000, c), TIMER_DECREASE);
        assert!(d.rc < 100e9);
        assert!(d.quiet_timer(TIMER_DECREASE) && !d.quiet_timer(TIMER_INCREASE), "cut: the increases matter");
        let before = (d.rc, d.rt);
        d.on_timer(&mut ctx(5 * US, c), TIMER_ALPHA);
        d.on_timer(&mut ctx(8 * US + 1000, c), TIMER_DECREASE);
        assert_eq!((d.rc, d.rt), before, "quiet expiries leave the rates alone");
        let mut t = 0;
        while d.rc < 100e9 {
            t += 300 * US;
            d.on_timer(&mut ctx(t, c), TIMER_INCREASE);
        }
        assert!(d.quiet_timer(TIMER_INCREASE), "at the line rate an increase changes nothing");
        d.on_timer(&mut ctx(t + 300 * US, c), TIMER_INCREASE);
        assert_eq!((d.rc, d.rt), (100e9, 100e9));
        d.on_cnp(&mut ctx(t + 301 * US, c));
        assert!(!d.quiet_timer(TIMER_DECREASE));
    }

    #[test]
    fn paper_timer_requests() {
        let c = Rate::gbps(40);
        let mut d = Dcqcn::new(DcqcnParams::paper(), c);
        // First CNP at 7 us arms both timers at 62 us.
        let mut x = ctx(7 * US, c);
        d.on_cnp(&mut x);
        assert_eq!(req(&x), vec![(0, 62 * US), (1, 62 * US)]);
        assert_eq!(x.cancelled(), 0);
        // A CNP at 30 us restarts both at 85 us.
        let mut x = ctx(30 * US, c);
        d.on_cnp(&mut x);
        assert_eq!(req(&x), vec![(0, 85 * US), (1, 85 * US)]);
        // Increase timer at 85 us restarts only kind 1, to 140 us.
        let mut x = ctx(85 * US, c);
        d.on_timer(&mut x, 1);
        assert_eq!(req(&x), vec![(1, 140 * US)]);
        // Sends request nothing; unknown kinds are ignored.
        let mut x = ctx(90 * US, c);
        d.on_send(&mut x, 1500);
        d.on_timer(&mut x, 2);
        d.on_ack(
            &mut x,
            &crate::models::Ack {
                newly_acked: 1000,
                acked_to: 1,
                snd_nxt: 2,
                rtt: SimTime::us(10),
                ece: true,
                nak: false,
                int: &[],
                recovery: false,
            },
        );
        assert!(x.requested().is_empty());
        // Finish cancels every timer.
        let mut x = ctx(100 * US, c);
        d.on_finish(&mut x);
        assert_eq!(x.cancelled(), 0b1111);
    }

    #[test]
    fn plus_win_caps_bytes_in_flight_at_one_bdp() {
        use crate::models::window_cap::WindowCap;
        use crate::models::{CongestionControl, NicSpec};
        let nic = NicSpec { line_rate: Rate::gbps(100), mtu_wire: 1124, mss: 1000, base_rtt: SimTime(4_200_300) };
        assert_eq!(Dcqcn::from_params(&DcqcnParams::paper(), &nic).window(), None, "rate only by default");
        // 100 Gb/s x 4.2003 us = 52 503 B (rounded down), kept through a rate cut.
        let p = DcqcnParams { window: Some(WindowCap::Bdp), ..DcqcnParams::mellanox(Rate::gbps(100)) };
        let mut d = Dcqcn::from_params(&p, &nic);
        assert_eq!(d.window(), Some(52_503));
        d.on_cnp(&mut ctx(0, Rate::gbps(100)));
        assert_eq!(d.window(), Some(52_503));
    }

    #[test]
    fn var_window_follows_the_current_rate() {
        use crate::models::window_cap::WindowCap;
        use crate::models::{CongestionControl, NicSpec};
        // 100 Gb/s NIC, window 52 503 B at line rate; alpha frozen at 1 so that each
        // decrease check halves RC (R_min = 1 Gb/s).
        let c = Rate::gbps(100);
        let nic = NicSpec { line_rate: c, mtu_wire: 1124, mss: 1000, base_rtt: SimTime(4_200_300) };
        let p = DcqcnParams { window: Some(WindowCap::Bdp), var_window: true, alpha_period: SimTime::ms(1000), ..DcqcnParams::mellanox(c) };
        let mut d = Dcqcn::from_params(&p, &nic);
        assert_eq!(d.window(), Some(52_503), "line rate: the whole BDP");
        let mut t = 0;
        for (rc, w) in
            [(50e9, 26_251), (25e9, 13_125), (12.5e9, 6_562), (6.25e9, 3_281), (3.125e9, 1_640), (1.5625e9, 820), (1e9, 525), (1e9, 525)]
        {
            d.on_cnp(&mut ctx(t, c));
            t += 4 * US + 1_000;
            d.on_timer(&mut ctx(t, c), TIMER_DECREASE);
            assert_eq!(d.current_rate(), rc);
            assert_eq!(d.window(), Some(w), "window at RC = {rc}");
        }
        // At R_min the window is below one packet: the NIC still lets one packet go.
        let fixed = Dcqcn::from_params(&DcqcnParams { var_window: false, ..p }, &nic);
        assert_eq!(fixed.window(), Some(52_503));
    }
}
