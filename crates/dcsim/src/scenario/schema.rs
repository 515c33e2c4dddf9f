//! The TOML shape of a scenario file. Every struct rejects unknown keys; the sections
//! with alternatives (`topology`, `[[traffic]]`, `switch.buffer`, `switch.scheduler`)
//! are tagged by a `type` key. A reaction point (`host.cc`, a traffic entry's `cc`) is
//! one flat table with a `type` key; the builder refuses the keys of the other types.
//! Physical quantities are strings with a unit ("40Gbps", "1.5us", "32MiB") parsed by
//! `crate::units`; a bare number where a unit is expected is an error. Defaults come
//! from the `Default` impls in `crate::plan`.

use serde::Deserialize;

use crate::error::{Error, Result};
pub use crate::keys::{de_at, RateStr, SizeStr, TimeStr};
use crate::models::{cc_types, L2CM_TYPES};
pub use crate::models::{CcSpec, L2cmSpec};

// ---------------------------------------------------------------------------------------
// The file

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name of the run; defaults to the file stem.
    pub name: Option<String>,
    /// Free text, ignored by the simulator.
    pub description: Option<String>,
    pub simulation: SimulationSpec,
    #[serde(default)]
    pub host: HostSpec,
    pub topology: TopologySpec,
    #[serde(default)]
    pub switch: SwitchSpec,
    /// `[fabric.<model>]`: the keys of the fabric models that take them there (the
    /// `fabric_models!` list of `models/mod.rs`).
    #[serde(default)]
    pub fabric: crate::models::FabricSpec,
    /// Each entry produces flows; `FlowPlan::group` is the entry's index. The keys
    /// every type shares are in `traffic_common` (same index), taken out of each entry
    /// by `deserialize` before the entry is read by its type.
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    #[serde(skip)]
    pub traffic_common: Vec<TrafficCommon>,
    #[serde(default)]
    pub stats: StatsSpec,
    /// `[variants.NAME]`: named sets of overrides (`"host.cc" = { type = "hpcc" }`, or
    /// nested tables down to the keys they set) that `dcsim sweep --variants` runs as
    /// one dimension. A plain run ignores them.
    pub variants: Option<toml::Table>,
}

/// `[simulation]`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Simulated time at which the run stops (required, > 0).
    pub duration: TimeStr,
    /// Seed of every random choice (default 1).
    pub seed: Option<u64>,
    /// Largest memory the run may need (a size, default 16 GiB or `DCSIM_MEMORY_LIMIT`);
    /// a scenario estimated to need more is refused before it is built.
    pub memory_limit: Option<SizeStr>,
    /// Most events the run may take, estimated (default 2e9 or `DCSIM_MAX_EVENTS`); a
    /// scenario estimated to take more is refused (`scenario::work`).
    pub max_events: Option<u64>,
    /// Threads that run the scenario (default 1). Above 1 the fabric is partitioned and
    /// run in parallel, with results identical to one thread's.
    pub threads: Option<u32>,
    /// Skip steady phases: training jobs' iterations, flows' steady rates (default
    /// false: every packet is simulated); docs/fast_forward.md.
    pub fast_forward: Option<bool>,
    /// Fast-forward: how far the mean iteration period may move, as a fraction (default 0.01).
    pub fast_forward_tolerance: Option<f64>,
    /// Fast-forward: iterations (a job) or intervals (flows) per window of the
    /// steadiness test (>= 2, default 4).
    pub fast_forward_window: Option<u32>,
    /// Fast-forward of flows: the interval their delivery rates are measured over
    /// (default "100us").
    pub fast_forward_interval: Option<TimeStr>,
}

