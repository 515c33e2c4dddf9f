//! The world (flat arrays of nodes, ports, flows) and the run loop. Handlers are split
//! by what they model: `switch.rs` (forwarding, MMU, scheduling), `host.rs` (NIC, queue
//! pairs, receiver), `output.rs` (result tables). The fabric the models act on is
//! `net::fabric::Fabric` (`self.fx`); a model's hooks take it and their own state.

mod build;
mod checks;
mod fabric_models;
mod fast_forward;
mod flow;
mod flows_table;
mod header_nak;
mod host;
mod link_down;
mod output;
mod parallel;
mod pcap;
mod prefetch;
mod rates_table;
mod reaction;
mod records;
mod setup;
mod storage;
mod sw_limiter;
mod switch;
mod tcp;
mod transports;
mod uet;

use std::collections::VecDeque;

pub(crate) use crate::collectives::world::NO_COLL;
pub(crate) use flow::{FlowHeader, FlowSlots, QpState, Receiver, RxStats, Sender, TxStats, NO_TCP, NO_UET};
pub use rates_table::{PackedRates, COLUMNS as RATES_COLUMNS};
pub use storage::IoKpi;
pub(crate) use storage::NO_IO;
pub(crate) use sw_limiter::NO_SW;

use crate::error::Result;
use crate::event::Event;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::models::fabric_model::Worlds;
use crate::models::Cc;
pub(crate) use crate::net::fabric::{After, Fabric};
pub(crate) use crate::net::port::{Node, Port, Tx};
use crate::plan::{HostPlan, LinkPlan, Plan, StatsPlan};
use crate::results::Results;
use crate::units::{LinkRate, SimTime};

/// A host's NIC: queue pairs ready to send in round-robin order.
#[derive(Default)]
pub(crate) struct Nic {
    pub ready: VecDeque<FlowId>,
    pub parked: [Vec<FlowId>; 8],
}

pub struct Simulation {
    /// The main heap's growth step while the world lives (`alloc::WorldHeap`), on the
    /// first partition; first, so that a world dropped unfinished lets go of it before
    /// the rest is freed (`finish` lets go first thing).
    heap: Option<crate::alloc::WorldHeap>,
    pub(crate) end: SimTime,
    pub(crate) host: HostPlan,
    /// The fabric models' state (the `fabric_models!` list of `models/mod.rs`).
    pub(crate) models: crate::models::FabricModels,
    pub(crate) stats_cfg: StatsPlan,
    /// What the build decided once for the handlers (`setup.rs`).
    pub(crate) setup: setup::Setup,
    /// What the run records for its outputs (`records.rs`), apart from the hot state.
    pub(crate) rec: records::Records,
    pub(crate) links: Vec<LinkPlan>,
    /// `[stats.pcap]`: the capture, if on.
    pub(crate) pcap: Option<Box<pcap::Capture>>,

    /// The fabric: what the models' hooks are given (`net/fabric.rs`).
    pub(crate) fx: Fabric,
    pub(crate) clock: SimTime,
    pub(crate) nics: Vec<Nic>,
    /// Per flow: its fixed description (what its frames' headers say), the sending queue
    /// pair (written only by the source NIC), the receiver (written only by the
    /// destination NIC) and its statistics (written by whoever observes an event). The
    /// descriptions are one table that a parallel run's partitions share (`PerFlow`).
    pub(crate) flows: flow::PerFlow<FlowHeader>,
    /// The source's working state (queue pair, timers, reaction point), created when
    /// the flow starts and retired when it finishes (`flow/slots.rs`; build time for the
    /// flows that `make.init` marks `EAGER`), in the partition of its source only.
    pub(crate) senders: FlowSlots<Sender>,
    pub(crate) cc_timers: FlowSlots<flow::CcTimers>,
    /// What creating a flow's records at its start takes (`build::create_sender`).
    pub(crate) make: flow::FlowMaking,
    /// Made at the flow's first arrival in the destination's partition with the
    /// destination's statistics row; the source's row at its start in the source's
    /// (`build::open_receiver`, `open_tx_stats`; at build for `EAGER` flows). The rows
    /// are kept; a receiver is retired once it has every packet, where nothing else can
    /// reach it (`build::retire_receiver`).
    pub(crate) receivers: FlowSlots<Receiver>,
    pub(crate) tx_stats: FlowSlots<TxStats>,
    pub(crate) rx_stats: FlowSlots<RxStats>,
    /// Reaction-point state per flow, apart from `flows` so that the per-packet path does
    /// not carry it through the cache.
    pub(crate) ccs: FlowSlots<Cc>,
    /// TCP's and UET's per-flow state (`transports.rs`).
    pub(crate) tp: transports::Transports,

