//! Turns a deserialized `Scenario` into a `Plan`: parses units, applies defaults,
//! builds the topology and the flows.

use crate::error::{Error, Result};
use crate::keys::KeyCtx;
use crate::models::CcPlan;
use crate::plan::*;
use crate::rng::Rng;
use crate::scenario::cdf::{parse_cdf, CdfReading};
use crate::scenario::files::{in_file, FileScope};
use crate::scenario::schema::*;
use crate::scenario::topology::{self, NamedLink, Topology};
use crate::scenario::traffic::{self, FlowTemplate, HostIndex};
use crate::scenario::{limits, validate};
use crate::units::SimTime;

fn to_u32(v: u64, path: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::scenario(path, format!("{v} is too large")))
}

pub(super) fn priority(v: Option<i64>, default: u8, path: &str) -> Result<u8> {
    match v {
        None => Ok(default),
        Some(p) if (0..=7).contains(&p) => Ok(p as u8),
        Some(p) => Err(Error::scenario(path, format!("must be 0..=7 (got {p})"))),
    }
}

fn priority_mask(list: &[i64], path: &str) -> Result<u8> {
    use crate::keys::kind::{Kind, Priorities, ANY};
    Priorities::parse(&list.to_vec(), &ANY, path)
}

pub use crate::keys::kind::priority_list;

/// `simulation.fast_forward` and its two settings (which need it on).
fn fast_forward(s: &crate::scenario::schema::SimulationSpec) -> Result<Option<crate::plan::FastForwardPlan>> {
    let on = s.fast_forward.unwrap_or(false);
    if !on {
        for (set, key) in [
            (s.fast_forward_tolerance.is_some(), "tolerance"),
            (s.fast_forward_window.is_some(), "window"),
            (s.fast_forward_interval.is_some(), "interval"),
        ] {
            if set {
                return Err(Error::scenario(
                    format!("simulation.fast_forward_{key}"),
                    "has no effect without simulation.fast_forward = true",
                ));
            }
        }
        return Ok(None);
    }
    let tolerance = s.fast_forward_tolerance.unwrap_or(0.01);
    if !(tolerance > 0.0 && tolerance <= 0.5) {
        return Err(Error::scenario("simulation.fast_forward_tolerance", format!("must be a fraction in (0, 0.5], got {tolerance}")));
    }
    let window = s.fast_forward_window.unwrap_or(4);
    if window < 2 {
        return Err(Error::scenario("simulation.fast_forward_window", format!("must be at least 2 iterations, got {window}")));
    }
    let interval = match &s.fast_forward_interval {
        Some(t) => t.time("simulation.fast_forward_interval")?,
        None => SimTime::us(100),
    };
    if interval.0 == 0 {
        return Err(Error::scenario("simulation.fast_forward_interval", "must be > 0"));
    }
    Ok(Some(crate::plan::FastForwardPlan { tolerance, window, interval }))
}

/// Builds the plan. `default_name` is used when the file has no `name`.
pub fn build(s: &Scenario, files: &FileScope, default_name: &str) -> Result<Plan> {
    let duration = s.simulation.duration.time("simulation.duration")?;
    let mut plan = Plan::new(s.name.as_deref().unwrap_or(default_name), duration);
    plan.seed = s.simulation.seed.unwrap_or(1);
    plan.threads = s.simulation.threads.unwrap_or(1);
    plan.fast_forward = fast_forward(&s.simulation)?;
    plan.host = host(&s.host)?;
    plan.switch = switch(&s.switch)?;
    plan.stats = stats(&s.stats, duration)?;
    plan.memory_limit = match &s.simulation.memory_limit {
        Some(v) => v.bytes("simulation.memory_limit")?,
        None => limits::default_limit()?,
    };
    plan.max_events = match s.simulation.max_events {
        Some(0) => return Err(Error::scenario("simulation.max_events", "must be > 0")),
        Some(n) => n,
        None => crate::scenario::work::default_limit()?,
    };
    // Before the topology is built: its size from its parameters.
    if let Some((hosts, switches, links)) = limits::topology_counts(&s.topology) {
        let switch_ports = links.saturating_mul(2).saturating_sub(hosts);
        let max_wire = validate::max_wire(&plan) as u64;
        let packets = limits::buffer_packets(&plan.switch.buffer, switches, switch_ports, max_wire);
        let (sample_rows, _) = limits::output_rows(&plan, switch_ports, 0);
        limits::Footprint {
            hosts,
            switches,
            links,
            packets,
            sample_rows,
            worlds: plan.threads.min(validate::MAX_THREADS) as u64,
            ..Default::default()
        }
        .check(plan.memory_limit, "topology")?;
    }
    let topo = build_topology(&s.topology, files)?;
    plan.nodes = topo.nodes;
    plan.links = topo.links;
    plan.switch.rate_schedule = rate_schedule(&s.switch, &plan)?;
    plan.switch.routes = static_routes(&s.switch, &plan)?;
    plan.switch.up_down_root = up_down_root(&s.switch, &plan)?;
    let fabric = s.fabric.build(&validate::key_ctx(&plan))?;
    plan.fabric = fabric;
    let ctx = KeyCtx { line_rate: validate::min_host_rate(&plan), cell: plan.switch.cell.map(u64::from), nodes: &[] };
    if let Some(l) = &s.switch.l2cm {
        plan.switch.l2cm = l.build("switch.l2cm", &ctx)?;
    }
    plan.ccs = vec![match &s.host.cc {
        Some(c) => c.build("host.cc", &ctx)?,
        None => CcPlan::None(()),
    }];
    (plan.flows, plan.storage, plan.jobs) = build_traffic(&s.traffic, &s.traffic_common, &plan, files)?;
    plan.group_names = group_names(&s.traffic, &s.traffic_common)?;
    // Each `[[traffic]]` entry with its own `cc` appends it to `ccs`; its flows use it.
    for (gi, e) in s.traffic_common.iter().enumerate() {
        if let Some(c) = &e.cc {
            let k = plan.ccs.len() as u32;
            plan.ccs.push(c.build(&format!("traffic[{gi}].cc"), &ctx)?);
            for f in plan.flows.iter_mut().filter(|f| f.group == gi as u32) {
                f.cc = k;
            }
        }
    }
    crate::models::uet::default_cc(&mut plan, s.host.cc.is_some(), &ctx)?;
    Ok(plan)
}

