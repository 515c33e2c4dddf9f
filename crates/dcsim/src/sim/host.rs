//! Host NICs: queue pairs that cut messages into MTU packets and send them in
//! round-robin order, each paced by its own rate limiter; the receiver delivers in order,
//! ACKs (cumulatively, every `ack_every` packets and the last), and asks for go-back-N
//! retransmission with a NAK when a lossy fabric dropped something.

use super::{QpState, Simulation};
use crate::event::Event;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::packet::{Packet, PktKind, FLAG_CE};

impl Simulation {
    #[inline]
    fn host_port(&self, node: NodeId) -> PortId { PortId(self.nodes[node.idx()].ports.start) }

    pub(crate) fn on_flow_start(&mut self, f: FlowId) {
        self.flows[f.idx()].started = true;
        self.flows[f.idx()].msg_start = self.now_t();
        if self.flows[f.idx()].cc_dynamic {
            self.cc_hook(f, |cc, ctx| cc.on_start(ctx));
        }
        self.activate(f);
    }

    /// The source stops: nothing more is sent; what is in flight still arrives.
    pub(crate) fn on_flow_stop(&mut self, f: FlowId) {
        let now = self.now_t();
        let flow = &mut self.flows[f.idx()];
        flow.msg_limit = flow.next_seq;
        flow.messages = flow.msgs_done + 1;
        if flow.finish.is_none() {
            flow.finish = Some(now);
        }
        if let Some(since) = flow.limited_since.take() {
            flow.limited_ps += (now - since).0;
        }
        if flow.cc_dynamic {
            self.cc_hook(f, |cc, ctx| cc.on_finish(ctx));
        }
    }

    /// Makes a queue pair eligible to send if it is not already queued somewhere.
    pub(crate) fn activate(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if flow.state != QpState::Idle || !flow.started {
            return;
        }
        flow.state = QpState::Ready;
        let node = flow.src;
        self.nics[node.idx()].ready.push_back(f);
        let p = self.host_port(node);
        self.host_try_send(p);
    }

    pub(crate) fn on_qp_wake(&mut self, f: FlowId) {
        if self.flows[f.idx()].state == QpState::Waking {
            self.flows[f.idx()].state = QpState::Idle;
            self.activate(f);
        }
    }

    /// Returns the queue pairs parked on a paused priority to the ready ring.
    pub(crate) fn unpark(&mut self, node: NodeId, prio: u8) {
        let nic = &mut self.nics[node.idx()];
        for f in nic.parked[prio as usize].drain(..) {
            self.flows[f.idx()].state = QpState::Ready;
            nic.ready.push_back(f);
        }
    }

    pub(crate) fn host_try_send(&mut self, p: PortId) {
        if self.ports[p.idx()].busy {
            return;
        }
        if let Some(id) = self.ports[p.idx()].ctrl.pop(&self.pool) {
            let frame = self.pool.get(id).frame as u32;
            self.transmit(p, id, frame, None);
            return;
        }
        let now = self.now_t();
        let node = self.ports[p.idx()].node;
        while let Some(f) = self.nics[node.idx()].ready.pop_front() {
            let flow = &mut self.flows[f.idx()];
            if flow.next_seq >= flow.msg_limit {
                flow.state = QpState::Idle;
                continue;
            }
            if self.ports[p.idx()].paused & (1 << flow.prio) != 0 {
                flow.state = QpState::Parked;
                self.nics[node.idx()].parked[flow.prio as usize].push(f);
                continue;
            }
            if flow.next_tx > now {
                flow.state = QpState::Waking;
                let at = flow.next_tx;
                self.q.schedule(at, Event::QpWake(f));
                continue;
            }
            let seq = flow.next_seq;
            let payload = if (seq + 1).is_multiple_of(flow.npkts) { flow.last_payload } else { self.host.mtu };
            let frame = payload + self.host.header_bytes;
            flow.next_seq += 1;
            flow.pkts_sent += 1;
            let wire = frame + self.preamble;
            flow.last_tx = now;
            flow.last_wire = wire;
            if let Some(rate) = flow.pace {
                flow.next_tx = now + rate.tx_time(wire as u64);
                flow.pkts_limited += 1;
            }
            let cc_active = flow.cc_dynamic;
            let more = flow.next_seq < flow.msg_limit;
            let (dst, prio, lossy) = (flow.dst, flow.prio, flow.lossy);
            if more {
                self.nics[node.idx()].ready.push_back(f);
            } else {
                flow.state = QpState::Idle;
            }
            if lossy && !flow.udp && !flow.rto_armed {
                flow.rto_armed = true;
                flow.rto_mark = flow.snd_una;
                let gen = flow.rto_gen;
                self.q.schedule(now + self.host.rto, Event::Rto(f, gen));
            }
            let id = self.pool.alloc(Packet::data(f, dst, seq, payload, frame, prio, now));
            if self.l2.tags {
                self.pool.set_tag(id, self.ccs[f.idx()].regulator_cp());
            }
            self.transmit(p, id, frame, Some(prio));
            if cc_active {
                self.cc_hook(f, |cc, ctx| cc.on_send(ctx, wire));
            }
            return;
        }
    }

