//! BCN congestion point (../shared/models/bcn-fecn.md 6.2). TO BE IMPLEMENTED.

use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct BcnCpParams {}

/// What a BCN congestion point tells a source.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BcnSignal {
    /// Feedback in 64-byte units (negative: slow down).
    Fb(i32),
    /// BCN00: stop (go to the minimum rate).
    Stop,
}

#[derive(Clone, Debug, Default)]
pub struct BcnCp {
    pub(crate) qlen_old: u64,
}

impl BcnCp {
    /// A frame arrived; `qlen` is the queue after adding it; `controls` says whether this
    /// congestion point is the one that last slowed the frame's rate regulator (positive
    /// feedback goes only to those). Returns the message to send to the frame's source.
    pub fn on_arrival(&mut self, _p: &BcnCpParams, _frame: u32, _qlen: u64, _controls: bool, _rng: &mut Rng) -> Option<BcnSignal> { None }
}
