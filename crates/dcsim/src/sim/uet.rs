//! The Ultra Ethernet transport's NIC side (`models/uet/` holds its state): a sender's
//! selective-ACK scoreboard and its credits, a receiver's selective ACKs, and the
//! receiving NIC's credit pacer (RCCC). The rest of a UET flow is a RoCE queue pair with
//! selective repeat (`sim/host.rs`), its trimmed headers NAKed at once
//! (`sim/header_nak.rs`). docs/models/uet.md.

use super::{Simulation, NO_UET};
use crate::event::Event;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::models::uet::{grant, QUANTUM};
use crate::net::packet::Packet;

impl Simulation {
    /// The packets of flow `f` in `from..to` that the receiver had SACKed: cleared from
    /// the scoreboard (the cumulative ACK passed them); returns their payload bytes,
    /// which were counted as acknowledged when SACKed.
    pub(crate) fn uet_cum_advanced(&mut self, f: FlowId, from: u32, to: u32) -> u64 {
        let k = self.flows[f.idx()].uet as usize;
        let mut bytes = 0;
        if self.tp.uet_tx[k].sack.count == 0 {
            return 0;
        }
        for seq in from..to {
            if self.tp.uet_tx[k].sack.clear(seq) {
                bytes += self.payload_bytes(f, seq, seq + 1);
            }
            if self.tp.uet_tx[k].sack.count == 0 {
                break;
            }
        }
        bytes
    }

    /// A SACK of packet `seq` of flow `f` (above the cumulative ACK `snd_una`, below
    /// `next_seq`): its payload bytes if newly acknowledged.
    pub(crate) fn uet_sacked(&mut self, f: FlowId, seq: u32) -> u64 {
        let k = self.flows[f.idx()].uet as usize;
        let s = &self.senders[f.idx()];
        let t = &mut self.tp.uet_tx[k];
        if seq < s.snd_una || seq >= s.next_seq || seq - s.snd_una >= t.sack.window() || !t.sack.mark(seq) {
            return 0;
        }
        t.sacks += 1;
        t.highest_sack = t.highest_sack.max(seq);
        self.payload_bytes(f, seq, seq + 1)
    }

    /// `[host.uet] loss_threshold`: after an ACK, the first unacknowledged packet of flow
    /// `f` is resent if enough packets above it were SACKed (unless a resend is pending).
    pub(crate) fn uet_sack_loss(&mut self, f: FlowId, threshold: u32) {
        let k = self.flows[f.idx()].uet as usize;
        let s = &mut self.senders[f.idx()];
        if s.resend.is_some() || s.snd_una >= s.next_seq || !self.tp.uet_tx[k].hole_lost(s.snd_una, threshold) {
            return;
        }
        s.resend = Some(s.snd_una);
        self.tx_stats[f.idx()].retransmits += 1;
        self.activate(f);
    }

    /// A NAK of packet `seq` of flow `f` that the receiver has SACKed since: stale (a
    /// header trimmed from an earlier copy of it).
    pub(crate) fn uet_nak_stale(&self, f: FlowId, seq: u32) -> bool {
        let t = &self.tp.uet_tx[self.flows[f.idx()].uet as usize];
        let una = self.senders[f.idx()].snd_una;
        // The scoreboard is a ring over the window above `snd_una`.
        seq >= una && seq - una < t.sack.window() && t.sack.has(seq)
    }

    /// Packets of flow `f` in flight that the receiver reported holding.
    #[inline]
    pub(crate) fn uet_sacked_count(&self, f: FlowId) -> u32 {
        match self.flows[f.idx()].uet {
            NO_UET => 0,
            k => self.tp.uet_tx[k as usize].sack.count,
        }
    }