    pub(crate) fn host_receive(&mut self, _p: PortId, id: PktId) {
        let pkt = *self.pool.get(id);
        self.pool.free(id);
        match pkt.kind {
            PktKind::Data => {
                self.receive_data(&pkt);
                if pkt.flags & FLAG_CE != 0 {
                    self.on_marked(pkt.flow);
                }
            }
            PktKind::Ack | PktKind::Nak => self.receive_ack(&pkt),
            PktKind::Cnp => self.on_cnp_received(pkt.flow),
            PktKind::QcnCnm | PktKind::Bcn | PktKind::Bcn00 => self.on_feedback_frame(&pkt),
            PktKind::Probe | PktKind::ProbeReply => self.on_probe(&pkt),
            PktKind::Pfc => unreachable!("PFC frames are handled before"),
        }
    }

    fn receive_data(&mut self, pkt: &Packet) {
        let now = self.now_t();
        let f = pkt.flow;
        let lat = (now - pkt.sent()).0;
        self.latency.record(lat);
        let steady = now >= self.stats_cfg.steady_start;
        let gp = self.stats_cfg.goodput_interval;
        let flow = &mut self.flows[f.idx()];
        flow.pkts_rx += 1;
        if let Some(prev) = flow.last_arrival {
            flow.ipi_sum += (now - prev).0;
        }
        flow.last_arrival = Some(now);
        flow.lat_sum += lat as u128;
        flow.lat_max = flow.lat_max.max(lat);
        let in_order = pkt.seq() == flow.rcv_next || flow.udp;
        let reply = if in_order {
            flow.rcv_next = pkt.seq() + 1;
            flow.nak_for = u32::MAX;
            flow.delivered += pkt.payload as u64;
            flow.last_rx = now;
            if steady {
                flow.steady_bytes += pkt.payload as u64;
            }
            if let Some(iv) = gp {
                let bin = now.0 / iv.0;
                if bin != flow.bin {
                    let (old, bytes) = (flow.bin, flow.bin_bytes);
                    flow.bin = bin;
                    flow.bin_bytes = 0;
                    self.push_goodput(f, old * iv.0, bytes);
                }
                self.flows[f.idx()].bin_bytes += pkt.payload as u64;
            }
            let flow = &mut self.flows[f.idx()];
            if flow.udp {
                // No ACKs: a finite UDP flow is done when its last packet arrives.
                if flow.rcv_next == flow.msg_limit && flow.finish.is_none() {
                    let lat = (now - flow.msg_start).0;
                    flow.finish = Some(now);
                    flow.msgs_done = 1;
                    flow.msg_lat_sum = lat as u128;
                    self.msg_latency.record(lat);
                }
                return;
            }
            flow.since_ack += 1;
            if flow.since_ack >= self.host.ack_every || flow.rcv_next.is_multiple_of(flow.npkts) {
                flow.since_ack = 0;
                Some(PktKind::Ack)
            } else {
                None
            }
        } else if pkt.seq() > flow.rcv_next {
            // A gap: something was dropped. Ask once per gap for go-back-N.
            if flow.nak_for != flow.rcv_next {
                flow.nak_for = flow.rcv_next;
                Some(PktKind::Nak)
            } else {
                None
            }
        } else {
            Some(PktKind::Ack) // duplicate: repeat the cumulative ACK
        };
        if let Some(kind) = reply {
            let flow = &self.flows[f.idx()];
            let (src, dst, seq) = (flow.src, flow.dst, flow.rcv_next);
            let id = self.pool.alloc(Packet::ack(kind, f, src, seq, self.host.ack_bytes, pkt.prio, pkt.sent()));
            let p = self.host_port(dst);
            self.ports[p.idx()].ctrl.push(&mut self.pool, id);
            self.host_try_send(p);
        }
    }

