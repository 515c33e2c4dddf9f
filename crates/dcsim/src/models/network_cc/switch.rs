//! The NetworkCC congestion point in the world: per egress (port, priority) its RCP
//! state, the trigger (a data frame joins a queue above T_sn, explicit-rate.md 9.3; with
//! `trigger = "rate"` also any data frame while the port's RCP rate is below its line
//! rate) and
//! the notification frame to the frame's source. The frame is a real control frame
//! routed from the switch like a QCN CNM; nothing here reads or writes a sender's state:
//! the source is the frame's flow header.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::rcp::Rcp;
use super::{NetworkCcPlan, SnRule, SnTrigger};
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::models::ecn::marker::thresholds_for;
use crate::models::Feedback;
use crate::net::fabric::Fabric;
use crate::net::packet::Packet;
use crate::net::queue::FxHasher;
use crate::plan::Plan;
use crate::units::{Rate, SimTime};

pub(crate) struct NetCcState {
    /// Whether `[switch.network_cc]` is configured.
    pub active: bool,
    plan: NetworkCcPlan,
    /// Per port: whether its switch sends notifications.
    on: Vec<bool>,
    /// Per port: T_sn (bytes).
    threshold: Vec<u64>,
    /// Per (port, priority): the RCP rate.
    rcp: Vec<Rcp>,
    /// RCP's d.
    rtt: SimTime,
    /// When each (port, flow) last sent a notification.
    last: HashMap<(u32, u32), SimTime, BuildHasherDefault<FxHasher>>,
    /// Notifications sent.
    pub sent: u64,
}

impl NetCcState {
    /// `port_node_is_switch[p]`: the switch node of port `p`, if it belongs to one.
    pub fn new(plan: &Plan, port_rates: &[Rate], port_switch: &[Option<u32>], base_rtt: SimTime) -> Self {
        let Some(p) = plan.fabric.netcc.clone() else {
            return NetCcState {
                active: false,
                plan: NetworkCcPlan::default(),
                on: Vec::new(),
                threshold: Vec::new(),
                rcp: Vec::new(),
                rtt: SimTime::ZERO,
                last: HashMap::default(),
                sent: 0,
            };
        };
        let on = port_switch.iter().map(|s| s.is_some_and(|n| p.nodes.as_ref().is_none_or(|list| list.contains(&n)))).collect();
        let threshold =
            port_rates.iter().map(|r| p.threshold.unwrap_or_else(|| thresholds_for(&plan.fabric.marking.ecn, *r).kmin)).collect();
        let rcp = port_rates.iter().flat_map(|r| std::iter::repeat_n(Rcp::new(*r), 8)).collect();
        // d: as configured, else the largest base RTT (at least 1 ns).
        let rtt = p.rcp.rtt.unwrap_or(base_rtt).max(SimTime::ns(1));
        NetCcState { active: true, plan: p, on, threshold, rcp, rtt, last: HashMap::default(), sent: 0 }
    }
}

impl NetCcState {
    /// Data frame `id` joined egress (`out`, `prio`), which held `q_before` bytes.
    pub fn on_enqueue(&mut self, fx: &mut Fabric, out: PortId, prio: u8, id: PktId, q_before: u64, src_of: impl Fn(FlowId) -> NodeId) {
        let n = self;
        if !n.on[out.idx()] || n.plan.priorities & (1 << prio) == 0 {
            return;
        }
        let now = fx.q.now();
        let (flow, frame) = {
            let pkt = fx.pool.get(id);
            (pkt.flow, pkt.frame as u32)
        };
        let ci = out.idx() * 8 + prio as usize;
        let rate = fx.ports[out.idx()].rate();
        // The input rate in wire bytes, as the line rate it is compared with.
        n.rcp[ci].on_arrival(&n.plan.rcp, n.rtt, rate, now, frame + fx.preamble, q_before);
        let qlen = q_before + frame as u64;
        // Rate trigger: the port limits its flows while R is below its line rate.
        let limiting = n.plan.trigger == SnTrigger::Rate && n.rcp[ci].rate() < rate;
        if qlen <= n.threshold[out.idx()] && !limiting {
            return;
        }
        let key = (out.0, flow.0);
        if n.last.get(&key).is_some_and(|t| now - *t < n.plan.interval) {
            return;
        }
        n.last.insert(key, now);
        n.sent += 1;
        let fb = Feedback::SwitchCnp {
            cp: ci as u32,
            rate: match n.plan.rule() {
                SnRule::Rcp => Some(n.rcp[ci].rate()),
                SnRule::Cnp => None,
            },
        };
        let node = fx.ports[out.idx()].node;
        let src = src_of(flow);
        let id = fx.pool.alloc(Packet::feedback(flow, src, ci as u32, fb, n.plan.frame));
        let back = fx.routing.route(node, src, flow.0);
        let pool = &mut fx.pool;
        fx.ports[back.idx()].ctrl.push(pool, id);
        fx.kick(back);
    }
}

