//! DCQCN (Zhu et al., SIGCOMM 2015): the reaction point at the sending NIC (`rp.rs`, the
//! paper and the Mellanox/HPCC-simulator variants) and its scenario keys. Its congestion
//! point is ECN marking at switch egress queues and its notification point the RoCEv2
//! CNP generator, both in `models/ecn/`.

mod keys;
pub mod rp;

pub use keys::DcqcnKeys;
pub use rp::{Dcqcn, DcqcnParams, DcqcnVariant};