/// `[host]`: NIC and transport settings shared by all hosts.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Largest payload per packet (> 0), default "1024B".
    pub mtu: Option<SizeStr>,
    /// Frame overhead per data packet, default "62B".
    pub header: Option<SizeStr>,
    /// Whether preamble, SFD and inter-frame gap (20 B) occupy the wire, default true.
    pub preamble_ifg: Option<bool>,
    /// Frame size of an ACK, default "66B".
    pub ack_bytes: Option<SizeStr>,
    /// ACK every n-th packet (>= 1), default 1.
    pub ack_every: Option<u32>,
    /// ACK also once this long has passed since the oldest unacknowledged packet
    /// arrived, default "0us" (by count only).
    pub ack_interval: Option<TimeStr>,
    /// Doorbell to first byte on the wire for each posted message, default "0us".
    pub doorbell: Option<TimeStr>,
    /// Go-back-N retransmission timeout, default "1ms".
    pub rto: Option<TimeStr>,
    /// RoCE loss recovery: "go_back_n" (default) or "selective".
    pub retransmission: Option<String>,
    /// Selective repeat: packets above `rcv_next` a receiver can hold, a multiple of 64,
    /// default 4096.
    pub ooo_window: Option<u32>,
    /// Selective repeat: a hole is NAKed once a packet more than this many sequence
    /// numbers above it arrives, default 0 (at once).
    pub reorder_tolerance: Option<u32>,
    /// Where switches queue RoCE ACK/NAK frames: "control" (default) or "data" (the
    /// flow's priority, behind its data).
    pub ack_queue: Option<String>,
    /// `[host.cc]`: the default reaction point of every flow (`Plan::ccs[0]`).
    pub cc: Option<CcSpec>,
    /// `[host.tcp]`: the TCP transport's timers and delayed ACKs.
    pub tcp: Option<crate::models::tcp::TcpKeys>,
}

/// `[topology]`, selected by `type`.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TopologySpec {
    ParkingLot(ParkingLotSpec),
    Dumbbell(DumbbellSpec),
    Star(StarSpec),
    LeafSpine(LeafSpineSpec),
    FatTree(FatTreeSpec),
    Explicit(ExplicitSpec),
    Hpcc(HpccSpec),
}

/// Names of the topology types, for messages.
pub const TOPOLOGY_TYPES: &[&str] = &["parking_lot", "dumbbell", "star", "leaf_spine", "fat_tree", "explicit", "hpcc"];

/// Chain of switches S1..Sn; senders A, B, C, ... attached in order (`senders[i]` of
/// them on switch i+1); the receiver R on the last switch.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    pub switches: u32,
    pub senders: Vec<u32>,
    pub rate: RateStr,
    pub delay: TimeStr,
}

/// Senders s0.. on switch SL, receivers r0.. on switch SR, one SL-SR bottleneck link.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub senders: u32,
    pub receivers: u32,
    pub host_rate: RateStr,
    /// Default: `host_rate`.
    pub bottleneck_rate: Option<RateStr>,
    pub delay: TimeStr,
}

/// Hosts h0..h{N-1} on one switch S0.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    pub hosts: u32,
    pub rate: RateStr,
    pub delay: TimeStr,
}

/// Two-tier Clos: hosts h0.. (`hosts_per_leaf` on each leaf leaf0..), every leaf linked
/// to every spine spine0..
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    pub leaves: u32,
    pub spines: u32,
    pub hosts_per_leaf: u32,
    pub host_rate: RateStr,
    pub fabric_rate: RateStr,
    pub delay: TimeStr,
}

/// k-ary fat tree: k pods of k/2 edge (edge{pod}_{i}) and k/2 aggregation
/// (agg{pod}_{i}) switches, (k/2)^2 cores core{i}, k^3/4 hosts h0..
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Even, >= 2.
    pub k: u32,
    pub host_rate: RateStr,
    pub fabric_rate: RateStr,
    pub delay: TimeStr,
}

/// Named hosts, switches and links.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitSpec {
    pub hosts: Vec<String>,
    pub switches: Vec<String>,
    pub links: Vec<LinkSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub rate: RateStr,
    pub delay: TimeStr,
}

/// A topology file in the HPCC simulator's text format; relative paths are resolved
/// against the scenario file's directory. Nodes are named by their number.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccSpec {
    pub file: String,
}

/// `[switch]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// fifo | per_port | per_flow (default fifo).
    pub arbitration: Option<ArbitrationSpec>,
    /// Buffer cell size: every MMU charge is whole cells; thresholds may be in cells.
    pub cell: Option<SizeStr>,
    /// Lossy drop-tail limit per egress (port, priority); none by default.
    pub egress_limit: Option<SizeStr>,
    pub buffer: Option<BufferSpec>,
    pub scheduler: Option<SchedulerSpec>,
    /// Time to process a frame before it reaches the egress queue (default "0ns").
    pub processing_delay: Option<TimeStr>,
    /// Service-rate changes of egress ports: `[{ node, peer, at, rate }, ...]`.
    pub rate_schedule: Option<Vec<RateStepSpec>>,
    /// `[switch.l2cm]`: IEEE 802.1Qau-family congestion points.
    pub l2cm: Option<L2cmSpec>,
    /// Static routes that replace the shortest paths: `[{ at, to, via }, ...]`.
    pub routes: Option<Vec<RouteSpec>>,
    /// `"shortest"` (default: ECMP over shortest paths) or `"up_down"` (Autonet up-down).
    pub routing: Option<String>,
    /// Root switch of up-down routing (default: the first switch).
    pub up_down_root: Option<String>,
}

