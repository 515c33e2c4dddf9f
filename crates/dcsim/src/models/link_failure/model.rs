//! Link failures in the fabric-model list: how they are built, and what they add to the
//! results in runs with failures only (other runs' tables and summaries are unchanged).

use serde_json::json;

use super::{Action, LinkFaults};
use crate::ids::PortId;
use crate::models::fabric_model::{BuildCtx, FabricModel, FlowEnds, Tables};
use crate::net::fabric::Fabric;
use crate::results::{Column, Table};

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
}
