//! Link failures (`[switch] link_failures`): a link between two switches goes down at a
//! given time and optionally comes back. While it is down neither end transmits; frames
//! on the wire when it fails are lost, frames queued at either end are dropped, and
//! frames routed to it before the routes change are dropped (black-holed). After
//! `switch.convergence` every switch routes without the link (ECMP groups shrink; a
//! destination with no path left has no route); after the link comes back up, routes
//! include it again after the same delay. Transports recover by retransmission: RoCE's
//! NAK (go-back-N) or its timeout (`host.rto`, armed on lossless priorities too in a run
//! with link failures), TCP's SACK recovery or timer.
//!
//! `steps.rs` holds the steps, `model.rs` the list's hooks: the frames a failed link
//! loses, counted (they take the fabric; the world empties a failed port,
//! `sim/link_down.rs`); this file the state and what is counted.

mod checks;
mod keys;
mod model;
pub mod steps;

pub use keys::{LinkFailure, LinkFailureKeys, LinkFailurePlan, LinkFailureSpec};

use crate::ids::PortId;
use crate::net::routing::RouteInputs;
use crate::units::SimTime;

/// What happens at a scheduled step of a failure.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The link stops carrying frames.
    Down,
    /// The link carries frames again.
    Up,
    /// Routes no longer use the link (convergence after `Down`).
    RoutesDown,
    /// Routes use the link again (convergence after `Up`).
    RoutesUp,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Down => "down",
            Action::Up => "up",
            Action::RoutesDown => "routes_down",
            Action::RoutesUp => "routes_up",
        }
    }
}

/// One scheduled step: the two ports of the link, the action and the failure it belongs to.
#[derive(Copy, Clone, Debug)]
pub struct Step {
    pub at: SimTime,
    pub ports: [PortId; 2],
    pub action: Action,
    pub failure: u32,
}

/// Link-failure state (`Simulation::link_faults`).
#[derive(Default)]
pub struct LinkFaults {
    /// The run has link failures: the per-frame checks are made only then.
    pub active: bool,
    /// Steps, indexed by the `LINK_STEP` event's `a`.
    pub steps: Vec<Step>,
    /// Per port: routes avoid it (converged after a failure).
    pub routed_dead: Vec<bool>,
    pub graph: Option<RouteInputs>,
    /// Steps taken so far: (time, step index).
    pub log: Vec<(SimTime, u32)>,
    /// Frames (data and control) on the wire of a link when it failed.
    pub lost_in_flight: u64,
    /// Data frames queued at a port when its link failed or routed to a down port.
    pub dropped_at_down_port: u64,
    /// Data frames at a switch with no route to their destination left.
    pub dropped_no_route: u64,
    /// Control frames (PFC, ACK/NAK, CNP, ...) queued for or routed to a down port.
    pub control_dropped: u64,
    /// Data frames lost for any of these reasons, per flow.
    pub lost_by_flow: Vec<u64>,
}
