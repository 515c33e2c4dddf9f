//! Host NICs: queue pairs that cut messages into MTU packets and send them in
//! round-robin order, each paced by its own rate limiter; the receiver delivers in order,
//! ACKs (cumulatively, every `ack_every` packets and the last; every packet of a flow
//! whose frames carry INT, echoing the stack), and asks for go-back-N
//! retransmission with a NAK when a lossy fabric dropped something. The sending side
//! writes only `senders` and counts in `tx_stats`, the receiving side only `receivers`
//! and `rx_stats`.

use super::{QpState, Receiver, RxStats, Simulation, NO_COLL, NO_IO, NO_SW, NO_TCP, NO_UET};
use crate::event::Event;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::models::{nic_timing, Ack};
use crate::net::packet::{IntStack, Packet, PktKind, FLAG_CE, FLAG_ECE, FLAG_INT, FLAG_TRIM};
use crate::net::stats::GoodputRow;
use crate::units::SimTime;

impl Simulation {
    #[inline]
    fn host_port(&self, node: NodeId) -> PortId {
        PortId(self.fx.nodes[node.idx()].ports.start)
    }

    pub(crate) fn on_flow_start(&mut self, f: FlowId) {
        self.create_sender(f);
        let s = &mut self.senders[f.idx()];
        s.started = true;
        s.msg_start = self.fx.q.now();
        s.next_tx = nic_timing::first_send(s.msg_start, s.next_tx, self.host.timing.doorbell);
        let sw = s.sw != NO_SW;
        if s.cc_dynamic {
            self.cc_hook(f, |cc, ctx| cc.on_start(ctx));
        }
        if sw {
            self.sw_post(f); // posts the first burst and activates the queue pair
        } else {
            self.activate(f);
        }
    }

    /// The source stops: nothing more is sent; what is in flight still arrives.
    pub(crate) fn on_flow_stop(&mut self, f: FlowId) {
        let now = self.now_t();
        let s = &mut self.senders[f.idx()];
        s.msg_limit = s.next_seq;
        s.messages = s.msgs_done + 1;
        s.done = true;
        let cc_dynamic = s.cc_dynamic;
        // (A UDP flow whose last packet arrived first is complete already.)
        let arrived = self.rx_stats.get(f.idx()).is_some_and(|r| r.finish.is_some());
        let st = &mut self.tx_stats[f.idx()];
        if st.finish.is_none() && !arrived {
            st.finish.set(now);
        }
        if let Some(since) = st.limited_since.take() {
            st.limited_ps += (now - since).0;
        }
        if cc_dynamic {
            self.cc_hook(f, |cc, ctx| cc.on_finish(ctx));
        }
    }

    /// Makes a queue pair eligible to send if it is not already queued somewhere.
    pub(crate) fn activate(&mut self, f: FlowId) {
        let s = &mut self.senders[f.idx()];
        if s.state != QpState::Idle || !s.started {
            return;
        }
        s.state = QpState::Ready;
        let node = self.flows[f.idx()].src;
        self.nics[node.idx()].ready.push_back(f);
        let p = self.host_port(node);
        self.host_try_send(p);
    }

    pub(crate) fn on_qp_wake(&mut self, f: FlowId) {
        // (A stale wake of a retired sender: it was idle.)
        if self.senders.get(f.idx()).is_some_and(|s| s.state == QpState::Waking) {
            self.senders[f.idx()].state = QpState::Idle;
            self.activate(f);
        }
    }

    /// Returns the queue pairs parked on a paused priority to the ready ring.
    pub(crate) fn unpark(&mut self, node: NodeId, prio: u8) {
        let nic = &mut self.nics[node.idx()];
        for f in nic.parked[prio as usize].drain(..) {
            self.senders[f.idx()].state = QpState::Ready;
            nic.ready.push_back(f);
        }
    }