/// At switch `at`, frames to host `to` leave toward the neighbour `via`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub at: String,
    pub to: String,
    pub via: String,
}

/// One service-rate change of the port of `node` toward `peer`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateStepSpec {
    pub node: String,
    pub peer: String,
    pub at: TimeStr,
    pub rate: RateStr,
}

/// `transport` of a traffic entry.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TransportSpec {
    Roce,
    Udp,
    Tcp,
    Uet,
}

#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArbitrationSpec {
    Fifo,
    PerPort,
    PerFlow,
}

/// `[switch.buffer]`, selected by `type`.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BufferSpec {
    Shared(SharedBufferSpec),
    Static(StaticBufferSpec),
}

pub use crate::models::pfc::buffer::{SharedBufferKeys as SharedBufferSpec, StaticBufferKeys as StaticBufferSpec};

pub const BUFFER_TYPES: &[&str] = &["shared", "static"];

/// `[switch.scheduler]`, selected by `type`.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SchedulerSpec {
    Strict(EmptySpec),
    Rr(EmptySpec),
    Dwrr(DwrrSpec),
}

pub const SCHEDULER_TYPES: &[&str] = &["strict", "rr", "dwrr"];

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmptySpec {}

/// Deficit weighted round robin.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DwrrSpec {
    /// Eight weights, each >= 1 (default all 1).
    pub weights: Option<Vec<i64>>,
    /// Priorities served strictly before the weighted ones.
    pub strict: Option<Vec<i64>>,
    /// What the deficit counts: "bytes" (default), "packets" or "cells".
    pub unit: Option<String>,
    /// Cell size, with `unit = "cells"`.
    pub cell: Option<SizeStr>,
}

/// One `[[traffic]]` entry, selected by `type`.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TrafficSpec {
    Flows(FlowsSpec),
    Incast(IncastSpec),
    Permutation(PermutationSpec),
    AllToAll(AllToAllSpec),
    Csv(CsvSpec),
    Cdf(CdfSpec),
    IbWriteLat(IbWriteLatSpec),
    IbWriteBw(IbWriteBwSpec),
    Storage(StorageSpec),
    Job(crate::collectives::schema::JobSpec),
    Collective(crate::collectives::schema::CollectiveSpec),
}

/// The keys a `[[traffic]]` entry of any type may have (`TRAFFIC_COMMON_KEYS`), each
/// taken by the types `common_keys_of` lists: read once here, not once per type.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficCommon {
    /// The entry's name in results (the flows table's `group_name`); default the type
    /// and the index, e.g. "incast_1". Unique among the entries.
    pub name: Option<String>,
    /// Default priority of the entry's flows (default 3).
    pub priority: Option<i64>,
    /// When the entry's flows start (default "0us").
    pub start: Option<TimeStr>,
    /// Reaction point of the entry's flows (default: `[host.cc]`).
    pub cc: Option<CcSpec>,
    /// "roce" (default), "tcp" (SACK, RFC 6298 timer; a window-based `cc`), "udp":
    /// constant bit rate at `rate`, no ACKs, no retransmission, or "uet" (the Ultra
    /// Ethernet transport: selective ACKs and repeat, NSCC by default, `[host.uet]`).
    pub transport: Option<TransportSpec>,
    /// Messages per flow, posted one at a time (the next when the previous one is fully
    /// acknowledged); 0 = until the run ends. Default 1. Needs a finite size.
    pub messages: Option<u32>,
    /// Repeat the entry's flows every `period` (same group, each copy shifted by
    /// k x period), `count` times in all or while the copy starts before `until`.
    pub period: Option<TimeStr>,
    pub count: Option<u32>,
    pub until: Option<TimeStr>,
}

/// Every key of `TrafficCommon`.
pub const TRAFFIC_COMMON_KEYS: &[&str] = &["name", "priority", "start", "cc", "transport", "messages", "period", "count", "until"];

