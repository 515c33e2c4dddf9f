//! A trimmed header at its destination (a switch cut the data frame it would have
//! dropped, `FabricModel::overflow`): the RoCE receiver answers it with a NAK naming that
//! packet (`Packet::with_nak_offset`), so that the sender resends it at once instead of
//! waiting for a gap or a timeout. TCP and UDP frames are never cut.

use super::Simulation;
use crate::ids::PortId;
use crate::net::packet::{Packet, PktKind};

impl Simulation {
    /// A trimmed header reached its destination: NAK at once. With selective repeat the
    /// NAK names that packet (the sender resends it alone) and the receiver remembers
    /// it, so that the gap it leaves is not NAKed again; with go-back-N it names the
    /// first missing packet, as a gap does (a header overtakes the data queued before
    /// it, which may still arrive: `receive_ack` keeps `next_seq` above what is ACKed).
    pub(crate) fn receive_trimmed(&mut self, pkt: &Packet) {
        let w = self.host.ooo_window;
        let f = pkt.flow;
        let seq = pkt.seq();
        if self.receivers.retired(f.idx()) {
            return; // every packet was delivered (`retire_receiver`): a stale copy
        }
        let r = &mut self.receivers[f.idx()];
        if seq < r.rcv_next {
            return; // delivered since: a stale copy
        }
        // The NAK carries the cumulative ACK and the named packet's offset above it.
        let off = if r.ooo.is_empty() {
            // Go-back-N: as for a gap, once per gap, but again when the trimmed packet
            // is the one expected (its resend was trimmed too).
            if seq != r.rcv_next && r.nak_for == r.rcv_next {
                return;
            }
            r.nak_for = r.rcv_next;
            0
        } else {
            // Beyond the out-of-order window the packet could not be kept anyway (nor
            // named by the NAK's 16-bit offset).
            if seq - r.rcv_next >= w.min(1 << 16) || r.held(seq, w) {
                return;
            }
            let off = (seq - r.rcv_next) as u16;
            r.set_trim_nacked(seq, true, w);
            if seq == r.rcv_next {
                r.nak_for = seq;
            }
            off
        };
        let hdr = &self.flows[f.idx()];
        let (src, dst, prio, cum) = (hdr.src, hdr.dst, hdr.prio, r.rcv_next);
        let ack = Packet::ack(PktKind::Nak, f, src, cum, self.host.ack_bytes, prio, pkt.sent(), false, !self.host.acks_in_data);
        let id = self.fx.pool.alloc(ack.with_nak_offset(off));
        let p = PortId(self.fx.nodes[dst.idx()].ports.start);
        self.fx.ports[p.idx()].ctrl.push(&mut self.fx.pool, id);
        self.host_try_send(p);
    }
}
