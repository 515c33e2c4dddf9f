//! Builds the world from a plan: ports from links, routing tables, per-port buffer
//! settings (headroom, XOFF/XON, alpha), queue pairs and the first events.

use std::num::NonZeroU64;

use super::flow::{CcTimers, FlowInit, PerFlow, EAGER};
use super::{Fabric, FlowHeader, FlowSlots, Nic, Node, Port, QpState, Receiver, RxStats, Sender, Simulation, Tx, TxStats};
use crate::error::try_vec;
use crate::error::Result;
use crate::event::{Event, EventQueue};
use crate::ids::{FlowId, NodeId, PortId};
use crate::models::fabric_model::BuildCtx;
use crate::models::FabricModels;
use crate::models::{Cc, NicSpec};
use crate::net::packet::{PacketPool, PktFifo};
use crate::net::prio_slots::PrioSlots;
use crate::net::queue::EgressQueues;
use crate::net::routing::{Graph, RouteInputs, Routing};
use crate::net::stats::PrioCounters;
use crate::plan::{NodeKind, Plan, Transport};
use crate::units::{LinkRate, Rate, SimTime};

pub(super) fn build(plan: &Plan) -> Result<Simulation> {
    crate::models::external::check_bound(plan)?;
    let n = plan.nodes.len();
    // Ports: each node's ports are contiguous, in the order its links are listed.
    let mut degree = vec![0u32; n];
    for l in &plan.links {
        degree[l.a as usize] += 1;
        degree[l.b as usize] += 1;
    }
    let mut first = vec![0u32; n + 1];
    for i in 0..n {
        first[i + 1] = first[i] + degree[i];
    }
    let n_ports = first[n] as usize;
    let mut fill = first.clone();
    let mut peer_node = vec![NodeId(0); n_ports];
    let mut ports: Vec<Option<Port>> = (0..n_ports).map(|_| None).collect();
    for l in &plan.links {
        let (a, b) = (l.a as usize, l.b as usize);
        let (pa, pb) = (fill[a], fill[b]);
        fill[a] += 1;
        fill[b] += 1;
        for (p, me, peer, other) in [(pa, a, pb, b), (pb, b, pa, a)] {
            peer_node[p as usize] = NodeId(other as u32);
            ports[p as usize] = Some(Port {
                node: NodeId(me as u32),
                peer: PortId(peer),
                local: (p - first[me]) as u16,
                host: plan.nodes[me].kind == NodeKind::Host,
                line: LinkRate::new(l.rate),
                delay: l.delay,
                tx: Tx::Idle,
                tx_until: SimTime::ZERO,
                paused: 0,
                pause_gen: [0; 8],
                paused_since: [SimTime::ZERO; 8],
                ctrl: PktFifo::default(),
                down: false,
                up_at: SimTime::ZERO,
                ctrl_bytes: 0,
                wire_bytes: 0,
                remote: false,
            });
        }
    }
    let ports: Vec<Port> = ports.into_iter().map(|p| p.expect("every port is filled")).collect();
    let nodes: Vec<Node> = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, np)| Node { name: np.name.clone(), is_host: np.kind == NodeKind::Host, ports: first[i]..first[i + 1] })
        .collect();
    let is_host: Vec<bool> = nodes.iter().map(|n| n.is_host).collect();
    let node_ports: Vec<std::ops::Range<u32>> = nodes.iter().map(|n| n.ports.clone()).collect();
    let overrides = plan.route_overrides(&node_ports, &peer_node);
    let up_down = plan.switch.up_down_root.map(NodeId);
    let routing =
        Routing::build(&Graph { is_host: &is_host, node_ports: &node_ports, peer_node: &peer_node }, plan.seed, &overrides, up_down);
    let routes = RouteInputs { is_host, node_ports, peer_node, overrides, seed: plan.seed, up_down };

    // Buffers, with state for the priorities in use only: the flows', the models'
    // frames', and any other a model keeps state under.
    let used_prios = plan.flows.iter().fold(FabricModels::frame_prios(plan), |m, f| m | 1 << f.priority);
    let slots = PrioSlots::new(FabricModels::state_prios(plan, used_prios));
    let (preamble, max_wire) = (plan.preamble(), plan.max_wire());
    let mmu = crate::models::pfc::switch_buffer::mmu(plan, &nodes, &ports, max_wire, slots)?;
    let radix: Vec<u32> = ports.iter().map(|p| nodes[p.node.idx()].ports.len() as u32).collect();
    let egress = EgressQueues::new(&radix, plan.switch.arbitration, plan.switch.scheduler.clone(), max_wire, slots);

    // Flows.
    let n_flows = plan.flows.len();
    // Fallible: a scenario of many flows in a process with less memory than its limit
    // allows fails here with an error naming what was built, not an abort.
    let (mut flows, mut flow_init) = (try_vec(n_flows, "flows")?, try_vec(n_flows, "flows")?);
    let (mut receivers, mut tx_stats, mut rx_stats) =
        (FlowSlots::new(n_flows, "flows")?, FlowSlots::new(n_flows, "flows")?, FlowSlots::new(n_flows, "flows")?);
    let (mut senders, mut ccs, mut cc_timers) =
        (FlowSlots::new(n_flows, "flows")?, FlowSlots::new(n_flows, "flows")?, FlowSlots::new(n_flows, "flows")?);
    // Senders that may be made at their flow's start and retired at its finish (see
    // `EAGER`): the run allows it, then each flow decides.
    let lazy_run = plan.fast_forward.is_none() && !FabricModels::eager_senders(plan);
    let (mut tcp_tx, mut tcp_rx) = (Vec::new(), Vec::new());
    let (mut uet_tx, mut uet_rx) = (Vec::new(), Vec::new());
    let mut sw = Vec::new();
    // The event wheel spans the longest link delay plus the longest frame time.
    let horizon = ports.iter().map(|p| p.delay + p.line.tx_time(max_wire as u64)).max().unwrap_or(SimTime::us(1));
    let mut q = EventQueue::new(plan.seed, horizon + horizon);
    // Each flow's path in the empty fabric: its ideal FCT, and its base RTT (the largest
    // is the fabric-wide T that HPCC and BDP windows are configured with).
    let mut ideal = try_vec(n_flows, "flows")?;
    let mut base_rtt = SimTime::ZERO;
    for (i, fp) in plan.flows.iter().enumerate() {
        let hops = path(&ports, &nodes, &routing, NodeId(fp.src), NodeId(fp.dst), i as u32)
            .expect("validated plan: every flow's destination is reachable");
        ideal.push(ideal_fct(plan, &hops, fp.size, preamble, fp.transport != Transport::Udp));
        base_rtt = base_rtt.max(round_trip(plan, &hops, plan.host.mtu as u64 + (plan.host.header_bytes + preamble) as u64, preamble));
    }
    let mut int_on = false;
    for (i, fp) in plan.flows.iter().enumerate() {
        let src = fp.src as usize;
        // A software-limited stream is cut into its messages; `size` is its total.
        let (npkts, last) = match fp.sw_limit.as_ref().map(|l| l.message).or(fp.size) {
            None => (u32::MAX, plan.host.mtu),
            Some(s) => {
                let np = s.div_ceil(plan.host.mtu as u64);
                (np as u32, (s - (np - 1) * plan.host.mtu as u64) as u32)
            }
        };
        let host_rate = ports[first[src] as usize].rate();
        let cc_plan = &plan.ccs[fp.cc as usize];
        let cc = Cc::new(cc_plan, &NicSpec { line_rate: host_rate, mtu_wire: max_wire, mss: plan.host.mtu, base_rtt });
        let int = cc.wants_int();
        int_on |= int;
        let tcp = if fp.transport == crate::plan::Transport::Tcp {
            tcp_tx.push(crate::models::tcp::sender::TcpSender::new(&plan.host.tcp));
            // DCTCP needs the exact echo of CE marks (RFC 8257); others RFC 3168's.
            tcp_rx.push(crate::models::tcp::receiver::TcpReceiver::new(matches!(cc_plan, crate::models::CcPlan::Dctcp(_))));
            (tcp_tx.len() - 1) as u32
        } else {
            super::NO_TCP
        };
        let uet = if fp.transport == Transport::Uet {
            let u = &plan.fabric.uet;
            // RCCC's window: 1.5 BDP of the fabric's largest base RTT at the line rate.
            let bdp = host_rate.0 as u128 * base_rtt.0 as u128 / 8_000_000_000_000;
            let max_credit = u.max_credit.unwrap_or((bdp * 3 / 2) as u64);
            uet_tx.push(crate::models::uet::UetTx::new(u, plan.host.ooo_window, max_credit, u.unsolicited.unwrap_or(max_credit)));
            uet_rx.push(crate::models::uet::UetRx { flow: FlowId(i as u32), target: 0, granted: 0, queued: false, grants: 0 });
            (uet_tx.len() - 1) as u32
        } else {
            super::NO_UET
        };
        flows.push(FlowHeader {
            src: NodeId(fp.src),
            dst: NodeId(fp.dst),
            prio: fp.priority,
            group: fp.group,
            start: fp.start,
            size: fp.sw_limit.as_ref().map(|l| l.message).or(fp.size).unwrap_or(u64::MAX),
            npkts,
            last_payload: last,
            udp: fp.transport == crate::plan::Transport::Udp,
            int,
            lossy: !plan.is_lossless(fp.priority),
            tcp,
            uet,
            io: super::NO_IO,
            coll: super::NO_COLL,
        });
        let traced = plan.stats.trace_flows.contains(&(i as u32));
        let lazy = lazy_run
            && fp.transport == Transport::Roce
            && fp.sw_limit.is_none()
            && fp.stop.is_none()
            && !traced
            && cc.window().is_none()
            && !matches!(cc_plan, crate::models::CcPlan::External(_));
        let init = FlowInit {
            rate: fp.rate.and_then(|r| NonZeroU64::new(r.0)),
            messages: fp.messages,
            cc: if lazy { fp.cc } else { EAGER },
            ideal_fct: ideal[i],
        };
        flow_init.push(init);
        if !lazy {
            let sw_ix = match &fp.sw_limit {
                Some(l) => {
                    sw.push(super::sw_limiter::SwLimiter::new(l, npkts, fp.size, fp.start));
                    (sw.len() - 1) as u32
                }
                None => super::NO_SW,
            };
            let mut s = new_sender(&init, &cc, &flows[i], host_rate);
            if fp.sw_limit.is_some() {
                // The software limiter posts its messages itself (`sw_post`).
                (s.messages, s.msg_limit, s.sw) = (0, 0, sw_ix);
            }
            s.traced = traced;
            senders.insert(i, s);
            ccs.insert(i, cc);
            cc_timers.insert(i, CcTimers::default());
            let selective = (plan.host.selective_repeat && fp.transport == Transport::Roce) || fp.transport == Transport::Uet;
            receivers.insert(i, Receiver::new(if selective { plan.host.ooo_window } else { 0 }));
            tx_stats.insert(i, TxStats { min_rate: host_rate, ..TxStats::default() });
            rx_stats.insert(i, RxStats::default());
        }
        if fp.start <= plan.duration {
            q.schedule(fp.start, Event::FlowStart(FlowId(i as u32)));
        }
        if let Some(stop) = fp.stop.filter(|t| *t <= plan.duration) {
            q.schedule(stop, Event::FlowStop(FlowId(i as u32)));
        }
    }

    let mut pool = PacketPool::default();
    if int_on {
        pool.enable_int();
    }
    // Rate schedule: one event per step.
    let mut rate_steps = Vec::new();
    for (k, st) in plan.switch.rate_schedule.iter().enumerate() {
        let port = nodes[st.node as usize]
            .ports
            .clone()
            .find(|&pp| routes.peer_node[pp as usize].0 == st.peer)
            .expect("validated plan: a rate-schedule step names a switch port");
        rate_steps.push((PortId(port), st.rate));
        if st.at <= plan.duration {
            q.schedule(st.at, Event::PortRate(k as u32));
        }
    }
    let port_rates: Vec<Rate> = ports.iter().map(|p| p.rate()).collect();
    let mut ctx = BuildCtx {
        plan,
        nodes: &nodes,
        ports: &ports,
        port_rates: &port_rates,
        q: &mut q,
        pool: &mut pool,
        base_rtt,
        max_wire,
        routes: &routes,
        slots,
    };
    let models = FabricModels::new(&mut ctx);
    // A model takes links down: lossless priorities can drop, quiet sends are off.
    let failures = models.switch_hooks().unusable;
    let port_hooks = models.port_hooks();
    let mut sim = Simulation {
        end: plan.duration,
        host: plan.host.clone(),
        models,
        stats_cfg: plan.stats.clone(),
        setup: super::setup::Setup {
            used_prios,
            egress_limit: plan.switch.egress_limit,
            processing_delay: plan.switch.processing_delay,
            enqueue_hooks: false,
            dequeue_hooks: false,
            switch_hooks: Default::default(),
            sender_hooks: Default::default(),
            port_hooks,
            rto_lossless: failures,
            prefetch_ports: n_ports >= super::prefetch::MIN_PORTS,
            quiet_tx: !failures,
            hold_quiet: true,
            cc_key: crate::rng::stream_key(plan.seed, "cc"),
            name: plan.name.clone(),
            seed: plan.seed,
            rate_schedule: rate_steps,
        },
        rec: super::records::Records::new(plan),
        links: plan.links.clone(),
        pcap: match &plan.stats.pcap {
            Some(pc) => Some(Box::new(super::pcap::build(plan, pc, &first)?)),
            None => None,
        },
        clock: SimTime::ZERO,
        nics: (0..n).map(|_| Nic::default()).collect(),
        hops: 0,
        watchdog: super::checks::Watchdog::new(plan.flows.len(), n_ports),
        storage: None,
        jobs: None,
        ff: None,
        sw,
        part: Default::default(),
        owners: Default::default(),
        heap: None,
        round_len: None,
        fx: Fabric {
            q,
            pool,
            nodes,
            ports,
            routing,
            egress,
            mmu,
            prio_stats: vec![PrioCounters::default(); slots.len(n_ports)],
            slots,
            preamble,
            after: Vec::new(),
        },
        flows: PerFlow::new(flows),
        cc_timers,
        make: super::flow::FlowMaking { init: PerFlow::new(flow_init), cc_plans: plan.ccs.clone(), base_rtt },
        senders,
        receivers,
        tx_stats,
        rx_stats,
        ccs,
        tp: super::transports::Transports { tcp_tx, tcp_rx, uet_tx, uet_rx, pacers: Vec::new(), uet: plan.fabric.uet.clone() },
    };
    if plan.fabric.uet.rccc && plan.flows.iter().any(|f| f.transport == Transport::Uet) {
        // Every host may receive: one credit pacer per node (switches' stay unused).
        let rate = |n: &Node| n.ports.clone().next().map_or(crate::units::Rate(1), |p| sim.fx.ports[p as usize].rate());
        sim.tp.pacers = sim.fx.nodes.iter().map(|n| crate::models::uet::CreditPacer::new(rate(n), plan.fabric.uet.credit_rate)).collect();
        sim.fx.pool.enable_tags(); // the pull target rides in the data frame's tag
    }
    if let Some((st, io_of)) = super::storage::Storage::new(plan) {
        for (h, io) in sim.flows.iter_mut().zip(io_of) {
            h.io = io;
        }
        // The server-to-client queue pairs have nothing to send until a request arrives.
        let io_flows: Vec<usize> = sim.flows.iter().enumerate().filter(|(_, h)| h.io != super::NO_IO).map(|(i, _)| i).collect();
        for f in io_flows {
            sim.make_eager(FlowId(f as u32));
            sim.senders[f].msg_limit = 0;
        }
        sim.rec.io_next = st.first_row(plan.duration);
        sim.storage = Some(Box::new(st));
        sim.storage_start();
    }
    sim.jobs_init(plan)?;
    sim.ff = plan.fast_forward.map(|cfg| Box::new(super::fast_forward::FastForward::new(cfg, plan)));
    sim.owners = owners(&sim);
    // Rounds node by node need every event to be one node's and every link to take time.
    sim.round_len = sim.fx.ports.iter().map(|p| p.delay).min().filter(|l| l.0 > 0 && plan.not_node_local().is_none());
    sim.set_node_rounds(true);
    sim.setup.enqueue_hooks = sim.models.wants_enqueued();
    sim.setup.dequeue_hooks = sim.models.wants_dequeued();
    sim.setup.switch_hooks = sim.models.switch_hooks();
    sim.setup.sender_hooks = sim.models.sender_hooks();
    // A model's limit below the egress limit is where the world's limit test hands
    // frames to it (`overflow`).
    if let Some(l) = sim.models.egress_limit().filter(|&l| l < sim.setup.egress_limit.unwrap_or(u64::MAX)) {
        sim.setup.egress_limit = Some(l);
    }
    Ok(sim)
}

