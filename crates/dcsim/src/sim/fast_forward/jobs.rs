//! Fast-forward of one training job: each time every rank has ended an iteration, the
//! period since the previous such moment is recorded. The job is steady when the mean
//! period of the last `window` iterations differs from that of the `window` before by
//! at most `tolerance`, and the last window's mean is known to within `tolerance` too
//! (twice its standard error).
//!
//! At that moment every rank has ended iteration k and none has ended k + 1: the world
//! is frozen there and resumes `n` mean periods later. The job runs `n` fewer
//! iterations, its records from iteration k + 1 on are renumbered `n` higher in the
//! output, and the skipped ones are written as copies of iteration k, one period apart
//! (`JobRt::skip`, `collectives/output.rs`). Its queue pairs are credited the packets of
//! `n` iterations, which the collective graph fixes.

use super::{at_rate, steady_mean, Mode, Skip};
use crate::event::Event;
use crate::sim::Simulation;
use crate::units::SimTime;

/// One job's iteration ends.
struct Boundary {
    at: SimTime,
    events: u64,
    hops: u64,
}

#[derive(Default)]
pub(crate) struct JobSteadiness {
    bounds: Vec<Boundary>,
    /// The skip decided at an iteration's end and made between events: (job, iteration
    /// ended, iterations to skip, period, the period's error estimate).
    pub pending: Option<(usize, u32, u32, SimTime, f64)>,
}

impl JobSteadiness {
    /// The steady mean period and twice its standard error, if the last two windows of
    /// periods agree.
    fn steady(&self, w: usize, tol: f64) -> Option<(f64, f64)> {
        if self.bounds.len() < 2 * w + 1 {
            return None;
        }
        let p: Vec<f64> = self.bounds.windows(2).map(|b| (b[1].at - b[0].at).0 as f64).collect();
        steady_mean(&p[p.len() - 2 * w..p.len() - w], &p[p.len() - w..], tol)
    }
}

impl Simulation {
    /// Every rank of job `j` has ended iteration `it` (of `iters`), now: record it, and if
    /// the job is steady, decide the skip, made after this round (rounds node by node) or
    /// as an event due now (time order).
    pub(crate) fn ff_iteration_end(&mut self, j: usize, it: u32, iters: u32) {
        let now = self.now_t();
        let (events, hops, end) = (self.fx.q.processed(), self.hops, self.end);
        let Some(ff) = self.ff.as_deref_mut() else { return };
        let (w, tol) = (ff.cfg.window as usize, ff.cfg.tolerance);
        let Mode::Job(js) = &mut ff.mode else { return };
        if js.pending.is_some() {
            return;
        }
        js.bounds.push(Boundary { at: now, events, hops });
        let Some((mean, err)) = js.steady(w, tol) else { return };
        // Iteration it + 1 is under way and runs here; so does the last one, for the
        // job's end to be simulated; and two periods of slack before the run's end.
        let left = iters.saturating_sub(it + 3);
        let fit = (end.0.saturating_sub(now.0) as f64 / mean).floor() as u64;
        let n = (left as u64).min(fit.saturating_sub(2)) as u32;
        if n == 0 {
            return;
        }
        js.pending = Some((j, it, n, SimTime(mean.round() as u64), err));
        if self.fx.q.round_len().is_none() {
            self.fx.q.schedule(now, Event::FastForward);
        }
    }

    /// Makes the job's skip decided at its iteration's end (between events).
    pub(crate) fn fast_forward_now(&mut self) {
        let from = self.now_t();
        let ff = self.ff.as_deref_mut().expect("scheduled by fast-forward");
        let window = ff.cfg.window;
        let Mode::Job(js) = &mut ff.mode else { return };
        let Some((j, it, n, period, err)) = js.pending.take() else { return };
        let w = window as usize;
        let (a, b) = (&js.bounds[js.bounds.len() - 1 - w], &js.bounds[js.bounds.len() - 1]);
        let (events, hops) = (at_rate(a.events, b.events, w as f64, n as f64), at_rate(a.hops, b.hops, w as f64, n as f64));
        let by = SimTime(period.0 * n as u64);
        ff.skips.push(Skip { from, skipped: by, iterations: n, flows: 0, error_ps: err * n as f64, events, hops });
        // The periods after the skip start from where the world resumes.
        js.bounds.clear();
        // A job's run has no inputs due at their own time (`Plan::fast_forward_mode`).
        self.freeze_and_resume(by, |_| false);
        let jb = &mut self.jobs.as_deref_mut().expect("jobs").jobs[j];
        let credits: Vec<(usize, u64)> =
            (0..jb.graph.qps.len()).map(|q| (jb.plan.first_flow as usize + q, jb.graph.qp_pkts(q) as u64 * n as u64)).collect();
        jb.skip(it + 1, n, period, window);
        for (f, pkts) in credits {
            self.credit(f, pkts);
        }
    }
}
