//! Checks of a resolved `Plan`. Each error names the scenario field it comes from.
//! `validate_plan` also serves plans built directly in code.
//!
//! The checks are made on the plan alone, without building the world: a plan that
//! passes them builds (`sim::Simulation::new` assumes a validated plan and reports no
//! user errors). What depends on the ports (rate-schedule ports, pcap ports; a model's
//! per-port checks, like PFC's headroom against the buffer) is computed from the links,
//! numbering each node's ports in the order its links are listed, as the world does.
//!
//! The fabric models' checks (their keys, and their keys against the rest of the plan)
//! are each model's, in its folder: `FabricModels::check_plan` runs them in the order of
//! the `fabric_models!` list, once the topology and the flows are known valid.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::keys::{Check, KeyCtx};
use crate::models::FabricModels;
use crate::plan::{BufferPlan, EcnMode, FlowPlan, NodeKind, Plan, SchedulerKind, SwLimit, Transport};
use crate::units::{Rate, SimTime, MAX_RATE, MAX_TIME};

/// Runs every check: the plan's own settings, the topology, the congestion controls and
/// the flows, then the fabric models' checks, then what needs those (routes, threads, the
/// event estimate).
pub fn validate_plan(plan: &Plan) -> Result<()> {
    validate_settings(plan)?;
    validate_memory(plan)?;
    let comp = validate_topology(plan)?;
    validate_models(plan)?;
    validate_egress_limit(plan)?;
    validate_flows(plan, &comp)?;
    check_connected(plan, &comp)?;
    FabricModels::check_plan(plan, &key_ctx(plan))?;
    validate_rate_schedule(plan)?;
    validate_routes(plan)?;
    validate_pcap(plan)?;
    validate_threads(plan)?;
    crate::scenario::work::plan_work(plan).check(plan.max_events)
}

/// Most threads a run may use.
pub const MAX_THREADS: u32 = 256;

/// `simulation.threads`: at least 1; above 1, only what the parallel engine partitions
/// (`sim/parallel`). What it does not is named with the key that turns it on.
pub fn validate_threads(p: &Plan) -> Result<()> {
    const K: &str = "simulation.threads";
    if p.threads == 0 || p.threads > MAX_THREADS {
        return Err(Error::scenario(K, format!("must be between 1 and {MAX_THREADS}, got {}", p.threads)));
    }
    if p.threads == 1 {
        return Ok(());
    }
    if p.fast_forward.is_some() {
        return Err(Error::scenario(
            K,
            "simulation.fast_forward runs on one thread (a skip moves every pending event at once); use threads = 1",
        ));
    }
    if let Some(what) = p.not_node_local() {
        return Err(Error::scenario(K, format!("the parallel engine does not run {what} yet; use threads = 1")));
    }
    Ok(())
}

/// The memory the plan needs against `Plan::memory_limit` (`scenario::limits`).
pub fn validate_memory(p: &Plan) -> Result<()> {
    let f = crate::scenario::limits::plan_footprint(p);
    let without_flows = crate::scenario::limits::Footprint { flows: 0, goodput_rows: 0, job_chunks: 0, job_records: 0, ..f };
    without_flows.check(p.memory_limit, "topology")?;
    f.check(p.memory_limit, "traffic")?;
    // The logs whose length the run decides (PFC events, rate changes, congestion
    // intervals) are capped by the stats settings: the caps themselves must fit a
    // limit the user set (not the room an address-space or cgroup limit leaves, which
    // the default caps, worst cases a run rarely reaches, would exceed in a small one).
    use crate::scenario::limits::{from_process, gib, LOG_ROW_BYTES, PFC_EVENT_ROW_BYTES};
    if from_process(p.memory_limit).is_some() {
        return Ok(());
    }
    for (path, rows, bytes) in
        [("stats.max_pfc_events", p.stats.max_pfc_events, PFC_EVENT_ROW_BYTES), ("stats.max_rows", p.stats.max_rows, LOG_ROW_BYTES)]
    {
        let need = rows.saturating_mul(bytes);
        if need > p.memory_limit {
            return Err(Error::scenario(
                path,
                format!("{rows} rows could need about {}; the limit is {} (simulation.memory_limit)", gib(need), gib(p.memory_limit)),
            ));
        }
    }
    Ok(())
}