/// A flow's queue pair before its start, from its static description and its reaction
/// point (`cc`) as made.
fn new_sender(init: &FlowInit, cc: &Cc, h: &FlowHeader, host_rate: Rate) -> Sender {
    Sender {
        state: QpState::Idle,
        started: false,
        done: false,
        messages: init.messages,
        msgs_done: 0,
        msg_limit: h.npkts,
        msg_start: h.start,
        // A static algorithm's rate (`fixed_rate`) is never set by a hook: it paces
        // from the start, as the traffic entry's `rate` does.
        pace: Sender::encode_pace([init.rate(), cc.is_static().then(|| cc.rate())].into_iter().flatten().min().filter(|r| *r < host_rate)),
        rate_cap: init.rate().map_or(host_rate, |r| r.min(host_rate)),
        next_seq: 0,
        snd_una: 0,
        resend: None,
        next_tx: SimTime::ZERO,
        rto_gen: 0,
        rto_armed: false,
        rto_mark: 0,
        recover: 0,
        cc_dynamic: !cc.is_static(),
        cc_sends: cc.wants_send(),
        cc_quiet: false,
        cc_draws: 0,
        traced: false,
        cc_acks: cc.wants_acks(),
        windowed: cc.window().is_some(),
        line_rate: host_rate,
        last_tx: SimTime::ZERO,
        last_wire: 0,
        sw: super::NO_SW,
    }
}

