//! Fast-forward through steady phases (`simulation.fast_forward`, docs/fast_forward.md).
//!
//! Two kinds of run can skip: training jobs and nothing else (`jobs.rs`: their
//! iterations' periods), and flows of fixed size or long-lived with no job (`flows.rs`:
//! each flow's delivery rate over windows of simulated time). Either finds a steady
//! phase with state the simulator has, then freezes the world between two events and
//! resumes it later (`Simulation::freeze_and_resume`): the clock and every pending event
//! move together (`EventQueue::shift`), so every packet, timer and queue continues
//! exactly as it was, only later. What the skipped time would have delivered is
//! credited (a job's iterations as copies, a flow's bytes taken off what it has left).
//!
//! Runs of anything else (TCP, storage, jobs beside other traffic, timed
//! changes to the fabric) are simulated whole and the summary says why.

mod flows;
mod jobs;

use serde_json::{json, Value};

use crate::event::Event;
use crate::plan::FastForwardPlan;
use crate::sim::Simulation;
use crate::units::SimTime;

/// A skip that was made.
pub(crate) struct Skip {
    /// When it happened (before the skip) and the time skipped.
    pub from: SimTime,
    pub skipped: SimTime,
    /// Job iterations skipped (0 for flows).
    pub iterations: u32,
    /// Flows whose bytes were credited (0 for a job).
    pub flows: u32,
    /// The estimated error of the completion times after the skip (ps).
    pub error_ps: f64,
    /// Events and link hops the skipped time would have taken, at the rate measured.
    pub events: u64,
    pub hops: u64,
}

/// What the run can skip.
pub(crate) enum Mode {
    /// Nothing, and why.
    Blocked(String),
    Job(jobs::JobSteadiness),
    Flows(Box<flows::FlowSteadiness>),
}

pub(crate) struct FastForward {
    cfg: FastForwardPlan,
    pub mode: Mode,
    pub skips: Vec<Skip>,
}

impl FastForward {
    /// The fast-forward state of a run: a job's, flows', or why neither can skip
    /// (`Plan::fast_forward_mode`).
    pub fn new(cfg: FastForwardPlan, plan: &crate::plan::Plan) -> Self {
        let mode = match plan.fast_forward_mode() {
            Err(why) => Mode::Blocked(why),
            Ok(true) => Mode::Job(jobs::JobSteadiness::default()),
            Ok(false) => Mode::Flows(Box::new(flows::FlowSteadiness::new(cfg.interval))),
        };
        FastForward { cfg, mode, skips: Vec::new() }
    }

    /// Whether this run skips a job's iterations (checked at their ends).
    pub fn watches_job(&self) -> bool {
        matches!(self.mode, Mode::Job(_))
    }

    /// Whether a job's skip is decided and not yet made.
    #[inline]
    pub fn pending(&self) -> bool {
        matches!(&self.mode, Mode::Job(j) if j.pending.is_some())
    }

    /// When the flows' steadiness is next measured (`SimTime::MAX`: never).
    #[inline]
    pub fn next_check(&self) -> SimTime {
        match &self.mode {
            Mode::Flows(f) => f.next,
            _ => SimTime::MAX,
        }
    }
}

/// If the mean of `last` agrees with the mean of `prev` within `tol` of it, and is known
/// to within `tol` (twice its standard error): that mean, and its error estimate, the
/// two added (the noise of the window, and the drift from one window to the next that
/// independent samples would not show).
fn steady_mean(prev: &[f64], last: &[f64], tol: f64) -> Option<(f64, f64)> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (m0, m1) = (mean(prev), mean(last));
    let var = last.iter().map(|x| (x - m1).powi(2)).sum::<f64>() / (last.len() - 1).max(1) as f64;
    let err2 = 2.0 * (var / last.len() as f64).sqrt();
    let drift = (m1 - m0).abs();
    (drift <= tol * m1.abs() && err2 <= tol * m1.abs()).then_some((m1, err2 + drift))
}

/// A count that grew from `a` to `b` over `span`, extrapolated to `by` at that rate (the
/// events and hops a skip leaves out).
fn at_rate(a: u64, b: u64, span: f64, by: f64) -> u64 {
    ((b - a) as f64 / span * by).round() as u64
}

