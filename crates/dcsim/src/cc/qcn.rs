//! `qcn`: the IEEE 802.1Qau QCN reaction point (../shared/models/qcn.md 5.3 and 5.4).
//!
//! One rate limiter per queue pair. Rates are bit/s of wire bytes; CR and TR are kept as
//! f64 so that the halvings stay exact, and `rate()` hands CR to the pacer rounded down.
//!
//! * Inactive until the first CNM (CR = TR = line rate, no byte counter, no timer).
//! * CNM with quantized feedback `fb` (1..=63): TR <- CR only if a byte-counter cycle has
//!   completed since the last CNM (then the byte cycle restarts at BC_LIMIT); both stage
//!   counters to 0; CR <- max(CR max(1 - GD fb, MIN_DEC_FACTOR), MIN_RATE); the timer is
//!   restarted at TIMER_PERIOD x U(0.85, 1.15).
//! * Byte counter: counts `on_send` wire bytes down from BC_LIMIT; when it goes below 0 the
//!   byte stage advances and the counter restarts at BC_LIMIT (BC_LIMIT/2 from stage
//!   FAST_RECOVERY_TH on) x U(0.85, 1.15); then SelfIncrease.
//! * Timer (kind 0): the timer stage advances, SelfIncrease, restart at TIMER_PERIOD
//!   (TIMER_PERIOD/2 from stage FAST_RECOVERY_TH on) x U(0.85, 1.15).
//! * SelfIncrease: fast recovery while both stages <= FAST_RECOVERY_TH (TR unchanged),
//!   active increase TR += R_AI when one stage is above it, hyper-active increase
//!   TR += R_HAI (min(stages) - FAST_RECOVERY_TH) when both are; TR <- TR/8 instead when a
//!   stage has just reached 1 and TR > 10 CR; then CR <- (CR + TR)/2.
//! * When CR reaches the line rate the rate limiter is released (inactive, timer cancelled).
//!
//! The U(1 - jitter, 1 + jitter) factor is 1 + jitter (2u - 1) with u = `ctx.uniform`.
//!
//! Choices where the spec leaves room (qcn.md): TR is capped at the line rate like CR; the
//! RL's own queue is not visible here, so it is taken as empty at release; CR within 1 bit/s
//! of the line rate counts as the line rate (the halvings otherwise approach it forever); a
//! (re)activation starts from the initial state of qcn.md's table (stages 0, tx_bcount =
//! BC_LIMIT).

use super::{CcCtx, CongestionControl, Feedback, TimerKind};
use crate::units::{Rate, SimTime};

/// The rate-increase timer.
pub const TIMER_RATE: TimerKind = 0;

#[derive(Clone, Debug, PartialEq)]
pub struct QcnParams {
    /// FAST_RECOVERY_TH: byte-counter cycles / timer periods of fast recovery.
    pub fast_recovery_th: u32,
    /// R_AI (AI_INC): active-increase step of TR.
    pub r_ai: Rate,
    /// R_HAI (HAI_INC): hyper-active-increase step of TR (times the stage above the threshold).
    pub r_hai: Rate,
    /// BC_LIMIT: bytes per byte-counter cycle (wire bytes).
    pub bc_limit: u64,
    /// TIMER_PERIOD: period of the rate-increase timer.
    pub timer_period: SimTime,
    /// MIN_RATE: floor of CR.
    pub min_rate: Rate,
    /// GD: decrease per quantum of feedback (CR *= 1 - GD fb).
    pub gd: f64,
    /// MIN_DEC_FACTOR: the smallest factor a single CNM may multiply CR by.
    pub min_dec_factor: f64,
    /// Uniform jitter of BC_LIMIT and TIMER_PERIOD, +-jitter (0.15 = "30 % randomness").
    pub jitter: f64,
}

