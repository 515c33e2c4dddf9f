//! ECN marking and congestion detection as a fabric model (`fabric_models!`): its hooks,
//! its `congestion` and `congestion_intervals` tables, its summary and its merge.

use super::marking::Marking;
use crate::ids::{FlowId, NodeId, PortId};
use crate::models::fabric_model::{BuildCtx, Enqueued, FabricModel, FlowEnds, Setting, Tables};
use crate::models::rcm::detection::victim_by_time;
use crate::net::fabric::Fabric;
use crate::net::queue::Queued;
use crate::results::{Column, Table};

fn role(root_ps: u64, victim_ps: u64) -> String {
    if victim_by_time(root_ps, victim_ps) { "victim" } else { "root" }.to_string()
}

impl Marking {
    /// Every (switch port, priority) that was ever congested or marked, with the flows
    /// (source -> destination) seen crossing it while congested.
    fn points(&self, fx: &Fabric, ends: FlowEnds) -> Table {
        let name = |n: NodeId| fx.nodes[n.idx()].name.clone();
        let mut pairs: Vec<Vec<u32>> = vec![Vec::new(); self.cps.len()];
        for &(ci, f) in &self.pairs {
            pairs[ci as usize].push(f);
        }
        let mut t = Table::default();
        let (mut node, mut port, mut peer, mut prio, mut roles, mut who) = (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut cong, mut root, mut victim, mut nint, mut marked, mut crossed, mut pid) =
            (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for (ci, cp) in self.cps.iter().enumerate() {
            if cp.intervals == 0 && cp.marked == 0 {
                continue;
            }
            let (pi, q) = fx.slots.port_prio(ci);
            let p = &fx.ports[pi];
            pid.push(pi as u64);
            node.push(name(p.node));
            port.push(p.local as u64);
            peer.push(name(fx.ports[p.peer.idx()].node));
            prio.push(q as u64);
            cong.push(cp.congested_ps());
            root.push(cp.root_ps);
            victim.push(cp.victim_ps);
            roles.push(role(cp.root_ps, cp.victim_ps));
            nint.push(cp.intervals);
            marked.push(cp.marked);
            crossed.push(cp.pkts_while_congested);
            let mut names: Vec<String> = pairs[ci]
                .iter()
                .map(|&f| {
                    let (src, dst) = ends(FlowId(f));
                    format!("{}->{}", name(src), name(dst))
                })
                .collect();
            names.sort();
            names.dedup();
            who.push(names.join(" "));
        }
        t.push("port_id", Column::U64(pid));
        t.push("node", Column::Str(node.into()));
        t.push("port", Column::U64(port));
        t.push("peer", Column::Str(peer.into()));
        t.push("priority", Column::U64(prio));
        t.push("role", Column::Str(roles.into()));
        t.push("congested_ps", Column::U64(cong));
        t.push("root_ps", Column::U64(root));
        t.push("victim_ps", Column::U64(victim));
        t.push("intervals", Column::U64(nint));
        t.push("marked", Column::U64(marked));
        t.push("pkts_while_congested", Column::U64(crossed));
        t.push("pairs", Column::Str(who.into()));
        t
    }

    /// Each congestion interval of a (port, priority), as kept (`stats.max_rows`).
    fn interval_table(&self, fx: &Fabric) -> Table {
        let name = |n: NodeId| fx.nodes[n.idx()].name.as_str();
        let iv = self.intervals.rows();
        let mut t = Table::default();
        t.push("node", Column::Str(iv.iter().map(|i| name(fx.ports[i.port as usize].node)).collect()));
        t.push("port", Column::U64(iv.iter().map(|i| fx.ports[i.port as usize].local as u64).collect()));
        t.push("peer", Column::Str(iv.iter().map(|i| name(fx.ports[fx.ports[i.port as usize].peer.idx()].node)).collect()));
        t.push("priority", Column::U64(iv.iter().map(|i| i.prio as u64).collect()));
        t.push("start_ps", Column::U64(iv.iter().map(|i| i.start.0).collect()));
        t.push("end_ps", Column::U64(iv.iter().map(|i| i.end.0).collect()));
        t.push("role", Column::Str(iv.iter().map(|i| role(i.root_ps, i.victim_ps)).collect()));
        t
    }
}

impl FabricModel for Marking {
    /// Congested intervals still open end with the run.
    fn end_run(&mut self, fx: &Fabric, end: crate::units::SimTime) {
        self.close(fx, end);
        self.intervals.finish();
    }

