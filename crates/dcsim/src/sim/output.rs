//! Turns the world's counters and logs into result tables and the summary.

use serde_json::json;

use super::Simulation;
use crate::net::mmu::DROP_REASONS;
use crate::results::{Column, Results, Table};
use crate::units::SimTime;

pub(super) fn gbps(bytes: u64, t: SimTime) -> f64 {
    if t.0 == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / t.as_secs_f64() * 1e-9
    }
}

/// Orders the logs by time, then by what each row is about, instead of the order in
/// which events due at one picosecond were served: one world and the partitions of a
/// parallel run give the same rows. A log keeps at most `stats.max_rows` rows
/// (`stats.max_pfc_events` for PFC events), the first in that order (`CappedLog`).
/// The rates log is cut once the world is freed (`Simulation::finish`): its rows may be
/// in a file, and sorting them needs them back in memory.
fn canonical_logs(s: &mut Simulation) {
    s.rec.cc_trace.finish();
    s.rec.goodput.finish();
    s.rec.samples_dropped += s.rec.samples.sort_and_cut(s.stats_cfg.max_rows.min(usize::MAX as u64) as usize);
}

/// Where `finish` leaves out the two tables built once the world is freed: the flows
/// table (`flows_table`) goes in at `flows`, then the rates table (`rates_table`) at
/// `rates`, both places in the final list.
pub(super) struct Places {
    pub flows: usize,
    pub rates: usize,
    /// The columns the fabric models add to the flows table, in flow order.
    pub flow_columns: Vec<(String, Column)>,
}

/// The end of the run: its duration, or where a deadlock stopped it.
pub(super) fn run_end(s: &Simulation) -> SimTime {
    if s.models.stopped() {
        s.clock.min(s.end)
    } else {
        s.end
    }
}

