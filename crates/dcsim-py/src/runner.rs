//! The run loop: advance the simulation in chunks of simulated time with the GIL
//! released, checking for Ctrl-C (and drawing the progress bar) between chunks.

use std::time::{Duration, Instant};

use dcsim::{Plan, SimTime, Simulation};
use pyo3::prelude::*;

use dcsim::models::external::ExternalErrors;

use crate::errors::{guard, to_pyerr, SimulationError, Stage};
use crate::export::Finished;

/// Wall time one chunk should take: frequent enough for a prompt Ctrl-C, rare enough
/// that the checks cost nothing.
const TARGET_CHUNK: Duration = Duration::from_millis(75);
/// First chunk when the caller does not fix one: 1 us of simulated time.
const FIRST_CHUNK_PS: u64 = 1_000_000;
const MIN_CHUNK_PS: u64 = 1_000;
/// The progress bar appears only for runs longer than this.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);
const PROGRESS_EVERY: Duration = Duration::from_millis(100);
const BAR_WIDTH: usize = 20;

/// Next chunk length from the speed measured over the last one. Growth and shrinkage
/// are bounded per step so one odd chunk (a burst of events) does not swing it wildly.
pub fn next_chunk(chunk_ps: u64, advanced_ps: u64, wall: Duration) -> u64 {
    let secs = wall.as_secs_f64();
    let proposed = if secs <= 1e-6 || advanced_ps == 0 {
        chunk_ps.saturating_mul(4)
    } else {
        let speed = advanced_ps as f64 / secs; // simulated ps per wall second
        (speed * TARGET_CHUNK.as_secs_f64()).min(u64::MAX as f64 / 4.0) as u64
    };
    proposed.clamp((chunk_ps / 8).max(MIN_CHUNK_PS), chunk_ps.saturating_mul(4).max(MIN_CHUNK_PS))
}

/// "8.4ms", "20ms", "513us": three significant digits at most.
pub fn fmt_time(ps: u64) -> String {
    let (v, unit) = if ps >= 1_000_000_000_000 {
        (ps as f64 / 1e12, "s")
    } else if ps >= 1_000_000_000 {
        (ps as f64 / 1e9, "ms")
    } else if ps >= 1_000_000 {
        (ps as f64 / 1e6, "us")
    } else if ps >= 1_000 {
        (ps as f64 / 1e3, "ns")
    } else {
        return format!("{ps}ps");
    };
    let s = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    format!("{s}{unit}")
}

fn fmt_rate(events_per_s: f64) -> String {
    if events_per_s >= 1e6 {
        format!("{:.1} M events/s", events_per_s / 1e6)
    } else if events_per_s >= 1e3 {
        format!("{:.1} k events/s", events_per_s / 1e3)
    } else {
        format!("{events_per_s:.0} events/s")
    }
}

/// `[#####.....] 42% sim 8.4ms/20ms  3.1 M events/s`
pub fn progress_line(now_ps: u64, end_ps: u64, events: u64, wall: Duration) -> String {
    let frac = if end_ps == 0 { 1.0 } else { (now_ps as f64 / end_ps as f64).clamp(0.0, 1.0) };
    let filled = ((frac * BAR_WIDTH as f64).floor() as usize).min(BAR_WIDTH);
    let bar: String = "#".repeat(filled) + &".".repeat(BAR_WIDTH - filled);
    let secs = wall.as_secs_f64();
    let rate = if secs > 0.0 { events as f64 / secs } else { 0.0 };
    format!("[{bar}] {:>3}% sim {}/{}  {}", (frac * 100.0).floor() as u32, fmt_time(now_ps), fmt_time(end_ps), fmt_rate(rate))
}

struct Progress<'py> {
    py: Python<'py>,
    enabled: bool,
    shown: bool,
    last: Option<Instant>,
    width: usize,
}

impl<'py> Progress<'py> {
    fn write(&mut self, text: &str) {
        // Through sys.stderr so notebooks and pytest capture see it. A failing stderr
        // must not fail the run.
        let _ = (|| -> PyResult<()> {
            let stderr = self.py.import("sys")?.getattr("stderr")?;
            if stderr.is_none() {
                return Ok(());
            }
            stderr.call_method1("write", (text,))?;
            stderr.call_method0("flush")?;
            Ok(())
        })();
    }

    fn update(&mut self, now_ps: u64, end_ps: u64, events: u64, started: Instant, force: bool) {
        if !self.enabled {
            return;
        }
        let wall = started.elapsed();
        if !self.shown && wall < PROGRESS_AFTER {
            return;
        }
        if !force && self.last.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
            return;
        }
        let line = progress_line(now_ps, end_ps, events, wall);
        let pad = self.width.saturating_sub(line.chars().count());
        self.width = self.width.max(line.chars().count());
        self.write(&format!("\r{line}{}", " ".repeat(pad)));
        self.shown = true;
        self.last = Some(Instant::now());
    }

    fn done(&mut self) {
        if self.shown {
            self.write("\n");
            self.shown = false;
        }
    }
}

