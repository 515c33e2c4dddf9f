//! Load balancing at switches: how a switch picks among the equal-cost next hops of a
//! data frame, per switch and per priority (`[fabric.load_balancing]`, keys.rs).
//! `ecmp` is the routing's own per-flow hash (`net/routing.rs`) and the default; the
//! other modes pick per packet (`spray`, `spray_rr`, `adaptive`, `entropy`) or per
//! flowlet (`flowlet`). Control frames (ACK, NAK, CNP, feedback) keep the flow's ECMP
//! path. docs/models/load_balancing.md.
//!
//! Every draw is a stateless seeded hash of the frame and the switch (`rng.rs`), and the
//! state that is written (round-robin counters, flowlet tables) is the switch's own, so
//! a partition of a parallel run touches only its switches' state and the results do
//! not depend on the threads. A sender's entropy counter is its flow's, written by the
//! source NIC only.

mod keys;

pub(crate) use keys::routing_of;
pub use keys::{LoadBalancingKeys, LoadBalancingParams, Mode, Rule, MODES};

use crate::ids::{FlowId, NodeId, PortId};
use crate::models::fabric_model::{BuildCtx, FabricModel};
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, PktKind};
use crate::rng::{keyed, mix64, stream_key};

/// One entry of a switch's flowlet table: when a frame hashing to it last passed
/// (`u64::MAX`: never) and the next-hop index its flowlet took.
#[derive(Copy, Clone)]
struct Flowlet {
    last: u64,
    pick: u32,
}

/// The run-time state; inert (`on` false) unless some switch and priority use a mode
/// other than `ecmp`.
pub struct LoadBalancing {
    /// Some switch and priority use a mode other than `ecmp`: the one flag the
    /// forwarding path tests.
    pub on: bool,
    /// Some switch uses `entropy`: senders set their frames' entropy values.
    pub entropy_on: bool,
    /// Per node, per priority.
    modes: Vec<[Mode; 8]>,
    salt: u64,
    /// `spray_rr`, and `adaptive` among tied next hops: the turn of each (switch,
    /// destination host), at
    /// `rr_row[switch] + rr_col[host]` (one counter per switch and destination: a counter
    /// shared by destinations could pin a flow to one port when its frames and the
    /// others' reach the switch in a fixed interleaving).
    rr: Vec<u16>,
    rr_row: Vec<u32>,
    rr_col: Vec<u32>,
    /// `flowlet`: per node, the first entry of its table (`u32::MAX`: none).
    flowlet_at: Vec<u32>,
    flowlets: Vec<Flowlet>,
    flowlet_mask: u32,
    gap: u64,
    /// `entropy`: per flow, the next entropy value its sender puts on a frame.
    next_ev: Vec<u16>,
    ev_values: u16,
    /// Frames that met a choice of next hops, per mode.
    decisions: [u64; 6],
    /// Flowlets started (a frame that found its entry idle longer than the gap).
    flowlets_started: u64,
    /// `adaptive`: the width of an occupancy band in bytes (0: `frame` per next hop).
    band: u64,
    /// The largest data frame (`host.mtu` + headers), bytes.
    frame: u64,
    /// `adaptive`: frames sent elsewhere than the destination's turn (a lower band won).
    diverted: u64,
}

/// Index of a uniform draw among `n`.
#[inline(always)]
fn among(h: u64, n: usize) -> usize {
    ((h as u128 * n as u128) >> 64) as usize
}

impl LoadBalancing {
    /// The egress port of data frame `pkt` at switch `node` (`on` is true).
    #[inline]
    fn next_hop(&mut self, fx: &Fabric, node: NodeId, pkt: &Packet) -> PortId {
        let mode = self.modes[node.idx()][pkt.prio as usize & 7];
        if mode == Mode::Ecmp {
            return fx.routing.route(node, pkt.dst, pkt.flow.0);
        }
        let hops = fx.routing.next_hops(node, pkt.dst);
        let n = hops.len();
        if n < 2 {
            return hops.first().copied().unwrap_or(PortId::NONE);
        }
        self.decisions[mode as usize] += 1;
        let flow = pkt.flow.0 as u64;
        let i = match mode {
            Mode::Ecmp => unreachable!(),
            Mode::Spray => among(keyed(self.salt, &[flow << 32 | pkt.seq() as u64, fx.now().0, node.0 as u64]), n),
            Mode::SprayRr => {
                let c = &mut self.rr[(self.rr_row[node.idx()] + self.rr_col[pkt.dst.idx()]) as usize];
                let i = *c as usize % n;
                *c = if i + 1 == n { 0 } else { i as u16 + 1 };
                i
            }
            Mode::Flowlet => {
                let slot = self.flowlet_at[node.idx()] + (mix64(self.salt ^ flow) as u32 & self.flowlet_mask);
                let now = fx.now().0;
                let e = &mut self.flowlets[slot as usize];
                if e.last == u64::MAX || now - e.last > self.gap {
                    e.pick = keyed(self.salt, &[flow, now, node.0 as u64]) as u32;
                    self.flowlets_started += 1;
                }
                e.last = now;
                e.pick as usize % n
            }
            Mode::Adaptive => {
                // The lowest band of bytes queued for the frame's priority (a band is
                // `band` bytes wide, by default one data frame per next hop: what one
                // round of the inputs' frames can pile on one port); among the tied,
                // the first at or after this destination's turn, which then moves past
                // the one taken. Exact least-bytes pins flows (docs/models/load_balancing.md).
                let c = &mut self.rr[(self.rr_row[node.idx()] + self.rr_col[pkt.dst.idx()]) as usize];
                let first = *c as usize % n;
                let width = if self.band > 0 { self.band } else { self.frame * n as u64 };
                let band = |j: usize| fx.egress.queue(hops[j], pkt.prio).bytes / width;
                let (mut best, mut least) = (first, band(first));
                for k in 1..n {
                    let j = if first + k >= n { first + k - n } else { first + k };
                    let b = band(j);
                    if b < least {
                        (best, least) = (j, b);
                    }
                }
                *c = if best + 1 == n { 0 } else { best as u16 + 1 };
                self.diverted += (best != first) as u64;
                best
            }
            Mode::Entropy => among(keyed(self.salt ^ 0xE7, &[flow << 32 | node.0 as u64, pkt.entropy as u64]), n),
        };
        hops[i]
    }

