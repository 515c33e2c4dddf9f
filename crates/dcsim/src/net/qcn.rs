//! QCN congestion point (IEEE 802.1Qau; ../shared/models/qcn.md 5.2). TO BE IMPLEMENTED.

use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct QcnCpParams {
    /// Equilibrium queue Q_EQ (bytes).
    pub q_eq: u64,
    /// Weight w of the queue derivative.
    pub w: f64,
    /// Uniform jitter of the sampling interval, +-jitter (0.15 = "30 % randomness").
    pub jitter: f64,
}

#[derive(Clone, Debug, Default)]
pub struct QcnCp {
    pub(crate) qlen_old: u64,
    pub(crate) time_to_mark: i64,
}

impl QcnCp {
    /// A frame of `frame` bytes arrived; `qlen` is the queue after adding it. Returns the
    /// quantized feedback (1..=63) of a CNM to send to the frame's source, if any.
    pub fn on_arrival(&mut self, _p: &QcnCpParams, _frame: u32, _qlen: u64, _rng: &mut Rng) -> Option<u8> { None }
}