    pub(crate) fn host_try_send(&mut self, p: PortId) {
        if self.tx_busy(p) {
            return;
        }
        let node = self.fx.ports[p.idx()].node;
        // Nothing more to send behind this frame (`tx_busy`).
        let quiet = |s: &Self| s.fx.ports[p.idx()].ctrl.is_empty() && s.nics[node.idx()].ready.is_empty();
        if let Some(id) = self.fx.ports[p.idx()].ctrl.pop(&self.fx.pool) {
            let frame = self.fx.pool.get(id).frame as u32;
            self.transmit(p, id, frame, None, quiet(self));
            return;
        }
        let now = self.now_t();
        while let Some(f) = self.nics[node.idx()].ready.pop_front() {
            let tcp = self.flows[f.idx()].tcp;
            // TCP picks a hole to resend or new data, within its window (models/tcp/).
            // RoCE with selective repeat: the packet a NAK named goes first.
            let pick = if tcp == NO_TCP { self.senders[f.idx()].resend.map(|r| (r, true)) } else { self.tcp_pick(f, tcp) };
            let hdr = &self.flows[f.idx()];
            let s = &mut self.senders[f.idx()];
            if tcp != NO_TCP && pick.is_none() {
                s.state = QpState::Idle;
                if s.next_seq >= s.msg_limit {
                    self.ccs[f.idx()].on_app_limited();
                }
                continue;
            }
            if tcp == NO_TCP && pick.is_none() && s.next_seq >= s.msg_limit {
                s.state = QpState::Idle;
                continue;
            }
            if tcp == NO_TCP && (pick.is_none() || hdr.uet != NO_UET) && s.windowed {
                // A window-based algorithm: wait for ACKs when the window is full (one
                // packet may always be in flight). UET: its resends too, and neither the
                // packets the receiver SACKed nor those it NAKed are in flight.
                let out = if hdr.uet == NO_UET {
                    0
                } else {
                    self.tp.uet_tx[hdr.uet as usize].sack.count + s.resend.is_some() as u32 + self.models.resends_pending(f)
                };
                let in_flight = (s.next_seq - s.snd_una).saturating_sub(out) as u64 * self.host.mtu as u64;
                if in_flight > 0 && in_flight + self.host.mtu as u64 > self.ccs[f.idx()].window().unwrap_or(u64::MAX) {
                    s.state = QpState::Idle;
                    continue;
                }
            }
            if hdr.uet != NO_UET && self.tp.uet.rccc && !crate::models::uet::may_send(&self.tp.uet_tx[hdr.uet as usize]) {
                s.state = QpState::Idle; // RCCC: a credit grant activates it
                continue;
            }
            if self.fx.ports[p.idx()].paused & (1 << hdr.prio) != 0 {
                s.state = QpState::Parked;
                self.nics[node.idx()].parked[hdr.prio as usize].push(f);
                continue;
            }
            if s.next_tx > now {
                s.state = QpState::Waking;
                let at = s.next_tx;
                self.fx.q.schedule(at, Event::QpWake(f));
                continue;
            }
            let (seq, resend) = pick.unwrap_or((s.next_seq, false));
            let payload = if (seq + 1).is_multiple_of(hdr.npkts) { hdr.last_payload } else { self.host.mtu };
            let frame = payload + self.host.header_bytes;
            if !resend {
                s.next_seq = seq + 1;
            } else if tcp == NO_TCP {
                // The next packet a NAK named while this one was pending.
                s.resend = if self.setup.sender_hooks.resends { self.models.next_resend(f, s.snd_una) } else { None };
            }
            let wire = frame + self.fx.preamble;
            s.last_tx = now;
            s.last_wire = wire;
            let st = &mut self.tx_stats[f.idx()];
            st.pkts_sent += 1;
            if let Some(rate) = s.pace() {
                s.next_tx = now + rate.tx_time(wire as u64);
                st.pkts_limited += 1;
            }
            let cc_active = s.cc_dynamic && s.cc_sends;
            // A TCP flow stays in the ring; its next turn asks its window again.
            let more = s.next_seq < s.msg_limit || tcp != NO_TCP || s.resend.is_some();
            let (dst, prio, lossy, udp) = (hdr.dst, hdr.prio, hdr.lossy, hdr.udp);
            if more {
                self.nics[node.idx()].ready.push_back(f);
            } else {
                s.state = QpState::Idle;
                if udp {
                    s.done = true; // no ACKs to wait for
                }
            }
            if (lossy || self.setup.rto_lossless) && !udp && tcp == NO_TCP && !s.rto_armed {
                s.rto_armed = true;
                s.rto_mark = s.snd_una;
                let gen = s.rto_gen;
                self.fx.q.schedule(now + self.host.rto, Event::Rto(f, gen));
            }
            let id = self.fx.pool.alloc(Packet::data(f, dst, seq, payload, frame, prio, now));
            if self.fx.pool.int_on() && self.flows[f.idx()].int {
                self.fx.pool.get_mut(id).flags |= FLAG_INT;
                self.fx.pool.int_mut(id).clear();
            }
            if self.setup.sender_hooks.data_sent {
                let ccs = &self.ccs;
                self.models.data_sent(&mut self.fx, f, id, &|| ccs[f.idx()].regulator_cp());
            }
            if tcp != NO_TCP {
                self.tcp_sent(f, tcp, id, seq, resend);
            }
            if self.tp.uet.rccc && self.flows[f.idx()].uet != NO_UET {
                self.uet_spend(f, id, frame);
            }
            self.transmit(p, id, frame, Some(prio), quiet(self));
            if cc_active {
                self.cc_hook(f, |cc, ctx| cc.on_send(ctx, wire));
            }
            return;
        }
    }