    /// `entropy`: the entropy value of flow `f`'s next frame (its sender cycles through
    /// `entropy_values` values from a per-flow start).
    #[inline]
    fn next_entropy(&mut self, f: FlowId) -> u8 {
        let e = &mut self.next_ev[f.idx()];
        let v = *e;
        *e = if v + 1 == self.ev_values { 0 } else { v + 1 };
        v as u8
    }
}

impl FabricModel for LoadBalancing {
    fn new(ctx: &mut BuildCtx) -> Self {
        let plan = ctx.plan;
        let p = plan.fabric.load_balancing.as_ref();
        let modes = match p {
            Some(p) => p.modes(plan, "fabric.load_balancing").expect("validated plan: switch names resolve").0,
            None => Vec::new(),
        };
        let uses = |m: Mode| modes.iter().any(|ms| ms.contains(&m));
        let on = modes.iter().any(|ms| ms.iter().any(|&m| m != Mode::Ecmp));
        let salt = stream_key(plan.seed, "load_balancing");
        let (mut flowlet_at, mut flowlets, mut flowlet_mask) = (Vec::new(), Vec::new(), 0);
        if let (true, Some(p)) = (uses(Mode::Flowlet), p) {
            flowlet_mask = p.flowlet_slots - 1;
            for ms in &modes {
                flowlet_at.push(if ms.contains(&Mode::Flowlet) { flowlets.len() as u32 } else { u32::MAX });
                if ms.contains(&Mode::Flowlet) {
                    flowlets.extend(std::iter::repeat_n(Flowlet { last: u64::MAX, pick: 0 }, p.flowlet_slots as usize));
                }
            }
        }
        let (mut rr_row, mut rr_col, mut rr) = (Vec::new(), Vec::new(), Vec::new());
        if uses(Mode::SprayRr) || uses(Mode::Adaptive) {
            let hosts = ctx.nodes.iter().filter(|n| n.is_host).count() as u32;
            let (mut h, mut s) = (0u32, 0u32);
            for (ms, node) in modes.iter().zip(ctx.nodes) {
                rr_col.push(if node.is_host { h } else { 0 });
                h += node.is_host as u32;
                let row = !node.is_host && (ms.contains(&Mode::SprayRr) || ms.contains(&Mode::Adaptive));
                rr_row.push(if row { s * hosts } else { 0 });
                s += row as u32;
            }
            rr = vec![0; (s * hosts) as usize];
        }
        let entropy_on = uses(Mode::Entropy);
        let ev_values = p.map_or(1, |p| p.entropy_values as u16);
        let next_ev = if entropy_on {
            (0..plan.flows.len()).map(|f| (mix64(salt ^ 0xE5 ^ f as u64) % ev_values as u64) as u16).collect()
        } else {
            Vec::new()
        };
        LoadBalancing {
            on,
            entropy_on,
            rr,
            rr_row,
            rr_col,
            modes,
            salt,
            flowlet_at,
            flowlets,
            flowlet_mask,
            gap: p.map_or(0, |p| p.flowlet_gap.0),
            band: p.and_then(|p| p.adaptive_band).unwrap_or(0),
            frame: (plan.host.mtu + plan.host.header_bytes) as u64,
            next_ev,
            ev_values,
            decisions: [0; 6],
            flowlets_started: 0,
            diverted: 0,
        }
    }

    fn wants_route(&self) -> bool {
        self.on
    }

    /// A data frame's next hop by its switch's mode for its priority; control frames
    /// keep the flow's ECMP path.
    #[inline]
    fn route(&mut self, fx: &Fabric, node: NodeId, pkt: &Packet) -> Option<PortId> {
        (pkt.kind == PktKind::Data).then(|| self.next_hop(fx, node, pkt))
    }

    /// Per-packet modes spread a flow's frames over paths of different queues.
    fn reorders(&self) -> bool {
        self.on
    }

    fn wants_data_sent(&self) -> bool {
        self.entropy_on
    }

    /// `entropy`: the sender puts its flow's next entropy value on the frame.
    #[inline]
    fn data_sent<R: Fn() -> Option<u32>>(&mut self, fx: &mut Fabric, f: FlowId, id: crate::ids::PktId, _regulator: &R) {
        if self.entropy_on {
            fx.pool.get_mut(id).entropy = self.next_entropy(f);
        }
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if !self.on {
            return;
        }
        let mut decisions = serde_json::Map::new();
        for (name, m) in MODES.iter().filter(|(_, m)| *m != Mode::Ecmp) {
            decisions.insert(name.to_string(), self.decisions[*m as usize].into());
        }
        summary["load_balancing"] = serde_json::json!({
            "decisions": decisions,
            "flowlets": self.flowlets_started,
            "adaptive_diverted": self.diverted,
        });
    }

    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {
        for (a, b) in self.decisions.iter_mut().zip(other.decisions) {
            *a += b;
        }
        self.flowlets_started += other.flowlets_started;
        self.diverted += other.diverted;
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        keys::validate(plan)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("load_balancing.md", "load_balancing", <LoadBalancingKeys as crate::keys::Declared>::table()));
    }
}
