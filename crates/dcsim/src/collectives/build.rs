//! A `job` or `collective` traffic entry to a `JobPlan` and its queue pairs: ranks
//! placed on hosts, the collectives checked, one flow per queue pair of the job's graph
//! carrying every iteration's chunks.

use super::graph;
use super::plan::{CollKind, CollPlan, Groups, JobPlan, Op};
use super::schema::{JobSpec, LayerSpec};
use crate::error::{Error, Result};
use crate::plan::{FlowPlan, NodeKind, Plan, Transport};
use crate::rng::Rng;
use crate::scenario::files::{in_file, FileScope};
use crate::units::SimTime;

/// NCCL's Simple-protocol step (NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8).
pub const DEFAULT_CHUNK: u64 = 512 * 1024;

/// At most this many (rank, collective, iteration) records per job (20 bytes each).
pub const MAX_RECORDS: u64 = 50_000_000;
/// At most this many chunks in one iteration's graph (about 40 bytes each with the run's
/// state).
pub const MAX_CHUNKS: u64 = 50_000_000;

/// What the entry's common keys say.
pub struct Entry<'a> {
    /// `traffic[i]`.
    pub path: &'a str,
    /// Where a layer's keys are: `traffic[i].layers[j]`, or `traffic[i]` for a collective.
    pub layers_at: Option<&'a str>,
    pub group: u32,
    pub name: String,
    pub priority: u8,
    pub start: SimTime,
    /// Where a `workload` file may be.
    pub files: &'a FileScope,
}

