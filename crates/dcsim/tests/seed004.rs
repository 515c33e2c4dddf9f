//! Seed 004, "traffic patterns may differ in CCA choices": backup and query traffic on
//! four 1 Gb/s servers, one run per algorithm. The ordering the published figures show
//! and the model reproduces: DCTCP and BBR keep the switch queues short, so their query
//! latency is far below Reno's and CUBIC's, which fill the drop-tail buffer. Figures and
//! the explanation of the magnitudes in docs/models/tcp.md. Also TCP beside RoCE under
//! ETS on one port (`seed004_tcp_roce_ets.toml`).

mod common;
use common::col_f64;

use std::path::Path;

use dcsim::results::{Column, Results};

fn run(name: &str) -> Results {
    run_with(name, &[])
}

fn run_with(name: &str, sets: &[&str]) -> Results {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&file, &sets).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{name}: {:?}", r.failed_checks());
    r
}

/// (goodput of all six flows into the two receivers in Gb/s, mean query latency in us,
/// 95th percentile of query completion in us); prints the backup part.
fn figures(r: &Results) -> (f64, f64, f64) {
    let g = col_f64(r, "flows", "goodput_steady_gbps");
    let lat = col_f64(r, "flows", "message_latency_mean_ps");
    println!("backup goodput {:.3} Gb/s, query goodput {:.3} Gb/s", g[..4].iter().sum::<f64>(), g[4] + g[5]);
    let total: f64 = g.iter().sum();
    let query = (lat[4] + lat[5]) / 2.0 / 1e6;
    let p95 = r.summary["tcp"]["message_latency_p95_ps"].as_f64().unwrap() / 1e6;
    (total, query, p95)
}

#[test]
fn dctcp_and_bbr_query_latency_is_far_below_reno_and_cubic() {
    let mut out = Vec::new();
    for cca in ["reno", "cubic", "dctcp", "bbr"] {
        let r = run(&format!("seed004_cca_{cca}.toml"));
        let (thr, q, p95) = figures(&r);
        println!(
            "{cca:6} goodput {thr:.3} Gb/s (of 1.894 payload on two 1 Gb/s links), query mean {q:.1} us, p95 {p95:.1} us, timeouts {}, fast recoveries {}",
            r.summary["tcp"]["timeouts"], r.summary["tcp"]["fast_recoveries"]
        );
        out.push((thr, q, p95));
    }
    let (reno, cubic, dctcp, bbr) = (out[0], out[1], out[2], out[3]);
    // Query latency: DCTCP below half of Reno's and CUBIC's, mean and 95th percentile
    // (measured: about 2.5x and 2.9x; the published 8-10x needs a queue below what K =
    // 20 packets holds at 1 Gb/s, see docs/models/tcp.md).
    assert!(dctcp.1 * 2.0 < reno.1.min(cubic.1), "mean: {out:?}");
    assert!(dctcp.2 * 2.0 < reno.2.min(cubic.2), "p95: {out:?}");
    // Reno and CUBIC fill the 128 KB drop-tail buffer (about 1 ms at 1 Gb/s): their mean
    // query latency is of the order of the full-buffer delay.
    assert!(reno.1 > 500.0 && cubic.1 > 500.0, "{out:?}");
    // BBR: in-flight data bounded by 2 x BDP (+ 3 segments) per flow keeps the queue far
    // below the drop-tail buffer: query latency below a third of Reno's and CUBIC's
    // (measured 3.4x mean, 3.8x p95; the published 10x, see docs/models/tcp.md), the
    // lowest of the four, and the highest goodput of the four, as published.
    assert!(bbr.1 * 3.0 < reno.1.min(cubic.1), "BBR mean: {out:?}");
    assert!(bbr.2 * 3.0 < reno.2.min(cubic.2), "BBR p95: {out:?}");
    assert!(bbr.1 < dctcp.1 && bbr.2 < dctcp.2, "BBR vs DCTCP latency: {out:?}");
    assert!(out[..3].iter().all(|o| bbr.0 > o.0), "BBR highest goodput: {out:?}");
    // All keep the two receiving links busy (1.894 Gb/s of payload at most).
    for (thr, _, _) in &out {
        assert!(*thr > 0.9 * 1.894, "{out:?}");
    }
}

/// Payload delivered per priority from `from_ps` on (the class_throughput table).
fn class_bytes(r: &Results, from_ps: u64) -> [u64; 8] {
    let t = r.table("class_throughput").expect("stats.class_interval is set");
    let (Some(Column::U64(time)), Some(Column::U64(prio)), Some(Column::U64(bytes))) =
        (t.get("time_ps"), t.get("priority"), t.get("bytes"))
    else {
        panic!("class_throughput columns")
    };
    let mut out = [0; 8];
    for i in 0..time.len() {
        if time[i] >= from_ps {
            out[prio[i] as usize] += bytes[i];
        }
    }
    out
}

