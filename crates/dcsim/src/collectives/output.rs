//! The `collectives` table (one row per collective instance that every rank finished),
//! the `jobs` table (one row per job iteration that every rank finished) and the
//! summary's `jobs` section (docs/outputs.md, docs/models/collectives.md).

use serde_json::{json, Value};

use super::ideal;
use super::world::JobRt;
use crate::net::stats::nearest_rank;
use crate::results::{Column, Table};
use crate::sim::Simulation;
use crate::units::SimTime;

#[derive(Default)]
struct CollRows {
    job: Vec<String>,
    iteration: Vec<u64>,
    layer: Vec<u64>,
    kind: Vec<String>,
    algorithm: Vec<String>,
    size: Vec<u64>,
    ranks: Vec<u64>,
    channels: Vec<u64>,
    start: Vec<u64>,
    finish: Vec<u64>,
    algbw: Vec<f64>,
    busbw: Vec<f64>,
    skipped: Vec<u64>,
}

#[derive(Default)]
struct JobRows {
    job: Vec<String>,
    iteration: Vec<u64>,
    start: Vec<u64>,
    finish: Vec<u64>,
    compute: Vec<u64>,
    comm: Vec<u64>,
    ideal: Vec<u64>,
    skipped: Vec<u64>,
}

/// Start (first rank) and finish (last rank) of `(c, it)`, if every rank finished it.
fn span(jb: &JobRt, c: usize, it: usize) -> Option<(SimTime, SimTime)> {
    let n = jb.plan.ranks.len();
    let done = (0..n).map(|r| jb.coll_done[jb.rci(r, c, it)]).max()?;
    let start = (0..n).map(|r| jb.coll_start[jb.rci(r, c, it)]).min()?;
    (done != SimTime::MAX).then_some((start, done))
}

