//! IEEE 802.1Qau QCN: the congestion point in switch egress queues (`cp.rs`: sampling,
//! Fb with 6-bit quantization, CNMs to the source), the reaction point at the sending
//! NIC (`rp.rs`: byte counter and timer stages, fast recovery, active and hyper-active
//! increase), and their scenario keys. CNMs travel as feedback frames (`models/l2cm.rs`).

pub mod cp;
mod keys;
pub mod rp;

pub use cp::{QcnCp, QcnCpParams};
pub use keys::{QcnCpKeys, QcnKeys};
pub use rp::{Qcn, QcnParams};
