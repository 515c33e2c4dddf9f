//! FECN probes at the hosts: a source sends a 64-byte probe toward its destination (the
//! switch ports on its way lower the rate it carries, `ports.rs`); the destination
//! reflects it, and the source takes the rate it brings back.

use crate::ids::{FlowId, NodeId, PortId};
use crate::models::l2cm::L2_FRAME;
use crate::models::Feedback;
use crate::net::packet::{Packet, PktKind, NO_RATE};
use crate::sim::Simulation;
use crate::units::Rate;

impl Simulation {
    /// A FECN source sends a probe toward its destination.
    pub(crate) fn send_probe(&mut self, f: FlowId) {
        let (src, dst) = (self.flows[f.idx()].src, self.flows[f.idx()].dst);
        self.send_probe_frame(src, dst, f, PktKind::Probe, NO_RATE);
    }

    fn send_probe_frame(&mut self, from: NodeId, to: NodeId, f: FlowId, kind: PktKind, rate_kbps: u32) {
        let id = self.fx.pool.alloc(Packet::probe(kind, f, to, rate_kbps, L2_FRAME));
        let p = PortId(self.fx.nodes[from.idx()].ports.start);
        self.fx.ports[p.idx()].ctrl.push(&mut self.fx.pool, id);
        self.kick(p);
    }

    /// The destination reflects a probe; the source takes the rate it brings back.
    pub(crate) fn on_probe(&mut self, pkt: &Packet) {
        let f = pkt.flow;
        match pkt.kind {
            PktKind::Probe => {
                let (src, dst) = (self.flows[f.idx()].src, self.flows[f.idx()].dst);
                self.send_probe_frame(dst, src, f, PktKind::ProbeReply, pkt.probe_rate());
            }
            _ => {
                if pkt.probe_rate() == NO_RATE || self.senders[f.idx()].done {
                    return; // no FECN port on the path, or the source has stopped
                }
                let rate = Rate(pkt.probe_rate() as u64 * 1000);
                self.flow_stats[f.idx()].feedback_rx += 1;
                self.cc_hook(f, |cc, ctx| cc.on_feedback(ctx, Feedback::FecnRate { rate }));
            }
        }
    }
}
