//! `Stepper`: a run advanced by the caller (seed 004's reconfiguration loop): run to a
//! time, read the last interval's storage KPIs, change the switches' ECN thresholds,
//! and finish with the usual results. Stepping without changes gives the results of a
//! plain run bit for bit (the engine's `run_until` is what `run` calls in chunks).

use std::time::Instant;

use dcsim::{SimTime, Simulation};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, to_pyerr, SimulationError, Stage};
use crate::PlanHandle;

/// A simulation advanced step by step. `Stepper(plan)` builds the world of a
/// `PlanHandle` (plans with `type = "python"` congestion control are run by `run`).
#[pyclass(module = "dcsim._native", unsendable)]
pub struct Stepper {
    sim: Option<Simulation>,
    started: Instant,
    /// What the summary says of the plan (`input_summary`), kept from `new`.
    input: Vec<(&'static str, serde_json::Value)>,
}

impl Stepper {
    fn sim(&mut self) -> PyResult<&mut Simulation> {
        self.sim.as_mut().ok_or_else(|| SimulationError::new_err("the run is finished"))
    }
}

#[pymethods]
impl Stepper {
    #[new]
    fn new(py: Python<'_>, plan: &Bound<'_, PlanHandle>) -> PyResult<Self> {
        let plan = &plan.get().plan;
        if plan.ccs.iter().any(|c| matches!(c, dcsim::models::CcPlan::External(_))) {
            return Err(SimulationError::new_err(
                "a plan with type = \"python\" congestion control runs with dcsim.run(cc=...), not stepped",
            ));
        }
        let sim = py.allow_threads(|| guard(|| Simulation::new(plan)))?.map_err(|e| to_pyerr(py, e, Stage::Run))?;
        Ok(Stepper { sim: Some(sim), started: Instant::now(), input: crate::input_summary(plan) })
    }

    /// Simulated time reached, in picoseconds.
    #[getter]
    fn now_ps(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.now().0)
    }

    /// The plan's end, in picoseconds.
    #[getter]
    fn end_ps(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.end().0)
    }

    /// Frames that finished crossing a link so far.
    #[getter]
    fn link_packet_hops(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.packet_hops())
    }

    /// Packets alive now (queued, on links, being processed).
    #[getter]
    fn packets_in_flight(&mut self) -> PyResult<usize> {
        Ok(self.sim()?.packets_in_flight())
    }

    /// Processes every event up to and including `t_ps` (at most the end), with the
    /// GIL released; Ctrl-C is checked every simulated millisecond. Returns whether the
    /// run has more to do.
    fn run_until(&mut self, py: Python<'_>, t_ps: u64) -> PyResult<bool> {
        let sim = self.sim()?;
        let target = t_ps.min(sim.end().0);
        loop {
            let step = sim.now().0.saturating_add(1_000_000_000).min(target);
            let more = py.allow_threads(|| guard(|| sim.run_until(SimTime(step))))?;
            if !more || step >= target {
                return Ok(more);
            }
            py.check_signals()?;
        }
    }

    /// The storage KPIs of the last complete `stats.io_interval` (the `io` table's
    /// last row) as a dict, or None before the first interval or without storage.
    fn kpi<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(k) = self.sim()?.io_kpi() else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("time_ps", k.time.0)?;
        d.set_item("interval_ps", k.interval.0)?;
        d.set_item("ios", k.ios)?;
        d.set_item("iops", k.iops)?;
        d.set_item("latency_mean_ps", k.latency_mean_ps)?;
        d.set_item("read_bytes", k.read_bytes)?;
        d.set_item("write_bytes", k.write_bytes)?;
        d.set_item("ecn_marked", k.ecn_marked)?;
        d.set_item("cnps_sent", k.cnps_sent)?;
        d.set_item("paused_ps", k.paused_ps)?;
        d.set_item("queue_mean_bytes", k.queue_mean_bytes)?;
        d.set_item("queue_max_bytes", k.queue_max_bytes)?;
        Ok(Some(d))
    }

    /// Sets RED thresholds (bytes) and Pmax on every switch port, or on the switch
    /// port ids `ports`. Raises ScenarioError naming the bad argument.
    #[pyo3(signature = (kmin, kmax, pmax, ports=None))]
    fn set_ecn(&mut self, py: Python<'_>, kmin: u64, kmax: u64, pmax: f64, ports: Option<Vec<u32>>) -> PyResult<()> {
        let sim = self.sim()?;
        guard(|| sim.set_ecn(kmin, kmax, pmax, ports.as_deref()))?.map_err(|e| to_pyerr(py, e, Stage::Load))
    }

    /// Runs to the end and returns the results in `run`'s format; the stepper is then
    /// finished.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let end = self.sim()?.end().0;
        while self.run_until(py, end)? {}
        let mut sim = self.sim.take().expect("checked above");
        let events = sim.events();
        guard(|| sim.finish_pcap())?.map_err(|e| to_pyerr(py, e, Stage::Run))?;
        let mut done = py.allow_threads(move || guard(move || crate::export::finish(sim)))?;
        for (k, v) in &self.input {
            done.results.summary[*k] = v.clone();
        }
        let out = crate::export::results_to_py(py, done)?;
        out.set_item("events", events)?;
        out.set_item("wall_s", self.started.elapsed().as_secs_f64())?;
        Ok(out)
    }
}
