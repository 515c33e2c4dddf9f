//! NSCC in the world (`scenarios/uet_nscc_incast.toml`, docs/models/uet.md): an 8-to-1
//! incast keeps the port full and ends when the last frame crosses it; with long flows
//! it converges to fair shares with the queue near its target; a flow alone reaches the
//! line rate. (The window laws are unit-tested in `models/nscc`.)

mod common;
use common::{col_i64, col_u64};

use std::path::Path;

use dcsim::results::Results;

fn run(extra: &[&str]) -> Results {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/uet_nscc_incast.toml");
    let ov: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&file, &ov).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    r
}

/// The busiest port's egress queue samples (time ps, bytes).
fn queue(r: &Results) -> Vec<(u64, u64)> {
    let (t, port, q) = (col_u64(r, "samples", "time_ps"), col_u64(r, "samples", "port_id"), col_u64(r, "samples", "egress_bytes"));
    let busiest = port[(0..q.len()).max_by_key(|&i| q[i]).unwrap()];
    (0..q.len()).filter(|&i| port[i] == busiest).map(|i| (t[i], q[i])).collect()
}

#[test]
fn incast_keeps_the_port_full_and_ends_with_the_last_frame() {
    let r = run(&[]);
    let fct = col_i64(&r, "flows", "fct_ps");
    let mut us: Vec<f64> = fct.iter().map(|&f| f as f64 / 1e6).collect();
    us.sort_by(f64::total_cmp);
    // 8 x (489 frames of 4150 B and one of 1946 + 64 B) through one 100 Gb/s port.
    let wire = 8.0 * (489.0 * 4150.0 + 2010.0) * 8.0 / 100e9 * 1e6;
    let q = queue(&r);
    let qmax = q.iter().map(|x| x.1).max().unwrap();
    println!("FCTs (us): {us:?}; port time {wire:.1} us; queue max {qmax} B");
    assert!(us.iter().all(|&f| f > 0.0), "every flow finishes");
    let last = us[7];
    assert!(last > wire && last < wire * 1.02, "the port stays full: last FCT {last} us, {wire} us of frames");
}

/// Payload goodput ceiling of a 100 Gb/s port with 4086 B in 4150 B frames.
const CEILING: f64 = 100.0 * 4086.0 / 4150.0;
/// NSCC's target in the scenario (us): htsim's network RTT.
const TARGET_US: f64 = 9.34848;
/// The star's real base RTT (us): four 1 us link crossings, a 4150 B frame and a 64 B ACK
/// serialized twice each at 100 Gb/s.
const PATH_RTT_US: f64 = 4.0 + 2.0 * 4150.0 * 8.0 / 1e5 + 2.0 * 64.0 * 8.0 / 1e5;

/// Eight long flows from 0 to 12 ms: (steady goodputs from 9 ms, Jain's index, mean
/// queue delay from 9 ms in us).
fn long(extra: &[&str]) -> (Vec<f64>, f64, f64) {
    let mut ov = vec!["traffic[0].size=\"inf\"", "simulation.duration=\"12ms\"", "stats.steady_start=\"9ms\""];
    ov.extend_from_slice(extra);
    let r = run(&ov);
    let g = common::col_f64(&r, "flows", "goodput_steady_gbps").to_vec();
    let total: f64 = g.iter().sum();
    let jain = total * total / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>());
    let d: Vec<f64> = queue(&r).iter().filter(|x| x.0 >= 9_000_000_000).map(|x| x.1 as f64 * 8.0 / 100e9 * 1e6).collect();
    (g, jain, d.iter().sum::<f64>() / d.len() as f64)
}

/// With the path's base RTT given (no flow can measure a smaller one), every flow sees
/// the same delay: the shares even out and the queue sits at the target.
#[test]
fn with_the_path_base_rtt_long_flows_converge_to_fair_shares_at_the_target() {
    let base = format!("host.cc.base_rtt=\"{PATH_RTT_US}us\"");
    let (g, jain, q) = long(&[&base]);
    let total: f64 = g.iter().sum();
    println!("base RTT {PATH_RTT_US} us: {total:.2} Gb/s of {CEILING:.2}, Jain {jain:.4}, {g:?}, queue {q:.2} us (target {TARGET_US})");
    assert!(total > 0.99 * CEILING && total <= CEILING * 1.0001, "{total} Gb/s");
    assert!(jain > 0.98, "Jain {jain}");
    assert!((q / TARGET_US - 1.0).abs() < 0.1, "queue delay {q} us, target {TARGET_US} us");
}

/// Learned under load (the scenario: each flow lowers the configured 9.35 us to the
/// smallest RTT it sees), a flow whose first packets queued behind the others keeps a
/// base RTT too high, sees less delay than the rest and holds a larger share: NSCC's
/// increase vanishes at the target and nothing pulls the shares together.
#[test]
fn with_base_rtts_learned_under_load_the_shares_stay_apart() {
    let (g, jain, q) = long(&[]);
    let total: f64 = g.iter().sum();
    let top = g.iter().cloned().fold(0.0, f64::max);
    println!("learned base RTT: {total:.2} Gb/s, Jain {jain:.4}, {g:?}, queue {q:.2} us");
    assert!(total > 0.99 * CEILING, "{total} Gb/s");
    assert!(top > 2.0 * CEILING / 8.0, "largest share {top} Gb/s");
}

#[test]
fn a_flow_alone_reaches_the_line_rate() {
    let (g, _, q) = long(&["traffic[0].senders=[\"h1\"]"]);
    println!("one flow: {:.2} Gb/s of {CEILING:.2}, queue {q:.3} us", g[0]);
    assert!(g[0] > 0.99 * CEILING, "{} Gb/s", g[0]);
}

/// The same incast in the UEC htsim model (htsim_uec, docs/models/uet.md has the source,
/// commit and command line), seeds 1, 2, 3, 4, 5 and 13: each run's last and mean FCT
/// (us), as it printed them (`data/published/htsim_uec_nscc_incast.csv`).
fn htsim(col: &str) -> Vec<f64> {
    common::published("htsim_uec_nscc_incast").iter().map(|r| common::field(r, col)).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
}

/// Over six seeds each: the last FCT (the port's busy time, the throughput) within 1 %
/// of htsim's, the mean FCT (how the flows share the port) within 5 %.
#[test]
fn the_incast_matches_htsim_within_the_stated_tolerance() {
    let (mut last, mut mean) = (Vec::new(), Vec::new());
    for seed in 1..=6 {
        let r = run(&[&format!("simulation.seed={seed}")]);
        let us: Vec<f64> = col_i64(&r, "flows", "fct_ps").iter().map(|&f| f as f64 / 1e6).collect();
        last.push(us.iter().cloned().fold(0.0, f64::max));
        mean.push(us.iter().sum::<f64>() / us.len() as f64);
    }
    let (dl, hl) = (median(last.clone()), median(htsim("last_fct_us")));
    let (dm, hm) = (mean.iter().sum::<f64>() / 6.0, htsim("mean_fct_us").iter().sum::<f64>() / 6.0);
    println!("last FCT median {dl:.2} us (htsim {hl:.2}), runs {last:?}; mean FCT {dm:.1} us (htsim {hm:.1}), runs {mean:?}");
    assert!((dl / hl - 1.0).abs() < 0.01, "last FCT {dl} us, htsim {hl} us");
    assert!((dm / hm - 1.0).abs() < 0.05, "mean FCT {dm} us, htsim {hm} us");
}
