//! `fixed_rate`: a queue pair paced at a constant rate, whatever the network says.

use super::{CcCtx, CongestionControl, TimerKind};
use crate::units::Rate;

#[derive(Clone, Debug)]
pub struct FixedRate {
    rate: Rate,
}

impl FixedRate {
    pub fn new(rate: Rate) -> Self { FixedRate { rate } }
}

impl CongestionControl for FixedRate {
    fn on_start(&mut self, _: &mut CcCtx) {}
    fn on_send(&mut self, _: &mut CcCtx, _: u32) {}
    fn on_ack(&mut self, _: &mut CcCtx, _: u64) {}
    fn on_cnp(&mut self, _: &mut CcCtx) {}
    fn on_timer(&mut self, _: &mut CcCtx, _: TimerKind) {}
    fn rate(&self) -> Rate { self.rate }
}