#[test]
fn tcp_beside_roce_under_ets_gets_the_configured_split() {
    // TCP (priority 1, CUBIC, drop-tail) and RoCE with DCQCN (priority 3, PFC) into one
    // 25 Gb/s port under DWRR. Both classes stay backlogged, so the scheduler gives each
    // its weight (the seed's hardware measured 51:49 for 40:60 and 56:44 for 50:50; the
    // model does not reproduce that, see docs/models/tcp.md). Aggressive ECN on the RoCE
    // class lets its queue run empty at times, and TCP takes the idle share.
    let split = |sets: &[&str]| {
        let r = run_with("seed004_tcp_roce_ets.toml", sets);
        let b = class_bytes(&r, 10_000_000_000);
        let share = b[1] as f64 / (b[1] + b[3]) as f64;
        let gbps = (b[1] + b[3]) as f64 * 8.0 / 20e-3 / 1e9;
        println!("{sets:?}: TCP share {:.1} %, {gbps:.2} Gb/s", 100.0 * share);
        (share, gbps)
    };
    let w4060 = split(&[]);
    let w5050 = split(&["switch.scheduler.weights[1]=5", "switch.scheduler.weights[3]=5"]);
    // The more aggressive the marking, the more TCP takes: +0.3..0.8 points at
    // 10/20 KB and +2.0..2.2 at 5/10 KB over seeds 1-3 (docs/models/tcp.md).
    let ecn = split(&["switch.ecn.kmin=\"10KB\"", "switch.ecn.kmax=\"20KB\"", "switch.ecn.pmax=1.0"]);
    let ecn2 = split(&["switch.ecn.kmin=\"5KB\"", "switch.ecn.kmax=\"10KB\"", "switch.ecn.pmax=1.0"]);
    assert!((w4060.0 - 0.4).abs() < 0.015, "40:60 gives {w4060:?}");
    assert!((w5050.0 - 0.5).abs() < 0.015, "50:50 gives {w5050:?}");
    assert!(ecn.0 > w4060.0 && ecn2.0 > ecn.0, "marking harder moves the split: {w4060:?} {ecn:?} {ecn2:?}");
    assert!(ecn2.0 > w4060.0 + 0.01, "aggressive RoCE marking: {ecn2:?} vs {w4060:?}");
    // The port stays busy: 25 Gb/s of wire, 1024 of 1106 wire bytes payload = 23.15.
    for (_, g) in [w4060, w5050, ecn, ecn2] {
        assert!(g > 0.98 * 23.15 && g < 1.01 * 23.15, "{g}");
    }
}

#[test]
fn traces_on_request_only_and_bad_flow_ids_are_named() {
    let r = run_with("seed004_cca_bbr.toml", &["stats.trace_flows=[0, 4]", "simulation.duration=\"60ms\"", "stats.steady_start=\"10ms\""]);
    let t = r.table("cc_trace").expect("cc_trace with trace_flows");
    let Some(Column::U64(flows)) = t.get("flow_id") else { panic!("flow_id") };
    let Some(Column::F64(cwnd)) = t.get("cwnd_bytes") else { panic!("cwnd_bytes") };
    assert!(flows.contains(&0) && flows.contains(&4) && flows.iter().all(|&f| f == 0 || f == 4));
    // The first row of each flow is BBR's initial window: 10 segments of 1460 B.
    assert_eq!(cwnd[flows.iter().position(|&f| f == 4).unwrap()], 14_600.0);
    assert!(run("seed004_cca_bbr.toml").table("cc_trace").is_none(), "off by default");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed004_cca_bbr.toml");
    let e = dcsim::scenario::load_file(&file, &["stats.trace_flows=[1, 99]".to_string()]).unwrap_err().to_string();
    assert!(e.contains("stats.trace_flows[1]") && e.contains("6 flows"), "{e}");
}

/// ETS by packet count and by 208-byte cells beside byte DWRR on the seed-004 port. TCP
/// and RoCE frames are of one size here (`host.mtu` is shared: 1024 B of payload), so
/// each unit gives the configured weights, as bytes do; the seed's 51:49 and 56:44 would
/// need TCP's larger frames (docs/models/tcp.md).
#[test]
fn ets_in_packets_or_cells_gives_the_weights_with_equal_frames() {
    for unit in [&["switch.scheduler.unit=packets"][..], &["switch.scheduler.unit=cells", "switch.scheduler.cell=\"208B\""][..]] {
        for (w, want) in [((4, 6), 0.4), ((5, 5), 0.5)] {
            let mut sets: Vec<String> = unit.iter().map(|s| s.to_string()).collect();
            sets.push(format!("switch.scheduler.weights[1]={}", w.0));
            sets.push(format!("switch.scheduler.weights[3]={}", w.1));
            let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
            let r = run_with("seed004_tcp_roce_ets.toml", &sets);
            let b = class_bytes(&r, 10_000_000_000);
            let share = b[1] as f64 / (b[1] + b[3]) as f64;
            println!("{sets:?}: TCP share {:.1} %, {:.2} Gb/s", 100.0 * share, (b[1] + b[3]) as f64 * 8.0 / 20e-3 / 1e9);
            assert!((share - want).abs() < 0.015, "{sets:?}: {share}");
        }
    }
}