impl Simulation {
    /// Makes flow `f`'s sender (queue pair, reaction point, timers) if it has none yet: a
    /// flow whose sender is not made at build time, when it starts (or when storage or a
    /// job first posts on it).
    pub(crate) fn create_sender(&mut self, f: FlowId) {
        if self.senders.has(f.idx()) {
            return;
        }
        let (init, h) = (self.make.init[f.idx()], &self.flows[f.idx()]);
        let host_rate = self.src_rate(f);
        let spec = NicSpec {
            line_rate: host_rate,
            mtu_wire: self.host.mtu + self.host.header_bytes + self.fx.preamble,
            mss: self.host.mtu,
            base_rtt: self.make.base_rtt,
        };
        let cc = Cc::new(&self.make.cc_plans[init.cc as usize], &spec);
        let s = new_sender(&init, &cc, h, host_rate);
        self.senders.insert(f.idx(), s);
        self.ccs.insert(f.idx(), cc);
        self.cc_timers.insert(f.idx(), CcTimers::default());
        self.open_tx_stats(f);
    }

    /// The line rate of flow `f`'s source.
    fn src_rate(&self, f: FlowId) -> Rate {
        self.fx.ports[self.fx.nodes[self.flows[f.idx()].src.idx()].ports.start as usize].rate()
    }