/// The result tables and summary, all but the flows and rates tables (`Places`).
pub(super) fn finish(s: &mut Simulation) -> (Results, Places) {
    let end = run_end(s);
    // Close what is still open at the end: pauses and goodput bins.
    for (p, port) in s.fx.ports.iter().enumerate() {
        for prio in 0..8u8 {
            if port.paused & (1 << prio) != 0 {
                s.fx.prio_stats[s.fx.slots.at(p, prio)].paused_ps += (end - port.paused_since[prio as usize]).0;
            }
        }
    }
    s.models.end_run(&s.fx, end);
    s.fill_stats();
    for f in s.tx_stats.iter_mut() {
        if let Some(since) = f.limited_since.take() {
            f.limited_ps += (end - since).0;
        }
    }
    if let Some(iv) = s.stats_cfg.goodput_interval {
        for f in 0..s.rx_stats.len() {
            let (bin, bytes) = (s.rx_stats[f].bin, s.rx_stats[f].bin_bytes);
            s.push_goodput(crate::ids::FlowId(f as u32), bin * iv.0, bytes);
        }
    }
    canonical_logs(s);
    // What the summary says of the flows, and the run's checks, first: the frames still
    // in flight, which only the checks read, are then freed before the tables are built
    // beside the flows' records (100 ms of k = 16: 450,000 frames, 16 MiB).
    let reorder = s.reports_reordering();
    let totals = FlowTotals::of(s, reorder);
    let checks = s.run_checks();
    let peak_packets = s.fx.pool.peak();
    s.fx.pool = Default::default();
    let mut tables = Vec::new();

    // nodes
    let mut t = Table::default();
    t.push("node_id", Column::U64((0..s.fx.nodes.len() as u64).collect()));
    t.push("name", Column::Str(s.fx.nodes.iter().map(|n| n.name.clone()).collect()));
    t.push("kind", Column::Str(s.fx.nodes.iter().map(|n| if n.is_host { "host" } else { "switch" }.to_string()).collect()));
    t.push("ports", Column::U64(s.fx.nodes.iter().map(|n| n.ports.len() as u64).collect()));
    tables.push(("nodes".to_string(), t));

    // links
    let mut t = Table::default();
    t.push("link_id", Column::U64((0..s.links.len() as u64).collect()));
    t.push("a", Column::Str(s.links.iter().map(|l| s.fx.nodes[l.a as usize].name.clone()).collect()));
    t.push("b", Column::Str(s.links.iter().map(|l| s.fx.nodes[l.b as usize].name.clone()).collect()));
    t.push("rate_bps", Column::U64(s.links.iter().map(|l| l.rate.0).collect()));
    t.push("delay_ps", Column::U64(s.links.iter().map(|l| l.delay.0).collect()));
    tables.push(("links".to_string(), t));

    // flows: built once the world is freed (`flows_table`), at this place; until the
    // fabric models have added their columns to it (`FabricModel::tables`), a table of
    // flow ids stands in for it.
    let steady = s.stats_cfg.steady_start;
    let flows_at = tables.len();
    let mut ids = Table::default();
    ids.push("flow_id", Column::U64((0..s.flows.len() as u64).collect()));
    tables.push(("flows".to_string(), ids));

    // tcp: one row per TCP flow, only when the run has any (other runs' tables are
    // unchanged).
    if !s.tp.tcp_tx.is_empty() {
        let ids: Vec<usize> = (0..s.flows.len()).filter(|&i| s.flows[i].tcp != super::NO_TCP).collect();
        let tx = |i: usize| &s.tp.tcp_tx[s.flows[i].tcp as usize];
        let mut t = Table::default();
        t.push("flow_id", Column::U64(ids.iter().map(|&i| i as u64).collect()));
        t.push("retransmits", Column::U64(ids.iter().map(|&i| s.tx_stats[i].retransmits).collect()));
        t.push("fast_recoveries", Column::U64(ids.iter().map(|&i| tx(i).fast_recoveries).collect()));
        t.push("timeouts", Column::U64(ids.iter().map(|&i| tx(i).timeouts).collect()));
        t.push("rtt_samples", Column::U64(ids.iter().map(|&i| tx(i).rtt_n).collect()));
        t.push(
            "rtt_mean_ps",
            Column::F64(ids.iter().map(|&i| if tx(i).rtt_n > 0 { tx(i).rtt_sum as f64 / tx(i).rtt_n as f64 } else { f64::NAN }).collect()),
        );
        t.push("rtt_max_ps", Column::F64(ids.iter().map(|&i| tx(i).rtt_max as f64).collect()));
        t.push("srtt_ps", Column::F64(ids.iter().map(|&i| tx(i).rto.srtt.map_or(f64::NAN, |v| v.0 as f64)).collect()));
        t.push("rto_ps", Column::F64(ids.iter().map(|&i| tx(i).rto.rto().0 as f64).collect()));
        t.push("cwnd_bytes", Column::F64(ids.iter().map(|&i| s.ccs[i].window().map_or(f64::NAN, |w| w as f64)).collect()));
        tables.push(("tcp".to_string(), t));
    }

    // ports: one row per (port, priority in use)
    let mut cols: Vec<(&str, Vec<u64>)> = Vec::new();
    let mut node_col = Vec::new();
    let mut peer_col = Vec::new();
    let mut util = Vec::new();
    let mut paused_frac = Vec::new();
    let names = [
        "port_id",
        "node_id",
        "port",
        "priority",
        "rate_bps",
        "tx_bytes",
        "tx_pkts",
        "drops_buffer_full",
        "drops_headroom_exceeded",
        "drops_shared_threshold",
        "drops_egress_full",
        "pfc_xoff_sent",
        "pfc_xon_sent",
        "pfc_xoff_received",
        "pfc_xon_received",
        "pfc_pause_expired",
        "paused_ps",
        "max_egress_bytes",
        "max_ingress_bytes",
        "min_ingress_after_xoff",
        "headroom_bytes",
        "xoff_bytes",
        "xon_bytes",
        "ctrl_tx_bytes",
        "wire_bytes",
        "ecn_marked",
        "pfc_storms",
        "pfc_storms_restored",
        "pfc_storm_drops",
    ];
    for n in names {
        cols.push((n, Vec::new()));
    }
    let secs = end.as_secs_f64();
    for (p, port) in s.fx.ports.iter().enumerate() {
        let pid = crate::ids::PortId(p as u32);
        for prio in 0..8u8 {
            if s.setup.used_prios & (1 << prio) == 0 {
                continue;
            }
            let c = &s.fx.prio_stats[s.fx.slots.at(p, prio)];
            let class = s.class_of(prio);
            let ci = &s.fx.prio_stats[s.fx.slots.at(p, class)];
            let is_sw = !s.fx.nodes[port.node.idx()].is_host;
            let vals = [
                p as u64,
                port.node.0 as u64,
                port.local as u64,
                prio as u64,
                port.rate().0,
                c.tx_bytes,
                c.tx_pkts,
                c.drops[0],
                c.drops[1],
                c.drops[2],
                c.drops[3],
                ci.pfc_xoff_tx,
                ci.pfc_xon_tx,
                c.pfc_xoff_rx,
                c.pfc_xon_rx,
                c.pfc_expired,
                c.paused_ps,
                c.max_egress.max(s.fx.egress.queue(pid, prio).bytes),
                s.fx.mmu.peak(pid, class),
                match s.fx.mmu.low_after_xoff(pid, class) {
                    u64::MAX => 0,
                    low => low,
                },
                if is_sw { s.fx.mmu.headroom(pid) } else { 0 },
                if is_sw { s.fx.mmu.xoff(pid) } else { 0 },
                if is_sw { s.fx.mmu.xon(pid) } else { 0 },
                port.ctrl_bytes,
                port.wire_bytes,
                c.ecn_marked,
                c.pfc_storms,
                c.pfc_storms_restored,
                c.pfc_storm_drops,
            ];
            for (i, v) in vals.iter().enumerate() {
                cols[i].1.push(*v);
            }
            node_col.push(s.fx.nodes[port.node.idx()].name.clone());
            peer_col.push(s.fx.nodes[s.fx.ports[port.peer.idx()].node.idx()].name.clone());
            util.push(if secs > 0.0 { port.wire_bytes as f64 * 8.0 / (port.rate().0 as f64 * secs) } else { 0.0 });
            paused_frac.push(if end.0 > 0 { c.paused_ps as f64 / end.0 as f64 } else { 0.0 });
        }
    }
    let mut t = Table::default();
    let mut it = cols.into_iter();
    for _ in 0..3 {
        let (n, v) = it.next().unwrap();
        t.push(n, Column::U64(v));
    }
    t.push("node", Column::Str(node_col.into()));
    t.push("peer", Column::Str(peer_col.into()));
    for (n, v) in it {
        t.push(n, Column::U64(v));
    }
    t.push("utilization", Column::F64(util));
    t.push("paused_fraction", Column::F64(paused_frac));
    tables.push(("ports".to_string(), t));

    // The fabric models' own tables (`FabricModel::tables`).
    let ends = |f: crate::ids::FlowId| (s.flows[f.idx()].src, s.flows[f.idx()].dst);
    s.models.tables(&s.fx, &ends, &mut tables);
    let mut flow_columns = tables.remove(flows_at).1.columns;
    flow_columns.remove(0);

    // samples
    let sm = &s.rec.samples;
    let mut t = Table::default();
    t.push("time_ps", Column::U64(sm.time.clone()));
    t.push("port_id", Column::U64(sm.port.iter().map(|&p| p as u64).collect()));
    t.push("node_id", Column::U64(sm.port.iter().map(|&p| s.fx.ports[p as usize].node.0 as u64).collect()));
    t.push("port", Column::U64(sm.port.iter().map(|&p| s.fx.ports[p as usize].local as u64).collect()));
    t.push("priority", Column::U64(sm.prio.iter().map(|&p| p as u64).collect()));
    t.push("egress_bytes", Column::U64(sm.egress_bytes.clone()));
    t.push("ingress_bytes", Column::U64(sm.ingress_bytes.clone()));
    t.push("paused", Column::U64(sm.paused.iter().map(|&p| p as u64).collect()));
    tables.push(("samples".to_string(), t));

    // goodput
    let g = s.rec.goodput.rows();
    let iv = s.stats_cfg.goodput_interval.unwrap_or(SimTime(1));
    let mut t = Table::default();
    t.push("flow_id", Column::U64(g.iter().map(|r| r.flow as u64).collect()));
    t.push("time_ps", Column::U64(g.iter().map(|r| r.bin_start).collect()));
    t.push("bytes", Column::U64(g.iter().map(|r| r.bytes).collect()));
    t.push("gbps", Column::F64(g.iter().map(|r| gbps(r.bytes, iv)).collect()));
    tables.push(("goodput".to_string(), t));

    // (+1: the flows table goes in before it.)
    let rates_at = tables.len() + 1;

    // On request only (other runs' tables are unchanged): the traced flows' window and
    // rate, and the throughput of each priority in use.
    if !s.stats_cfg.trace_flows.is_empty() {
        let tr = s.rec.cc_trace.rows();
        let mut t = Table::default();
        t.push("time_ps", Column::U64(tr.iter().map(|r| r.0 .0).collect()));
        t.push("flow_id", Column::U64(tr.iter().map(|r| r.1 as u64).collect()));
        t.push("cwnd_bytes", Column::F64(tr.iter().map(|r| if r.2 == u64::MAX { f64::NAN } else { r.2 as f64 }).collect()));
        t.push("rate_gbps", Column::F64(tr.iter().map(|r| r.3.as_gbps_f64()).collect()));
        tables.push(("cc_trace".to_string(), t));
    }
    if let Some(iv) = s.stats_cfg.class_interval {
        let (mut time, mut prio, mut bytes) = (vec![], vec![], vec![]);
        let last = (s.end.0 / iv.0) as usize;
        for (b, per) in s.rec.class_bins.iter().enumerate().take(last + 1) {
            for (p, &n) in per.iter().enumerate().filter(|(p, _)| s.setup.used_prios & (1 << p) != 0) {
                time.push(b as u64 * iv.0);
                prio.push(p as u64);
                bytes.push(n);
            }
        }
        let mut t = Table::default();
        t.push("time_ps", Column::U64(time));
        t.push("priority", Column::U64(prio));
        t.push("gbps", Column::F64(bytes.iter().map(|&b| gbps(b, iv)).collect()));
        t.push("bytes", Column::U64(bytes));
        tables.push(("class_throughput".to_string(), t));
    }

    // io: storage KPIs per interval, only in runs with storage traffic (other runs'
    // tables are unchanged).
    let storage = s.storage_outputs(end);
    if let Some((t, _)) = &storage {
        tables.push(("io".to_string(), t.clone()));
    }

    // collectives and jobs: only in runs with jobs (other runs' tables are unchanged).
    let jobs = s.job_outputs();
    if let Some((c, j, _)) = &jobs {
        tables.push(("collectives".to_string(), c.clone()));
        tables.push(("jobs".to_string(), j.clone()));
    }

    // summary
    let mut drops = serde_json::Map::new();
    let mut drops_total = 0;
    for (i, r) in DROP_REASONS.iter().enumerate() {
        let v: u64 = s.fx.prio_stats.iter().map(|c| c.drops[i]).sum();
        drops_total += v;
        drops.insert(r.to_string(), json!(v));
    }
    let sum = |f: fn(&crate::net::stats::PrioCounters) -> u64| -> u64 { s.fx.prio_stats.iter().map(f).sum() };
    let lat = &s.rec.latency;
    let q = |p: f64| lat.quantile(p);
    let mut rows: serde_json::Map<String, serde_json::Value> = tables.iter().map(|(n, t)| (n.clone(), json!(t.rows()))).collect();
    rows.insert("flows".to_string(), json!(s.flows.len()));
    rows.insert("rates".to_string(), json!(s.rec.rate_log.kept()));
    let mut summary = json!({
        "name": s.setup.name,
        "seed": s.setup.seed,
        "version": crate::VERSION,
        "duration_ps": end.0,
        "steady_start_ps": steady.0,
        "events": s.local_events(),
        "counters": {
            "link_packet_hops": s.hops,
            "flows": s.flows.len(),
            "flows_finished": totals.finished,
            "data_packets_delivered": totals.pkts_rx,
            "payload_bytes_delivered": totals.delivered,
            "drops_total": drops_total,
            "drops": drops,
            "pfc_xoff_sent": sum(|c| c.pfc_xoff_tx),
            "pfc_xon_sent": sum(|c| c.pfc_xon_tx),
            "pfc_pause_expired": sum(|c| c.pfc_expired),
            "retransmitted_packets": totals.retransmits,
            "ecn_marked": sum(|c| c.ecn_marked),
            "cnps_sent": totals.cnps_sent,
            "cnps_received": totals.cnps_rx,
            "pfc_storms": sum(|c| c.pfc_storms),
            "pfc_storm_drops": sum(|c| c.pfc_storm_drops),
        },
        "latency_ps": {
            "what": "one-way delay of data packets, first bit sent at the NIC to last bit received",
            "count": lat.count,
            "mean": lat.mean(),
            "p50": q(0.5),
            "p99": q(0.99),
            "p999": q(0.999),
            "max": (lat.count > 0).then_some(lat.max),
        },
        "message_latency_ps": {
            "what": "message completion time: posted to fully acknowledged",
            "count": s.rec.msg_latency.count,
            "mean": s.rec.msg_latency.mean(),
            "p50": s.rec.msg_latency.quantile(0.5),
            "p99": s.rec.msg_latency.quantile(0.99),
            "p999": s.rec.msg_latency.quantile(0.999),
        },
        "memory": {
            "peak_packets": peak_packets,
            "packet_struct_bytes": std::mem::size_of::<crate::net::packet::Packet>(),
        },
        "outputs": {
            "rows": rows,
            "samples_not_kept": s.rec.samples_dropped,
            "goodput_bins_not_kept": s.rec.goodput.dropped(),
            "rate_changes_not_kept": s.rec.rate_log.not_kept(),
        },
        "checks": checks,
    });
    // TCP runs only (other summaries unchanged): totals and the 95th percentile of
    // message completion (seed 004 reports it).
    if !s.tp.tcp_tx.is_empty() {
        summary["tcp"] = json!({
            "flows": s.tp.tcp_tx.len(),
            "timeouts": s.tp.tcp_tx.iter().map(|t| t.timeouts).sum::<u64>(),
            "fast_recoveries": s.tp.tcp_tx.iter().map(|t| t.fast_recoveries).sum::<u64>(),
            "lost_retransmissions": s.tp.tcp_tx.iter().map(|t| t.board.lost_resent).sum::<u64>(),
            "message_latency_p95_ps": s.rec.msg_latency.quantile(0.95).map(|v| v as f64),
        });
    }
    // UET runs only: the transport's totals (docs/models/uet.md).
    if !s.tp.uet_tx.is_empty() {
        summary["uet"] = json!({
            "flows": s.tp.uet_tx.len(),
            "sacks": s.tp.uet_tx.iter().map(|t| t.sacks).sum::<u64>(),
            "requests_to_send": s.tp.uet_tx.iter().map(|t| t.requests).sum::<u64>(),
            "unsolicited_bytes": s.tp.uet_tx.iter().map(|t| t.unsolicited_bytes).sum::<u64>(),
            "sack_resends": s.tp.uet_tx.iter().map(|t| t.sack_resends).sum::<u64>(),
            "credit_frames": s.tp.uet_rx.iter().map(|r| r.grants).sum::<u64>(),
            "credited_bytes": s.tp.uet_rx.iter().map(|r| r.granted as u64 * crate::models::uet::QUANTUM).sum::<u64>(),
        });
    }
    // Runs where reordering can matter (as the flows table's columns): the receivers'
    // totals, and the largest reorder buffer any flow needed.
    if let Some((ooo, peak, dup)) = totals.reorder {
        let c = &mut summary["counters"];
        c["ooo_arrivals"] = json!(ooo);
        c["reorder_peak_max"] = json!(peak);
        c["spurious_retransmits"] = json!(dup);
    }
    if let Some((_, st)) = storage {
        summary["storage"] = st;
    }
    if let Some((_, _, j)) = jobs {
        summary["jobs"] = j;
    }
    if let Some(ff) = s.ff_summary() {
        summary["fast_forward"] = ff;
    }
    if !s.stats_cfg.trace_flows.is_empty() {
        summary["outputs"]["cc_trace_rows_not_kept"] = json!(s.rec.cc_trace.dropped());
    }
    if s.stats_cfg.class_interval.is_some() {
        summary["outputs"]["class_bins_not_kept"] = json!(s.rec.class_dropped);
    }
    // The fabric models' parts (`FabricModel::summary`).
    s.models.summary(&s.fx, &mut summary);
    // Runs with a pcap capture only: whether its limit cut it short.
    if let Some(c) = s.pcap.as_deref() {
        summary["pcap"] = c.summary();
    }
    // Loud in every test build: a violated invariant is a model error.
    debug_assert!(summary["checks"]["ok"] == json!(true), "{}: run checks failed: {}", s.setup.name, summary["checks"]);
    (Results { tables, summary }, Places { flows: flows_at, rates: rates_at, flow_columns })
}

