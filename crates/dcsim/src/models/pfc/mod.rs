//! Link-level flow control: per-priority PFC (IEEE 802.1Qbb) and 802.3x PAUSE. The
//! XOFF/XON decisions are taken by the switch buffer (`net/mmu.rs`) on admission and
//! release; this folder holds the headroom and pause-quanta arithmetic (`headroom.rs`),
//! the frames and timers in the world (`frames.rs`: sending XOFF/XON, refresh, a frame's
//! arrival, pause expiry, the PFC event log), deadlock detection (`deadlock.rs`), the
//! switches' PFC watchdog (`watchdog.rs`), injected pause storms from hosts (`storm.rs`) the resolved parameters (`params.rs`) and their scenario keys (`keys.rs`; the switch
//! buffer's, whose thresholds PFC pauses at, in `buffer.rs`).

pub mod buffer;
pub(crate) mod checks;
pub mod deadlock;
pub mod frames;
pub mod headroom;
pub mod keys;
mod model;
pub mod params;
pub mod storm;
mod storm_keys;
pub mod switch_buffer;
pub mod watchdog;

pub use frames::Pfc;
pub use params::{FlowControl, Headroom, PauseMode, PfcPlan, WatchdogAction, WatchdogPlan};
pub use storm_keys::{PauseStorm, PauseStormKeys, PauseStormPlan, PauseStormSpec};
