//! `type = "python"`: a reaction point whose hooks live outside the engine (a
//! `dcsim.CongestionControl` subclass; the Python side is `crates/dcsim-py/src/python_cc.rs`
//! and `python/dcsim/cc.py`).
//!
//! The scenario names a class (`class = "..."`) and may give it parameters (every other
//! key, handed over as JSON). The engine cannot run such a plan by itself: the caller
//! binds a factory to each `type = "python"` entry (`Plan::bind_external`) before building
//! the simulation. Built-in algorithms keep their static dispatch: this is one more
//! variant of `models::Cc`, and only its own hooks go through a trait object.
//!
//! A hook that fails does not panic: the first error (with the flow and the hook) is kept
//! in the run's `ExternalErrors`, the algorithm stops being called and keeps its last
//! rate and window, and the caller fails the run when it next looks (between chunks).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::keys::{at, Check, KeyCtx, Keys};
use crate::models::{Ack, CcCtx, CongestionControl, Feedback, Loss, NicSpec, TimerKind};
use crate::units::Rate;

/// One instance of an external algorithm (one per queue pair). Every hook returns the
/// error message of a failure; `rate` and `window` are read after each successful hook.
pub trait ExternalAlgorithm: Send {
    fn on_start(&mut self, ctx: &mut CcCtx) -> std::result::Result<(), String>;
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) -> std::result::Result<(), String>;
    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) -> std::result::Result<(), String>;
    fn on_loss(&mut self, ctx: &mut CcCtx, loss: &Loss) -> std::result::Result<(), String>;
    fn on_cnp(&mut self, ctx: &mut CcCtx) -> std::result::Result<(), String>;
    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) -> std::result::Result<(), String>;
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) -> std::result::Result<(), String>;
    /// The pacing rate and window the algorithm has set (read after each hook).
    fn state(&mut self) -> std::result::Result<(Rate, Option<u64>), String>;
}

/// Which hooks an external class defines (the engine skips the others).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Hooks {
    pub on_send: bool,
    pub on_ack: bool,
    pub on_loss: bool,
    pub on_cnp: bool,
    pub on_feedback: bool,
    pub on_timer: bool,
    /// The flow's frames carry INT (`wants_int = True` on the class).
    pub wants_int: bool,
    /// The class limits bytes in flight (`windowed = True` on the class).
    pub windowed: bool,
}

/// Makes the instances of one `type = "python"` entry.
pub trait ExternalFactory: Send + Sync {
    fn hooks(&self) -> Hooks;
    /// A fresh instance for flow `flow` on `nic`; `Err` is the constructor's failure.
    fn create(&self, flow: u32, nic: &NicSpec) -> std::result::Result<Box<dyn ExternalAlgorithm>, String>;
}

/// What a run's external algorithms share: the first failure, and the number of the
/// next queue pair (the engine creates them in flow order, once per run).
#[derive(Clone, Default)]
pub struct ExternalErrors(Arc<(Mutex<Option<String>>, AtomicU32)>);

impl ExternalErrors {
    /// The first failure of the run, if any.
    pub fn first(&self) -> Option<String> {
        self.0 .0.lock().map(|g| g.clone()).unwrap_or(None)
    }
    fn record(&self, msg: String) {
        if let Ok(mut g) = self.0 .0.lock() {
            g.get_or_insert(msg);
        }
    }
    fn next_flow(&self) -> u32 {
        self.0 .1.fetch_add(1, Ordering::Relaxed)
    }
}

/// A factory bound to an entry, with the run's error slot and the next flow number.
#[derive(Clone)]
pub struct Binding {
    pub factory: Arc<dyn ExternalFactory>,
    pub errors: ExternalErrors,
}

/// Resolved parameters of `type = "python"`.
#[derive(Clone)]
pub struct ExternalParams {
    /// The class name the scenario gives (`class`).
    pub class: String,
    /// The other keys of the table, as a JSON object.
    pub params_json: String,
    /// Where the table is (`host.cc`, `traffic[2].cc`), for messages.
    pub path: String,
    /// Set by `Plan::bind_external`.
    pub binding: Option<Binding>,
}

impl std::fmt::Debug for ExternalParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalParams")
            .field("class", &self.class)
            .field("params_json", &self.params_json)
            .field("bound", &self.binding.is_some())
            .finish()
    }
}

impl PartialEq for ExternalParams {
    fn eq(&self, o: &Self) -> bool {
        self.class == o.class
            && self.params_json == o.params_json
            && match (&self.binding, &o.binding) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(&a.factory, &b.factory),
                _ => false,
            }
    }
}

impl Check for ExternalParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if self.class.is_empty() {
            return Err(Error::scenario(at(path, "class"), "must name a dcsim.CongestionControl subclass"));
        }
        Ok(())
    }
}

/// `type = "python"`: `class` and the class's own parameters.
#[derive(Clone, Debug, Deserialize)]
pub struct ExternalKeys {
    pub class: Option<String>,
    #[serde(flatten)]
    pub params: toml::Table,
}

impl Keys for ExternalKeys {
    type Out = ExternalParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<ExternalParams> {
        let class = self.class.clone().ok_or_else(|| {
            Error::scenario(at(path, "class"), "missing; type = \"python\" names the dcsim.CongestionControl subclass to run")
        })?;
        let params_json =
            serde_json::to_string(&self.params).map_err(|e| Error::scenario(path, format!("parameters cannot be passed on: {e}")))?;
        Ok(ExternalParams { class, params_json, path: path.to_string(), binding: None })
    }
}

