//! `dcsim._native`: the Python face of the engine. The only crate that knows PyO3.
//!
//! * `load(path, overrides, data_roots)` / `loads(text, base_dir, overrides, data_roots)`
//!   -> `PlanHandle`; `read_scenario(path)` -> the file's text (checked as `load` does)
//! * `run(plan, progress=False, chunk_ps=None)` -> `{"tables": ..., "summary": json}`
//! * `apply_overrides(text, overrides)` -> the TOML text with the overrides merged in;
//!   `check_override(spec)` checks the syntax of one `path=value` override
//! * exceptions `DcsimError` > `ScenarioError`, `SimulationError` > `ResourceError`
//!
//! Engine calls run with the GIL released and behind a panic barrier (`errors::guard`).

use std::path::{Path, PathBuf};

use dcsim::Plan;
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod errors;
mod export;
mod packed_table;
mod python_cc;
mod runner;
mod stepper;

use errors::{guard, scenario_error, to_pyerr, DcsimError, ScenarioError, SimulationError, Stage};

/// A validated scenario, ready to run. Immutable; cheap to run many times.
#[pyclass(module = "dcsim._native", frozen)]
pub struct PlanHandle {
    plan: Plan,
    hash: String,
}

#[pymethods]
impl PlanHandle {
    /// The scenario's name.
    #[getter]
    fn name(&self) -> &str {
        &self.plan.name
    }
    /// Root seed of the run's random streams.
    #[getter]
    fn seed(&self) -> u64 {
        self.plan.seed
    }
    /// Simulated duration in picoseconds.
    #[getter]
    fn duration_ps(&self) -> u64 {
        self.plan.duration.0
    }
    /// Threads that run it (`simulation.threads`).
    #[getter]
    fn threads(&self) -> u32 {
        self.plan.threads
    }
    /// Hash of the scenario text and its overrides (hex).
    #[getter]
    fn hash(&self) -> &str {
        &self.hash
    }
    #[getter]
    fn num_nodes(&self) -> usize {
        self.plan.nodes.len()
    }
    #[getter]
    fn num_hosts(&self) -> usize {
        self.plan.nodes.iter().filter(|n| n.kind == dcsim::plan::NodeKind::Host).count()
    }
    #[getter]
    fn num_switches(&self) -> usize {
        self.plan.nodes.iter().filter(|n| n.kind == dcsim::plan::NodeKind::Switch).count()
    }
    #[getter]
    fn num_links(&self) -> usize {
        self.plan.links.len()
    }
    #[getter]
    fn num_flows(&self) -> usize {
        self.plan.flows.len()
    }
    /// Estimated bytes of memory the run needs (`scenario::limits`).
    #[getter]
    fn memory_estimate(&self) -> u64 {
        dcsim::scenario::limits::plan_footprint(&self.plan).bytes()
    }
    /// The memory limit the estimate was checked against, in bytes.
    #[getter]
    fn memory_limit(&self) -> u64 {
        self.plan.memory_limit
    }
    /// What the estimate counts, e.g. "16 hosts, 20 switches, 48 links, ...".
    #[getter]
    fn memory_counts(&self) -> String {
        dcsim::scenario::limits::plan_footprint(&self.plan).describe()
    }

    /// Estimated events of the run (`scenario::work`).
    #[getter]
    fn events_estimate(&self) -> u64 {
        dcsim::scenario::work::plan_work(&self.plan).events()
    }
    /// The event limit the estimate was checked against.
    #[getter]
    fn max_events(&self) -> u64 {
        self.plan.max_events
    }
    /// What the event estimate counts, largest first, e.g. "1.2e9 for frames of
    /// traffic[0] (traffic[0]), ...".
    #[getter]
    fn events_counts(&self) -> String {
        dcsim::scenario::work::plan_work(&self.plan).describe()
    }

    /// What the scenario runs that it may not mean to (RoCE on a lossy priority), one
    /// line each, `path: reason`; also the summary's `"warnings"`.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        dcsim::scenario::validate::warnings(&self.plan)
    }

    /// The name of each `[[traffic]]` entry, by group index.
    #[getter]
    fn group_names(&self) -> Vec<String> {
        self.plan.group_names.clone()
    }

    /// Per flow, the port ids (as in the `ports` table) its data frames leave by, from
    /// its NIC to its destination, as routed at the start of the run.
    fn flow_paths(&self, py: Python<'_>) -> PyResult<Vec<Vec<u32>>> {
        let plan = &self.plan;
        py.allow_threads(|| guard(|| dcsim::Simulation::new(plan).map(|s| s.flow_paths())))?.map_err(|e| to_pyerr(py, e, Stage::Run))
    }

    fn __repr__(&self) -> String {
        format!(
            "PlanHandle(name={:?}, seed={}, duration_ps={}, nodes={}, links={}, flows={}, hash={:?})",
            self.plan.name,
            self.plan.seed,
            self.plan.duration.0,
            self.plan.nodes.len(),
            self.plan.links.len(),
            self.plan.flows.len(),
            self.hash
        )
    }
}

