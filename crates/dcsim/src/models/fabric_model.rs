//! What every fabric model of the `fabric_models!` list (`models/mod.rs`) gives the
//! world beside its hooks: how it is built, its result tables, its part of
//! `summary.json`, and how a parallel run's partitions of it become one. Every method
//! but `new` has a default that does nothing, so a model states only what it has.

use crate::event::owners::Subject;
use crate::event::{Event, EventQueue, ModelEvent};
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::fabric::Fabric;
use crate::net::mmu::DropReason;
use crate::net::packet::{Packet, PacketPool, PktKind};
use crate::net::port::{Node, Port};
use crate::net::queue::Queued;
use crate::net::routing::RouteInputs;
use crate::plan::Plan;
use crate::results::Table;
use crate::units::{Rate, SimTime};

/// What a fabric model is built from: the plan and the fabric as far as it is built.
pub(crate) struct BuildCtx<'a> {
    pub plan: &'a Plan,
    pub nodes: &'a [Node],
    pub ports: &'a [Port],
    /// Each port's line rate.
    pub port_rates: &'a [Rate],
    /// For a model's first events.
    pub q: &'a mut EventQueue,
    /// For a model whose frames carry extra records (`PacketPool::enable_tags`).
    pub pool: &'a mut PacketPool,
    /// The largest base round trip among the run's flows.
    pub base_rtt: SimTime,
    /// The largest data frame on the wire, preamble and gap included.
    pub max_wire: u32,
    /// Where each (port, priority)'s state is in per-(port, priority) arrays.
    pub slots: crate::net::prio_slots::PrioSlots,
    /// What the routes were computed from (for a model that recomputes them).
    pub routes: &'a RouteInputs,
}

impl BuildCtx<'_> {
    /// The port of host `h` (its first and only one).
    pub fn host_port(&self, h: u32) -> crate::ids::PortId {
        crate::ids::PortId(self.nodes[h as usize].ports.start)
    }
}

/// The result tables of a run, in the order they are made.
pub(crate) type Tables = Vec<(String, Table)>;

/// A flow's source and destination hosts, as its frames' headers say (for tables that
/// name the flows a model saw).
pub(crate) type FlowEnds<'a> = &'a dyn Fn(FlowId) -> (NodeId, NodeId);

/// A frame of a data class just queued at a switch egress: port `out`, priority `prio`,
/// from the switch's ingress port `in_local`; the queue held `q_before` bytes before it.
pub(crate) struct Enqueued<'a> {
    pub out: PortId,
    pub prio: u8,
    pub id: PktId,
    pub pkt: &'a Packet,
    pub in_local: u32,
    pub q_before: u64,
    pub lossless: bool,
}

pub(crate) trait FabricModel: Sized {
    /// The model's state for a run of `ctx.plan` (inert if the plan does not use it).
    fn new(ctx: &mut BuildCtx) -> Self;

    /// Whether `enqueued` acts in this run: the world tests the models' answers once per
    /// frame, as one flag.
    fn wants_enqueued(&self) -> bool {
        false
    }

