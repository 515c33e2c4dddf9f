//! Fast-forward of training jobs: each time every rank of a job has ended an iteration,
//! the period since the previous such moment (at first, the job's start, when every
//! rank starts its first iteration) is recorded. A job is steady when the mean
//! period of its last `window` iterations differs from that of the `window` before by
//! at most `tolerance`, and the last window's mean is known to within `tolerance` too
//! (twice its standard error).
//!
//! When every unfinished job is steady, at the end of an iteration of one of them (the
//! anchor: every rank has ended iteration k, none has ended k + 1), the world is frozen
//! and resumes n of the anchor's periods later. Another job does not end an iteration
//! then: it is credited the whole number m of its periods nearest the skip, and n is
//! the largest for which every other job's error (its period's error times m, plus the
//! remainder: the phase it resumes at is off by that much) is within `tolerance` of
//! the time skipped. Each job runs its skipped
//! iterations fewer, its records from the lowest iteration under way on are renumbered
//! in the output, and the skipped ones are written as copies of the one before, one
//! period apart (`JobRt::skip`, `collectives/output.rs`). Its queue pairs are credited
//! the packets of those iterations, which the collective graph fixes.

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

/// One job's part of a skip: iterations from `at` on are renumbered `n` higher, the
/// skipped ones `period` apart.
struct Part {
    job: usize,
    at: u32,
    n: u32,
    period: SimTime,
}

/// A skip decided at an iteration's end and made between events.
pub(crate) struct JobSkip {
    by: SimTime,
    parts: Vec<Part>,
    error_ps: f64,
    events: u64,
    hops: u64,
}

#[derive(Default)]
pub(crate) struct JobSteadiness {
    /// Per job: its iteration ends since the run's start or the last skip.
    bounds: Vec<Vec<Boundary>>,
    pub pending: Option<JobSkip>,
}

impl JobSteadiness {
    /// Job `j`'s iteration ends (of `n` jobs).
    fn job(&mut self, j: usize, n: usize) -> &mut Vec<Boundary> {
        if self.bounds.len() < n {
            self.bounds.resize_with(n, Vec::new);
        }
        &mut self.bounds[j]
    }
}

/// The steady mean period of a job and its error estimate, if the last two windows of
/// its periods agree.
fn steady(bounds: &[Boundary], w: usize, tol: f64) -> Option<(f64, f64)> {
    if bounds.len() < 2 * w + 1 {
        return None;
    }
    let p: Vec<f64> = bounds.windows(2).map(|b| (b[1].at - b[0].at).0 as f64).collect();
    steady_mean(&p[p.len() - 2 * w..p.len() - w], &p[p.len() - w..], tol)
}

/// What the skip can be for one unfinished job: its period and error per period, the
/// lowest iteration under way, and the most iterations it may skip (the ones under way
/// are simulated, and may be its last).
struct Room {
    job: usize,
    period: SimTime,
    err: f64,
    at: u32,
    most: u32,
}

impl Simulation {
    /// Job `j` starts, now: every rank starts its first iteration, which is where its
    /// first period starts (one iteration fewer to simulate before it can be steady).
    pub(crate) fn ff_job_start(&mut self, j: usize) {
        let (now, events, hops) = (self.now_t(), self.fx.q.processed(), self.hops);
        let n = self.jobs.as_deref().map_or(0, |jobs| jobs.jobs.len());
        let Some(ff) = self.ff.as_deref_mut() else { return };
        let Mode::Job(js) = &mut ff.mode else { return };
        js.job(j, n).push(Boundary { at: now, events, hops });
    }