fn host(h: &HostSpec) -> Result<HostPlan> {
    let mut p = HostPlan::default();
    if let Some(v) = &h.mtu {
        p.mtu = to_u32(v.bytes("host.mtu")?, "host.mtu")?;
    }
    if let Some(v) = &h.header {
        p.header_bytes = to_u32(v.bytes("host.header")?, "host.header")?;
    }
    if let Some(v) = h.preamble_ifg {
        p.preamble_ifg = v;
    }
    if let Some(v) = &h.ack_bytes {
        p.ack_bytes = to_u32(v.bytes("host.ack_bytes")?, "host.ack_bytes")?;
    }
    if let Some(v) = h.ack_every {
        p.ack_every = v;
    }
    if let Some(v) = &h.ack_interval {
        p.timing.ack_interval = v.time("host.ack_interval")?;
    }
    if let Some(v) = &h.doorbell {
        p.timing.doorbell = v.time("host.doorbell")?;
    }
    if let Some(v) = &h.rto {
        p.rto = v.time("host.rto")?;
    }
    if let Some(v) = &h.retransmission {
        p.selective_repeat = match v.as_str() {
            "go_back_n" => false,
            "selective" => true,
            other => {
                return Err(Error::scenario("host.retransmission", format!("must be \"go_back_n\" or \"selective\" (got \"{other}\")")))
            }
        };
    }
    if let Some(v) = h.ooo_window {
        p.ooo_window = v;
    }
    if let Some(v) = h.reorder_tolerance {
        p.reorder_tolerance = v;
    }
    if let Some(v) = &h.ack_queue {
        p.acks_in_data = match v.as_str() {
            "control" => false,
            "data" => true,
            other => return Err(Error::scenario("host.ack_queue", format!("must be \"control\" or \"data\" (got \"{other}\")"))),
        };
    }
    if let Some(t) = &h.tcp {
        use crate::keys::Keys;
        p.tcp = t.build("host.tcp", &KeyCtx::NONE)?;
    }
    Ok(p)
}

/// Messages per flow of an entry: its `messages`, or a latency probe's `iters`.
fn traffic_messages(e: &TrafficSpec, c: &TrafficCommon) -> Option<u32> {
    match e {
        TrafficSpec::IbWriteLat(s) => Some(s.iters.unwrap_or(1000)),
        _ => c.messages,
    }
}

/// Resolves `[switch] rate_schedule` against the topology's node names and links.
fn rate_schedule(s: &SwitchSpec, plan: &Plan) -> Result<Vec<RateStep>> {
    let mut out = Vec::new();
    for (i, st) in s.rate_schedule.iter().flatten().enumerate() {
        let p = format!("switch.rate_schedule[{i}]");
        let find = |name: &str, key: &str| {
            plan.nodes
                .iter()
                .position(|n| n.name == name)
                .map(|k| k as u32)
                .ok_or_else(|| Error::scenario(format!("{p}.{key}"), format!("no node named '{name}'")))
        };
        let (node, peer) = (find(&st.node, "node")?, find(&st.peer, "peer")?);
        if plan.nodes[node as usize].kind != NodeKind::Switch {
            return Err(Error::scenario(format!("{p}.node"), format!("'{}' is not a switch", st.node)));
        }
        if !plan.links.iter().any(|l| (l.a == node && l.b == peer) || (l.a == peer && l.b == node)) {
            return Err(Error::scenario(format!("{p}.peer"), format!("'{}' has no link to '{}'", st.node, st.peer)));
        }
        let rate = st.rate.rate(&format!("{p}.rate"))?;
        if rate.0 == 0 {
            return Err(Error::scenario(format!("{p}.rate"), "must be > 0"));
        }
        out.push(RateStep { node, peer, at: st.at.time(&format!("{p}.at"))?, rate });
    }
    Ok(out)
}

/// `[switch] routing` and `up_down_root`: the root switch of up-down routing, if chosen.
fn up_down_root(s: &SwitchSpec, plan: &Plan) -> Result<Option<u32>> {
    let up_down = match s.routing.as_deref() {
        None | Some("shortest") => false,
        Some("up_down") => true,
        Some(other) => {
            return Err(Error::scenario("switch.routing", format!("unknown routing '{other}' (expected \"shortest\" or \"up_down\")")))
        }
    };
    let switch = |i: &usize| plan.nodes[*i].kind != NodeKind::Host;
    match (&s.up_down_root, up_down) {
        (Some(_), false) => Err(Error::scenario("switch.up_down_root", "needs switch.routing = \"up_down\"")),
        (None, false) => Ok(None),
        (None, true) => Ok((0..plan.nodes.len()).find(switch).map(|i| i as u32)),
        (Some(name), true) => match plan.nodes.iter().position(|n| &n.name == name) {
            Some(i) if switch(&i) => Ok(Some(i as u32)),
            Some(_) => Err(Error::scenario("switch.up_down_root", format!("'{name}' is a host, not a switch"))),
            None => Err(Error::scenario("switch.up_down_root", format!("no switch named '{name}'"))),
        },
    }
}

