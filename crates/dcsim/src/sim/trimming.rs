//! Packet trimming in the world (`models/trimming/` holds its parameters and counters):
//! a switch cuts a data frame it would drop to its header and forwards the header at
//! the header priority; the receiver answers a header with a NAK naming that packet
//! (`Packet::with_nak_offset`). TCP and UDP frames are dropped as before: UDP has no one to
//! tell, and TCP's receiver has no NAK (docs/models/trimming.md).

use super::{Simulation, NO_TCP};
use crate::ids::{PktId, PortId};
use crate::net::mmu::DropReason;
use crate::net::packet::{Packet, PktKind};

impl Simulation {
    /// A frame of a lossy priority would take egress (`out`, `prio`) to `bytes`, above
    /// the world's limit (`switch.egress_limit`, or trimming's lower `threshold`).
    /// Trims it, or drops it; false if it may still be queued (above a trimming
    /// threshold that does not apply to it, below the egress limit).
    pub(crate) fn over_egress_limit(&mut self, in_port: PortId, out: PortId, prio: u8, id: PktId, bytes: u64) -> bool {
        if !self.models.trimming.on {
            self.drop_packet(in_port, prio, id, DropReason::EgressFull);
        } else if !self.trim(in_port, out, prio, id) {
            if bytes <= self.models.trimming.egress_limit {
                return false;
            }
            self.drop_counted(in_port, out, prio, id, DropReason::EgressFull);
        }
        true
    }

    /// The buffer refused a frame: trims it if it can, else drops it.
    pub(crate) fn drop_or_trim(&mut self, in_port: PortId, out: PortId, prio: u8, id: PktId, reason: DropReason) {
        if !self.models.trimming.on {
            return self.drop_packet(in_port, prio, id, reason);
        }
        if !self.trim(in_port, out, prio, id) {
            self.drop_counted(in_port, out, prio, id, reason);
        }
    }

    /// Drops a frame in a run with trimming, counting a header's drop.
    fn drop_counted(&mut self, in_port: PortId, out: PortId, prio: u8, id: PktId, reason: DropReason) {
        if self.fx.pool.get(id).kind == PktKind::Trimmed {
            self.models.trimming.count_header_drop(out, prio);
        }
        self.drop_packet(in_port, prio, id, reason);
    }

    /// Cuts a RoCE data frame of a trimming priority to its header, which takes the
    /// switch's data path again at the header priority (and is dropped there, counted,
    /// if that queue is full too). False if the frame is not one to trim.
    fn trim(&mut self, in_port: PortId, out: PortId, prio: u8, id: PktId) -> bool {
        let pkt = *self.fx.pool.get(id);
        let t = &self.models.trimming;
        if pkt.kind != PktKind::Data || !t.trims(prio) {
            return false;
        }
        let h = &self.flows[pkt.flow.idx()];
        if h.tcp != NO_TCP || h.udp {
            return false;
        }
        let (frame, hprio) = (t.header_bytes, t.header_prio);
        self.count_drop(&pkt); // the data is lost to its flow's packet count
        self.models.trimming.count_trim(out, prio, pkt.flow);
        self.fx.pool.get_mut(id).trim(frame, hprio);
        self.switch_receive(in_port, id);
        true
    }

    /// A trimmed header reached its destination: NAK at once. With selective repeat the
    /// NAK names that packet (the sender resends it alone) and the receiver remembers
    /// it, so that the gap it leaves is not NAKed again; with go-back-N it names the
    /// first missing packet, as a gap does (a header overtakes the data queued before
    /// it, which may still arrive: `receive_ack` keeps `next_seq` above what is ACKed).
    pub(crate) fn receive_trimmed(&mut self, pkt: &Packet) {
        let w = self.host.ooo_window;
        let f = pkt.flow;
        let seq = pkt.seq();
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
