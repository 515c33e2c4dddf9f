//! The macros behind the model lists of `models/mod.rs`. From one line per algorithm they
//! generate: the plan enum (resolved parameters), the run-time enum with a `match` per hook
//! (static dispatch: no virtual call on the hot path), the `type`-tagged scenario table,
//! the list of type names, the precise error paths and the checks.

/// `Variant = "toml_type" => AlgorithmType, KeysType;` per reaction point, after its doc
/// comment and optionally one `#[cfg(...)]` (a model compiled only in some builds).
macro_rules! reaction_points {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $V:ident = $name:literal => $Algo:ty, $Keys:ty; )*) => {
        /// Parameters of a reaction-point algorithm (`Plan::ccs`).
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcPlan {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $V(<$Algo as CongestionControl>::Params), )*
        }

        /// A queue pair's reaction point (closed set: static dispatch in the hot path).
        #[derive(Clone, Debug)]
        pub enum Cc {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $V($Algo), )*
        }

        /// A reaction point as a scenario states it (`[host.cc]`, a traffic entry's
        /// `cc`), selected by `type`.
        #[derive(Clone, Debug, serde::Deserialize)]
        #[serde(tag = "type")]
        pub enum CcSpec {
            $( $(#[cfg($cfg)])? #[serde(rename = $name)] $V($Keys), )*
        }

        /// The `type` names of reaction points, for messages.
        #[allow(clippy::vec_init_then_push)] // pushes may be cfg'd out
        pub fn cc_types() -> Vec<&'static str> {
            let mut v = Vec::new();
            $( $(#[cfg($cfg)])? v.push($name); )*
            v
        }

        impl CcSpec {
            /// The resolved parameters; `path` is where the table is.
            pub fn build(&self, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::Result<CcPlan> {
                use $crate::keys::Keys;
                Ok(match self { $( $(#[cfg($cfg)])? CcSpec::$V(k) => CcPlan::$V(k.build(path, ctx)?), )* })
            }
            /// A precise error for a table of type `ty` (serde cannot track paths through
            /// internally tagged enums).
            pub fn error_at(ty: &str, v: toml::Value, path: &str) -> Option<(String, String)> {
                match ty {
                    $( $(#[cfg($cfg)])? $name => $crate::keys::de_at::<$Keys>(v, path).err(), )*
                    _ => None,
                }
            }
        }

        impl CcPlan {
            /// Checks the parameters' values; errors name `path.<key>`.
            pub fn check(&self, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::Result<()> {
                use $crate::keys::Check;
                match self { $( $(#[cfg($cfg)])? CcPlan::$V(p) => p.check(path, ctx), )* }
            }
            /// Whether the algorithm needs ACKs (`CongestionControl::wants_acks`).
            pub fn wants_acks(&self) -> bool {
                self.flags().0
            }
            /// Whether the algorithm limits the bytes in flight (`CongestionControl::window`).
            pub fn windowed(&self) -> bool {
                self.flags().1
            }
            /// Whether the algorithm's frames carry INT (`CongestionControl::wants_int`).
            pub fn wants_int(&self) -> bool {
                self.flags().2
            }
            /// (wants_acks, windowed, wants_int): from the parameters if the algorithm
            /// says them there, else from a probe instance.
            fn flags(&self) -> (bool, bool, bool) {
                let from_plan = match self { $( $(#[cfg($cfg)])? CcPlan::$V(p) => <$Algo as CongestionControl>::plan_flags(p), )* };
                from_plan.unwrap_or_else(|| {
                    let c = Cc::new(self, &Self::PROBE_NIC);
                    (c.wants_acks(), c.window().is_some(), c.wants_int())
                })
            }
            const PROBE_NIC: NicSpec = NicSpec { line_rate: $crate::units::Rate(1), mtu_wire: 1, mss: 1, base_rtt: $crate::units::SimTime(1) };
            /// The scenario `type` of this algorithm.
            pub fn type_name(&self) -> &'static str {
                match self { $( $(#[cfg($cfg)])? CcPlan::$V(_) => $name, )* }
            }
        }

        impl Cc {
            /// A fresh instance for a queue pair on `nic`.
            pub fn new(plan: &CcPlan, nic: &NicSpec) -> Cc {
                match plan { $( $(#[cfg($cfg)])? CcPlan::$V(p) => Cc::$V(<$Algo>::from_params(p, nic)), )* }
            }
            /// Whether the algorithm can ever change its rate (hooks can be skipped
            /// otherwise).
            #[inline]
            pub fn is_static(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.is_static(), )* }
            }
            #[inline]
            pub fn on_start(&mut self, ctx: &mut CcCtx) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_start(ctx), )* } }
            #[inline]
            pub fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_send(ctx, wire_bytes), )* } }
            #[inline]
            pub fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_ack(ctx, ack), )* } }
            #[inline]
            pub fn on_loss(&mut self, ctx: &mut CcCtx, loss: &Loss) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_loss(ctx, loss), )* } }
            pub fn wants_acks(&self) -> bool { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.wants_acks(), )* } }
            pub fn wants_send(&self) -> bool { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.wants_send(), )* } }
            #[inline]
            pub fn quiet_timer(&self, kind: TimerKind) -> bool { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.quiet_timer(kind), )* } }
            pub fn wants_int(&self) -> bool { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.wants_int(), )* } }
            #[inline]
            pub fn on_app_limited(&mut self) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_app_limited(), )* } }
            #[inline]
            pub fn window(&self) -> Option<u64> { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.window(), )* } }
            #[inline]
            pub fn on_cnp(&mut self, ctx: &mut CcCtx) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_cnp(ctx), )* } }
            #[inline]
            pub fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_timer(ctx, kind), )* } }
            pub fn shift_times(&mut self, by: $crate::units::SimTime) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.shift_times(by), )* } }
            #[inline]
            pub fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_feedback(ctx, fb), )* } }
            #[inline]
            pub fn rate(&self) -> $crate::units::Rate { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.rate(), )* } }
            /// The rate-limiter tag the queue pair puts on its data frames (BCN).
            #[inline]
            pub fn regulator_cp(&self) -> Option<u32> { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.regulator_cp(), )* } }
            pub fn on_finish(&mut self, ctx: &mut CcCtx) { match self { $( $(#[cfg($cfg)])? Cc::$V(c) => c.on_finish(ctx), )* } }
        }
    };
}

/// `Variant = "toml_type" => KeysType;` per kind of layer-2 congestion point.
macro_rules! congestion_points {
    ($( $(#[$doc:meta])* $V:ident = $name:literal => $Keys:ty; )*) => {
        /// The congestion points of the IEEE 802.1Qau family and their relatives
        /// (`[switch.l2cm]`), with their resolved parameters.
        #[derive(Clone, Debug, PartialEq, Default)]
        pub enum L2Cm {
            #[default]
            None,
            $( $(#[$doc])* $V(<$Keys as $crate::keys::Keys>::Out), )*
        }

        /// `[switch.l2cm]`, selected by `type`.
        #[derive(Clone, Debug, serde::Deserialize)]
        #[serde(tag = "type")]
        pub enum L2cmSpec {
            #[serde(rename = "none")]
            None($crate::models::fixed_rate::NoKeys),
            $( #[serde(rename = $name)] $V($Keys), )*
        }

        /// The `type` names of `[switch.l2cm]`, for messages.
        pub const L2CM_TYPES: &[&str] = &["none", $($name),*];

        impl L2cmSpec {
            pub fn build(&self, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::Result<L2Cm> {
                use $crate::keys::Keys;
                Ok(match self {
                    L2cmSpec::None(_) => L2Cm::None,
                    $( L2cmSpec::$V(k) => L2Cm::$V(k.build(path, ctx)?), )*
                })
            }
            pub fn error_at(ty: &str, v: toml::Value, path: &str) -> Option<(String, String)> {
                match ty {
                    "none" => $crate::keys::de_at::<$crate::models::fixed_rate::NoKeys>(v, path).err(),
                    $( $name => $crate::keys::de_at::<$Keys>(v, path).err(), )*
                    _ => None,
                }
            }
        }

        impl L2Cm {
            pub fn check(&self, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::Result<()> {
                use $crate::keys::Check;
                match self {
                    L2Cm::None => Ok(()),
                    $( L2Cm::$V(p) => p.check(path, ctx), )*
                }
            }
        }
    };
}

/// A fabric model's keys: `NoSection` unless the list names them.
macro_rules! fabric_keys {
    () => {
        $crate::keys::NoSection
    };
    ($Keys:ty) => {
        $Keys
    };
}

/// Where a fabric model's keys are: `[fabric.<name>]` unless the list says.
macro_rules! fabric_place {
    ($name:ident) => {
        concat!("fabric.", stringify!($name))
    };
    ($name:ident $place:literal) => {
        $place
    };
}

/// `name: Type = Keys => "place",` per fabric model, after its doc comment and optionally
/// one `#[cfg(...)]`: its state, its keys (none if `= Keys` is left out) and where they
/// are if not in `[fabric.<name>]` (`switch.<table>`; `switch` for keys of `[switch]`). The
/// keys resolve into `Keys::Out`, the model's field of `Plan::fabric`. The world's
/// `FabricModels` (one field per model), the loops over their `FabricModel` impls
/// (construction, the enqueue hook, tables, summary, merge) and the scenario keys
/// (`FabricSpec`, one field per model, into `FabricPlan`, `Plan::fabric`). Hooks are
/// static calls: no dynamic dispatch.
macro_rules! fabric_models {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $name:ident: $Ty:ty $(= $Keys:ty)? $(=> $place:literal)?, )*) => {
        /// The state of every fabric model of a run (`Simulation::models`).
        pub(crate) struct FabricModels {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? pub $name: $Ty, )*
        }

        /// Every model's keys, one field per model: the table `[fabric.<name>]`, or for a
        /// model placed elsewhere (`=> "switch.<table>"`) its keys moved here from there
        /// (`scenario::schema::deserialize`, by `fabric_places`).
        #[derive(Clone, Debug, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct FabricSpec {
            $( $(#[cfg($cfg)])? #[serde(default)] pub(crate) $name: fabric_keys!($($Keys)?), )*
        }

        /// Every model's resolved parameters (`Plan::fabric`), one field per model.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct FabricPlan {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? pub $name: <fabric_keys!($($Keys)?) as $crate::keys::Keys>::Out, )*
        }

        impl FabricSpec {
            /// Units parsed, names resolved and defaults applied; errors name the keys
            /// where the scenario file has them.
            pub fn build(&self, ctx: &$crate::keys::KeyCtx) -> $crate::Result<FabricPlan> {
                use $crate::keys::Keys;
                Ok(FabricPlan {
                    $( $(#[cfg($cfg)])? $name: self.$name.build(fabric_place!($name $($place)?), ctx)?, )*
                })
            }
        }

        /// (model, where its keys are in a scenario file, the keys) per model: the
        /// table `fabric.<name>`, a table of its own elsewhere (`switch.<table>`), or keys
        /// of a table it shares (`switch`: the keys its `Keys` struct has).
        #[allow(clippy::vec_init_then_push)] // a line may be `#[cfg]`-ed out
        pub(crate) fn fabric_places() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
            let mut v = Vec::new();
            $( $(#[cfg($cfg)])? v.push((
                stringify!($name),
                fabric_place!($name $($place)?),
                $crate::keys::fields_of::<fabric_keys!($($Keys)?)>(),
            )); )*
            v
        }

        impl FabricModels {
            /// Every model's state for a run, built in the list's order.
            pub fn new(ctx: &mut $crate::models::fabric_model::BuildCtx) -> Self {
                FabricModels { $( $(#[cfg($cfg)])? $name: $crate::models::fabric_model::FabricModel::new(ctx), )* }
            }
            /// Whether some model acts on frames queued at a switch egress.
            pub fn wants_enqueued(&self) -> bool {
                let mut any = false;
                $( $(#[cfg($cfg)])? { any |= $crate::models::fabric_model::FabricModel::wants_enqueued(&self.$name); } )*
                any
            }
            /// A frame was queued at a switch egress: every model's hook, in the list's order.
            #[inline]
            pub fn enqueued<S: Fn($crate::ids::FlowId) -> $crate::ids::NodeId>(
                &mut self,
                fx: &mut $crate::net::fabric::Fabric,
                e: &$crate::models::fabric_model::Enqueued,
                src: &S,
            ) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::enqueued(&mut self.$name, fx, e, src); )*
            }
            /// Whether some model acts on frames leaving a switch egress.
            pub fn wants_dequeued(&self) -> bool {
                let mut any = false;
                $( $(#[cfg($cfg)])? { any |= $crate::models::fabric_model::FabricModel::wants_dequeued(&self.$name); } )*
                any
            }
            /// A frame left a switch egress for the wire: every model's hook, in order.
            #[inline]
            pub fn dequeued(&mut self, fx: &mut $crate::net::fabric::Fabric, out: $crate::ids::PortId, prio: u8, item: &$crate::net::queue::Queued, q_after: u64) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::dequeued(&mut self.$name, fx, out, prio, item, q_after); )*
            }
            /// Fast-forward moved the world `by` later: every model's held times move.
            pub fn shift_times(&mut self, by: $crate::units::SimTime) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::shift_times(&mut self.$name, by); )*
            }
            /// Every model's result tables, in the list's order.
            pub fn tables(&self, fx: &$crate::net::fabric::Fabric, ends: $crate::models::fabric_model::FlowEnds, out: &mut $crate::models::fabric_model::Tables) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::tables(&self.$name, fx, ends, out); )*
            }
            /// Every model's part of the summary.
            pub fn summary(&self, fx: &$crate::net::fabric::Fabric, summary: &mut serde_json::Value) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::summary(&self.$name, fx, summary); )*
            }
            /// Takes from another partition's models what that partition ran.
            pub fn merge(&mut self, other: &mut FabricModels, fx: &$crate::net::fabric::Fabric, theirs: &dyn Fn($crate::ids::NodeId) -> bool) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::merge(&mut self.$name, &mut other.$name, fx, theirs); )*
            }
            /// Every model's kinds of event, in the list's order.
            #[cfg(test)]
            pub fn event_kinds() -> Vec<u8> {
                let mut v = Vec::new();
                $( $(#[cfg($cfg)])? v.extend(<$Ty as $crate::models::fabric_model::FabricModel>::EVENTS.iter().map(|e| e.0)); )*
                v
            }
            /// Every model's kinds of event: (kind, whose, for `Subject::Listed` the
            /// port of each index), for `event::owners`.
            pub fn event_owners(&self) -> Vec<(u8, $crate::event::owners::Subject, Vec<u32>)> {
                let mut v = Vec::new();
                $( $(#[cfg($cfg)])? for &(kind, subject) in <$Ty as $crate::models::fabric_model::FabricModel>::EVENTS {
                    v.push((kind, subject, $crate::models::fabric_model::FabricModel::event_ports(&self.$name, kind)));
                } )*
                v
            }
            /// A model's event is due: its model's hook (`FabricModel::on_event`).
            #[inline]
            pub fn on_event<F: Fn($crate::ids::FlowId) -> $crate::models::fabric_model::FlowInfo>(
                &mut self,
                fx: &mut $crate::net::fabric::Fabric,
                ev: $crate::event::ModelEvent,
                cx: &$crate::models::fabric_model::EventCtx<F>,
            ) -> Option<$crate::event::ModelEvent> {
                $( $(#[cfg($cfg)])? if ev.model == <$Ty as $crate::models::fabric_model::Listed>::TAG {
                    return $crate::models::fabric_model::FabricModel::on_event(&mut self.$name, fx, ev, cx);
                } )*
                unreachable!("{ev:?}: no such model")
            }
            /// A link-level control frame reached port `p`: the priorities models hold
            /// against it, then its owner's hook (`FabricModel::on_frame`).
            pub fn on_frame(&mut self, fx: &mut $crate::net::fabric::Fabric, p: $crate::ids::PortId, id: $crate::ids::PktId) {
                let pkt = *fx.pool.get(id);
                let mut held = 0u8;
                $( $(#[cfg($cfg)])? { held |= $crate::models::fabric_model::FabricModel::frame_held(&mut self.$name, fx, p, &pkt); } )*
                $( $(#[cfg($cfg)])? if <$Ty as $crate::models::fabric_model::FabricModel>::owns_frame(pkt.kind) {
                    return $crate::models::fabric_model::FabricModel::on_frame(&mut self.$name, fx, p, id, held);
                } )*
                unreachable!("a {:?} frame no model owns", pkt.kind)
            }
            /// The earliest of the models' next polls.
            pub fn next_poll(&self) -> $crate::units::SimTime {
                let mut t = $crate::units::SimTime::MAX;
                $( $(#[cfg($cfg)])? { t = t.min($crate::models::fabric_model::FabricModel::next_poll(&self.$name)); } )*
                t
            }
            /// Step `step` of the poll of the model at place `tag` in the list, if its
            /// poll is due at `t` (or under way): `FabricModel::on_poll`.
            pub fn poll_step(&mut self, fx: &mut $crate::net::fabric::Fabric, tag: u8, t: $crate::units::SimTime, step: u32, owned: &[bool]) -> Option<u32> {
                $( $(#[cfg($cfg)])? if tag == <$Ty as $crate::models::fabric_model::Listed>::TAG {
                    if step == 0 && $crate::models::fabric_model::FabricModel::next_poll(&self.$name) != t {
                        return None;
                    }
                    return $crate::models::fabric_model::FabricModel::on_poll(&mut self.$name, fx, step, owned);
                } )*
                None
            }
            /// How many models the list has (their places: `Listed::TAG`).
            pub const COUNT: u8 = ModelTag::_End as u8;
            /// Whether the ingress (`port`, `class`) is back under its XON threshold: the
            /// first model that answers, else the switch buffer.
            pub fn ingress_under_xon(&mut self, fx: &$crate::net::fabric::Fabric, port: $crate::ids::PortId, class: u8) -> bool {
                $( $(#[cfg($cfg)])? if let Some(under) = $crate::models::fabric_model::FabricModel::ingress_under_xon(&mut self.$name, fx, port, class) {
                    return under;
                } )*
                fx.mmu.under_xon(port, class)
            }
            /// Whether a frame must not leave by `out`: some model says so.
            #[inline]
            pub fn unusable(&self, fx: &$crate::net::fabric::Fabric, out: $crate::ids::PortId) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::unusable(&self.$name, fx, out) {
                    return true;
                } )*
                false
            }
            /// A frame routed to a port it cannot leave by: every model counts it; true
            /// if the world loses it as data.
            pub fn drop_unusable(&mut self, fx: &mut $crate::net::fabric::Fabric, out: $crate::ids::PortId, id: $crate::ids::PktId) -> bool {
                let mut lose = false;
                $( $(#[cfg($cfg)])? { lose |= $crate::models::fabric_model::FabricModel::drop_unusable(&mut self.$name, fx, out, id); } )*
                lose
            }
            /// Whether a frame arriving at `p` was lost on a failed wire: some model says so.
            #[inline]
            pub fn lost_on_wire(&mut self, fx: &$crate::net::fabric::Fabric, p: $crate::ids::PortId, id: $crate::ids::PktId) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::lost_on_wire(&mut self.$name, fx, p, id) {
                    return true;
                } )*
                false
            }
            /// Port `p`'s link is down: every model's hook, in the list's order.
            pub fn port_down(&mut self, fx: &mut $crate::net::fabric::Fabric, p: $crate::ids::PortId) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::port_down(&mut self.$name, fx, p); )*
            }
            /// A frame lost to a down link: every model's hook, in the list's order.
            pub fn lost_at_down(&mut self, flow: $crate::ids::FlowId, counted: bool, queued: bool) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::lost_at_down(&mut self.$name, flow, counted, queued); )*
            }
            /// The switch buffer's accounting class of priority `prio`: the first model
            /// that answers, else the priority itself.
            #[inline]
            pub fn class_of(&self, prio: u8) -> u8 {
                $( $(#[cfg($cfg)])? if let Some(c) = $crate::models::fabric_model::FabricModel::class_of(&self.$name, prio) {
                    return c;
                } )*
                prio
            }
            /// Whether priority `prio` is lossless: the first model that answers, else not.
            #[inline]
            pub fn is_lossless(&self, prio: u8) -> bool {
                $( $(#[cfg($cfg)])? if let Some(l) = $crate::models::fabric_model::FabricModel::lossless(&self.$name, prio) {
                    return l;
                } )*
                false
            }
            /// The ingress (`port`, `class`) crossed XOFF (`xoff`) or fell under XON:
            /// every model's `pause_upstream`, in the list's order.
            pub fn pause_upstream(&mut self, fx: &mut $crate::net::fabric::Fabric, port: $crate::ids::PortId, class: u8, xoff: bool, xon_quanta: u32) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::pause_upstream(&mut self.$name, fx, port, class, xoff, xon_quanta); )*
            }
            /// The pause an XON out of (`port`, `class`) must still carry: the longest
            /// any model asks for.
            #[inline]
            pub fn xon_quanta(&self, fx: &$crate::net::fabric::Fabric, port: $crate::ids::PortId, class: u8) -> u32 {
                let mut q = 0;
                $( $(#[cfg($cfg)])? { q = q.max($crate::models::fabric_model::FabricModel::xon_quanta(&self.$name, fx, port, class)); } )*
                q
            }
            /// Every model's checks of a plan, in the list's order: its `[fabric.<name>]`
            /// table's values, then its `check_plan` (`scenario::validate`).
            pub fn check_plan(plan: &$crate::plan::Plan, ctx: &$crate::keys::KeyCtx) -> $crate::Result<()> {
                use $crate::keys::Check;
                $( $(#[cfg($cfg)])? {
                    plan.fabric.$name.check(fabric_place!($name $($place)?), ctx)?;
                    <$Ty as $crate::models::fabric_model::FabricModel>::check_plan(plan, ctx)?;
                } )*
                Ok(())
            }
            /// Every model's warnings about a valid plan, in the list's order.
            pub fn warnings(plan: &$crate::plan::Plan, out: &mut Vec<String>) {
                $( $(#[cfg($cfg)])? <$Ty as $crate::models::fabric_model::FabricModel>::warnings(plan, out); )*
            }
            /// Every model's Parameters tables, in the list's order.
            pub fn param_tables(out: &mut $crate::models::fabric_model::ParamTables) {
                $( $(#[cfg($cfg)])? <$Ty as $crate::models::fabric_model::FabricModel>::param_tables(out); )*
            }
            /// The first model's reason (in the list's order) why lossless priorities may drop.
            pub fn lossless_unchecked(&self) -> Option<&'static str> {
                $( $(#[cfg($cfg)])? if let Some(why) = $crate::models::fabric_model::FabricModel::lossless_unchecked(&self.$name) { return Some(why); } )*
                None
            }
            /// The first model (in the list's order) whose events in `plan` are not node-local.
            pub fn not_node_local(plan: &$crate::plan::Plan) -> Option<&'static str> {
                $( $(#[cfg($cfg)])? if let Some(what) = <$Ty as $crate::models::fabric_model::FabricModel>::not_node_local(plan) { return Some(what); } )*
                None
            }
            /// The first model (in the list's order) with timed changes in `plan`.
            pub fn not_fast_forwarded(plan: &$crate::plan::Plan) -> Option<&'static str> {
                $( $(#[cfg($cfg)])? if let Some(what) = <$Ty as $crate::models::fabric_model::FabricModel>::not_fast_forwarded(plan) { return Some(what); } )*
                None
            }
            /// Every model's periodic work in `plan` (the event estimate), in the list's order.
            pub fn work(plan: &$crate::plan::Plan, at: &$crate::models::fabric_model::WorkCtx, out: &mut $crate::models::fabric_model::WorkTerms) {
                $( $(#[cfg($cfg)])? <$Ty as $crate::models::fabric_model::FabricModel>::work(plan, at, out); )*
            }
            /// Whether some model stopped the run before its end.
            pub fn stopped(&self) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::stopped(&self.$name) { return true; } )*
                false
            }
            /// The run ended at `end`: every model's `end_run`, in the list's order.
            pub fn end_run(&mut self, fx: &$crate::net::fabric::Fabric, end: $crate::units::SimTime) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::end_run(&mut self.$name, fx, end); )*
            }
            /// Whether some model may deliver a flow's frames out of order.
            pub fn reorders(&self) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::reorders(&self.$name) { return true; } )*
                false
            }
            /// Whether some model lets lossless frames be dropped at hosts' NICs.
            pub fn nic_drops_lossless(&self) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::nic_drops_lossless(&self.$name) { return true; } )*
                false
            }
            /// The run's lossless priorities in words: the first model that says.
            pub fn lossless_text(&self) -> String {
                $( $(#[cfg($cfg)])? if let Some(t) = $crate::models::fabric_model::FabricModel::lossless_text(&self.$name) { return t; } )*
                "no priority".to_string()
            }
            /// A frame reached host port `p`: true if a model took it (the first that does,
            /// in the list's order), else the NIC consumes it.
            #[inline]
            pub fn at_host(&mut self, fx: &mut $crate::net::fabric::Fabric, p: $crate::ids::PortId, id: $crate::ids::PktId) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::at_host(&mut self.$name, fx, p, id) { return true; } )*
                false
            }
            /// A data frame starts on port `p`: every model's hook, in the list's order.
            #[inline]
            pub fn data_started(&mut self, fx: &mut $crate::net::fabric::Fabric, p: $crate::ids::PortId, prio: u8, wire: u64) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::data_started(&mut self.$name, fx, p, prio, wire); )*
            }
            /// A data frame left port `p`'s input buffer: every model's hook, in order.
            #[inline]
            pub fn input_freed(&mut self, fx: &mut $crate::net::fabric::Fabric, p: $crate::ids::PortId, prio: u8, wire: u64) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::input_freed(&mut self.$name, fx, p, prio, wire); )*
            }
            /// A data frame for port `p`'s input buffer was lost on the wire: every
            /// model's hook, in order.
            pub fn data_lost(&mut self, fx: &mut $crate::net::fabric::Fabric, p: $crate::ids::PortId, prio: u8, wire: u64) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::data_lost(&mut self.$name, fx, p, prio, wire); )*
            }
            /// Which host and port hooks some model acts on (asked once per run: the world
            /// tests one flag per hook where frames pass).
            pub fn port_hooks(&self) -> $crate::models::fabric_model::PortHooks {
                use $crate::models::fabric_model::FabricModel as M;
                let mut h = $crate::models::fabric_model::PortHooks { switch_xoff: true, ..Default::default() };
                $( $(#[cfg($cfg)])? {
                    let m = &self.$name;
                    h.at_host |= M::wants_at_host(m);
                    h.data_started |= M::wants_data_started(m);
                    h.input_freed |= M::wants_input_freed(m);
                    h.data_lost |= M::wants_data_lost(m);
                    h.marked_arrived |= M::wants_marked_arrived(m);
                    h.switch_xoff &= !M::replaces_xoff(m);
                    h.lost_on_wire |= M::wants_down_ports(m);
                } )*
                // A NIC consuming a frame frees its input buffer: the slow path at hosts.
                h.at_host |= h.input_freed;
                h
            }
            /// A CE-marked data packet of flow `f` reached its receiver: every model's
            /// hook, in order.
            #[inline]
            pub fn marked_arrived(&mut self, fx: &mut $crate::net::fabric::Fabric, f: $crate::ids::FlowId, flow: $crate::models::fabric_model::FlowInfo) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::marked_arrived(&mut self.$name, fx, f, flow); )*
            }
            /// Flow `f`'s reaction point asked for a probe: every model's hook, in order.
            pub fn probe_asked(&mut self, fx: &mut $crate::net::fabric::Fabric, f: $crate::ids::FlowId, flow: $crate::models::fabric_model::FlowInfo) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::probe_asked(&mut self.$name, fx, f, flow); )*
            }
            /// A probe (or its reply) reached a host: every model's hook, in order.
            pub fn probe_arrived(&mut self, fx: &mut $crate::net::fabric::Fabric, pkt: &$crate::net::packet::Packet, flow: $crate::models::fabric_model::FlowInfo) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::probe_arrived(&mut self.$name, fx, pkt, flow); )*
            }
            /// A setting changed between steps of a run: checked (`apply` false) or applied
            /// by the first model that takes it.
            pub fn change(&mut self, fx: &$crate::net::fabric::Fabric, s: &$crate::models::fabric_model::Setting, apply: bool) -> $crate::Result<()> {
                $( $(#[cfg($cfg)])? if let Some(r) = $crate::models::fabric_model::FabricModel::change(&mut self.$name, fx, s, apply) { return r; } )*
                Err($crate::error::Error::scenario("setting", format!("no fabric model of this run takes {s:?}")))
            }
            /// The earliest of the models' next checks of the whole fabric.
            pub fn next_check(&self) -> $crate::units::SimTime {
                let mut t = $crate::units::SimTime::MAX;
                $( $(#[cfg($cfg)])? { t = t.min($crate::models::fabric_model::FabricModel::next_check(&self.$name)); } )*
                t
            }
            /// The checks due at `t`, in the list's order; true if one stops the run.
            pub fn run_checks(&mut self, t: $crate::units::SimTime, w: &$crate::models::fabric_model::Worlds) -> bool {
                let mut stop = false;
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::next_check(&self.$name) == t {
                    stop |= $crate::models::fabric_model::FabricModel::on_check(&mut self.$name, w);
                } )*
                stop
            }
            /// Which hooks on a frame's way through a switch some model acts on (asked
            /// once per run: the world tests one flag per hook and frame).
            pub fn switch_hooks(&self) -> $crate::models::fabric_model::SwitchHooks {
                use $crate::models::fabric_model::FabricModel as M;
                let mut h = $crate::models::fabric_model::SwitchHooks::default();
                $( $(#[cfg($cfg)])? {
                    let m = &self.$name;
                    h.route |= M::wants_route(m);
                    h.control_forwarded |= M::wants_control_forwarded(m);
                    h.refuses |= M::wants_refuses(m);
                    h.offered |= M::wants_offered(m);
                    h.overflow |= M::wants_overflow(m);
                    h.unusable |= M::wants_down_ports(m);
                } )*
                h
            }
            /// The egress port of `pkt` at switch `node`: the first model that chooses it.
            #[inline]
            pub fn route(&mut self, fx: &$crate::net::fabric::Fabric, node: $crate::ids::NodeId, pkt: &$crate::net::packet::Packet) -> Option<$crate::ids::PortId> {
                $( $(#[cfg($cfg)])? if let Some(p) = $crate::models::fabric_model::FabricModel::route(&mut self.$name, fx, node, pkt) {
                    return Some(p);
                } )*
                None
            }
            /// A control frame is forwarded out of `out`: true if a model took it.
            #[inline]
            pub fn control_forwarded(&mut self, fx: &mut $crate::net::fabric::Fabric, node: $crate::ids::NodeId, out: $crate::ids::PortId, id: $crate::ids::PktId, pkt: &$crate::net::packet::Packet) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::control_forwarded(&mut self.$name, fx, node, out, id, pkt) {
                    return true;
                } )*
                false
            }
            /// Whether a model drops a data frame routed to (`out`, `prio`) before the buffer.
            #[inline]
            pub fn refuses(&mut self, fx: &mut $crate::net::fabric::Fabric, out: $crate::ids::PortId, prio: u8, pkt: &$crate::net::packet::Packet) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::refuses(&mut self.$name, fx, out, prio, pkt) {
                    return true;
                } )*
                false
            }
            /// A data frame is offered to egress `out`: every model's hook, in order.
            #[inline]
            pub fn offered(&mut self, fx: &mut $crate::net::fabric::Fabric, out: $crate::ids::PortId, pkt: &$crate::net::packet::Packet) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::offered(&mut self.$name, fx, out, pkt); )*
            }
            /// A data frame found no room: the first model that decides its fate.
            pub fn overflow(&mut self, fx: &mut $crate::net::fabric::Fabric, o: &$crate::models::fabric_model::Overflow) -> Option<$crate::models::fabric_model::Fate> {
                $( $(#[cfg($cfg)])? if let Some(f) = $crate::models::fabric_model::FabricModel::overflow(&mut self.$name, fx, o) {
                    return Some(f);
                } )*
                None
            }
            /// The lowest egress limit a model asks for (`FabricModel::egress_limit`).
            pub fn egress_limit(&self) -> Option<u64> {
                let mut l: Option<u64> = None;
                $( $(#[cfg($cfg)])? if let Some(m) = $crate::models::fabric_model::FabricModel::egress_limit(&self.$name) {
                    l = Some(l.map_or(m, |l| l.min(m)));
                } )*
                l
            }
            /// Which hooks on a data frame's sender some model acts on (asked once per run).
            pub fn sender_hooks(&self) -> $crate::models::fabric_model::SenderHooks {
                use $crate::models::fabric_model::FabricModel as M;
                let mut h = $crate::models::fabric_model::SenderHooks::default();
                $( $(#[cfg($cfg)])? {
                    h.data_sent |= M::wants_data_sent(&self.$name);
                    h.resends |= M::wants_resends(&self.$name);
                } )*
                h
            }
            /// A data frame leaves its source NIC: every model's hook, in order.
            #[inline]
            pub fn data_sent<R: Fn() -> Option<u32>>(&mut self, fx: &mut $crate::net::fabric::Fabric, f: $crate::ids::FlowId, id: $crate::ids::PktId, regulator: &R) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::data_sent(&mut self.$name, fx, f, id, regulator); )*
            }
            /// A packet to resend while another is pending: true if a model queued it.
            pub fn queue_resend(&mut self, f: $crate::ids::FlowId, seq: u32) -> bool {
                $( $(#[cfg($cfg)])? if $crate::models::fabric_model::FabricModel::queue_resend(&mut self.$name, f, seq) {
                    return true;
                } )*
                false
            }
            /// The next queued packet of `f` to resend: the first model's that holds one.
            pub fn next_resend(&mut self, f: $crate::ids::FlowId, snd_una: u32) -> Option<u32> {
                $( $(#[cfg($cfg)])? if let Some(s) = $crate::models::fabric_model::FabricModel::next_resend(&mut self.$name, f, snd_una) {
                    return Some(s);
                } )*
                None
            }
            /// The packets of `f` the models hold to resend.
            #[inline]
            pub fn resends_pending(&self, f: $crate::ids::FlowId) -> u32 {
                let mut n = 0;
                $( $(#[cfg($cfg)])? { n += $crate::models::fabric_model::FabricModel::resends_pending(&self.$name, f); } )*
                n
            }
            /// The priorities the models' own frames use in a run of `plan`.
            pub fn frame_prios(plan: &$crate::plan::Plan) -> u8 {
                let mut p = 0;
                $( $(#[cfg($cfg)])? { p |= <$Ty as $crate::models::fabric_model::FabricModel>::frame_prios(plan); } )*
                p
            }
            /// The priorities with per-(port, priority) state in a run of `plan` whose
            /// frames use `prios`: those and any other a model keeps state under.
            pub fn state_prios(plan: &$crate::plan::Plan, prios: u8) -> u8 {
                let mut p = prios;
                $( $(#[cfg($cfg)])? { p |= <$Ty as $crate::models::fabric_model::FabricModel>::state_prios(plan, prios); } )*
                p
            }
            /// Whether some model in `plan` needs every sender made at build.
            pub fn eager_senders(plan: &$crate::plan::Plan) -> bool {
                $( $(#[cfg($cfg)])? if <$Ty as $crate::models::fabric_model::FabricModel>::eager_senders(plan) { return true; } )*
                false
            }
            /// A NAK that answered a trimmed header made the sender of `f` resend `n` packets.
            pub fn header_nak_answered(&mut self, f: $crate::ids::FlowId, n: u64) {
                $( $(#[cfg($cfg)])? $crate::models::fabric_model::FabricModel::header_nak_answered(&mut self.$name, f, n); )*
            }
            /// The RED thresholds port `p` uses now: the first model that marks there.
            pub fn red_thresholds(&self, p: u32) -> Option<(u64, u64, f64)> {
                $( $(#[cfg($cfg)])? if let Some(t) = $crate::models::fabric_model::FabricModel::red_thresholds(&self.$name, p) { return Some(t); } )*
                None
            }
        }

        /// The models' places in the list (`Listed::TAG`, `Event::Model`).
        #[allow(non_camel_case_types, dead_code)]
        #[repr(u8)]
        enum ModelTag {
            $( $(#[cfg($cfg)])? $name, )*
            _End,
        }

        $( $(#[cfg($cfg)])? impl $crate::models::fabric_model::Listed for $Ty {
            const TAG: u8 = ModelTag::$name as u8;
        } )*
    };
}
