//! Resource limits: the memory a scenario needs, estimated from its counts before
//! anything of that size is allocated, against a configurable limit.
//!
//! The estimate counts what grows with the scenario: nodes, ports (two per link, each
//! with eight priorities of queues, counters and MMU state), the routing table (one
//! row per switch and destination host), flows (plan, sender, receiver, statistics,
//! congestion control and the flows table), packets (the pool grows to what the switch
//! buffers and the links can hold) and the sample and goodput tables (at most
//! `stats.max_rows` rows each). It is an estimate ("about"), within a small factor.
//!
//! The limit is `simulation.memory_limit` (a size, e.g. `"64GiB"`), else the environment
//! variable `DCSIM_MEMORY_LIMIT`, else `DEFAULT_MEMORY_LIMIT` (16 GiB) or, when lower,
//! the memory the process may still take (`process_room`: its address-space limit,
//! `RLIMIT_AS`, less what it has mapped; its cgroup's `memory.max` less its usage), so
//! that a container or `ulimit -v` makes a scenario too large for it an error naming
//! the counts instead of an allocation failure.
//!
//! Checked three times, each before the allocation it guards: the topology's counts
//! from its parameters (before the topology is built), the flows of each `[[traffic]]`
//! entry from its parameters (before they are generated), and the whole plan
//! (`validate::validate_plan`, for plans built in code).

use crate::error::{Error, Result};
use crate::plan::{BufferPlan, NodeKind, Plan};
use crate::scenario::schema::TopologySpec;
use crate::units::parse_bytes;

pub use crate::plan::DEFAULT_MEMORY_LIMIT;
/// The environment variable that sets the limit for scenarios that do not.
pub const MEMORY_LIMIT_ENV: &str = "DCSIM_MEMORY_LIMIT";

// Bytes per item, from the sizes of the engine's structures (rounded up).
const NODE_BYTES: u64 = 512;
const PORT_BYTES: u64 = 4 * 1024;
const LINK_BYTES: u64 = 2 * PORT_BYTES + 64;
const ROUTE_BYTES: u64 = 16;
const FLOW_BYTES: u64 = 1024;
const PACKET_BYTES: u64 = 80;
const SAMPLE_ROW_BYTES: u64 = 48;
const GOODPUT_ROW_BYTES: u64 = 32;
/// A training job's chunk in each world (`collectives::graph::Chunk`, its queue pair,
/// its arrivals), and while its graph is built.
pub const CHUNK_BYTES: u64 = 24;
pub const CHUNK_BUILD_BYTES: u64 = 48;
/// A job's record per (rank, collective, iteration), or per (rank, iteration): chunks
/// received, start and end.
pub const COLL_RECORD_BYTES: u64 = 20;
/// A row of the PFC event log, and of the logs capped by `stats.max_rows` (rate
/// changes, congestion intervals, samples and goodput bins together).
pub const PFC_EVENT_ROW_BYTES: u64 = 48;
pub const LOG_ROW_BYTES: u64 = 160;

/// The limit that applies when the scenario does not set one: `DCSIM_MEMORY_LIMIT` if
/// set (a size such as "64GiB"), else 16 GiB or the process's room if lower.
pub fn default_limit() -> Result<u64> {
    match std::env::var(MEMORY_LIMIT_ENV) {
        Ok(v) => parse_bytes(&v).map_err(|e| Error::scenario(MEMORY_LIMIT_ENV, format!("{} (environment variable)", e.0))),
        Err(_) => Ok(match process_room() {
            Some((room, what)) if room < DEFAULT_MEMORY_LIMIT => {
                *FROM_PROCESS.lock().unwrap_or_else(|e| e.into_inner()) = Some((room, what));
                room
            }
            _ => DEFAULT_MEMORY_LIMIT,
        }),
    }
}

