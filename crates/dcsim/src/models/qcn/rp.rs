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

use crate::models::{CcCtx, CongestionControl, Feedback, TimerKind};
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
    pub fn current_rate(&self) -> f64 {
        self.cr
    }
    /// Target rate TR (bit/s).
    pub fn target_rate(&self) -> f64 {
        self.tr
    }
    pub fn is_active(&self) -> bool {
        self.active
    }
    pub fn si_count(&self) -> u32 {
        self.si_count
    }
    pub fn timer_scount(&self) -> u32 {
        self.timer_scount
    }
    pub fn tx_bcount(&self) -> i64 {
        self.tx_bcount
    }

    #[inline]
    fn c(&self) -> f64 {
        self.line_rate.0 as f64
    }

    /// U(1 - jitter, 1 + jitter) from the hook's uniform number.
    #[inline]
    fn jitter(&self, ctx: &CcCtx) -> f64 {
        1.0 + self.p.jitter * (2.0 * ctx.uniform - 1.0)
    }

    fn restart_timer(&self, ctx: &mut CcCtx) {
        let base =
            if self.timer_scount < self.p.fast_recovery_th { self.p.timer_period.0 as f64 } else { self.p.timer_period.0 as f64 / 2.0 };
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
    type Params = QcnParams;
    fn from_params(p: &QcnParams, nic: &crate::models::NicSpec) -> Self {
        Qcn::new(p.clone(), nic.line_rate)
    }
    // on_start: nothing to do, the rate limiter is engaged by the first CNM.

    /// The byte counter (only while the rate limiter is active).
    #[inline]
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) {
        if !self.active {
            return;
        }
        self.tx_bcount -= wire_bytes as i64;
        if self.tx_bcount < 0 {
            self.si_count = self.si_count.saturating_add(1);
            let base = if self.si_count < self.p.fast_recovery_th { self.p.bc_limit as f64 } else { self.p.bc_limit as f64 / 2.0 };
            self.tx_bcount = (base * self.jitter(ctx)).round() as i64;
            self.self_increase(ctx);
        }
    }

    // on_cnp: QCN has no CNPs (the trait's default does nothing).
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
    fn rate(&self) -> Rate {
        Rate((self.cr as u64).max(1))
    }
}

#[cfg(test)]
// Expected rates are written out in full: they are exact binary fractions.
#[allow(clippy::excessive_precision, clippy::inconsistent_digit_grouping)]
mod tests {
    use super::*;
    use crate::models::Feedback;

    const MS: u64 = 1_000_000_000; // ps

    fn ctx(t_ps: u64, c: Rate) -> CcCtx {
        CcCtx::new(SimTime(t_ps), c)
    }

    /// A context whose hook draws `u` as its uniform number.
    fn ctx_u(t_ps: u64, c: Rate, u: f64) -> CcCtx {
        let mut x = CcCtx::new(SimTime(t_ps), c);
        x.uniform = u;
        x
    }

    fn cnm(q: &mut Qcn, x: &mut CcCtx, fb: u8) {
        q.on_feedback(x, Feedback::Qcn { fb })
    }

    /// Requested timers as (kind, absolute ps).
    fn req(c: &CcCtx) -> Vec<(u8, u64)> {
        c.requested().iter().map(|&(k, t)| (k, t.0)).collect()
    }

    #[track_caller]
    fn check(q: &Qcn, cr: f64, tr: f64) {
        assert_eq!(q.current_rate(), cr, "CR");
        assert_eq!(q.target_rate(), tr, "TR");
    }

    #[test]
    fn defaults_are_seed_003() {
        let p = QcnParams::default();
        assert_eq!(p.fast_recovery_th, 5);
        assert_eq!((p.r_ai, p.r_hai, p.min_rate), (Rate(500_000), Rate(5_000_000), Rate(500_000)));
        assert_eq!((p.bc_limit, p.timer_period), (150_000, SimTime(25 * MS)));
        assert_eq!((p.gd, p.min_dec_factor, p.jitter), (0.0078125, 0.5, 0.15));
    }