    /// A frame was queued at a switch egress (`Enqueued`). `src(flow)` is a flow's source
    /// host, as its frames' headers say. What the hook asks of the world (`Fabric::kick`)
    /// is done after every model's hook has run.
    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, _fx: &mut Fabric, _e: &Enqueued, _src: &S) {}

    /// Whether `dequeued` acts in this run (one flag for all models, as for `enqueued`).
    fn wants_dequeued(&self) -> bool {
        false
    }

    /// Frame `item` left switch egress (`out`, `prio`) for the wire; the queue holds
    /// `q_after` bytes behind it.
    fn dequeued(&mut self, _fx: &mut Fabric, _out: PortId, _prio: u8, _item: &Queued, _q_after: u64) {}

    /// Fast-forward moved the world `by` later (`sim/fast_forward`): the points in time
    /// the model holds outside events move too (its events have moved).
    fn shift_times(&mut self, _by: SimTime) {}

    /// Appends the model's result tables. `fx` is the fabric at the end of the run.
    fn tables(&self, _fx: &Fabric, _ends: FlowEnds, _out: &mut Tables) {}

    /// Adds the model's part of `summary.json`: a top-level section, or keys inside
    /// `counters` or `outputs` (the summary already has both).
    fn summary(&self, _fx: &Fabric, _summary: &mut serde_json::Value) {}

    /// The end of a parallel run: takes from `other`, the same model in another
    /// partition, what that partition ran; `theirs(node)` says whether a node was its.
    fn merge(&mut self, _other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {}

    /// The model's kinds of event (`Event::Model`, made with `model_event`): each kind's
    /// number, which the event's tie key is made of (one no other event uses), and whose
    /// event it is (the parallel engine's partitions and the rounds keep each node's).
    const EVENTS: &'static [(u8, Subject)] = &[];

    /// For an event kind of `Subject::Listed`: the port each index acts on.
    fn event_ports(&self, _kind: u8) -> Vec<u32> {
        Vec::new()
    }

    /// One of the model's events is due. What it asks of the world (`Fabric::after`) is
    /// done when it returns; `Some(next)` then calls it again with `next` (never
    /// scheduled), for a hook whose every step must see the effects of the one before.
    fn on_event<F: Fn(FlowId) -> FlowInfo>(&mut self, _fx: &mut Fabric, _ev: ModelEvent, _cx: &EventCtx<F>) -> Option<ModelEvent> {
        None
    }

    /// Whether the ingress (`port`, `class`), whose XOFF this model sent, is back under
    /// its XON threshold (a refresh of the XOFF asks); `None`: not this model's (the
    /// first model that answers decides; none: the switch buffer).
    fn ingress_under_xon(&mut self, _fx: &Fabric, _port: PortId, _class: u8) -> Option<bool> {
        None
    }

    /// Whether this model takes links down (`unusable`, `lost_on_wire` and the rest of
    /// the down-port hooks act: `SwitchHooks::unusable`, `PortHooks::lost_on_wire`).
    fn wants_down_ports(&self) -> bool {
        false
    }

    /// Whether a frame must not leave by `out`: its link is down, or `PortId::NONE` (the
    /// switch has no route left).
    #[inline]
    fn unusable(&self, _fx: &Fabric, _out: PortId) -> bool {
        false
    }

    /// A frame routed to a port it cannot leave by (`unusable`): counted; a control
    /// frame freed by the model that frees it, `true` for a data frame the world loses
    /// (`lost_at_down`).
    fn drop_unusable(&mut self, _fx: &mut Fabric, _out: PortId, _id: PktId) -> bool {
        false
    }

    /// Whether the frame `id` arriving at port `p` was on the wire of a link when it
    /// failed (counted; the world drops it).
    #[inline]
    fn lost_on_wire(&mut self, _fx: &Fabric, _p: PortId, _id: PktId) -> bool {
        false
    }

    /// Port `p`'s link is down (`After::PortDown`, or its transmitter found it down):
    /// the control frames waiting there are the model's to drop.
    fn port_down(&mut self, _fx: &mut Fabric, _p: PortId) {}

    /// A frame of `flow` lost to a down link, `counted` against the flow if data,
    /// `queued` if it waited at the port when the link failed.
    fn lost_at_down(&mut self, _flow: FlowId, _counted: bool, _queued: bool) {}

    /// The switch buffer's accounting class of priority `prio`, if this model decides it
    /// (the first that answers; none: the priority itself).
    #[inline]
    fn class_of(&self, _prio: u8) -> Option<u8> {
        None
    }

    /// Whether frames of priority `prio` must never drop, if this model decides it (the
    /// first that answers; none: lossy).
    #[inline]
    fn lossless(&self, _prio: u8) -> Option<bool> {
        None
    }

    /// The ingress (`port`, `class`) crossed its XOFF threshold (`xoff`) or fell back
    /// under XON: what the link's flow control sends upstream (an XON carries
    /// `xon_quanta`, what `xon_quanta` asked).
    fn pause_upstream(&mut self, _fx: &mut Fabric, _port: PortId, _class: u8, _xoff: bool, _xon_quanta: u32) {}

    /// The pause, in quanta, that an XON out of (`port`, `class`) must still carry for
    /// this model (a pause it holds for the port's peer); 0: none.
    fn xon_quanta(&self, _fx: &Fabric, _port: PortId, _class: u8) -> u32 {
        0
    }

    /// Whether the model owns link-level control frames of `kind` (the world hands each
    /// one that reaches a port to the first model that owns its kind: `on_frame`).
    fn owns_frame(_kind: PktKind) -> bool {
        false
    }

    /// A link-level control frame `pkt` reached port `p`, before its owner's hook: the
    /// priorities it names that this model holds against it (a queue the PFC watchdog
    /// holds in a storm ignores pauses).
    fn frame_held(&mut self, _fx: &Fabric, _p: PortId, _pkt: &Packet) -> u8 {
        0
    }

    /// A control frame `id` of a kind the model owns reached port `p`; `held`: the
    /// priorities other models hold against it (`frame_held`).
    fn on_frame(&mut self, _fx: &mut Fabric, _p: PortId, _id: PktId, _held: u8) {}

    /// When the model's next poll is due (`SimTime::MAX`: never). A poll is work the run
    /// loop does between events at its period, as it takes samples: not an event, so it
    /// neither counts as one nor takes part in the order of tied events.
    fn next_poll(&self) -> SimTime {
        SimTime::MAX
    }

    /// The model's poll due now, step by step as `on_event`: `step` 0 starts it, and
    /// `Some(next)` calls it again with `next` once what it asked of the world is done.
    /// `owned[node]`: whether this partition of a parallel run runs the node (empty: all).
    fn on_poll(&mut self, _fx: &mut Fabric, _step: u32, _owned: &[bool]) -> Option<u32> {
        None
    }

    /// The model's checks of a plan: its keys' values and what they must agree with in
    /// the rest of the plan (nodes, links, flows, other models); errors name the
    /// scenario field. Run by `FabricModels::check_plan` in the list's order, once the
    /// topology and the flows are valid; `ctx` is the plan's (smallest host rate, cell).
    fn check_plan(_plan: &Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        Ok(())
    }

    /// Appends what a valid plan runs that it may not mean (`scenario::validate::warnings`),
    /// one line each, `path: reason`.
    fn warnings(_plan: &Plan, _out: &mut Vec<String>) {}

    /// Appends the Parameters tables of the model's folder (`models/param_tables.rs`):
    /// the page under `docs/models/`, the block name, the table of a `params!` declaration.
    fn param_tables(_out: &mut ParamTables) {}

    /// Why this run's lossless priorities may drop without a model error (the
    /// `lossless_no_drops` invariant, `sim/checks.rs`, does not apply), if they may: a
    /// threshold or headroom the scenario fixed rather than the model.
    fn lossless_unchecked(&self) -> Option<&'static str> {
        None
    }

    /// What of the model in `plan` makes the run's events not each one node's own
    /// (`Plan::not_node_local`: no partitions, no rounds), with the key that turns it on.
    fn not_node_local(_plan: &Plan) -> Option<&'static str> {
        None
    }

    /// The key of the model's timed changes in `plan`, which fast-forward cannot skip
    /// (`Plan::fast_forward_mode`).
    fn not_fast_forwarded(_plan: &Plan) -> Option<&'static str> {
        None
    }

    /// Appends the model's periodic work in `plan` to the event estimate
    /// (`scenario/work.rs`): (the field that drives it, what it is, events).
    fn work(_plan: &Plan, _at: &WorkCtx, _out: &mut WorkTerms) {}

    /// Whether the model stopped the run before its end (a deadlock found): the run loop
    /// stops, and the run's statistics end at the clock.
    fn stopped(&self) -> bool {
        false
    }

    /// The run ended at `end` (a parallel run's partitions merged): the model closes what
    /// is still open (intervals, pauses) and puts its logs in their final order.
    fn end_run(&mut self, _fx: &Fabric, _end: SimTime) {}

    /// Whether `route` acts in this run (one flag for all models, as for `enqueued`).
    fn wants_route(&self) -> bool {
        false
    }

    /// The egress port of frame `pkt` at switch `node`, if this model chooses it: the
    /// first model that answers decides; none, the routes' per-flow ECMP.
    fn route(&mut self, _fx: &Fabric, _node: NodeId, _pkt: &Packet) -> Option<PortId> {
        None
    }

    /// Whether `control_forwarded` acts in this run (one flag for all models).
    fn wants_control_forwarded(&self) -> bool {
        false
    }

    /// Control frame `pkt` (`id`) is forwarded by switch `node` out of port `out`. True:
    /// the model took it (queued or consumed it itself, asking the world with `After`);
    /// false: the world queues it in the port's control FIFO.
    fn control_forwarded(&mut self, _fx: &mut Fabric, _node: NodeId, _out: PortId, _id: PktId, _pkt: &Packet) -> bool {
        false
    }

    /// Whether `refuses` acts in this run (one flag for all models).
    fn wants_refuses(&self) -> bool {
        false
    }

    /// Whether the model drops data frame `pkt`, routed to egress (`out`, `prio`), before
    /// the buffer sees it (a queue the PFC watchdog holds in a storm), having counted it
    /// where it counts such drops. The world then frees the frame, counts it lost to its
    /// flow and gives back its place in the input buffer.
    fn refuses(&mut self, _fx: &mut Fabric, _out: PortId, _prio: u8, _pkt: &Packet) -> bool {
        false
    }

    /// Whether `offered` acts in this run (one flag for all models).
    fn wants_offered(&self) -> bool {
        false
    }

    /// Data frame `pkt` is offered to egress `out`, before the buffer admits or drops it
    /// (the load FECN measures).
    fn offered(&mut self, _fx: &mut Fabric, _out: PortId, _pkt: &Packet) {}

    /// Whether `overflow` acts in this run (one flag for all models).
    fn wants_overflow(&self) -> bool {
        false
    }

    /// A data frame found no room (`Overflow`): what becomes of it (`Fate`), if this
    /// model decides; the first model that answers decides, none: it is dropped.
    fn overflow(&mut self, _fx: &mut Fabric, _o: &Overflow) -> Option<Fate> {
        None
    }

    /// A limit on an egress queue's bytes, below `switch.egress_limit`, above which the
    /// model wants to see the frames of lossy priorities (`overflow`).
    fn egress_limit(&self) -> Option<u64> {
        None
    }

    /// Whether the model may deliver a flow's frames out of order (the flows table's
    /// reordering columns).
    fn reorders(&self) -> bool {
        false
    }

    /// Whether the model lets lossless frames be dropped at hosts' NICs (a switch queue
    /// the PFC watchdog holds ignores the pauses of the NIC behind it).
    fn nic_drops_lossless(&self) -> bool {
        false
    }

    /// The priorities this run keeps lossless, in words with the key that says so, for
    /// the `lossless_no_drops` check (`None`: not this model's to say).
    fn lossless_text(&self) -> Option<String> {
        None
    }

    /// Whether `at_host` acts in this run: the world tests one flag per frame reaching a
    /// host (the same as for `input_freed`: a NIC consuming a frame frees its input
    /// buffer).
    fn wants_at_host(&self) -> bool {
        false
    }

    /// A frame `id` reached host port `p`: true if the model took it (queued it at the
    /// NIC, or dropped it with `After::Drop`); the first model that takes it decides, and
    /// the NIC consumes a frame no model takes (one queued goes on with `After::Deliver`).
    fn at_host(&mut self, _fx: &mut Fabric, _p: PortId, _id: PktId) -> bool {
        false
    }

    /// Whether `data_started` acts in this run (one flag per data frame sent).
    fn wants_data_started(&self) -> bool {
        false
    }

    /// A data frame of priority `prio`, `wire` bytes on the wire (preamble and gap
    /// included), starts on port `p`.
    fn data_started(&mut self, _fx: &mut Fabric, _p: PortId, _prio: u8, _wire: u64) {}

    /// Whether `input_freed` acts in this run (one flag per frame leaving a switch or
    /// consumed by a NIC).
    fn wants_input_freed(&self) -> bool {
        false
    }

    /// A data frame of priority `prio` (`wire` bytes on the wire) that came in through
    /// port `p` left that port's input buffer: sent on, dropped at the switch, or
    /// consumed by the host's NIC.
    fn input_freed(&mut self, _fx: &mut Fabric, _p: PortId, _prio: u8, _wire: u64) {}

    /// Whether `data_lost` acts in this run.
    fn wants_data_lost(&self) -> bool {
        false
    }

    /// A data frame of priority `prio` (`wire` bytes on the wire) for port `p`'s input
    /// buffer was lost on the wire (a failed link).
    fn data_lost(&mut self, _fx: &mut Fabric, _p: PortId, _prio: u8, _wire: u64) {}

    /// Whether switches leave it to this model to keep senders from overrunning their
    /// input buffers (credits): a switch then sends no XOFF of its own.
    fn replaces_xoff(&self) -> bool {
        false
    }

    /// Whether `marked_arrived` acts in this run (one flag per CE-marked packet).
    fn wants_marked_arrived(&self) -> bool {
        false
    }

    /// A CE-marked data packet of flow `f` (`flow`: its ends) reached its receiver.
    fn marked_arrived(&mut self, _fx: &mut Fabric, _f: FlowId, _flow: FlowInfo) {}

    /// The reaction point of flow `f` asked for a probe (`CcCtx::send_probe`), at its
    /// source.
    fn probe_asked(&mut self, _fx: &mut Fabric, _f: FlowId, _flow: FlowInfo) {}

    /// A probe or a probe's reply `pkt` (already freed) of a flow with ends `flow`
    /// reached a host. A rate for the flow's reaction point goes as `After::Feedback`.
    fn probe_arrived(&mut self, _fx: &mut Fabric, _pkt: &Packet, _flow: FlowInfo) {}

    /// A setting changed between steps of a run (`Simulation::set_ecn`): `apply` false
    /// checks it (errors `path: reason`), true applies it (checked before). `None`: not
    /// this model's setting (the first model that answers decides).
    fn change(&mut self, _fx: &Fabric, _s: &Setting, _apply: bool) -> Option<crate::Result<()>> {
        None
    }

    /// The RED marking thresholds (kmin, kmax, pmax) port `p` uses now, if this model
    /// marks there.
    fn red_thresholds(&self, _p: u32) -> Option<(u64, u64, f64)> {
        None
    }

    /// When the model's next check of the whole fabric is due (`SimTime::MAX`: never).
    /// Like a poll it is not an event; unlike one it reads every partition of a parallel
    /// run at once, so it runs between rounds, on the first partition's models.
    fn next_check(&self) -> SimTime {
        SimTime::MAX
    }

    /// The model's check due now (`next_check`) over the fabric `w`; it sets its next.
    /// True: it stops the run here (`stopped`).
    fn on_check(&mut self, _w: &Worlds) -> bool {
        false
    }

    /// Whether `data_sent` acts in this run (one flag for all models, tested per frame).
    fn wants_data_sent(&self) -> bool {
        false
    }

    /// Data frame `id` of flow `f` leaves its source NIC. `regulator()` is the rate
    /// limiter tag the flow's reaction point puts on it (BCN), asked only if needed.
    fn data_sent<R: Fn() -> Option<u32>>(&mut self, _fx: &mut Fabric, _f: FlowId, _id: PktId, _regulator: &R) {}

    /// Whether the model keeps the senders' queues of packets to resend (`queue_resend`,
    /// `next_resend`): one flag for all models.
    fn wants_resends(&self) -> bool {
        false
    }

    /// A NAK (or a timeout) named packet `seq` of flow `f` while the sender's one
    /// pending resend was another. True: the model queued it (`next_resend` gives it
    /// back); false: it replaces the pending one.
    fn queue_resend(&mut self, _f: FlowId, _seq: u32) -> bool {
        false
    }

    /// The next packet of flow `f` to resend that the model queued, at or above `snd_una`.
    fn next_resend(&mut self, _f: FlowId, _snd_una: u32) -> Option<u32> {
        None
    }

    /// How many packets of flow `f` the model holds to resend (none are in flight).
    fn resends_pending(&self, _f: FlowId) -> u32 {
        0
    }

    /// The sender of flow `f` resends `n` packets on a NAK that answered a trimmed header
    /// (`FLAG_TRIM`).
    fn header_nak_answered(&mut self, _f: FlowId, _n: u64) {}

    /// Whether the model in `plan` makes every sender at build and keeps it after its flow
    /// finishes (`sim/flow/header.rs`, `EAGER`): frames it makes (trimmed headers and
    /// their NAKs) may reach a sender after its last ACK.
    fn eager_senders(_plan: &Plan) -> bool {
        false
    }

    /// The priorities the model's own frames use in a run of `plan` (bit per priority),
    /// beside the flows' (they show in the ports table).
    fn frame_prios(_plan: &Plan) -> u8 {
        0
    }

    /// Priorities beyond those the frames use (`prios`) whose per-(port, priority) state
    /// the model reads or writes in a run of `plan` (PFC: the lossless priorities, which
    /// its watchdog polls whether a flow uses them or not; 802.3x PAUSE: all eight).
    fn state_prios(_plan: &Plan, _prios: u8) -> u8 {
        0
    }
}