/// The summary's sums over the flows' records (taken out for the flows table once the
/// summary is written).
struct FlowTotals {
    finished: usize,
    pkts_rx: u64,
    delivered: u64,
    retransmits: u64,
    cnps_sent: u64,
    cnps_rx: u64,
    /// Runs where reordering can matter: the receivers' out-of-order arrivals, largest
    /// reorder buffer and spurious retransmissions.
    reorder: Option<(u64, u32, u64)>,
}

impl FlowTotals {
    fn of(s: &Simulation, reorder: bool) -> FlowTotals {
        let (tx, rx) = (|| s.tx_stats.iter(), || s.rx_stats.iter());
        let receivers = || s.receivers.iter();
        FlowTotals {
            finished: (0..s.flows.len()).filter(|&f| s.flow_finish(f).is_some()).count(),
            pkts_rx: rx().map(|f| f.pkts_rx).sum(),
            delivered: rx().map(|f| f.delivered).sum(),
            retransmits: tx().map(|f| f.retransmits).sum(),
            cnps_sent: rx().map(|f| f.cnps_sent).sum(),
            cnps_rx: tx().map(|f| f.cnps_rx).sum(),
            reorder: reorder.then(|| {
                let r = receivers;
                (r().map(|r| r.ooo_rx as u64).sum(), r().map(|r| r.held_peak).max().unwrap_or(0), r().map(|r| r.dup_rx as u64).sum())
            }),
        }
    }
}