/// The common keys a traffic type takes (`name` and `priority` every one).
pub fn common_keys_of(ty: &str) -> &'static [&'static str] {
    match ty {
        "flows" => &["name", "priority", "cc", "transport", "messages", "period", "count", "until"],
        "incast" | "permutation" | "all_to_all" => TRAFFIC_COMMON_KEYS,
        "csv" => &["name", "priority", "cc", "period", "count", "until"],
        "ib_write_lat" | "ib_write_bw" => &["name", "priority", "start", "cc", "period", "count", "until"],
        "cdf" | "storage" => &["name", "priority", "start", "cc"],
        "job" | "collective" => &["name", "priority", "start", "cc", "transport"],
        _ => &["name", "priority"],
    }
}

pub const TRAFFIC_TYPES: &[&str] =
    &["flows", "incast", "permutation", "all_to_all", "csv", "cdf", "ib_write_lat", "ib_write_bw", "storage", "job", "collective"];

/// Closed-loop storage I/O (seed 004's workloads, docs/scenarios.md): clients keep
/// `concurrency` reads and writes outstanding against the servers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSpec {
    /// The clients by name; or use `client_count` (the first N hosts).
    pub clients: Option<Vec<String>>,
    pub client_count: Option<u32>,
    /// The servers by name; or use `server_count` (the last N hosts).
    pub servers: Option<Vec<String>>,
    pub server_count: Option<u32>,
    /// A named profile of the seed's table (read share, block sizes, outstanding I/Os);
    /// the keys below override it.
    pub profile: Option<String>,
    /// Share of I/Os that are reads, in [0, 1].
    pub read_fraction: Option<f64>,
    /// Block sizes as [min, max] (powers of two from min up to max, drawn uniformly) or
    /// [size].
    pub block_sizes: Option<Vec<SizeStr>>,
    /// Outstanding I/Os per client.
    pub concurrency: Option<u32>,
    /// Payload of a read request and of a write completion (default "64B").
    pub request_size: Option<SizeStr>,
    /// No new I/O from this time on (default: the end of the run).
    pub stop: Option<TimeStr>,
}

/// A latency probe like perftest's `ib_write_lat`: one flow that posts `iters` messages
/// of `size` one at a time, the next when the previous one is fully acknowledged (the
/// `messages` machinery); its flows-table row holds the latency statistics.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IbWriteLatSpec {
    pub src: String,
    pub dst: String,
    /// Message size (default "2B", perftest's default).
    pub size: Option<SizeStr>,
    /// Iterations (default 1000, perftest's default).
    pub iters: Option<u32>,
}

/// A background stream like perftest's `ib_write_bw`: one long-lived flow per sender to
/// the receiver, sent back to back or limited to `rate` (perftest's `--rate_limit`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IbWriteBwSpec {
    pub senders: Vec<String>,
    pub receiver: String,
    /// Bytes per stream (default "inf": until the run ends).
    pub size: Option<SizeStr>,
    /// Rate limit of each stream (default: none, line rate).
    pub rate: Option<RateStr>,
    /// How `rate` is kept (perftest's `--rate_limit_type`): "hw" (default), the NIC's
    /// per-queue-pair limiter, which paces packets; "sw", perftest's software limiter,
    /// which posts `burst` messages at once every `burst × message × 8 / rate`.
    pub rate_limiter: Option<String>,
    /// "sw" only: message size (default "65536B", perftest's `-s`).
    pub message: Option<SizeStr>,
    /// "sw" only: messages posted and not completed at most (default 128, `-t`).
    pub tx_depth: Option<u32>,
    /// "sw" only: messages per burst (default `tx_depth`, `--burst_size`).
    pub burst: Option<u32>,
    /// "sw" only: completions are reported every `cq_mod` messages (default 100 for
    /// messages up to 8192 B, else 1, at most `tx_depth`; perftest's `-Q`).
    pub cq_mod: Option<u32>,
}

/// Explicit flows.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowsSpec {
    pub flows: Vec<FlowSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: String,
    pub dst: String,
    /// Payload bytes or "inf" (default "inf").
    pub size: Option<SizeStr>,
    /// Default "0us".
    pub start: Option<TimeStr>,
    /// Default: the entry's priority.
    pub priority: Option<i64>,
    /// Optional pacing rate.
    pub rate: Option<RateStr>,
    /// The source stops sending at this time (optional).
    pub stop: Option<TimeStr>,
}

