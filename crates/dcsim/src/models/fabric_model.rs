//! What every fabric model of the `fabric_models!` list (`models/mod.rs`) gives the
//! world beside its hooks: how it is built, its result tables, its part of
//! `summary.json`, and how a parallel run's partitions of it become one. Every method
//! but `new` has a default that does nothing, so a model states only what it has.

use crate::event::owners::Subject;
use crate::event::{Event, EventQueue, ModelEvent};
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::fabric::Fabric;
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

/// The `Keys` of a model that has no `[fabric.<name>]` table (its keys are in `[switch]`
/// or `[host]`, older than the list): naming the table is an error that says so.
#[derive(Clone, Debug)]
pub(crate) enum NoSection {}

impl<'de> serde::Deserialize<'de> for NoSection {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> std::result::Result<Self, D::Error> {
        Err(serde::de::Error::custom("this model has no [fabric] table: its keys are in [switch] or [host] (docs/scenarios.md)"))
    }
}

impl crate::keys::Keys for NoSection {
    type Out = ();
    fn build(&self, _: &str, _: &crate::keys::KeyCtx) -> crate::Result<()> {
        match *self {}
    }
}

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
    /// The model's `[fabric.<name>]` table (`<name>` its line in the list), resolved into
    /// `Plan::fabric.<name>`. `NoSection` for a model whose keys are elsewhere.
    type Keys: crate::keys::Keys<Out: Clone + std::fmt::Debug + PartialEq + crate::keys::Check>
        + serde::de::DeserializeOwned
        + Clone
        + std::fmt::Debug;

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

    /// The run ends at `end` (before its tables): close what is still open (pause
    /// intervals, congestion intervals).
    fn run_ends(&mut self, _fx: &Fabric, _end: SimTime) {}

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
    /// The loop runs it between events, after the polls due then, like a sample; a
    /// parallel run's between rounds, over every partition (`sim/parallel`).
    fn next_check(&self) -> SimTime {
        SimTime::MAX
    }

    /// The check due now (`next_check`), over every partition's fabric: true if it stops
    /// the run.
    fn check_fabric(&mut self, _w: &crate::net::fabric::Worlds) -> bool {
        false
    }

    /// When the model stopped the run, if it did (the run ends there).
    fn stopped_at(&self) -> Option<SimTime> {
        None
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
