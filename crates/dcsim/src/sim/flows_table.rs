//! The flows table: a row per flow, from both ends' records (`TxStats`, `RxStats`),
//! the flows' headers and their message latencies. Built once the rest of the world is
//! freed (`Simulation::finish`): a long run's records and the table made of them are,
//! with the rates, its largest things at the end (100 ms of k = 16: 74 MiB of
//! statistics rows, a table of 100 MiB), and were held beside the world.

use super::flow::{finish_of, FlowInit, MsgLats, PerFlow};
use super::{FlowHeader, FlowSlots, Receiver, RxStats, Simulation, TxStats};
use crate::net::stats::nearest_rank;
use crate::results::{Column, Strings, Table};
use crate::units::SimTime;

/// What the flows table is made of, taken out of the world.
pub(super) struct FlowRecords {
    headers: PerFlow<FlowHeader>,
    init: PerFlow<FlowInit>,
    tx: FlowSlots<TxStats>,
    rx: FlowSlots<RxStats>,
    /// The receivers, in runs whose table has the reordering columns.
    receivers: Option<FlowSlots<Receiver>>,
    msg_lats: MsgLats,
    /// The nodes' names (`src`, `dst`).
    names: Vec<String>,
    steady: SimTime,
    end: SimTime,
}

/// A flow's header and both ends' statistics side by side.
struct Flow<'a> {
    h: &'a FlowHeader,
    tx: &'a TxStats,
    rx: &'a RxStats,
    ideal: SimTime,
}

impl Flow<'_> {
    fn finish(&self) -> Option<SimTime> {
        finish_of(Some(self.tx), Some(self.rx))
    }
}

impl FlowRecords {
    /// Takes the records out of `s` (after `fill_stats`, which gave every flow its rows).
    pub fn take(s: &mut Simulation) -> Self {
        let reorder = s.reports_reordering();
        let receivers = std::mem::take(&mut s.receivers);
        FlowRecords {
            headers: s.flows.share(),
            init: s.make.init.share(),
            tx: std::mem::take(&mut s.tx_stats),
            rx: std::mem::take(&mut s.rx_stats),
            receivers: reorder.then_some(receivers),
            msg_lats: std::mem::take(&mut s.rec.msg_lats),
            names: s.fx.nodes.iter().map(|n| n.name.clone()).collect(),
            steady: s.stats_cfg.steady_start,
            end: super::output::run_end(s),
        }
    }