/// Host, switch, simulation and stats settings.
pub fn validate_settings(p: &Plan) -> Result<()> {
    if p.duration == SimTime::ZERO {
        return Err(Error::scenario("simulation.duration", "must be > 0"));
    }
    if p.duration > MAX_TIME {
        return Err(Error::scenario("simulation.duration", format!("must be at most {MAX_TIME}")));
    }
    let h = &p.host;
    if h.mtu == 0 {
        return Err(Error::scenario("host.mtu", "must be > 0"));
    }
    // Frames are at most 65535 B (jumbo frames are about 9 KB); packets store sizes in 16 bits.
    if h.mtu as u64 + h.header_bytes as u64 > 65_535 {
        return Err(Error::scenario("host.mtu", format!("mtu + header must be at most 65535 B, got {} B", h.mtu + h.header_bytes)));
    }
    if h.ack_bytes > 65_535 {
        return Err(Error::scenario("host.ack_bytes", "must be at most 65535 B"));
    }
    if h.ack_every == 0 {
        return Err(Error::scenario("host.ack_every", "must be >= 1"));
    }
    if h.ack_bytes == 0 {
        return Err(Error::scenario("host.ack_bytes", "must be > 0"));
    }
    if h.rto == SimTime::ZERO {
        return Err(Error::scenario("host.rto", "must be > 0"));
    }
    if h.ooo_window == 0 || !h.ooo_window.is_multiple_of(64) || h.ooo_window > 1 << 20 {
        return Err(Error::scenario("host.ooo_window", format!("must be a multiple of 64 in 64..=1048576 packets (got {})", h.ooo_window)));
    }
    if h.reorder_tolerance > 0 && !h.selective_repeat {
        return Err(Error::scenario(
            "host.reorder_tolerance",
            "needs host.retransmission = \"selective\" (go-back-N discards what arrives above a hole)",
        ));
    }
    if h.reorder_tolerance >= h.ooo_window {
        return Err(Error::scenario(
            "host.reorder_tolerance",
            format!(
                "must be below host.ooo_window ({}): a packet beyond the window is dropped (got {})",
                h.ooo_window, h.reorder_tolerance
            ),
        ));
    }
    let frame = max_wire(p) as u64;
    let s = &p.switch;
    match s.buffer {
        BufferPlan::Static { port_buffer } => {
            if port_buffer < frame {
                return Err(Error::scenario(
                    "switch.buffer.size",
                    format!("{port_buffer} B is smaller than one MTU-sized frame ({frame} B on the wire)"),
                ));
            }
        }
        BufferPlan::Shared { total, .. } => {
            if total < frame {
                return Err(Error::scenario(
                    "switch.buffer.size",
                    format!("{total} B is smaller than one MTU-sized frame ({frame} B on the wire)"),
                ));
            }
        }
    }
    if s.scheduler.kind == SchedulerKind::Dwrr {
        for (i, &w) in s.scheduler.weights.iter().enumerate() {
            if w == 0 {
                return Err(Error::scenario(format!("switch.scheduler.weights[{i}]"), "must be >= 1"));
            }
        }
    }
    if s.egress_limit == Some(0) {
        return Err(Error::scenario("switch.egress_limit", "must be > 0"));
    }
    let st = &p.stats;
    if let Some((i, f)) = st.trace_flows.iter().enumerate().find(|(_, &f)| f as usize >= p.flows.len()) {
        return Err(Error::scenario(
            format!("stats.trace_flows[{i}]"),
            format!("no flow {f}: the run has {} flows (ids 0..{})", p.flows.len(), p.flows.len().saturating_sub(1)),
        ));
    }
    if st.steady_start >= p.duration {
        return Err(Error::scenario(
            "stats.steady_start",
            format!("must be below simulation.duration ({} >= {})", st.steady_start, p.duration),
        ));
    }
    Ok(())
}

