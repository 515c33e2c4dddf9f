//! Remote PFC (source flow control, seed 001; ../shared/models/remote-pfc.md): a switch
//! whose lossless egress queue is above its remote-PFC threshold sends a small message
//! toward the source of the frame that joined it (`cp.rs`); the message is a real
//! control-class frame routed like any other; the switch the source host hangs off (its
//! top-of-rack switch) turns it into an ordinary PFC pause of the host's port for that
//! priority and the computed duration (`tor.rs`). Intermediate switches forward the
//! message and are not paused. Scenario keys `[switch.remote_pfc]` (`keys.rs`), resolved
//! parameters (`params.rs`); the checks that need the topology and the ECN marker
//! (threshold below Kmin, a source without a ToR) are `keys::check_plan`, run from the
//! fabric-model list.

pub mod cp;
pub mod keys;
mod model;
pub mod params;

#[cfg(test)]
mod tests;
pub mod tor;

pub use params::RemotePfcPlan;

use crate::models::ecn::marker::thresholds_for;
use crate::plan::Plan;
use crate::units::Rate;

/// Remote PFC in the world: the congestion points' state and the ToRs' state.
pub(crate) struct RemotePfc {
    /// Whether the model runs (checked once per data frame joining a lossless queue).
    pub on: bool,
    pub cp: cp::CpState,
    pub tor: tor::TorState,
    /// The fabric runs 802.3x PAUSE: one class, and a pause stops every priority.
    pub pause_all: bool,
}

impl RemotePfc {
    /// `port_rates` and `port_node` are per port, `n_nodes` the node count.
    pub fn new(plan: &Plan, port_rates: &[Rate], n_nodes: usize) -> Self {
        let p = &plan.fabric.rpfc;
        if !p.enabled {
            return RemotePfc { on: false, cp: cp::CpState::default(), tor: tor::TorState::default(), pause_all: false };
        }
        // Per port: the threshold and the drain-to level, from the port's ECN marker
        // unless given (remote-pfc.md 8.4).
        let (threshold, target) = port_rates
            .iter()
            .map(|r| {
                let th = thresholds_for(&plan.fabric.marking.ecn, *r);
                let t = p.threshold.unwrap_or(2 * th.kmax);
                (t, p.target.unwrap_or(th.kmin).min(t))
            })
            .unzip();
        RemotePfc {
            on: true,
            cp: cp::CpState::new(p, threshold, target, n_nodes),
            tor: tor::TorState::new(port_rates.len(), n_nodes),
            pause_all: plan.fabric.pfc.mode == crate::models::pfc::FlowControl::Pause,
        }
    }
}