    pub(crate) fn host_receive(&mut self, _p: PortId, id: PktId) {
        let pkt = *self.fx.pool.get(id);
        // The INT stack (HPCC) of a data frame or of the ACK that echoes it.
        let int = (pkt.flags & FLAG_INT != 0).then(|| self.fx.pool.int(id));
        // RCCC: a UET data frame's (or trimmed header's) pull target.
        let rccc = self.tp.uet.rccc && matches!(pkt.kind, PktKind::Data | PktKind::Trimmed) && self.flows[pkt.flow.idx()].uet != NO_UET;
        if rccc {
            let target = self.fx.pool.tag(id);
            self.uet_pull_target(pkt.flow, self.flows[pkt.flow.idx()].dst, target);
        }
        self.fx.pool.free(id);
        match pkt.kind {
            PktKind::Data if self.flows[pkt.flow.idx()].tcp != NO_TCP => self.tcp_receive_data(&pkt),
            PktKind::Data => {
                self.receive_data(&pkt, int.as_ref());
                if pkt.flags & FLAG_CE != 0 {
                    self.on_marked(pkt.flow);
                }
            }
            PktKind::Ack | PktKind::Nak => self.receive_ack(&pkt, int.as_ref()),
            PktKind::Trimmed => self.receive_trimmed(&pkt),
            PktKind::Credit => self.uet_receive_credit(&pkt),
            PktKind::TcpAck => self.tcp_receive_ack(&pkt),
            PktKind::Cnp => self.on_cnp_received(pkt.flow),
            PktKind::QcnCnm | PktKind::Bcn | PktKind::Bcn00 | PktKind::SwitchCnp => self.on_feedback_frame(&pkt),
            PktKind::Probe | PktKind::ProbeReply => self.on_probe(&pkt),
            PktKind::Pfc | PktKind::IbFcp => unreachable!("link flow-control frames are handled before"),
            PktKind::RemotePfc => unreachable!("remote-PFC messages are consumed by the source's ToR"),
        }
    }

    /// Counts a data frame's arrival at its destination NIC (in order or not).
    pub(crate) fn count_arrival(&mut self, pkt: &Packet) {
        let now = self.now_t();
        let lat = (now - pkt.sent()).0;
        self.rec.latency.record(lat);
        // (The destination's row exists: made with the receiver, `receive_data`.)
        let st = &mut self.rx_stats[pkt.flow.idx()];
        if st.pkts_rx == 0 {
            st.first_arrival = now;
        }
        st.pkts_rx += 1;
        st.last_arrival = now;
        st.lat_sum += lat as u128;
        st.lat_max = st.lat_max.max(lat);
    }

    /// Counts `payload` bytes of flow `f` delivered in order to the application.
    pub(crate) fn count_delivery(&mut self, f: FlowId, payload: u64) {
        let now = self.now_t();
        let st = &mut self.rx_stats[f.idx()];
        st.delivered += payload;
        st.last_rx = now;
        if now >= self.stats_cfg.steady_start {
            st.steady_bytes += payload;
        }
        if let Some(iv) = self.stats_cfg.goodput_interval {
            let bin = now.0 / iv.0;
            if bin != st.bin {
                let (old, bytes) = (st.bin, st.bin_bytes);
                st.bin = bin;
                st.bin_bytes = 0;
                self.push_goodput(f, old * iv.0, bytes);
            }
            self.rx_stats[f.idx()].bin_bytes += payload;
        }
        if let Some(iv) = self.stats_cfg.class_interval {
            let prio = self.flows[f.idx()].prio as usize;
            match self.rec.class_bins.get_mut((now.0 / iv.0) as usize) {
                Some(b) => b[prio] += payload,
                None => self.rec.class_dropped += 1,
            }
        }
    }

