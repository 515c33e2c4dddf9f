//! Link failures on the fabric: the steps (down, up, routes converged). The frames a
//! failed link loses are counted by the list's hooks (`model.rs`). Emptying a failed port's queues is the world's (`After::PortDown`,
//! `sim/link_down.rs`): it releases buffer and may send pause frames.

use super::{Action, LinkFaults, RouteInputs, Step};
use crate::event::EventQueue;
use crate::ids::PortId;
use crate::models::fabric_model::model_event;
use crate::net::fabric::Fabric;
use crate::net::routing::{Graph, Routing};
use crate::plan::Plan;
use crate::units::SimTime;

/// The event of step `a` of the failures (its tie-key number).
pub(super) const LINK_STEP: u8 = 14;

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
        let fails = &plan.fabric.link_faults.failures;
        if fails.is_empty() {
            return LinkFaults::default();
        }
        let conv = plan.fabric.link_faults.convergence.expect("validated plan: convergence is given with link failures");
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
                q.schedule(st.at, model_event::<Self>(LINK_STEP, 0, k as u32, 0));
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

impl LinkFaults {
    /// Step `k` of the failures is due. Returns the ports whose link goes down: the world
    /// takes each down in turn (`After::PortDown`, `sim/link_down.rs`).
    pub(crate) fn on_step(&mut self, fx: &mut Fabric, k: u32) -> Option<[PortId; 2]> {
        let now = fx.now();
        let st = self.steps[k as usize];
        self.log.push((now, k));
        match st.action {
            Action::Down => return Some(st.ports),
            Action::Up => {
                for p in st.ports {
                    let port = &mut fx.ports[p.idx()];
                    port.down = false;
                    port.up_at = now;
                }
                for p in st.ports {
                    fx.kick(p);
                }
            }
            Action::RoutesDown | Action::RoutesUp => {
                for p in st.ports {
                    self.routed_dead[p.idx()] = st.action == Action::RoutesDown;
                }
                let g = self.graph.as_ref().expect("failures keep their graph");
                let graph = Graph { is_host: &g.is_host, node_ports: &g.node_ports, peer_node: &g.peer_node };
                fx.routing = Routing::build_without(&graph, g.seed, &g.overrides, &self.routed_dead, g.up_down);
            }
        }
        None
    }
}
