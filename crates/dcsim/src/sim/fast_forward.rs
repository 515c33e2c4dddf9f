//! Fast-forward through a training job's steady iterations (`simulation.fast_forward`,
//! docs/fast_forward.md).
//!
//! Detection: each time every rank of the job has ended an iteration, the period since
//! the previous such moment is recorded. The job is steady when the mean period of the
//! last `window` iterations differs from that of the `window` before by at most
//! `tolerance`, and the last window's mean is known to within `tolerance` too (twice
//! its standard error).
//!
//! Advance: at that moment every rank has ended iteration k and none has ended k + 1.
//! The world is frozen there and resumes `n` mean periods later: the clock and every
//! pending event move by `n * period` (`EventQueue::shift`), so every packet, timer and
//! queue continues exactly as it was, only later. The iterations in between are not
//! simulated: the job runs `n` fewer, its records from iteration k + 1 on are
//! renumbered `n` higher in the output, and the skipped ones are written as copies of
//! iteration k, one period apart (`fast_forwarded` in the `jobs` and `collectives`
//! tables). The job's queue pairs are credited the packets of `n` iterations, which the
//! collective graph fixes.
//!
//! The error: the skipped time is `n` times the estimated mean period; the summary's
//! `fast_forward` section states it with its uncertainty (twice the standard error of
//! the mean, times `n`) next to what was skipped.
//!
//! Only runs whose traffic is one training job skip: the iterations of several jobs do
//! not end together, and other traffic does not repeat. Such runs are simulated whole
//! and the summary says why nothing was skipped.

use serde_json::{json, Value};

use crate::event::Event;
use crate::plan::FastForwardPlan;
use crate::sim::Simulation;
use crate::units::SimTime;

/// One job's iteration ends, for the steadiness test.
struct Boundary {
    at: SimTime,
    events: u64,
    hops: u64,
}

/// A skip that was made.
pub(crate) struct Skip {
    pub n: u32,
    pub period: SimTime,
    /// When it happened (before the skip) and the time skipped.
    pub from: SimTime,
    pub skipped: SimTime,
    /// Twice the standard error of the mean period, times `n` (ps).
    pub error_ps: f64,
    pub events: u64,
    pub hops: u64,
}

pub(crate) struct FastForward {
    cfg: FastForwardPlan,
    /// Why no skip can happen in this run, if none can.
    blocked: Option<String>,
    bounds: Vec<Boundary>,
    /// The skip decided at an iteration's end, made by `Event::FastForward`: (job,
    /// iteration ended, iterations to skip, period).
    pending: Option<(usize, u32, u32, SimTime)>,
    pub skips: Vec<Skip>,
}

impl FastForward {
    /// The fast-forward state of a run; `blocked` says why it cannot skip, if it cannot
    /// (`Plan::fast_forward_blocked`).
    pub fn new(cfg: FastForwardPlan, blocked: Option<String>) -> Self {
        FastForward { cfg, blocked, bounds: Vec::new(), pending: None, skips: Vec::new() }
    }

    /// Whether this run may skip (otherwise the engine runs as without fast-forward).
    pub fn can_skip(&self) -> bool {
        self.blocked.is_none()
    }

    /// A skip is decided and not yet made.
    #[inline]
    pub fn pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The steady mean period and twice its standard error, if the last two windows of
    /// iteration periods agree within the tolerance.
    fn steady(&self) -> Option<(f64, f64)> {
        let w = self.cfg.window as usize;
        if self.bounds.len() < 2 * w + 1 {
            return None;
        }
        let p: Vec<f64> = self.bounds.windows(2).map(|b| (b[1].at - b[0].at).0 as f64).collect();
        let (prev, last) = (&p[p.len() - 2 * w..p.len() - w], &p[p.len() - w..]);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (m0, m1) = (mean(prev), mean(last));
        let var = last.iter().map(|x| (x - m1).powi(2)).sum::<f64>() / (w - 1) as f64;
        let err2 = 2.0 * (var / w as f64).sqrt();
        let tol = self.cfg.tolerance * m1;
        ((m1 - m0).abs() <= tol && err2 <= tol).then_some((m1, err2))
    }
}

impl Simulation {
    /// Every rank of job `j` has ended iteration `it`, at `now`: record it, and if the job
    /// is steady, schedule the skip for this very time (after the event being served).
    pub(crate) fn ff_iteration_end(&mut self, j: usize, it: u32, iters: u32) {
        let now = self.now_t();
        let (events, hops) = (self.fx.q.processed(), self.hops);
        let end = self.end;
        let Some(ff) = self.ff.as_deref_mut() else { return };
        if ff.blocked.is_some() || ff.pending.is_some() {
            return;
        }
        ff.bounds.push(Boundary { at: now, events, hops });
        let Some((mean, _)) = ff.steady() else { return };
        // Iteration it + 1 is under way and runs here; so does the last one, for the
        // job's end to be simulated; and one period of slack before the run's end.
        let left = iters.saturating_sub(it + 3);
        let fit = ((end.0.saturating_sub(now.0)) as f64 / mean).floor() as u64;
        let n = (left as u64).min(fit.saturating_sub(2)) as u32;
        if n == 0 {
            return;
        }
        ff.pending = Some((j, it, n, SimTime(mean.round() as u64)));
        // The skip is made between events: after this round (rounds node by node), or
        // as an event due now (time order).
        if self.fx.q.round_len().is_none() {
            self.fx.q.schedule(now, Event::FastForward);
        }
    }