/// The last default limit taken from the process's room, and what set it (for the
/// message: raising the setting would not give the process more memory).
static FROM_PROCESS: std::sync::Mutex<Option<(u64, &'static str)>> = std::sync::Mutex::new(None);

/// What set `limit`, when it is the process's room (an address-space or cgroup limit).
pub fn from_process(limit: u64) -> Option<&'static str> {
    FROM_PROCESS.lock().unwrap_or_else(|e| e.into_inner()).filter(|&(room, _)| room == limit).map(|(_, what)| what)
}

/// The memory the process may still take, and what limits it: the address-space limit
/// (`RLIMIT_AS`) less the address space it has mapped, or the cgroup's limit
/// (`memory.max`, v2; `memory.limit_in_bytes`, v1) less its usage, whichever is lower;
/// `None` without either limit.
pub fn process_room() -> Option<(u64, &'static str)> {
    let mut best: Option<(u64, &'static str)> = None;
    let mut take = |room: u64, what: &'static str| {
        if best.is_none_or(|(b, _)| room < b) {
            best = Some((room, what));
        }
    };
    if let Some(limit) = rlimit_as() {
        take(limit.saturating_sub(mapped_bytes()), "the process's address-space limit (RLIMIT_AS, ulimit -v)");
    }
    let read = |p: &str| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<u64>().ok());
    let cgroups = [
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "the cgroup's memory.max"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
            "the cgroup's memory.limit_in_bytes",
        ),
    ];
    for (max, cur, what) in cgroups {
        // "max" (v2) does not parse; v1 writes "no limit" as a page-rounded 2^63.
        if let Some(limit) = read(max).filter(|&l| l < 1 << 62) {
            take(limit.saturating_sub(read(cur).unwrap_or(0)), what);
        }
    }
    best
}

#[cfg(unix)]
#[allow(clippy::unnecessary_cast)] // rlim_t is not u64 on every unix
fn rlimit_as() -> Option<u64> {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur as u64)
}
#[cfg(not(unix))]
fn rlimit_as() -> Option<u64> {
    None
}

/// The process's mapped address space (`/proc/self/statm`, first field, in pages).
fn mapped_bytes() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm").ok().and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok());
    pages.unwrap_or(0).saturating_mul(4096)
}

/// What a scenario is made of, as far as memory goes. Counts saturate, never wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub hosts: u64,
    pub switches: u64,
    pub links: u64,
    pub flows: u64,
    /// Packets alive at once, at most (switch buffers and links full).
    pub packets: u64,
    /// Rows of the sample and goodput tables.
    pub sample_rows: u64,
    pub goodput_rows: u64,
    /// Training jobs: chunks of one iteration's graph, and records per (rank,
    /// collective, iteration) and per (rank, iteration), summed over the jobs.
    pub job_chunks: u64,
    pub job_records: u64,
    /// Copies of the world (`simulation.threads`; 0 counts as 1): each partition of a
    /// parallel run builds every node, link, route and flow; the packets are split.
    pub worlds: u64,
}

impl Footprint {
    /// Estimated bytes.
    pub fn bytes(&self) -> u64 {
        let sum = |parts: &[(u64, u64)]| parts.iter().fold(0u64, |a, &(n, b)| a.saturating_add(n.saturating_mul(b)));
        let world = sum(&[
            (self.hosts.saturating_add(self.switches), NODE_BYTES),
            (self.links, LINK_BYTES),
            (self.switches.saturating_mul(self.hosts), ROUTE_BYTES),
            (self.flows, FLOW_BYTES),
            (self.job_chunks, CHUNK_BYTES),
            (self.job_records, COLL_RECORD_BYTES),
        ]);
        let once = sum(&[(self.packets, PACKET_BYTES), (self.sample_rows, SAMPLE_ROW_BYTES), (self.goodput_rows, GOODPUT_ROW_BYTES)]);
        world.saturating_mul(self.worlds.max(1)).saturating_add(once)
    }

