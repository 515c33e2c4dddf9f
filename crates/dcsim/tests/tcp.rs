//! TCP in the world: slow start, SACK fast recovery without a timeout and full use of a
//! lossy bottleneck (NewReno); a timeout when no ACK comes back for longer than the
//! RTO; NewReno's congestion-avoidance sawtooth against the Reno analysis; two CUBIC
//! flows sharing a bottleneck; CUBIC's window on a long, fat path following RFC 9438's
//! cubic curve. Figures in docs/models/tcp.md.

mod common;
use common::{col_f64, col_u64};

use std::path::Path;

use dcsim::results::Results;

/// CUBIC's C and beta (RFC 9438).
const CUBIC_C: f64 = 0.4;
const CUBIC_BETA: f64 = 0.7;

/// Trace rows where the window fell by more than 5 %: congestion events.
fn congestion_events(w: &[f64]) -> Vec<usize> {
    (1..w.len()).filter(|&k| w[k] < 0.95 * w[k - 1]).collect()
}

fn load(name: &str, overrides: &[&str]) -> dcsim::Plan {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_file(&file, &o).unwrap()
}

/// Goodput of flow `f` per 100 us bin, from the start.
fn bins(r: &Results, f: u64) -> Vec<f64> {
    let (ids, t, g) = (col_u64(r, "goodput", "flow_id"), col_u64(r, "goodput", "time_ps"), col_f64(r, "goodput", "gbps"));
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
        "retransmits {:?} fast recoveries {:?} timeouts {:?} rtt mean {:?} ps steady {:?} Gb/s",
        col_u64(&r, "tcp", "retransmits"),
        col_u64(&r, "tcp", "fast_recoveries"),
        col_u64(&r, "tcp", "timeouts"),
        col_f64(&r, "tcp", "rtt_mean_ps"),
        col_f64(&r, "flows", "goodput_steady_gbps"),
    );
    // Slow start: from 10 segments (~14.6 KB per ~104 us RTT, about 1.1 Gb/s) the
    // goodput doubles per RTT before it reaches the link rate.
    assert!(b[0] < 2.5, "first RTT: {b:?}");
    assert!(b[1] > 1.5 * b[0] && b[2] > 1.5 * b[1], "doubling: {b:?}");
    // Drops, repaired by fast recovery only.
    assert!(col_u64(&r, "tcp", "fast_recoveries")[0] >= 1);
    assert!(col_u64(&r, "tcp", "retransmits")[0] > 0);
    assert_eq!(col_u64(&r, "tcp", "timeouts")[0], 0, "no retransmission timeout");
    // Full link: 10 Gb/s of 1542-byte wire frames carries 9.47 Gb/s of payload.
    let steady = col_f64(&r, "flows", "goodput_steady_gbps")[0];
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
    let timeouts = col_u64(&r, "tcp", "timeouts")[0];
    println!("timeouts {timeouts} retransmits {:?}", col_u64(&r, "tcp", "retransmits"));
    assert!(timeouts >= 1, "a timeout");
    // Backed off but recovered: the whole 10 MB arrived.
    assert_eq!(col_u64(&r, "flows", "bytes_delivered")[0], 10_000_000);
    assert!(col_u64(&r, "flows", "messages_completed")[0] == 1);
}

#[test]
fn two_cubic_flows_share_a_bottleneck() {
    // The second flow starts 2 ms after the first, which by then holds the whole link.
    let plan = load(
        "tcp_newreno_bottleneck.toml",
        &[
            "host.cc.type=\"cubic\"",
            "topology.hosts=[\"S\", \"T\", \"R\"]",
            "topology.links=[{ a = \"S\", b = \"SW\", rate = \"40Gbps\", delay = \"25us\" }, { a = \"T\", b = \"SW\", rate = \"40Gbps\", delay = \"25us\" }, { a = \"SW\", b = \"R\", rate = \"10Gbps\", delay = \"25us\" }]",
            "traffic[0].flows=[{ src = \"S\", dst = \"R\" }, { src = \"T\", dst = \"R\", start = \"2ms\" }]",
            "simulation.duration=\"60ms\"",
            "stats.steady_start=\"20ms\"",
        ],
    );
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let g = col_f64(&r, "flows", "goodput_steady_gbps");
    println!(
        "steady goodput {g:?} Gb/s; fast recoveries {:?} timeouts {:?}",
        col_u64(&r, "tcp", "fast_recoveries"),
        col_u64(&r, "tcp", "timeouts")
    );
    let total = g[0] + g[1];
    assert!(total > 0.97 * 9.468, "link used: {total} Gb/s");
    let jain = total * total / (2.0 * (g[0] * g[0] + g[1] * g[1]));
    assert!(jain > 0.95, "fair share: {g:?} (Jain {jain})");
    assert!(col_u64(&r, "tcp", "fast_recoveries").iter().all(|&n| n >= 1));
}