/// Builds the job, appends its queue pairs to `flows` and marks its hosts in `used`.
pub fn build(s: &JobSpec, e: &Entry, plan: &Plan, used: &mut [bool], flows: &mut Vec<FlowPlan>) -> Result<JobPlan> {
    let p = e.path;
    let ranks = place(s, e, plan, used)?;
    let n = ranks.len();
    let iterations = s.iterations.unwrap_or(1);
    if iterations == 0 {
        return Err(Error::scenario(format!("{p}.iterations"), "must be >= 1"));
    }
    let mut ops = Vec::new();
    if let Some(c) = &s.compute {
        ops.push(Op::Compute(c.time(&format!("{p}.compute"))?));
    }
    if let Some(w) = &s.workload {
        if !s.layers.is_empty() || s.compute.is_some() {
            return Err(Error::scenario(format!("{p}.workload"), "give either workload or compute and layers, not both"));
        }
        let unit = match &s.time_unit {
            Some(u) => u.time(&format!("{p}.time_unit"))?.0,
            None => 1000,
        };
        if s.model_parallel.is_some() {
            return Err(Error::scenario(
                format!("{p}.model_parallel"),
                "not with workload (the file's model_parallel_NPU_group gives the groups)",
            ));
        }
        let origin = format!("{p}.workload");
        let (path, text) = e.files.read(w, &origin)?;
        let (ops, colls) = super::workload::parse(&text, n, unit, &origin).map_err(|x| in_file(x, &path))?;
        return finish(s, e, plan, ranks, iterations, ops, colls, flows);
    }
    if s.time_unit.is_some() {
        return Err(Error::scenario(format!("{p}.time_unit"), "only with workload"));
    }
    if s.layers.is_empty() {
        return Err(Error::scenario(format!("{p}.layers"), "is empty: give at least one layer with its collective"));
    }
    if s.layers.len() > u16::MAX as usize {
        return Err(Error::scenario(format!("{p}.layers"), format!("at most {} layers", u16::MAX)));
    }
    let mut colls = Vec::new();
    let ranks_n = n;
    for (j, l) in s.layers.iter().enumerate() {
        let lp = match e.layers_at {
            Some(at) => format!("{at}[{j}]"),
            None => p.to_string(),
        };
        if let Some(c) = &l.compute {
            ops.push(Op::Compute(c.time(&format!("{lp}.compute"))?));
        }
        let bytes = l.size.bytes(&format!("{lp}.size"))?;
        if bytes == 0 {
            return Err(Error::scenario(format!("{lp}.size"), "must be > 0"));
        }
        let groups = layer_groups(s, p, l, &lp, ranks_n)?;
        // The algorithm runs within each group.
        let n = groups.size(ranks_n);
        let kind = match (l.kind.as_str(), l.algorithm.as_deref()) {
            ("all_reduce", None | Some("ring")) => CollKind::AllReduceRing,
            ("all_reduce", Some("halving_doubling")) => {
                if !n.is_power_of_two() {
                    return Err(Error::scenario(
                        format!("{lp}.algorithm"),
                        format!("halving_doubling needs a power of two of ranks (got {n})"),
                    ));
                }
                CollKind::AllReduceHd
            }
            ("all_reduce", Some("double_binary_tree")) => {
                if n < 3 {
                    return Err(Error::scenario(format!("{lp}.algorithm"), "double_binary_tree needs at least 3 ranks"));
                }
                CollKind::AllReduceTree
            }
            ("all_reduce", Some(a)) => {
                return Err(Error::scenario(
                    format!("{lp}.algorithm"),
                    format!("'{a}': all_reduce is \"ring\", \"halving_doubling\" or \"double_binary_tree\""),
                ))
            }
            ("all_gather", a) | ("reduce_scatter", a) if a.is_none_or(|a| a == "ring") => {
                if l.kind == "all_gather" {
                    CollKind::AllGather
                } else {
                    CollKind::ReduceScatter
                }
            }
            ("all_to_all", a) if a.is_none_or(|a| a == "direct") => CollKind::AllToAll,
            ("broadcast", a) if a.is_none_or(|a| a == "chain") => CollKind::Broadcast,
            ("send_recv", a) if a.is_none_or(|a| a == "direct") => CollKind::SendRecv,
            ("all_gather" | "reduce_scatter" | "all_to_all" | "broadcast" | "send_recv", Some(a)) => {
                return Err(Error::scenario(format!("{lp}.algorithm"), format!("'{a}' is not an algorithm of {}", l.kind)))
            }
            (k, _) => {
                return Err(Error::scenario(
                    format!("{lp}.kind"),
                    format!("'{k}' is not one of all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv"),
                ))
            }
        };
        let channels = l.channels.unwrap_or(1);
        if channels == 0 || channels > 64 {
            return Err(Error::scenario(format!("{lp}.channels"), format!("must be in 1..=64 (got {channels})")));
        }
        let chunk = match &l.chunk {
            Some(c) => {
                let v = c.bytes(&format!("{lp}.chunk"))?;
                if v == 0 {
                    return Err(Error::scenario(format!("{lp}.chunk"), "must be > 0"));
                }
                if v > bytes {
                    return Err(Error::scenario(format!("{lp}.chunk"), format!("{v} B is larger than the message ({bytes} B)")));
                }
                v
            }
            None => DEFAULT_CHUNK,
        };
        let root = l.root.unwrap_or(0);
        if l.root.is_some() && kind != CollKind::Broadcast {
            return Err(Error::scenario(format!("{lp}.root"), "only for kind = \"broadcast\""));
        }
        if root as usize >= n {
            return Err(Error::scenario(
                format!("{lp}.root"),
                match groups {
                    Groups::All => format!("rank {root} does not exist (the job has {n} ranks)"),
                    _ => format!("position {root} does not exist (a group has {n} ranks)"),
                },
            ));
        }
        ops.push(Op::Coll(colls.len() as u16));
        colls.push(CollPlan { kind, bytes, channels, chunk, root, groups });
    }
    finish(s, e, plan, ranks, iterations, ops, colls, flows)
}

/// The groups of layer `l` (at `lp`) of job `s` (at `p`) over `n` ranks.
fn layer_groups(s: &JobSpec, p: &str, l: &LayerSpec, lp: &str, n: usize) -> Result<Groups> {
    let k = match s.model_parallel {
        Some(k) if k == 0 || !n.is_multiple_of(k as usize) => {
            return Err(Error::scenario(format!("{p}.model_parallel"), format!("{k} does not divide the {n} ranks")));
        }
        k => k,
    };
    let (groups, what) = match (l.groups.as_deref(), k) {
        (None | Some("all"), _) => return Ok(Groups::All),
        (Some("model"), Some(k)) => (Groups::Blocks(k), "model-parallel"),
        (Some("data"), Some(k)) => (Groups::Strided(k), "data-parallel"),
        (Some("model" | "data"), None) => {
            return Err(Error::scenario(format!("{lp}.groups"), "needs the job's model_parallel (ranks per model-parallel group)"));
        }
        (Some(o), _) => return Err(Error::scenario(format!("{lp}.groups"), format!("'{o}' is not one of all, model, data"))),
    };
    if groups.size(n) < 2 {
        return Err(Error::scenario(
            format!("{lp}.groups"),
            format!("{what} groups of one rank send nothing (model_parallel = {} of {n} ranks)", k.unwrap_or(0)),
        ));
    }
    Ok(groups)
}