    /// ctx.uniform = 0.5 everywhere (jitter factor exactly 1) unless stated.
    #[test]
    fn cnm_sequence_and_recovery_1g() {
        let c = Rate::gbps(1);
        let mut q = Qcn::new(QcnParams::default(), c);
        let mut x = ctx(0, c);
        q.on_start(&mut x);
        assert!(x.requested().is_empty(), "no timer before the first CNM");
        assert!(!q.is_active());
        assert_eq!(q.rate(), Rate(1_000_000_000));
        // Inactive: the byte counter is not kept.
        q.on_send(&mut ctx(0, c), 1_000_000);
        assert_eq!((q.si_count(), q.tx_bcount()), (0, 150_000));

        // CNM fb 32 at 0: activate (CR = TR = 1e9); si_count = 0 so TR stays;
        // CR = 1e9 (1 - 32/128) = 7.5e8; timer at 25 ms.
        let mut x = ctx(0, c);
        cnm(&mut q, &mut x, 32);
        assert!(q.is_active());
        check(&q, 7.5e8, 1e9);
        assert_eq!(req(&x), vec![(0, 25 * MS)]);

        // 150001 B: tx_bcount 150000 -> -1 < 0: si = 1, counter back to 150000; fast
        // recovery CR = (7.5e8 + 1e9)/2 = 8.75e8. Sends request no timer.
        let mut x = ctx(2 * MS, c);
        q.on_send(&mut x, 150_001);
        assert_eq!((q.si_count(), q.tx_bcount()), (1, 150_000));
        check(&q, 8.75e8, 1e9);
        assert!(x.requested().is_empty());

        // CNM fb 16 at 3 ms: si = 1 != 0 -> TR = CR = 8.75e8, byte cycle restarts at 150000;
        // stages 0; CR = 8.75e8 (1 - 16/128) = 765625000; timer at 28 ms.
        let mut x = ctx(3 * MS, c);
        cnm(&mut q, &mut x, 16);
        check(&q, 765_625_000.0, 8.75e8);
        assert_eq!((q.si_count(), q.timer_scount(), q.tx_bcount()), (0, 0, 150_000));
        assert_eq!(req(&x), vec![(0, 28 * MS)]);

        // Five byte cycles of fast recovery (TR fixed, the gap 109375000 halves):
        // 820312500, 847656250, 861328125, 868164062.5, 871582031.25.
        // The counter restarts at BC_LIMIT for si < 5, at BC_LIMIT/2 = 75000 from si = 5.
        let fast = [820_312_500.0, 847_656_250.0, 861_328_125.0, 868_164_062.5, 871_582_031.25];
        for (i, &cr) in fast.iter().enumerate() {
            q.on_send(&mut ctx(4 * MS, c), 150_001);
            check(&q, cr, 8.75e8);
            assert_eq!(q.si_count(), i as u32 + 1);
            assert_eq!(q.tx_bcount(), if i < 4 { 150_000 } else { 75_000 });
        }
        // 75000 B bring the counter to exactly 0 (no cycle); 1 more byte ends it: si = 6 > 5,
        // timer stage 0 -> active increase: TR = 8.75e8 + 5e5 = 875500000,
        // CR = (871582031.25 + 875500000)/2 = 873541015.625.
        q.on_send(&mut ctx(5 * MS, c), 75_000);
        assert_eq!((q.si_count(), q.tx_bcount()), (5, 0));
        q.on_send(&mut ctx(5 * MS, c), 1);
        assert_eq!((q.si_count(), q.tx_bcount()), (6, 75_000));
        check(&q, 873_541_015.625, 875_500_000.0);

        // Timer expiries 1..5 (si = 6 > 5: active increase, TR += 0.5 Mb/s each):
        // ts 1: TR 876.0e6, CR = (873541015.625 + 876e6)/2      = 874770507.8125
        // ts 2: TR 876.5e6, CR = (874770507.8125 + 876.5e6)/2   = 875635253.90625
        // ts 3: TR 877.0e6, CR = (875635253.90625 + 877e6)/2    = 876317626.953125
        // ts 4: TR 877.5e6, CR = (876317626.953125 + 877.5e6)/2 = 876908813.4765625
        // ts 5: TR 878.0e6, CR = (876908813.4765625 + 878e6)/2  = 877454406.73828125
        // The timer restarts at 25 ms while ts < 5 (28 -> 53 -> 78 -> 103 -> 128 ms) and at
        // 12.5 ms from ts = 5 on (128 -> 140.5 ms).
        let steps = [
            (28, 874_770_507.8125, 876_000_000.0, 53 * MS),
            (53, 875_635_253.90625, 876_500_000.0, 78 * MS),
            (78, 876_317_626.953125, 877_000_000.0, 103 * MS),
            (103, 876_908_813.4765625, 877_500_000.0, 128 * MS),
            (128, 877_454_406.73828125, 878_000_000.0, 140_500_000_000),
        ];
        for (i, &(t, cr, tr, next)) in steps.iter().enumerate() {
            let mut x = ctx(t * MS, c);
            q.on_timer(&mut x, 0);
            assert_eq!(q.timer_scount(), i as u32 + 1);
            check(&q, cr, tr);
            assert_eq!(req(&x), vec![(0, next)]);
        }
        // ts 6 at 140.5 ms: si = 6, ts = 6, both > 5: hyper-active increase,
        // TR += 5e6 (min(6,6) - 5) = 883e6; CR = (877454406.73828125 + 883e6)/2
        // = 880227203.369140625; next expiry 153 ms.
        let mut x = ctx(140_500_000_000, c);
        q.on_timer(&mut x, 0);
        check(&q, 880_227_203.369140625, 883_000_000.0);
        assert_eq!(req(&x), vec![(0, 153 * MS)]);
        // Byte cycle: si = 7, ts = 6: min = 6 -> TR += 5e6 = 888e6;
        // CR = (880227203.369140625 + 888e6)/2 = 884113601.6845703125.
        q.on_send(&mut ctx(150 * MS, c), 75_001);
        check(&q, 884_113_601.6845703125, 888_000_000.0);
        // ts 7 at 153 ms: min(7,7) - 5 = 2 -> TR += 10e6 = 898e6;
        // CR = (884113601.6845703125 + 898e6)/2 = 891056800.84228515625; next 165.5 ms.
        let mut x = ctx(153 * MS, c);
        q.on_timer(&mut x, 0);
        check(&q, 891_056_800.84228515625, 898_000_000.0);
        assert_eq!(req(&x), vec![(0, 165_500_000_000)]);
        assert_eq!(q.rate(), Rate(891_056_800));

        // CNM fb 8 at 160 ms: si = 7 != 0 -> TR = CR = 891056800.84228515625;
        // CR = TR (1 - 8/128) = TR x 15/16 = 835365750.789642333984375; timer at 185 ms.
        let mut x = ctx(160 * MS, c);
        cnm(&mut q, &mut x, 8);
        check(&q, 835_365_750.789642333984375, 891_056_800.84228515625);
        assert_eq!((q.si_count(), q.timer_scount(), q.tx_bcount()), (0, 0, 150_000));
        assert_eq!(req(&x), vec![(0, 185 * MS)]);
        assert_eq!(q.rate(), Rate(835_365_750));
    }