/// Many senders to one receiver.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// The senders by name; or use `sender_count`.
    pub senders: Option<Vec<String>>,
    /// Take the first N hosts other than the receiver.
    pub sender_count: Option<u32>,
    pub receiver: String,
    /// Default "inf".
    pub size: Option<SizeStr>,
    /// Default 1.
    pub flows_per_sender: Option<u32>,
    pub rate: Option<RateStr>,
}

/// A random derangement: each host sends to one other host, and receives from one.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermutationSpec {
    /// Default: all hosts.
    pub hosts: Option<Vec<String>>,
    pub size: Option<SizeStr>,
    pub rate: Option<RateStr>,
}

/// Every host to every other host.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllToAllSpec {
    pub hosts: Option<Vec<String>>,
    pub size: Option<SizeStr>,
    pub rate: Option<RateStr>,
}

/// Flows from a CSV file with header `src,dst,size,start[,priority]`. Sizes are unit
/// strings ("10KB") or plain integers in bytes, or "inf"; starts are unit strings
/// ("5us") or plain integers in nanoseconds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvSpec {
    pub file: String,
}

/// Poisson arrivals with sizes from a CDF file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CdfSpec {
    pub file: String,
    /// "interpolated" | "step"; default "step" when the file starts with a single-number
    /// line (Homa), else "interpolated".
    pub format: Option<CdfFormatSpec>,
    /// Size multiplier of the file's values, default "1B" ("1460B" for packet units).
    pub size_unit: Option<SizeStr>,
    /// Offered payload load relative to the host link rate, in (0, 1].
    pub load: f64,
    /// Default: all hosts.
    pub hosts: Option<Vec<String>>,
    /// End of the arrival window, default the simulation duration.
    pub stop: Option<TimeStr>,
    /// Whether the CDF column is in percent; default: detected from the last value.
    pub cdf_percent: Option<bool>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CdfFormatSpec {
    Interpolated,
    Step,
}

/// `[stats]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsSpec {
    /// Goodput time-series bin, or "off" (default "100us").
    pub goodput_interval: Option<TimeStr>,
    /// Queue sample period, or "off" (default "100us").
    pub sample_interval: Option<TimeStr>,
    /// Start of the steady-state window, default duration/10; must be < duration.
    pub steady_start: Option<TimeStr>,
    pub max_pfc_events: Option<u64>,
    pub max_rows: Option<u64>,
    /// Per-priority (class) throughput time-series bin, or "off" (default "off").
    pub class_interval: Option<TimeStr>,
    /// Flows (by flow id) whose window and pacing rate are traced (default none).
    pub trace_flows: Option<Vec<i64>>,
    /// pcap export of transmitted frames (docs/pcap.md).
    pub pcap: Option<PcapSpec>,
    /// Interval of the storage KPI table `io`, or "off" (default "100us"; only runs with
    /// storage traffic have the table).
    pub io_interval: Option<TimeStr>,
}

/// `[stats.pcap]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Output file (required).
    pub file: String,
    /// Capture window (default: the whole run).
    pub start: Option<TimeStr>,
    pub end: Option<TimeStr>,
    /// Ports as "NODE:INDEX" or "NODE-PEER" (default: all ports).
    pub ports: Option<Vec<String>>,
    /// Flow ids (default: all flows).
    pub flows: Option<Vec<i64>>,
    /// Most frames written (default 1000000).
    pub limit: Option<u64>,
}

// ---------------------------------------------------------------------------------------
// Deserialization with field paths in the errors

/// Finds a precise path for an error inside a `type`-tagged table (serde cannot track
/// paths through internally tagged enums).
type VariantCheck = dyn Fn(&str, toml::Value, &str) -> Option<(String, String)>;

