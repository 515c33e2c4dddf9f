//! The validated, fully resolved description of one run. The scenario layer turns a TOML
//! file into a `Plan` (all names resolved to indices, all units parsed, all defaults
//! applied); the world is built from a `Plan` alone. Tests may also build a `Plan` directly.

use crate::error::{Error, Result};
pub use crate::models::ecn::cnp::CnpPlan;
pub use crate::models::ecn::{Detection, EcnMode, EcnPlan, EcnSpeedPlan, MarkPoint};
pub use crate::models::pfc::{FlowControl, Headroom, PauseMode, PfcPlan, WatchdogPlan};
pub use crate::models::remote_pfc::RemotePfcPlan;
use crate::models::CcPlan;
pub use crate::models::L2Cm;
pub use crate::net::queue::{Arbitration, EtsUnit, SchedulerKind, SchedulerPlan};
use crate::units::{Rate, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub name: String,
    pub seed: u64,
    /// Simulated time at which the run stops.
    pub duration: SimTime,
    pub nodes: Vec<NodePlan>,
    pub links: Vec<LinkPlan>,
    pub flows: Vec<FlowPlan>,
    pub host: HostPlan,
    pub switch: SwitchPlan,
    /// The `[fabric.<model>]` tables, resolved (`models::FabricSpec`).
    pub fabric: crate::models::FabricPlan,
    pub stats: StatsPlan,
    /// Reaction-point algorithms; `FlowPlan::cc` indexes this list. Entry 0 is the
    /// hosts' default (`[host.cc]`).
    pub ccs: Vec<CcPlan>,
    /// Bytes of memory the run may need at most (`scenario::limits`): a plan whose
    /// estimate is larger fails validation before anything of its size is allocated.
    pub memory_limit: u64,
    /// Events the run may take at most, estimated (`scenario::work`): a plan whose
    /// estimate is larger fails validation.
    pub max_events: u64,
    /// Storage I/O workloads (`[[traffic]] type = "storage"`), each over its own flows.
    pub storage: Vec<StoragePlan>,
    /// Training jobs and collectives (`[[traffic]] type = "job"` / `"collective"`), each
    /// over its own flows (`collectives/`).
    pub jobs: Vec<crate::collectives::JobPlan>,
    /// Threads of the run (`simulation.threads`): above 1, the fabric is partitioned and
    /// run by the parallel engine, with the same results.
    pub threads: u32,
    /// `simulation.fast_forward`: skip steady phases, training jobs' iterations or flows'
    /// rates (`sim/fast_forward/`); `None`: every packet is simulated.
    pub fast_forward: Option<FastForwardPlan>,
    /// The name of each `[[traffic]]` entry (`FlowPlan::group` indexes it): its `name`,
    /// or its type and index. Not used by the run; results carry it (`group_name`).
    pub group_names: Vec<String>,
}

/// Fast-forward through steady phases (docs/fast_forward.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastForwardPlan {
    /// How far the mean iteration period may move between two windows, and how wide
    /// its uncertainty may be, as a fraction of it.
    pub tolerance: f64,
    /// Iterations (a job) or intervals (flows) per window.
    pub window: u32,
    /// Flows: the delivery rates are measured over intervals of this length.
    pub interval: SimTime,
}

/// A closed-loop storage workload (seed 004's scenes): every client keeps `concurrency`
/// I/Os outstanding, each on its own pair of queue pairs (client to server, server to
/// client). A read is a request of `request_bytes` to the server, then the block back;
/// a write is the block to the server, then a completion of `request_bytes` back. The
/// next I/O of a slot is issued when the previous one completes.
#[derive(Clone, Debug, PartialEq)]
pub struct StoragePlan {
    /// The `[[traffic]]` entry (flows' `group`).
    pub group: u32,
    /// Share of I/Os that are reads.
    pub read_fraction: f64,
    /// Block sizes: `block_min x 2^k` up to `block_max`, k uniform.
    pub block_min: u64,
    pub block_max: u64,
    /// Payload of a read request and of a write completion.
    pub request_bytes: u64,
    /// The slots' flows: slot k uses flow `first_flow + 2k` (client to server) and
    /// `first_flow + 2k + 1` (server to client).
    pub first_flow: u32,
    pub slots: u32,
    /// No I/O is issued from this time on (the outstanding ones complete).
    pub stop: SimTime,
}