/// Length of the union of intervals.
fn union(mut v: Vec<(SimTime, SimTime)>) -> u64 {
    v.sort();
    let (mut total, mut cur): (u64, Option<(SimTime, SimTime)>) = (0, None);
    for (a, b) in v {
        cur = match cur {
            Some((x, y)) if a <= y => Some((x, y.max(b))),
            Some((x, y)) => {
                total += (y - x).0;
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    total + cur.map_or(0, |(x, y)| (y - x).0)
}

impl Simulation {
    /// The payload rate of job `jb`'s slowest rank NIC (bit/s), as the engine frames data:
    /// each packet with its headers and preamble, and the ACKs the link carries for as
    /// many packets arriving the other way (`ack_every`).
    fn payload_bps(&self, jb: &JobRt) -> f64 {
        let mtu = self.host.mtu as f64;
        let ack = (self.host.ack_bytes + self.fx.preamble) as f64 / self.host.ack_every.max(1) as f64;
        let frame = mtu + (self.host.header_bytes + self.fx.preamble) as f64 + ack;
        let line = jb.plan.ranks.iter().map(|&h| self.fx.ports[self.fx.nodes[h as usize].ports.start as usize].rate().0).min().unwrap_or(0);
        line as f64 * mtu / frame
    }

    /// The tables `collectives` and `jobs` and the summary's `jobs`, if the run has jobs.
    pub(crate) fn job_outputs(&self) -> Option<(Table, Table, Value)> {
        let jobs = self.jobs.as_deref()?;
        let (mut c, mut j) = (CollRows::default(), JobRows::default());
        let mut summary = Vec::new();
        for jb in &jobs.jobs {
            let p = &jb.plan;
            let n = p.ranks.len();
            let bps = self.payload_bps(jb);
            let ideal = ideal::iteration_time(p, bps);
            let compute = p.compute();
            let mut iters = Vec::new();
            let mut busbw: Vec<Vec<f64>> = vec![Vec::new(); p.colls.len()];
            // Internal iterations, and before the first after a fast-forward skip, the
            // skipped ones as copies of the one before it (`sim/fast_forward.rs`).
            let mut order: Vec<(usize, u32, u64, bool, SimTime)> = Vec::new();
            for it in 0..jb.iters {
                for &(at, n, period, dur) in jb.skips.iter().filter(|s| s.0 == it) {
                    let base = jb.shown(at - 1);
                    order.extend((1..=n).map(|m| ((at - 1) as usize, base + m, m as u64 * period.0, true, dur)));
                }
                order.push((it as usize, jb.shown(it), 0, false, SimTime::ZERO));
            }
            for (it, shown, shift, copy, dur) in order {
                let mut spans = Vec::new();
                for (k, cp) in p.colls.iter().enumerate() {
                    let Some((a, b)) = span(jb, k, it) else { continue };
                    spans.push((a, b));
                    let secs = (b - a).as_secs_f64();
                    let alg = cp.bytes as f64 * 8.0 / secs;
                    // One row for all the collective's groups; its ranks and bus
                    // bandwidth are a group's.
                    let gn = cp.groups.size(n);
                    c.job.push(p.name.clone());
                    c.iteration.push(shown as u64);
                    c.layer.push(k as u64);
                    c.kind.push(cp.kind.name().into());
                    c.algorithm.push(cp.kind.algorithm().into());
                    c.size.push(cp.bytes);
                    c.ranks.push(gn as u64);
                    c.channels.push(cp.channels as u64);
                    c.start.push(a.0 + shift);
                    c.finish.push(b.0 + shift);
                    c.skipped.push(copy as u64);
                    c.algbw.push(alg);
                    c.busbw.push(alg * cp.kind.bus_factor(gn));
                    busbw[k].push(alg * cp.kind.bus_factor(gn));
                }
                let end = (0..n).map(|r| jb.iter_end[jb.ri(r, it)]).max().unwrap_or(SimTime::MAX);
                if end == SimTime::MAX {
                    continue;
                }
                let start = (0..n).map(|r| jb.iter_start[jb.ri(r, it)]).min().unwrap_or(end);
                // A skipped iteration ends one steady period after the one before it and
                // lasts the mean iteration time of the window that found it steady.
                let start = if copy { end + SimTime(shift) - dur } else { start };
                j.job.push(p.name.clone());
                j.iteration.push(shown as u64);
                j.start.push(if copy { start.0 } else { start.0 + shift });
                j.finish.push(end.0 + shift);
                j.skipped.push(copy as u64);
                j.compute.push(compute.0);
                j.comm.push(union(spans));
                j.ideal.push(ideal.0);
                iters.push(end.0 + shift - j.start.last().copied().unwrap_or(0));
            }
            let slow: Vec<f64> = iters.iter().map(|&t| t as f64 / ideal.0 as f64).collect();
            let mut sorted = iters.clone();
            sorted.sort_unstable();
            let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
            let itf: Vec<f64> = iters.iter().map(|&x| x as f64).collect();
            let mut row = json!({
                "job": p.name,
                "ranks": n,
                "iterations": p.iterations,
                "iterations_done": iters.len(),
                "compute_ps": compute.0,
                "ideal_iteration_ps": ideal.0,
                "iteration_mean_ps": mean(&itf),
                "iteration_p50_ps": nearest_rank(&sorted, 0.5),
                "iteration_p99_ps": nearest_rank(&sorted, 0.99),
                "iteration_max_ps": sorted.last(),
                "slowdown_mean": mean(&slow),
                "busbw_mean_bps": busbw.iter().map(|v| mean(v)).collect::<Vec<_>>(),
                "payload_rate_bps": bps,
            });
            if self.ff.is_some() {
                row["iterations_skipped"] = json!(jb.skips.iter().map(|s| s.1 as u64).sum::<u64>());
            }
            summary.push(row);
        }
        let mut t = Table::default();
        t.push("job", Column::Str(c.job.into()));
        t.push("iteration", Column::U64(c.iteration));
        t.push("layer", Column::U64(c.layer));
        t.push("kind", Column::Str(c.kind.into()));
        t.push("algorithm", Column::Str(c.algorithm.into()));
        t.push("size_bytes", Column::U64(c.size));
        t.push("ranks", Column::U64(c.ranks));
        t.push("channels", Column::U64(c.channels));
        let dur: Vec<u64> = c.start.iter().zip(&c.finish).map(|(a, b)| b - a).collect();
        t.push("start_ps", Column::U64(c.start));
        t.push("finish_ps", Column::U64(c.finish));
        t.push("duration_ps", Column::U64(dur));
        t.push("algbw_bps", Column::F64(c.algbw));
        t.push("busbw_bps", Column::F64(c.busbw));
        // Only fast-forwarded runs have the column: the tables of others are unchanged.
        if self.ff.is_some() {
            t.push("fast_forwarded", Column::U64(c.skipped));
        }
        let mut u = Table::default();
        let it: Vec<u64> = j.start.iter().zip(&j.finish).map(|(a, b)| b - a).collect();
        let exposed: Vec<u64> = it.iter().zip(&j.compute).map(|(t, c)| t.saturating_sub(*c)).collect();
        let slowdown: Vec<f64> = it.iter().zip(&j.ideal).map(|(t, i)| *t as f64 / *i as f64).collect();
        u.push("job", Column::Str(j.job.into()));
        u.push("iteration", Column::U64(j.iteration));
        u.push("start_ps", Column::U64(j.start));
        u.push("finish_ps", Column::U64(j.finish));
        u.push("iteration_ps", Column::U64(it));
        u.push("compute_ps", Column::U64(j.compute));
        u.push("comm_ps", Column::U64(j.comm));
        u.push("exposed_ps", Column::U64(exposed));
        u.push("ideal_ps", Column::U64(j.ideal));
        u.push("slowdown", Column::F64(slowdown));
        if self.ff.is_some() {
            u.push("fast_forwarded", Column::U64(j.skipped));
        }
        Some((t, u, Value::Array(summary)))
    }
}
