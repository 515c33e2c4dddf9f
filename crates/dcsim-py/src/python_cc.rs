//! Congestion control written in Python: binds the `dcsim.CongestionControl` subclasses a
//! caller gives (`dcsim.run(..., cc={name: cls})`) to the `type = "python"` entries of a
//! plan (`dcsim::models::external`), and calls their hooks with the GIL held.
//!
//! Each hook gets a `CcContext` (time, line rate, a random draw, timer requests) and, for
//! ACKs and losses, a small record; after the hook the instance's `rate` (bit/s) and
//! `window` (bytes or None) attributes are read back. An exception in a hook becomes the
//! run's error (flow, class, hook, Python traceback).

use std::sync::Arc;

use dcsim::models::external::{ExternalAlgorithm, ExternalFactory, ExternalParams, Hooks};
use dcsim::models::{Ack, CcCtx, Feedback, Loss, LossKind, NicSpec, TimerKind};
use dcsim::{Rate, SimTime};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};

/// The reaction hooks; a class must define `on_start` and at least one of these.
const REACTION_HOOKS: [&str; 5] = ["on_ack", "on_cnp", "on_feedback", "on_timer", "on_loss"];

/// What a hook may see and ask for (the Python face of `CcCtx`).
#[pyclass(module = "dcsim._native", name = "CcContext")]
pub struct PyCtx {
    /// Simulated time, ps.
    #[pyo3(get)]
    now: u64,
    /// The NIC's line rate, bit/s.
    #[pyo3(get)]
    line_rate: u64,
    /// A uniform random number in [0, 1) for this hook (seeded per flow).
    #[pyo3(get)]
    uniform: f64,
    /// Timer requests in order: (kind, Some(after ps)) restarts, (kind, None) cancels.
    ops: Vec<(TimerKind, Option<u64>)>,
}

#[pymethods]
impl PyCtx {
    /// (Re)starts timer `kind` (0..3) to expire `after` ps from now; `on_timer(ctx, kind)`
    /// is then called. Restarting a kind cancels its pending expiry.
    fn restart_timer(&mut self, kind: i64, after: i64) -> PyResult<()> {
        let k = timer_kind(kind)?;
        if after < 0 {
            return Err(PyValueError::new_err(format!("restart_timer: after must be >= 0 ps (got {after})")));
        }
        self.ops.push((k, Some(after as u64)));
        Ok(())
    }
    /// Cancels timer `kind` (0..3).
    fn cancel_timer(&mut self, kind: i64) -> PyResult<()> {
        let k = timer_kind(kind)?;
        self.ops.push((k, None));
        Ok(())
    }
}

fn timer_kind(kind: i64) -> PyResult<TimerKind> {
    if (0..4).contains(&kind) {
        Ok(kind as TimerKind)
    } else {
        Err(PyValueError::new_err(format!("timer kind must be 0, 1, 2 or 3 (got {kind})")))
    }
}

/// The NIC as a class's constructor sees it.
#[pyclass(module = "dcsim._native", name = "Nic", frozen)]
pub struct PyNic {
    /// bit/s.
    #[pyo3(get)]
    line_rate: u64,
    /// Wire bytes of a full packet.
    #[pyo3(get)]
    mtu_wire: u32,
    /// Payload bytes of a full packet.
    #[pyo3(get)]
    mss: u32,
    /// The fabric's largest base RTT, ps.
    #[pyo3(get)]
    base_rtt: u64,
}

/// An ACK or NAK as `on_ack` sees it (see `dcsim::models::Ack`).
#[pyclass(module = "dcsim._native", name = "Ack", frozen)]
pub struct PyAck {
    #[pyo3(get)]
    newly_acked: u64,
    #[pyo3(get)]
    acked_to: u32,
    #[pyo3(get)]
    snd_nxt: u32,
    /// ps.
    #[pyo3(get)]
    rtt: u64,
    #[pyo3(get)]
    ece: bool,
    #[pyo3(get)]
    nak: bool,
    #[pyo3(get)]
    recovery: bool,
    /// INT hop records, first switch first: (ts ps, tx_bytes, qlen bytes, rate bit/s).
    #[pyo3(get)]
    int: Py<PyList>,
}

/// A loss as a window-based transport reports it.
#[pyclass(module = "dcsim._native", name = "Loss", frozen)]
pub struct PyLoss {
    /// "fast_retransmit" or "timeout".
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    flight: u64,
    #[pyo3(get)]
    snd_nxt: u32,
}

/// The classes of one `type = "python"` entry.
struct PyFactory {
    cls: Py<PyType>,
    params_json: String,
    hooks: Hooks,
}

struct PyAlgo {
    obj: PyObject,
    ctx: Py<PyCtx>,
}