/// `switch.egress_limit` (checked after the models, whose errors on lossless TCP are
/// more specific).
fn validate_egress_limit(p: &Plan) -> Result<()> {
    let s = &p.switch;
    // A drop-tail cap on a lossless queue would have to pause, not drop: the limit is
    // for lossy priorities, and with every flow on a lossless one it could never act.
    if s.egress_limit.is_some() && !p.flows.is_empty() && p.flows.iter().all(|f| p.is_lossless(f.priority)) {
        let how = p.lossless_key();
        return Err(Error::scenario(
            "switch.egress_limit",
            format!("applies to lossy priorities only, and every flow is on a lossless one ({how}); remove it or put traffic on a lossy priority"),
        ));
    }
    Ok(())
}

/// The key context of a plan's checks: the smallest host line rate, the cell size.
pub fn key_ctx(p: &Plan) -> KeyCtx<'_> {
    KeyCtx { line_rate: min_host_rate(p), cell: p.switch.cell.map(u64::from), nodes: &p.nodes }
}

/// The smallest rate of a link that ends at a host (`None` without hosts).
pub fn min_host_rate(p: &Plan) -> Option<Rate> {
    let is_host = |i: u32| p.nodes.get(i as usize).map(|n| n.kind == NodeKind::Host).unwrap_or(false);
    p.links.iter().filter(|l| is_host(l.a) || is_host(l.b)).map(|l| l.rate).min()
}

/// The models' parameters: `Plan::ccs` present and each valid (entry 0 is `host.cc`; a
/// later entry is named after the `[[traffic]]` entry of the first flow that uses it), no
/// ACK-driven algorithm on a UDP flow, `[host.tcp]` and TCP's flows.
pub fn validate_models(p: &Plan) -> Result<()> {
    if p.ccs.is_empty() {
        return Err(Error::scenario("host.cc", "the plan has no congestion control entry (ccs[0])"));
    }
    let ctx = key_ctx(p);
    for (k, cc) in p.ccs.iter().enumerate() {
        let path = if k == 0 {
            "host.cc".to_string()
        } else {
            match p.flows.iter().find(|f| f.cc as usize == k) {
                Some(f) => format!("traffic[{}].cc", f.group),
                None => format!("ccs[{k}]"),
            }
        };
        cc.check(&path, &ctx)?;
    }
    // An algorithm that reacts to ACKs (or limits bytes in flight) gets none on a UDP
    // flow: it would never move (or never send past its first window).
    for f in p.flows.iter().filter(|f| f.transport == Transport::Udp) {
        if let Some(cc) = p.ccs.get(f.cc as usize).filter(|cc| cc.wants_acks() || cc.windowed()) {
            return Err(Error::scenario(
                format!("traffic[{}].transport", f.group),
                format!("\"udp\" has no ACKs, but its congestion control type = \"{}\" needs them", cc.type_name()),
            ));
        }
    }
    // TCP: a window-based algorithm, and no lossless priority without ECN (a paused
    // queue never drops, so without marks TCP would only see delay and fill the buffer).
    p.host.tcp.check("host.tcp", &ctx)?;
    for f in p.flows.iter().filter(|f| f.transport == Transport::Tcp) {
        if let Some(cc) = p.ccs.get(f.cc as usize).filter(|cc| !cc.windowed()) {
            let path = if f.cc == 0 { "host.cc".to_string() } else { format!("traffic[{}].cc", f.group) };
            return Err(Error::scenario(
                path,
                format!(
                    "transport = \"tcp\" (traffic[{}]) needs a window-based congestion control (newreno, cubic, dctcp, bbr); type = \"{}\" sets only a rate",
                    f.group,
                    cc.type_name()
                ),
            ));
        }
        let lossless = p.is_lossless(f.priority);
        let ecn = p.fabric.marking.ecn.mode != EcnMode::Off && p.fabric.marking.ecn.priorities & (1 << f.priority) != 0;
        if lossless && !ecn {
            return Err(Error::scenario(
                format!("traffic[{}].priority", f.group),
                format!(
                    "TCP on priority {} which is lossless ({}) without ECN marking on it: put TCP on a lossy priority or enable [switch.ecn] for priority {}",
                    f.priority,
                    p.lossless_key(),
                    f.priority
                ),
            ));
        }
    }
    Ok(())
}

/// What a valid plan runs that it may not mean to, one line each (`path: reason`): the
/// fabric models' warnings, in the list's order.
pub fn warnings(p: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    FabricModels::warnings(p, &mut out);
    out
}