fn load_err(name: &str, overrides: &[&str]) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_file(&file, &o).unwrap_err().to_string()
}

#[test]
fn bad_tcp_input_is_refused_with_the_field_named() {
    let f = "tcp_newreno_bottleneck.toml";
    // A window-only algorithm on a UDP flow.
    let e = load_err(f, &["traffic[0].transport=\"udp\""]);
    assert!(e.contains("traffic[0].transport") && e.contains("newreno"), "{e}");
    let e = load_err(f, &["traffic[0].transport=\"udp\"", "host.cc.type=\"cubic\""]);
    assert!(e.contains("traffic[0].transport") && e.contains("cubic"), "{e}");
    // A rate-only algorithm on a TCP flow.
    let e = load_err(f, &["host.cc={ type = \"dcqcn\" }"]);
    assert!(e.starts_with("host.cc") && e.contains("window-based") && e.contains("dcqcn"), "{e}");
    // TCP on a lossless (PFC) priority without ECN marking on it.
    let e = load_err(f, &["switch.pfc.mode=\"pfc\"", "traffic[0].priority=3"]);
    assert!(e.starts_with("traffic[0].priority") && e.contains("lossless"), "{e}");
    // ... accepted with ECN marking on that priority (seed 004 marks priority 3), but
    // not beside a drop-tail egress_limit that no lossy flow is left for.
    load("seed004_tcp_roce_ets.toml", &["traffic[0].priority=3"]);
    let e = load_err(f, &["switch.pfc.mode=\"pfc\"", "traffic[0].priority=3", "switch.ecn.mode=\"step\""]);
    assert!(e.starts_with("switch.egress_limit: applies to lossy priorities only"), "{e}");
    // Unknown algorithm and transport names.
    let e = load_err(f, &["host.cc.type=\"bbr2\""]);
    assert!(e.contains("host.cc") && e.contains("bbr2"), "{e}");
    let e = load_err(f, &["traffic[0].transport=\"quic\""]);
    assert!(e.contains("traffic[0].transport"), "{e}");
    // [host.tcp] keys.
    let e = load_err(f, &["host.tcp.min_rto=\"0s\""]);
    assert!(e.starts_with("host.tcp.min_rto"), "{e}");
    let e = load_err(f, &["host.tcp.delayed_ack_count=2"]);
    assert!(e.starts_with("host.tcp.delayed_ack_count") && e.contains("delayed_ack = true"), "{e}");
    let e = load_err(f, &["host.tcp.rto=\"1ms\""]);
    assert!(e.contains("host.tcp"), "{e}");
}

#[test]
fn delayed_acks_halve_the_acks_and_keep_the_link_full() {
    let r0 = dcsim::sim::run(&load("tcp_newreno_bottleneck.toml", &[])).unwrap();
    let r = dcsim::sim::run(&load("tcp_newreno_bottleneck.toml", &["host.tcp.delayed_ack=true", "host.tcp.delayed_ack_timeout=\"500us\""]))
        .unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let acks = |r: &Results| col_u64(r, "tcp", "rtt_samples")[0] as f64 / col_u64(r, "flows", "pkts_received")[0] as f64;
    println!("ACKs advancing per segment: {:.3} without, {:.3} with delayed ACKs", acks(&r0), acks(&r));
    assert!(acks(&r) < 0.6 && acks(&r0) > 0.9);
    let steady = col_f64(&r, "flows", "goodput_steady_gbps")[0];
    assert!(steady > 0.97 * 9.468, "steady goodput {steady} Gb/s");
}

