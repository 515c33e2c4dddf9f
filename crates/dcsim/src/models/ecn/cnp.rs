//! The RoCEv2 notification point (receiving NIC): CE-marked packets are answered with
//! CNPs, at most one per queue pair per `cnp.interval` (a mark inside the window yields
//! one CNP at its end, dcqcn.md 4.3 variant A) and at most one per `cnp.nic_gap` from the
//! NIC. The CNP is a real frame to the sender; its reaction point is the flow's `Cc`.
//! With `cnp.delay` (models/nic_timing) it reaches the NIC's send queue that much later.

use crate::event::owners::Subject;
use crate::event::ModelEvent;
use crate::ids::{FlowId, PortId};
use crate::models::fabric_model::{model_event, EventCtx, FlowInfo};
use crate::net::fabric::{After, Fabric};
use crate::net::packet::Packet;
use crate::units::{SimTime, When};

/// Notification point (dcqcn.md 4.3, variant A): at most one CNP per queue pair per
/// `interval` (a mark inside the window yields one CNP at its end), and at most one CNP
/// per `nic_gap` from the whole NIC.
#[derive(Clone, Debug, PartialEq)]
pub struct CnpPlan {
    /// Minimum time between CNPs of one queue pair; zero answers every marked packet.
    pub interval: SimTime,
    /// Minimum time between two CNPs of one NIC (its generation rate limit); zero: none.
    pub nic_gap: SimTime,
    /// CNP frame size (RoCEv2: 78 B).
    pub bytes: u32,
    /// `None`: the control class (never paused, not charged to buffers). `Some(p)`: a
    /// normal frame of priority p.
    pub priority: Option<u8>,
    /// CE-marked packet to CNP queued at the NIC (NIC timing); zero: at once.
    pub delay: SimTime,
}

/// A queue pair's notification point, at its receiver.
#[derive(Clone, Copy, Default)]
struct QpNp {
    last_cnp: When,
    marked_since_cnp: u32,
    /// A `CNP_DEFERRED` event is scheduled.
    pending: bool,
}

// 16 B: a queue pair's entry, in every partition, for every flow of the run.
const _: () = assert!(std::mem::size_of::<QpNp>() == 16);

/// The notification points of every NIC: per queue pair its CNP window, per NIC the
/// earliest time it may send another CNP. Only a flow's destination NIC writes its entry.
pub(crate) struct NotificationPoints {
    cfg: CnpPlan,
    /// The NIC's CNP generation time (`host.cnp.delay`; zero: none).
    delay: SimTime,
    qps: Vec<QpNp>,
    nic_next: Vec<SimTime>,
}

impl NotificationPoints {
    pub fn new(cfg: CnpPlan, delay: SimTime, flows: usize, nodes: usize) -> Self {
        NotificationPoints { cfg, delay, qps: vec![QpNp::default(); flows], nic_next: vec![SimTime::ZERO; nodes] }
    }

    /// The receiver of flow `f` got a CE-marked data packet.
    pub fn on_marked(&mut self, fx: &mut Fabric, f: FlowId, flow: FlowInfo) {
        let now = fx.now();
        let iv = self.cfg.interval;
        let qp = &mut self.qps[f.idx()];
        if iv.0 == 0 || qp.last_cnp.get().is_none_or(|t| now - t >= iv) {
            self.send(fx, f, flow);
        } else {
            qp.marked_since_cnp += 1;
            let at = qp.last_cnp.get().unwrap() + iv;
            self.defer(fx, f, at);
        }
    }

    fn defer(&mut self, fx: &mut Fabric, f: FlowId, at: SimTime) {
        let qp = &mut self.qps[f.idx()];
        if !qp.pending {
            qp.pending = true;
            fx.q.schedule(at, model_event::<Self>(CNP_DEFERRED, 0, f.0, 0));
        }
    }

    /// Flow `f`'s deferred CNP is due.
    fn on_deferred(&mut self, fx: &mut Fabric, f: FlowId, flow: FlowInfo) {
        let now = fx.now();
        let iv = self.cfg.interval;
        let qp = &mut self.qps[f.idx()];
        qp.pending = false;
        if qp.marked_since_cnp == 0 {
            return;
        }
        match qp.last_cnp.get() {
            Some(t) if now - t < iv => self.defer(fx, f, t + iv),
            _ => self.send(fx, f, flow),
        }
    }

