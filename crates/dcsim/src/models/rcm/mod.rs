//! The seed OMNeT++ RoCEv2 study's congestion management (RCM): at the NIC, the linear
//! inter-packet-delay reaction point (`linear.rs`); at the switch, the congestion
//! detection rules 1a (InfiniBand root/victim) and 1b (oversubscribed output with a
//! standing queue) and the congestion-point statistics they feed (`detection.rs`; the
//! marking itself runs in `models/ecn/marking.rs`).

pub mod detection;
mod keys;
pub mod linear;

pub use keys::RcmLinearKeys;
pub use linear::{RcmLinear, RcmLinearParams, RecoveryRule};