    /// Packets that finished crossing a link (every frame kind).
    pub(crate) hops: u64,

    /// Events at one picosecond, counted so that a clock that stops advancing ends the run.
    pub(crate) watchdog: checks::Watchdog,
    /// Storage I/O (`sim/storage.rs`), if the run has any.
    pub(crate) storage: Option<Box<storage::Storage>>,
    /// Training jobs and collectives (`collectives/world.rs`), if the run has any.
    pub(crate) jobs: Option<Box<crate::collectives::world::Jobs>>,
    /// `simulation.fast_forward`: the steadiness test and the skips made
    /// (`sim/fast_forward.rs`), if on.
    pub(crate) ff: Option<Box<fast_forward::FastForward>>,
    /// perftest's software rate limiters (`sim/sw_limiter.rs`), one per flow that has one.
    pub(crate) sw: Vec<sw_limiter::SwLimiter>,

    /// Parallel runs (`simulation.threads`, `sim/parallel/`): this partition's part.
    pub(crate) part: parallel::Partition,
    /// The node each event belongs to (`event/owners.rs`).
    pub(crate) owners: crate::event::owners::Owners,
    /// How long the rounds served node by node may be (`event/rounds.rs`): the shortest
    /// link delay, if it is above zero and every event of the run belongs to one node.
    pub(crate) round_len: Option<SimTime>,
}

impl Simulation {
    /// Builds the world (routing tables, buffers, queue pairs) from a validated plan.
    pub fn new(plan: &Plan) -> Result<Self> {
        let heap = crate::alloc::WorldHeap::hold();
        let mut sim = build::build(plan)?;
        sim.heap = Some(heap);
        if plan.threads > 1 {
            parallel::split(&mut sim, plan)?;
        }
        Ok(sim)
    }

    /// Whether quiet timer expiries are held back instead of scheduled (on by default):
    /// off, the run gives the same results with more events. For checking the engine;
    /// set before the run starts.
    pub fn set_quiet_timers(&mut self, on: bool) {
        self.setup.hold_quiet = on;
        if let Some(par) = self.part.par.as_mut() {
            par.others.iter_mut().for_each(|o| o.setup.hold_quiet = on);
        }
    }

    /// Whether time is served in rounds node by node where the run allows it (the
    /// default), or every event in time order: the same results either way. For checking
    /// the engine; between `run_until` calls.
    pub fn set_node_rounds(&mut self, on: bool) {
        let rounds = self.round_len.filter(|_| on).map(|l| (l, self.owners.clone()));
        if let Some(par) = self.part.par.as_mut() {
            par.others.iter_mut().for_each(|o| o.fx.q.set_rounds(rounds.clone()));
        }
        self.fx.q.set_rounds(rounds);
    }

    /// The length of the rounds this run serves node by node, or `None` if it serves
    /// every event in time order.
    pub fn node_rounds(&self) -> Option<SimTime> {
        self.fx.q.round_len()
    }

    /// Processes events up to and including time `t` (capped at the plan's end).
    /// Returns true while the run has more to do.
    pub fn run_until(&mut self, t: SimTime) -> bool {
        if self.part.par.is_some() {
            return self.run_parallel(t);
        }
        self.run_local_until(t)
    }

