//! FECN / E-FECN switch side: per output port an advertised rate, recomputed every
//! interval from the measured load and the queue (../shared/models/bcn-fecn.md 7.2, 7.4).
//! TO BE IMPLEMENTED.

use crate::units::{Rate, SimTime};

#[derive(Clone, Debug, PartialEq, Default)]
pub struct FecnSwitchParams {
    pub interval: SimTime,
    pub q_sc: u64,
    pub efecn: bool,
}

#[derive(Clone, Debug, Default)]
pub struct FecnPort {
    pub(crate) advertised: f64,
}

impl FecnPort {
    pub fn new(_p: &FecnSwitchParams, capacity: Rate) -> Self { FecnPort { advertised: capacity.0 as f64 } }
    /// A data frame of `bytes` arrived for this output.
    pub fn on_arrival(&mut self, _bytes: u32) {}
    /// End of a measurement interval of length `interval` with the queue at `qlen`.
    pub fn on_interval(&mut self, _p: &FecnSwitchParams, _capacity: Rate, _qlen: u64, _interval: SimTime) {}
    /// E-FECN: severe congestion (queue above Qsc): advertise the minimum rate.
    pub fn on_severe(&mut self, _p: &FecnSwitchParams) {}
    /// The rate this port advertises to probes.
    pub fn advertised(&self) -> Rate { Rate(self.advertised as u64) }
}
