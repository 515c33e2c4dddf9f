//! The IEEE 802.1Qau family in the world: the per-queue state of the configured
//! congestion points (`[switch.l2cm]`), what they do when a data frame joins an egress
//! queue, and the feedback frames that carry what they say straight to the frame's
//! source (QCN CNMs, BCN messages, BCN00). Feedback frames are real 64-byte frames in the
//! control class. FECN's probes are in `fecn/probes.rs`.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::bcn::{BcnCp, BcnSignal};
use super::fecn::ports::FECN_TICK;
use super::fecn::FecnPort;
use super::qcn::QcnCp;
use super::{Feedback, L2Cm};
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, PktKind};
use crate::net::queue::FxHasher;
use crate::plan::Plan;
use crate::rng::Rng;
use crate::units::{Rate, SimTime};

/// Size of feedback frames and probes (minimum Ethernet frame).
pub(crate) const L2_FRAME: u32 = 64;
/// E-FECN sends a source at most one BCN00 per this time (bcn-fecn.md 7.4).
const BCN00_GAP: SimTime = SimTime::us(100);

pub(crate) struct L2State {
    pub kind: L2Cm,
    /// Whether data frames carry the rate-limiter tag of their regulator (BCN).
    pub tags: bool,
    /// Per (port, priority): QCN or BCN congestion-point state.
    pub qcn: Vec<QcnCp>,
    pub bcn: Vec<BcnCp>,
    /// Per port: FECN advertised rate.
    pub fecn: Vec<FecnPort>,
    /// Per (port, priority) congestion point: its own generator (sampling jitter).
    pub rngs: Vec<Rng>,
    /// Feedback frames sent by congestion points.
    pub feedback_sent: u64,
    /// E-FECN: when each (port, flow) last sent a BCN00 to the flow's source.
    pub last_bcn00: HashMap<(u32, u32), SimTime, BuildHasherDefault<FxHasher>>,
}

impl L2State {
    pub fn new(plan: &Plan, port_rates: &[Rate]) -> Self {
        let n = port_rates.len();
        let kind = plan.switch.l2cm.clone();
        let rngs = match kind {
            L2Cm::Qcn(_) | L2Cm::Bcn(_) => (0..n as u64 * 8).map(|ci| Rng::for_component(plan.seed, "l2cm", ci)).collect(),
            _ => Vec::new(),
        };
        L2State {
            qcn: if matches!(kind, L2Cm::Qcn(_)) { vec![QcnCp::default(); n * 8] } else { Vec::new() },
            bcn: if matches!(kind, L2Cm::Bcn(_)) { vec![BcnCp::default(); n * 8] } else { Vec::new() },
            fecn: match kind.fecn() {
                Some(p) => port_rates.iter().map(|r| FecnPort::new(p, *r)).collect(),
                None => Vec::new(),
            },
            tags: matches!(kind, L2Cm::Bcn(_)),
            kind,
            rngs,
            feedback_sent: 0,
            last_bcn00: HashMap::default(),
        }
    }

    /// The first FECN tick, if FECN runs.
    pub fn first_tick(&self) -> Option<SimTime> {
        self.kind.fecn().map(|p| p.interval)
    }
}

impl L2State {
    /// Data frame `id` joined egress (port `out`, `prio`); the queue is now `qlen`. What a
    /// congestion point learns about the frame's sender comes from the frame: its flow's
    /// addresses and, for BCN, its rate-limiter tag.
    pub fn on_enqueue(&mut self, fx: &mut Fabric, out: PortId, prio: u8, id: PktId, qlen: u64, src_of: impl Fn(FlowId) -> NodeId) {
        let ci = out.idx() * 8 + prio as usize;
        let node = fx.ports[out.idx()].node;
        let (flow, frame) = {
            let pkt = fx.pool.get(id);
            (pkt.flow, pkt.frame as u32)
        };
        let l2 = &mut *self;
        let fb = match &l2.kind {
            L2Cm::None => None,
            L2Cm::Qcn(p) => l2.qcn[ci].on_arrival(p, frame, qlen, &mut l2.rngs[ci]).map(|fb| Feedback::Qcn { fb }),
            L2Cm::Bcn(p) => {
                let controls = fx.pool.tag(id) == Some(ci as u32);
                l2.bcn[ci].on_arrival(p, frame, qlen, controls, &mut l2.rngs[ci]).map(|s| match s {
                    BcnSignal::Fb(fb) => Feedback::Bcn { cp: ci as u32, fb },
                    BcnSignal::Stop => Feedback::BcnStop { cp: ci as u32 },
                })
            }
            L2Cm::Fecn(p) | L2Cm::Efecn(p) => {
                let now = fx.q.now();
                let key = (out.0, flow.0);
                let due = l2.last_bcn00.get(&key).is_none_or(|t| now - *t >= BCN00_GAP);
                if p.efecn && qlen > p.q_sc && due {
                    // E-FECN: severe congestion: BCN00 to the source (at most one per
                    // source per 100 us), and the port advertises the minimum rate.
                    l2.last_bcn00.insert(key, now);
                    l2.fecn[out.idx()].on_severe(p);
                    Some(Feedback::BcnStop { cp: ci as u32 })
                } else {
                    None
                }
            }
        };
        if let Some(fb) = fb {
            self.send_feedback(fx, node, ci as u32, flow, src_of(flow), fb);
        }
    }