/// The run-time side: the instance, what it last set, and where failures go.
pub struct External {
    inner: Option<Box<dyn ExternalAlgorithm>>,
    hooks: Hooks,
    rate: Rate,
    window: Option<u64>,
    flow: u32,
    class: String,
    errors: ExternalErrors,
}

impl Clone for External {
    /// A clone shares nothing with the running instance: it is inert at the same rate.
    fn clone(&self) -> Self {
        External {
            inner: None,
            hooks: self.hooks,
            rate: self.rate,
            window: self.window,
            flow: self.flow,
            class: self.class.clone(),
            errors: self.errors.clone(),
        }
    }
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External").field("class", &self.class).field("flow", &self.flow).field("rate", &self.rate).finish()
    }
}

impl External {
    /// Runs one hook; on failure records it and retires the instance.
    #[inline]
    fn call(&mut self, hook: &str, f: impl FnOnce(&mut dyn ExternalAlgorithm) -> std::result::Result<(), String>) {
        let Some(inner) = self.inner.as_deref_mut() else { return };
        match f(inner).and_then(|_| inner.state()) {
            Ok((rate, window)) => {
                self.rate = rate;
                self.window = window;
            }
            Err(msg) => {
                self.errors.record(format!("flow {}: {}.{} failed: {msg}", self.flow, self.class, hook));
                self.inner = None;
            }
        }
    }
}

impl CongestionControl for External {
    type Params = ExternalParams;
    /// Flows are numbered in the order the engine creates their queue pairs (flow id).
    fn from_params(p: &ExternalParams, nic: &NicSpec) -> Self {
        let mut e = External {
            inner: None,
            hooks: Hooks::default(),
            rate: nic.line_rate,
            window: None,
            flow: 0,
            class: p.class.clone(),
            errors: ExternalErrors::default(),
        };
        if let Some(b) = &p.binding {
            e.hooks = b.factory.hooks();
            e.errors = b.errors.clone();
            e.flow = b.errors.next_flow();
            match b.factory.create(e.flow, nic).and_then(|mut a| a.state().map(|s| (a, s))) {
                Ok((inner, (rate, window))) => {
                    e.inner = Some(inner);
                    e.rate = rate;
                    e.window = window;
                }
                Err(msg) => e.errors.record(format!("flow {}: {}() failed: {msg}", e.flow, p.class)),
            }
            if e.hooks.windowed && e.window.is_none() {
                e.window = Some(u64::MAX);
            }
        }
        e
    }
    fn on_start(&mut self, ctx: &mut CcCtx) {
        self.call("on_start", |a| a.on_start(ctx))
    }
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) {
        if self.hooks.on_send {
            self.call("on_send", |a| a.on_send(ctx, wire_bytes))
        }
    }
    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) {
        self.call("on_ack", |a| a.on_ack(ctx, ack))
    }
    fn on_loss(&mut self, ctx: &mut CcCtx, loss: &Loss) {
        if self.hooks.on_loss {
            self.call("on_loss", |a| a.on_loss(ctx, loss))
        }
    }
    fn wants_acks(&self) -> bool {
        self.hooks.on_ack
    }
    fn wants_int(&self) -> bool {
        self.hooks.wants_int
    }
    fn window(&self) -> Option<u64> {
        self.window
    }
    fn on_cnp(&mut self, ctx: &mut CcCtx) {
        if self.hooks.on_cnp {
            self.call("on_cnp", |a| a.on_cnp(ctx))
        }
    }
    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) {
        if self.hooks.on_feedback {
            self.call("on_feedback", |a| a.on_feedback(ctx, fb))
        }
    }
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) {
        if self.hooks.on_timer {
            self.call("on_timer", |a| a.on_timer(ctx, kind))
        }
    }
    fn rate(&self) -> Rate {
        self.rate
    }
    /// What the plan says without creating an instance (validation probes).
    fn plan_flags(p: &ExternalParams) -> Option<(bool, bool, bool)> {
        let h = p.binding.as_ref().map(|b| b.factory.hooks()).unwrap_or_default();
        Some((h.on_ack, h.windowed, h.wants_int))
    }
}

/// Binds a factory to every `type = "python"` entry of `plan` (`factory` gets the entry's
/// parameters and its path) and returns the run's shared error slot. Bind a fresh copy of
/// the plan for each run: the slot and the flow numbering are per run.
pub fn bind(
    plan: &mut crate::plan::Plan,
    mut factory: impl FnMut(&ExternalParams) -> Result<Arc<dyn ExternalFactory>>,
) -> Result<ExternalErrors> {
    let errors = ExternalErrors::default();
    for cc in plan.ccs.iter_mut() {
        if let crate::models::CcPlan::External(p) = cc {
            let f = factory(p)?;
            p.binding = Some(Binding { factory: f, errors: errors.clone() });
        }
    }
    Ok(errors)
}

/// An error for the first `type = "python"` entry of `plan` without a factory.
pub fn check_bound(plan: &crate::plan::Plan) -> Result<()> {
    for cc in &plan.ccs {
        if let crate::models::CcPlan::External(p) = cc {
            if p.binding.is_none() {
                return Err(Error::scenario(
                    at(&p.path, "type"),
                    format!(
                        "\"python\" (class \"{}\") runs only from the Python API: dcsim.run(scenario, cc={{\"{}\": YourClass}})",
                        p.class, p.class
                    ),
                ));
            }
        }
    }
    Ok(())
}