fn refine_tagged(v: &toml::Value, prefix: &str, kind: &str, types: &[&str], check: &VariantCheck) -> Option<(String, String)> {
    let table = v.as_table()?;
    let ty = match table.get("type") {
        None => return Some((format!("{prefix}.type"), format!("missing; {kind} type is one of {}", types.join(", ")))),
        Some(toml::Value::String(s)) => s.clone(),
        Some(other) => return Some((format!("{prefix}.type"), format!("expected a string, got {}", other.type_str()))),
    };
    if !types.contains(&ty.as_str()) {
        return Some((format!("{prefix}.type"), format!("unknown {kind} type '{ty}', expected one of {}", types.join(", "))));
    }
    let mut rest = table.clone();
    rest.remove("type");
    let (path, msg) = check(&ty, toml::Value::Table(rest.clone()), prefix)?;
    // A key of another type: say which types take it.
    let key = msg.strip_prefix("unknown field '").and_then(|r| r.split('\'').next());
    if let Some((key, value)) = key.filter(|_| path == prefix).and_then(|k| Some((k, rest.get(k)?.clone()))) {
        let owners: Vec<String> = types
            .iter()
            .filter(|t| **t != ty)
            .filter(|t| {
                let takes = |k: &str| {
                    let only = toml::Value::Table([(k.to_string(), value.clone())].into_iter().collect());
                    !check(t, only, prefix).is_some_and(|(_, m)| m.starts_with(&format!("unknown field '{k}'")))
                };
                // A type that takes any key (`python`: parameters of its class) owns none.
                takes(key) && !takes("no such key")
            })
            .map(|t| format!("\"{t}\""))
            .collect();
        if !owners.is_empty() {
            return Some((format!("{prefix}.{key}"), format!("only for type = {}", owners.join(" or "))));
        }
    }
    Some((path, msg))
}

fn check_topology(ty: &str, v: toml::Value, p: &str) -> Option<(String, String)> {
    match ty {
        "parking_lot" => de_at::<ParkingLotSpec>(v, p).err(),
        "dumbbell" => de_at::<DumbbellSpec>(v, p).err(),
        "star" => de_at::<StarSpec>(v, p).err(),
        "leaf_spine" => de_at::<LeafSpineSpec>(v, p).err(),
        "fat_tree" => de_at::<FatTreeSpec>(v, p).err(),
        "explicit" => de_at::<ExplicitSpec>(v, p).err(),
        "hpcc" => de_at::<HpccSpec>(v, p).err(),
        _ => None,
    }
}

fn check_traffic(ty: &str, v: toml::Value, p: &str) -> Option<(String, String)> {
    match ty {
        "flows" => de_at::<FlowsSpec>(v, p).err(),
        "incast" => de_at::<IncastSpec>(v, p).err(),
        "permutation" => de_at::<PermutationSpec>(v, p).err(),
        "all_to_all" => de_at::<AllToAllSpec>(v, p).err(),
        "csv" => de_at::<CsvSpec>(v, p).err(),
        "cdf" => de_at::<CdfSpec>(v, p).err(),
        "ib_write_lat" => de_at::<IbWriteLatSpec>(v, p).err(),
        "ib_write_bw" => de_at::<IbWriteBwSpec>(v, p).err(),
        "storage" => de_at::<StorageSpec>(v, p).err(),
        "job" => de_at::<crate::collectives::schema::JobSpec>(v, p).err(),
        "collective" => de_at::<crate::collectives::schema::CollectiveSpec>(v, p).err(),
        _ => None,
    }
}

fn check_buffer(ty: &str, v: toml::Value, p: &str) -> Option<(String, String)> {
    match ty {
        "shared" => de_at::<SharedBufferSpec>(v, p).err(),
        "static" => de_at::<StaticBufferSpec>(v, p).err(),
        _ => None,
    }
}

fn check_scheduler(ty: &str, v: toml::Value, p: &str) -> Option<(String, String)> {
    match ty {
        "strict" | "rr" => de_at::<EmptySpec>(v, p).err(),
        "dwrr" => de_at::<DwrrSpec>(v, p).err(),
        _ => None,
    }
}

/// Deserializes a whole scenario from a TOML value. Errors name the dotted field path.
pub fn deserialize(v: toml::Value) -> Result<Scenario> {
    let (mut rest, common) = split_traffic(&v)?;
    let places = crate::models::fabric_places();
    place_model_keys(&mut rest, &places)?;
    let at = |path: String, msg: String| {
        let (path, msg) = refine(&rest, &path).unwrap_or((path, msg));
        let msg = with_common_keys(&v, &path, msg);
        let (path, msg) = model_place(&places, path, msg);
        let path = if path.is_empty() { "scenario".to_string() } else { path };
        Error::scenario(path, msg)
    };
    let mut s = de_at::<Scenario>(rest.clone(), "").map_err(|(path, msg)| at(path, msg))?;
    for (i, c) in common.into_iter().enumerate() {
        let p = format!("traffic[{i}]");
        // Only a reaction point in it is a tagged table to look into.
        let common = de_at::<TrafficCommon>(c, &p).map_err(|(path, msg)| {
            let (path, msg) = refine_cc(&v, &path).unwrap_or((path, msg));
            Error::scenario(path, msg)
        })?;
        s.traffic_common.push(common);
    }
    Ok(s)
}