    /// "3456 hosts, 720 switches, 6912 links, 3456 flows, ...".
    pub fn describe(&self) -> String {
        let mut s = format!("{} hosts, {} switches, {} links", self.hosts, self.switches, self.links);
        s += &format!(", {} routing rows", self.switches.saturating_mul(self.hosts));
        if self.flows > 0 {
            s += &format!(", {} flows", self.flows);
        }
        if self.job_chunks + self.job_records > 0 {
            s += &format!(", {} chunks and {} records of training jobs", self.job_chunks, self.job_records);
        }
        if self.packets > 0 {
            s += &format!(", up to {} packets in flight", self.packets);
        }
        if self.sample_rows + self.goodput_rows > 0 {
            s += &format!(", {} sample and goodput rows", self.sample_rows.saturating_add(self.goodput_rows));
        }
        if self.worlds > 1 {
            s += &format!(", a copy of the network and flows for each of {} threads (simulation.threads)", self.worlds);
        }
        s
    }

    /// Errors, naming `path`, when the estimate exceeds `limit`.
    pub fn check(&self, limit: u64, path: &str) -> Result<()> {
        let need = self.bytes();
        if need > limit {
            // The limit came from the environment: say so (raising the setting would
            // not give the process more memory).
            if let Some(what) = from_process(limit) {
                return Err(Error::scenario(
                    path,
                    format!(
                        "this scenario needs about {} for {}; the process may take {} more ({what})",
                        gib(need),
                        self.describe(),
                        gib(limit)
                    ),
                ));
            }
            return Err(Error::scenario(
                path,
                format!(
                    "this scenario needs about {} for {}; the limit is {} (raise it with \
                     simulation.memory_limit, e.g. --set simulation.memory_limit=64GiB, or the \
                     {MEMORY_LIMIT_ENV} environment variable)",
                    gib(need),
                    self.describe(),
                    gib(limit)
                ),
            ));
        }
        Ok(())
    }
}

/// A byte count in GiB with two decimals ("0.01 GiB" at least when not zero).
pub fn gib(b: u64) -> String {
    let g = b as f64 / (1u64 << 30) as f64;
    if b > 0 && g < 0.01 {
        "0.01 GiB".to_string()
    } else {
        format!("{g:.2} GiB")
    }
}

/// (hosts, switches, links) of a generated topology from its parameters, without
/// building it; `None` for topologies listed in full (explicit, HPCC file), whose size
/// is that of the input.
pub fn topology_counts(t: &TopologySpec) -> Option<(u64, u64, u64)> {
    let w = |v: u32| v as u64;
    Some(match t {
        TopologySpec::ParkingLot(p) => {
            let senders = p.senders.iter().fold(0u64, |a, &n| a.saturating_add(w(n)));
            (senders.saturating_add(1), w(p.switches), senders.saturating_add(w(p.switches)))
        }
        TopologySpec::Dumbbell(d) => (w(d.senders) + w(d.receivers), 2, w(d.senders) + w(d.receivers) + 1),
        TopologySpec::Star(s) => (w(s.hosts), 1, w(s.hosts)),
        TopologySpec::LeafSpine(l) => {
            let hosts = w(l.leaves) * w(l.hosts_per_leaf);
            (hosts, w(l.leaves) + w(l.spines), hosts + w(l.leaves) * w(l.spines))
        }
        TopologySpec::FatTree(f) => {
            let (k, h) = (w(f.k), w(f.k) / 2);
            let hosts = k.saturating_mul(h * h);
            (hosts, (2 * k * h).saturating_add(h * h), hosts.saturating_mul(3))
        }
        TopologySpec::Explicit(_) | TopologySpec::Hpcc(_) => return None,
    })
}

/// Packets the switch buffers can hold at once (frames of `max_wire` bytes), for
/// `switch_ports` switch ports on `switches` switches.
pub fn buffer_packets(buffer: &BufferPlan, switches: u64, switch_ports: u64, max_wire: u64) -> u64 {
    let bytes = match *buffer {
        BufferPlan::Static { port_buffer } => port_buffer.saturating_mul(switch_ports),
        BufferPlan::Shared { total, .. } => total.saturating_mul(switches),
    };
    bytes / max_wire.max(1)
}

