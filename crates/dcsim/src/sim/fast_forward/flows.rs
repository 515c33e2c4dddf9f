//! Fast-forward of flows: every `interval` of simulated time (the loop's periodic work,
//! between events) the bytes each flow has delivered are recorded. The flows are steady
//! when no flow started or finished over the last two windows of `window` intervals,
//! and for every flow under way the mean rate of the last window differs from the one
//! before by at most `tolerance` of it, and is known to within `tolerance` (twice its
//! standard error). An idle fabric is steady too.
//!
//! The skip runs to shortly before the next change: the next flow's start, the first
//! finish the rates predict, or the run's end, less two windows, which are simulated.
//! Each flow under way is credited what its rate delivers in the skipped time, in whole
//! packets, and that much is taken off the end of its sequence space (a long-lived flow
//! has no end to shorten): after the skip it has exactly as much left as it would have
//! had, and it finishes when the last of it is acknowledged, as it would have.
//! Flow starts keep their times; everything else moves with the world.

use std::collections::VecDeque;

use super::{at_rate, steady_mean, Mode, Skip};
use crate::event::Event;
use crate::sim::Simulation;
use crate::units::SimTime;

/// The state of the run at one interval's end.
struct Mark {
    started: usize,
    finished: usize,
    events: u64,
    hops: u64,
    /// Bytes each flow has delivered.
    delivered: Vec<u64>,
}

pub(crate) struct FlowSteadiness {
    interval: SimTime,
    /// When the next interval ends.
    pub next: SimTime,
    /// The last `2 x window + 1` marks, oldest first.
    marks: VecDeque<Mark>,
}

impl FlowSteadiness {
    pub fn new(interval: SimTime) -> Self {
        FlowSteadiness { interval, next: interval, marks: VecDeque::new() }
    }
}

impl Simulation {
    /// An interval ends at `t`: record the flows' deliveries, and skip if they are steady.
    pub(crate) fn ff_flow_check(&mut self, t: SimTime) {
        let started = (0..self.flows.len()).filter(|&f| sender_started(&self.senders, f)).count();
        let done: Vec<bool> = (0..self.flows.len()).map(|f| self.flow_finish(f).is_some()).collect();
        let finished = done.iter().filter(|&&d| d).count();
        let (events, hops, end) = (self.fx.q.processed(), self.hops, self.end);
        let Some(ff) = self.ff.as_deref_mut() else { return };
        let (w, tol) = (ff.cfg.window as usize, ff.cfg.tolerance);
        let Mode::Flows(fs) = &mut ff.mode else { return };
        fs.next = t + fs.interval;
        // The oldest mark's buffer takes the new one once the window is full.
        let mut delivered =
            if fs.marks.len() == 2 * w + 1 { fs.marks.pop_front().map(|m| m.delivered).unwrap_or_default() } else { Vec::new() };
        delivered.clear();
        // (A fast-forward run makes every flow's records at build: one row per flow.)
        delivered.extend(self.rx_stats.iter().map(|s| s.delivered));
        fs.marks.push_back(Mark { started, finished, events, hops, delivered });
        if fs.marks.len() < 2 * w + 1 {
            return;
        }
        let (first, last) = (&fs.marks[0], &fs.marks[2 * w]);
        if (first.started, first.finished) != (last.started, last.finished) {
            return;
        }
        let iv = fs.interval.0 as f64;
        // Per flow under way: its rate (bytes per ps) and the relative error of it.
        let mut rates = Vec::new();
        for (f, &done) in done.iter().enumerate() {
            if !sender_started(&self.senders, f) || done {
                continue;
            }
            let d: Vec<f64> = (0..2 * w).map(|i| (fs.marks[i + 1].delivered[f] - fs.marks[i].delivered[f]) as f64).collect();
            let Some((mean, err)) = steady_mean(&d[..w], &d[w..], tol) else { return };
            rates.push((f, mean / iv, if mean > 0.0 { err / mean } else { 0.0 }));
        }
        // The next change: a start, a finish at the measured rates, the end.
        let now = t.0 as f64;
        let next_start =
            (0..self.flows.len()).filter(|&f| !sender_started(&self.senders, f)).map(|f| self.flows[f].start.0).min().unwrap_or(u64::MAX);
        let mut horizon = (next_start.min(end.0) as f64) - now;
        for &(f, r, _) in &rates {
            let h = &self.flows[f];
            if h.size != u64::MAX && r > 0.0 {
                horizon = horizon.min((h.size - self.rx_stats[f].delivered) as f64 / r);
            }
        }
        let margin = 2.0 * w as f64 * iv;
        let by = (horizon - margin).floor();
        if by < margin {
            return;
        }
        let by = SimTime(by as u64);
        let payload = self.host.mtu as u64;
        let (m0, m1) = (&fs.marks[w], &fs.marks[2 * w]);
        let span = w as f64 * iv;
        let (ev, hp) = (at_rate(m0.events, m1.events, span, by.0 as f64), at_rate(m0.hops, m1.hops, span, by.0 as f64));
        let error_ps = rates.iter().map(|&(_, _, rel)| rel * by.0 as f64).fold(0.0, f64::max);
        fs.marks.clear();
        ff.skips.push(Skip { from: t, skipped: by, iterations: 0, flows: rates.len() as u32, error_ps, events: ev, hops: hp });
        // Flow starts keep their times (none is due before the world resumes).
        self.freeze_and_resume(by, |e| matches!(e, Event::FlowStart(_)));
        if let Some(Mode::Flows(fs)) = self.ff.as_deref_mut().map(|f| &mut f.mode) {
            fs.next = self.clock + fs.interval;
        }
        for (f, r, _) in rates {
            let pkts = (r * by.0 as f64 / payload as f64).floor() as u64;
            // Keep what is sent, and one packet more, unshortened.
            let room = match self.flows[f].npkts {
                u32::MAX => u64::MAX,
                n => (n - self.senders[f].next_seq).saturating_sub(1) as u64,
            };
            self.credit(f, pkts.min(room));
        }
    }
}

/// Whether flow `f`'s sender has started (its records may have been retired since).
fn sender_started(senders: &crate::sim::FlowSlots<crate::sim::Sender>, f: usize) -> bool {
    senders.retired(f) || senders.get(f).is_some_and(|s| s.started)
}
