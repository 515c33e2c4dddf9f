//! FECN probes in the world: a source sends a 64-byte probe toward its destination;
//! every switch port it leaves through lowers the rate it carries to the port's
//! advertised rate; the destination reflects it, and the source takes the rate it brings
//! back. Every port recomputes its advertised rate once per interval (`FecnTick`).

use super::super::l2cm::L2_FRAME;
use crate::event::Event;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::models::Feedback;
use crate::net::packet::{Packet, PktKind, FLAG_CTRL};
use crate::sim::Simulation;
use crate::units::{Rate, SimTime};

impl Simulation {
    /// A FECN source sends a probe toward its destination.
    pub(crate) fn send_probe(&mut self, f: FlowId) {
        let now = self.now_t();
        let (src, dst) = (self.flows[f.idx()].src, self.flows[f.idx()].dst);
        self.send_ctrl_frame(src, dst, f, PktKind::Probe, u32::MAX, now);
    }

    fn send_ctrl_frame(&mut self, from: NodeId, to: NodeId, f: FlowId, kind: PktKind, seq: u32, now: SimTime) {
        let id = self.pool.alloc(Packet {
            flow: f,
            seq,
            dst: to,
            next: PktId::NONE,
            payload: 0,
            frame: L2_FRAME,
            kind,
            prio: 0,
            flags: FLAG_CTRL,
            sent: now,
        });
        let p = PortId(self.nodes[from.idx()].ports.start);
        self.ports[p.idx()].ctrl.push(&mut self.pool, id);
        self.kick(p);
    }

    /// A probe passes a switch toward egress `out`: it keeps the lowest advertised rate.
    pub(crate) fn stamp_probe(&mut self, out: PortId, id: PktId) {
        if let Some(port) = self.l2.fecn.get(out.idx()) {
            let kbps = (port.advertised().0 / 1000).min(u32::MAX as u64 - 1) as u32;
            let pkt = self.pool.get_mut(id);
            pkt.seq = pkt.seq.min(kbps);
        }
    }

    /// The destination reflects a probe; the source takes the rate it brings back.
    pub(crate) fn on_probe(&mut self, pkt: &Packet) {
        let now = self.now_t();
        let f = pkt.flow;
        match pkt.kind {
            PktKind::Probe => {
                let (src, dst) = (self.flows[f.idx()].src, self.flows[f.idx()].dst);
                self.send_ctrl_frame(dst, src, f, PktKind::ProbeReply, pkt.seq, now);
            }
            _ => {
                if pkt.seq == u32::MAX || self.flows[f.idx()].finish.is_some() {
                    return; // no FECN port on the path, or the source has stopped
                }
                let rate = Rate(pkt.seq as u64 * 1000);
                self.flows[f.idx()].feedback_rx += 1;
                self.cc_hook(f, |cc, ctx| cc.on_feedback(ctx, Feedback::FecnRate { rate }));
            }
        }
    }

    /// FECN: every switch port recomputes its advertised rate.
    pub(crate) fn on_fecn_tick(&mut self) {
        let now = self.now_t();
        let Some(p) = self.l2.kind.fecn().cloned() else { return };
        for i in 0..self.ports.len() {
            if self.nodes[self.ports[i].node.idx()].is_host {
                continue;
            }
            let qlen: u64 = (0..8u8).map(|pr| self.egress.queue(PortId(i as u32), pr).bytes).sum();
            let rate = self.ports[i].rate;
            self.l2.fecn[i].on_interval(&p, rate, qlen, p.interval);
        }
        if now + p.interval <= self.end {
            self.q.schedule(now + p.interval, Event::FecnTick);
        }
    }
}
