//! The Python exception hierarchy and the barrier that keeps Rust panics out of Python.
//!
//! Every call into the engine goes through [`guard`]: a panic becomes
//! `SimulationError("internal error: ...")`, and the process-wide panic hook stays quiet
//! (no backtrace on stderr) while a guarded call is running on the current thread.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(dcsim._native, DcsimError, PyException, "Base class of every error raised by dcsim.");
create_exception!(
    dcsim._native,
    ScenarioError,
    DcsimError,
    "Invalid scenario input. The message is `path: reason`; the attributes `path` \
     (dotted field path or file name) and `reason` hold the two parts."
);
create_exception!(
    dcsim._native,
    SimulationError,
    DcsimError,
    "A failure while building or running a simulation (including internal errors)."
);
create_exception!(
    dcsim._native,
    ResourceError,
    SimulationError,
    "The process could not get the memory a scenario needs (an address-space or cgroup \
     limit below `simulation.memory_limit`). The message is `what: reason`; the attribute \
     `what` names what was being built."
);

thread_local! {
    /// Depth of guarded calls on this thread; the panic hook is silent while > 0.
    static QUIET: Cell<u32> = const { Cell::new(0) };
    /// Location of the last panic caught on this thread ("file:line").
    static LAST_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs (once per process) a panic hook that defers to the previous hook except
/// inside guarded calls, where it only records the panic location.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| q.get()) > 0 {
                let loc = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
                LAST_LOCATION.with(|c| *c.borrow_mut() = loc);
            } else {
                previous(info);
            }
        }));
    });
}

/// A caught panic, already turned into text.
#[derive(Debug)]
pub struct Panic(pub String);

impl Panic {
    pub fn into_pyerr(self) -> PyErr {
        SimulationError::new_err(format!("internal error: {}", self.0))
    }
}

impl From<Panic> for PyErr {
    fn from(p: Panic) -> PyErr {
        p.into_pyerr()
    }
}

/// Runs `f`, catching any panic. Safe to call with or without the GIL held.
pub fn guard<T>(f: impl FnOnce() -> T) -> Result<T, Panic> {
    struct Depth;
    impl Drop for Depth {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(q.get() - 1));
        }
    }
    QUIET.with(|q| q.set(q.get() + 1));
    let _depth = Depth;
    LAST_LOCATION.with(|c| *c.borrow_mut() = None);
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let msg = if let Some(s) = payload.downcast_ref::<&'static str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "panic with a non-string payload".to_string()
        };
        match LAST_LOCATION.with(|c| c.borrow_mut().take()) {
            Some(loc) => Panic(format!("{msg} (at {loc})")),
            None => Panic(msg),
        }
    })
}

/// Which stage an engine error came from: a file that cannot be read while loading is a
/// scenario problem, while running it is a simulation problem.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    Load,
    Run,
}

/// Converts an engine error to the matching Python exception.
pub fn to_pyerr(py: Python<'_>, err: dcsim::Error, stage: Stage) -> PyErr {
    use dcsim::Error;
    match err {
        Error::Scenario { path, msg } => scenario_error(py, &path, &msg),
        Error::Io { path, msg } => match stage {
            Stage::Load => scenario_error(py, &path, &msg),
            Stage::Run => SimulationError::new_err(format!("{path}: {msg}")),
        },
        Error::Resource { what, msg } => {
            let err = ResourceError::new_err(format!("{what}: {msg}"));
            let _ = err.value(py).setattr("what", what);
            err
        }
    }
}

/// `ScenarioError("path: reason")` with `path` and `reason` attributes set.
pub fn scenario_error(py: Python<'_>, path: &str, reason: &str) -> PyErr {
    let err = ScenarioError::new_err(format!("{path}: {reason}"));
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it
    // did, the message still carries both parts.
    let _ = value.setattr("path", path);
    let _ = value.setattr("reason", reason);
    err
}
