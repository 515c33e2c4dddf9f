//! Swift in the world (`scenarios/swift_incast.toml`): an N-to-1 incast settles where the
//! round trip equals Swift's target for the window each flow then holds, the port stays
//! full and the flows share it; the queue swings by the N packets the flows add in one
//! round trip. (The window laws are unit-tested in `models/swift`; docs/models/swift.md.)

mod common;
use common::{col_f64, col_u64};

use std::path::Path;

use dcsim::results::Results;

const C: f64 = 100e9;
/// A 1000 B payload's frame on the wire (62 B of headers, 20 B of preamble and gap).
const WIRE: f64 = 1082.0;
/// Four 1 us links, the data frame serialized twice, the 66 B ACK (+20) twice.
const BASE_RTT_US: f64 = 4.0 + 2.0 * WIRE * 8.0 / C * 1e6 + 2.0 * 86.0 * 8.0 / C * 1e6;

/// Swift's fabric target (us) for a window of `cwnd` packets with the defaults: 20 us
/// base, one hop of 20 / 6.55 us, flow scaling of `fs_range` from 0.1 to 100 packets.
fn target(cwnd: f64, fs_range: f64) -> f64 {
    let alpha = fs_range / (1.0 / 0.1f64.sqrt() - 1.0 / 100f64.sqrt());
    let beta = -alpha / 100f64.sqrt();
    20.0 + 20.0 / 6.55 + (alpha / cwnd.sqrt() + beta).clamp(0.0, fs_range)
}

/// The round trip (us) at which N flows sharing the port hold windows whose target is
/// that round trip: RTT = target(RTT x C / (N x WIRE)), by bisection.
fn fixed_point(n: usize, fs_range: f64) -> f64 {
    let (mut lo, mut hi) = (BASE_RTT_US, 1000.0);
    for _ in 0..100 {
        let rtt = (lo + hi) / 2.0;
        let cwnd = rtt * 1e-6 * C / 8.0 / n as f64 / WIRE;
        if target(cwnd, fs_range) > rtt {
            lo = rtt
        } else {
            hi = rtt
        }
    }
    lo
}

fn run(n: usize, extra: &[&str]) -> Results {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/swift_incast.toml");
    let senders: Vec<String> = (1..=n).map(|i| format!("\"h{i}\"")).collect();
    let mut ov = vec![format!("topology.hosts={}", n + 1), format!("traffic[0].senders=[{}]", senders.join(","))];
    ov.extend(extra.iter().map(|s| s.to_string()));
    let plan = dcsim::scenario::load_file(&file, &ov).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    r
}

/// (total goodput Gb/s, Jain's index, queue delay at the bottleneck from 4 ms: mean, p5,
/// p95 in us).
fn figures(r: &Results) -> (f64, f64, f64, f64, f64) {
    let g = col_f64(r, "flows", "goodput_steady_gbps");
    let total: f64 = g.iter().sum();
    let jain = total * total / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>());
    let (t, port, q) = (col_u64(r, "samples", "time_ps"), col_u64(r, "samples", "port_id"), col_u64(r, "samples", "egress_bytes"));
    let busiest = port[(0..q.len()).max_by_key(|&i| q[i]).unwrap()];
    let mut d: Vec<f64> =
        (0..q.len()).filter(|&i| port[i] == busiest && t[i] >= 4_000_000_000).map(|i| q[i] as f64 * 8.0 / C * 1e6).collect();
    d.sort_by(f64::total_cmp);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    (total, jain, mean, d[d.len() / 20], d[d.len() * 19 / 20])
}

#[test]
fn an_incast_settles_at_the_round_trip_swifts_target_gives_for_its_window() {
    let ceiling = 100.0 * 1000.0 / WIRE;
    for n in [8, 32, 128] {
        let (total, jain, q, p5, p95) = figures(&run(n, &[]));
        let (rtt, fixed) = (BASE_RTT_US + q, fixed_point(n, 100.0));
        // The N flows each add one packet per round trip: the queue's swing.
        let swing = n as f64 * WIRE * 8.0 / C * 1e6;
        println!(
            "N {n}: {total:.2} Gb/s, Jain {jain:.5}, RTT {rtt:.2} us against {fixed:.2} us, swing {:.2} us against {swing:.2}",
            p95 - p5
        );
        assert!(total > 0.99 * ceiling && total <= ceiling, "N {n}: {total} of {ceiling} Gb/s");
        assert!(jain > 0.999, "N {n}: Jain {jain}");
        assert!((rtt / fixed - 1.0).abs() < 0.05, "N {n}: RTT {rtt} us, fixed point {fixed} us");
        assert!(p95 - p5 > 0.8 * swing && p95 - p5 < 1.5 * swing, "N {n}: swing {} us against {swing} us", p95 - p5);
    }
}

/// Flow scaling is what raises the target with N: without it (`fs_range = 0`) every N
/// settles at the bare target, 20 + 20 / 6.55 us.
#[test]
fn without_flow_scaling_the_round_trip_is_the_bare_target() {
    let (_, _, q8, _, _) = figures(&run(8, &["host.cc.fs_range=\"0us\""]));
    let (_, _, q32, _, _) = figures(&run(32, &[]));
    let bare = target(1.0, 0.0);
    println!("RTT without flow scaling {:.2} us (target {bare:.2}); with it at N = 32: {:.2} us", BASE_RTT_US + q8, BASE_RTT_US + q32);
    assert!(((BASE_RTT_US + q8) / bare - 1.0).abs() < 0.03, "RTT {} us against {bare} us", BASE_RTT_US + q8);
    assert!(BASE_RTT_US + q32 > bare + 4.0, "flow scaling raises the N = 32 round trip: {} us", BASE_RTT_US + q32);
}