use dcsim::scenario::scenario_hash;

/// What the summary says of the plan rather than of the run: its warnings and the
/// names of its traffic groups (added by `run` and `Stepper.finish` alike).
pub(crate) fn input_summary(plan: &Plan) -> Vec<(&'static str, serde_json::Value)> {
    vec![("warnings", serde_json::json!(dcsim::scenario::validate::warnings(plan))), ("group_names", serde_json::json!(plan.group_names))]
}

/// Reads a scenario file as text: a regular UTF-8 file without NUL bytes, of at most
/// the file size limit. Raises `ScenarioError` whose `path` is the file.
#[pyfunction]
fn read_scenario(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    py.allow_threads(|| guard(|| dcsim::scenario::read_scenario(&path)))?.map_err(|e| to_pyerr(py, e, Stage::Load))
}

/// A duration as scenario files write it ("10ms", "2.5us"), in picoseconds. Raises
/// ValueError saying why a string is not one.
#[pyfunction]
fn parse_time_ps(s: &str) -> PyResult<u64> {
    dcsim::units::parse_time(s).map(|t| t.0).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))
}

/// A rate as scenarios write it ("40Gbps") in bit/s; ValueError if malformed.
#[pyfunction]
fn parse_rate_bps(s: &str) -> PyResult<u64> {
    dcsim::units::parse_rate(s).map(|r| r.0).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))
}

/// A size as scenarios write it ("100KB", "64KiB") in bytes; ValueError if malformed.
#[pyfunction]
fn parse_size_bytes(s: &str) -> PyResult<u64> {
    dcsim::units::parse_bytes(s).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))
}

/// Reads and validates a scenario file, applying `path=value` overrides. The files it
/// names must be in its directory, in one of `data_roots` or in the shipped data.
#[pyfunction]
#[pyo3(signature = (path, overrides=None, data_roots=None))]
fn load(py: Python<'_>, path: PathBuf, overrides: Option<Vec<String>>, data_roots: Option<Vec<PathBuf>>) -> PyResult<PlanHandle> {
    let overrides = overrides.unwrap_or_default();
    let roots = data_roots.unwrap_or_default();
    let (text, plan) = py
        .allow_threads(|| {
            guard(|| {
                let text = dcsim::scenario::read_scenario(&path)?;
                dcsim::scenario::load_file_with(&path, &overrides, &roots).map(|p| (text, p))
            })
        })?
        .map_err(|e| to_pyerr(py, e, Stage::Load))?;
    Ok(PlanHandle { plan, hash: scenario_hash(&text, &overrides) })
}

/// Validates scenario text; relative file names in it resolve against `base_dir`, and
/// the files it names must be there, in one of `data_roots` or in the shipped data.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None, overrides=None, data_roots=None))]
fn loads(
    py: Python<'_>,
    text: &str,
    base_dir: Option<PathBuf>,
    overrides: Option<Vec<String>>,
    data_roots: Option<Vec<PathBuf>>,
) -> PyResult<PlanHandle> {
    let overrides = overrides.unwrap_or_default();
    let roots = data_roots.unwrap_or_default();
    let base = base_dir.unwrap_or_else(|| PathBuf::from("."));
    let plan = py
        .allow_threads(|| guard(|| dcsim::scenario::load_str_with(text, Path::new(&base), &overrides, &roots)))?
        .map_err(|e| to_pyerr(py, e, Stage::Load))?;
    Ok(PlanHandle { plan, hash: scenario_hash(text, &overrides) })
}

/// The hash a plan of this text and these overrides has (`PlanHandle.hash`).
#[pyfunction]
#[pyo3(name = "scenario_hash")]
fn py_scenario_hash(text: &str, overrides: Vec<String>) -> String {
    scenario_hash(text, &overrides)
}

/// Applies `path=value` overrides to scenario text with the engine's override parser
/// and returns the merged document as TOML text (keys sorted, comments dropped).
/// Raises `ScenarioError` for invalid TOML or an override that cannot be applied.
#[pyfunction]
fn apply_overrides(py: Python<'_>, text: &str, overrides: Vec<String>) -> PyResult<String> {
    let merged = guard(|| dcsim::scenario::overrides::merge(text, &overrides))?.map_err(|e| to_pyerr(py, e, Stage::Load))?;
    toml::to_string(&merged).map_err(|e| scenario_error(py, "scenario", &format!("cannot write as TOML: {e}")))
}

/// Checks the syntax of one `path=value` override (the path's keys and `[i]` indices);
/// raises `ScenarioError` naming the override if it is malformed.
#[pyfunction]
fn check_override(py: Python<'_>, spec: &str) -> PyResult<()> {
    guard(|| dcsim::scenario::overrides::check_override(spec))?.map_err(|e| to_pyerr(py, e, Stage::Load))
}

