//! Host-originated pause storms (`[host] pause_storms`): a malfunctioning NIC, or one
//! whose receive buffer stays full because its host stopped draining it, keeps sending
//! XOFF for a priority to its switch from `start`. It re-sends the pause as the switches'
//! own XOFF logic does (after `refresh_fraction` of the pause duration), so the switch
//! port toward it stays paused; at `stop` (if given) it sends XON. The pauses spread
//! upstream through the buffers like any congestion; the PFC watchdog
//! (`watchdog.rs`) is the remedy switches ship.

use super::{FlowControl, PauseMode, PfcPlan};
use crate::event::EventQueue;
use crate::ids::PortId;
use crate::models::fabric_model::model_event;
use crate::models::pfc::headroom::{quanta_to_time, time_to_quanta, PFC_FRAME_BYTES};
use crate::net::fabric::Fabric;
use crate::net::packet::Packet;
use crate::plan::Plan;
use crate::units::SimTime;

/// One injected storm, resolved to the host's port.
#[derive(Copy, Clone, Debug)]
pub struct Storm {
    pub port: PortId,
    pub priority: u8,
    pub stop: Option<SimTime>,
}

/// The injected storms (`Simulation::pause_storms`) and the pause frames they sent.
#[derive(Default)]
pub struct PauseStorms {
    pub storms: Vec<Storm>,
    pub frames_sent: u64,
    /// How the storms' frames pause (the run's PFC parameters).
    pfc: PfcPlan,
}

/// The event of a storm's next frame (its tie-key number); `a`: the storm.
pub(super) const PAUSE_STORM: u8 = 15;

impl PauseStorms {
    /// The plan's storms, their first frames scheduled; `port_of(host)` is the host's port.
    pub fn new(plan: &Plan, q: &mut EventQueue, port_of: impl Fn(u32) -> PortId) -> PauseStorms {
        let mut storms = Vec::new();
        for (k, st) in plan.fabric.pause_storms.storms.iter().enumerate() {
            storms.push(Storm { port: port_of(st.host), priority: st.priority, stop: st.stop });
            if st.start <= plan.duration {
                q.schedule(st.start, model_event::<Self>(PAUSE_STORM, 0, k as u32, 0));
            }
        }
        PauseStorms { storms, frames_sent: 0, pfc: plan.fabric.pfc.clone() }
    }
}

impl PauseStorms {
    /// Storm `k` sends its next pause (or, at its stop time, an XON).
    pub(super) fn on_storm(&mut self, fx: &mut Fabric, k: u32, end: SimTime) {
        let now = fx.now();
        let pfc = &self.pfc;
        let st = self.storms[k as usize];
        let rate = fx.ports[st.port.idx()].rate();
        let ending = st.stop.is_some_and(|s| now >= s);
        let quanta = match (ending, pfc.pause_mode) {
            (true, _) => 0,
            (false, PauseMode::Timer) => time_to_quanta(pfc.pause_time, rate),
            (false, _) => pfc.xoff_quanta as u32,
        };
        let mask = if pfc.mode == FlowControl::Pause { 0xFF } else { 1u8 << st.priority };
        let id = fx.pool.alloc(Packet::pfc(mask, quanta, PFC_FRAME_BYTES));
        let pool = &mut fx.pool;
        fx.ports[st.port.idx()].ctrl.push(pool, id);
        self.frames_sent += 1;
        fx.kick(st.port);
        if ending {
            return;
        }
        let dur = quanta_to_time(quanta, rate);
        let mut next = now + SimTime((dur.0 as f64 * pfc.refresh_fraction) as u64).max(SimTime(1));
        if let Some(s) = st.stop {
            next = next.min(s);
        }
        if next <= end {
            fx.q.schedule(next, model_event::<Self>(PAUSE_STORM, 0, k, 0));
        }
    }
}