/// Resolves `[switch] routes` against the topology's node names (checked in
/// `validate::validate_routes`).
fn static_routes(s: &SwitchSpec, plan: &Plan) -> Result<Vec<StaticRoute>> {
    let mut out = Vec::new();
    for (i, r) in s.routes.iter().flatten().enumerate() {
        let find = |name: &str, key: &str| {
            plan.nodes
                .iter()
                .position(|n| n.name == name)
                .map(|k| k as u32)
                .ok_or_else(|| Error::scenario(format!("switch.routes[{i}].{key}"), format!("no node named '{name}'")))
        };
        out.push(StaticRoute { at: find(&r.at, "at")?, to: find(&r.to, "to")?, via: find(&r.via, "via")? });
    }
    Ok(out)
}

fn switch(s: &SwitchSpec) -> Result<SwitchPlan> {
    let mut p = SwitchPlan::default();
    if let Some(v) = &s.cell {
        let c = v.bytes("switch.cell")?;
        if c == 0 || c > u16::MAX as u64 {
            return Err(Error::scenario("switch.cell", format!("must be 1..=65535 B (got {c} B)")));
        }
        p.cell = Some(c as u32);
    }
    let cell = p.cell.map(u64::from);
    if let Some(d) = &s.processing_delay {
        p.processing_delay = d.time("switch.processing_delay")?;
    }
    if let Some(a) = s.arbitration {
        p.arbitration = match a {
            ArbitrationSpec::Fifo => Arbitration::Fifo,
            ArbitrationSpec::PerPort => Arbitration::PerPort,
            ArbitrationSpec::PerFlow => Arbitration::PerFlow,
        };
    }
    if let Some(v) = &s.egress_limit {
        p.egress_limit = Some(v.bytes_or_cells("switch.egress_limit", cell)?);
    }
    let key_ctx = KeyCtx { cell, ..KeyCtx::NONE };
    match &s.buffer {
        None => {}
        Some(BufferSpec::Static(b)) => p.buffer = b.resolve("switch.buffer", &key_ctx)?,
        Some(BufferSpec::Shared(b)) => p.buffer = b.resolve("switch.buffer", &key_ctx)?,
    }
    if let Some(sch) = &s.scheduler {
        p.scheduler = match sch {
            SchedulerSpec::Strict(_) => SchedulerPlan { kind: SchedulerKind::Strict, ..p.scheduler },
            SchedulerSpec::Rr(_) => SchedulerPlan { kind: SchedulerKind::RoundRobin, ..p.scheduler },
            SchedulerSpec::Dwrr(d) => {
                let mut weights = [1u32; 8];
                if let Some(w) = &d.weights {
                    if w.len() != 8 {
                        return Err(Error::scenario(
                            "switch.scheduler.weights",
                            format!("needs 8 weights, one per priority (got {})", w.len()),
                        ));
                    }
                    for (i, &x) in w.iter().enumerate() {
                        if x < 1 || x > u32::MAX as i64 {
                            return Err(Error::scenario(format!("switch.scheduler.weights[{i}]"), format!("must be >= 1 (got {x})")));
                        }
                        weights[i] = x as u32;
                    }
                }
                let strict_mask = match &d.strict {
                    None => 0,
                    Some(l) => priority_mask(l, "switch.scheduler.strict")?,
                };
                let unit = match (d.unit.as_deref(), &d.cell) {
                    (None | Some("bytes"), None) => EtsUnit::Bytes,
                    (Some("packets"), None) => EtsUnit::Packets,
                    (Some("cells"), Some(c)) => {
                        let c = c.bytes("switch.scheduler.cell")?;
                        if c == 0 || c > u16::MAX as u64 {
                            return Err(Error::scenario("switch.scheduler.cell", format!("must be 1..=65535 B (got {c} B)")));
                        }
                        EtsUnit::Cells(c as u32)
                    }
                    (Some("cells"), None) => match cell {
                        Some(c) => EtsUnit::Cells(c as u32),
                        None => {
                            return Err(Error::scenario("switch.scheduler.cell", "required with unit = \"cells\" (or set switch.cell)"))
                        }
                    },
                    (Some("bytes" | "packets"), Some(_)) | (None, Some(_)) => {
                        return Err(Error::scenario("switch.scheduler.cell", "only with unit = \"cells\""))
                    }
                    (Some(u), _) => {
                        return Err(Error::scenario(
                            "switch.scheduler.unit",
                            format!("must be \"bytes\", \"packets\" or \"cells\" (got \"{u}\")"),
                        ))
                    }
                };
                SchedulerPlan { kind: SchedulerKind::Dwrr, weights, strict_mask, unit }
            }
        };
    }
    Ok(p)
}

