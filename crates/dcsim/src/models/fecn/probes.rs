//! FECN probes at the hosts: a source sends a 64-byte probe toward its destination (the
//! switch ports on its way lower the rate it carries, `ports.rs`); the destination
//! reflects it, and the source takes the rate it brings back.

use crate::ids::{FlowId, NodeId, PortId};
use crate::models::l2cm::L2_FRAME;
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, PktKind, NO_RATE};
use crate::units::Rate;

/// The source `src` of flow `f` sends a probe toward its destination `dst`.
pub(crate) fn send_probe(fx: &mut Fabric, f: FlowId, src: NodeId, dst: NodeId) {
    send(fx, src, dst, f, PktKind::Probe, NO_RATE);
}

fn send(fx: &mut Fabric, from: NodeId, to: NodeId, f: FlowId, kind: PktKind, rate_kbps: u32) {
    let id = fx.pool.alloc(Packet::probe(kind, f, to, rate_kbps, L2_FRAME));
    let p = PortId(fx.nodes[from.idx()].ports.start);
    fx.ports[p.idx()].ctrl.push(&mut fx.pool, id);
    fx.kick(p);
}

/// A probe of a flow from `src` to `dst` reached a host: the destination reflects it; at
/// the source, the rate the reply brings back (`None`: no FECN port on its path).
pub(crate) fn on_probe(fx: &mut Fabric, pkt: &Packet, src: NodeId, dst: NodeId) -> Option<Rate> {
    match pkt.kind {
        PktKind::Probe => {
            send(fx, dst, src, pkt.flow, PktKind::ProbeReply, pkt.probe_rate());
            None
        }
        _ => (pkt.probe_rate() != NO_RATE).then(|| Rate(pkt.probe_rate() as u64 * 1000)),
    }
}