    fn receive_data(&mut self, pkt: &Packet, int: Option<&IntStack>) {
        let w = self.host.ooo_window;
        let now = self.now_t();
        let f = pkt.flow;
        if self.receivers.retired(f.idx()) {
            return self.late_copy(pkt, int);
        }
        // The receiver and the destination's statistics row are made at the flow's first
        // arrival here (flows made on demand are RoCE).
        let sr = self.host.selective_repeat;
        let stats = &mut self.rx_stats;
        let make = || {
            if !stats.has(f.idx()) {
                stats.insert(f.idx(), RxStats::default());
            }
            Receiver::new(if sr { w } else { 0 })
        };
        let rs = self.receivers.slot_or_insert_with(f.idx(), make);
        self.count_arrival(pkt);
        let hdr = &self.flows[f.idx()];
        // UET NAKs no gap (a sprayed flow's gaps are reordering): it SACKs what it holds.
        let (uet, tolerance) = if hdr.uet == NO_UET { (false, self.host.reorder_tolerance) } else { (true, u32::MAX) };
        let mut sack = 0u16;
        let r = self.receivers.at_mut(rs);
        let in_order = pkt.seq() == r.rcv_next || hdr.udp;
        let reply = if in_order {
            r.rcv_next = pkt.seq() + 1;
            r.nak_for = u32::MAX;
            self.count_delivery(f, pkt.payload as u64);
            let (jumped, hole) = if self.receivers.at(rs).ooo.is_empty() { (false, false) } else { self.deliver_held(f) };
            let (hdr, r) = (&self.flows[f.idx()], self.receivers.at_mut(rs));
            if hdr.udp {
                // No ACKs: a finite UDP flow is complete when its last packet arrives.
                // (Unless its source stopped first.)
                let stopped = self.tx_stats.get(f.idx()).is_some_and(|t| t.finish.is_some());
                let st = &mut self.rx_stats[f.idx()];
                if r.rcv_next == hdr.npkts && st.finish.is_none() && !stopped {
                    let lat = (now - hdr.start).0;
                    st.finish.set(now);
                    st.msgs_done = 1;
                    self.rec.msg_lats.push(f, lat);
                    self.rec.msg_latency.record(lat);
                }
                return;
            }
            r.since_ack += 1;
            if r.since_ack == 1 {
                r.ack_oldest = now;
            }
            let t = &self.host.timing;
            if hole {
                // Selective repeat: the next hole is a loss too (a flow's packets stay
                // in order on its path); name it at once.
                r.since_ack = 0;
                Some(PktKind::Nak)
            } else if jumped
                || nic_timing::ack_due(r.since_ack, self.host.ack_every, r.ack_oldest, now, t.ack_interval)
                || r.rcv_next.is_multiple_of(hdr.npkts)
                || hdr.int
            {
                r.since_ack = 0;
                Some(PktKind::Ack)
            } else {
                None
            }
        } else if pkt.seq() > r.rcv_next {
            // A gap: something was dropped or is late. Ask once per gap for go-back-N
            // (or, with selective repeat, for the missing packet once a packet more than
            // `host.reorder_tolerance` above it arrived; this one is kept).
            r.ooo_rx = r.ooo_rx.saturating_add(1);
            let d = pkt.seq() - r.rcv_next;
            if !r.ooo.is_empty() && d < w {
                if r.held(pkt.seq(), w) {
                    r.dup_rx = r.dup_rx.saturating_add(1);
                } else {
                    r.set_held(pkt.seq(), true, w);
                    r.highest = r.highest.max(pkt.seq());
                    r.held_now += 1;
                    r.held_peak = r.held_peak.max(r.held_now);
                }
            }
            if uet {
                // The offset fits: the out-of-order window is at most 65536 packets.
                sack = if d < w.min(1 << 16) { d as u16 } else { 0 };
                (sack != 0).then_some(PktKind::Ack)
            } else if r.nak_for != r.rcv_next && !r.trim_nacked(r.rcv_next, w) && d > tolerance {
                r.nak_for = r.rcv_next;
                Some(PktKind::Nak)
            } else {
                None
            }
        } else {
            r.dup_rx = r.dup_rx.saturating_add(1);
            Some(PktKind::Ack) // duplicate: repeat the cumulative ACK
        };
        // Storage: a leg's last packet arrived in order (one test per packet).
        let rcv_next = self.receivers.at(rs).rcv_next;
        let io_done = self.flows[f.idx()].io != NO_IO && in_order && rcv_next == self.flows[f.idx()].npkts;
        if let Some(kind) = reply {
            self.send_reply(pkt, int, kind, rcv_next, sack);
        }
        if io_done {
            self.io_delivered(f);
        }
        if in_order && self.flows[f.idx()].coll != NO_COLL {
            self.coll_received(f);
        }
        if rcv_next == self.flows[f.idx()].npkts {
            self.retire_receiver(f);
        }
    }