    pub(crate) fn push_goodput(&mut self, f: FlowId, bin_start: u64, bytes: u64) {
        if bytes == 0 {
            return;
        }
        if (self.goodput.flow.len() as u64) < self.stats_cfg.max_rows {
            self.goodput.flow.push(f.0);
            self.goodput.bin_start.push(bin_start);
            self.goodput.bytes.push(bytes);
        } else {
            self.goodput_dropped += 1;
        }
    }

    fn receive_ack(&mut self, pkt: &Packet) {
        let now = self.now_t();
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        if pkt.seq() > flow.snd_una {
            flow.snd_una = pkt.seq();
        }
        if pkt.kind == PktKind::Nak && pkt.seq() >= flow.snd_una && flow.next_seq > pkt.seq() {
            flow.retransmits += (flow.next_seq - pkt.seq()) as u64;
            flow.next_seq = pkt.seq();
            self.activate(f);
        }
        let flow = &mut self.flows[f.idx()];
        if flow.snd_una >= flow.msg_limit && flow.finish.is_none() {
            // A message is complete: post the next one, or the flow is done.
            let lat = (now - flow.msg_start).0;
            flow.msgs_done += 1;
            flow.msg_lat_sum += lat as u128;
            self.msg_latency.record(lat);
            let flow = &mut self.flows[f.idx()];
            if flow.messages == 0 || flow.msgs_done < flow.messages {
                flow.msg_start = now;
                flow.msg_limit = flow.msg_limit.saturating_add(flow.npkts);
                self.activate(f);
                return;
            }
            flow.finish = Some(now);
            if let Some(since) = flow.limited_since.take() {
                flow.limited_ps += (now - since).0;
            }
            if flow.cc_dynamic {
                self.cc_hook(f, |cc, ctx| cc.on_finish(ctx));
            }
        }
    }

    /// Go-back-N timeout: no cumulative ACK progress for one RTO with data outstanding.
    pub(crate) fn on_rto(&mut self, f: FlowId, gen: u32) {
        let now = self.now_t();
        let rto = self.host.rto;
        let flow = &mut self.flows[f.idx()];
        if gen != flow.rto_gen || !flow.rto_armed {
            return;
        }
        flow.rto_armed = false;
        if flow.snd_una >= flow.next_seq {
            return; // nothing outstanding; the next send re-arms
        }
        if flow.snd_una == flow.rto_mark {
            flow.retransmits += (flow.next_seq - flow.snd_una) as u64;
            flow.next_seq = flow.snd_una;
        }
        flow.rto_armed = true;
        flow.rto_mark = flow.snd_una;
        flow.rto_gen = flow.rto_gen.wrapping_add(1);
        let g = flow.rto_gen;
        self.q.schedule(now + rto, Event::Rto(f, g));
        self.activate(f);
    }
}
