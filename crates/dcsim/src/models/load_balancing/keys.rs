//! `[fabric.load_balancing]`: the mode of every switch and priority, the flowlet gap
//! and table, the senders' entropy range; and the check that a mode other than `ecmp`
//! has a choice to make somewhere (a topology with one path has none).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::keys::{at, kind, KeyCtx};
use crate::net::routing::{Graph, Routing};
use crate::plan::{NodeKind, Plan};
use crate::units::SimTime;

/// How a switch picks among the equal-cost next hops of a data frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Mode {
    /// One path per flow: a seeded hash of (flow, switch) (`net/routing.rs`).
    #[default]
    Ecmp,
    /// A random next hop per packet.
    Spray,
    /// The next hops in turn, per switch and destination host.
    SprayRr,
    /// A new random next hop when the flow was idle longer than `flowlet_gap`.
    Flowlet,
    /// The next hop in the lowest band of bytes queued for the frame's priority; the
    /// tied in turn per destination.
    Adaptive,
    /// A hash of (flow, the frame's entropy value, switch).
    Entropy,
}

/// The names of the modes, as the scenario writes them.
pub const MODES: &[(&str, Mode)] = &[
    ("ecmp", Mode::Ecmp),
    ("spray", Mode::Spray),
    ("spray_rr", Mode::SprayRr),
    ("flowlet", Mode::Flowlet),
    ("adaptive", Mode::Adaptive),
    ("entropy", Mode::Entropy),
];

impl Mode {
    pub fn name(self) -> &'static str {
        MODES.iter().find(|(_, m)| *m == self).map_or("?", |(n, _)| n)
    }
    fn parse(s: &str, path: &str) -> Result<Mode> {
        MODES.iter().find(|(n, _)| *n == s).map(|(_, m)| *m).ok_or_else(|| {
            let names: Vec<&str> = MODES.iter().map(|(n, _)| *n).collect();
            Error::scenario(path, format!("unknown mode '{s}' (one of {})", names.join(", ")))
        })
    }
}

/// `[[fabric.load_balancing.rule]]`: a mode for some switches and priorities.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleKeys {
    /// Switch names; a name ending in `*` is a prefix (`"agg*"`). Absent: every switch.
    pub switches: Option<Vec<String>>,
    /// Priorities 0..7. Absent: all eight.
    pub priorities: Option<Vec<i64>>,
    pub mode: String,
}

/// Per priority, the field that set a node's mode (`None`: `mode`; `Some(i)`: `rule[i]`).
pub type SetBy = [Option<usize>; 8];

/// A resolved rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// Names or prefixes (`"agg*"`); empty: every switch.
    pub switches: Vec<String>,
    /// Bit p: priority p.
    pub priorities: u8,
    pub mode: Mode,
}

/// Resolved `[fabric.load_balancing]`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadBalancingParams {
    pub mode: Mode,
    pub rules: Vec<Rule>,
    pub flowlet_gap: SimTime,
    pub flowlet_slots: u32,
    pub entropy_values: u32,
    /// `adaptive`: the width of an occupancy band, bytes (`None`: one data frame per
    /// next hop of the set).
    pub adaptive_band: Option<u64>,
}

impl Default for LoadBalancingParams {
    fn default() -> Self {
        LoadBalancingParams {
            mode: Mode::Ecmp,
            rules: Vec::new(),
            flowlet_gap: SimTime::us(10),
            flowlet_slots: 1024,
            entropy_values: 256,
            adaptive_band: None,
        }
    }
}

