//! A NIC's receive buffer and processing rate (`[host.rx_buffer]`): the slow receiver.
//!
//! Without it a NIC consumes every frame the moment its last bit arrives. With it, frames
//! wait in a finite buffer (`size` bytes) and are handed to the transport (delivered,
//! acknowledged, answered with CNPs) one at a time, in arrival order, at the host's
//! processing rate (`rate`: what PCIe and host memory drain, by default the link rate).
//! When the buffer holds `xoff` bytes the NIC sends PFC XOFF to its switch for each
//! lossless priority (802.3x PAUSE in pause mode), refreshed as a switch ingress refreshes
//! it, and XON once it has drained to `xon` (`models/pfc/frames.rs` sends both). The
//! fault to inject is a change of the processing rate at a given time (`rate_changes`;
//! 0 bps: the host stops draining). With InfiniBand credits the NIC returns credits when it
//! processes a frame, not when the frame arrives. A frame that finds the buffer full is
//! dropped and counted: a lossy priority, or a buffer whose headroom above `xoff` is too
//! small for what is still on the wire when the pause goes out.
//!
//! `keys.rs` reads and checks the scenario keys, `world.rs` runs it.

pub mod keys;
mod model;
pub mod world;

use std::collections::VecDeque;

use crate::ids::{PktId, PortId};
use crate::units::{Rate, SimTime};

/// Resolved `[host.rx_buffer]`.
#[derive(Clone, Debug, PartialEq)]
pub struct RxBufferPlan {
    /// Receive buffer of each NIC that has one (bytes).
    pub size: u64,
    /// Processing rate; `None` is the rate of the host's link.
    pub rate: Option<Rate>,
    /// XOFF threshold (bytes held); `None`: `size` minus the PFC headroom of the link.
    pub xoff: Option<u64>,
    /// XON threshold; `None`: `xoff` minus `switch.pfc.resume_offset`.
    pub xon: Option<u64>,
    /// The hosts (node indices) whose NICs have the buffer.
    pub hosts: Vec<u32>,
    /// Processing-rate changes, in the order given.
    pub changes: Vec<RateChange>,
}

/// From `at`, the NIC of `host` processes at `rate` (zero: it stops draining).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RateChange {
    pub host: u32,
    pub at: SimTime,
    pub rate: Rate,
}

/// One NIC's receive path: the hot part (what each frame touches) and its counters.
#[derive(Debug)]
pub struct Nic {
    pub port: PortId,
    pub fifo: VecDeque<PktId>,
    /// Frame bytes held, including the frame being processed.
    pub used: u64,
    pub rate: Rate,
    /// A frame is being processed (its `RxDone` is scheduled).
    pub busy: bool,
    pub xoff: u64,
    pub xon: u64,
    /// The NIC holds its switch paused (XOFF sent, no XON yet), since `paused_since`.
    pub pausing: bool,
    pub paused_since: SimTime,
    pub stats: NicStats,
}

/// What one NIC's receive buffer did (the `rx_buffers` table).
#[derive(Clone, Debug, Default)]
pub struct NicStats {
    pub max_used: u64,
    pub frames: u64,
    pub drops: u64,
    /// XOFF episodes (an XOFF after the buffer was below `xon`), not refreshes.
    pub pauses: u64,
    pub paused_ps: u64,
}

/// The receive buffers of a run (`Simulation::rx`); `on` is false when no NIC has one.
#[derive(Debug, Default)]
pub struct RxBuffers {
    pub on: bool,
    pub size: u64,
    /// The scenario fixed XOFF (so a lossless drop at a NIC is not a model error).
    pub xoff_fixed: bool,
    /// NIC index of each node (`u32::MAX`: none).
    pub slot: Vec<u32>,
    pub nics: Vec<Nic>,
    /// The plan's rate changes, resolved to NIC indices, scheduled as `RX_RATE` events.
    pub changes: Vec<(u32, Rate)>,
    /// The classes a NIC's pause covers (bit c: class c): the lossless ones under PFC,
    /// class 0 (every priority) under PAUSE, none otherwise.
    pub pause_classes: u8,
}

impl RxBuffers {
    /// The NIC of the node owning `port`, if it has a receive buffer.
    #[inline]
    pub fn nic_of_node(&self, node: usize) -> Option<usize> {
        match self.slot.get(node) {
            Some(&k) if k != u32::MAX => Some(k as usize),
            _ => None,
        }
    }
}