    #[test]
    fn release_at_line_rate_and_reactivation() {
        let c = Rate::gbps(1);
        let mut q = Qcn::new(QcnParams::default(), c);
        // CNM fb 1: CR = 1e9 (127/128) = 992187500, gap to TR = 1e9 is 7812500.
        cnm(&mut q, &mut ctx(0, c), 1);
        check(&q, 992_187_500.0, 1e9);
        // One byte cycle: CR = 996093750 (gap 7812500/2).
        q.on_send(&mut ctx(MS, c), 150_001);
        check(&q, 996_093_750.0, 1e9);
        // Timer expiries m = 1..: the gap halves each time: 7812500 / 2^(m+1); TR stays at the
        // line rate (AI from ts = 6 on is capped). The timer restarts at 25 ms for ts < 5
        // and at 12.5 ms after that.
        let mut t = 25 * MS;
        for m in 1..=21u32 {
            let mut x = ctx(t, c);
            q.on_timer(&mut x, 0);
            check(&q, 1e9 - 7_812_500.0 / (1u64 << (m + 1)) as f64, 1e9);
            assert!(q.is_active());
            let next = if m < 5 { 25 * MS } else { 12_500_000_000 };
            assert_eq!(req(&x), vec![(0, t + next)]);
            t += next;
        }
        // m = 22: the gap would be 7812500 / 2^23 = 0.93 bit/s < 1: CR = line rate, the
        // rate limiter is released and its timer cancelled (not restarted).
        let mut x = ctx(t, c);
        q.on_timer(&mut x, 0);
        check(&q, 1e9, 1e9);
        assert!(!q.is_active());
        assert!(x.requested().is_empty());
        assert_eq!(x.cancelled(), 1);
        assert_eq!(q.rate(), c);
        // Released: a stale expiry and sends change nothing.
        let mut x = ctx(t + MS, c);
        q.on_timer(&mut x, 0);
        q.on_send(&mut x, 1_000_000);
        assert!(x.requested().is_empty());
        check(&q, 1e9, 1e9);
        // A new CNM (fb 63) re-engages from the initial state: CR = 1e9 x 65/128 = 507812500,
        // TR = 1e9, stages 0, tx_bcount = 150000, timer at +25 ms.
        let mut x = ctx(t + 2 * MS, c);
        cnm(&mut q, &mut x, 63);
        assert!(q.is_active());
        check(&q, 507_812_500.0, 1e9);
        assert_eq!((q.si_count(), q.timer_scount(), q.tx_bcount()), (0, 0, 150_000));
        assert_eq!(req(&x), vec![(0, t + 27 * MS)]);
    }

