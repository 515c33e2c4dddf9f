//! PFC and its companions in the fabric-model list: how each is built, the `pfc_events`
//! and `deadlocks` tables, their summary keys, and the merge of a parallel run.

use std::mem::swap;

use serde_json::json;

use super::deadlock::DeadlockDetector;
use super::frames::{Pfc, PAUSE_EXPIRE, PFC_REFRESH};
use super::storm::{PauseStorms, PAUSE_STORM};
use super::watchdog::PfcWatchdog;
use super::{FlowControl, WatchdogAction};
use crate::event::owners::Subject;
use crate::event::ModelEvent;
use crate::ids::{NodeId, PortId};
use crate::models::fabric_model::{BuildCtx, EventCtx, FabricModel, FlowEnds, FlowInfo, Tables};
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, PktKind};
use crate::results::{Column, Table};

fn node_name(fx: &Fabric, n: NodeId) -> String {
    fx.nodes[n.idx()].name.clone()
}

impl FabricModel for Pfc {
    /// The priorities whose frames must never drop, in words, with the key that says so.
    fn lossless_text(&self) -> Option<String> {
        Some(match self.plan.mode {
            FlowControl::None => "no priority: switch.pfc.mode = \"off\"".to_string(),
            FlowControl::Pause => "every priority (switch.pfc.mode = \"pause\")".to_string(),
            FlowControl::IbCredits => "every priority (switch.pfc.mode = \"ib_credits\")".to_string(),
            FlowControl::Pfc if self.plan.lossless == 0 => "no priority: switch.pfc.lossless = []".to_string(),
            FlowControl::Pfc => format!("priorities [{}] (switch.pfc.lossless)", crate::keys::kind::priority_numbers(self.plan.lossless)),
        })
    }

    fn end_run(&mut self, _fx: &Fabric, _end: crate::units::SimTime) {
        self.log.finish();
    }

    fn new(ctx: &mut BuildCtx) -> Self {
        Pfc::new(&ctx.plan.fabric.pfc, ctx.slots.len(ctx.ports.len()), ctx.plan.stats.max_pfc_events)
    }

    /// The lossless priorities (their ingress and egress queues are watched and paused
    /// whether a flow uses them or not); every priority under PAUSE and credits, whose
    /// frames pause or block them all.
    fn state_prios(plan: &crate::plan::Plan, _prios: u8) -> u8 {
        let pfc = &plan.fabric.pfc;
        match pfc.mode {
            FlowControl::None => 0,
            FlowControl::Pfc => pfc.lossless,
            FlowControl::Pause | FlowControl::IbCredits => u8::MAX,
        }
    }

    fn owns_frame(kind: PktKind) -> bool {
        kind == PktKind::Pfc
    }

    #[inline]
    fn class_of(&self, prio: u8) -> Option<u8> {
        Some(self.class(prio))
    }

    #[inline]
    fn lossless(&self, prio: u8) -> Option<bool> {
        Some(self.plan.is_lossless(prio))
    }

    fn pause_upstream(&mut self, fx: &mut Fabric, port: PortId, class: u8, xoff: bool, xon_quanta: u32) {
        self.send(fx, port, class, xoff, xon_quanta);
    }

    fn on_frame(&mut self, fx: &mut Fabric, p: PortId, id: crate::ids::PktId, held: u8) {
        self.on_pause_frame(fx, p, id, held);
    }

    /// Both are the port's.
    const EVENTS: &'static [(u8, Subject)] = &[(PAUSE_EXPIRE, Subject::Port), (PFC_REFRESH, Subject::Port)];

    fn on_event<F: Fn(crate::ids::FlowId) -> FlowInfo>(
        &mut self,
        fx: &mut Fabric,
        ev: ModelEvent,
        _cx: &EventCtx<F>,
    ) -> Option<ModelEvent> {
        let p = PortId(ev.a());
        match ev.kind {
            PAUSE_EXPIRE => self.on_expire(fx, p, ev.c, ev.b()),
            PFC_REFRESH => self.on_refresh(fx, p, ev.c, ev.b()),
            _ => unreachable!("{ev:?}"),
        }
        None
    }

    fn tables(&self, fx: &Fabric, _ends: FlowEnds, out: &mut Tables) {
        let mut t = Table::default();
        let log = self.log.rows();
        t.push("time_ps", Column::U64(log.iter().map(|e| e.time.0).collect()));
        t.push("node", Column::Str(log.iter().map(|e| node_name(fx, fx.ports[e.port as usize].node)).collect()));
        t.push("port_id", Column::U64(log.iter().map(|e| e.port as u64).collect()));
        t.push("port", Column::U64(log.iter().map(|e| fx.ports[e.port as usize].local as u64).collect()));
        t.push("priority", Column::I64(log.iter().map(|e| if e.prio == 255 { -1 } else { e.prio as i64 }).collect()));
        t.push("event", Column::Str(log.iter().map(|e| ["resume", "pause", "expire"][e.kind as usize].to_string()).collect()));
        out.push(("pfc_events".to_string(), t));
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        summary["outputs"]["pfc_events_not_logged"] = json!(self.log.dropped());
    }

    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {
        self.log.absorb(&mut other.log);
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        super::checks::check_plan(plan)
    }

