//! Link failures in the world: the steps (down, up, routes converged) and the frames a
//! failed link loses.

use super::{Action, LinkFaults, RouteInputs, Step};
use crate::event::{Event, EventQueue};
use crate::ids::{PktId, PortId};
use crate::net::packet::PktKind;
use crate::net::routing::{Graph, Routing};
use crate::plan::Plan;
use crate::sim::Simulation;
use crate::units::SimTime;

impl LinkFaults {
    /// The steps of the plan's failures, scheduled on `q`. `port_toward(a, b)` is the
    /// port of `a` on its first link to `b`, `peer(p)` the other end of port `p`.
    pub fn new(
        plan: &Plan,
        q: &mut EventQueue,
        graph: RouteInputs,
        port_toward: impl Fn(u32, u32) -> PortId,
        peer: impl Fn(PortId) -> PortId,
    ) -> LinkFaults {
        let fails = &plan.switch.link_failures;
        if fails.is_empty() {
            return LinkFaults::default();
        }
        let conv = plan.switch.convergence.expect("validated plan: convergence is given with link failures");
        let mut steps = Vec::new();
        for (i, f) in fails.iter().enumerate() {
            let pa = port_toward(f.a, f.b);
            let ports = [pa, peer(pa)];
            let mut add = |at: SimTime, action| steps.push(Step { at, ports, action, failure: i as u32 });
            add(f.down, Action::Down);
            add(f.down + conv, Action::RoutesDown);
            if let Some(up) = f.up {
                add(up, Action::Up);
                add(up + conv, Action::RoutesUp);
            }
        }
        for (k, st) in steps.iter().enumerate() {
            if st.at <= plan.duration {
                q.schedule(st.at, Event::Link(k as u32));
            }
        }
        LinkFaults {
            active: true,
            steps,
            routed_dead: vec![false; graph.peer_node.len()],
            graph: Some(graph),
            lost_by_flow: vec![0; plan.flows.len()],
            ..Default::default()
        }
    }
}

impl Simulation {
    /// Step `k` of the link failures is due.
    pub(crate) fn on_link_step(&mut self, k: u32) {
        let now = self.now_t();
        let st = self.link_faults.steps[k as usize];
        self.link_faults.log.push((now, k));
        match st.action {
            Action::Down => {
                for p in st.ports {
                    self.port_down(p);
                }
            }
            Action::Up => {
                for p in st.ports {
                    let port = &mut self.fx.ports[p.idx()];
                    port.down = false;
                    port.up_at = now;
                }
                for p in st.ports {
                    self.kick(p);
                }
            }
            Action::RoutesDown | Action::RoutesUp => {
                for p in st.ports {
                    self.link_faults.routed_dead[p.idx()] = st.action == Action::RoutesDown;
                }
                let g = self.link_faults.graph.as_ref().expect("failures keep their graph");
                let graph = Graph { is_host: &g.is_host, node_ports: &g.node_ports, peer_node: &g.peer_node };
                self.fx.routing = Routing::build_without(&graph, g.seed, &g.overrides, &self.link_faults.routed_dead, g.up_down);
            }
        }
    }

    /// Port `p`'s link fails: its pauses are forgotten (the link's PFC state is gone),
    /// its control frames and queued data frames are dropped.
    fn port_down(&mut self, p: PortId) {
        self.fx.ports[p.idx()].down = true;
        for prio in 0..8u8 {
            let port = &mut self.fx.ports[p.idx()];
            port.pause_gen[prio as usize] = port.pause_gen[prio as usize].wrapping_add(1);
            self.unpause(p, prio);
        }
        self.flush_down_port(p);
        for prio in 0..8u8 {
            while self.fx.egress.queue(p, prio).pkts > 0 {
                let item = self.dequeue_egress(p, prio);
                self.release_ingress(self.ingress_of(p, &item), prio, item.frame as u64);
                self.link_faults.dropped_at_down_port += 1;
                self.lose_data(item.id);
            }
        }
    }

    /// Drops the control frames waiting at a down port (PFC frames the switch sends out
    /// of it, ACKs routed to it before convergence).
    #[cold]
    pub(crate) fn flush_down_port(&mut self, p: PortId) {
        while let Some(id) = self.fx.ports[p.idx()].ctrl.pop(&self.fx.pool) {
            self.link_faults.control_dropped += 1;
            self.fx.pool.free(id);
        }
    }

    /// Whether a frame must not be sent out of `out` (its link is down, or the switch has
    /// no route): it is dropped and counted.
    #[inline]
    pub(crate) fn link_unusable(&self, out: PortId) -> bool {
        out == PortId::NONE || self.fx.ports[out.idx()].down
    }

    /// A frame routed to an unusable port (`link_unusable`) is dropped.
    #[cold]
    pub(crate) fn drop_at_unusable(&mut self, out: PortId, id: PktId) {
        let kind = self.fx.pool.get(id).kind;
        if kind != PktKind::Data {
            self.link_faults.control_dropped += 1;
            self.fx.pool.free(id);
            return;
        }
        if out == PortId::NONE {
            self.link_faults.dropped_no_route += 1;
        } else {
            self.link_faults.dropped_at_down_port += 1;
        }
        self.lose_data(id);
    }

    /// Whether the frame `id` arriving at port `p` was on the wire when the link failed
    /// (it arrives while the link is down, or it left before the link last came up);
    /// such a frame is lost and counted. The time it left is its arrival time less the
    /// link delay and its serialization at the transmitter's rate.
    #[inline]
    pub(crate) fn lost_on_wire(&mut self, p: PortId, id: PktId) -> bool {
        let port = &self.fx.ports[p.idx()];
        if !port.down && port.up_at == SimTime::ZERO {
            return false;
        }
        let lost = port.down || {
            let wire = self.fx.pool.get(id).frame as u64 + self.fx.preamble as u64;
            let tx = self.fx.ports[port.peer.idx()].line.tx_time(wire);
            let left = self.now_t().0.saturating_sub(port.delay.0 + tx.0);
            left < port.up_at.0
        };
        if lost {
            self.link_faults.lost_in_flight += 1;
            if self.fx.pool.get(id).kind == PktKind::Data {
                if self.ib.on {
                    let k = *self.fx.pool.get(id);
                    self.ib_on_lost(p, k.prio, k.frame as u64 + self.fx.preamble as u64);
                }
                self.lose_data(id);
            } else {
                self.fx.pool.free(id);
            }
        }
        lost
    }

    /// A frame of a data queue lost to a link failure: a data frame is counted against
    /// its flow (an ACK queued with data, `host.ack_queue = "data"`, is not).
    fn lose_data(&mut self, id: PktId) {
        let pkt = *self.fx.pool.get(id);
        if self.count_drop(&pkt) {
            self.link_faults.lost_by_flow[pkt.flow.idx()] += 1;
        }
        self.fx.pool.free(id);
    }
}
