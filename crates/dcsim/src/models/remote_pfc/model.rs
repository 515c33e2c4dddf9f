//! Remote PFC in the fabric-model list: how it is built, what it adds to the results
//! (only when it runs: other runs' tables are unchanged) and the merge of a parallel run.

use serde_json::json;

use super::RemotePfc;
use crate::ids::{FlowId, NodeId, PortId};
use crate::models::fabric_model::{BuildCtx, Enqueued, FabricModel, FlowEnds, Tables};
use crate::net::fabric::Fabric;
use crate::net::packet::PktKind;
use crate::results::{Column, Table};

impl FabricModel for RemotePfc {
    fn shift_times(&mut self, by: crate::units::SimTime) {
        self.cp.shift_times(by);
        self.tor.shift_times(by);
    }

    fn wants_enqueued(&self) -> bool {
        self.on
    }

    /// Only data frames joining a lossless queue count toward the threshold.
    #[inline]
    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, fx: &mut Fabric, e: &Enqueued, src: &S) {
        if self.on && e.lossless && e.pkt.kind == PktKind::Data {
            self.on_enqueue(fx, e.out, e.prio, e.pkt.flow, src(e.pkt.flow), e.q_before + e.pkt.frame as u64);
        }
    }

    fn wants_control_forwarded(&self) -> bool {
        self.on
    }

    /// A remote-PFC message: forwarded, or turned into a pause by the source's ToR.
    #[inline]
    fn control_forwarded(
        &mut self,
        fx: &mut Fabric,
        node: NodeId,
        out: PortId,
        id: crate::ids::PktId,
        pkt: &crate::net::packet::Packet,
    ) -> bool {
        let mine = pkt.kind == PktKind::RemotePfc;
        if mine {
            self.forward(fx, node, out, id);
        }
        mine
    }

    fn new(ctx: &mut BuildCtx) -> Self {
        RemotePfc::new(ctx.plan, ctx.port_rates, ctx.plan.nodes.len())
    }

    /// An XON must not end a remote-PFC pause this switch sent the host behind `port`
    /// (`tor.rs`): it becomes a pause for what is left.
    fn xon_quanta(&self, fx: &Fabric, port: PortId, class: u8) -> u32 {
        if !self.on {
            return 0;
        }
        let rate = fx.ports[port.idx()].rate();
        self.tor.remaining(port.idx(), class, fx.now(), rate).unwrap_or(0)
    }

    /// `remote_pfc`: one row per node. Switches: messages their queues sent, messages
    /// they consumed as a source's ToR and the PFC frames they sent for them. Hosts: the
    /// remote-pause time their ToR granted them (overlaps once) and the time their port
    /// was paused on any priority by any PFC frame.
    fn tables(&self, fx: &Fabric, _ends: FlowEnds, out: &mut Tables) {
        if !self.on {
            return;
        }
        let host_port = |n: &crate::net::port::Node| n.ports.start as usize;
        let mut t = Table::default();
        t.push("node", Column::Str(fx.nodes.iter().map(|n| n.name.clone()).collect()));
        t.push("kind", Column::Str(fx.nodes.iter().map(|n| if n.is_host { "host" } else { "switch" }.to_string()).collect()));
        t.push("messages_sent", Column::U64(self.cp.sent.clone()));
        t.push("messages_consumed", Column::U64(self.tor.consumed.clone()));
        t.push("pauses_sent", Column::U64(self.tor.pauses.clone()));
        let granted = |n: &crate::net::port::Node| if n.is_host { self.tor.granted_ps[fx.ports[host_port(n)].peer.idx()] } else { 0 };
        t.push("pause_granted_ps", Column::U64(fx.nodes.iter().map(granted).collect()));
        let paused = |n: &crate::net::port::Node| {
            if n.is_host {
                fx.slots.prios().map(|k| fx.prio_stats[fx.slots.at(host_port(n), k)].paused_ps).sum()
            } else {
                0
            }
        };
        t.push("paused_ps", Column::U64(fx.nodes.iter().map(paused).collect()));
        out.push(("remote_pfc".to_string(), t));
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if self.on {
            summary["remote_pfc"] = json!({
                "messages_sent": self.cp.sent.iter().sum::<u64>(),
                "messages_consumed": self.tor.consumed.iter().sum::<u64>(),
                "pauses_sent": self.tor.pauses.iter().sum::<u64>(),
                "pause_granted_ps": self.tor.granted_ps.iter().sum::<u64>(),
            });
        }
    }

    /// Counts per node or port, each where it ran: sums.
    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {
        let add = |a: &mut Vec<u64>, b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.cp.sent, &other.cp.sent);
        add(&mut self.tor.consumed, &other.tor.consumed);
        add(&mut self.tor.pauses, &other.tor.pauses);
        add(&mut self.tor.granted_ps, &other.tor.granted_ps);
    }

    fn check_plan(plan: &crate::plan::Plan, _: &crate::keys::KeyCtx) -> crate::Result<()> {
        super::keys::check_plan(plan)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("remote_pfc.md", "remote_pfc", <super::keys::RemotePfcKeys as crate::keys::Declared>::table()));
    }
}