/// The largest frame on the wire: MTU + header (+ preamble and gap if counted).
pub fn max_wire(p: &Plan) -> u32 {
    p.max_wire()
}

/// Node names, links, host degrees. Returns the connected component of every node.
pub fn validate_topology(p: &Plan) -> Result<Vec<u32>> {
    if p.nodes.is_empty() {
        return Err(Error::scenario("topology", "has no nodes"));
    }
    if !p.nodes.iter().any(|n| n.kind == NodeKind::Host) {
        return Err(Error::scenario("topology", "has no hosts"));
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, n) in p.nodes.iter().enumerate() {
        if n.name.is_empty() {
            return Err(Error::scenario("topology", format!("node {i} has an empty name")));
        }
        if names.insert(n.name.as_str(), i).is_some() {
            return Err(Error::scenario("topology", format!("duplicate node name '{}'", n.name)));
        }
    }
    let n = p.nodes.len();
    let mut degree = vec![0u32; n];
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for (k, l) in p.links.iter().enumerate() {
        for (end, v) in [("a", l.a), ("b", l.b)] {
            if v as usize >= n {
                return Err(Error::scenario(format!("topology.links[{k}].{end}"), format!("node index {v} does not exist")));
            }
        }
        if l.a == l.b {
            return Err(Error::scenario(format!("topology.links[{k}]"), format!("self-link on '{}'", p.nodes[l.a as usize].name)));
        }
        if l.rate.0 == 0 {
            return Err(Error::scenario(format!("topology.links[{k}].rate"), "must be > 0"));
        }
        if l.rate > MAX_RATE {
            return Err(Error::scenario(
                format!("topology.links[{k}].rate"),
                format!("{} is above the largest supported rate, {MAX_RATE}", l.rate),
            ));
        }
        if l.delay > MAX_TIME {
            return Err(Error::scenario(format!("topology.links[{k}].delay"), format!("must be at most {MAX_TIME}")));
        }
        degree[l.a as usize] += 1;
        degree[l.b as usize] += 1;
        let (ra, rb) = (find(&mut parent, l.a), find(&mut parent, l.b));
        if ra != rb {
            parent[ra as usize] = rb;
        }
    }
    for (i, node) in p.nodes.iter().enumerate() {
        if degree[i] as usize > crate::net::queue::MAX_NODE_PORTS {
            return Err(Error::scenario(
                "topology",
                format!("'{}' has {} links; a node may have at most {}", node.name, degree[i], crate::net::queue::MAX_NODE_PORTS),
            ));
        }
        if node.kind == NodeKind::Host && degree[i] != 1 {
            return Err(Error::scenario("topology", format!("host '{}' has {} links (a host needs exactly one)", node.name, degree[i])));
        }
    }
    Ok((0..n as u32).map(|i| find(&mut parent, i)).collect())
}

/// Flow endpoints, sizes, priorities and reachability. Flow `j` of group `i` is named
/// `traffic[i].flows[j]` (its index among the flows of its `[[traffic]]` entry).
pub fn validate_flows(p: &Plan, comp: &[u32]) -> Result<()> {
    let mut counters: HashMap<u32, usize> = HashMap::new();
    for f in &p.flows {
        let j = counters.entry(f.group).or_insert(0);
        let path = format!("traffic[{}].flows[{}]", f.group, j);
        *j += 1;
        check_flow(p, f, &path, comp)?;
    }
    Ok(())
}