    /// Sends a CNP for flow `f` from its receiver (counted against the flow:
    /// `After::CnpSent`), unless the NIC's CNP rate limit holds it back (then it goes out
    /// as soon as the NIC may send one).
    fn send(&mut self, fx: &mut Fabric, f: FlowId, flow: FlowInfo) {
        let now = fx.now();
        let next = self.nic_next[flow.dst.idx()];
        if now < next {
            self.qps[f.idx()].marked_since_cnp += 1;
            self.defer(fx, f, next);
            return;
        }
        self.nic_next[flow.dst.idx()] = now + self.cfg.nic_gap;
        let qp = &mut self.qps[f.idx()];
        qp.last_cnp.set(now);
        qp.marked_since_cnp = 0;
        if self.delay.0 != 0 {
            // The NIC takes `delay` to build it: the rate limits above count from the
            // decision, the frame leaves later (`out`).
            fx.q.schedule(now + self.delay, model_event::<Self>(CNP_OUT, 0, f.0, 0));
        } else {
            self.out(fx, f, flow);
        }
        fx.after.push(After::CnpSent(f));
    }

    /// The CNP decided for flow `f` reaches its receiver's NIC: queued ahead of data.
    fn out(&self, fx: &mut Fabric, f: FlowId, flow: FlowInfo) {
        let c = &self.cfg;
        let id = fx.pool.alloc(Packet::cnp(f, flow.src, c.bytes, c.priority.unwrap_or(flow.prio), c.priority.is_none()));
        // The NIC sends CNPs ahead of data, whatever their priority on the fabric.
        let p = PortId(fx.nodes[flow.dst.idx()].ports.start);
        fx.ports[p.idx()].ctrl.push(&mut fx.pool, id);
        fx.kick(p);
    }
}

/// No table or summary of its own; nothing to merge.
impl crate::models::fabric_model::FabricModel for NotificationPoints {
    fn shift_times(&mut self, by: SimTime) {
        for q in self.qps.iter_mut() {
            if let Some(t) = q.last_cnp.get() {
                q.last_cnp.set(t.later(by));
            }
        }
        self.nic_next.iter_mut().for_each(|t| *t = t.later(by));
    }

    fn new(ctx: &mut crate::models::fabric_model::BuildCtx) -> Self {
        NotificationPoints::new(ctx.plan.fabric.cnp.clone(), ctx.plan.fabric.cnp.delay, ctx.plan.flows.len(), ctx.nodes.len())
    }

    /// Both are the flow's receiver's.
    const EVENTS: &'static [(u8, Subject)] = &[(CNP_DEFERRED, Subject::FlowDst), (CNP_OUT, Subject::FlowDst)];

    /// `a`: the flow.
    fn on_event<F: Fn(FlowId) -> FlowInfo>(&mut self, fx: &mut Fabric, ev: ModelEvent, cx: &EventCtx<F>) -> Option<ModelEvent> {
        let f = FlowId(ev.a());
        match ev.kind {
            CNP_DEFERRED => self.on_deferred(fx, f, (cx.flow)(f)),
            CNP_OUT => self.out(fx, f, (cx.flow)(f)),
            _ => unreachable!("{ev:?}"),
        }
        None
    }

    /// Every marked packet meets its queue pair's notification point.
    fn wants_marked_arrived(&self) -> bool {
        true
    }

    fn marked_arrived(&mut self, fx: &mut Fabric, f: FlowId, flow: FlowInfo) {
        self.on_marked(fx, f, flow);
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        use crate::keys::Check;
        plan.fabric.cnp.check("host.cnp", &crate::keys::KeyCtx::NONE)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("ecn.md", "cnp", <super::keys::CnpKeys as crate::keys::Declared>::table()));
    }
}

/// The events (their tie-key numbers): a CNP held back (interval or NIC limit) may go,
/// and a CNP the receiver generated `host.cnp.delay` ago reaches its NIC's send queue.
const CNP_DEFERRED: u8 = 9;
const CNP_OUT: u8 = 21;
