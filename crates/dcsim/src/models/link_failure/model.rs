//! Link failures in the fabric-model list: how they are built, and what they add to the
//! results in runs with failures only (other runs' tables and summaries are unchanged).

use serde_json::json;

use super::steps::LINK_STEP;
use super::{Action, LinkFaults};
use crate::event::owners::Subject;
use crate::event::ModelEvent;
use crate::ids::{FlowId, PktId, PortId};
use crate::models::fabric_model::{BuildCtx, EventCtx, FabricModel, FlowEnds, FlowInfo, Tables};
use crate::net::fabric::{After, Fabric};
use crate::net::packet::PktKind;
use crate::results::{Column, Table};
use crate::units::SimTime;

impl FabricModel for LinkFaults {
    fn new(ctx: &mut BuildCtx) -> Self {
        if ctx.plan.fabric.link_faults.failures.is_empty() {
            return LinkFaults::default();
        }
        let g = ctx.routes;
        let toward = |a: u32, b: u32| {
            let p = g.node_ports[a as usize].clone().find(|&p| g.peer_node[p as usize].0 == b);
            PortId(p.expect("validated plan: a failed link exists"))
        };
        let ports = ctx.ports;
        LinkFaults::new(ctx.plan, ctx.q, g.clone(), toward, |p| ports[p.idx()].peer)
    }

    /// `link_events`: one row per step of a failure.
    fn tables(&self, fx: &Fabric, _ends: FlowEnds, out: &mut Tables) {
        if !self.active {
            return;
        }
        let log = &self.log;
        let step = |k: u32| &self.steps[k as usize];
        let node_of = |p: crate::ids::PortId| fx.nodes[fx.ports[p.idx()].node.idx()].name.clone();
        let mut t = Table::default();
        t.push("time_ps", Column::U64(log.iter().map(|e| e.0 .0).collect()));
        t.push("failure", Column::U64(log.iter().map(|e| step(e.1).failure as u64).collect()));
        t.push("a", Column::Str(log.iter().map(|e| node_of(step(e.1).ports[0])).collect()));
        t.push("b", Column::Str(log.iter().map(|e| node_of(step(e.1).ports[1])).collect()));
        t.push("event", Column::Str(log.iter().map(|e| step(e.1).action.name().to_string()).collect()));
        out.push(("link_events".to_string(), t));
    }

    /// What the failures cost.
    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if !self.active {
            return;
        }
        let routes = |a: Action| matches!(a, Action::RoutesDown | Action::RoutesUp);
        summary["link_failures"] = json!({
            "failures": self.steps.iter().map(|st| st.failure + 1).max().unwrap_or(0),
            "frames_lost_in_flight": self.lost_in_flight,
            "data_dropped_at_down_port": self.dropped_at_down_port,
            "data_dropped_no_route": self.dropped_no_route,
            "control_frames_dropped": self.control_dropped,
            "data_lost": self.lost_by_flow.iter().sum::<u64>(),
            "flows_hit": self.lost_by_flow.iter().filter(|&&n| n > 0).count(),
            "route_updates": self.log.iter().filter(|e| routes(self.steps[e.1 as usize].action)).count(),
        });
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        super::checks::check_plan(plan)
    }

    fn not_node_local(plan: &crate::plan::Plan) -> Option<&'static str> {
        (!plan.fabric.link_faults.failures.is_empty()).then_some("switch.link_failures (routes change everywhere at once)")
    }

    fn not_fast_forwarded(plan: &crate::plan::Plan) -> Option<&'static str> {
        (!plan.fabric.link_faults.failures.is_empty()).then_some("switch.link_failures")
    }

    /// A step is the whole fabric's (routes change everywhere at once).
    const EVENTS: &'static [(u8, Subject)] = &[(LINK_STEP, Subject::None)];

    /// Step `a` of the failures: a link going down is the world's to take down
    /// (`After::PortDown`, each end in turn).
    fn on_event<F: Fn(crate::ids::FlowId) -> FlowInfo>(
        &mut self,
        fx: &mut Fabric,
        ev: ModelEvent,
        _cx: &EventCtx<F>,
    ) -> Option<ModelEvent> {
        for p in self.on_step(fx, ev.a()).into_iter().flatten() {
            fx.after.push(After::PortDown(p));
        }
        None
    }

    fn wants_down_ports(&self) -> bool {
        self.active
    }

    /// Its link is down, or `PortId::NONE`: the switch has no route.
    #[inline]
    fn unusable(&self, fx: &Fabric, out: PortId) -> bool {
        out == PortId::NONE || fx.ports[out.idx()].down
    }

    /// Counted: a control frame freed here, a data frame returned for the world to lose.
    #[cold]
    fn drop_unusable(&mut self, fx: &mut Fabric, out: PortId, id: PktId) -> bool {
        if fx.pool.get(id).kind != PktKind::Data {
            self.control_dropped += 1;
            fx.pool.free(id);
            return false;
        }
        if out == PortId::NONE {
            self.dropped_no_route += 1;
        } else {
            self.dropped_at_down_port += 1;
        }
        true
    }

    /// On the wire when the link failed: it arrives while the link is down, or it left
    /// before the link last came up. The time it left is its arrival time less the link
    /// delay and its serialization at the transmitter's rate.
    #[inline]
    fn lost_on_wire(&mut self, fx: &Fabric, p: PortId, id: PktId) -> bool {
        let port = &fx.ports[p.idx()];
        if !port.down && port.up_at == SimTime::ZERO {
            return false;
        }
        let lost = port.down || {
            let wire = fx.pool.get(id).frame as u64 + fx.preamble as u64;
            let tx = fx.ports[port.peer.idx()].line.tx_time(wire);
            let left = fx.now().0.saturating_sub(port.delay.0 + tx.0);
            left < port.up_at.0
        };
        if lost {
            self.lost_in_flight += 1;
        }
        lost
    }

    /// The control frames waiting at a down port (pause frames the switch sends out of
    /// it, ACKs routed to it before convergence) are dropped.
    #[cold]
    fn port_down(&mut self, fx: &mut Fabric, p: PortId) {
        while let Some(id) = fx.ports[p.idx()].ctrl.pop(&fx.pool) {
            self.control_dropped += 1;
            fx.pool.free(id);
        }
    }

    fn lost_at_down(&mut self, flow: FlowId, counted: bool, queued: bool) {
        if queued {
            self.dropped_at_down_port += 1;
        }
        if counted {
            self.lost_by_flow[flow.idx()] += 1;
        }
    }
}