fn check_flow(p: &Plan, f: &FlowPlan, path: &str, comp: &[u32]) -> Result<()> {
    let n = p.nodes.len() as u32;
    for (end, v) in [("src", f.src), ("dst", f.dst)] {
        if v >= n {
            return Err(Error::scenario(format!("{path}.{end}"), format!("node index {v} does not exist")));
        }
        if p.nodes[v as usize].kind != NodeKind::Host {
            return Err(Error::scenario(format!("{path}.{end}"), format!("'{}' is a switch, not a host", p.nodes[v as usize].name)));
        }
    }
    if f.src == f.dst {
        return Err(Error::scenario(
            format!("{path}.dst"),
            format!("same host as src ('{}'); a flow needs two different hosts", p.nodes[f.src as usize].name),
        ));
    }
    if f.size == Some(0) {
        return Err(Error::scenario(format!("{path}.size"), "must be > 0"));
    }
    if f.priority > 7 {
        return Err(Error::scenario(format!("{path}.priority"), format!("must be 0..=7 (got {})", f.priority)));
    }
    if f.cc as usize >= p.ccs.len() {
        return Err(Error::scenario(format!("{path}.cc"), format!("congestion control {} does not exist ({} defined)", f.cc, p.ccs.len())));
    }
    if let Some(size) = f.size {
        // Packet numbers are 32-bit, and u32::MAX stands for an endless flow.
        let npkts = size.div_ceil(p.host.mtu as u64);
        if npkts >= u32::MAX as u64 {
            return Err(Error::scenario(
                format!("{path}.size"),
                format!(
                    "message too large for 32-bit packet numbers ({npkts} packets of {} B; at most {} per message)",
                    p.host.mtu,
                    u32::MAX - 1
                ),
            ));
        }
    }
    if f.rate.map(|r| r.0 == 0).unwrap_or(false) {
        return Err(Error::scenario(format!("{path}.rate"), "must be > 0"));
    }
    if f.rate.is_some_and(|r| r > MAX_RATE) {
        return Err(Error::scenario(format!("{path}.rate"), format!("must be at most {MAX_RATE}")));
    }
    if let Some(l) = &f.sw_limit {
        check_sw_limit(f, l, path)?;
    }
    // Reachability along the routes: routes are shortest paths on which hosts do not
    // forward, and a host has exactly one link (`validate_topology`), so it is never in
    // the middle of a path; a destination in the source's component is therefore
    // reachable by the routing tables.
    if comp[f.src as usize] != comp[f.dst as usize] {
        return Err(Error::scenario(
            format!("{path}.dst"),
            format!("host '{}' cannot be reached from '{}'", p.nodes[f.dst as usize].name, p.nodes[f.src as usize].name),
        ));
    }
    Ok(())
}

/// A plan's software rate limiter (the `ib_write_bw` builder gives the scenario fields'
/// errors first; this guards plans built in code).
fn check_sw_limit(f: &FlowPlan, l: &SwLimit, path: &str) -> Result<()> {
    if f.transport != Transport::Roce || f.rate.is_some() {
        return Err(Error::scenario(
            format!("{path}.sw_limit"),
            "the software rate limiter posts RDMA writes: a RoCE flow without a pacing rate",
        ));
    }
    match l.problem(f.size) {
        Some(("size", why)) => Err(Error::scenario(format!("{path}.size"), why)),
        Some((field, why)) => Err(Error::scenario(format!("{path}.sw_limit.{field}"), why)),
        None => Ok(()),
    }
}

/// Every node must reach every other node.
pub fn check_connected(p: &Plan, comp: &[u32]) -> Result<()> {
    if let Some(i) = comp.iter().position(|&c| c != comp[0]) {
        return Err(Error::scenario(
            "topology",
            format!("the graph is disconnected: node '{}' cannot reach '{}'", p.nodes[0].name, p.nodes[i].name),
        ));
    }
    Ok(())
}

/// `stats.pcap`: every port entry names a port (as the world numbers them) and every
/// flow id a flow of the run.
pub fn validate_pcap(p: &Plan) -> Result<()> {
    let Some(pc) = &p.stats.pcap else { return Ok(()) };
    pc.ports_at(p)?;
    if let Some((i, f)) = pc.flows.iter().enumerate().find(|(_, &f)| f as usize >= p.flows.len()) {
        return Err(Error::scenario(format!("stats.pcap.flows[{i}]"), format!("no flow {f}: the run has {} flows", p.flows.len())));
    }
    Ok(())
}