    /// A data frame of a flow whose retired receiver had every packet
    /// (`retire_receiver`): a late copy (a go-back-N resend), a duplicate, answered with
    /// the cumulative ACK of them all.
    #[cold]
    #[inline(never)]
    fn late_copy(&mut self, pkt: &Packet, int: Option<&IntStack>) {
        self.count_arrival(pkt);
        self.send_reply(pkt, int, PktKind::Ack, self.flows[pkt.flow.idx()].npkts, 0);
    }

    /// The receiver's answer to data frame `pkt`: an ACK or NAK of `kind` carrying the
    /// cumulative `seq` (and a SACK offset, 0: none), echoing its ECN mark and its INT
    /// stack.
    #[inline(always)]
    fn send_reply(&mut self, pkt: &Packet, int: Option<&IntStack>, kind: PktKind, seq: u32, sack: u16) {
        let f = pkt.flow;
        let hdr = &self.flows[f.idx()];
        let (src, dst) = (hdr.src, hdr.dst);
        let ece = pkt.flags & FLAG_CE != 0;
        let mut ack = Packet::ack(kind, f, src, seq, self.host.ack_bytes, pkt.prio, pkt.sent(), ece, !self.host.acks_in_data);
        if sack != 0 {
            ack = ack.with_sack(sack);
        }
        let id = self.fx.pool.alloc(ack);
        if let Some(int) = int {
            // HPCC: the ACK echoes the data frame's INT stack to the sender.
            self.fx.pool.get_mut(id).flags |= FLAG_INT;
            *self.fx.pool.int_mut(id) = *int;
        }
        let p = self.host_port(dst);
        self.fx.ports[p.idx()].ctrl.push(&mut self.fx.pool, id);
        self.host_try_send(p);
    }

    /// Selective repeat: after `rcv_next` advanced, delivers the held packets that now
    /// follow in order. Returns (any delivered, a hole remains below a held packet and
    /// has not been NAKed yet).
    fn deliver_held(&mut self, f: FlowId) -> (bool, bool) {
        let w = self.host.ooo_window;
        let mut jumped = false;
        let r = &mut self.receivers[f.idx()];
        r.set_trim_nacked(r.rcv_next.wrapping_sub(1), false, w); // trimming: it arrived
        loop {
            let (hdr, r) = (&self.flows[f.idx()], &mut self.receivers[f.idx()]);
            let seq = r.rcv_next;
            if seq > r.highest || !r.held(seq, w) {
                break;
            }
            r.set_held(seq, false, w);
            r.set_trim_nacked(seq, false, w);
            r.held_now -= 1;
            r.rcv_next = seq + 1;
            let payload = if (seq + 1).is_multiple_of(hdr.npkts) { hdr.last_payload } else { self.host.mtu };
            self.count_delivery(f, payload as u64);
            jumped = true;
        }
        let r = &mut self.receivers[f.idx()];
        // A packet whose trimmed header was NAKed is being resent: not a hole to NAK.
        let tolerance = if self.flows[f.idx()].uet == NO_UET { self.host.reorder_tolerance } else { u32::MAX };
        let hole =
            r.highest >= r.rcv_next && r.nak_for != r.rcv_next && !r.trim_nacked(r.rcv_next, w) && r.highest - r.rcv_next > tolerance;
        if hole {
            r.nak_for = r.rcv_next;
        }
        (jumped, hole)
    }

    pub(crate) fn push_goodput(&mut self, f: FlowId, bin_start: u64, bytes: u64) {
        if bytes == 0 {
            return;
        }
        self.rec.goodput.push(GoodputRow { bin_start, flow: f.0, bytes });
    }