    /// Makes flow `f`'s source statistics row if this partition has none yet (its
    /// start here).
    fn open_tx_stats(&mut self, f: FlowId) {
        if !self.tx_stats.has(f.idx()) {
            self.tx_stats.insert(f.idx(), TxStats { min_rate: self.src_rate(f), ..TxStats::default() });
        }
    }

    /// Makes flow `f`'s receiver and destination statistics row if this partition has
    /// none yet (its first arrival here).
    #[inline]
    pub(crate) fn open_receiver(&mut self, f: FlowId) {
        if !self.receivers.has(f.idx()) {
            // Flows made on demand are RoCE.
            let w = if self.host.selective_repeat { self.host.ooo_window } else { 0 };
            self.receivers.insert(f.idx(), Receiver::new(w));
        }
        self.open_rx_stats(f.idx());
    }

    /// Makes flow `f`'s destination statistics row if this partition has none yet.
    fn open_rx_stats(&mut self, f: usize) {
        if !self.rx_stats.has(f) {
            self.rx_stats.insert(f, RxStats::default());
        }
    }

    /// Makes all of flow `f`'s records now and keeps them for the run (storage and job
    /// queue pairs, known after the flows are built: their senders and receivers are
    /// written outside the flow's own events).
    pub(crate) fn make_eager(&mut self, f: FlowId) {
        self.create_sender(f);
        self.open_tx_stats(f);
        self.open_receiver(f);
        self.make.init[f.idx()].cc = EAGER;
    }