    #[test]
    fn min_rate_floor_and_deep_cut_guard() {
        let c = Rate::gbps(1);
        let mut q = Qcn::new(QcnParams::default(), c);
        // CNMs of fb 63 without a byte cycle in between: TR stays 1e9, CR x 65/128 each:
        // 507812500, 8251953125/32 = 257873535.15625, ..., after 11:
        // 1e9 (65/128)^11 = 170913733867359161376953125/295147905179352825856 = 579078.2549;
        // the 12th would give 294063.7 < MIN_RATE = 0.5 Mb/s -> 500000; and so on.
        let mut x = ctx(0, c);
        cnm(&mut q, &mut x, 63);
        check(&q, 507_812_500.0, 1e9);
        cnm(&mut q, &mut x, 63);
        check(&q, 257_873_535.15625, 1e9);
        for _ in 3..=11 {
            cnm(&mut q, &mut x, 63);
        }
        assert!((q.current_rate() - 579_078.2548956254).abs() < 1e-6, "{}", q.current_rate());
        cnm(&mut q, &mut x, 63);
        check(&q, 500_000.0, 1e9);
        cnm(&mut q, &mut x, 63);
        check(&q, 500_000.0, 1e9);
        assert_eq!(q.rate(), Rate(500_000));
        // First byte cycle (si = 1) with TR = 1e9 > 10 CR = 5e6: TR = 1e9/8 = 1.25e8 instead
        // of TR + Ri; CR = (5e5 + 1.25e8)/2 = 62750000.
        q.on_send(&mut ctx(0, c), 150_001);
        check(&q, 62_750_000.0, 1.25e8);
        // si = 2, ts = 0: no guard; fast recovery CR = (62.75e6 + 125e6)/2 = 93875000.
        q.on_send(&mut ctx(0, c), 150_001);
        check(&q, 93_875_000.0, 1.25e8);
        // ts = 1 but TR = 1.25e8 < 10 CR: fast recovery CR = (93875000 + 125e6)/2 = 109437500.
        q.on_timer(&mut ctx(25 * MS, c), 0);
        check(&q, 109_437_500.0, 1.25e8);

        // MIN_DEC_FACTOR: with GD = 1/64, fb 63 would give 1 - 63/64 = 1/64; the factor is
        // held at 0.5: CR = 5e8.
        let p = QcnParams { gd: 1.0 / 64.0, ..QcnParams::default() };
        let mut q = Qcn::new(p, c);
        cnm(&mut q, &mut ctx(0, c), 63);
        check(&q, 5e8, 1e9);
    }

