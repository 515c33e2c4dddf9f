//! Where the world runs the fabric models' hooks (`models/`, each taking the fabric and its
//! own state) and does what they ask of it afterwards (`After`): their events and
//! link-level frames through the list's dispatch (`FabricModels::on_event`, `on_frame`),
//! and the hooks at hosts and ports (`at_host`, `data_started`, `input_freed`,
//! `data_lost`, `marked_arrived`, `probe_asked`, `probe_arrived`), each behind one flag of
//! `Setup` where it is on the path of every frame.

use super::FlowHeader;
use super::{After, Simulation};
use crate::event::ModelEvent;
use crate::ids::{FlowId, PktId, PortId};
use crate::models::fabric_model::{EventCtx, FlowInfo, Setting};
use crate::models::FabricModels;
use crate::net::packet::Packet;
use crate::units::SimTime;

impl Simulation {
    /// New RED thresholds during a run (seed 004's reconfiguration): on the switch ports
    /// `ports` (port ids; `None`: every switch port). Frames queued from now on are
    /// judged by them; nothing already marked changes.
    pub fn set_ecn(&mut self, kmin: u64, kmax: u64, pmax: f64, ports: Option<&[u32]>) -> crate::error::Result<()> {
        let s = Setting::Red { kmin, kmax, pmax, ports };
        self.models.change(&self.fx, &s, false)?;
        self.models.change(&self.fx, &s, true)?;
        // Each partition of a parallel run marks at its own ports.
        for other in self.part.par.iter_mut().flat_map(|p| p.others.iter_mut()) {
            other.models.change(&other.fx, &s, true)?;
        }
        Ok(())
    }

    /// The RED thresholds port `p` uses now, if ECN marking is on.
    pub fn ecn_thresholds(&self, p: u32) -> Option<(u64, u64, f64)> {
        self.models.red_thresholds(p)
    }

    /// A fabric model's event: its hook (through the list's dispatch), then what it asked
    /// of the world; again while the hook has a next step.
    pub(super) fn on_model_event(&mut self, ev: ModelEvent) {
        let mut ev = Some(ev);
        while let Some(e) = ev {
            let flows = &self.flows;
            let flow = |f: FlowId| flow_info(flows, f);
            let cx = EventCtx { end: self.end, used_prios: self.setup.used_prios, flow };
            let mark = self.fx.after.len();
            ev = self.models.on_event(&mut self.fx, e, &cx);
            self.run_after(mark);
        }
    }

    /// Does what the hooks since `mark` asked of the world (`Fabric::after`), in order:
    /// what a hook asks for happens right after it, as if it had done it itself. Most
    /// hooks (every data frame's enqueue hooks) ask nothing: that test is inlined, the
    /// work is not.
    #[inline]
    pub(crate) fn run_after(&mut self, mark: usize) {
        if self.fx.after.len() > mark {
            self.run_after_asked(mark);
        }
    }

    #[inline(never)]
    fn run_after_asked(&mut self, mark: usize) {
        let mut i = mark;
        while i < self.fx.after.len() {
            match self.fx.after[i] {
                After::Kick(p) => self.kick(p),
                After::Unpark(node, prio) => self.unpark(node, prio),
                After::CnpSent(f) => self.rx_stats[f.idx()].cnps_sent += 1,
                After::Pause(p, class, xoff) => self.send_pause(p, class, xoff),
                After::Deliver(p, id) => self.nic_consume(p, id),
                After::StormDrain(p, prio) => {
                    while self.fx.egress.queue(p, prio).pkts > 0 {
                        let item = self.dequeue_egress(p, prio);
                        self.release_ingress(self.ingress_of(p, &item), prio, item.frame as u64);
                        self.storm_drop(p, prio, item.id);
                    }
                }
                After::Drop(id) => {
                    let pkt = *self.fx.pool.get(id);
                    self.count_drop(&pkt);
                    self.fx.pool.free(id);
                }
                After::Feedback(f, fb) => self.feedback_to(f, fb),
                After::Refresh(p, class) => {
                    let resume = self.models.ingress_under_xon(&self.fx, p, class);
                    self.send_pause(p, class, !resume);
                }
                After::Receive(p, id) => self.switch_receive(p, id),
                After::PortDown(p) => self.port_down(p),
            }
            i += 1;
        }
        self.fx.after.truncate(mark);
    }

    /// The ingress (`port`, `class`) crossed XOFF (`xoff`) or fell under XON: the link's
    /// flow control tells the upstream (`FabricModels::pause_upstream`).
    pub(crate) fn send_pause(&mut self, port: PortId, class: u8, xoff: bool) {
        // An XON carries what is left of a pause a model holds for the port's peer.
        let xon_quanta = if xoff { 0 } else { self.models.xon_quanta(&self.fx, port, class) };
        let mark = self.fx.after.len();
        self.models.pause_upstream(&mut self.fx, port, class, xoff, xon_quanta);
        self.run_after(mark);
    }

    /// A link-level control frame (PFC, an InfiniBand FCP) reached port `p`: its model's
    /// hook, through the list.
    pub(super) fn on_link_frame(&mut self, p: PortId, id: PktId) {
        let mark = self.fx.after.len();
        self.models.on_frame(&mut self.fx, p, id);
        self.run_after(mark);
    }