    /// Whether the run reports the receivers' reordering counters (the flows table's
    /// columns, the summary's totals): selective repeat, or a model that reorders.
    pub(crate) fn reports_reordering(&self) -> bool {
        self.host.selective_repeat || self.models.reorders()
    }

    /// When flow `f` completed, from the rows this partition has (`finish_of`).
    pub(crate) fn flow_finish(&self, f: usize) -> Option<SimTime> {
        super::flow::finish_of(self.tx_stats.get(f), self.rx_stats.get(f))
    }

    /// After a run (its partitions merged): a statistics row for every flow, those that
    /// never started or arrived anywhere as built.
    pub(crate) fn fill_stats(&mut self) {
        for f in 0..self.flows.len() {
            self.open_tx_stats(FlowId(f as u32));
            self.open_rx_stats(f);
        }
    }

    /// Flow `f`'s sender finished: retires its records if nothing can reach them any
    /// more (a sender made at its start, idle, with no state elsewhere).
    pub(crate) fn retire_sender(&mut self, f: FlowId) {
        let i = f.idx();
        if self.make.init[i].cc == EAGER || self.senders[i].state != QpState::Idle {
            return;
        }
        self.senders.retire(i);
        self.ccs.retire(i);
        self.cc_timers.retire(i);
    }

