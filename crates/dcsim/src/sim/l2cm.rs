//! The IEEE 802.1Qau family in the world. Congestion points in switch egress queues
//! sample arriving frames and send feedback frames straight to the frame's source (QCN
//! CNMs, BCN messages, BCN00); FECN ports advertise a rate, recomputed every interval,
//! which probes collect on their way to the destination and bring back to the source.
//! Feedback frames and probes are real 64-byte frames in the control class.

use super::Simulation;
use crate::cc::{CongestionControl, Feedback};
use crate::event::Event;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::bcn::{BcnCp, BcnSignal};
use crate::net::fecn::FecnPort;
use crate::net::packet::{Packet, PktKind, FLAG_CTRL};
use crate::net::qcn::QcnCp;
use crate::plan::{L2Cm, Plan};
use crate::rng::Rng;
use crate::units::{Rate, SimTime};

/// Size of feedback frames and probes (minimum Ethernet frame).
const L2_FRAME: u16 = 64;
/// E-FECN sends a source at most one BCN00 per this time (bcn-fecn.md 7.4).
const BCN00_GAP: SimTime = SimTime::us(100);

pub(crate) struct L2State {
    pub kind: L2Cm,
    /// Per (port, priority): QCN or BCN congestion-point state.
    pub qcn: Vec<QcnCp>,
    pub bcn: Vec<BcnCp>,
    /// Per port: FECN advertised rate.
    pub fecn: Vec<FecnPort>,
    pub rng: Rng,
    /// Feedback frames sent by congestion points.
    pub feedback_sent: u64,
}

impl L2State {
    pub fn new(plan: &Plan, port_rates: &[Rate]) -> Self {
        let n = port_rates.len();
        let kind = plan.switch.l2cm.clone();
        L2State {
            qcn: if matches!(kind, L2Cm::Qcn(_)) { vec![QcnCp::default(); n * 8] } else { Vec::new() },
            bcn: if matches!(kind, L2Cm::Bcn(_)) { vec![BcnCp::default(); n * 8] } else { Vec::new() },
            fecn: match &kind {
                L2Cm::Fecn(p) => port_rates.iter().map(|r| FecnPort::new(p, *r)).collect(),
                _ => Vec::new(),
            },
            kind,
            rng: Rng::stream(plan.seed, "l2cm"),
            feedback_sent: 0,
        }
    }

    /// The first FECN tick, if FECN runs.
    pub fn first_tick(&self) -> Option<SimTime> {
        match &self.kind {
            L2Cm::Fecn(p) => Some(p.interval),
            _ => None,
        }
    }
}

impl Simulation {
    /// A data frame of `flow` joined egress (port `out`, `prio`); the queue is now `qlen`.
    pub(crate) fn l2_on_enqueue(&mut self, out: PortId, prio: u8, flow: FlowId, frame: u32, qlen: u64) {
        let ci = out.idx() * 8 + prio as usize;
        let node = self.ports[out.idx()].node;
        let l2 = &mut self.l2;
        let fb = match &l2.kind {
            L2Cm::None => None,
            L2Cm::Qcn(p) => l2.qcn[ci].on_arrival(p, frame, qlen, &mut l2.rng).map(|fb| Feedback::Qcn { fb }),
            L2Cm::Bcn(p) => {
                let controls = self.ccs[flow.idx()].regulator_cp() == Some(ci as u32);
                l2.bcn[ci].on_arrival(p, frame, qlen, controls, &mut l2.rng).map(|s| match s {
                    BcnSignal::Fb(fb) => Feedback::Bcn { cp: ci as u32, fb },
                    BcnSignal::Stop => Feedback::BcnStop { cp: ci as u32 },
                })
            }
            L2Cm::Fecn(p) => {
                let now = self.q.now();
                let last = &mut self.flows[flow.idx()].last_bcn00;
                if p.efecn && qlen > p.q_sc && last.is_none_or(|t| now - t >= BCN00_GAP) {
                    // E-FECN: severe congestion: BCN00 to the source (at most one per
                    // source per 100 us), and the port advertises the minimum rate.
                    *last = Some(now);
                    l2.fecn[out.idx()].on_severe(p);
                    Some(Feedback::BcnStop { cp: ci as u32 })
                } else {
                    None
                }
            }
        };
        if let Some(fb) = fb {
            self.send_feedback(node, ci as u32, flow, fb);
        }
    }

    /// FECN measures the load offered to an output, dropped frames included.
    pub(crate) fn l2_on_offer(&mut self, out: PortId, frame: u32) {
        if let Some(port) = self.l2.fecn.get_mut(out.idx()) {
            port.on_arrival(frame);
        }
    }

    /// Sends a feedback frame from switch `node` to the source of `flow`.
    fn send_feedback(&mut self, node: NodeId, cp: u32, flow: FlowId, fb: Feedback) {
        let (sub, val) = match fb {
            Feedback::Qcn { fb } => (0u8, fb as u32),
            Feedback::Bcn { fb, .. } => (1, fb as u32),
            Feedback::BcnStop { .. } => (2, 0),
            Feedback::FecnRate { .. } => unreachable!("FECN rates travel in probes"),
        };
        let src = self.flows[flow.idx()].src;
        let id = self.pool.alloc(Packet {
            flow,
            seq: val,
            dst: src,
            next: PktId::NONE,
            payload: 0,
            frame: L2_FRAME,
            kind: PktKind::Cnm,
            prio: sub,
            flags: FLAG_CTRL,
            sent: SimTime(cp as u64),
        });
        self.l2.feedback_sent += 1;
        let out = self.routing.route(node, src, flow.0);
        self.ports[out.idx()].ctrl.push(&mut self.pool, id);
        self.kick(out);
    }

    /// A feedback frame reached the source host.
    pub(crate) fn on_cnm(&mut self, pkt: &Packet) {
        if self.flows[pkt.flow.idx()].finish.is_some() {
            return; // the source has stopped: nothing to regulate
        }
        let cp = pkt.sent.0 as u32;
        let fb = match pkt.prio {
            0 => Feedback::Qcn { fb: pkt.seq as u8 },
            1 => Feedback::Bcn { cp, fb: pkt.seq as i32 },
            _ => Feedback::BcnStop { cp },
        };
        self.flows[pkt.flow.idx()].feedback_rx += 1;
        self.cc_hook(pkt.flow, |cc, ctx| cc.on_feedback(ctx, fb));
    }

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
        let L2Cm::Fecn(p) = &self.l2.kind else { return };
        let p = p.clone();
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
