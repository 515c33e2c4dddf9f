//! Reaction points that never change their rate: `none` (PFC only, line rate) and
//! `fixed_rate` (a queue pair paced at a constant rate, whatever the network says).

pub mod keys;
pub use keys::{FixedRateKeys, FixedRateParams, NoKeys};

use crate::models::CongestionControl;
use crate::units::Rate;

/// `none`: the queue pair sends at the NIC's line rate.
#[derive(Clone, Debug)]
pub struct LineRate {
    rate: Rate,
}

impl CongestionControl for LineRate {
    type Params = ();
    fn from_params(_: &(), nic: &crate::models::NicSpec) -> Self {
        LineRate { rate: nic.line_rate }
    }
    fn is_static(&self) -> bool {
        true
    }
    fn rate(&self) -> Rate {
        self.rate
    }
}

/// `fixed_rate`: paced at a constant rate (at most the line rate).
#[derive(Clone, Debug)]
pub struct FixedRate {
    rate: Rate,
}

impl FixedRate {
    pub fn new(rate: Rate) -> Self {
        FixedRate { rate }
    }
}

impl CongestionControl for FixedRate {
    type Params = FixedRateParams;
    fn from_params(p: &FixedRateParams, nic: &crate::models::NicSpec) -> Self {
        FixedRate::new(p.rate.min(nic.line_rate))
    }
    fn is_static(&self) -> bool {
        true
    }
    fn rate(&self) -> Rate {
        self.rate
    }
}