impl Default for QcnParams {
    /// Seed 003 (1 Gb/s NetFPGA, pseudo code v2.3): FAST_RECOVERY_TH 5, R_AI 0.5 Mb/s,
    /// R_HAI 5 Mb/s, BC_LIMIT 150 KB, TIMER_PERIOD 25 ms (both with 30 % randomness),
    /// MIN_RATE 0.5 Mb/s, GD 1/128, MIN_DEC_FACTOR 0.5.
    fn default() -> Self {
        QcnParams {
            fast_recovery_th: 5,
            r_ai: Rate(500_000),
            r_hai: Rate::mbps(5),
            bc_limit: 150_000,
            timer_period: SimTime::ms(25),
            min_rate: Rate(500_000),
            gd: 1.0 / 128.0,
            min_dec_factor: 0.5,
            jitter: 0.15,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Qcn {
    pub(crate) p: QcnParams,
    pub(crate) line_rate: Rate,
    /// The rate limiter is engaged (a CNM arrived and CR has not yet returned to line rate).
    pub(crate) active: bool,
    /// Current rate CR and target rate TR (bit/s).
    pub(crate) cr: f64,
    pub(crate) tr: f64,
    /// Bytes left in the current byte-counter cycle.
    pub(crate) tx_bcount: i64,
    /// Byte-counter stage: cycles completed since the last CNM.
    pub(crate) si_count: u32,
    /// Timer stage: expiries since the last CNM.
    pub(crate) timer_scount: u32,
}

impl Qcn {
    pub fn new(p: QcnParams, line_rate: Rate) -> Self {
        let c = line_rate.0 as f64;
        let bc = p.bc_limit as i64;
        Qcn { p, line_rate, active: false, cr: c, tr: c, tx_bcount: bc, si_count: 0, timer_scount: 0 }
    }
    /// Current rate CR (bit/s), unrounded.
    pub fn current_rate(&self) -> f64 { self.cr }
    /// Target rate TR (bit/s).
    pub fn target_rate(&self) -> f64 { self.tr }
    pub fn is_active(&self) -> bool { self.active }
    pub fn si_count(&self) -> u32 { self.si_count }
    pub fn timer_scount(&self) -> u32 { self.timer_scount }
    pub fn tx_bcount(&self) -> i64 { self.tx_bcount }

    #[inline]
    fn c(&self) -> f64 { self.line_rate.0 as f64 }

    /// U(1 - jitter, 1 + jitter) from the hook's uniform number.
    #[inline]
    fn jitter(&self, ctx: &CcCtx) -> f64 { 1.0 + self.p.jitter * (2.0 * ctx.uniform - 1.0) }

    fn restart_timer(&self, ctx: &mut CcCtx) {
        let base = if self.timer_scount < self.p.fast_recovery_th {
            self.p.timer_period.0 as f64
        } else {
            self.p.timer_period.0 as f64 / 2.0
        };
        ctx.restart_timer(TIMER_RATE, SimTime((base * self.jitter(ctx)).round() as u64));
    }

    fn on_cnm(&mut self, ctx: &mut CcCtx, fb: u8) {
        let fb = fb.min(63);
        if fb == 0 {
            return;
        }
        if !self.active {
            self.active = true;
            self.cr = self.c();
            self.tr = self.c();
            self.tx_bcount = self.p.bc_limit as i64;
            self.si_count = 0;
            self.timer_scount = 0;
        }
        if self.si_count != 0 {
            self.tr = self.cr;
            self.tx_bcount = self.p.bc_limit as i64;
        }
        self.si_count = 0;
        self.timer_scount = 0;
        let dec = (1.0 - self.p.gd * fb as f64).max(self.p.min_dec_factor);
        self.cr = (self.cr * dec).max(self.p.min_rate.0 as f64).min(self.c());
        self.restart_timer(ctx);
    }

    /// SelfIncrease of qcn.md 5.3. Returns false if the rate limiter was released.
    fn self_increase(&mut self, ctx: &mut CcCtx) -> bool {
        let th = self.p.fast_recovery_th;
        let (si, ts) = (self.si_count, self.timer_scount);
        let ri = if si > th && ts > th {
            self.p.r_hai.0 as f64 * (si.min(ts) - th) as f64
        } else if si > th || ts > th {
            self.p.r_ai.0 as f64
        } else {
            0.0
        };
        let c = self.c();
        if (si == 1 || ts == 1) && self.tr > 10.0 * self.cr {
            self.tr /= 8.0;
        } else {
            self.tr = (self.tr + ri).min(c);
        }
        self.cr = ((self.cr + self.tr) / 2.0).min(c);
        if c - self.cr < 1.0 {
            self.cr = c;
        }
        if self.cr >= c {
            // Release the rate limiter (its queue is taken as empty).
            self.active = false;
            ctx.cancel_timer(TIMER_RATE);
            return false;
        }
        true
    }
}

impl CongestionControl for Qcn {
    /// Nothing to do: the rate limiter is engaged by the first CNM.
    fn on_start(&mut self, _: &mut CcCtx) {}

    /// The byte counter (only while the rate limiter is active).
    #[inline]
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) {
        if !self.active {
            return;
        }
        self.tx_bcount -= wire_bytes as i64;
        if self.tx_bcount < 0 {
            self.si_count = self.si_count.saturating_add(1);
            let base = if self.si_count < self.p.fast_recovery_th {
                self.p.bc_limit as f64
            } else {
                self.p.bc_limit as f64 / 2.0
            };
            self.tx_bcount = (base * self.jitter(ctx)).round() as i64;
            self.self_increase(ctx);
        }
    }

    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}

    /// QCN has no CNPs.
    fn on_cnp(&mut self, _: &mut CcCtx) {}

    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) {
        if let Feedback::Qcn { fb } = fb {
            self.on_cnm(ctx, fb);
        }
    }

    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        if kind != TIMER_RATE || !self.active {
            return;
        }
        self.timer_scount = self.timer_scount.saturating_add(1);
        if self.self_increase(ctx) {
            self.restart_timer(ctx);
        }
    }

    /// CR rounded down to whole bit/s (at least 1 bit/s).
    #[inline]
    fn rate(&self) -> Rate { Rate((self.cr as u64).max(1)) }
}