/// "Traceback ...\nValueError: message".
fn describe(py: Python<'_>, e: PyErr) -> String {
    let tb = e.traceback(py).and_then(|t| t.format().ok()).unwrap_or_default();
    format!("{tb}{e}")
}

impl PyAlgo {
    fn hook<'py>(
        &self,
        py: Python<'py>,
        ctx: &mut CcCtx,
        name: &str,
        args: impl FnOnce(Python<'py>, Bound<'py, PyCtx>) -> PyResult<Bound<'py, PyTuple>>,
    ) -> Result<(), String> {
        let c = self.ctx.bind(py);
        {
            let mut b = c.borrow_mut();
            b.now = ctx.now.0;
            b.line_rate = ctx.line_rate.0;
            b.uniform = ctx.uniform;
            b.ops.clear();
        }
        let a = args(py, c.clone()).map_err(|e| describe(py, e))?;
        self.obj.bind(py).call_method1(name, a).map_err(|e| describe(py, e))?;
        let b = c.borrow();
        for &(k, after) in &b.ops {
            match after {
                Some(t) => ctx.restart_timer(k, SimTime(t)),
                None => ctx.cancel_timer(k),
            }
        }
        Ok(())
    }
}

impl ExternalAlgorithm for PyAlgo {
    fn on_start(&mut self, ctx: &mut CcCtx) -> Result<(), String> {
        Python::with_gil(|py| self.hook(py, ctx, "on_start", |py, c| PyTuple::new(py, [c])))
    }
    fn on_send(&mut self, ctx: &mut CcCtx, wire_bytes: u32) -> Result<(), String> {
        Python::with_gil(|py| {
            self.hook(py, ctx, "on_send", |py, c| PyTuple::new(py, [c.into_any(), wire_bytes.into_pyobject(py)?.into_any()]))
        })
    }
    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) -> Result<(), String> {
        Python::with_gil(|py| {
            self.hook(py, ctx, "on_ack", |py, c| {
                let int = PyList::empty(py);
                for h in ack.int {
                    int.append((h.ts.0, h.tx_bytes, h.qlen, h.rate.0))?;
                }
                let a = PyAck {
                    newly_acked: ack.newly_acked,
                    acked_to: ack.acked_to,
                    snd_nxt: ack.snd_nxt,
                    rtt: ack.rtt.0,
                    ece: ack.ece,
                    nak: ack.nak,
                    recovery: ack.recovery,
                    int: int.unbind(),
                };
                PyTuple::new(py, [c.into_any(), Bound::new(py, a)?.into_any()])
            })
        })
    }
    fn on_loss(&mut self, ctx: &mut CcCtx, loss: &Loss) -> Result<(), String> {
        Python::with_gil(|py| {
            self.hook(py, ctx, "on_loss", |py, c| {
                let kind = match loss.kind {
                    LossKind::FastRetransmit => "fast_retransmit",
                    LossKind::Timeout => "timeout",
                };
                let l = PyLoss { kind, flight: loss.flight, snd_nxt: loss.snd_nxt };
                PyTuple::new(py, [c.into_any(), Bound::new(py, l)?.into_any()])
            })
        })
    }
    fn on_cnp(&mut self, ctx: &mut CcCtx) -> Result<(), String> {
        Python::with_gil(|py| self.hook(py, ctx, "on_cnp", |py, c| PyTuple::new(py, [c])))
    }
    fn on_feedback(&mut self, ctx: &mut CcCtx, fb: Feedback) -> Result<(), String> {
        Python::with_gil(|py| {
            self.hook(py, ctx, "on_feedback", |py, c| {
                let f = match fb {
                    Feedback::Qcn { fb } => ("qcn", fb as i64, 0i64).into_pyobject(py)?,
                    Feedback::Bcn { cp, fb } => ("bcn", fb as i64, cp as i64).into_pyobject(py)?,
                    Feedback::BcnStop { cp } => ("bcn_stop", 0i64, cp as i64).into_pyobject(py)?,
                    Feedback::FecnRate { rate } => ("fecn_rate", rate.0 as i64, 0i64).into_pyobject(py)?,
                    // NetworkCC: the switch's rate (bit/s; -1: a notification without a rate).
                    Feedback::SwitchCnp { cp, rate } => ("switch_cnp", rate.map_or(-1, |r| r.0 as i64), cp as i64).into_pyobject(py)?,
                };
                PyTuple::new(py, [c.into_any(), f.into_any()])
            })
        })
    }
    fn on_timer(&mut self, ctx: &mut CcCtx, kind: TimerKind) -> Result<(), String> {
        Python::with_gil(|py| self.hook(py, ctx, "on_timer", |py, c| PyTuple::new(py, [c.into_any(), kind.into_pyobject(py)?.into_any()])))
    }
    fn state(&mut self) -> Result<(Rate, Option<u64>), String> {
        Python::with_gil(|py| {
            let o = self.obj.bind(py);
            let r = o.getattr("rate").map_err(|e| describe(py, e))?;
            let rate = if let Ok(i) = r.extract::<u64>() {
                i
            } else {
                match r.extract::<f64>() {
                    // As the built-in algorithms round: down to whole bit/s.
                    Ok(f) if f.is_finite() && f >= 0.0 => f as u64,
                    _ => {
                        return Err(format!(
                            "rate must be a number of bit/s >= 0 (got {})",
                            r.repr().map(|s| s.to_string()).unwrap_or_default()
                        ))
                    }
                }
            };
            let w = o.getattr("window").map_err(|e| describe(py, e))?;
            let window = if w.is_none() {
                None
            } else {
                match w.extract::<u64>() {
                    Ok(b) => Some(b),
                    Err(_) => {
                        return Err(format!(
                            "window must be None or an int of bytes >= 0 (got {})",
                            w.repr().map(|s| s.to_string()).unwrap_or_default()
                        ))
                    }
                }
            };
            Ok((Rate(rate.max(1)), window))
        })
    }
}