/// (model, place, keys) per fabric model (`models::fabric_places`).
type Places = [(&'static str, &'static str, &'static [&'static str])];

/// Moves each fabric model's keys from where a scenario file has them (`[switch.<table>]`,
/// or keys of `[switch]`) to its field of `[fabric]`, so that `FabricSpec` reads them all.
/// A model placed elsewhere has no `[fabric.<name>]` table.
fn place_model_keys(v: &mut toml::Value, places: &Places) -> Result<()> {
    for &(name, place, keys) in places {
        if place == format!("fabric.{name}") {
            continue;
        }
        if v.get("fabric").and_then(|f| f.get(name)).is_some() {
            return Err(Error::scenario(format!("fabric.{name}"), format!("unknown table: these keys are in [{place}]")));
        }
        let (table, key) = place.split_once('.').unwrap_or((place, ""));
        let Some(t) = v.get_mut(table).and_then(|t| t.as_table_mut()) else { continue };
        let moved = if key.is_empty() {
            let sub: toml::Table = keys.iter().filter_map(|k| t.remove(*k).map(|x| (k.to_string(), x))).collect();
            if sub.is_empty() {
                continue;
            }
            toml::Value::Table(sub)
        } else {
            let Some(x) = t.remove(key) else { continue };
            x
        };
        let Some(fabric) = v.as_table_mut().map(|t| t.entry("fabric").or_insert_with(|| toml::Value::Table(Default::default()))) else {
            continue;
        };
        if let Some(f) = fabric.as_table_mut() {
            f.insert(name.to_string(), moved);
        }
    }
    Ok(())
}

/// An error's path inside a moved model's keys names them where the file has them
/// (`fabric.<name>.<key>` is `<place>.<key>`); an unknown key of a table that models share
/// lists their keys too, and one of `[fabric]` lists only the tables that are there.
fn model_place(places: &Places, path: String, msg: String) -> (String, String) {
    for &(name, place, _) in places {
        let from = format!("fabric.{name}");
        if place == from {
            continue;
        }
        if let Some(rest) = path.strip_prefix(&from).filter(|r| r.is_empty() || r.starts_with(['.', '['])) {
            return (format!("{place}{rest}"), msg);
        }
    }
    let Some(rest) = msg.strip_prefix("unknown field '") else { return (path, msg) };
    let Some((key, tail)) = rest.split_once('\'') else { return (path, msg) };
    // A suggestion already made is made again from the whole list.
    let tail = if tail.starts_with(" (did you mean") { tail.split_once("?)").map_or(tail, |(_, t)| t) } else { tail };
    let Some(list) = tail.strip_prefix(", expected one of ").or_else(|| tail.strip_prefix(", expected ")) else {
        return (path, msg);
    };
    let mut all: Vec<String> = list.split(", ").map(str::to_string).collect();
    if path == "fabric" {
        all.retain(|k| places.iter().any(|&(n, p, _)| format!("'{n}'") == *k && p == format!("fabric.{n}")));
    } else {
        for &(_, place, keys) in places {
            let (table, sub) = place.split_once('.').unwrap_or((place, ""));
            if table == path {
                if sub.is_empty() {
                    all.extend(keys.iter().map(|k| format!("'{k}'")));
                } else {
                    all.push(format!("'{sub}'"));
                }
            }
        }
    }
    let msg = crate::keys::clean_msg(&format!("unknown field '{key}', expected one of {}", all.join(", ")));
    (path, msg)
}

/// An unknown key of `traffic[i]` is also compared with the shared keys its type takes
/// (taken out before the entry is read), so that a misspelled `priority` is named.
fn with_common_keys(v: &toml::Value, path: &str, msg: String) -> String {
    let entry = path.strip_prefix("traffic[").and_then(|r| r.strip_suffix(']')).and_then(|n| n.parse::<usize>().ok());
    let (Some(i), Some(rest)) = (entry, msg.strip_prefix("unknown field '")) else { return msg };
    let Some((key, tail)) = rest.split_once('\'') else { return msg };
    let Some(list) = tail.strip_prefix(", expected one of ").or_else(|| tail.strip_prefix(", expected ")) else { return msg };
    let ty = v.get("traffic").and_then(|t| t.get(i)).and_then(|e| e.get("type")).and_then(|x| x.as_str()).unwrap_or("");
    let common = common_keys_of(ty).iter().map(|k| format!("'{k}'"));
    let all: Vec<String> = list.split(", ").map(str::to_string).chain(common).collect();
    crate::keys::clean_msg(&format!("unknown field '{key}', expected one of {}", all.join(", ")))
}