fn stats(s: &StatsSpec, duration: SimTime) -> Result<StatsPlan> {
    let mut p = StatsPlan { steady_start: SimTime(duration.0 / 10), ..StatsPlan::default() };
    if let Some(v) = &s.goodput_interval {
        p.goodput_interval = v.time_or_off("stats.goodput_interval")?;
    }
    if let Some(v) = &s.sample_interval {
        p.sample_interval = v.time_or_off("stats.sample_interval")?;
    }
    if let Some(v) = &s.steady_start {
        p.steady_start = v.time("stats.steady_start")?;
    }
    if let Some(v) = s.max_pfc_events {
        p.max_pfc_events = v;
    }
    if let Some(v) = s.max_rows {
        p.max_rows = v;
    }
    if let Some(v) = &s.class_interval {
        p.class_interval = v.time_or_off("stats.class_interval")?;
    }
    if let Some(v) = &s.io_interval {
        p.io_interval = v.time_or_off("stats.io_interval")?;
    }
    if let Some(ids) = &s.trace_flows {
        for (i, &f) in ids.iter().enumerate() {
            let f =
                u32::try_from(f).map_err(|_| Error::scenario(format!("stats.trace_flows[{i}]"), format!("a flow id is >= 0 (got {f})")))?;
            p.trace_flows.push(f);
        }
    }
    if let Some(c) = &s.pcap {
        let start = c.start.as_ref().map(|v| v.time("stats.pcap.start")).transpose()?.unwrap_or(SimTime::ZERO);
        let end = c.end.as_ref().map(|v| v.time("stats.pcap.end")).transpose()?.unwrap_or(SimTime::MAX);
        if end <= start {
            return Err(Error::scenario("stats.pcap.end", format!("must be after stats.pcap.start ({end} <= {start})")));
        }
        if c.file.is_empty() {
            return Err(Error::scenario("stats.pcap.file", "must name a file"));
        }
        let mut flows = Vec::new();
        for (i, &f) in c.flows.iter().flatten().enumerate() {
            flows.push(
                u32::try_from(f).map_err(|_| Error::scenario(format!("stats.pcap.flows[{i}]"), format!("a flow id is >= 0 (got {f})")))?,
            );
        }
        p.pcap = Some(crate::plan::PcapPlan {
            file: c.file.clone(),
            start,
            end,
            ports: c.ports.clone().unwrap_or_default(),
            flows,
            limit: c.limit.unwrap_or(1_000_000),
        });
    }
    Ok(p)
}