    /// Flow `f`'s receiver delivered its last packet: retires it if nothing but a late
    /// copy of a packet can reach it any more (a single-message RoCE flow made at its
    /// start) and no table reads it (its reordering counters, `reports_reordering`). A
    /// late copy is then answered as the receiver would have (`receive_data`).
    pub(crate) fn retire_receiver(&mut self, f: FlowId) {
        let i = f.idx();
        let init = &self.make.init[i];
        if init.cc == EAGER || init.messages != 1 || self.reports_reordering() {
            return;
        }
        self.receivers.retire(i);
    }
}

/// The node of each event (`event/owners.rs`), from the world's tables.
fn owners(sim: &Simulation) -> crate::event::owners::Owners {
    let port = |p: PortId| p.0;
    crate::event::owners::Owners::new(crate::event::owners::OwnerTables {
        nodes: sim.fx.nodes.len(),
        port_node: sim.fx.ports.iter().map(|p| p.node.0).collect(),
        flow_src: sim.flows.iter().map(|h| h.src.0).collect(),
        flow_dst: sim.flows.iter().map(|h| h.dst.0).collect(),
        rate_step_port: sim.setup.rate_schedule.iter().map(|&(p, _)| port(p)).collect(),
        rank_node: sim.jobs.as_ref().map_or(Vec::new(), |j| j.rank_hosts()),
        model_events: sim.models.event_owners(),
    })
}