/// On a 50 ms, 1 Gb/s path with a BDP of buffer the window is thousands of segments and
/// K is seconds, so CUBIC is in its cubic region: after a congestion event the window is
/// W(t) = C (t - K)^3 + W_max from the epoch's start (its first ACK in congestion
/// avoidance), with K = cbrt((W_max - cwnd) / C) and fast convergence (W_max = 0.85 of
/// the window at the event if that is below the previous W_max). The trace must follow
/// the curve through its concave and convex parts.
#[test]
fn cubic_follows_its_cubic_curve_on_a_long_fat_path() {
    let r = dcsim::sim::run(&load("tcp_cubic_long_rtt.toml", &[])).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let (at, cwnd) = (col_u64(&r, "cc_trace", "time_ps"), col_f64(&r, "cc_trace", "cwnd_bytes"));
    let (secs, w): (Vec<f64>, Vec<f64>) = at.iter().zip(cwnd).map(|(&a, &c)| (a as f64 * 1e-12, c / 1460.0)).unzip();
    // W_max by RFC 9438 4.6-4.7; timeouts (cwnd = 1 MSS) are left out: the
    // fast-retransmit cuts set it.
    let cuts = congestion_events(&w);
    let mut w_max = f64::NAN;
    let mut epochs = Vec::new();
    for &k in &cuts {
        if w[k] <= 1.0 {
            continue; // timeout: cwnd = 1 MSS
        }
        let before = w[k - 1];
        w_max = if before < w_max { before * (1.0 + CUBIC_BETA) / 2.0 } else { before };
        epochs.push((k, w_max));
    }
    // Every epoch that lasts 2 K before the next event or the end.
    let (mut checked, mut worst) = (0, 0.0f64);
    for (n, &(k, w_max)) in epochs.iter().enumerate() {
        let end = epochs.get(n + 1).map_or(*secs.last().unwrap(), |&(k2, _)| secs[k2]);
        let start_w = w[k];
        let kk = ((w_max - start_w) / CUBIC_C).cbrt();
        let Some(j) = (k..w.len()).find(|&j| w[j] > start_w) else { continue };
        let t0 = secs[j];
        if t0 + 2.0 * kk > end {
            continue;
        }
        for frac in [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0] {
            let tt = t0 + frac * kk;
            let i = secs.partition_point(|&s| s <= tt) - 1;
            let curve = CUBIC_C * (tt - t0 - kk).powi(3) + w_max;
            println!("epoch at {:.3} s (W_max {w_max:.1}, K {kk:.2} s): {frac:.2} K: window {:.1}, curve {curve:.1}", secs[k], w[i]);
            worst = worst.max((w[i] / curve - 1.0).abs());
        }
        checked += 1;
    }
    assert!(checked >= 1, "no epoch long enough to check: cuts at {:?}", cuts.iter().map(|&k| secs[k]).collect::<Vec<_>>());
    assert!(worst < 0.005, "the window strays {:.2} % from the cubic curve", worst * 100.0);
    // The window reaches thousands of segments, and the link stays busy.
    let g = col_f64(&r, "flows", "goodput_steady_gbps")[0];
    assert!(g > 0.9 * 1.0 * 1460.0 / 1542.0, "goodput {g} Gb/s");
}

/// NewReno's sawtooth on `tcp_newreno_bottleneck.toml` against the Reno analysis. In
/// congestion avoidance the window grows by one segment per round trip, and with the
/// window above the bandwidth-delay product the round trip is the window's drain time at
/// the bottleneck, W d (d: one frame's time there). So dW/dt = 1 / (W d), and a cycle from
/// W1 to W2 takes d (W2^2 - W1^2) / 2. The loss comes when the queue overflows, at W2 =
/// BDP + buffer + the frame in service, and the cut halves the window.
#[test]
fn newreno_sawtooth_period_is_the_reno_analysis() {
    let r = dcsim::sim::run(&load(
        "tcp_newreno_bottleneck.toml",
        &["simulation.duration=\"120ms\"", "stats.trace_flows=[0]", "stats.sample_interval=\"off\""],
    ))
    .unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let (at, cwnd) = (col_u64(&r, "cc_trace", "time_ps"), col_f64(&r, "cc_trace", "cwnd_bytes"));
    let w: Vec<f64> = cwnd.iter().map(|c| c / 1460.0).collect();
    // Frames of 1460 + 62 B (+ 20 B preamble and gap on the wire); 66 B ACKs.
    let d = 1542.0 * 8.0 / 10e9;
    let base = 4.0 * 25e-6 + 1542.0 * 8.0 / 40e9 + d + 86.0 * 8.0 / 10e9 + 86.0 * 8.0 / 40e9;
    let capacity = base / d + (150_000 / 1522) as f64 + 1.0;
    // Cycles after slow start's losses (from 10 ms): cut k to cut k + 1.
    let cuts: Vec<usize> = congestion_events(&w).into_iter().filter(|&k| at[k] > 10_000_000_000).collect();
    assert!(cuts.len() >= 5, "{} cycles", cuts.len());
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (w1, w2) = (w[a], w[b - 1]);
        let period = (at[b] - at[a]) as f64 * 1e-12;
        let predicted = d * (w2 * w2 - w1 * w1) / 2.0;
        println!(
            "cycle at {:.3} ms: W {w1:.1} -> {w2:.1}, period {:.3} ms, Reno analysis {:.3} ms; capacity {capacity:.1}",
            at[a] as f64 * 1e-9,
            period * 1e3,
            predicted * 1e3
        );
        assert!(w1 > base / d, "the window stays above the BDP ({w1} segments)");
        assert!((period / predicted - 1.0).abs() < 0.01, "period {period} s against {predicted} s");
        assert!((w2 - capacity).abs() < 1.5, "loss at {w2} segments, capacity {capacity}");
        assert!((w[b] - w2 / 2.0).abs() <= 1.0, "the cut halves: {w2} -> {}", w[b]);
    }
}