impl ExternalFactory for PyFactory {
    fn hooks(&self) -> Hooks {
        self.hooks
    }
    fn create(&self, _flow: u32, nic: &NicSpec) -> Result<Box<dyn ExternalAlgorithm>, String> {
        Python::with_gil(|py| {
            let make = || -> PyResult<Box<dyn ExternalAlgorithm>> {
                let params = py.import("json")?.call_method1("loads", (&self.params_json,))?;
                let n = PyNic { line_rate: nic.line_rate.0, mtu_wire: nic.mtu_wire, mss: nic.mss, base_rtt: nic.base_rtt.0 };
                let obj = self.cls.bind(py).call1((Bound::new(py, n)?, params))?;
                let ctx = Py::new(py, PyCtx { now: 0, line_rate: nic.line_rate.0, uniform: 0.5, ops: Vec::new() })?;
                Ok(Box::new(PyAlgo { obj: obj.unbind(), ctx }))
            };
            make().map_err(|e| describe(py, e))
        })
    }
}

/// Binds the classes of `classes` (a dict: class name -> `dcsim.CongestionControl`
/// subclass) to the plan's `type = "python"` entries. Errors name the entry's field.
pub fn bind(
    py: Python<'_>,
    plan: &mut dcsim::Plan,
    classes: &Bound<'_, PyDict>,
) -> Result<dcsim::models::external::ExternalErrors, dcsim::Error> {
    let base = py
        .import("dcsim.cc")
        .and_then(|m| m.getattr("CongestionControl"))
        .map_err(|e| dcsim::Error::scenario("cc", format!("cannot import dcsim.cc: {e}")))?;
    dcsim::models::external::bind(plan, |p: &ExternalParams| {
        let field = format!("{}.class", p.path);
        let err = |msg: String| dcsim::Error::scenario(&field, msg);
        let given: Vec<String> = classes.keys().iter().map(|k| k.to_string()).collect();
        let cls = classes.get_item(&p.class).ok().flatten().ok_or_else(|| {
            err(format!(
                "no class \"{}\" was given (cc= names: {})",
                p.class,
                if given.is_empty() { "none".into() } else { given.join(", ") }
            ))
        })?;
        let cls = cls.downcast::<PyType>().map_err(|_| err(format!("cc[\"{}\"] is not a class", p.class)))?.clone();
        if !cls.is_subclass(&base).unwrap_or(false) {
            return Err(err(format!("{} is not a subclass of dcsim.CongestionControl", p.class)));
        }
        let defines = |name: &str| -> bool {
            match (cls.getattr(name), base.getattr(name)) {
                (Ok(c), Ok(b)) => !c.is(&b),
                (Ok(_), Err(_)) => true,
                _ => false,
            }
        };
        if !defines("on_start") {
            return Err(err(format!("class {} lacks the required hook on_start(self, ctx) (it sets the first rate and window)", p.class)));
        }
        if !REACTION_HOOKS.iter().any(|h| defines(h)) {
            return Err(err(format!("class {} defines none of the required reaction hooks ({})", p.class, REACTION_HOOKS.join(", "))));
        }
        let flag = |name: &str| cls.getattr(name).and_then(|v| v.is_truthy()).unwrap_or(false);
        let hooks = Hooks {
            on_send: defines("on_send"),
            on_ack: defines("on_ack"),
            on_loss: defines("on_loss"),
            on_cnp: defines("on_cnp"),
            on_feedback: defines("on_feedback"),
            on_timer: defines("on_timer"),
            wants_int: flag("wants_int"),
            windowed: flag("windowed"),
        };
        let f: Arc<dyn ExternalFactory> = Arc::new(PyFactory { cls: cls.unbind(), params_json: p.params_json.clone(), hooks });
        Ok(f)
    })
}
