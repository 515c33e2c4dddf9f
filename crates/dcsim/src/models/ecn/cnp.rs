//! The RoCEv2 notification point (receiving NIC): CE-marked packets are answered with
//! CNPs, at most one per queue pair per `cnp.interval` (a mark inside the window yields
//! one CNP at its end, dcqcn.md 4.3 variant A) and at most one per `cnp.nic_gap` from the
//! NIC. The CNP is a real frame to the sender; its reaction point is the flow's `Cc`.
//! With `cnp.delay` (models/nic_timing) it reaches the NIC's send queue that much later.

use crate::event::Event;
use crate::ids::{FlowId, NodeId, PortId};
use crate::net::fabric::Fabric;
use crate::net::packet::Packet;
use crate::units::SimTime;

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
}

/// A queue pair's notification point, at its receiver.
#[derive(Clone, Copy, Default)]
struct QpNp {
    last_cnp: Option<SimTime>,
    marked_since_cnp: u32,
    /// A `CnpDeferred` event is scheduled.
    pending: bool,
}

/// What a flow's CNPs need of it: its ends and priority.
#[derive(Clone, Copy)]
pub(crate) struct CnpFlow {
    pub src: NodeId,
    pub dst: NodeId,
    pub prio: u8,
}

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

    /// The receiver of flow `f` got a CE-marked data packet. Returns whether a CNP went
    /// out now.
    pub fn on_marked(&mut self, fx: &mut Fabric, f: FlowId, flow: CnpFlow) -> bool {
        let now = fx.now();
        let iv = self.cfg.interval;
        let qp = &mut self.qps[f.idx()];
        if iv.0 == 0 || qp.last_cnp.is_none_or(|t| now - t >= iv) {
            self.send(fx, f, flow)
        } else {
            qp.marked_since_cnp += 1;
            let at = qp.last_cnp.unwrap() + iv;
            self.defer(fx, f, at);
            false
        }
    }

    fn defer(&mut self, fx: &mut Fabric, f: FlowId, at: SimTime) {
        let qp = &mut self.qps[f.idx()];
        if !qp.pending {
            qp.pending = true;
            fx.q.schedule(at, Event::CnpDeferred(f));
        }
    }

    /// Flow `f`'s deferred CNP is due. Returns whether a CNP went out now.
    pub fn on_deferred(&mut self, fx: &mut Fabric, f: FlowId, flow: CnpFlow) -> bool {
        let now = fx.now();
        let iv = self.cfg.interval;
        let qp = &mut self.qps[f.idx()];
        qp.pending = false;
        if qp.marked_since_cnp == 0 {
            return false;
        }
        match qp.last_cnp {
            Some(t) if now - t < iv => {
                self.defer(fx, f, t + iv);
                false
            }
            _ => self.send(fx, f, flow),
        }
    }

    /// Sends a CNP for flow `f` from its receiver, unless the NIC's CNP rate limit holds
    /// it back (then it goes out as soon as the NIC may send one).
    fn send(&mut self, fx: &mut Fabric, f: FlowId, flow: CnpFlow) -> bool {
        let now = fx.now();
        let next = self.nic_next[flow.dst.idx()];
        if now < next {
            self.qps[f.idx()].marked_since_cnp += 1;
            self.defer(fx, f, next);
            return false;
        }
        self.nic_next[flow.dst.idx()] = now + self.cfg.nic_gap;
        let qp = &mut self.qps[f.idx()];
        qp.last_cnp = Some(now);
        qp.marked_since_cnp = 0;
        if self.delay.0 != 0 {
            // The NIC takes `delay` to build it: the rate limits above count from the
            // decision, the frame leaves later (`out`).
            fx.q.schedule(now + self.delay, Event::CnpOut(f));
            return true;
        }
        self.out(fx, f, flow);
        true
    }

    /// The CNP decided for flow `f` reaches its receiver's NIC: queued ahead of data.
    pub fn out(&self, fx: &mut Fabric, f: FlowId, flow: CnpFlow) {
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
    type Keys = crate::models::fabric_model::NoSection;

    fn shift_times(&mut self, by: SimTime) {
        self.qps.iter_mut().for_each(|q| q.last_cnp = q.last_cnp.map(|t| t.later(by)));
        self.nic_next.iter_mut().for_each(|t| *t = t.later(by));
    }

    fn new(ctx: &mut crate::models::fabric_model::BuildCtx) -> Self {
        NotificationPoints::new(ctx.plan.host.cnp.clone(), ctx.plan.host.timing.cnp_delay, ctx.plan.flows.len(), ctx.nodes.len())
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        use crate::keys::Check;
        plan.host.cnp.check("host.cnp", &crate::keys::KeyCtx::NONE)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("ecn.md", "cnp", <super::keys::CnpKeys as crate::keys::Declared>::table()));
    }
}
