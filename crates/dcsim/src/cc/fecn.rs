//! `fecn` reaction point. TO BE IMPLEMENTED (see ../shared/models/).

use super::{CcCtx, CongestionControl, Feedback, TimerKind};
use crate::units::Rate;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct FecnParams {}

#[derive(Clone, Debug)]
pub struct Fecn {
    pub(crate) rate: Rate,
}

impl Fecn {
    pub fn new(_p: FecnParams, line_rate: Rate) -> Self { Fecn { rate: line_rate } }
}

impl CongestionControl for Fecn {
    fn on_start(&mut self, _: &mut CcCtx) {}
    fn on_send(&mut self, _: &mut CcCtx, _: u32) {}
    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}
    fn on_cnp(&mut self, _: &mut CcCtx) {}
    fn on_feedback(&mut self, _: &mut CcCtx, _: Feedback) {}
    fn on_timer(&mut self, _: &mut CcCtx, _: TimerKind) {}
    fn rate(&self) -> Rate { self.rate }
}
