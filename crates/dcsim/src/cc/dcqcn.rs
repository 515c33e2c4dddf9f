//! `dcqcn`: the DCQCN reaction point (../shared/models/dcqcn.md sections 4.4 and 4.5).
//!
//! TO BE IMPLEMENTED: see the parameter struct for the contract.

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

#[derive(Clone, Debug)]
pub struct Dcqcn {
    pub(crate) p: DcqcnParams,
    pub(crate) line_rate: Rate,
    /// Current and target rate (bit/s, as f64 to keep the paper's arithmetic exact).
    pub(crate) rc: f64,
    pub(crate) rt: f64,
    pub(crate) alpha: f64,
}

impl Dcqcn {
    pub fn new(p: DcqcnParams, line_rate: Rate) -> Self {
        let alpha = p.alpha_init;
        Dcqcn { p, line_rate, rc: line_rate.0 as f64, rt: line_rate.0 as f64, alpha }
    }
    pub fn alpha(&self) -> f64 { self.alpha }
    pub fn target_rate(&self) -> f64 { self.rt }
}

impl CongestionControl for Dcqcn {
    fn on_start(&mut self, _: &mut CcCtx) {}
    fn on_send(&mut self, _: &mut CcCtx, _: u32) {}
    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}
    fn on_cnp(&mut self, _: &mut CcCtx) {}
    fn on_timer(&mut self, _: &mut CcCtx, _: TimerKind) {}
    fn rate(&self) -> Rate { Rate(self.rc as u64) }
}