    /// `run_until` on this world (a whole run, or one partition of a parallel one).
    pub(crate) fn run_local_until(&mut self, t: SimTime) -> bool {
        let stop = t.min(self.end);
        if self.watchdog.stalled.is_some() || self.models.stopped() {
            return false;
        }
        loop {
            // Samples, the watchdog's polls, storage KPI rows and the deadlock checks are
            // run by the loop, not by events, so that turning them on or off cannot change
            // the order (or the random tie-breaks) of the model's events. Each runs at its
            // own time t: after every event up to t, before any later one.
            let due = self.periodic_due();
            let limit = stop.min(due);
            if self.fx.q.round_len().is_some() {
                while {
                    self.close_full_rate_log();
                    self.fx.q.begin_round(limit)
                } {
                    while let Some((now, ev)) = self.fx.q.pop_round() {
                        if self.serve(now, ev) {
                            return false;
                        }
                    }
                    // A fast-forward skip found during the round is made between rounds.
                    if self.ff.as_ref().is_some_and(|f| f.pending()) {
                        self.fast_forward_now();
                    }
                }
            } else {
                self.close_full_rate_log();
                while let Some((now, ev)) = self.fx.q.pop_until(limit) {
                    if self.serve(now, ev) {
                        return false;
                    }
                }
            }
            if due > stop {
                break;
            }
            // A fast-forward skip moved the periodic work with the world: look again.
            if self.ff.is_some() && self.periodic_due() != due {
                continue;
            }
            if self.run_periodic(due) {
                return false;
            }
        }
        // (After a fast-forward skip the world may be past `stop` already.)
        self.clock = stop.max(self.fx.q.now());
        stop < self.end && !self.fx.q.is_empty()
    }

    /// Once the rates log holds its `stats.max_rows` rows, a row later than all of them
    /// cannot be among the first: it is refused, not kept until the log is cut (which
    /// would bring a log written to its file back into memory; `RateRows`).
    #[inline]
    fn close_full_rate_log(&mut self) {
        let log = &mut self.rec.rate_log;
        if log.len() >= log.max() {
            let after = log.rows().latest().saturating_add(1);
            log.refuse_from((after, 0));
        }
    }

    /// Serves one event, prefetching for one due a few events later. True if the clock
    /// stopped advancing: a model error (valid input always moves it), and the run ends
    /// here for the summary's checks to report it.
    #[inline(always)]
    fn serve(&mut self, now: SimTime, ev: Event) -> bool {
        if self.watchdog.same_time(now) {
            self.clock = now;
            return true;
        }
        if let Some(e) = self.fx.q.ahead(prefetch::AHEAD) {
            self.prefetch_for(e);
        }
        self.clock = now;
        self.dispatch(ev);
        false
    }

    /// The earliest of the next sample, the models' polls, storage KPI row and the models'
    /// whole-fabric checks (a parallel run's partitions leave those to the rounds).
    pub(crate) fn periodic_due(&self) -> SimTime {
        let ff = self.ff.as_ref().map_or(SimTime::MAX, |f| f.next_check());
        self.rec.next_sample.min(self.models.next_poll()).min(self.rec.io_next).min(self.checks_due()).min(ff)
    }

    /// When this world runs the models' next whole-fabric check: never in a partition of
    /// a parallel run (its rounds run the checks over all partitions).
    fn checks_due(&self) -> SimTime {
        if self.part.owned.is_empty() {
            self.models.next_check()
        } else {
            SimTime::MAX
        }
    }