    /// The table, with the fabric models' columns (`output::Places`) last.
    pub fn table(self, model_columns: Vec<(String, Column)>) -> Table {
        let FlowRecords { headers, init, tx, rx, receivers, mut msg_lats, names, steady, end } = self;
        let n = headers.len();
        let mut t = Table::default();
        // Each flow's message latencies in order, for the percentiles below.
        msg_lats.sort();
        let msg_lats = msg_lats.by_flow(n);
        // By flow id (`fill_stats` gave every flow its rows), made for each column as it
        // is built: a table of them would be held beside the records and the table.
        let fl = || (0..n).map(|i| Flow { h: &headers[i], tx: &tx[i], rx: &rx[i], ideal: init[i].ideal_fct });
        t.push("flow_id", Column::U64((0..n as u64).collect()));
        t.push("src", Column::Str(Strings::from_codes(fl().map(|f| f.h.src.0).collect(), names.clone())));
        t.push("dst", Column::Str(Strings::from_codes(fl().map(|f| f.h.dst.0).collect(), names)));
        t.push("group", Column::U64(fl().map(|f| f.h.group as u64).collect()));
        t.push("priority", Column::U64(fl().map(|f| f.h.prio as u64).collect()));
        t.push("size_bytes", Column::I64(fl().map(|f| if f.h.size == u64::MAX { -1 } else { f.h.size as i64 }).collect()));
        t.push("start_ps", Column::U64(fl().map(|f| f.h.start.0).collect()));
        t.push("finish_ps", Column::I64(fl().map(|f| f.finish().map_or(-1, |x| x.0 as i64)).collect()));
        t.push("fct_ps", Column::I64(fl().map(|f| f.finish().map_or(-1, |x| (x - f.h.start).0 as i64)).collect()));
        // A job's queue pair carries every iteration's chunks with compute between them: its
        // times are the jobs' and collectives' tables', not a transfer's FCT to compare
        // with one alone.
        let no_ideal = |f: &Flow| f.h.size == u64::MAX || f.h.coll != super::NO_COLL;
        t.push("ideal_fct_ps", Column::I64(fl().map(|f| if no_ideal(&f) { -1 } else { f.ideal.0 as i64 }).collect()));
        t.push(
            "slowdown",
            Column::F64(
                fl().map(|f| match f.finish() {
                    Some(x) if f.ideal.0 > 0 && !no_ideal(&f) => (x - f.h.start).0 as f64 / f.ideal.0 as f64,
                    _ => f64::NAN,
                })
                .collect(),
            ),
        );
        t.push("bytes_delivered", Column::U64(fl().map(|f| f.rx.delivered).collect()));
        t.push(
            "goodput_gbps",
            Column::F64(
                fl().map(|f| {
                    let stop = f.finish().unwrap_or(end).min(end);
                    if stop > f.h.start {
                        super::output::gbps(f.rx.delivered, stop - f.h.start)
                    } else {
                        0.0
                    }
                })
                .collect(),
            ),
        );
        t.push(
            "goodput_steady_gbps",
            Column::F64(
                fl().map(|f| {
                    let from = steady.max(f.h.start);
                    let stop = f.finish().unwrap_or(end).min(end);
                    if stop > from {
                        super::output::gbps(f.rx.steady_bytes, stop - from)
                    } else {
                        f64::NAN
                    }
                })
                .collect(),
            ),
        );
        t.push("pkts_sent", Column::U64(fl().map(|f| f.tx.pkts_sent).collect()));
        t.push("retransmits", Column::U64(fl().map(|f| f.tx.retransmits).collect()));
        // Reordering, as the RoCE receiver saw it (0 for TCP and UDP flows); in runs where
        // it can matter (`reorder`): selective repeat, or a model that spreads a flow over
        // paths.
        if let Some(receivers) = &receivers {
            // (A flow that never arrived has no receiver: zeros, as built.)
            let rx = |f: usize| receivers.get(f).map_or((0, 0, 0), |r| (r.ooo_rx, r.held_peak, r.dup_rx));
            t.push("ooo_arrivals", Column::U64((0..n).map(|f| rx(f).0 as u64).collect()));
            t.push("reorder_peak", Column::U64((0..n).map(|f| rx(f).1 as u64).collect()));
            t.push("spurious_retransmits", Column::U64((0..n).map(|f| rx(f).2 as u64).collect()));
        }
        t.push("pkts_received", Column::U64(fl().map(|f| f.rx.pkts_rx).collect()));
        t.push(
            "latency_mean_ps",
            Column::F64(fl().map(|f| if f.rx.pkts_rx > 0 { f.rx.lat_sum as f64 / f.rx.pkts_rx as f64 } else { f64::NAN }).collect()),
        );
        t.push("latency_max_ps", Column::U64(fl().map(|f| f.rx.lat_max).collect()));
        t.push(
            "interarrival_mean_ps",
            Column::F64(
                fl().map(|f| if f.rx.pkts_rx > 1 { f.rx.ipi_sum() as f64 / (f.rx.pkts_rx - 1) as f64 } else { f64::NAN }).collect(),
            ),
        );
        t.push("marked_received", Column::U64(fl().map(|f| f.rx.marked_rx).collect()));
        t.push(
            "mark_fraction",
            Column::F64(fl().map(|f| if f.rx.pkts_rx > 0 { f.rx.marked_rx as f64 / f.rx.pkts_rx as f64 } else { f64::NAN }).collect()),
        );
        t.push("cnps_sent", Column::U64(fl().map(|f| f.rx.cnps_sent).collect()));
        t.push("cnps_received", Column::U64(fl().map(|f| f.tx.cnps_rx).collect()));
        t.push("min_rate_gbps", Column::F64(fl().map(|f| f.tx.min_rate.as_gbps_f64()).collect()));
        t.push("rate_limited_ps", Column::U64(fl().map(|f| f.tx.limited_ps).collect()));
        t.push("pkts_rate_limited", Column::U64(fl().map(|f| f.tx.pkts_limited).collect()));
        t.push("feedback_received", Column::U64(fl().map(|f| f.tx.feedback_rx).collect()));
        t.push("messages_completed", Column::U64(fl().map(|f| (f.tx.msgs_done + f.rx.msgs_done) as u64).collect()));
        t.push(
            "message_latency_mean_ps",
            // Over the messages timed (a software-limited stream counts its completions
            // without timing them).
            Column::F64(
                msg_lats
                    .iter()
                    .map(|v| if v.is_empty() { f64::NAN } else { v.iter().map(|&x| x as u128).sum::<u128>() as f64 / v.len() as f64 })
                    .collect(),
            ),
        );
        // Per-flow message latency percentiles (nearest rank over the completed messages).
        let lats = || msg_lats.iter().copied();
        for (col, q) in [
            ("message_latency_min_ps", 0.0),
            ("message_latency_p50_ps", 0.5),
            ("message_latency_p99_ps", 0.99),
            ("message_latency_p999_ps", 0.999),
            ("message_latency_max_ps", 1.0),
        ] {
            t.push(col, Column::F64(lats().map(|v| nearest_rank(v, q).map_or(f64::NAN, |x| x as f64)).collect()));
        }
        t.push(
            "message_latency_stdev_ps",
            Column::F64(
                lats()
                    .map(|v| {
                        if v.is_empty() {
                            return f64::NAN;
                        }
                        let n = v.len() as f64;
                        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
                        (v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n).sqrt()
                    })
                    .collect(),
            ),
        );
        t.columns.extend(model_columns);
        t
    }
}