/// An `ib_write_bw` entry's rate limiter: `None` for "hw" (the NIC paces the flow at
/// `rate`, the template's job), the software limiter's plan for "sw".
fn sw_limit(s: &IbWriteBwSpec, p: &str) -> Result<Option<Box<SwLimit>>> {
    let sw = match s.rate_limiter.as_deref().unwrap_or("hw") {
        "hw" => false,
        "sw" => true,
        other => return Err(Error::scenario(format!("{p}.rate_limiter"), format!("unknown '{other}' (expected \"hw\" or \"sw\")"))),
    };
    if !sw {
        let given = [
            ("message", s.message.is_some()),
            ("tx_depth", s.tx_depth.is_some()),
            ("burst", s.burst.is_some()),
            ("cq_mod", s.cq_mod.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(_, g)| *g) {
            return Err(Error::scenario(
                format!("{p}.{name}"),
                "applies only with rate_limiter = \"sw\" (the NIC's limiter paces the stream packet by packet)",
            ));
        }
        return Ok(None);
    }
    let Some(rate) = &s.rate else {
        return Err(Error::scenario(format!("{p}.rate"), "rate_limiter = \"sw\" needs a rate"));
    };
    let rate = rate.rate(&format!("{p}.rate"))?;
    let message = match &s.message {
        Some(m) => m.bytes(&format!("{p}.message"))?,
        None => 65_536,
    };
    let tx_depth = s.tx_depth.unwrap_or(128);
    // perftest turns moderation off above 8 KiB unless asked, and caps it at the depth.
    let cq_mod = s.cq_mod.unwrap_or(if message > 8192 { 1 } else { 100.min(tx_depth) });
    // Checked with the flow's size (`SwLimit::problem`) once the size is known.
    Ok(Some(Box::new(SwLimit { rate, message, tx_depth, burst: s.burst.unwrap_or(tx_depth), cq_mod })))
}

fn count(v: u32, path: &str, min: u32) -> Result<u32> {
    if v < min {
        return Err(Error::scenario(path, format!("must be >= {min} (got {v})")));
    }
    Ok(v)
}

/// Builds the topology section.
pub fn build_topology(t: &TopologySpec, files: &FileScope) -> Result<Topology> {
    Ok(match t {
        TopologySpec::ParkingLot(p) => {
            let rate = p.rate.rate("topology.rate")?;
            let delay = p.delay.time("topology.delay")?;
            topology::parking_lot(p.switches, &p.senders, rate, delay)?
        }
        TopologySpec::Dumbbell(d) => {
            let hr = d.host_rate.rate("topology.host_rate")?;
            let br = match &d.bottleneck_rate {
                Some(r) => r.rate("topology.bottleneck_rate")?,
                None => hr,
            };
            let delay = d.delay.time("topology.delay")?;
            topology::dumbbell(count(d.senders, "topology.senders", 1)?, count(d.receivers, "topology.receivers", 1)?, hr, br, delay)?
        }
        TopologySpec::Star(s) => {
            let r = s.rate.rate("topology.rate")?;
            let delay = s.delay.time("topology.delay")?;
            topology::star(count(s.hosts, "topology.hosts", 1)?, r, delay)?
        }
        TopologySpec::LeafSpine(l) => {
            let hr = l.host_rate.rate("topology.host_rate")?;
            let fr = l.fabric_rate.rate("topology.fabric_rate")?;
            let delay = l.delay.time("topology.delay")?;
            topology::leaf_spine(
                count(l.leaves, "topology.leaves", 1)?,
                count(l.spines, "topology.spines", if l.leaves > 1 { 1 } else { 0 })?,
                count(l.hosts_per_leaf, "topology.hosts_per_leaf", 1)?,
                hr,
                fr,
                delay,
            )?
        }
        TopologySpec::FatTree(f) => {
            let hr = f.host_rate.rate("topology.host_rate")?;
            let fr = f.fabric_rate.rate("topology.fabric_rate")?;
            let delay = f.delay.time("topology.delay")?;
            topology::fat_tree(f.k, hr, fr, delay)?
        }
        TopologySpec::Explicit(e) => {
            let mut links = Vec::with_capacity(e.links.len());
            for (i, l) in e.links.iter().enumerate() {
                links.push(NamedLink {
                    a: l.a.clone(),
                    b: l.b.clone(),
                    rate: l.rate.rate(&format!("topology.links[{i}].rate"))?,
                    delay: l.delay.time(&format!("topology.links[{i}].delay"))?,
                });
            }
            topology::explicit(&e.hosts, &e.switches, &links)?
        }
        TopologySpec::Hpcc(h) => {
            let (path, text) = files.read(&h.file, "topology.file")?;
            topology::parse_hpcc(&text, "topology.file").map_err(|e| in_file(e, &path))?
        }
    })
}

fn template(
    prio: u8,
    size: &Option<SizeStr>,
    start: &Option<TimeStr>,
    rate: &Option<RateStr>,
    p: &str,
    group: u32,
) -> Result<FlowTemplate> {
    Ok(FlowTemplate {
        size: match size {
            Some(s) => s.size_or_inf(&format!("{p}.size"))?,
            None => None,
        },
        start: match start {
            Some(t) => t.time(&format!("{p}.start"))?,
            None => SimTime::ZERO,
        },
        priority: prio,
        rate: match rate {
            Some(r) => Some(r.rate(&format!("{p}.rate"))?),
            None => None,
        },
        group,
    })
}

/// The flow-size CDFs shipped in `data/workloads`, by the names a `cdf` entry's `file`
/// may give instead of a path.
pub const SHIPPED_WORKLOADS: &[(&str, &str)] = &[
    ("websearch", "workloads/hpcc_WebSearch_distribution.txt"),
    ("hadoop", "workloads/hpcc_FbHdp_distribution.txt"),
    ("fbhdp", "workloads/hpcc_FbHdp_distribution.txt"),
];

/// A `cdf` entry's file: a shipped workload by name (`file = "websearch"`), or a path.
/// A file that cannot be read says where the shipped ones are and how to allow others.
fn read_workload(files: &FileScope, file: &str, origin: &str) -> Result<(std::path::PathBuf, String)> {
    let shipped = SHIPPED_WORKLOADS.iter().find(|(n, _)| n.eq_ignore_ascii_case(file.trim()));
    if let (Some((_, rel)), Some(dir)) = (shipped, super::files::shipped_data_dir()) {
        return files.read(&dir.join(rel).to_string_lossy(), origin);
    }
    files.read(file, origin).map_err(|e| match e {
        // A name that is not there: perhaps a shipped workload's, misspelt.
        Error::Scenario { path, msg } if msg.contains("cannot be read") => {
            let names: Vec<&str> = SHIPPED_WORKLOADS.iter().map(|(n, _)| *n).collect();
            Error::scenario(
                path,
                format!(
                    "{msg}; the shipped workloads are in data/workloads and can be named without a path ({}); \
                     a file elsewhere needs --data-root DIR",
                    names.join(", ")
                ),
            )
        }
        e => e,
    })
}

/// The name of each `[[traffic]]` entry: its `name`, or its type and index
/// ("incast_1"). Names are unique, not empty, and not numbers (a number reads as an
/// index where groups are chosen).
pub fn group_names(entries: &[TrafficSpec], common: &[TrafficCommon]) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::with_capacity(entries.len());
    for (i, (e, c)) in entries.iter().zip(common).enumerate() {
        let name = match &c.name {
            Some(n) => {
                let n = n.trim();
                if n.is_empty() || n.parse::<f64>().is_ok() || n.contains(',') {
                    return Err(Error::scenario(
                        format!("traffic[{i}].name"),
                        format!("'{n}': give a name, not empty, not a number, without commas"),
                    ));
                }
                n.to_string()
            }
            None => format!("{}_{i}", traffic_type(e)),
        };
        if let Some(j) = names.iter().position(|x| *x == name) {
            return Err(Error::scenario(format!("traffic[{i}].name"), format!("'{name}' is already the name of traffic[{j}]")));
        }
        names.push(name);
    }
    Ok(names)
}

/// The `type` of a traffic entry, as written.
fn traffic_type(e: &TrafficSpec) -> &'static str {
    match e {
        TrafficSpec::Flows(_) => "flows",
        TrafficSpec::Incast(_) => "incast",
        TrafficSpec::Permutation(_) => "permutation",
        TrafficSpec::AllToAll(_) => "all_to_all",
        TrafficSpec::Csv(_) => "csv",
        TrafficSpec::Cdf(_) => "cdf",
        TrafficSpec::IbWriteLat(_) => "ib_write_lat",
        TrafficSpec::IbWriteBw(_) => "ib_write_bw",
        TrafficSpec::Storage(_) => "storage",
        TrafficSpec::Job(_) => "job",
        TrafficSpec::Collective(_) => "collective",
    }
}