/// The job of `ops` and `colls`, and its queue pairs appended to `flows`.
#[allow(clippy::too_many_arguments)]
fn finish(
    s: &JobSpec,
    e: &Entry,
    plan: &Plan,
    ranks: Vec<u32>,
    iterations: u32,
    ops: Vec<Op>,
    colls: Vec<CollPlan>,
    flows: &mut Vec<FlowPlan>,
) -> Result<JobPlan> {
    let p = e.path;
    let mut job = JobPlan {
        name: e.name.clone(),
        group: e.group,
        ranks,
        start: e.start,
        iterations,
        colls,
        ops,
        overlap: s.overlap.unwrap_or(false),
        first_flow: flows.len() as u32,
        flows: 0,
    };
    // The run keeps a start, an end and a count per (rank, collective, iteration).
    let records = job.ranks.len() as u64 * job.colls.len().max(1) as u64 * iterations as u64;
    if records > MAX_RECORDS {
        return Err(Error::scenario(
            format!("{p}.iterations"),
            format!("{records} (rank, collective, iteration) records are more than {MAX_RECORDS}: use fewer iterations or layers"),
        ));
    }
    let mtu = plan.host.mtu as u64;
    let chunks = graph::count(&job, mtu);
    if chunks > MAX_CHUNKS {
        return Err(Error::scenario(
            format!("{p}.layers"),
            format!("{chunks} chunks per iteration are more than {MAX_CHUNKS}: use larger chunks or fewer ranks"),
        ));
    }
    // What the graph and the records take while built here; the run's copies (one per
    // thread) count in the plan's footprint with the rest of the world.
    use crate::scenario::limits::{CHUNK_BUILD_BYTES, COLL_RECORD_BYTES};
    let bytes = chunks.saturating_mul(CHUNK_BUILD_BYTES).saturating_add(records.saturating_mul(COLL_RECORD_BYTES));
    if bytes > plan.memory_limit {
        return Err(Error::scenario(
            format!("{p}.layers"),
            format!("the job's chunk graph needs about {} MiB, above the memory limit of {} MiB", bytes >> 20, plan.memory_limit >> 20),
        ));
    }
    let g = graph::build(&job, mtu, &format!("{p}.layers"))?;
    job.flows = g.qps.len() as u32;
    for (q, &(a, b)) in g.qps.iter().enumerate() {
        let pkts = g.qp_pkts(q) as u64 * iterations as u64;
        if pkts >= u32::MAX as u64 / 2 {
            return Err(Error::scenario(
                format!("{p}.iterations"),
                "a queue pair would carry more than 2^31 packets; use fewer iterations",
            ));
        }
        flows.push(FlowPlan {
            src: job.ranks[a as usize],
            dst: job.ranks[b as usize],
            size: Some(pkts * mtu),
            start: e.start,
            priority: e.priority,
            rate: None,
            group: e.group,
            cc: 0,
            messages: 1,
            transport: Transport::Roce,
            stop: None,
            sw_limit: None,
        });
    }
    Ok(job)
}