/// Rows of the sample and goodput tables a plan can fill (capped by `stats.max_rows`).
pub fn output_rows(p: &Plan, switch_ports: u64, flows: u64) -> (u64, u64) {
    let cap = p.stats.max_rows;
    let bins = |iv: crate::units::SimTime| (p.duration.0 / iv.0.max(1)).saturating_add(1);
    let samples = p.stats.sample_interval.map_or(0, |iv| bins(iv).saturating_mul(switch_ports).saturating_mul(8)).min(cap);
    let goodput = p.stats.goodput_interval.map_or(0, |iv| bins(iv).saturating_mul(flows)).min(cap);
    (samples, goodput)
}

/// The footprint of a built plan, with the exact counts.
pub fn plan_footprint(p: &Plan) -> Footprint {
    let hosts = p.nodes.iter().filter(|n| n.kind == NodeKind::Host).count() as u64;
    let switches = p.nodes.len() as u64 - hosts;
    let is_switch = |i: u32| p.nodes.get(i as usize).is_some_and(|n| n.kind == NodeKind::Switch);
    let switch_ports = p.links.iter().map(|l| is_switch(l.a) as u64 + is_switch(l.b) as u64).sum();
    let max_wire = crate::scenario::validate::max_wire(p) as u64;
    // Frames on the wire: both directions of every link, delay x rate.
    let on_links = p.links.iter().fold(0u64, |a, l| {
        let bits = (l.delay.0 as u128 * l.rate.0 as u128 / 1_000_000_000_000) as u64;
        a.saturating_add(2 * (bits / 8 / max_wire.max(1) + 1))
    });
    let flows = p.flows.len() as u64;
    let (sample_rows, goodput_rows) = output_rows(p, switch_ports, flows);
    let mtu = p.host.mtu as u64;
    let job_chunks = p.jobs.iter().fold(0u64, |a, j| a.saturating_add(crate::collectives::graph::count(j, mtu)));
    let job_records = p.jobs.iter().fold(0u64, |a, j| {
        let ranks_iters = (j.ranks.len() as u64).saturating_mul(j.iterations as u64);
        a.saturating_add(ranks_iters.saturating_mul(j.colls.len() as u64 + 1))
    });
    Footprint {
        hosts,
        switches,
        links: p.links.len() as u64,
        flows,
        packets: buffer_packets(&p.switch.buffer, switches, switch_ports, max_wire).saturating_add(on_links),
        sample_rows,
        goodput_rows,
        job_chunks,
        job_records,
        worlds: p.threads.min(crate::scenario::validate::MAX_THREADS) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_need_counts_and_limit() {
        let f = Footprint { hosts: 1 << 20, switches: 1 << 12, links: 1 << 21, ..Default::default() };
        let e = f.check(1 << 30, "topology").unwrap_err().to_string();
        assert!(e.starts_with("topology: this scenario needs about "), "{e}");
        assert!(e.contains("GiB for 1048576 hosts, 4096 switches") && e.contains("the limit is 1.00 GiB"), "{e}");
        assert!(e.contains("simulation.memory_limit") && e.contains(MEMORY_LIMIT_ENV), "{e}");
        assert!(Footprint { hosts: 16, switches: 20, links: 48, flows: 16, ..Default::default() }.check(1 << 30, "x").is_ok());
        // Each thread's partition holds the whole world; the packets are split.
        let one = Footprint { hosts: 1024, switches: 320, links: 3072, flows: 1000, packets: 1000, ..Default::default() };
        let two = Footprint { worlds: 2, ..one };
        assert_eq!(two.bytes() - one.bytes(), one.bytes() - 1000 * PACKET_BYTES);
        assert!(two.describe().contains("each of 2 threads (simulation.threads)"), "{}", two.describe());
        assert!(two.check(one.bytes(), "traffic").unwrap_err().to_string().contains("simulation.threads"));
        // Saturating, never wrapping.
        let huge = Footprint { hosts: u64::MAX, switches: u64::MAX, ..Default::default() };
        assert_eq!(huge.bytes(), u64::MAX);
    }
}