/// `period` with `count` or `until`: how many copies of an entry's flows run in all
/// (1 without `period`), and the period.
fn repeats(c: &TrafficCommon, p: &str, start: SimTime, duration: SimTime) -> Result<(u64, SimTime)> {
    let Some(period) = &c.period else {
        if c.count.is_some() || c.until.is_some() {
            let k = if c.count.is_some() { "count" } else { "until" };
            return Err(Error::scenario(format!("{p}.{k}"), "repeats an entry every `period`: give period too"));
        }
        return Ok((1, SimTime::ZERO));
    };
    let period = period.time(&format!("{p}.period"))?;
    if period == SimTime::ZERO {
        return Err(Error::scenario(format!("{p}.period"), "must be > 0"));
    }
    let n = match (c.count, &c.until) {
        (Some(_), Some(_)) => return Err(Error::scenario(format!("{p}.until"), "give count or until, not both")),
        (Some(0), None) => return Err(Error::scenario(format!("{p}.count"), "must be >= 1")),
        (Some(n), None) => n as u64,
        (None, until) => {
            // Copies that start before `until` (default: the end of the run).
            let until = match until {
                Some(t) => t.time(&format!("{p}.until"))?,
                None => duration,
            };
            if until <= start {
                return Err(Error::scenario(format!("{p}.until"), format!("must be after the entry's start ({until} <= {start})")));
            }
            (until.0 - start.0).div_ceil(period.0)
        }
    };
    Ok((n, period))
}