impl crate::models::fabric_model::FabricModel for NetCcState {
    fn shift_times(&mut self, by: SimTime) {
        self.last.values_mut().for_each(|t| *t = t.later(by));
        self.rcp.iter_mut().for_each(|r| r.shift_times(by));
    }

    fn wants_enqueued(&self) -> bool {
        self.active
    }

    #[inline]
    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, fx: &mut Fabric, e: &crate::models::fabric_model::Enqueued, src: &S) {
        if self.active && e.pkt.kind == crate::net::packet::PktKind::Data {
            self.on_enqueue(fx, e.out, e.prio, e.id, e.q_before, src);
        }
    }

    fn new(ctx: &mut crate::models::fabric_model::BuildCtx) -> Self {
        let port_switch: Vec<Option<u32>> = ctx.ports.iter().map(|p| (!ctx.nodes[p.node.idx()].is_host).then_some(p.node.0)).collect();
        NetCcState::new(ctx.plan, ctx.port_rates, &port_switch, ctx.base_rtt)
    }

    /// NetworkCC runs only (other summaries unchanged).
    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if self.active {
            summary["network_cc"] = serde_json::json!({ "notifications_sent": self.sent });
        }
    }

    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(crate::ids::NodeId) -> bool) {
        self.sent += other.sent;
    }

    fn check_plan(plan: &crate::plan::Plan, _: &crate::keys::KeyCtx) -> crate::Result<()> {
        super::keys::check_plan(plan)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("network_cc.md", "network_cc", <super::NetworkCcKeys as crate::keys::Declared>::table()));
        out.push(("network_cc.md", "network_cc_switch", <super::NetworkCcSwitchKeys as crate::keys::Declared>::table()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::sim::Simulation;

    /// Frames arriving back to back at exactly the line rate, with a standing queue q:
    /// the input rate y equals C, so each interval multiplies R by 1 - beta q / (d C)
    /// alone. Counting frame bytes without the 20 B of preamble/IFG that the line rate
    /// includes would see y below C and add alpha (C - y) / C (0.19 % per interval here).
    #[test]
    fn the_input_rate_counts_wire_bytes_as_the_line_rate_does() {
        let text = "[simulation]\nduration = \"1ms\"\n[topology]\ntype = \"star\"\nhosts = 2\nrate = \"25Gbps\"\ndelay = \"1us\"\n\
                    [switch.network_cc]\npriorities = [3]\nthreshold = \"1MB\"\nrtt = \"10us\"\n\
                    [[traffic]]\ntype = \"flows\"\nflows = [{ src = \"h1\", dst = \"h0\", size = \"1KB\" }]\n";
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        assert_eq!(s.fx.preamble, 20);
        let sw = s.fx.nodes.iter().position(|n| !n.is_host).unwrap();
        let out = PortId(s.fx.nodes[sw].ports.start);
        assert_eq!(s.fx.ports[out.idx()].rate(), Rate::gbps(25));
        let dst = s.fx.ports[s.fx.ports[out.idx()].peer.idx()].node;
        let (frame, q) = (1048u32, 2_000u64);
        // 1068 wire bytes at 25 Gb/s (320 ps per byte): one frame every 341.76 ns, an
        // update every 30 frames (10.25 us >= d = 10 us).
        let gap = SimTime((frame as u64 + 20) * 320);
        let mut after = Vec::new();
        for k in 0..=30 * 6u64 {
            s.fx.q.set_now(SimTime(k * gap.0));
            let id = s.fx.pool.alloc(Packet::data(FlowId(0), dst, 0, 1000, frame, 3, SimTime::ZERO));
            let src = s.flows[0].src;
            s.models.netcc.on_enqueue(&mut s.fx, out, 3, id, q, |_| src);
            if k > 0 && k % 30 == 0 {
                after.push(s.models.netcc.rcp[out.idx() * 8 + 3].rate().0 as f64);
            }
        }
        // From the second update on every interval holds exactly 30 frames in 30 gaps.
        let step = 1.0 - (q * 8) as f64 / (10e-6 * 25e9);
        for w in after.windows(2) {
            assert!((w[1] / w[0] - step).abs() < 1e-6, "R {} -> {}: ratio {} vs {step}", w[0], w[1], w[1] / w[0]);
        }
    }
}