    fn warnings(plan: &crate::plan::Plan, out: &mut Vec<String>) {
        super::checks::warnings(plan, out)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("pfc.md", "pfc", <super::keys::PfcKeys as crate::keys::Declared>::table()));
        out.push(("pfc.md", "buffer_shared", <super::buffer::SharedBufferKeys as crate::keys::Declared>::table()));
        out.push(("pfc.md", "buffer_static", <super::buffer::StaticBufferKeys as crate::keys::Declared>::table()));
    }

    fn lossless_unchecked(&self) -> Option<&'static str> {
        if self.plan.mode == FlowControl::None {
            return Some("no PFC or PAUSE in this run");
        }
        if let super::Headroom::Fixed(_) = self.plan.headroom {
            return Some("not checked: the headroom is fixed by the scenario (switch.pfc.headroom)");
        }
        if self.plan.xoff.is_some() {
            return Some("not checked: XOFF is fixed by the scenario (switch.pfc.xoff)");
        }
        None
    }

    /// Deadlock checks, watchdog polls, periodic credit updates (all `[switch.pfc]`
    /// keys), pause refreshes and injected storms' pauses.
    fn work(p: &crate::plan::Plan, at: &crate::models::fabric_model::WorkCtx, out: &mut crate::models::fabric_model::WorkTerms) {
        let (pfc, dur) = (&p.fabric.pfc, p.duration);
        if pfc.mode == FlowControl::None {
            return;
        }
        if let Some(iv) = pfc.deadlock_check {
            out.push(("switch.pfc.deadlock_check".into(), "deadlock checks".into(), iv.periods_in(dur).saturating_mul(at.switch_ports)));
        }
        if let Some(wd) = &pfc.watchdog {
            out.push((
                "switch.pfc.watchdog.poll_interval".into(),
                "PFC watchdog polls".into(),
                wd.poll.periods_in(dur).saturating_mul(at.switch_ports),
            ));
        }
        if let Some(iv) = pfc.ib_period {
            out.push((
                "switch.pfc.ib_period".into(),
                "periodic credit updates".into(),
                iv.periods_in(dur).saturating_mul(at.ports).saturating_mul(at.prios),
            ));
        }
        // A paused class's XOFF is refreshed every half pause time while congested.
        let classes = pfc.pause_classes().count_ones().max(1) as u64;
        let refresh = crate::units::SimTime((pfc.pause_time.0 / 2).max(1));
        out.push((
            "switch.pfc.pause_time".into(),
            "pause refreshes".into(),
            refresh.periods_in(dur).saturating_mul(at.switch_ports).saturating_mul(classes),
        ));
        for (k, s) in p.fabric.pause_storms.storms.iter().enumerate() {
            let span = crate::units::SimTime(s.stop.unwrap_or(dur).min(dur).0.saturating_sub(s.start.0));
            out.push((format!("host.pause_storms[{k}]"), "storm pauses".into(), refresh.periods_in(span)));
        }
    }
}

impl FabricModel for DeadlockDetector {
    fn stopped(&self) -> bool {
        self.stopped_at.is_some()
    }

    fn next_check(&self) -> crate::units::SimTime {
        self.next
    }

    fn on_check(&mut self, w: &crate::models::fabric_model::Worlds) -> bool {
        self.check(w)
    }

    fn shift_times(&mut self, by: crate::units::SimTime) {
        self.next = self.next.later(by);
    }

    fn new(ctx: &mut BuildCtx) -> Self {
        let pfc = &ctx.plan.fabric.pfc;
        DeadlockDetector::new(pfc.deadlock_check.filter(|_| pfc.mode != FlowControl::None), pfc.deadlock_stop)
    }

    /// One row per cycle found (the check runs over all partitions at once: nothing to
    /// merge).
    fn tables(&self, fx: &Fabric, _ends: FlowEnds, out: &mut Tables) {
        let mut t = Table::default();
        let dl = &self.found;
        let port_name = |p: &PortId| {
            let port = &fx.ports[p.idx()];
            format!("{}->{}", node_name(fx, port.node), node_name(fx, fx.ports[port.peer.idx()].node))
        };
        let join = |v: Vec<String>| v.join(" ");
        t.push("time_ps", Column::U64(dl.iter().map(|d| d.time.0).collect()));
        t.push("priority", Column::U64(dl.iter().map(|d| d.prio as u64).collect()));
        t.push(
            "switches",
            Column::Str(dl.iter().map(|d| join(d.ports.iter().map(|p| node_name(fx, fx.ports[p.idx()].node)).collect())).collect()),
        );
        t.push("ports", Column::Str(dl.iter().map(|d| join(d.ports.iter().map(port_name).collect())).collect()));
        t.push("flows", Column::Str(dl.iter().map(|d| join(d.flows.iter().map(|f| f.to_string()).collect())).collect()));
        t.push("queued_bytes", Column::U64(dl.iter().map(|d| d.bytes).collect()));
        out.push(("deadlocks".to_string(), t));
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        summary["counters"]["deadlocks_detected"] = json!(self.found.len());
        summary["stopped_by_deadlock_ps"] = json!(self.stopped_at.map(|t| t.0));
    }
}