    /// RCCC: data frame `id` of flow `f` (`frame` bytes) leaves: it spends its credit
    /// and carries the sender's pull target (what it has left to send beyond its
    /// credit, at most its window).
    pub(crate) fn uet_spend(&mut self, f: FlowId, id: PktId, frame: u32) {
        let k = self.flows[f.idx()].uet as usize;
        let s = &self.senders[f.idx()];
        let (mtu, hdr) = (self.host.mtu as u64, self.host.header_bytes as u64);
        let left = s.msg_limit.saturating_sub(s.next_seq);
        let resends = s.resend.is_some() as u64 + self.models.resends_pending(f) as u64;
        let backlog = self.payload_bytes(f, s.next_seq, s.next_seq + left) + (left as u64 + resends) * hdr + resends * mtu;
        // With a window of its own (NSCC) a sender asks for no more than it may send.
        let cap = self.ccs[f.idx()].window().map_or(u64::MAX, |w| w + mtu + hdr);
        let t = &mut self.tp.uet_tx[k];
        if t.credit <= 0 {
            t.requests += 1; // sent on `rts`
        } else if t.speculating {
            t.unsolicited_bytes += frame as u64;
        }
        t.credit -= frame as i64;
        t.rts = false;
        let target = t.pull_target(backlog, cap.min(t.max_credit as u64), mtu + hdr);
        self.fx.pool.set_tag(id, Some(target));
    }

    /// RCCC: the receiver (node `dst`) learns flow `f`'s pull target from its data frame
    /// or trimmed header; a flow that wants more than it was granted joins the NIC's
    /// credit queue.
    pub(crate) fn uet_pull_target(&mut self, f: FlowId, dst: NodeId, target: Option<u32>) {
        let k = self.flows[f.idx()].uet;
        let Some(target) = target else { return };
        let r = &mut self.tp.uet_rx[k as usize];
        if target <= r.target {
            return;
        }
        r.target = target;
        if r.queued || r.target <= r.granted {
            return;
        }
        r.queued = true;
        let now = self.now_t();
        let p = &mut self.tp.pacers[dst.idx()];
        p.queue.push_back(k);
        if !p.armed {
            p.armed = true;
            let at = p.free_at.max(now);
            self.fx.q.schedule(at, Event::Credit(dst.0));
        }
    }

    /// RCCC: host `node`'s credit pacer grants the next flow in its queue its share.
    pub(crate) fn on_credit_tick(&mut self, node: u32) {
        let now = self.now_t();
        let per_grant = ((self.tp.uet.credit_packets as u64 * self.host.mtu as u64) / QUANTUM).max(1) as u32;
        let p = &mut self.tp.pacers[node as usize];
        p.armed = false;
        let Some((f, pull)) = grant(p, &mut self.tp.uet_rx, per_grant, now) else { return };
        if !p.queue.is_empty() {
            p.armed = true;
            let at = p.free_at;
            self.fx.q.schedule(at, Event::Credit(node));
        }
        let h = &self.flows[f.idx()];
        let id = self.fx.pool.alloc(Packet::credit(f, h.src, pull, self.host.ack_bytes, h.prio));
        let port = PortId(self.fx.nodes[node as usize].ports.start);
        self.fx.ports[port.idx()].ctrl.push(&mut self.fx.pool, id);
        self.host_try_send(port);
    }

    /// RCCC: a credit grant reached the sender.
    pub(crate) fn uet_receive_credit(&mut self, pkt: &Packet) {
        let f = pkt.flow;
        let k = self.flows[f.idx()].uet as usize;
        let t = &mut self.tp.uet_tx[k];
        t.stop_speculating();
        if t.granted(pkt.credit_pull()) {
            self.activate(f);
        }
    }

    /// RCCC: an ACK or NAK reached the sender: its unsolicited window ends.
    #[inline]
    pub(crate) fn uet_answered(&mut self, f: FlowId) {
        if self.tp.uet.rccc {
            let k = self.flows[f.idx()].uet as usize;
            self.tp.uet_tx[k].stop_speculating();
        }
    }

    /// RCCC: after a retransmission timeout one packet may go without credit.
    pub(crate) fn uet_timed_out(&mut self, f: FlowId) {
        if self.tp.uet.rccc {
            let k = self.flows[f.idx()].uet as usize;
            self.tp.uet_tx[k].rts = true;
        }
    }
}