crate::params! {
    /// `[fabric.load_balancing]`.
    pub struct LoadBalancingKeys => LoadBalancingParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// how a switch picks a data frame's next hop among the equal-cost ones, for every switch and priority that no rule names
    mode: by_hand(String, "string", "`\"ecmp\"`", "ecmp, spray, spray_rr, flowlet, adaptive, entropy");
    /// `[[fabric.load_balancing.rule]]`: `switches` (names, or `prefix*`), `priorities`, `mode`; applied in order over `mode` (the last matching rule wins)
    rule: by_hand(Vec<RuleKeys>, "list of tables", "none", "");
    /// `flowlet`: idle time after which a flow's next frame may take a new path (a zero gap would make every packet a flowlet: that is `spray`)
    flowlet_gap: kind::Time, POSITIVE;
    /// `flowlet`: entries of each switch's flowlet table, a power of two at most 65536 (flows whose ids hash to one entry share it, as in a switch)
    flowlet_slots: kind::Count, at_least(1.0);
    /// `entropy`: the entropy values a sender cycles through, at most 256 (a frame's 8-bit entropy field)
    entropy_values: kind::Count, at_least(1.0);
    /// `adaptive`: queues are compared in bands of this many bytes (occupancy divided by it, rounded down); next hops in the lowest band tie and take turns per destination
    adaptive_band: kind::Opt<kind::Size>, POSITIVE, shown "one data frame per next hop";
}

/// The mode names and the rules.
fn build_more(k: &LoadBalancingKeys, p: &mut LoadBalancingParams, path: &str, _: &KeyCtx) -> Result<()> {
    if let Some(m) = &k.mode {
        p.mode = Mode::parse(m, &at(path, "mode"))?;
    }
    for (i, r) in k.rule.iter().flatten().enumerate() {
        let rp = format!("{path}.rule[{i}]");
        let mut priorities = 0u8;
        for (j, &x) in r.priorities.as_deref().unwrap_or(&[0, 1, 2, 3, 4, 5, 6, 7]).iter().enumerate() {
            if !(0..8).contains(&x) {
                return Err(Error::scenario(format!("{rp}.priorities[{j}]"), format!("a priority is 0..7 (got {x})")));
            }
            priorities |= 1 << x;
        }
        let switches = r.switches.clone().unwrap_or_default();
        p.rules.push(Rule { switches, priorities, mode: Mode::parse(&r.mode, &at(&rp, "mode"))? });
    }
    Ok(())
}

fn check_more(p: &LoadBalancingParams, path: &str, _: &KeyCtx) -> Result<()> {
    let s = p.flowlet_slots;
    if !(1..=1 << 16).contains(&s) || !s.is_power_of_two() {
        return Err(Error::scenario(at(path, "flowlet_slots"), format!("must be a power of two in 1..=65536 (got {s})")));
    }
    if !(1..=256).contains(&p.entropy_values) {
        return Err(Error::scenario(
            at(path, "entropy_values"),
            format!("must be in 1..=256, the values a frame's 8-bit entropy field holds (got {})", p.entropy_values),
        ));
    }
    Ok(())
}

impl LoadBalancingParams {
    /// Each node's mode per priority (hosts' stay `ecmp`), and for each node and priority
    /// the field that set it (`None`: `mode`; `Some(i)`: `rule[i]`). An unknown switch
    /// name is an error naming the rule's field.
    pub fn modes(&self, plan: &Plan, path: &str) -> Result<(Vec<[Mode; 8]>, Vec<SetBy>)> {
        let switch = |i: usize| plan.nodes[i].kind != NodeKind::Host;
        let mut modes: Vec<[Mode; 8]> = (0..plan.nodes.len()).map(|i| [if switch(i) { self.mode } else { Mode::Ecmp }; 8]).collect();
        let mut from = vec![[None; 8]; plan.nodes.len()];
        for (i, r) in self.rules.iter().enumerate() {
            let mut hit = vec![r.switches.is_empty(); plan.nodes.len()];
            for (j, name) in r.switches.iter().enumerate() {
                let mut any = false;
                for (k, n) in plan.nodes.iter().enumerate().filter(|&(k, _)| switch(k)) {
                    let m = match name.strip_suffix('*') {
                        Some(prefix) => n.name.starts_with(prefix),
                        None => n.name == *name,
                    };
                    hit[k] |= m;
                    any |= m;
                }
                if !any {
                    return Err(Error::scenario(format!("{path}.rule[{i}].switches[{j}]"), format!("no switch named '{name}'")));
                }
            }
            for k in (0..plan.nodes.len()).filter(|&k| hit[k] && switch(k)) {
                for p in (0..8).filter(|p| r.priorities & (1 << p) != 0) {
                    modes[k][p] = r.mode;
                    from[k][p] = Some(i);
                }
            }
        }
        Ok((modes, from))
    }
}

