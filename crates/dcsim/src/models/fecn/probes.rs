//! FECN probes at the hosts: a source sends a 64-byte probe toward its destination (the
//! switch ports on its way lower the rate it carries, `ports.rs`); the destination
//! reflects it, and the source's reaction point takes the rate it brings back. A line
//! of the fabric-model list with no state: the probes are its frames.

use crate::ids::{FlowId, NodeId, PortId};
use crate::models::fabric_model::{BuildCtx, FabricModel, FlowInfo};
use crate::models::l2cm::L2_FRAME;
use crate::net::fabric::{After, Fabric};
use crate::net::packet::{Feedback, Packet, PktKind, NO_RATE};
use crate::units::Rate;

/// FECN's probes and their replies, between a flow's hosts.
pub(crate) struct FecnProbes;

impl FabricModel for FecnProbes {
    fn new(_ctx: &mut BuildCtx) -> Self {
        FecnProbes
    }

    /// The source sends a probe toward the destination.
    fn probe_asked(&mut self, fx: &mut Fabric, f: FlowId, flow: FlowInfo) {
        send(fx, flow.src, flow.dst, f, PktKind::Probe, NO_RATE);
    }

    /// The destination reflects a probe; at the source, a reply's rate goes to the
    /// reaction point (none when no FECN port is on the path).
    fn probe_arrived(&mut self, fx: &mut Fabric, pkt: &Packet, flow: FlowInfo) {
        match pkt.kind {
            PktKind::Probe => send(fx, flow.dst, flow.src, pkt.flow, PktKind::ProbeReply, pkt.probe_rate()),
            _ if pkt.probe_rate() != NO_RATE => {
                let rate = Rate(pkt.probe_rate() as u64 * 1000);
                fx.after.push(After::Feedback(pkt.flow, Feedback::FecnRate { rate }));
            }
            _ => {}
        }
    }
}

fn send(fx: &mut Fabric, from: NodeId, to: NodeId, f: FlowId, kind: PktKind, rate_kbps: u32) {
    let id = fx.pool.alloc(Packet::probe(kind, f, to, rate_kbps, L2_FRAME));
    let p = PortId(fx.nodes[from.idx()].ports.start);
    fx.ports[p.idx()].ctrl.push(&mut fx.pool, id);
    fx.kick(p);
}
