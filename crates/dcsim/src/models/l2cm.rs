//! The IEEE 802.1Qau family in the world: the per-queue state of the configured
//! congestion points (`[switch.l2cm]`), what they do when a data frame joins an egress
//! queue, and the feedback frames that carry what they say straight to the frame's
//! source (QCN CNMs, BCN messages, BCN00). Feedback frames are real 64-byte frames in the
//! control class. FECN's probes are in `fecn/probes.rs`.

use super::bcn::{BcnCp, BcnSignal};
use super::fecn::FecnPort;
use super::qcn::QcnCp;
use super::{Feedback, L2Cm};
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::packet::{Packet, PktKind, FLAG_CTRL};
use crate::plan::Plan;
use crate::rng::Rng;
use crate::sim::Simulation;
use crate::units::{Rate, SimTime};

/// Size of feedback frames and probes (minimum Ethernet frame).
pub(crate) const L2_FRAME: u16 = 64;
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
            fecn: match kind.fecn() {
                Some(p) => port_rates.iter().map(|r| FecnPort::new(p, *r)).collect(),
                None => Vec::new(),
            },
            kind,
            rng: Rng::stream(plan.seed, "l2cm"),
            feedback_sent: 0,
        }
    }

    /// The first FECN tick, if FECN runs.
    pub fn first_tick(&self) -> Option<SimTime> {
        self.kind.fecn().map(|p| p.interval)
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
            L2Cm::Fecn(p) | L2Cm::Efecn(p) => {
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
}