/// The host node of each rank.
fn place(s: &JobSpec, e: &Entry, plan: &Plan, used: &mut [bool]) -> Result<Vec<u32>> {
    let p = e.path;
    let hosts: Vec<u32> = plan.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeKind::Host).map(|(i, _)| i as u32).collect();
    let ranks = match (&s.ranks, s.rank_count) {
        (Some(_), Some(_)) => return Err(Error::scenario(format!("{p}.rank_count"), "give either ranks or rank_count, not both")),
        (None, None) => return Err(Error::scenario(format!("{p}.ranks"), "missing: give ranks (host indices) or rank_count")),
        (Some(list), None) => {
            if s.placement.is_some() {
                return Err(Error::scenario(format!("{p}.placement"), "only with rank_count (ranks lists the hosts)"));
            }
            let mut out = Vec::with_capacity(list.len());
            let mut seen = vec![false; hosts.len()];
            for (i, &h) in list.iter().enumerate() {
                if h < 0 || h as usize >= hosts.len() {
                    return Err(Error::scenario(
                        format!("{p}.ranks[{i}]"),
                        format!("host {h} does not exist (the fabric has {} hosts)", hosts.len()),
                    ));
                }
                if std::mem::replace(&mut seen[h as usize], true) {
                    return Err(Error::scenario(format!("{p}.ranks[{i}]"), format!("host {h} is listed twice")));
                }
                out.push(hosts[h as usize]);
            }
            out
        }
        (None, Some(k)) => {
            let free: Vec<u32> = hosts.iter().copied().filter(|&h| !used[h as usize]).collect();
            if k as usize > free.len() {
                return Err(Error::scenario(
                    format!("{p}.rank_count"),
                    format!("{k} ranks do not fit: {} hosts are free of earlier jobs (the fabric has {})", free.len(), hosts.len()),
                ));
            }
            match s.placement.as_deref().unwrap_or("packed") {
                "packed" => free[..k as usize].to_vec(),
                "spread" => spread(&free, plan, k as usize),
                "spread_pods" => spread_pods(&free, plan, k as usize),
                "random" => {
                    let mut v = free;
                    Rng::stream(plan.seed, &format!("{p}.placement")).shuffle(&mut v);
                    v.truncate(k as usize);
                    v
                }
                o => {
                    return Err(Error::scenario(
                        format!("{p}.placement"),
                        format!("'{o}' is not one of packed, spread, spread_pods, random"),
                    ))
                }
            }
        }
    };
    if ranks.len() < 2 {
        return Err(Error::scenario(format!("{p}.ranks"), format!("a job needs at least 2 ranks (got {})", ranks.len())));
    }
    for &h in &ranks {
        used[h as usize] = true;
    }
    Ok(ranks)
}

/// The free hosts by rack (the switch a host's first link reaches), racks in order of
/// their first free host.
fn racks(free: &[u32], plan: &Plan) -> Vec<(u32, Vec<u32>)> {
    let mut tor = vec![u32::MAX; plan.nodes.len()];
    for l in plan.links.iter().rev() {
        tor[l.a as usize] = l.b;
        tor[l.b as usize] = l.a;
    }
    let mut racks: Vec<(u32, Vec<u32>)> = Vec::new();
    for &h in free {
        match racks.iter_mut().find(|(t, _)| *t == tor[h as usize]) {
            Some((_, v)) => v.push(h),
            None => racks.push((tor[h as usize], vec![h])),
        }
    }
    racks
}

/// Up to `k` items, the first of each list in turn, then the second, ...
fn round_robin(lists: &[Vec<u32>], k: usize) -> Vec<u32> {
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest).flat_map(|i| lists.iter().filter_map(move |v| v.get(i).copied())).take(k).collect()
}

/// `k` of the free hosts, one rack after the other in turn, so that consecutive ranks
/// sit in different racks.
fn spread(free: &[u32], plan: &Plan, k: usize) -> Vec<u32> {
    let lists: Vec<Vec<u32>> = racks(free, plan).into_iter().map(|(_, v)| v).collect();
    round_robin(&lists, k)
}

/// `k` of the free hosts, one pod after the other in turn and, within a pod, one rack
/// after the other, so that consecutive ranks sit in different pods. A pod is the racks
/// whose switches have the same lowest-numbered switch neighbour (on a fat tree, the
/// edge switches of a pod all reach its aggregation switches, and no other's); on a
/// leaf-spine fabric all racks are one pod; a rack switch without switch neighbours is
/// a pod of its own.
fn spread_pods(free: &[u32], plan: &Plan, k: usize) -> Vec<u32> {
    let mut up = vec![u32::MAX; plan.nodes.len()];
    let switch = |x: u32| plan.nodes[x as usize].kind != NodeKind::Host;
    for l in &plan.links {
        if switch(l.a) && switch(l.b) {
            up[l.a as usize] = up[l.a as usize].min(l.b);
            up[l.b as usize] = up[l.b as usize].min(l.a);
        }
    }
    let mut pods: Vec<(u32, Vec<Vec<u32>>)> = Vec::new();
    for (tor, hosts) in racks(free, plan) {
        let key = if up[tor as usize] == u32::MAX { tor } else { up[tor as usize] };
        match pods.iter_mut().find(|(p, _)| *p == key) {
            Some((_, v)) => v.push(hosts),
            None => pods.push((key, vec![hosts])),
        }
    }
    let lists: Vec<Vec<u32>> = pods.iter().map(|(_, r)| round_robin(r, usize::MAX)).collect();
    round_robin(&lists, k)
}