    fn shift_times(&mut self, by: crate::units::SimTime) {
        self.red.iter_mut().for_each(|r| r.shift_times(by));
        for cp in self.cps.iter_mut() {
            cp.last_eval = cp.last_eval.later(by);
            cp.since = cp.since.later(by);
        }
        if let Some(d) = self.demand.as_mut() {
            d.shift_times(by);
        }
    }

    fn wants_enqueued(&self) -> bool {
        self.at_enqueue
    }

    fn wants_dequeued(&self) -> bool {
        self.active
    }

    #[inline]
    fn dequeued(&mut self, fx: &mut Fabric, out: PortId, prio: u8, item: &Queued, q_after: u64) {
        if self.active {
            self.on_dequeue(fx, out, prio, item, q_after);
        }
    }

    #[inline]
    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, fx: &mut Fabric, e: &Enqueued, _src: &S) {
        if self.at_enqueue {
            self.on_enqueue(fx, e.out, e.prio, e.id, e.in_local, e.q_before);
        }
    }

    fn new(ctx: &mut BuildCtx) -> Self {
        let port_nodes: Vec<u32> = ctx.ports.iter().map(|p| p.node.0).collect();
        let radix: Vec<u32> = ctx.ports.iter().map(|p| ctx.nodes[p.node.idx()].ports.len() as u32).collect();
        Marking::new(ctx.plan, ctx.port_rates, &port_nodes, &radix, ctx.slots)
    }

    /// New RED thresholds during a run (seed 004's reconfiguration).
    fn change(&mut self, fx: &Fabric, s: &Setting, apply: bool) -> Option<crate::Result<()>> {
        match *s {
            Setting::Red { kmin, kmax, pmax, ports } if apply => {
                self.apply_thresholds(fx, super::marker::Thresholds { kmin, kmax, pmax }, ports);
                Some(Ok(()))
            }
            Setting::Red { kmin, kmax, pmax, ports } => Some(self.check_thresholds(fx, kmin, kmax, pmax, ports)),
        }
    }

    fn red_thresholds(&self, p: u32) -> Option<(u64, u64, f64)> {
        self.thresholds(p)
    }

    fn tables(&self, fx: &Fabric, ends: FlowEnds, out: &mut Tables) {
        out.push(("congestion".to_string(), self.points(fx, ends)));
        out.push(("congestion_intervals".to_string(), self.interval_table(fx)));
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        summary["outputs"]["congestion_intervals_not_kept"] = serde_json::json!(self.intervals.dropped());
    }

    /// Each port's congestion points are its partition's; the (point, flow) pairs and
    /// the intervals are pooled.
    fn merge(&mut self, other: &mut Self, fx: &Fabric, theirs: &dyn Fn(NodeId) -> bool) {
        if !self.cps.is_empty() {
            for p in 0..fx.ports.len() {
                if theirs(fx.ports[p].node) {
                    let r = fx.slots.of_port(p);
                    self.cps[r.clone()].copy_from_slice(&other.cps[r]);
                    self.port[p].congested = other.port[p].congested;
                }
            }
        }
        self.pairs.extend(other.pairs.drain());
        self.intervals.absorb(&mut other.intervals);
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("ecn.md", "ecn", <super::keys::EcnKeys as crate::keys::Declared>::table()));
    }
}
