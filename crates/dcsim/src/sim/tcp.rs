//! The TCP transport in the host NIC: what it does with a TCP flow's segments, ACKs and
//! timers, using the state machines of `models/tcp` (scoreboard, RTO, receiver) as
//! `host.rs` does RoCE's. `host.rs` dispatches here by transport (`FlowHeader::tcp`); the
//! sending side writes only `senders` and `tcp_tx`, the receiving side only `receivers`
//! and `tcp_rx`; each counts in its own (`tx_stats`, `rx_stats`).

use super::Simulation;
use crate::event::Event;
use crate::ids::{FlowId, PktId};
use crate::models::{Ack, Loss, LossKind};
use crate::net::packet::{Packet, FLAG_CE, FLAG_CWR, FLAG_ECE};
use crate::units::SimTime;

impl Simulation {
    /// The segment flow `f` (TCP state `t`) may send now, if any: `(seq, resend)`.
    #[inline]
    pub(crate) fn tcp_pick(&mut self, f: FlowId, t: u32) -> Option<(u32, bool)> {
        let s = &self.senders[f.idx()];
        let cwnd = self.ccs[f.idx()].window();
        self.tp.tcp_tx[t as usize].next_segment(s.next_seq, s.msg_limit, cwnd, self.host.mtu as u64)
    }

    /// Segment `seq` (packet `id`) of flow `f` goes out: scoreboard, CWR, counters, and
    /// the retransmission timer (RFC 6298 5.1: started if not running).
    pub(crate) fn tcp_sent(&mut self, f: FlowId, t: u32, id: PktId, seq: u32, resend: bool) {
        let now = self.now_t();
        let tx = &mut self.tp.tcp_tx[t as usize];
        if resend || seq < tx.snd_max {
            self.tx_stats[f.idx()].retransmits += 1;
        } else if tx.cwr_pending {
            tx.cwr_pending = false;
            self.fx.pool.get_mut(id).flags |= FLAG_CWR;
        }
        tx.sent(seq, resend, self.senders[f.idx()].next_seq);
        if tx.deadline.is_none() {
            let at = now + tx.rto.rto();
            self.tcp_arm(f, t, at);
        }
    }

    /// Sets the retransmission timer of flow `f` to expire at `at`. One `Rto` event is
    /// pending per flow; a later deadline is found by it when it fires (and re-armed),
    /// an earlier one gets a new event (the old one goes stale by its generation).
    fn tcp_arm(&mut self, f: FlowId, t: u32, at: SimTime) {
        let tx = &mut self.tp.tcp_tx[t as usize];
        tx.deadline = Some(at);
        if tx.timer_pending && tx.timer_at <= at {
            return;
        }
        let s = &mut self.senders[f.idx()];
        s.rto_gen = s.rto_gen.wrapping_add(1);
        tx.timer_pending = true;
        tx.timer_at = at;
        self.fx.q.schedule(at, Event::Rto(f, s.rto_gen));
    }

    pub(crate) fn tcp_on_rto(&mut self, f: FlowId, gen: u32) {
        let now = self.now_t();
        let t = self.flows[f.idx()].tcp;
        if gen != self.senders[f.idx()].rto_gen {
            return;
        }
        let tx = &mut self.tp.tcp_tx[t as usize];
        tx.timer_pending = false;
        let Some(at) = tx.deadline else { return };
        if at > now {
            self.tcp_arm(f, t, at);
            return;
        }
        let s = &self.senders[f.idx()];
        if s.done || s.snd_una >= s.next_seq {
            self.tp.tcp_tx[t as usize].deadline = None;
            return;
        }
        // RFC 6298 5.4-5.6: go back to the first unacknowledged segment, back off, restart.
        // FlightSize without what the receiver reported holding (SACKed).
        let sacked = self.tp.tcp_tx[t as usize].board.sacked as u64 * self.host.mtu as u64;
        let flight = self.payload_bytes(f, s.snd_una, s.next_seq).saturating_sub(sacked);
        let una = s.snd_una;
        let tx = &mut self.tp.tcp_tx[t as usize];
        tx.on_timeout(una);
        let snd_max = tx.snd_max;
        let at = now + tx.rto.rto();
        self.senders[f.idx()].next_seq = una;
        self.tcp_arm(f, t, at);
        if self.senders[f.idx()].cc_acks {
            let loss = Loss { kind: LossKind::Timeout, flight, snd_nxt: snd_max };
            self.cc_hook(f, |cc, ctx| cc.on_loss(ctx, &loss));
        }
        self.activate(f);
    }