/// `switch.rate_schedule`: each step names a switch port (a switch and a node it is
/// linked to) and a rate > 0.
pub fn validate_rate_schedule(p: &Plan) -> Result<()> {
    let n = p.nodes.len() as u32;
    for (k, st) in p.switch.rate_schedule.iter().enumerate() {
        let at = format!("switch.rate_schedule[{k}]");
        for (key, v) in [("node", st.node), ("peer", st.peer)] {
            if v >= n {
                return Err(Error::scenario(format!("{at}.{key}"), format!("node index {v} does not exist")));
            }
        }
        let (node, peer) = (&p.nodes[st.node as usize], &p.nodes[st.peer as usize]);
        if node.kind != NodeKind::Switch {
            return Err(Error::scenario(format!("{at}.node"), format!("'{}' is not a switch", node.name)));
        }
        if !p.links.iter().any(|l| (l.a == st.node && l.b == st.peer) || (l.a == st.peer && l.b == st.node)) {
            return Err(Error::scenario(format!("{at}.peer"), format!("'{}' has no link to '{}'", node.name, peer.name)));
        }
        if st.rate.0 == 0 {
            return Err(Error::scenario(format!("{at}.rate"), "must be > 0"));
        }
        if st.rate > MAX_RATE {
            return Err(Error::scenario(format!("{at}.rate"), format!("must be at most {MAX_RATE}")));
        }
    }
    Ok(())
}

/// `switch.routes`: each names a switch, a host and a neighbour of the switch (a switch,
/// or the host itself), at most once per (switch, host), and no frame can loop.
pub fn validate_routes(p: &Plan) -> Result<()> {
    use crate::ids::{NodeId, PortId};
    use crate::net::routing::{route_loop, Graph, Override};
    if p.switch.routes.is_empty() {
        return Ok(());
    }
    let n = p.nodes.len() as u32;
    let links = p.node_links();
    let (mut node_ports, mut peer_node) = (Vec::with_capacity(links.len()), Vec::new());
    for (u, ls) in links.iter().enumerate() {
        let start = peer_node.len() as u32;
        for &k in ls {
            let l = &p.links[k];
            peer_node.push(NodeId(if l.a as usize == u { l.b } else { l.a }));
        }
        node_ports.push(start..peer_node.len() as u32);
    }
    let is_host: Vec<bool> = p.nodes.iter().map(|x| x.kind == NodeKind::Host).collect();
    let mut overrides = Vec::with_capacity(p.switch.routes.len());
    let mut seen = HashMap::new();
    for (i, r) in p.switch.routes.iter().enumerate() {
        let at = format!("switch.routes[{i}]");
        for (key, v) in [("at", r.at), ("to", r.to), ("via", r.via)] {
            if v >= n {
                return Err(Error::scenario(format!("{at}.{key}"), format!("node index {v} does not exist")));
            }
        }
        let name = |v: u32| &p.nodes[v as usize].name;
        if is_host[r.at as usize] {
            return Err(Error::scenario(format!("{at}.at"), format!("'{}' is not a switch", name(r.at))));
        }
        if !is_host[r.to as usize] {
            return Err(Error::scenario(format!("{at}.to"), format!("'{}' is not a host", name(r.to))));
        }
        if is_host[r.via as usize] && r.via != r.to {
            return Err(Error::scenario(
                format!("{at}.via"),
                format!("'{}' is a host other than the destination '{}'", name(r.via), name(r.to)),
            ));
        }
        let Some(port) = node_ports[r.at as usize].clone().find(|&q| peer_node[q as usize].0 == r.via) else {
            return Err(Error::scenario(format!("{at}.via"), format!("'{}' has no link to '{}'", name(r.at), name(r.via))));
        };
        if let Some(j) = seen.insert((r.at, r.to), i) {
            return Err(Error::scenario(
                at,
                format!("a second route at '{}' to '{}' (the first is switch.routes[{j}])", name(r.at), name(r.to)),
            ));
        }
        overrides.push(Override { at: NodeId(r.at), to: NodeId(r.to), port: PortId(port) });
    }
    let g = Graph { is_host: &is_host, node_ports: &node_ports, peer_node: &peer_node };
    if let Some(i) = route_loop(&g, &overrides) {
        let r = &p.switch.routes[i];
        return Err(Error::scenario(
            format!("switch.routes[{i}]"),
            format!(
                "frames to '{}' leaving '{}' toward '{}' can come back to a switch they crossed (a routing loop)",
                p.nodes[r.to as usize].name, p.nodes[r.at as usize].name, p.nodes[r.via as usize].name
            ),
        ));
    }
    Ok(())
}
