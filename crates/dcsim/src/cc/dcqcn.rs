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
