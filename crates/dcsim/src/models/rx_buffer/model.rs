//! NIC receive buffers in the fabric-model list: how they are built, what they add to the
//! results in runs with them only, and the merge of a parallel run.

use std::mem::swap;

use serde_json::json;

use super::world::{RX_DONE, RX_RATE};
use super::RxBuffers;
use crate::event::owners::Subject;
use crate::event::ModelEvent;
use crate::ids::NodeId;
use crate::models::fabric_model::{BuildCtx, EventCtx, FabricModel, FlowEnds, FlowInfo, Tables};
use crate::net::fabric::Fabric;
use crate::results::{Column, Table};

impl FabricModel for RxBuffers {
    fn end_run(&mut self, _fx: &crate::net::fabric::Fabric, end: crate::units::SimTime) {
        self.finish(end);
    }

    fn shift_times(&mut self, by: crate::units::SimTime) {
        self.nics.iter_mut().for_each(|n| n.paused_since = n.paused_since.later(by));
    }

    fn new(ctx: &mut BuildCtx) -> Self {
        let port_of: Vec<crate::ids::PortId> = (0..ctx.nodes.len() as u32).map(|h| ctx.host_port(h)).collect();
        RxBuffers::new(ctx.plan, ctx.q, |h| port_of[h as usize])
    }

    fn wants_at_host(&self) -> bool {
        self.on
    }

    /// Into the NIC's receive buffer, if it has one.
    fn at_host(&mut self, fx: &mut Fabric, p: crate::ids::PortId, id: crate::ids::PktId) -> bool {
        self.arrive(fx, p, id)
    }

    /// A host's XOFF is its NIC's: a refresh asks whether the NIC has drained.
    fn ingress_under_xon(&mut self, fx: &Fabric, port: crate::ids::PortId, _class: u8) -> Option<bool> {
        (self.on && fx.is_host(fx.ports[port.idx()].node)).then(|| self.under_xon(fx, port))
    }

    /// Both act on a NIC's port.
    const EVENTS: &'static [(u8, Subject)] = &[(RX_DONE, Subject::Listed), (RX_RATE, Subject::Listed)];

    fn event_ports(&self, kind: u8) -> Vec<u32> {
        match kind {
            RX_DONE => self.nics.iter().map(|n| n.port.0).collect(),
            RX_RATE => self.changes.iter().map(|c| self.nics[c.0 as usize].port.0).collect(),
            _ => Vec::new(),
        }
    }

    fn on_event<F: Fn(crate::ids::FlowId) -> FlowInfo>(
        &mut self,
        fx: &mut Fabric,
        ev: ModelEvent,
        _cx: &EventCtx<F>,
    ) -> Option<ModelEvent> {
        match ev.kind {
            RX_DONE => self.done(fx, ev.a()),
            RX_RATE => self.on_rate(fx, ev.a()),
            _ => unreachable!("{ev:?}"),
        }
        None
    }

    /// `rx_buffers`: one row per NIC with a receive buffer.
    fn tables(&self, fx: &Fabric, _ends: FlowEnds, out: &mut Tables) {
        if !self.on {
            return;
        }
        let nics = &self.nics;
        let mut t = Table::default();
        t.push("host", Column::Str(nics.iter().map(|n| fx.nodes[fx.ports[n.port.idx()].node.idx()].name.clone()).collect()));
        t.push("size_bytes", Column::U64(nics.iter().map(|_| self.size).collect()));
        t.push("xoff_bytes", Column::U64(nics.iter().map(|n| n.xoff).collect()));
        t.push("xon_bytes", Column::U64(nics.iter().map(|n| n.xon).collect()));
        t.push("max_bytes", Column::U64(nics.iter().map(|n| n.stats.max_used).collect()));
        t.push("held_bytes", Column::U64(nics.iter().map(|n| n.used).collect()));
        t.push("frames", Column::U64(nics.iter().map(|n| n.stats.frames).collect()));
        t.push("drops", Column::U64(nics.iter().map(|n| n.stats.drops).collect()));
        t.push("pauses", Column::U64(nics.iter().map(|n| n.stats.pauses).collect()));
        t.push("paused_ps", Column::U64(nics.iter().map(|n| n.stats.paused_ps).collect()));
        out.push(("rx_buffers".to_string(), t));
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if !self.on {
            return;
        }
        let n = &self.nics;
        summary["rx_buffers"] = json!({
            "nics": n.len(),
            "pauses": n.iter().map(|x| x.stats.pauses).sum::<u64>(),
            "paused_ps": n.iter().map(|x| x.stats.paused_ps).sum::<u64>(),
            "drops": n.iter().map(|x| x.stats.drops).sum::<u64>(),
            "max_bytes": n.iter().map(|x| x.stats.max_used).max().unwrap_or(0),
        });
    }

    /// Each NIC is its host's partition's.
    fn merge(&mut self, other: &mut Self, fx: &Fabric, theirs: &dyn Fn(NodeId) -> bool) {
        for k in 0..self.nics.len() {
            if theirs(fx.ports[self.nics[k].port.idx()].node) {
                swap(&mut self.nics[k], &mut other.nics[k]);
            }
        }
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        super::keys::check(plan)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("rx_buffer.md", "rx_buffer", <super::keys::RxBufferKeys as crate::keys::Declared>::table()));
    }

    fn lossless_unchecked(&self) -> Option<&'static str> {
        self.xoff_fixed.then_some("not checked: XOFF of the NIC receive buffers is fixed by the scenario (host.rx_buffer.xoff)")
    }

    fn not_fast_forwarded(plan: &crate::plan::Plan) -> Option<&'static str> {
        plan.fabric.rx.as_ref().is_some_and(|r| !r.changes.is_empty()).then_some("host.rx_buffer.rate_changes")
    }
}