    /// Clears the pause of (port, prio); returns whether it was paused.
    pub(crate) fn unpause(&mut self, p: PortId, prio: u8) -> bool {
        let mark = self.fx.after.len();
        let was = self.fx.unpause(p, prio);
        self.run_after(mark);
        was
    }

    /// The models' polls due at `t` (the PFC watchdog's), in the list's order, each step
    /// by step with what it asked of the world done after each step.
    pub(super) fn models_poll(&mut self, t: SimTime) {
        for tag in 0..FabricModels::COUNT {
            let mut step = Some(0);
            while let Some(s) = step {
                let mark = self.fx.after.len();
                step = self.models.poll_step(&mut self.fx, tag, t, s, &self.part.owned);
                self.run_after(mark);
            }
        }
    }

    /// A frame routed to a queue in a storm (or held by it when the storm began) is
    /// dropped and counted against its flow.
    pub(crate) fn storm_drop(&mut self, out: PortId, prio: u8, id: PktId) {
        self.fx.prio_stats[self.fx.slots.at(out.idx(), prio)].pfc_storm_drops += 1;
        let pkt = *self.fx.pool.get(id);
        self.count_drop(&pkt);
        self.fx.pool.free(id);
    }

    /// A data frame of `wire` bytes and priority `prio` starts on port `p`: the models'
    /// `data_started` (the caller tests `setup.port_hooks.data_started`).
    #[inline]
    pub(crate) fn data_started(&mut self, p: PortId, prio: u8, wire: u64) {
        let mark = self.fx.after.len();
        self.models.data_started(&mut self.fx, p, prio, wire);
        self.run_after(mark);
    }

    /// A data frame of `wire` bytes and priority `prio` left port `p`'s input buffer: the
    /// models' `input_freed` (the caller tests `setup.port_hooks.input_freed`).
    pub(crate) fn input_freed(&mut self, p: PortId, prio: u8, wire: u64) {
        let mark = self.fx.after.len();
        self.models.input_freed(&mut self.fx, p, prio, wire);
        self.run_after(mark);
    }

    /// A switch dropped a frame that had come in through `p` (no route, a dead port, the
    /// PFC watchdog): a data frame's input-buffer space is free again.
    #[inline]
    pub(crate) fn input_dropped(&mut self, p: PortId, pkt: &Packet) {
        if self.setup.port_hooks.input_freed && !pkt.is_control() {
            self.input_freed(p, pkt.prio, pkt.frame as u64 + self.fx.preamble as u64);
        }
    }

    /// A data frame of `wire` bytes and priority `prio` for port `p`'s input buffer was
    /// lost on the wire: the models' `data_lost` (the caller tests `setup.port_hooks.data_lost`).
    pub(crate) fn data_lost(&mut self, p: PortId, prio: u8, wire: u64) {
        let mark = self.fx.after.len();
        self.models.data_lost(&mut self.fx, p, prio, wire);
        self.run_after(mark);
    }

    /// A frame reached host port `p` of a run whose models act there (`setup.port_hooks.at_host`):
    /// the first model that takes it decides, else the NIC consumes it.
    pub(crate) fn host_arrival(&mut self, p: PortId, id: PktId) {
        let mark = self.fx.after.len();
        let taken = self.models.at_host(&mut self.fx, p, id);
        self.run_after(mark);
        if !taken {
            self.nic_consume(p, id);
        }
    }

    /// Flow `f`'s reaction point asked for a probe: the models' `probe_asked`.
    pub(crate) fn send_probe(&mut self, f: FlowId) {
        let flow = flow_info(&self.flows, f);
        let mark = self.fx.after.len();
        self.models.probe_asked(&mut self.fx, f, flow);
        self.run_after(mark);
    }

    /// A probe or its reply reached a host: the models' `probe_arrived` (a rate for the
    /// source's reaction point comes back as `After::Feedback`).
    pub(crate) fn on_probe(&mut self, pkt: &Packet) {
        let flow = flow_info(&self.flows, pkt.flow);
        let mark = self.fx.after.len();
        self.models.probe_arrived(&mut self.fx, pkt, flow);
        self.run_after(mark);
    }

    /// The receiver of flow `f` got a CE-marked data packet: counted, then the models'
    /// `marked_arrived` (a CNP to send).
    pub(crate) fn on_marked(&mut self, f: FlowId) {
        self.rx_stats[f.idx()].marked_rx += 1;
        if self.setup.port_hooks.marked_arrived {
            let flow = flow_info(&self.flows, f);
            let mark = self.fx.after.len();
            self.models.marked_arrived(&mut self.fx, f, flow);
            self.run_after(mark);
        }
    }
}

/// A flow's ends and priority, as its frames' headers say (what a model's hook is told
/// of a flow).
#[inline]
fn flow_info(flows: &[FlowHeader], f: FlowId) -> FlowInfo {
    let h = &flows[f.idx()];
    FlowInfo { src: h.src, dst: h.dst, prio: h.prio }
}