    /// A TCP ACK reached the sender.
    pub(crate) fn tcp_receive_ack(&mut self, pkt: &Packet) {
        let now = self.now_t();
        let f = pkt.flow;
        let t = self.flows[f.idx()].tcp;
        let s = &mut self.senders[f.idx()];
        let old_una = s.snd_una;
        if pkt.seq() > s.snd_una {
            s.snd_una = pkt.seq();
            // After a timeout the sender went back; what was sent before may still be
            // acknowledged beyond where it is resending.
            s.next_seq = s.next_seq.max(s.snd_una);
        }
        let (una, nxt) = (s.snd_una, s.next_seq);
        let tx = &mut self.tp.tcp_tx[t as usize];
        let out = tx.on_ack(una, pkt.sack(), nxt);
        let rtt = now - pkt.sent();
        if una > old_una {
            tx.rtt_sample(rtt);
            // RFC 6298 5.2 / 5.3: stop the timer when all is acknowledged, else restart it.
            if una >= nxt && una >= tx.snd_max {
                tx.deadline = None;
            } else {
                let at = now + tx.rto.rto();
                self.tcp_arm(f, t, at);
            }
        }
        let s = &self.senders[f.idx()];
        if s.cc_acks && !s.done {
            let ece = pkt.flags & FLAG_ECE != 0;
            let recovery = self.tp.tcp_tx[t as usize].recovery;
            let ack = Ack {
                newly_acked: self.payload_bytes(f, old_una, una),
                acked_to: una,
                snd_nxt: nxt,
                rtt,
                ece,
                nak: false,
                int: &[],
                recovery,
            };
            let before = self.ccs[f.idx()].window();
            self.cc_hook(f, |cc, ctx| cc.on_ack(ctx, &ack));
            if ece && self.ccs[f.idx()].window() < before {
                self.tp.tcp_tx[t as usize].cwr_pending = true; // RFC 3168 6.1.2
            }
            if out.enter_recovery {
                let loss = Loss { kind: LossKind::FastRetransmit, flight: self.payload_bytes(f, una, nxt), snd_nxt: nxt };
                self.cc_hook(f, |cc, ctx| cc.on_loss(ctx, &loss));
            }
        }
        self.activate(f);
        self.message_progress(f);
    }

    /// A TCP segment reached its destination NIC.
    pub(crate) fn tcp_receive_data(&mut self, pkt: &Packet) {
        let now = self.now_t();
        let f = pkt.flow;
        self.count_arrival(pkt);
        let ce = pkt.flags & FLAG_CE != 0;
        if ce {
            self.rx_stats[f.idx()].marked_rx += 1;
        }
        let hdr = &self.flows[f.idx()];
        let (t, npkts, last_payload) = (hdr.tcp as usize, hdr.npkts, hdr.last_payload);
        let per_ack = self.host.tcp.delayed_ack;
        let r = &mut self.receivers[f.idx()];
        let reply = self.tp.tcp_rx[t].on_segment(&mut r.rcv_next, pkt.seq(), pkt.sent(), ce, pkt.flags & FLAG_CWR != 0, per_ack, |n| {
            npkts != u32::MAX && n.is_multiple_of(npkts)
        });
        let mtu = self.host.mtu as u64;
        for q in reply.delivered.clone() {
            let payload = if (q + 1).is_multiple_of(npkts) { last_payload as u64 } else { mtu };
            self.count_delivery(f, payload);
        }
        if let Some((ece, echo)) = reply.flush {
            self.tcp_send_ack(f, reply.delivered.start, None, echo, ece);
        }
        let rx = &mut self.tp.tcp_rx[t];
        if reply.ack_now {
            rx.delack_armed = false;
            rx.delack_gen = rx.delack_gen.wrapping_add(1);
            let (cum, echo) = (self.receivers[f.idx()].rcv_next, rx.echo);
            self.tcp_send_ack(f, cum, reply.sack, echo, reply.ece);
        } else if !rx.delack_armed {
            rx.delack_armed = true;
            rx.delack_gen = rx.delack_gen.wrapping_add(1);
            let at = now + self.host.tcp.delayed_ack_timeout;
            self.fx.q.schedule(at, Event::DelAck(f, rx.delack_gen));
        }
    }

    /// The delayed-ACK timer of flow `f` expired: send the held ACK.
    pub(crate) fn on_delayed_ack(&mut self, f: FlowId, gen: u32) {
        let t = self.flows[f.idx()].tcp as usize;
        let rx = &mut self.tp.tcp_rx[t];
        if gen != rx.delack_gen || !rx.delack_armed {
            return;
        }
        rx.delack_armed = false;
        if rx.unacked == 0 {
            return;
        }
        rx.unacked = 0;
        let (echo, ece) = (rx.echo, rx.ece);
        let cum = self.receivers[f.idx()].rcv_next;
        self.tcp_send_ack(f, cum, None, echo, ece);
    }

    fn tcp_send_ack(&mut self, f: FlowId, cum: u32, sack: Option<u32>, echo: SimTime, ece: bool) {
        let hdr = &self.flows[f.idx()];
        let (src, dst, prio) = (hdr.src, hdr.dst, hdr.prio);
        let id = self.fx.pool.alloc(Packet::tcp_ack(f, src, cum, sack, self.host.ack_bytes, prio, echo, ece));
        let p = crate::ids::PortId(self.fx.nodes[dst.idx()].ports.start);
        self.fx.ports[p.idx()].ctrl.push(&mut self.fx.pool, id);
        self.host_try_send(p);
    }
}