    /// Every rank of job `j` has ended iteration `it`, now: record it, and if every
    /// unfinished job is steady, decide the skip, made after this round (rounds node by
    /// node) or as an event due now (time order).
    pub(crate) fn ff_iteration_end(&mut self, j: usize) {
        let now = self.now_t();
        let (events, hops, end) = (self.fx.q.processed(), self.hops, self.end);
        let Some(jobs) = self.jobs.as_deref() else { return };
        let Some(ff) = self.ff.as_deref_mut() else { return };
        let (w, tol) = (ff.cfg.window as usize, ff.cfg.tolerance);
        let Mode::Job(js) = &mut ff.mode else { return };
        if js.pending.is_some() {
            return;
        }
        js.job(j, jobs.jobs.len()).push(Boundary { at: now, events, hops });
        let mut rooms = Vec::new();
        for (i, jb) in jobs.jobs.iter().enumerate() {
            let (lo, hi) = jobs.progress(i);
            if lo >= jb.iters || jb.plan.start >= end {
                continue;
            }
            // A job not started yet has no iteration ends: nothing skips before it does.
            let Some((mean, err)) = steady(&js.bounds[i], w, tol) else { return };
            let most = jb.iters.saturating_sub(hi + 1);
            rooms.push(Room { job: i, period: SimTime(mean.round() as u64), err, at: lo, most });
        }
        let Some(anchor) = rooms.iter().position(|r| r.job == j) else { return };
        // The skip lands before the run's end; the iterations under way after it are
        // simulated and, as in the exact run, may be cut by the end (a job's last is
        // never skipped: `most`).
        let left = end.0.saturating_sub(now.0);
        let pa = rooms[anchor].period.0.max(1);
        let top = rooms[anchor].most.min((left / pa) as u32);
        // The longest skip in which every other job's error (its period's over the
        // periods it skips, and the phase it resumes at) is within the tolerance of the
        // time skipped: as much as the anchor's period may be off by.
        let fit = |n: u32| -> Option<(Vec<u32>, f64)> {
            let by = n as u64 * pa;
            let mut counts = Vec::with_capacity(rooms.len());
            let mut error = 0.0f64;
            for (k, r) in rooms.iter().enumerate() {
                let m = (by as f64 / r.period.0.max(1) as f64).round() as u64;
                let off = by.abs_diff(m * r.period.0) as f64;
                if m > r.most as u64 || (k != anchor && r.err * m as f64 + off > tol * by as f64) {
                    return None;
                }
                counts.push(m as u32);
                error = error.max(r.err * m as f64 + off);
            }
            Some((counts, error))
        };
        let Some((n, (counts, error_ps))) = (1..=top).rev().find_map(|n| fit(n).map(|c| (n, c))) else { return };
        let by = SimTime(n as u64 * pa);
        // What the skipped time would have cost, at the anchor's rate over its window.
        let b = &js.bounds[j];
        let (a, z) = (&b[b.len() - 1 - w], &b[b.len() - 1]);
        let span = (z.at - a.at).0 as f64;
        let parts =
            rooms.iter().zip(counts).filter(|(_, m)| *m > 0).map(|(r, m)| Part { job: r.job, at: r.at, n: m, period: r.period }).collect();
        js.pending = Some(JobSkip {
            by,
            parts,
            error_ps,
            events: at_rate(a.events, z.events, span, by.0 as f64),
            hops: at_rate(a.hops, z.hops, span, by.0 as f64),
        });
        if self.fx.q.round_len().is_none() {
            self.fx.q.schedule(now, Event::FastForward);
        }
    }

    /// Makes the jobs' skip decided at an iteration's end (between events).
    pub(crate) fn fast_forward_now(&mut self) {
        let from = self.now_t();
        let ff = self.ff.as_deref_mut().expect("scheduled by fast-forward");
        let window = ff.cfg.window;
        let Mode::Job(js) = &mut ff.mode else { return };
        let Some(skip) = js.pending.take() else { return };
        let iterations = skip.parts.iter().map(|p| p.n).sum();
        ff.skips.push(Skip { from, skipped: skip.by, iterations, flows: 0, error_ps: skip.error_ps, events: skip.events, hops: skip.hops });
        // The periods after the skip start from where the world resumes.
        js.bounds.iter_mut().for_each(Vec::clear);
        // Jobs' runs have no inputs due at their own time (`Plan::fast_forward_mode`).
        self.freeze_and_resume(skip.by, |_| false);
        for p in skip.parts {
            let jb = &mut self.jobs.as_deref_mut().expect("jobs").jobs[p.job];
            let credits: Vec<(usize, u64)> =
                (0..jb.graph.qps.len()).map(|q| (jb.plan.first_flow as usize + q, jb.graph.qp_pkts(q) as u64 * p.n as u64)).collect();
            jb.skip(p.at, p.n, p.period, skip.by, window);
            // The skipped iterations' packets, never posted, leave the queue pairs'
            // sequence space: each finishes with the job's last chunk, as exactly.
            for (f, pkts) in credits {
                self.credit(f, pkts);
            }
        }
    }
}
