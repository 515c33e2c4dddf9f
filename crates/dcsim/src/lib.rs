//! dcsim: a packet-level discrete-event simulator of lossless datacenter fabrics.
//!
//! Layers, bottom up: `units`, `ids`, `event` (engine); `net` (the packet model);
//! `plan` (validated input), `scenario` (TOML -> plan, topology and traffic builders);
//! `sim` (world construction and the run loop); `results` (columnar output).

pub mod cc;
pub mod error;
pub mod event;
pub mod ids;
pub mod net;
pub mod plan;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod units;

pub use error::{Error, Result};
pub use plan::Plan;
pub use results::Results;
pub use sim::Simulation;
pub use units::{Rate, SimTime};

/// Version string written into every summary.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