    /// The samples, the models' polls, storage KPI rows and the models' checks (the
    /// deadlock detector's) due at `t`, in that order, with the clock at `t`. True when a
    /// check stops the run (at `t`).
    #[cold]
    #[inline(never)]
    fn run_periodic(&mut self, t: SimTime) -> bool {
        self.fx.q.set_now(t);
        self.clock = t;
        if self.rec.next_sample == t {
            self.take_sample();
        }
        if self.models.next_poll() == t {
            self.models_poll(t);
        }
        if self.rec.io_next == t {
            self.take_io_kpi();
        }
        if self.ff.as_ref().is_some_and(|f| f.next_check() == t) {
            self.ff_flow_check(t);
        }
        if self.checks_due() != t {
            return false;
        }
        let fabrics = [&self.fx];
        self.models.run_checks(t, &Worlds { fabrics: &fabrics, part: &[] })
    }

    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(p) => self.on_tx_done(p),
            Event::Arrive(p, pkt) => self.on_arrive(p, pkt),
            Event::QpWake(f) => self.on_qp_wake(f),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowStop(f) => self.on_flow_stop(f),
            Event::Rto(f, gen) => self.on_rto(f, gen),
            Event::CcTimer(f, kind, gen) => self.on_cc_timer(f, kind, gen),
            Event::Forward(p, pkt) => self.switch_receive(p, pkt),
            Event::PortRate(k) => {
                let (p, rate) = self.setup.rate_schedule[k as usize];
                self.fx.ports[p.idx()].line = LinkRate::new(rate);
            }
            Event::DelAck(f, gen) => self.on_delayed_ack(f, gen),
            Event::SwBurst(f) => self.sw_post(f),
            Event::Rank(k) => self.on_rank(k),
            Event::Credit(n) => self.on_credit_tick(n),
            Event::FastForward => self.fast_forward_now(),
            Event::Model(m) => self.on_model_event(m),
        }
    }

    /// The ports each flow's data frames leave by, from its NIC to its destination, as
    /// the switches route them now (ECMP hash, static routes, up-down routing): port ids
    /// as in the `ports` table. A path that meets no route ends there.
    pub fn flow_paths(&self) -> Vec<Vec<u32>> {
        self.flows
            .iter()
            .enumerate()
            .map(|(f, h)| {
                let mut path = Vec::new();
                let mut port = PortId(self.fx.nodes[h.src.idx()].ports.start);
                while port != PortId::NONE && path.len() <= self.fx.nodes.len() {
                    path.push(port.0);
                    let node = self.fx.ports[self.fx.ports[port.idx()].peer.idx()].node;
                    if self.fx.nodes[node.idx()].is_host {
                        break;
                    }
                    port = self.fx.routing.route(node, h.dst, f as u32);
                }
                path
            })
            .collect()
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.clock
    }
    /// The plan's end time.
    pub fn end(&self) -> SimTime {
        self.end
    }
    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.local_events() + self.others().map(|s| s.local_events()).sum::<u64>()
    }
    /// Packets that finished crossing a link so far.
    pub fn packet_hops(&self) -> u64 {
        self.hops + self.others().map(|s| s.hops).sum::<u64>()
    }
    /// Most packets alive at once so far (a parallel run: the sum of its partitions'
    /// peaks, an upper bound).
    pub fn peak_packets(&self) -> usize {
        self.fx.pool.peak() + self.others().map(|s| s.fx.pool.peak()).sum::<usize>()
    }
    /// Packets alive now (in queues, on links, being processed).
    pub fn packets_in_flight(&self) -> usize {
        self.fx.pool.live() + self.others().map(|s| s.fx.pool.live()).sum::<usize>()
    }
    /// The other partitions of a parallel run.
    fn others(&self) -> impl Iterator<Item = &Simulation> {
        self.part.par.iter().flat_map(|p| p.others.iter())
    }
    /// The time at which the run was stopped because its clock no longer advanced
    /// (more events at one picosecond than any valid run has), if it was.
    pub fn stalled(&self) -> Option<SimTime> {
        self.watchdog.stalled.or(self.others().find_map(|s| s.watchdog.stalled))
    }

    /// Flushes the pcap capture, if any: the first write error, naming the field.
    /// Returns how many frames were written.
    pub fn finish_pcap(&mut self) -> Result<u64> {
        match self.pcap.as_deref_mut() {
            None => Ok(0),
            Some(c) => match c.finish() {
                Some(e) => Err(crate::error::Error::io("stats.pcap.file", e)),
                None => Ok(c.frames()),
            },
        }
    }

    /// Finalises statistics and returns the result tables and summary.
    pub fn finish(self) -> Results {
        let (mut res, at, rates) = self.finish_rates_packed();
        res.tables.insert(at, ("rates".to_string(), rates.into_table()));
        crate::alloc::give_back();
        res
    }

    /// As `finish`, but the rates table, the longest of a long run, is left out and
    /// returned packed (`PackedRates`) with its place in the list of tables, for a reader
    /// that unpacks it when it is read.
    pub fn finish_rates_packed(mut self) -> (Results, usize, PackedRates) {
        // Before the first partition's world and the others' are freed.
        self.heap = None;
        if self.part.par.is_some() {
            self.merge_partitions();
        }
        let (mut res, at) = output::finish(&mut self);
        // The flows and rates tables last, once the world is freed: a long run's largest
        // tables (100 ms of k = 16: 100 MiB and 229 MiB) are not built beside it, nor
        // are the rate rows brought back from their file (`RateRows`) to be sorted.
        let flows = flows_table::FlowRecords::take(&mut self);
        let rates = std::mem::replace(&mut self.rec.rate_log, crate::net::capped_log::CappedLog::new(0));
        drop(self);
        // The world's small records' pages go back to the system before the tables are
        // made, not after: freed but kept by malloc, they would add to the peak of a
        // long run, which is at the rates table's (docs/speed.md).
        crate::alloc::give_back();
        res.tables.insert(at.flows, ("flows".to_string(), flows.table(at.flow_columns)));
        crate::alloc::give_back();
        let rates = PackedRates::of(rates);
        crate::alloc::give_back();
        (res, at.rates, rates)
    }

    #[inline]
    pub(crate) fn now_t(&self) -> SimTime {
        self.fx.q.now()
    }

    #[inline]
    fn on_tx_done(&mut self, p: PortId) {
        self.fx.ports[p.idx()].tx = Tx::Idle;
        self.kick(p);
    }

    /// Whether port `p` is still sending a frame. A transmitter that had nothing queued
    /// when it started its frame has no `TxDone` event (after most frames most fabric
    /// ports go idle): when work comes before the frame ends, the event is scheduled then,
    /// at the time and in the place among tied events it would have had, so the events
    /// are served exactly as if it had been scheduled from the start.
    #[inline(always)]
    pub(crate) fn tx_busy(&mut self, p: PortId) -> bool {
        let now = self.fx.q.now();
        let port = &mut self.fx.ports[p.idx()];
        match port.tx {
            Tx::Idle => false,
            Tx::Busy => true,
            // The frame ended before now: its event would have been served
            // (`EventQueue::passed`'s first test, taken here without the call).
            Tx::BusyQuiet if port.tx_until < now => {
                port.tx = Tx::Idle;
                false
            }
            Tx::BusyQuiet => self.quiet_tx_busy(p),
        }
    }

    /// `tx_busy` of a transmitter without a `TxDone` event whose frame ends now or later:
    /// idle if its event would have been served already, else busy with the event
    /// scheduled.
    #[inline(never)]
    fn quiet_tx_busy(&mut self, p: PortId) -> bool {
        let port = &mut self.fx.ports[p.idx()];
        let until = port.tx_until;
        if self.fx.q.passed(until, Event::TxDone(p)) {
            port.tx = Tx::Idle;
            return false;
        }
        port.tx = Tx::Busy;
        self.fx.q.uncount_elided();
        self.fx.q.schedule(until, Event::TxDone(p));
        true
    }

    /// Left-out `TxDone` events (`tx_busy`) due after the clock: counted as processed
    /// when left out, they would not have been by now.
    fn quiet_ahead(&self) -> u64 {
        self.fx.ports.iter().filter(|p| p.tx == Tx::BusyQuiet && p.tx_until > self.clock).count() as u64
    }

    /// Events processed by this world (a partition's own, in a parallel run).
    pub(crate) fn local_events(&self) -> u64 {
        self.fx.q.processed() - self.quiet_ahead()
    }

    /// Lets an idle transmitter pick its next frame.
    #[inline]
    pub(crate) fn kick(&mut self, p: PortId) {
        if self.fx.ports[p.idx()].host {
            self.host_try_send(p);
        } else {
            self.switch_try_send(p);
        }
    }

    /// The NIC hands a received frame to the transport; a data frame's input buffer space
    /// is free now (with IB credits, it goes back to the sender as credits).
    pub(crate) fn nic_consume(&mut self, p: PortId, pkt: PktId) {
        if self.setup.port_hooks.input_freed {
            let k = *self.fx.pool.get(pkt);
            if !k.is_control() {
                self.input_freed(p, k.prio, k.frame as u64 + self.fx.preamble as u64);
            }
        }
        self.host_receive(p, pkt);
    }

    #[inline]
    fn on_arrive(&mut self, p: PortId, pkt: PktId) {
        if self.setup.port_hooks.lost_on_wire && self.lost_on_wire(p, pkt) {
            return;
        }
        self.hops += 1;
        match self.fx.pool.get(pkt).kind {
            crate::net::packet::PktKind::Pfc | crate::net::packet::PktKind::IbFcp => return self.on_link_frame(p, pkt),
            _ => {}
        }
        if self.fx.ports[p.idx()].host {
            if self.setup.port_hooks.at_host {
                self.host_arrival(p, pkt);
            } else {
                self.host_receive(p, pkt);
            }
        } else if self.setup.processing_delay.0 > 0 {
            let at = self.now_t() + self.setup.processing_delay;
            self.fx.q.schedule(at, Event::Forward(p, pkt));
        } else {
            self.switch_receive(p, pkt);
        }
    }

    /// Starts serializing a frame of `frame` bytes on port `p` (which must be idle):
    /// a data frame of priority `Some(prio)`, or a control frame. The packet itself is
    /// not touched here: it is usually cold in the cache. `quiet`: nothing else is
    /// queued to send behind it (`tx_busy`).
    #[inline]
    pub(crate) fn transmit(&mut self, p: PortId, id: PktId, frame: u32, data_prio: Option<u8>, quiet: bool) {
        let now = self.now_t();
        let wire = frame + self.fx.preamble;
        let port = &mut self.fx.ports[p.idx()];
        debug_assert!(port.tx == Tx::Idle, "port {} starts a frame while sending one", p.0);
        let t = port.line.tx_time(wire as u64);
        port.tx_until = now + t;
        let quiet = quiet && self.setup.quiet_tx;
        port.tx = if quiet { Tx::BusyQuiet } else { Tx::Busy };
        port.wire_bytes += wire as u64;
        let (peer, delay, remote) = (port.peer, port.delay, port.remote);
        match data_prio {
            None => port.ctrl_bytes += frame as u64,
            Some(prio) => {
                let c = &mut self.fx.prio_stats[self.fx.slots.at(p.idx(), prio)];
                c.tx_bytes += frame as u64;
                c.tx_pkts += 1;
                if self.setup.port_hooks.data_started {
                    self.data_started(p, prio, wire as u64);
                }
            }
        }
        if quiet {
            self.fx.q.count_elided();
        } else {
            self.fx.q.schedule(now + t, Event::TxDone(p));
        }
        if self.pcap.is_some() {
            self.capture(p, id, frame);
        }
        if remote {
            // The frame leaves this partition's pool now.
            self.send_remote(now + t + delay, peer, id);
        } else {
            self.fx.q.schedule(now + t + delay, Event::Arrive(peer, id));
        }
    }

    /// Records the queues as they are at `next_sample` (after every event up to that
    /// time), and moves `next_sample` on.
    fn take_sample(&mut self) {
        let now = self.rec.next_sample;
        self.rec.next_sample = match self.stats_cfg.sample_interval {
            Some(iv) if now + iv <= self.end => now + iv,
            _ => SimTime::MAX,
        };
        for p in 0..self.fx.ports.len() {
            let port = &self.fx.ports[p];
            if self.fx.nodes[port.node.idx()].is_host || !self.owns(port.node) {
                continue;
            }
            for prio in 0..8u8 {
                if self.setup.used_prios & (1 << prio) == 0 {
                    continue;
                }
                if self.rec.samples.time.len() as u64 >= self.stats_cfg.max_rows {
                    self.rec.samples_dropped += 1;
                    continue;
                }
                let class = self.class_of(prio);
                self.rec.samples.time.push(now.0);
                self.rec.samples.port.push(p as u32);
                self.rec.samples.prio.push(prio);
                self.rec.samples.egress_bytes.push(self.fx.egress.queue(PortId(p as u32), prio).bytes);
                self.rec.samples.ingress_bytes.push(self.fx.mmu.occupancy(PortId(p as u32), class));
                self.rec.samples.paused.push((port.paused >> prio) & 1);
            }
        }
    }

    /// Whether this world runs the node: always, but on a partition of a parallel run.
    #[inline]
    pub(crate) fn owns(&self, n: NodeId) -> bool {
        self.part.owned.is_empty() || self.part.owned[n.idx()]
    }

    /// The switch buffer's accounting class of a priority (flow control decides).
    #[inline]
    pub(crate) fn class_of(&self, prio: u8) -> u8 {
        self.models.class_of(prio)
    }

    /// Whether a priority is lossless (flow control decides).
    #[inline]
    pub(crate) fn is_lossless(&self, prio: u8) -> bool {
        self.models.is_lossless(prio)
    }
}

/// Convenience: build, run to the end, finish.
pub fn run(plan: &Plan) -> Result<Results> {
    let mut sim = Simulation::new(plan)?;
    while sim.run_until(sim.end()) {}
    sim.finish_pcap()?;
    Ok(sim.finish())
}
