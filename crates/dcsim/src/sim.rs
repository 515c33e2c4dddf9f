//! World construction from a `Plan` and the run loop.

use crate::error::Result;
use crate::plan::Plan;
use crate::results::Results;
use crate::units::SimTime;

pub struct Simulation {
    _p: (),
}

impl Simulation {
    /// Builds the world (routing tables, buffers, queue pairs) from a validated plan.
    pub fn new(plan: &Plan) -> Result<Self> {
        let _ = plan;
        todo!()
    }
    /// Processes events up to and including time `t` (capped at the plan's duration).
    /// Returns true while the run has more to do.
    pub fn run_until(&mut self, t: SimTime) -> bool {
        let _ = t;
        todo!()
    }
    /// Current simulated time.
    pub fn now(&self) -> SimTime { todo!() }
    /// The plan's end time.
    pub fn end(&self) -> SimTime { todo!() }
    /// Events processed so far.
    pub fn events(&self) -> u64 { todo!() }
    /// Finalises statistics and returns the results tables and summary.
    pub fn finish(self) -> Results { todo!() }
}

/// Convenience: build, run to the end, finish.
pub fn run(plan: &Plan) -> Result<Results> {
    let mut sim = Simulation::new(plan)?;
    while sim.run_until(sim.end()) {}
    Ok(sim.finish())
}
