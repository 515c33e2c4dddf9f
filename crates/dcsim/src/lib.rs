//! dcsim: a packet-level discrete-event simulator of lossless datacenter fabrics.
//!
//! Layers, bottom up: `units`, `ids`, `event`, `rng` (engine); `net` (the fabric: packets,
//! queues, the switch buffer, routing, counters); `models` (one folder per flow-control or
//! congestion-management model, NIC and switch side); `keys` (what scenario keys are made
//! of); `plan` (validated input); `scenario` (TOML -> plan); `sim` (the world and the run
//! loop); `results` (columnar output).

pub mod alloc;
pub mod collectives;
pub mod error;
pub mod event;
pub mod ids;
pub mod keys;
pub mod models;
pub mod net;
pub mod plan;
pub(crate) mod prefetch;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod units;

#[global_allocator]
static ENGINE_ALLOC: alloc::Engine = alloc::Engine;

pub use error::{Error, Result};
pub use plan::Plan;
pub use results::Results;
pub use sim::Simulation;
pub use units::{Rate, SimTime};

/// Version string written into every summary.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
