//! HPCC's switch side: in-band network telemetry. As a data frame that carries an INT
//! header starts transmission at a switch egress port, the port pushes one hop record
//! (time, the port's transmitted bytes so far, the bytes still queued at the port, its
//! line rate) onto the frame's stack, up to `MAX_INT_HOPS`. The stack lives beside the
//! packet (`PacketPool::int_mut`) and is allocated only when some flow uses INT. The
//! receiver echoes it in the ACK (`sim/host.rs`); the sender's HPCC reads it there.

use crate::ids::{PktId, PortId};
use crate::net::fabric::Fabric;
use crate::net::packet::{IntHop, PktKind, FLAG_INT};

/// Port `p` starts sending frame `id` from a data queue: stamps it if it is a data
/// frame with INT (an ACK queued there with `host.ack_queue = "data"` carries its
/// echo unchanged).
#[inline]
pub fn stamp(fx: &mut Fabric, p: PortId, id: PktId) {
    let pkt = fx.pool.get(id);
    if pkt.flags & FLAG_INT == 0 || pkt.kind != PktKind::Data {
        return;
    }
    let qlen = fx.slots.prios().map(|prio| fx.egress.queue(p, prio).bytes).sum();
    let hop = IntHop {
        ts: fx.now(),
        // The port's wire-byte counter (every frame kind, preamble/IFG included when
        // modelled) before this frame: its rate of change is the link's utilisation.
        tx_bytes: fx.ports[p.idx()].wire_bytes,
        qlen,
        rate: fx.ports[p.idx()].rate(),
    };
    fx.pool.int_mut(id).push(hop);
}