    fn receive_ack(&mut self, pkt: &Packet, int: Option<&IntStack>) {
        let now = self.now_t();
        let f = pkt.flow;
        if !self.senders.has(f.idx()) {
            // A retired sender (`retire_sender`: RoCE, not windowed, done and idle): an
            // ACK moves nothing, NAKs nothing it still has to send, and runs no hook.
            return;
        }
        let uet = self.flows[f.idx()].uet != NO_UET;
        let s = &mut self.senders[f.idx()];
        let old_una = s.snd_una;
        if pkt.seq() > s.snd_una {
            s.snd_una = pkt.seq();
            // Go-back-N from a trimmed packet: packets above it sent before may arrive.
            s.next_seq = s.next_seq.max(s.snd_una);
            // (`recover` is on the record's second cache line: tested for selective repeat only.)
            if self.host.selective_repeat && s.snd_una < s.recover {
                // A partial ACK after a timeout (RFC 6582): the receiver holds nothing
                // from the new `snd_una` on, which was sent a timeout ago: resend it now,
                // rather than one more timeout for each packet of a lost tail.
                let una = s.snd_una;
                let named = pkt.kind == PktKind::Nak && pkt.nak_seq() == una;
                if !named && s.resend != Some(una) {
                    self.tx_stats[f.idx()].retransmits += 1;
                    match s.resend {
                        Some(_) if self.setup.sender_hooks.resends && self.models.queue_resend(f, una) => {}
                        _ => s.resend = Some(una),
                    }
                    self.activate(f);
                }
            }
        }
        // UET: bytes SACKed before were acknowledged then; a SACK acknowledges its packet.
        let (mut unsacked, mut sacked) = (0, 0);
        if uet {
            let new_una = self.senders[f.idx()].snd_una;
            unsacked = self.uet_cum_advanced(f, old_una, new_una);
            if pkt.kind == PktKind::Ack {
                if let Some(seq) = pkt.ack_sack() {
                    sacked = self.uet_sacked(f, seq);
                }
            }
            if let Some(th) = self.tp.uet.loss_threshold {
                self.uet_sack_loss(f, th);
            }
            self.uet_answered(f);
        }
        // UET: a NAK of a packet SACKed since (a header trimmed from an earlier copy) is stale.
        let stale = uet && pkt.kind == PktKind::Nak && self.uet_nak_stale(f, pkt.nak_seq());
        let s = &mut self.senders[f.idx()];
        if pkt.kind == PktKind::Nak && !stale && pkt.nak_seq() >= s.snd_una && s.next_seq > pkt.nak_seq() {
            let seq = pkt.nak_seq();
            let n = if self.host.selective_repeat || uet {
                // Resend only the packet the receiver is missing (with trimming, after
                // those named before it).
                self.tx_stats[f.idx()].retransmits += 1;
                match s.resend {
                    Some(r) if r != seq && self.setup.sender_hooks.resends && self.models.queue_resend(f, seq) => {}
                    _ => s.resend = Some(seq),
                }
                1
            } else {
                let n = (s.next_seq - seq) as u64;
                self.tx_stats[f.idx()].retransmits += n;
                s.next_seq = seq;
                n
            };
            if pkt.flags & FLAG_TRIM != 0 {
                self.models.header_nak_answered(f, n);
            }
            self.activate(f);
        }
        let s = &self.senders[f.idx()];
        if s.cc_acks && !s.done {
            let ack = Ack {
                newly_acked: self.payload_bytes(f, old_una, s.snd_una) - unsacked + sacked,
                acked_to: s.snd_una,
                snd_nxt: s.next_seq - self.uet_sacked_count(f),
                rtt: now - pkt.sent(),
                ece: pkt.flags & FLAG_ECE != 0,
                nak: pkt.kind == PktKind::Nak,
                int: int.map_or(&[], |s| s.hops()),
                recovery: false,
            };
            self.cc_hook(f, |cc, ctx| cc.on_ack(ctx, &ack));
        }
        if self.senders[f.idx()].windowed {
            self.activate(f);
        }
        self.message_progress(f);
    }