/// Takes the common keys (`TrafficCommon`) out of each `[[traffic]]` table: the scenario
/// without them, and one table of them per entry. A common key that the entry's type does
/// not take is an error naming it and the types that do.
fn split_traffic(v: &toml::Value) -> Result<(toml::Value, Vec<toml::Value>)> {
    let mut rest = v.clone();
    let mut common = Vec::new();
    let Some(entries) = rest.get_mut("traffic").and_then(|t| t.as_array_mut()) else {
        return Ok((rest, common));
    };
    for (i, e) in entries.iter_mut().enumerate() {
        let mut c = toml::Table::new();
        if let Some(t) = e.as_table_mut() {
            let ty = t.get("type").and_then(|x| x.as_str()).unwrap_or("").to_string();
            for k in TRAFFIC_COMMON_KEYS {
                let Some(x) = t.remove(*k) else { continue };
                if TRAFFIC_TYPES.contains(&ty.as_str()) && !common_keys_of(&ty).contains(k) {
                    let owners: Vec<String> =
                        TRAFFIC_TYPES.iter().filter(|o| common_keys_of(o).contains(k)).map(|o| format!("\"{o}\"")).collect();
                    return Err(Error::scenario(format!("traffic[{i}].{k}"), format!("only for type = {}", owners.join(" or "))));
                }
                c.insert(k.to_string(), x);
            }
        }
        common.push(toml::Value::Table(c));
    }
    Ok((rest, common))
}

fn refine(v: &toml::Value, path: &str) -> Option<(String, String)> {
    let (p, m) = refine_once(v, path)?;
    // A reaction point inside a traffic entry is a tagged table inside a tagged table.
    Some(refine_cc(v, &p).unwrap_or((p, m)))
}

/// A precise error inside a reaction-point table (`host.cc`, `traffic[i].cc`).
fn refine_cc(v: &toml::Value, path: &str) -> Option<(String, String)> {
    let cc = if path.ends_with(".cc") { path.to_string() } else { format!("{}.cc", path.split(".cc.").next()?) };
    if !(path == cc || path.starts_with(&format!("{cc}."))) {
        return None;
    }
    let t = super::overrides::value_at(v, &cc)?;
    refine_tagged(t, &cc, "congestion control", &cc_types(), &CcSpec::error_at)
}

fn refine_once(v: &toml::Value, path: &str) -> Option<(String, String)> {
    if path == "host.cc" || path.starts_with("host.cc.") {
        return refine_cc(v, path);
    }
    if path == "switch.l2cm" || path.starts_with("switch.l2cm.") {
        let t = v.get("switch")?.get("l2cm")?;
        return refine_tagged(t, "switch.l2cm", "l2cm", L2CM_TYPES, &L2cmSpec::error_at);
    }
    if path == "topology" || path.starts_with("topology.") {
        let t = v.get("topology")?;
        return refine_tagged(t, "topology", "topology", TOPOLOGY_TYPES, &check_topology);
    }
    if path == "switch.buffer" || path.starts_with("switch.buffer.") {
        let t = v.get("switch")?.get("buffer")?;
        return refine_tagged(t, "switch.buffer", "buffer", BUFFER_TYPES, &check_buffer);
    }
    if path == "switch.scheduler" || path.starts_with("switch.scheduler.") {
        let t = v.get("switch")?.get("scheduler")?;
        return refine_tagged(t, "switch.scheduler", "scheduler", SCHEDULER_TYPES, &check_scheduler);
    }
    if let Some(rest) = path.strip_prefix("traffic[") {
        let idx: usize = rest.split(']').next()?.parse().ok()?;
        let t = v.get("traffic")?.get(idx)?;
        return refine_tagged(t, &format!("traffic[{idx}]"), "traffic", TRAFFIC_TYPES, &check_traffic);
    }
    None
}
