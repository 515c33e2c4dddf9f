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

use super::{CcCtx, CongestionControl, TimerKind};
use crate::units::{Rate, SimTime};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
        }
    }
    pub fn alpha(&self) -> f64 { self.alpha }
    pub fn target_rate(&self) -> f64 { self.rt }
    /// Current rate RC as f64 (bit/s), unrounded.
    pub fn current_rate(&self) -> f64 { self.rc }

    #[inline]
    fn c(&self) -> f64 { self.line_rate.0 as f64 }

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
        self.alpha = if self.alpha_cnp {
            (1.0 - self.p.g) * self.alpha + self.p.g
        } else {
            (1.0 - self.p.g) * self.alpha
        };
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
    /// Nothing to do: both variants arm their timers at the first CNP.
    fn on_start(&mut self, _: &mut CcCtx) {}

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

    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}

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
    fn rate(&self) -> Rate { Rate((self.rc as u64).max(1)) }
}