/// The (rate, delay) of each link on flow `flow`'s ECMP path from `src` to `dst`; `None`
/// if the destination cannot be reached.
fn path(ports: &[Port], nodes: &[Node], routing: &Routing, src: NodeId, dst: NodeId, flow: u32) -> Option<Vec<(Rate, SimTime)>> {
    let mut hops: Vec<(Rate, SimTime)> = Vec::new();
    let mut port = PortId(nodes[src.idx()].ports.start);
    loop {
        let p = &ports[port.idx()];
        hops.push((p.rate(), p.delay));
        let next = ports[p.peer.idx()].node;
        if next == dst {
            return Some(hops);
        }
        if nodes[next.idx()].is_host || hops.len() > nodes.len() {
            return None;
        }
        if routing.next_hops(next, dst).is_empty() {
            return None;
        }
        port = routing.route(next, dst, flow);
    }
}

/// A frame of `first` wire bytes crossing `hops` store-and-forward and its ACK returning.
fn round_trip(plan: &Plan, hops: &[(Rate, SimTime)], first: u64, preamble: u32) -> SimTime {
    let ack = (plan.host.ack_bytes + preamble) as u64;
    // Each switch on the way processes the data and the ACK once.
    let switches = hops.len() as u64 - 1;
    let mut t = SimTime(2 * switches * plan.switch.processing_delay.0);
    for (r, d) in hops {
        t = t + *d + r.tx_time(first) + *d + r.tx_time(ack);
    }
    t
}