impl FabricModel for PauseStorms {
    fn new(ctx: &mut BuildCtx) -> Self {
        let port_of: Vec<PortId> = (0..ctx.nodes.len() as u32).map(|h| ctx.host_port(h)).collect();
        PauseStorms::new(ctx.plan, ctx.q, |h| port_of[h as usize])
    }

    /// The storms' priorities: the ports they pause count them.
    fn state_prios(plan: &crate::plan::Plan, _prios: u8) -> u8 {
        plan.fabric.pause_storms.storms.iter().fold(0, |m, st| m | 1 << st.priority)
    }

    /// A storm's frames leave its host's port.
    const EVENTS: &'static [(u8, Subject)] = &[(PAUSE_STORM, Subject::Listed)];

    fn event_ports(&self, _kind: u8) -> Vec<u32> {
        self.storms.iter().map(|s| s.port.0).collect()
    }

    fn on_event<F: Fn(crate::ids::FlowId) -> FlowInfo>(&mut self, fx: &mut Fabric, ev: ModelEvent, cx: &EventCtx<F>) -> Option<ModelEvent> {
        self.on_storm(fx, ev.a(), cx.end);
        None
    }

    /// Runs with injected pause storms only.
    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if !self.storms.is_empty() {
            summary["pause_storms"] = json!({ "injected": self.storms.len(), "pause_frames_sent": self.frames_sent });
        }
    }

    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {
        self.frames_sent += other.frames_sent;
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        super::checks::check_pause_storms(plan)
    }

    fn not_fast_forwarded(plan: &crate::plan::Plan) -> Option<&'static str> {
        (!plan.fabric.pause_storms.storms.is_empty()).then_some("host.pause_storms")
    }
}

impl FabricModel for PfcWatchdog {
    /// A switch queue in a pause storm ignores the pauses of the NIC behind it (the
    /// watchdog's purpose), so that NIC's receive buffer may overflow.
    fn nic_drops_lossless(&self) -> bool {
        self.plan.is_some()
    }

    /// A pause arrived: the priorities whose queue is in a storm ignore it.
    fn frame_held(&mut self, fx: &Fabric, p: PortId, pkt: &Packet) -> u8 {
        if pkt.kind != PktKind::Pfc {
            return 0;
        }
        let (mask, quanta) = pkt.pause();
        if quanta == 0 {
            return 0;
        }
        let now = fx.now();
        (0..8u8).filter(|&prio| mask & (1 << prio) != 0 && self.on_pause(p, prio, now)).fold(0, |held, prio| held | 1 << prio)
    }

    fn shift_times(&mut self, by: crate::units::SimTime) {
        self.shift_times(by);
    }

    fn new(ctx: &mut BuildCtx) -> Self {
        let pfc = &ctx.plan.fabric.pfc;
        let lossless = (0..8u8).filter(|&c| pfc.is_lossless(c)).fold(0, |m, c| m | 1 << c);
        PfcWatchdog::new(pfc.watchdog.clone().filter(|_| pfc.mode != FlowControl::None), ctx.slots, ctx.ports.len(), lossless)
    }

    fn next_poll(&self) -> crate::units::SimTime {
        self.next
    }

    fn on_poll(&mut self, fx: &mut Fabric, step: u32, owned: &[bool]) -> Option<u32> {
        self.poll_step(fx, step, owned)
    }

    /// Each port's storm state is its partition's.
    fn merge(&mut self, other: &mut Self, fx: &Fabric, theirs: &dyn Fn(NodeId) -> bool) {
        if self.storm.is_empty() {
            return;
        }
        for p in 0..fx.ports.len() {
            if theirs(fx.ports[p].node) {
                swap(&mut self.storm[p], &mut other.storm[p]);
            }
        }
    }

    fn wants_refuses(&self) -> bool {
        self.plan.as_ref().is_some_and(|w| w.action == WatchdogAction::Drop)
    }

    /// With the "drop" action, a frame routed to a queue in a storm is dropped, counted
    /// per (port, priority) as the watchdog's (`pfc_storm_drops`), not as a buffer drop.
    #[inline]
    fn refuses(&mut self, fx: &mut Fabric, out: PortId, prio: u8, _pkt: &Packet) -> bool {
        let drop = self.drops(out, prio);
        if drop {
            fx.prio_stats[fx.slots.at(out.idx(), prio)].pfc_storm_drops += 1;
        }
        drop
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("deadlock.md", "pfc_watchdog", <super::keys::WatchdogKeys as crate::keys::Declared>::table()));
    }
}