impl Simulation {
    /// Freezes the world now (between events) and resumes it `by` later: every pending
    /// event but those `fixed` (inputs due at their own time) moves by `by`, and so do
    /// the times the engine holds outside events: timers held back in flow state (quiet
    /// timers), frames being sent with no `TxDone` scheduled, pause starts, the senders'
    /// pacing and message starts, the receivers' oldest unacknowledged arrival, a rate
    /// limit's start, the loop's periodic work, the times frames carry (send times and
    /// their echoes, INT timestamps) and the points in time the models hold
    /// (`FabricModel::shift_times`, `CongestionControl::shift_times`).
    pub(crate) fn freeze_and_resume(&mut self, by: SimTime, fixed: fn(&Event) -> bool) {
        let rounds = self.fx.q.round_len().map(|l| (l, self.owners.clone()));
        self.fx.q.shift(by, rounds, fixed);
        self.clock = self.fx.q.now();
        let shift = |t: &mut SimTime| *t = t.later(by);
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
        self.tx_stats.iter_mut().for_each(|s| {
            if let Some(t) = s.limited_since.get() {
                s.limited_since.set(t.later(by));
            }
        });
        for t in [&mut self.rec.next_sample, &mut self.rec.io_next] {
            shift(t);
        }
        self.fx.pool.shift_times(by);
        self.ccs.iter_mut().for_each(|c| c.shift_times(by));
        self.models.shift_times(by);
    }

    /// Credits flow `f` with `pkts` full packets delivered in the skipped time, and takes
    /// them off the end of its sequence space (a long-lived flow has no end to shorten):
    /// it finishes when what it still sends is acknowledged. Its size, which the flows
    /// table shows, stays; size less delivered is what is left.
    fn credit(&mut self, f: usize, pkts: u64) {
        let h = &mut self.flows[f];
        if h.npkts != u32::MAX {
            let old = h.npkts;
            h.npkts -= pkts as u32;
            // A single message's limit is the whole flow (a job's queue pair's is the
            // chunks posted so far, below it).
            let s = &mut self.senders[f];
            if s.msg_limit == old {
                s.msg_limit = h.npkts;
            }
        }
        let payload = self.host.mtu as u64;
        let steady = self.clock >= self.stats_cfg.steady_start;
        self.tx_stats[f].pkts_sent += pkts;
        let st = &mut self.rx_stats[f];
        st.pkts_rx += pkts;
        st.delivered += pkts * payload;
        if steady {
            st.steady_bytes += pkts * payload;
        }
    }

    /// The summary's `fast_forward` section.
    pub(crate) fn ff_summary(&self) -> Option<Value> {
        let ff = self.ff.as_deref()?;
        let skipped: u64 = ff.skips.iter().map(|s| s.skipped.0).sum();
        let err: f64 = ff.skips.iter().map(|s| s.error_ps).sum::<f64>() + 0.0;
        let why = match &ff.mode {
            Mode::Blocked(why) => Some(why.clone()),
            _ if ff.skips.is_empty() => Some("no steady phase was found".to_string()),
            _ => None,
        };
        Some(json!({
            "tolerance": ff.cfg.tolerance,
            "window": ff.cfg.window,
            "interval_ps": ff.cfg.interval.0,
            "skipped_ps": skipped,
            "skipped_fraction": skipped as f64 / self.end.0.max(1) as f64,
            "iterations_skipped": ff.skips.iter().map(|s| s.iterations as u64).sum::<u64>(),
            "events_skipped_estimate": ff.skips.iter().map(|s| s.events).sum::<u64>(),
            "hops_skipped_estimate": ff.skips.iter().map(|s| s.hops).sum::<u64>(),
            "error_estimate_ps": err,
            "error_estimate_fraction": if skipped > 0 { err / skipped as f64 } else { 0.0 },
            "skips": ff.skips.iter().map(|s| json!({
                "from_ps": s.from.0, "skipped_ps": s.skipped.0, "iterations": s.iterations, "flows": s.flows,
            })).collect::<Vec<_>>(),
            "not_skipped_because": why,
            "note": "counters, port tables and time series count the simulated time only; the jobs, collectives and flows tables include the skipped time",
        }))
    }
}