/// The memory limit of a plan when nothing else sets it: 16 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 16 << 30;

/// The event limit of a plan when nothing else sets it (`scenario::work`): above every
/// shipped scenario's estimate (7.2e8 at most), below the runaway settings (a 1 ps sample or
/// timer on 300 us).
pub const DEFAULT_MAX_EVENTS: u64 = 2_000_000_000;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodePlan {
    pub name: String,
    pub kind: NodeKind,
}

/// A full-duplex link between nodes `a` and `b` (indices into `Plan::nodes`).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkPlan {
    pub a: u32,
    pub b: u32,
    pub rate: Rate,
    pub delay: SimTime,
}

/// One RDMA-write-style message on its own queue pair.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowPlan {
    pub src: u32,
    pub dst: u32,
    /// Payload bytes; `None` is a long-lived flow that sends until the run ends.
    pub size: Option<u64>,
    pub start: SimTime,
    pub priority: u8,
    /// Optional pacing rate of the queue pair (defaults to the NIC line rate).
    pub rate: Option<Rate>,
    /// Index of the `[[traffic]]` entry that produced the flow (for grouping results).
    pub group: u32,
    /// Index into `Plan::ccs` of the flow's congestion control.
    pub cc: u32,
    /// Messages of `size` posted one at a time, each when the previous one is fully
    /// acknowledged (closed loop); 0 keeps posting until the run ends. Default 1.
    pub messages: u32,
    /// RoCE (acknowledged, in order, go-back-N), TCP (byte stream with SACK recovery,
    /// `models/tcp/`) or UDP (constant bit rate, no ACKs, no retransmission: what is
    /// dropped is lost).
    pub transport: Transport,
    /// The source stops sending at this time, if given.
    pub stop: Option<SimTime>,
    /// perftest's software rate limiter (`ib_write_bw`, `rate_limiter = "sw"`): the flow
    /// posts its data in bursts of messages instead of being paced (`rate` is then
    /// `None`); `size` stays the stream's total (`None`: until the run ends). Boxed:
    /// few flows have one, and a plan holds every flow of the run (88 B a flow, not 120).
    pub sw_limit: Option<Box<SwLimit>>,
}

const _: () = assert!(std::mem::size_of::<FlowPlan>() == 88);

/// perftest's software rate limiter (`run_iter_bw`, `--rate_limit_type=SW`): every
/// `burst × message × 8 / rate` the application may post `burst` more messages of
/// `message` bytes, at most `tx_depth` posted and not yet completed; completions count
/// `cq_mod` messages at a time. The NIC sends what is posted at its own rate (line rate
/// or its congestion control's).
/// perftest's largest message (`MAX_SIZE`, perftest_parameters.h).
pub const PERFTEST_MAX_MESSAGE: u64 = 8_388_608;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwLimit {
    /// Long-run rate of message bytes.
    pub rate: Rate,
    pub message: u64,
    pub tx_depth: u32,
    pub burst: u32,
    pub cq_mod: u32,
}