    /// After an ACK: if the current message is fully acknowledged, post the next one or
    /// finish the flow.
    pub(crate) fn message_progress(&mut self, f: FlowId) {
        let now = self.now_t();
        let s = &mut self.senders[f.idx()];
        if s.sw != NO_SW {
            return self.sw_acked(f);
        }
        if s.snd_una >= s.msg_limit && !s.done {
            if self.flows[f.idx()].coll != NO_COLL && s.msg_limit < self.flows[f.idx()].npkts {
                return; // a job's queue pair: more chunks will be posted (collectives/)
            }
            if self.flows[f.idx()].io != NO_IO {
                // Storage: the next leg is posted by the I/O's progress, not here.
                return self.io_acked(f);
            }
            // A message is complete: post the next one, or the flow is done.
            let lat = (now - s.msg_start).0;
            s.msgs_done += 1;
            self.tx_stats[f.idx()].msgs_done += 1;
            self.rec.msg_lats.push(f, lat);
            self.rec.msg_latency.record(lat);
            if s.messages == 0 || s.msgs_done < s.messages {
                s.msg_start = now;
                s.msg_limit = s.msg_limit.saturating_add(self.flows[f.idx()].npkts);
                s.next_tx = nic_timing::first_send(now, s.next_tx, self.host.timing.doorbell);
                if self.tp.uet.rccc && self.flows[f.idx()].uet != NO_UET {
                    self.tp.uet_tx[self.flows[f.idx()].uet as usize].posted();
                }
                self.activate(f);
                return;
            }
            self.sender_done(f, now);
        }
    }

    /// The flow's last message is acknowledged: nothing more will be sent.
    pub(crate) fn sender_done(&mut self, f: FlowId, now: SimTime) {
        let s = &mut self.senders[f.idx()];
        s.done = true;
        let st = &mut self.tx_stats[f.idx()];
        st.finish.set(now);
        if let Some(since) = st.limited_since.take() {
            st.limited_ps += (now - since).0;
        }
        if s.cc_dynamic {
            self.cc_hook(f, |cc, ctx| cc.on_finish(ctx));
        }
        self.retire_sender(f);
    }

    /// Payload bytes of packets `from..to` of flow `f` (a message's last packet may be
    /// short).
    pub(crate) fn payload_bytes(&self, f: FlowId, from: u32, to: u32) -> u64 {
        let h = &self.flows[f.idx()];
        let n = (to - from) as u64;
        let ends = if h.npkts == u32::MAX { 0 } else { (to / h.npkts - from / h.npkts) as u64 };
        n * self.host.mtu as u64 - ends * (self.host.mtu - h.last_payload) as u64
    }

    /// Go-back-N timeout: no cumulative ACK progress for one RTO with data outstanding.
    pub(crate) fn on_rto(&mut self, f: FlowId, gen: u32) {
        if self.flows[f.idx()].tcp != NO_TCP {
            return self.tcp_on_rto(f, gen);
        }
        let now = self.now_t();
        let rto = self.host.rto;
        // (A retired sender had nothing outstanding: its timeout does nothing.)
        let Some(s) = self.senders.get_mut(f.idx()) else { return };
        if gen != s.rto_gen || !s.rto_armed {
            return;
        }
        s.rto_armed = false;
        if s.snd_una >= s.next_seq {
            return; // nothing outstanding; the next send re-arms
        }
        let uet = self.flows[f.idx()].uet != NO_UET;
        if s.snd_una == s.rto_mark {
            if uet {
                self.uet_timed_out(f);
            }
            let s = &mut self.senders[f.idx()];
            if self.host.selective_repeat || uet {
                // IRN: resend the first unacknowledged packet only; the receiver names
                // the next hole below what it holds once that one arrives.
                self.tx_stats[f.idx()].retransmits += 1;
                if let Some(r) = s.resend.filter(|&r| r != s.snd_una && self.setup.sender_hooks.resends) {
                    self.models.queue_resend(f, r); // a NAKed resend still pending
                }
                s.resend = Some(s.snd_una);
                // What was sent before the timeout and is still unacknowledged when
                // that packet's ACK comes is lost too (below).
                s.recover = s.next_seq;
            } else {
                // Go back to the first unacknowledged packet.
                self.tx_stats[f.idx()].retransmits += (s.next_seq - s.snd_una) as u64;
                s.next_seq = s.snd_una;
            }
        }
        let s = &mut self.senders[f.idx()];
        s.rto_armed = true;
        s.rto_mark = s.snd_una;
        s.rto_gen = s.rto_gen.wrapping_add(1);
        let g = s.rto_gen;
        self.fx.q.schedule(now + rto, Event::Rto(f, g));
        self.activate(f);
    }
}