    /// Freezes the world and resumes it `n` periods later (between events).
    pub(crate) fn fast_forward_now(&mut self) {
        let from = self.now_t();
        let ff = self.ff.as_deref_mut().expect("scheduled by fast-forward");
        let Some((j, it, n, period)) = ff.pending.take() else { return };
        let (_, err2) = ff.steady().expect("steady when scheduled");
        let window = ff.cfg.window;
        let w = window as usize;
        let (a, b) = (&ff.bounds[ff.bounds.len() - 1 - w], &ff.bounds[ff.bounds.len() - 1]);
        let per_it = |x: u64, y: u64| ((y - x) as f64 / w as f64 * n as f64).round() as u64;
        let (events, hops) = (per_it(a.events, b.events), per_it(a.hops, b.hops));
        let by = SimTime(period.0 * n as u64);
        ff.skips.push(Skip { n, period, from, skipped: by, error_ps: err2 * n as f64, events, hops });
        // The periods after the skip start from where the world resumes.
        ff.bounds.clear();
        let rounds = self.fx.q.round_len().map(|l| (l, self.owners.clone()));
        self.fx.q.shift(by, rounds);
        self.clock = self.fx.q.now();
        // What the engine holds as times rather than events moves with them: timers held
        // back in flow state (quiet timers), frames being sent with no `TxDone`
        // scheduled, pause starts, the senders' pacing and message starts, the
        // receivers' oldest unacknowledged arrival. (Times inside the models' own
        // state do not move: docs/fast_forward.md.)
        let shift = |t: &mut SimTime| {
            if *t != SimTime::MAX {
                *t = *t + by;
            }
        };
        self.cc_timers.iter_mut().flat_map(|t| t.quiet.iter_mut()).for_each(shift);
        for p in self.fx.ports.iter_mut() {
            shift(&mut p.tx_until);
            p.paused_since.iter_mut().for_each(shift);
        }
        for s in self.senders.iter_mut() {
            shift(&mut s.next_tx);
            shift(&mut s.last_tx);
            shift(&mut s.msg_start);
        }
        self.receivers.iter_mut().for_each(|r| shift(&mut r.ack_oldest));
        for t in [&mut self.next_sample, &mut self.io_next, &mut self.models.pfc_watchdog.next, &mut self.models.deadlocks.next] {
            shift(t);
        }
        let payload = self.host.mtu as u64;
        let steady_start = self.stats_cfg.steady_start;
        let now = self.clock;
        let jb = &mut self.jobs.as_deref_mut().expect("jobs").jobs[j];
        let credits: Vec<(usize, u64)> =
            (0..jb.graph.qps.len()).map(|q| (jb.plan.first_flow as usize + q, jb.graph.qp_pkts(q) as u64 * n as u64)).collect();
        jb.skip(it + 1, n, period, window);
        for (f, pkts) in credits {
            let st = &mut self.flow_stats[f];
            st.pkts_sent += pkts;
            st.pkts_rx += pkts;
            st.delivered += pkts * payload;
            if now >= steady_start {
                st.steady_bytes += pkts * payload;
            }
        }
    }

    /// The summary's `fast_forward` section.
    pub(crate) fn ff_summary(&self) -> Option<Value> {
        let ff = self.ff.as_deref()?;
        let skipped: u64 = ff.skips.iter().map(|s| s.skipped.0).sum();
        let err: f64 = ff.skips.iter().map(|s| s.error_ps).sum::<f64>() + 0.0;
        Some(json!({
            "tolerance": ff.cfg.tolerance,
            "window": ff.cfg.window,
            "skipped_ps": skipped,
            "skipped_fraction": skipped as f64 / self.end.0.max(1) as f64,
            "iterations_skipped": ff.skips.iter().map(|s| s.n as u64).sum::<u64>(),
            "events_skipped_estimate": ff.skips.iter().map(|s| s.events).sum::<u64>(),
            "hops_skipped_estimate": ff.skips.iter().map(|s| s.hops).sum::<u64>(),
            "error_estimate_ps": err,
            "error_estimate_fraction": if skipped > 0 { err / skipped as f64 } else { 0.0 },
            "skips": ff.skips.iter().map(|s| json!({
                "from_ps": s.from.0, "skipped_ps": s.skipped.0, "iterations": s.n, "period_ps": s.period.0,
            })).collect::<Vec<_>>(),
            "not_skipped_because": ff.blocked.clone().or_else(|| ff.skips.is_empty().then(|| "no steady phase was found".to_string())),
            "note": "counters, port tables and time series count the simulated time only; the jobs, collectives and flows tables include the skipped iterations",
        }))
    }
}