/// The fabric as a whole-fabric check reads it (`FabricModel::on_check`): one world, or
/// the partitions of a parallel run (each port read from the partition that runs its
/// node).
pub(crate) struct Worlds<'a> {
    /// Each partition's fabric (one in a one-thread run).
    pub fabrics: &'a [&'a Fabric],
    /// The partition of each node (empty: one world).
    pub part: &'a [u16],
}

impl<'a> Worlds<'a> {
    /// The world that runs port `p`'s node.
    #[inline]
    pub fn at(&self, p: u32) -> &'a Fabric {
        if self.part.is_empty() {
            return self.fabrics[0];
        }
        let node = self.fabrics[0].ports[p as usize].node;
        self.fabrics[self.part[node.idx()] as usize]
    }
}

/// A setting the caller of a run changes between its steps (the Python `Stepper`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Setting<'a> {
    /// RED marking thresholds on the switch ports `ports` (port ids; `None`: every one).
    Red { kmin: u64, kmax: u64, pmax: f64, ports: Option<&'a [u32]> },
}

/// What a model's event hook is given beside the fabric and its own state.
pub(crate) struct EventCtx<F> {
    /// The end of the run: periodic events stop there.
    pub end: SimTime,
    /// The priorities the run's flows use (bit p: priority p).
    pub used_prios: u8,
    /// A flow's ends and priority, as its frames' headers say.
    pub flow: F,
}