    #[test]
    fn jittered_timer_and_byte_counter() {
        // Factor = 1 + 0.15 (2u - 1): u = 0 -> 0.85, 0.25 -> 0.925, 0.75 -> 1.075.
        let c = Rate::gbps(1);
        let mut q = Qcn::new(QcnParams::default(), c);
        // CNM at 1 ms with u = 0: timer at 1 + 25 x 0.85 = 22.25 ms.
        let mut x = ctx_u(MS, c, 0.0);
        cnm(&mut q, &mut x, 10);
        assert_eq!(req(&x), vec![(0, 22_250_000_000)]);
        // Another CNM with u = 0.75: 25 x 1.075 = 26.875 ms after 2 ms.
        let mut x = ctx_u(2 * MS, c, 0.75);
        cnm(&mut q, &mut x, 10);
        assert_eq!(req(&x), vec![(0, 28_875_000_000)]);
        // Byte cycle with u = 0: next cycle 150000 x 0.85 = 127500 B.
        q.on_send(&mut ctx_u(0, c, 0.0), 150_001);
        assert_eq!(q.tx_bcount(), 127_500);
        // ... with u = 0.25: 150000 x 0.925 = 138750 B (si = 2, 3, 4).
        q.on_send(&mut ctx_u(0, c, 0.25), 127_501);
        assert_eq!(q.tx_bcount(), 138_750);
        q.on_send(&mut ctx_u(0, c, 0.5), 138_751);
        q.on_send(&mut ctx_u(0, c, 0.5), 150_001);
        assert_eq!((q.si_count(), q.tx_bcount()), (4, 150_000));
        // si = 5: half cycle 75000 x 1.075 = 80625 B.
        q.on_send(&mut ctx_u(0, c, 0.75), 150_001);
        assert_eq!((q.si_count(), q.tx_bcount()), (5, 80_625));
        // Timer stages 1..4 restart at 25 ms x jitter; from ts = 5 at 12.5 ms x 0.925
        // = 11.5625 ms.
        for _ in 1..=4 {
            q.on_timer(&mut ctx(0, c), 0);
        }
        let mut x = ctx_u(100 * MS, c, 0.25);
        q.on_timer(&mut x, 0);
        assert_eq!(q.timer_scount(), 5);
        assert_eq!(req(&x), vec![(0, 111_562_500_000)]);
    }

    #[test]
    fn other_hooks_and_finish() {
        let c = Rate::gbps(1);
        let mut q = Qcn::new(QcnParams::default(), c);
        let mut x = ctx(0, c);
        // CNPs, ACKs, other feedback, fb 0 and other timer kinds are ignored.
        q.on_cnp(&mut x);
        q.on_ack(
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
        q.on_feedback(&mut x, Feedback::Bcn { cp: 1, fb: -10 });
        cnm(&mut q, &mut x, 0);
        assert!(x.requested().is_empty() && !q.is_active());
        check(&q, 1e9, 1e9);
        cnm(&mut q, &mut x, 64); // capped at 63: 1e9 x 65/128
        check(&q, 507_812_500.0, 1e9);
        let mut x = ctx(MS, c);
        q.on_timer(&mut x, 1);
        q.on_ack(
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
        check(&q, 507_812_500.0, 1e9);
        // Finish cancels every timer.
        let mut x = ctx(2 * MS, c);
        q.on_finish(&mut x);
        assert_eq!(x.cancelled(), 0b1111);
        // rate() is at least 1 bit/s.
        let mut q = Qcn::new(QcnParams { min_rate: Rate(0), ..QcnParams::default() }, Rate(2));
        cnm(&mut q, &mut ctx(0, Rate(2)), 63);
        assert_eq!(q.rate(), Rate(1));
    }
}
