//! TCP in the world: slow start, SACK fast recovery without a timeout and full use of a
//! lossy bottleneck (NewReno); a timeout when no ACK comes back for longer than the
//! RTO; two CUBIC flows sharing a bottleneck. Figures in docs/models/tcp.md.

use std::path::Path;

use dcsim::results::{Column, Results};

fn load(name: &str, overrides: &[&str]) -> dcsim::Plan {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_file(&file, &o).unwrap()
}

fn u64s<'a>(r: &'a Results, table: &str, col: &str) -> &'a [u64] {
    match r.table(table).unwrap().get(col) {
        Some(Column::U64(v)) => v,
        c => panic!("{table}.{col}: {c:?}"),
    }
}

fn f64s<'a>(r: &'a Results, table: &str, col: &str) -> &'a [f64] {
    match r.table(table).unwrap().get(col) {
        Some(Column::F64(v)) => v,
        c => panic!("{table}.{col}: {c:?}"),
    }
}

/// Goodput of flow `f` per 100 us bin, from the start.
fn bins(r: &Results, f: u64) -> Vec<f64> {
    let (ids, t, g) = (u64s(r, "goodput", "flow_id"), u64s(r, "goodput", "time_ps"), f64s(r, "goodput", "gbps"));
    let mut v = Vec::new();
    for i in 0..ids.len() {
        if ids[i] == f {
            let k = (t[i] / 100_000_000) as usize;
            if v.len() <= k {
                v.resize(k + 1, 0.0);
            }
            v[k] += g[i];
        }
    }
    v
}

#[test]
fn newreno_slow_start_fast_recovery_and_a_full_link() {
    let r = dcsim::sim::run(&load("tcp_newreno_bottleneck.toml", &[])).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let b = bins(&r, 0);
    println!("first bins (Gb/s): {:?}", &b[..8]);
    println!(
        "retransmits {:?} fast recoveries {:?} timeouts {:?} rtt mean {:?} ns steady {:?} Gb/s",
        u64s(&r, "tcp", "retransmits"),
        u64s(&r, "tcp", "fast_recoveries"),
        u64s(&r, "tcp", "timeouts"),
        f64s(&r, "tcp", "rtt_mean_ns"),
        f64s(&r, "flows", "goodput_steady_gbps"),
    );
    // Slow start: from 10 segments (~14.6 KB per ~104 us RTT, about 1.1 Gb/s) the
    // goodput doubles per RTT before it reaches the link rate.
    assert!(b[0] < 2.5, "first RTT: {b:?}");
    assert!(b[1] > 1.5 * b[0] && b[2] > 1.5 * b[1], "doubling: {b:?}");
    // Drops, repaired by fast recovery only.
    assert!(u64s(&r, "tcp", "fast_recoveries")[0] >= 1);
    assert!(u64s(&r, "tcp", "retransmits")[0] > 0);
    assert_eq!(u64s(&r, "tcp", "timeouts")[0], 0, "no retransmission timeout");
    // Full link: 10 Gb/s of 1542-byte wire frames carries 9.47 Gb/s of payload.
    let steady = f64s(&r, "flows", "goodput_steady_gbps")[0];
    assert!(steady > 0.97 * 9.468, "steady goodput {steady} Gb/s");
}

#[test]
fn a_stall_longer_than_the_rto_times_out_and_the_flow_recovers() {
    // The bottleneck slows to 5 Mb/s from 2 ms to 4 ms: one frame then takes 2.5 ms, the
    // rest of the window is dropped or stuck behind it, and no ACK returns for longer
    // than the RTO (min 1 ms; the RTT is about 0.17 ms).
    let plan = load(
        "tcp_newreno_bottleneck.toml",
        &[
            "switch.rate_schedule=[{ node = \"SW\", peer = \"R\", at = \"2ms\", rate = \"5Mbps\" }, { node = \"SW\", peer = \"R\", at = \"4ms\", rate = \"10Gbps\" }]",
            "traffic[0].flows=[{ src = \"S\", dst = \"R\", size = \"10MB\" }]",
        ],
    );
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let timeouts = u64s(&r, "tcp", "timeouts")[0];
    println!("timeouts {timeouts} retransmits {:?}", u64s(&r, "tcp", "retransmits"));
    assert!(timeouts >= 1, "a timeout");
    // Backed off but recovered: the whole 10 MB arrived.
    assert_eq!(u64s(&r, "flows", "bytes_delivered")[0], 10_000_000);
    assert!(u64s(&r, "flows", "messages_completed")[0] == 1);
}