/// A flow's ends and priority (`EventCtx::flow`).
#[derive(Clone, Copy)]
pub(crate) struct FlowInfo {
    pub src: NodeId,
    pub dst: NodeId,
    pub prio: u8,
}

/// A model's place in the `fabric_models!` list (implemented by the list).
pub(crate) trait Listed {
    const TAG: u8;
}

/// Model `M`'s event of kind `kind` with fields `c`, `a`, `b`.
#[inline]
pub(crate) fn model_event<M: Listed>(kind: u8, c: u8, a: u32, b: u32) -> Event {
    Event::Model(ModelEvent::new(M::TAG, kind, c, a, b))
}

/// What the event estimate counts a model's periodic work against: the run's switch
/// ports, all ports, and the priorities its flows use.
pub(crate) struct WorkCtx {
    pub switch_ports: u64,
    pub ports: u64,
    pub prios: u64,
}

/// (field, what, events) per term of the event estimate.
pub(crate) type WorkTerms = Vec<(String, String, u64)>;

/// (page under `docs/models/`, block name, table) per declared Parameters table.
pub(crate) type ParamTables = Vec<(&'static str, &'static str, crate::keys::kind::Table)>;

/// A data frame a switch has no room for (`FabricModel::overflow`): it came in through
/// `in_port` and was routed to egress (`out`, `prio`).
pub(crate) struct Overflow<'a> {
    pub in_port: PortId,
    pub out: PortId,
    pub prio: u8,
    pub id: PktId,
    pub pkt: &'a Packet,
    /// The bytes the egress would hold with the frame, above the run's limit
    /// (`switch.egress_limit` or a model's lower `egress_limit`); `None`: the buffer
    /// refused the frame (`reason`).
    pub over_limit: Option<u64>,
    /// Why the frame is dropped if no model makes something else of it.
    pub reason: DropReason,
}