/// Runs a plan to its end. Returns `{"tables": {name: {col: ndarray | list[str]}},
/// "summary": json_str, "events": int, "wall_s": float}`; numeric columns are 1-D NumPy
/// arrays of dtype uint64, int64 or float64.
///
/// The simulation advances in chunks of simulated time with the GIL released; between
/// chunks Ctrl-C is checked (raising KeyboardInterrupt) and, with `progress`, a progress
/// bar is drawn on stderr once the run has lasted a second. `chunk_ps` fixes the chunk
/// length; by default it adapts so that a chunk takes about 75 ms of wall time.
///
/// `cc` maps the class names of the plan's `type = "python"` entries to their
/// `dcsim.CongestionControl` subclasses; the first exception raised in a hook fails the
/// run with `SimulationError` (flow, class, hook, traceback).
#[pyfunction]
#[pyo3(signature = (plan, progress=false, chunk_ps=None, cc=None))]
fn run<'py>(
    py: Python<'py>,
    plan: &Bound<'py, PlanHandle>,
    progress: bool,
    chunk_ps: Option<u64>,
    cc: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let handle = plan.get();
    let has_python = handle.plan.ccs.iter().any(|c| matches!(c, dcsim::models::CcPlan::External(_)));
    let (mut done, stats) = match (has_python, cc) {
        (true, Some(classes)) => {
            // A fresh copy per run: the error slot and the flow numbering are per run.
            let mut bound = handle.plan.clone();
            let errors = python_cc::bind(py, &mut bound, &classes).map_err(|e| to_pyerr(py, e, Stage::Load))?;
            dcsim::scenario::validate::validate_models(&bound).map_err(|e| to_pyerr(py, e, Stage::Load))?;
            runner::run_plan_checked(py, &bound, progress, chunk_ps, Some(&errors))?
        }
        _ => runner::run_plan(py, &handle.plan, progress, chunk_ps)?,
    };
    for (k, v) in input_summary(&handle.plan) {
        done.results.summary[k] = v;
    }
    let out = export::results_to_py(py, done)?;
    out.set_item("events", stats.events)?;
    out.set_item("wall_s", stats.wall.as_secs_f64())?;
    Ok(out)
}

/// A small fixed `Results` in the `run` output format (every column kind, an empty
/// table), for testing the conversion layers without running a simulation.
#[pyfunction]
fn _example_results(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use dcsim::results::{Column, Results, Table};
    let mut flows = Table::default();
    flows.push("flow", Column::U64(vec![0, 1]));
    flows.push("src", Column::Str(["h0", "h1"].into_iter().collect()));
    flows.push("dst", Column::Str(["h2", "h2"].into_iter().collect()));
    flows.push("start_ps", Column::U64(vec![0, 1_000_000]));
    flows.push("fct_ps", Column::I64(vec![-1, 123_456_789]));
    flows.push("goodput_steady_gbps", Column::F64(vec![19.5, f64::NAN]));
    let mut nodes = Table::default();
    nodes.push("node", Column::U64(vec![0, 1, 2, 3]));
    nodes.push("name", Column::Str(["h0", "h1", "h2", "s0"].into_iter().collect()));
    let results = Results {
        tables: vec![("flows".into(), flows), ("nodes".into(), nodes), ("pfc_events".into(), Table::default())],
        summary: serde_json::json!({"name": "example", "seed": 1, "drops": 0, "pfc_frames": 3}),
    };
    export::results_to_py(py, export::Finished { results, rates: None })
}

/// The storage workload profiles of `[[traffic]] type = "storage"` (seed 004's table):
/// a list of dicts with name, read_fraction, block_min, block_max (bytes) and
/// concurrency.
#[pyfunction]
fn storage_profiles(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    dcsim::scenario::storage::PROFILES
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name)?;
            d.set_item("read_fraction", p.read_fraction)?;
            d.set_item("block_min", p.block_min)?;
            d.set_item("block_max", p.block_max)?;
            d.set_item("concurrency", p.concurrency)?;
            Ok(d)
        })
        .collect()
}

/// Raises a Rust panic inside the panic barrier (tests the SimulationError path).
#[pyfunction]
fn _panic(message: &str) -> PyResult<()> {
    guard(|| panic!("{message}"))?;
    Ok(())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("engine_version", dcsim::VERSION)?;
    m.add("DcsimError", py.get_type::<DcsimError>())?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("ResourceError", py.get_type::<errors::ResourceError>())?;
    m.add_class::<PlanHandle>()?;
    m.add_class::<stepper::Stepper>()?;
    m.add_class::<packed_table::PackedTable>()?;
    m.add_class::<python_cc::PyCtx>()?;
    m.add_class::<python_cc::PyNic>()?;
    m.add_class::<python_cc::PyAck>()?;
    m.add_class::<python_cc::PyLoss>()?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(py_scenario_hash, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(check_override, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time_ps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(_example_results, m)?)?;
    m.add_function(wrap_pyfunction!(storage_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    Ok(())
}
