//! BCN (backward congestion notification, the 802.1Qau proposal of seed 002): the
//! congestion point in switch egress queues (`cp.rs`: byte-count sampling, signed Fb in
//! 64-byte units, BCNMAX, BCN00), the rate regulator at the sending NIC (`rp.rs`: AIMD
//! on Fb, drift), and their scenario keys. Messages travel as feedback frames
//! (`models/l2cm.rs`); a data frame carries the rate-limiter tag of the congestion point
//! that controls its regulator, which is how a congestion point knows that positive
//! feedback is for a regulator it controls.

pub mod cp;
mod keys;
pub mod rp;

pub use cp::{BcnCp, BcnCpParams, BcnSignal};
pub use keys::{BcnCpKeys, BcnKeys};
pub use rp::{Bcn, BcnParams};