/// What becomes of a frame a switch has no room for (`FabricModel::overflow`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Queued after all: above the model's limit, not the world's.
    Queue,
    /// Dropped for the `Overflow`'s reason.
    Drop,
    /// The model made another frame of it in its place (a trimmed header) and asked
    /// the world to take it through the switch again (`After::Receive`); what the frame
    /// carried is lost to its flow.
    Replaced,
}

/// Which hooks on a frame's way through a switch some model of the run acts on
/// (`FabricModels::switch_hooks`, asked once per run): one flag per hook, tested by the
/// world per frame.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct SwitchHooks {
    pub route: bool,
    pub control_forwarded: bool,
    pub refuses: bool,
    pub offered: bool,
    pub overflow: bool,
    /// A model takes links down: a frame routed to a down port is dropped.
    pub unusable: bool,
}

/// Which host and port hooks some model of the run acts on (`FabricModels::port_hooks`,
/// asked once per run).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct PortHooks {
    /// Frames reaching a host take the models' path (`at_host`, or `input_freed` as the
    /// NIC consumes them: NIC receive buffers, IB credits).
    pub at_host: bool,
    /// Data frames starting on a port (IB credits spent).
    pub data_started: bool,
    /// Data frames leaving an input buffer (IB credits granted back).
    pub input_freed: bool,
    /// Data frames lost on the wire (IB credits).
    pub data_lost: bool,
    /// CE-marked packets reaching their receiver (CNPs).
    pub marked_arrived: bool,
    /// Switches send XOFF when an ingress passes its threshold (not under credits:
    /// `FabricModel::replaces_xoff`).
    pub switch_xoff: bool,
    /// A model takes links down: frames on a failed wire are lost at arrival.
    pub lost_on_wire: bool,
}

/// Which hooks on a data frame's sender some model of the run acts on
/// (`FabricModels::sender_hooks`, asked once per run).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct SenderHooks {
    pub data_sent: bool,
    pub resends: bool,
}
