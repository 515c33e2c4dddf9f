//! ECN at switch egress queues and the RoCEv2 notification point: the marking functions
//! (`marker.rs`: instantaneous RED/WRED, DCTCP step, averaged RED, thresholds per link
//! speed), the marking and congestion detection in the world (`marking.rs`, which also runs
//! the RCM detection rules of `models/rcm`; `model.rs`: its hooks, tables and merge as a
//! fabric model), the CNP generator of the receiving NIC
//! (`cnp.rs`), the resolved parameters (`params.rs`) and the scenario keys of both
//! (`keys.rs`).

pub mod cnp;
pub mod keys;
pub mod marker;
pub mod marking;
mod marking_keys;
mod model;
pub mod params;

pub use marking_keys::{CongestionSpec, DetectionSpec, MarkingKeys, MarkingPlan};
pub use params::{Detection, EcnMode, EcnPlan, EcnSpeedPlan, MarkPoint};