/// FCT of the flow alone in the empty fabric on its own ECMP path (metrics.md 12.2 in
/// this simulator's wire model): its frames (full ones, then the last, possibly short)
/// cross the hops store-and-forward back to back, and the last frame's ACK returns (a
/// UDP flow, `acked` false, ends when its last frame arrives). Long-lived flows get zero.
fn ideal_fct(plan: &Plan, hops: &[(Rate, SimTime)], size: Option<u64>, preamble: u32, acked: bool) -> SimTime {
    let Some(size) = size else { return SimTime::ZERO };
    let h = &plan.host;
    let over = (h.header_bytes + preamble) as u64;
    let npkts = size.div_ceil(h.mtu as u64);
    let full = h.mtu as u64 + over;
    let last = size - (npkts - 1) * h.mtu as u64 + over;
    let sum = |hs: &[(Rate, SimTime)], bytes: u64| hs.iter().fold(SimTime::ZERO, |t, (r, _)| t + r.tx_time(bytes));
    // When the last frame leaves the last hop: the longest path through the (frame, hop)
    // grid of serialisations (a tandem of store-and-forward links). The full frames take
    // hops 1..=c, the n - 2 between the first and the last wait at the slowest of those,
    // and the last frame takes hops c.. (all full frames: c at the bottleneck,
    // first frame through every hop and the rest at the bottleneck rate).
    let crossing = if npkts == 1 {
        sum(hops, last)
    } else {
        (0..hops.len())
            .map(|c| {
                let b = (0..=c).min_by_key(|&j| hops[j].0).unwrap();
                let firsts =
                    hops[..=c].iter().enumerate().filter(|&(j, _)| j != b).fold(SimTime::ZERO, |t, (_, (r, _))| t + r.tx_time(full));
                firsts + hops[b].0.tx_time((npkts - 1) * full) + sum(&hops[c..], last)
            })
            .max()
            .unwrap()
    };
    if acked {
        // The last ACK may wait behind the one before it (a full frame's ACK, sent just
        // before the short last frame arrived): ACKs go every `ack_every` frames and on
        // the last, and the ACK of frame k (full frames only before it) is on the reverse
        // path's slowest link `count` ACKs ahead of the last one.
        let every = plan.host.ack_every.max(1) as u64;
        let acks_before = (npkts - 1) / every;
        let b = hops.iter().map(|(r, _)| *r).min().unwrap();
        let ack = b.tx_time((h.ack_bytes + preamble) as u64);
        let arrives = |k: u64| sum(hops, full) + b.tx_time((k - 1) * full);
        let before = [1, acks_before]
            .iter()
            .filter(|&&m| (1..=acks_before).contains(&m))
            .map(|&m| arrives(m * every) + SimTime(ack.0 * (acks_before - m + 1)))
            .max();
        // The links' delays and the switches' processing both ways, and the ACK's frames.
        round_trip(plan, hops, 0, preamble) + before.map_or(crossing, |t| t.max(crossing))
    } else {
        let switches = hops.len() as u64 - 1;
        hops.iter().fold(SimTime(switches * plan.switch.processing_delay.0), |t, (_, d)| t + *d) + crossing
    }
}

#[cfg(test)]
mod tests {
    use crate::results::Results;
    use crate::sim::Simulation;

    /// A receiver retired once it has every packet answers a late copy as it would have:
    /// the same results as with receivers kept for the run (traced flows keep theirs),
    /// on a lossy incast whose senders time out while their last ACKs wait in the queue,
    /// so that copies of packets arrive after their flows completed.
    #[test]
    fn a_retired_receiver_answers_late_copies_as_a_kept_one() {
        let text = "[simulation]\nduration = \"3ms\"\n[host]\nrto = \"15us\"\n[topology]\ntype = \"star\"\nhosts = 9\n\
                    rate = \"10Gbps\"\ndelay = \"1us\"\n[switch.buffer]\ntype = \"static\"\nsize = \"60KB\"\n\
                    [switch.pfc]\nmode = \"off\"\n[[traffic]]\ntype = \"incast\"\nreceiver = \"h0\"\nsender_count = 8\nsize = \"100KB\"\n";
        let run = |sets: &[String]| {
            let plan = crate::scenario::load_str(text, std::path::Path::new("."), sets).unwrap();
            let mut s = Simulation::new(&plan).unwrap();
            while s.run_until(s.end()) {}
            // Flows whose receiver was retired and then got a frame after its last delivery.
            let late = (0..s.flows.len()).filter(|&f| s.receivers.retired(f) && s.rx_stats[f].last_arrival > s.rx_stats[f].last_rx).count();
            (s.finish(), late)
        };
        let tables = |r: &Results| r.tables.iter().filter(|(n, _)| n != "cc_trace").cloned().collect::<Vec<_>>();
        let (retired, late) = run(&[]);
        let (kept, kept_late) = run(&["stats.trace_flows=[0,1,2,3,4,5,6,7]".to_string()]);
        assert!(late > 0, "no late copy reached a retired receiver");
        assert_eq!(kept_late, 0, "traced flows keep their receivers");
        assert!(retired.summary["counters"]["retransmitted_packets"].as_u64().unwrap() > 0);
        assert_eq!(retired.summary["counters"], kept.summary["counters"]);
        assert!(tables(&retired) == tables(&kept), "the tables differ");
    }
}