    /// FECN measures the load offered to an output, dropped frames included, in wire
    /// bytes (frame + preamble/IFG when the wire carries them): the rate it is compared
    /// with is the port's rate, which serialises wire bytes.
    pub fn on_offer(&mut self, fx: &Fabric, out: PortId, frame: u32) {
        let wire = frame + fx.preamble;
        if let Some(port) = self.fecn.get_mut(out.idx()) {
            port.on_arrival(wire);
        }
    }

    /// Sends a feedback frame from switch `node` to the source of `flow`.
    fn send_feedback(&mut self, fx: &mut Fabric, node: NodeId, cp: u32, flow: FlowId, src: NodeId, fb: Feedback) {
        let id = fx.pool.alloc(Packet::feedback(flow, src, cp, fb, L2_FRAME));
        self.feedback_sent += 1;
        let out = fx.routing.route(node, src, flow.0);
        let pool = &mut fx.pool;
        fx.ports[out.idx()].ctrl.push(pool, id);
        fx.kick(out);
    }
}

impl crate::models::fabric_model::FabricModel for L2State {
    fn shift_times(&mut self, by: SimTime) {
        self.last_bcn00.values_mut().for_each(|t| *t = t.later(by));
    }

    fn wants_enqueued(&self) -> bool {
        !matches!(self.kind, L2Cm::None)
    }

    /// Congestion points sample data frames, with the queue they join included.
    #[inline]
    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, fx: &mut Fabric, e: &crate::models::fabric_model::Enqueued, src: &S) {
        if !matches!(self.kind, L2Cm::None) && e.pkt.kind == PktKind::Data {
            self.on_enqueue(fx, e.out, e.prio, e.id, e.q_before + e.pkt.frame as u64, src);
        }
    }

    /// FECN probes carry a record of their own (`PacketPool::enable_tags`); FECN's
    /// periodic rate computation is one event.
    fn new(ctx: &mut crate::models::fabric_model::BuildCtx) -> Self {
        let l2 = L2State::new(ctx.plan, ctx.port_rates);
        if l2.tags {
            ctx.pool.enable_tags();
        }
        if let Some(t) = l2.first_tick() {
            ctx.q.schedule(t, crate::models::fabric_model::model_event::<Self>(FECN_TICK, 0, 0, 0));
        }
        l2
    }

    const EVENTS: &'static [(u8, crate::event::owners::Subject)] = &[(FECN_TICK, crate::event::owners::Subject::None)];

    /// FECN's periodic rate computation (`fecn/ports.rs`).
    fn on_event<F: Fn(FlowId) -> crate::models::fabric_model::FlowInfo>(
        &mut self,
        fx: &mut Fabric,
        _ev: crate::event::ModelEvent,
        cx: &crate::models::fabric_model::EventCtx<F>,
    ) -> Option<crate::event::ModelEvent> {
        self.on_fecn_tick(fx, cx.end);
        None
    }

    fn wants_control_forwarded(&self) -> bool {
        !self.fecn.is_empty()
    }

    /// FECN: a probe takes the lowest rate its path's ports advertise.
    #[inline]
    fn control_forwarded(&mut self, fx: &mut Fabric, _node: NodeId, out: crate::ids::PortId, id: PktId, pkt: &Packet) -> bool {
        if pkt.kind == PktKind::Probe {
            self.stamp_probe(fx, out, id);
        }
        false
    }

    fn wants_data_sent(&self) -> bool {
        self.tags
    }

    /// BCN: a data frame carries the tag of the rate limiter that sent it.
    #[inline]
    fn data_sent<R: Fn() -> Option<u32>>(&mut self, fx: &mut Fabric, _f: FlowId, id: PktId, regulator: &R) {
        if self.tags {
            fx.pool.set_tag(id, regulator());
        }
    }

    fn wants_offered(&self) -> bool {
        !self.fecn.is_empty()
    }

    /// FECN measures the load offered to each port.
    #[inline]
    fn offered(&mut self, fx: &mut Fabric, out: crate::ids::PortId, pkt: &Packet) {
        self.on_offer(fx, out, pkt.frame as u32);
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        summary["counters"]["l2_feedback_sent"] = serde_json::json!(self.feedback_sent);
    }

    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(crate::ids::NodeId) -> bool) {
        self.feedback_sent += other.feedback_sent;
    }

    fn check_plan(plan: &crate::plan::Plan, ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        plan.switch.l2cm.check("switch.l2cm", ctx)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("qcn.md", "qcn", <super::qcn::QcnKeys as crate::keys::Declared>::table()));
        out.push(("qcn.md", "qcn_cp", <super::qcn::QcnCpKeys as crate::keys::Declared>::table()));
        out.push(("bcn.md", "bcn", <super::bcn::BcnKeys as crate::keys::Declared>::table()));
        out.push(("bcn.md", "bcn_cp", <super::bcn::BcnCpKeys as crate::keys::Declared>::table()));
        out.push(("fecn.md", "fecn", <super::fecn::FecnKeys as crate::keys::Declared>::table()));
        out.push(("fecn.md", "fecn_switch", <super::fecn::FecnSwitchKeys as crate::keys::Declared>::table()));
    }

    fn not_node_local(plan: &crate::plan::Plan) -> Option<&'static str> {
        plan.switch.l2cm.fecn().map(|_| "switch.l2cm of type \"fecn\" or \"efecn\" (one rate update for all switches)")
    }

    fn work(p: &Plan, at: &crate::models::fabric_model::WorkCtx, out: &mut crate::models::fabric_model::WorkTerms) {
        if let Some(f) = p.switch.l2cm.fecn() {
            out.push((
                "switch.l2cm.interval".into(),
                "FECN rate updates".into(),
                f.interval.periods_in(p.duration).saturating_mul(at.switch_ports),
            ));
        }
    }
}