/// The routes of a plan as the world builds them (`sim/build.rs`), for the check below.
pub(crate) fn routing_of(plan: &Plan) -> Routing {
    let links = plan.node_links();
    let (mut node_ports, mut peer_node) = (Vec::with_capacity(links.len()), Vec::new());
    for (u, ls) in links.iter().enumerate() {
        let start = peer_node.len() as u32;
        for &k in ls {
            let l = &plan.links[k];
            peer_node.push(NodeId(if l.a as usize == u { l.b } else { l.a }));
        }
        node_ports.push(start..peer_node.len() as u32);
    }
    let is_host: Vec<bool> = plan.nodes.iter().map(|x| x.kind == NodeKind::Host).collect();
    let overrides = plan.route_overrides(&node_ports, &peer_node);
    let g = Graph { is_host: &is_host, node_ports: &node_ports, peer_node: &peer_node };
    Routing::build(&g, plan.seed, &overrides, plan.switch.up_down_root.map(NodeId))
}

/// The plan's checks that need the topology: switch names resolve, and every field that
/// sets a mode other than `ecmp` sets it on some switch with more than one next hop
/// toward some destination (else it changes nothing: a topology with one path).
pub fn validate(plan: &Plan) -> Result<()> {
    let Some(p) = &plan.fabric.load_balancing else { return Ok(()) };
    let path = "fabric.load_balancing";
    let (modes, from) = p.modes(plan, path)?;
    // The flowlet tables (16 B an entry, per switch using `flowlet`) and the round-robin
    // turns (2 B per switch and host, for `spray_rr` and `adaptive`'s ties) are the model's memory; the world's estimate
    // (`scenario/limits.rs`) does not know them.
    let hosts = plan.nodes.iter().filter(|n| n.kind == NodeKind::Host).count() as u64;
    let using = |m: Mode| modes.iter().filter(|ms| ms.contains(&m)).count() as u64;
    let turns = modes.iter().filter(|ms| ms.contains(&Mode::SprayRr) || ms.contains(&Mode::Adaptive)).count() as u64;
    let bytes = using(Mode::Flowlet) * p.flowlet_slots as u64 * 16 + turns * hosts * 2;
    if bytes > plan.memory_limit / 4 {
        let key = if using(Mode::Flowlet) > 0 { "flowlet_slots" } else { "mode" };
        return Err(Error::scenario(
            at(path, key),
            format!("the load balancer's tables need {bytes} B, over a quarter of the memory limit ({} B)", plan.memory_limit),
        ));
    }
    // Fields that set a mode other than ECMP somewhere, and whether a switch they set it
    // on has a choice.
    let mut fields: Vec<(Option<usize>, bool)> = Vec::new();
    let mut routing = None;
    for (k, m) in modes.iter().enumerate() {
        for (prio, &mode) in m.iter().enumerate() {
            if mode == Mode::Ecmp || plan.nodes[k].kind == NodeKind::Host {
                continue;
            }
            let field = from[k][prio];
            let routing = routing.get_or_insert_with(|| routing_of(plan));
            let choice = routing.multipath(NodeId(k as u32));
            match fields.iter_mut().find(|(f, _)| *f == field) {
                Some((_, c)) => *c |= choice,
                None => fields.push((field, choice)),
            }
        }
    }
    if let Some((field, _)) = fields.iter().find(|(_, c)| !c) {
        let (key, mode) = match field {
            None => (at(path, "mode"), p.mode),
            Some(i) => (format!("{path}.rule[{i}].mode"), p.rules[*i].mode),
        };
        return Err(Error::scenario(
            key,
            format!(
                "\"{}\" needs a choice of paths, but no switch it applies to has more than one next hop toward any destination",
                mode.name()
            ),
        ));
    }
    Ok(())
}