impl SwLimit {
    /// What is wrong with these settings for a flow of `size` bytes, if anything: (field,
    /// reason), the field being one of `SwLimit`'s or `size`. The one list of rules behind
    /// the scenario builder's errors (`traffic[i].<field>`) and plan validation's (plans
    /// built in code).
    pub fn problem(&self, size: Option<u64>) -> Option<(&'static str, String)> {
        if self.rate.0 == 0 || self.rate > crate::units::MAX_RATE {
            return Some(("rate", format!("must be > 0 and at most {}", crate::units::MAX_RATE)));
        }
        if self.message == 0 || self.message > PERFTEST_MAX_MESSAGE {
            return Some(("message", format!("must be 1 B..=8 MiB (perftest's range), got {} B", self.message)));
        }
        if self.tx_depth == 0 {
            return Some(("tx_depth", "must be >= 1".into()));
        }
        if self.burst == 0 {
            return Some(("burst", "must be >= 1".into()));
        }
        if self.cq_mod == 0 || self.cq_mod > self.tx_depth {
            return Some(("cq_mod", format!("must be 1..={} (tx_depth), got {}", self.tx_depth, self.cq_mod)));
        }
        match size {
            Some(size) if size % self.message != 0 => Some((
                "size",
                format!("must be a whole number of messages of {} B (perftest sends -n whole messages), got {size} B", self.message),
            )),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    #[default]
    Roce,
    Udp,
    Tcp,
    /// The Ultra Ethernet transport (`models/uet/`): a RoCE-style queue pair with
    /// selective ACKs and repeat, and receiver credits when `host.uet.rccc`.
    Uet,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HostPlan {
    /// Largest payload per packet (bytes). Messages are cut into packets of this size.
    pub mtu: u32,
    /// Frame overhead per data packet (RoCEv2 over IPv4: 62 B, metrics.md 12.4).
    pub header_bytes: u32,
    /// Whether the 20 B of preamble, SFD and inter-frame gap occupy the wire.
    pub preamble_ifg: bool,
    /// Frame size of an ACK (RoCEv2 ACK with AETH: 66 B).
    pub ack_bytes: u32,
    /// The receiver ACKs every n-th packet of a flow (and always the last).
    pub ack_every: u32,
    /// Go-back-N retransmission timeout for lossy fabrics.
    pub rto: SimTime,
    /// RoCE loss recovery: selective repeat (IRN-style: the receiver keeps out-of-order
    /// packets, a NAK names the missing one, the sender resends only it) instead of
    /// go-back-N.
    pub selective_repeat: bool,
    /// Selective repeat: how far above `rcv_next` a receiver holds packets (a multiple
    /// of 64; a packet beyond is dropped, as a NIC without buffer for it would).
    pub ooo_window: u32,
    /// Selective repeat: a hole is NAKed once a packet more than this many sequence
    /// numbers above it arrives (0: at once); reordering up to it costs no resend.
    pub reorder_tolerance: u32,
    /// RoCE ACK/NAK frames cross switches in their flow's priority, queued behind its
    /// data (charged to the MMU, paused by PFC, never ECN-marked), as in the HPCC
    /// study's simulator, instead of the control class. The receiving NIC still sends
    /// them ahead of its data.
    pub acks_in_data: bool,
    /// The NIC's own delays: doorbell to wire, ACK coalescing by time.
    pub timing: crate::models::nic_timing::NicTiming,
    /// The TCP transport (`[host.tcp]`): timers, delayed ACKs.
    pub tcp: crate::models::tcp::TcpParams,
}

#[derive(Clone, Debug, PartialEq)]
pub enum BufferPlan {
    /// Each ingress port owns `port_buffer` bytes; lossless priorities pause at XOFF.
    Static { port_buffer: u64 },
    /// One pool per switch with per-(port, priority) reserve, per-port headroom and a
    /// dynamic threshold alpha = 2^-alpha_shift (pfc.md 1.4, the HPCC simulator's MMU).
    Shared { total: u64, reserve: u64, alpha_shift: u8 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchPlan {
    /// Buffer cell size in bytes (`switch.cell`): every MMU charge rounds up to whole
    /// cells. `None`: byte accounting.
    pub cell: Option<u32>,
    pub buffer: BufferPlan,
    pub scheduler: SchedulerPlan,
    pub arbitration: Arbitration,
    /// Lossy egress drop-tail limit per (port, priority) in bytes, if any.
    pub egress_limit: Option<u64>,
    /// Time a switch takes to process a frame before it reaches the egress queue.
    pub processing_delay: SimTime,
    /// Changes of an egress port's service rate over time (the QCN step test).
    pub rate_schedule: Vec<RateStep>,
    /// Layer-2 congestion management at switch egress queues (802.1Qau family).
    pub l2cm: L2Cm,
    /// Static routes replacing the shortest paths for one (switch, destination host).
    pub routes: Vec<StaticRoute>,
    /// Up-down routing from this root switch (node index); `None`: shortest paths.
    pub up_down_root: Option<u32>,
}

/// At switch `at`, frames to host `to` leave toward the neighbour `via` (node indices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticRoute {
    pub at: u32,
    pub to: u32,
    pub via: u32,
}

/// At `at`, the port of `node` toward `peer` starts serving at `rate`.
#[derive(Clone, Debug, PartialEq)]
pub struct RateStep {
    pub node: u32,
    pub peer: u32,
    pub at: SimTime,
    pub rate: Rate,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StatsPlan {
    /// Bin width of the per-flow goodput time series; `None` disables it.
    pub goodput_interval: Option<SimTime>,
    /// Period of queue-depth samples; `None` disables them.
    pub sample_interval: Option<SimTime>,
    /// Averages reported as "steady state" use [steady_start, duration].
    pub steady_start: SimTime,
    /// Upper bound on rows of the PFC event log (further events are counted, not logged).
    pub max_pfc_events: u64,
    /// Upper bound on rows of the sample and goodput tables each.
    pub max_rows: u64,
    /// Bin width of the per-priority throughput time series; `None` disables it.
    pub class_interval: Option<SimTime>,
    /// Flows whose congestion window and pacing rate are traced (`cc_trace`).
    pub trace_flows: Vec<u32>,
    /// pcap export of transmitted frames (`docs/pcap.md`); `None`: off.
    pub pcap: Option<PcapPlan>,
    /// Interval of the storage KPI table (`io`); used only by runs with storage traffic.
    pub io_interval: Option<SimTime>,
}

/// `[stats.pcap]`: which frames go to the pcap file.
#[derive(Clone, Debug, PartialEq)]
pub struct PcapPlan {
    pub file: String,
    /// Frames starting transmission in [start, end) are captured.
    pub start: SimTime,
    pub end: SimTime,
    /// Ports as "NODE:INDEX" or "NODE-PEER" (empty: every port); `ports_at` resolves
    /// them, for validation and for the world.
    pub ports: Vec<String>,
    /// Flow ids (empty: every flow; PFC frames belong to none and are always captured).
    pub flows: Vec<u32>,
    /// Most frames written.
    pub limit: u64,
}

// Defaults, with their sources (../shared/models/pfc.md, metrics.md). The scenario layer
// starts from these and applies what the file says.

impl Default for HostPlan {
    fn default() -> Self {
        HostPlan {
            mtu: 1024,
            header_bytes: 62,
            preamble_ifg: true,
            ack_bytes: 66,
            ack_every: 1,
            rto: SimTime::ms(1),
            selective_repeat: false,
            ooo_window: 4096,
            reorder_tolerance: 0,
            acks_in_data: false,
            timing: Default::default(),
            tcp: crate::models::tcp::TcpParams::default(),
        }
    }
}

impl Default for SwitchPlan {
    fn default() -> Self {
        SwitchPlan {
            cell: None,
            buffer: BufferPlan::Shared { total: 32 << 20, reserve: 4 * 1024, alpha_shift: 3 },
            scheduler: SchedulerPlan { kind: SchedulerKind::Strict, weights: [1; 8], strict_mask: 0, unit: EtsUnit::Bytes },
            arbitration: Arbitration::Fifo,
            egress_limit: None,
            processing_delay: SimTime::ZERO,
            rate_schedule: Vec::new(),
            l2cm: L2Cm::None,
            routes: Vec::new(),
            up_down_root: None,
        }
    }
}

impl Default for StatsPlan {
    fn default() -> Self {
        StatsPlan {
            goodput_interval: Some(SimTime::us(100)),
            sample_interval: Some(SimTime::us(100)),
            steady_start: SimTime::ZERO,
            max_pfc_events: 1_000_000,
            max_rows: 10_000_000,
            class_interval: None,
            trace_flows: Vec::new(),
            pcap: None,
            io_interval: Some(SimTime::us(100)),
        }
    }
}

impl PcapPlan {
    /// The selected ports as (node, the port's index on the node), in the order given;
    /// an entry that names no port is an error naming `stats.pcap.ports[i]`.
    pub fn ports_at(&self, plan: &Plan) -> Result<Vec<(u32, u32)>> {
        let links = plan.node_links();
        let mut out = Vec::with_capacity(self.ports.len());
        for (i, s) in self.ports.iter().enumerate() {
            let path = format!("stats.pcap.ports[{i}]");
            let node = |name: &str| {
                plan.nodes
                    .iter()
                    .position(|n| n.name == name)
                    .ok_or_else(|| Error::scenario(&path, format!("'{s}': no node named '{name}'")))
            };
            if let Some((a, idx)) = s.rsplit_once(':') {
                let a = node(a)?;
                let deg = links[a].len() as u32;
                let idx: u32 = idx.parse().map_err(|_| Error::scenario(&path, format!("'{s}': port index is not a number")))?;
                if idx >= deg {
                    return Err(Error::scenario(&path, format!("'{s}': node has {deg} ports (0..{})", deg.saturating_sub(1))));
                }
                out.push((a as u32, idx));
            } else if let Some((a, b)) = s.split_once('-') {
                let (a, b) = (node(a)?, node(b)? as u32);
                let l = &plan.links;
                let idx = links[a].iter().position(|&k| (l[k].a as usize == a && l[k].b == b) || (l[k].b as usize == a && l[k].a == b));
                let idx = idx.ok_or_else(|| Error::scenario(&path, format!("'{s}': no link between these nodes")))?;
                out.push((a as u32, idx as u32));
            } else {
                return Err(Error::scenario(&path, format!("'{s}': expected NODE:PORT_INDEX or NODE_A-NODE_B")));
            }
        }
        Ok(out)
    }
}

impl Plan {
    /// Whether frames of priority `prio` must never drop (`PfcPlan::is_lossless`, the
    /// one rule).
    #[inline]
    pub fn is_lossless(&self, prio: u8) -> bool {
        self.fabric.pfc.is_lossless(prio)
    }

    /// The key that makes priorities lossless in this plan, for messages.
    pub fn lossless_key(&self) -> &'static str {
        self.fabric.pfc.lossless_key()
    }

    /// What makes a run's events not each one node's own, with the key that turns it on:
    /// then neither the parallel engine's partitions nor rounds served node by node
    /// (`event/rounds.rs`) can run it, and it is served in time order on one thread.
    pub fn not_node_local(&self) -> Option<&'static str> {
        let p = self;
        let global = [
            (p.stats.pcap.is_some(), "stats.pcap (one capture file in time order)"),
            (!p.storage.is_empty(), "storage traffic (its closed loop spans the fabric)"),
        ];
        let python = p.ccs.iter().any(|c| matches!(c, CcPlan::External(_)));
        global
            .iter()
            .find(|(on, _)| *on)
            .map(|&(_, what)| what)
            .or_else(|| crate::models::FabricModels::not_node_local(p))
            .or_else(|| python.then_some("congestion control of type \"python\""))
    }

    /// What `simulation.fast_forward` can skip in this run (`sim/fast_forward`): training
    /// jobs and nothing else (`Ok(true)`), or flows of RoCE or UDP, each one message or
    /// long-lived (`Ok(false)`); otherwise why not. Flows or jobs that would start at or
    /// after the end never run and do not count.
    pub fn fast_forward_mode(&self) -> std::result::Result<bool, String> {
        let timed = (!self.switch.rate_schedule.is_empty())
            .then_some("switch.rate_schedule")
            .or_else(|| crate::models::FabricModels::not_fast_forwarded(self))
            .or_else(|| (!self.storage.is_empty()).then_some("storage traffic"));
        if let Some(what) = timed {
            return Err(format!("{what} is not fast-forwarded (its changes do not repeat)"));
        }
        let name = |g: u32| {
            let n = self.group_names.get(g as usize).map_or(String::new(), |n| format!(" ({n})"));
            format!("traffic[{g}]{n}")
        };
        let in_job = |f: usize| self.jobs.iter().any(|j| (j.first_flow as usize..(j.first_flow + j.flows) as usize).contains(&f));
        let runs = |f: &&FlowPlan| f.start < self.duration;
        let jobs = self.jobs.iter().filter(|j| j.start < self.duration).count();
        let others: Vec<&FlowPlan> = self.flows.iter().enumerate().filter(|(i, _)| !in_job(*i)).map(|(_, f)| f).filter(runs).collect();
        match (jobs, others.first()) {
            (0, _) => {}
            (_, None) => return Ok(true),
            (_, Some(f)) => {
                return Err(format!("{} runs beside a training job: only jobs alone or flows alone are fast-forwarded", name(f.group)))
            }
        }
        for f in &others {
            let why = if !matches!(f.transport, Transport::Roce | Transport::Udp) {
                "is not RoCE or UDP"
            } else if f.messages != 1 {
                "has flows of several messages"
            } else if f.stop.is_some() {
                "stops at a set time"
            } else if f.sw_limit.is_some() {
                "has a software rate limiter"
            } else {
                continue;
            };
            return Err(format!("{} {why}: it is not fast-forwarded", name(f.group)));
        }
        if others.is_empty() {
            return Err("the run has no traffic".into());
        }
        Ok(false)
    }

    /// The largest frame on the wire: MTU + header (+ preamble and gap if counted).
    pub fn max_wire(&self) -> u32 {
        self.host.mtu + self.host.header_bytes + self.preamble()
    }

    /// Bytes of preamble, start delimiter and inter-frame gap each frame takes on the
    /// wire (0 with `host.preamble_ifg` off).
    pub fn preamble(&self) -> u32 {
        if self.host.preamble_ifg {
            crate::models::pfc::headroom::PREAMBLE_IFG
        } else {
            0
        }
    }

    /// The links of each node in port order: a node's ports are numbered in the order
    /// its links are listed, by the world and by every check made on the plan.
    pub fn node_links(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for (k, l) in self.links.iter().enumerate() {
            out[l.a as usize].push(k);
            out[l.b as usize].push(k);
        }
        out
    }

    /// The static routes (`switch.routes`) as overrides in the world's port numbering
    /// (`node_ports`: each node's ports; `peer_node`: the node at each port's other end).
    /// A route whose next hop is no neighbour is left out (validation names it).
    pub fn route_overrides(
        &self,
        node_ports: &[std::ops::Range<u32>],
        peer_node: &[crate::ids::NodeId],
    ) -> Vec<crate::net::routing::Override> {
        use crate::ids::{NodeId, PortId};
        let port_to = |r: &StaticRoute| node_ports[r.at as usize].clone().find(|&q| peer_node[q as usize].0 == r.via);
        self.switch
            .routes
            .iter()
            .filter_map(|r| Some(crate::net::routing::Override { at: NodeId(r.at), to: NodeId(r.to), port: PortId(port_to(r)?) }))
            .collect()
    }

    /// An empty plan with default settings; tests fill in nodes, links and flows.
    pub fn new(name: &str, duration: SimTime) -> Self {
        Plan {
            name: name.to_string(),
            seed: 1,
            duration,
            nodes: Vec::new(),
            links: Vec::new(),
            flows: Vec::new(),
            host: HostPlan::default(),
            switch: SwitchPlan::default(),
            fabric: Default::default(),
            stats: StatsPlan::default(),
            ccs: vec![CcPlan::None(())],
            memory_limit: DEFAULT_MEMORY_LIMIT,
            max_events: DEFAULT_MAX_EVENTS,
            storage: Vec::new(),
            jobs: Vec::new(),
            threads: 1,
            fast_forward: None,
            group_names: Vec::new(),
        }
    }
}