/// Statistics of a finished run loop.
pub struct RunStats {
    pub events: u64,
    pub wall: Duration,
}

/// Builds and runs the simulation of `plan`; returns the finished results.
pub fn run_plan(py: Python<'_>, plan: &Plan, progress: bool, fixed_chunk_ps: Option<u64>) -> PyResult<(Finished, RunStats)> {
    run_plan_checked(py, plan, progress, fixed_chunk_ps, None)
}

/// The first failure of a Python-defined algorithm, as the run's error.
fn check_external(errors: Option<&ExternalErrors>) -> PyResult<()> {
    match errors.and_then(|e| e.first()) {
        Some(msg) => Err(SimulationError::new_err(format!("congestion control: {msg}"))),
        None => Ok(()),
    }
}

/// `run_plan`, failing the run at the first error of a Python-defined algorithm (checked
/// after the build and after every chunk; nothing of a failed run is returned).
pub fn run_plan_checked(
    py: Python<'_>,
    plan: &Plan,
    progress: bool,
    fixed_chunk_ps: Option<u64>,
    errors: Option<&ExternalErrors>,
) -> PyResult<(Finished, RunStats)> {
    let started = Instant::now();
    let mut sim: Simulation = py.allow_threads(|| guard(|| Simulation::new(plan)))?.map_err(|e| to_pyerr(py, e, Stage::Run))?;
    check_external(errors)?;
    let end = guard(|| sim.end())?.0;
    let mut bar = Progress { py, enabled: progress, shown: false, last: None, width: 0 };
    let mut chunk = fixed_chunk_ps.unwrap_or(FIRST_CHUNK_PS).max(1);
    let mut t: u64 = guard(|| sim.now())?.0;

    // With rounds node by node, a chunk ends on a round's boundary: a round cut short
    // is served in another order (the same results), and what depends on the serving
    // order within a round (the packet pool's peak) would depend on the wall clock.
    let round = guard(|| sim.node_rounds())?.map_or(1, |l| l.0.max(1));
    let outcome: PyResult<()> = (|| loop {
        let target = t.saturating_add(chunk).div_ceil(round).saturating_mul(round).min(end);
        let chunk_start = Instant::now();
        let sim_ref = &mut sim;
        let more = py.allow_threads(move || guard(move || sim_ref.run_until(SimTime(target))))?;
        let wall = chunk_start.elapsed();
        check_external(errors)?;
        let advanced = target - t;
        t = target;
        if fixed_chunk_ps.is_none() {
            chunk = next_chunk(chunk, advanced, wall);
        }
        let events = guard(|| sim.events())?;
        if !more {
            bar.update(end, end, events, started, true);
            return Ok(());
        }
        bar.update(t, end, events, started, false);
        py.check_signals()?;
    })();
    bar.done();
    outcome?;

    let events = guard(|| sim.events())?;
    guard(|| sim.finish_pcap())?.map_err(|e| to_pyerr(py, e, Stage::Run))?;
    let results = py.allow_threads(move || guard(move || crate::export::finish(sim)))?;
    Ok((results, RunStats { events, wall: started.elapsed() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_formatting() {
        assert_eq!(fmt_time(8_400_000_000), "8.4ms");
        assert_eq!(fmt_time(20_000_000_000), "20ms");
        assert_eq!(fmt_time(513_000_000), "513us");
        assert_eq!(fmt_time(999), "999ps");
        assert_eq!(fmt_time(1_500), "1.5ns");
        assert_eq!(fmt_time(2_000_000_000_000), "2s");
    }

    #[test]
    fn progress_format() {
        let l = progress_line(8_400_000_000, 20_000_000_000, 3_100_000, Duration::from_secs(1));
        assert_eq!(l, "[########............]  42% sim 8.4ms/20ms  3.1 M events/s");
    }

    #[test]
    fn chunk_adapts_within_bounds() {
        // 1 ms simulated per wall second -> 75 us per 75 ms, but at most 4x growth.
        assert_eq!(next_chunk(1_000_000, 1_000_000, Duration::from_millis(1)), 4_000_000);
        let c = next_chunk(100_000_000, 100_000_000, Duration::from_millis(100));
        assert_eq!(c, 75_000_000);
        // A very slow chunk shrinks by at most 8x.
        assert_eq!(next_chunk(80_000_000, 80_000_000, Duration::from_secs(100)), 10_000_000);
        assert!(next_chunk(1, 0, Duration::ZERO) >= MIN_CHUNK_PS);
    }
}
