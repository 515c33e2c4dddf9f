//! FECN and E-FECN (forward explicit congestion notification, seed 002): switch ports
//! that compute and advertise a fair rate every interval (`switch.rs`), sources that probe
//! their path and take the lowest advertised rate (`source.rs`), the probes at the hosts
//! (`probes.rs`) and at the switch ports (`ports.rs`), and their scenario keys. E-FECN adds a BCN00 from a
//! severely congested queue to the source.

mod keys;
pub mod ports;
pub mod probes;
pub mod source;
pub mod switch;

pub use keys::{EfecnKeys, EfecnSwitchKeys, FecnKeys, FecnSwitchKeys};
pub use source::{Fecn, FecnParams};
pub use switch::{FecnPort, FecnSwitchParams};