/// Builds the flows of every `[[traffic]]` entry, and the storage workloads among them.
pub fn build_traffic(
    entries: &[TrafficSpec],
    common: &[TrafficCommon],
    plan: &Plan,
    files: &FileScope,
) -> Result<(Vec<FlowPlan>, Vec<StoragePlan>, Vec<crate::collectives::JobPlan>)> {
    let idx = HostIndex::new(&plan.nodes);
    let mut flows = Vec::new();
    let mut storage = Vec::new();
    let mut jobs = Vec::new();
    // Hosts that are ranks of an earlier job (placement skips them).
    let mut used = vec![false; plan.nodes.len()];
    let base = limits::plan_footprint(plan);
    // Before a generator makes `more` flows: the plan with them against the limit.
    // Then room for them (`reserve`, the expected count) is taken, and a failure is an
    // error naming the entry, not an abort.
    let room = |flows: &mut Vec<FlowPlan>, more: u64, reserve: u64, path: &str| -> Result<()> {
        let n = (flows.len() as u64).saturating_add(more);
        let (_, goodput_rows) = limits::output_rows(plan, 0, n);
        limits::Footprint { flows: n, goodput_rows, ..base }.check(plan.memory_limit, path)?;
        crate::error::try_reserve(flows, reserve.min(usize::MAX as u64) as usize, path)
    };
    for (gi, (e, c)) in entries.iter().zip(common).enumerate() {
        let g = gi as u32;
        let p = format!("traffic[{gi}]");
        let first = flows.len();
        match e {
            TrafficSpec::Flows(fs) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                for (j, f) in fs.flows.iter().enumerate() {
                    let fp = format!("{p}.flows[{j}]");
                    let src = idx.host(&f.src, &format!("{fp}.src"))?;
                    let dst = idx.host(&f.dst, &format!("{fp}.dst"))?;
                    if src == dst {
                        return Err(Error::scenario(
                            format!("{fp}.dst"),
                            format!("same host as src ('{}'); a flow needs two different hosts", f.src),
                        ));
                    }
                    let prio = priority(f.priority, prio, &format!("{fp}.priority"))?;
                    let t = template(prio, &f.size, &f.start, &f.rate, &fp, g)?;
                    let mut flow = t.flow(src, dst);
                    if let Some(st) = &f.stop {
                        let stop = st.time(&format!("{fp}.stop"))?;
                        if stop <= flow.start {
                            return Err(Error::scenario(format!("{fp}.stop"), format!("must be after start ({stop} <= {})", flow.start)));
                        }
                        flow.stop = Some(stop);
                    }
                    flows.push(flow);
                }
            }
            TrafficSpec::Incast(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                let recv = idx.host(&s.receiver, &format!("{p}.receiver"))?;
                let senders = match (&s.senders, s.sender_count) {
                    (Some(_), Some(_)) => {
                        return Err(Error::scenario(format!("{p}.sender_count"), "give either senders or sender_count, not both"))
                    }
                    (None, None) => return Err(Error::scenario(format!("{p}.senders"), "missing: give senders or sender_count")),
                    (Some(list), None) => {
                        let v = idx.hosts(Some(list), &format!("{p}.senders"))?;
                        if let Some(i) = v.iter().position(|&h| h == recv) {
                            return Err(Error::scenario(format!("{p}.senders[{i}]"), "the receiver cannot be a sender"));
                        }
                        v
                    }
                    (None, Some(n)) => {
                        let all: Vec<u32> = idx.all().into_iter().filter(|&h| h != recv).collect();
                        if n == 0 || n as usize > all.len() {
                            return Err(Error::scenario(
                                format!("{p}.sender_count"),
                                format!("must be 1..={} (the hosts other than the receiver), got {n}", all.len()),
                            ));
                        }
                        all[..n as usize].to_vec()
                    }
                };
                let per = s.flows_per_sender.unwrap_or(1);
                count(per, &format!("{p}.flows_per_sender"), 1)?;
                let t = template(prio, &s.size, &c.start, &s.rate, &p, g)?;
                room(&mut flows, senders.len() as u64 * per as u64, senders.len() as u64 * per as u64, &format!("{p}.flows_per_sender"))?;
                flows.extend(traffic::incast(&senders, recv, per, &t));
            }
            TrafficSpec::IbWriteLat(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                let src = idx.host(&s.src, &format!("{p}.src"))?;
                let dst = idx.host(&s.dst, &format!("{p}.dst"))?;
                if src == dst {
                    return Err(Error::scenario(format!("{p}.dst"), format!("same host as src ('{}')", s.src)));
                }
                if s.iters == Some(0) {
                    return Err(Error::scenario(format!("{p}.iters"), "must be >= 1"));
                }
                let size = s.size.clone().unwrap_or_else(|| SizeStr::new("2B"));
                if size.size_or_inf(&format!("{p}.size"))?.is_none() {
                    return Err(Error::scenario(format!("{p}.size"), "a latency probe needs a finite message size"));
                }
                let t = template(prio, &Some(size), &c.start, &None, &p, g)?;
                flows.push(t.flow(src, dst));
            }
            TrafficSpec::IbWriteBw(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                let recv = idx.host(&s.receiver, &format!("{p}.receiver"))?;
                if s.senders.is_empty() {
                    return Err(Error::scenario(format!("{p}.senders"), "is empty: list the sending hosts"));
                }
                let senders = idx.hosts(Some(&s.senders), &format!("{p}.senders"))?;
                if let Some(i) = senders.iter().position(|&h| h == recv) {
                    return Err(Error::scenario(format!("{p}.senders[{i}]"), "the receiver cannot be a sender"));
                }
                let sw = sw_limit(s, &p)?;
                // The software limiter posts bursts; the NIC does not pace the flow.
                let rate = if sw.is_some() { &None } else { &s.rate };
                let t = template(prio, &s.size, &c.start, rate, &p, g)?;
                if let Some((field, why)) = sw.as_ref().and_then(|l| l.problem(t.size)) {
                    return Err(Error::scenario(format!("{p}.{field}"), why));
                }
                flows.extend(traffic::incast(&senders, recv, 1, &t).into_iter().map(|f| FlowPlan { sw_limit: sw.clone(), ..f }));
            }
            TrafficSpec::Storage(s) => {
                let per_client =
                    s.concurrency.or(s.profile.as_deref().and_then(super::storage::profile).map(|pr| pr.concurrency)).unwrap_or(1);
                let clients = s.clients.as_ref().map_or(s.client_count.unwrap_or(0) as u64, |c| c.len() as u64);
                room(&mut flows, 2 * clients * per_client as u64, 2 * clients * per_client as u64, &format!("{p}.concurrency"))?;
                storage.push(super::storage::build(s, c, plan, &idx, &p, g, &mut flows)?);
            }
            TrafficSpec::Job(_) | TrafficSpec::Collective(_) => {
                let spec = match e {
                    TrafficSpec::Collective(s) => s.job(),
                    TrafficSpec::Job(s) => s.clone(),
                    _ => unreachable!(),
                };
                if c.transport.is_some_and(|t| t != TransportSpec::Roce) {
                    return Err(Error::scenario(format!("{p}.transport"), "collectives run on RoCE queue pairs: use \"roce\""));
                }
                let layers_at = matches!(e, TrafficSpec::Job(_)).then(|| format!("{p}.layers"));
                let entry = crate::collectives::build::Entry {
                    path: &p,
                    layers_at: layers_at.as_deref(),
                    group: g,
                    name: c.name.as_deref().map_or_else(|| format!("{}_{gi}", traffic_type(e)), |n| n.trim().to_string()),
                    priority: priority(c.priority, 3, &format!("{p}.priority"))?,
                    start: match &c.start {
                        Some(t) => t.time(&format!("{p}.start"))?,
                        None => SimTime::ZERO,
                    },
                    files,
                };
                jobs.push(crate::collectives::build::build(&spec, &entry, plan, &mut used, &mut flows)?);
            }
            TrafficSpec::Permutation(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                let hosts = idx.hosts(s.hosts.as_deref(), &format!("{p}.hosts"))?;
                if hosts.len() < 2 {
                    return Err(Error::scenario(format!("{p}.hosts"), "a permutation needs at least 2 hosts"));
                }
                let t = template(prio, &s.size, &c.start, &s.rate, &p, g)?;
                let mut rng = Rng::stream(plan.seed, &p);
                flows.extend(traffic::permutation(&hosts, &mut rng, &t));
            }
            TrafficSpec::AllToAll(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                let hosts = idx.hosts(s.hosts.as_deref(), &format!("{p}.hosts"))?;
                if hosts.len() < 2 {
                    return Err(Error::scenario(format!("{p}.hosts"), "all-to-all needs at least 2 hosts"));
                }
                let t = template(prio, &s.size, &c.start, &s.rate, &p, g)?;
                let n = hosts.len() as u64;
                room(&mut flows, n * (n - 1), n * (n - 1), &format!("{p}.hosts"))?;
                flows.extend(traffic::all_to_all(&hosts, &t));
            }
            TrafficSpec::Csv(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                let origin = format!("{p}.file");
                let (path, text) = files.read(&s.file, &origin)?;
                let lines = text.lines().count() as u64;
                room(&mut flows, lines, lines, &origin)?;
                flows.extend(traffic::parse_csv(&text, &idx, prio, g, &origin).map_err(|e| in_file(e, &path))?);
            }
            TrafficSpec::Cdf(s) => {
                let prio = priority(c.priority, 3, &format!("{p}.priority"))?;
                if !(s.load > 0.0 && s.load <= 1.0) {
                    return Err(Error::scenario(format!("{p}.load"), format!("must be in (0, 1] (got {})", s.load)));
                }
                let unit = match &s.size_unit {
                    Some(u) => u.bytes(&format!("{p}.size_unit"))?,
                    None => 1,
                };
                if unit == 0 {
                    return Err(Error::scenario(format!("{p}.size_unit"), "must be > 0"));
                }
                let origin = format!("{p}.file");
                let (path, text) = read_workload(files, &s.file, &origin)?;
                let cdf = parse_cdf(&text, unit as f64, s.cdf_percent).map_err(|m| in_file(Error::scenario(&origin, m), &path))?;
                let reading = match s.format {
                    Some(CdfFormatSpec::Interpolated) => CdfReading::Interpolated,
                    Some(CdfFormatSpec::Step) => CdfReading::Step,
                    None if cdf.header_mean.is_some() => CdfReading::Step,
                    None => CdfReading::Interpolated,
                };
                let hosts = idx.hosts(s.hosts.as_deref(), &format!("{p}.hosts"))?;
                if hosts.len() < 2 {
                    return Err(Error::scenario(format!("{p}.hosts"), "needs at least 2 hosts"));
                }
                // Each node's first link, found in one pass (not one search per host).
                let mut first_link = vec![None; plan.nodes.len()];
                for l in plan.links.iter().rev() {
                    first_link[l.a as usize] = Some(l.rate);
                    first_link[l.b as usize] = Some(l.rate);
                }
                let with_rate: Vec<(u32, crate::units::Rate)> = hosts
                    .iter()
                    .map(|&h| {
                        first_link[h as usize]
                            .map(|r| (h, r))
                            .ok_or_else(|| Error::scenario("topology", format!("host '{}' has no link", plan.nodes[h as usize].name)))
                    })
                    .collect::<Result<_>>()?;
                let start = match &c.start {
                    Some(t) => t.time(&format!("{p}.start"))?,
                    None => SimTime::ZERO,
                };
                let stop = match &s.stop {
                    Some(t) => t.time(&format!("{p}.stop"))?,
                    None => plan.duration,
                };
                if stop <= start {
                    return Err(Error::scenario(format!("{p}.stop"), format!("must be after start ({stop} <= {start})")));
                }
                // Expected arrivals, twice over for the Poisson spread.
                let mean_bits = cdf.mean(reading).max(1.0) * 8.0;
                let secs = (stop.0 - start.0) as f64 * 1e-12;
                let expected: f64 = with_rate.iter().map(|(_, r)| s.load * r.0 as f64 * secs / mean_bits).sum();
                room(&mut flows, (2.0 * expected + 16.0).min(u64::MAX as f64) as u64, expected as u64, &format!("{p}.load"))?;
                let mut rng = Rng::stream(plan.seed, &p);
                flows.extend(traffic::cdf_poisson(&with_rate, &cdf, reading, s.load, start, stop, prio, g, &mut rng));
            }
        }
        // `period`: copies of the entry's flows, each shifted by k x period, in the same group.
        let entry_start = flows[first..].iter().map(|f| f.start).min().unwrap_or(SimTime::ZERO);
        let (n, period) = repeats(c, &p, entry_start, plan.duration)?;
        if n > 1 {
            let one = flows.len() - first;
            let more = (one as u64).saturating_mul(n - 1);
            room(&mut flows, more, more, &format!("{p}.period"))?;
            for k in 1..n {
                let shift = SimTime(period.0.saturating_mul(k));
                for j in first..first + one {
                    let f = &flows[j];
                    let later = |t: SimTime| SimTime(t.0.saturating_add(shift.0));
                    let copy = FlowPlan { start: later(f.start), stop: f.stop.map(later), ..f.clone() };
                    flows.push(copy);
                }
            }
        }
        if let Some(m) = traffic_messages(e, c) {
            if m != 1 && flows[first..].iter().any(|f| f.size.is_none()) {
                return Err(Error::scenario(format!("{p}.messages"), "repeated messages need a finite size"));
            }
            for f in &mut flows[first..] {
                f.messages = m;
            }
        }
        if c.transport == Some(TransportSpec::Tcp) {
            for f in &mut flows[first..] {
                f.transport = Transport::Tcp;
            }
        }
        if c.transport == Some(TransportSpec::Uet) {
            for f in &mut flows[first..] {
                f.transport = Transport::Uet;
            }
        }
        if c.transport == Some(TransportSpec::Udp) {
            if traffic_messages(e, c).is_some_and(|m| m != 1) {
                return Err(Error::scenario(
                    format!("{p}.messages"),
                    "UDP has no acknowledgements to post the next message on; use transport = \"roce\" for closed-loop messages",
                ));
            }
            for f in &mut flows[first..] {
                f.transport = Transport::Udp;
            }
        }
    }
    Ok((flows, storage, jobs))
}
