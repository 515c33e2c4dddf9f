//! Storage I/O traffic (`type = "storage"`, seed 004's scenes) and ECN thresholds
//! changed during a run (`Simulation::set_ecn`, seed 004's reconfiguration phase).

mod common;
use common::col_u64;

use std::path::Path;

use dcsim::results::Results;
use dcsim::{SimTime, Simulation};

fn plan(sets: &[&str]) -> dcsim::Plan {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed004_storage_oltp.toml");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_file(&file, &sets).unwrap()
}

fn finish(sim: Simulation) -> Results {
    let r = sim.finish();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    r
}

#[test]
fn closed_loop_keeps_concurrency_outstanding() {
    let p = plan(&["traffic[0].concurrency=6", "simulation.duration=\"1ms\""]);
    let mut sim = Simulation::new(&p).unwrap();
    // Every slot has an I/O in progress at any time: 8 clients x 6.
    for k in 1..=20u64 {
        sim.run_until(SimTime::us(k * 47));
        assert_eq!(sim.ios_in_progress(), 48, "at {} us", k * 47);
    }
    while sim.run_until(sim.end()) {}
    let r = finish(sim);
    let st = &r.summary["storage"];
    assert_eq!(st["outstanding"], 48);
    assert!(st["ios"].as_u64().unwrap() > 300, "{st}");
}

#[test]
fn read_share_iops_and_kpi_rows_add_up() {
    // Long enough that the window's edges (I/Os straddling them) weigh little.
    let p = plan(&["traffic[0].read_fraction=0.3", "simulation.duration=\"15ms\"", "stats.steady_start=\"2ms\""]);
    let r = dcsim::sim::run(&p).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let st = &r.summary["storage"];
    let (reads, writes) = (st["reads"].as_u64().unwrap(), st["writes"].as_u64().unwrap());
    let n = reads + writes;
    assert_eq!(n, st["ios"].as_u64().unwrap());
    // The read share within four standard deviations of the binomial.
    let share = reads as f64 / n as f64;
    let sd = (0.3 * 0.7 / n as f64).sqrt();
    assert!((share - 0.3).abs() < 4.0 * sd, "read share {share} over {n} I/Os");
    // IOPS = completions in the steady window / its length; and by Little's law
    // (outstanding I/Os = IOPS x mean latency) within 5 %: 8 clients x 32 slots.
    let secs = (p.duration - p.stats.steady_start).as_secs_f64();
    let steady = st["ios_steady"].as_u64().unwrap();
    assert!(steady < n && steady > n * 8 / 10);
    assert!((st["iops"].as_f64().unwrap() - steady as f64 / secs).abs() < 1e-6);
    let little = st["iops"].as_f64().unwrap() * st["latency_mean_ps"].as_f64().unwrap() * 1e-12;
    assert!((little / 256.0 - 1.0).abs() < 0.05, "IOPS x latency = {little}");
    // The per-interval rows count every completion once (the run ends on a row).
    let ios = col_u64(&r, "io", "ios");
    assert_eq!(ios.len(), 150);
    assert_eq!(ios.iter().sum::<u64>(), n);
    let per_client: u64 = st["clients"].as_array().unwrap().iter().map(|c| c["ios"].as_u64().unwrap()).sum();
    assert_eq!(per_client, n);
    let per_client: f64 = st["clients"].as_array().unwrap().iter().map(|c| c["iops"].as_f64().unwrap()).sum();
    assert!((per_client / st["iops"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    // Blocks are powers of two from 8 KiB to 64 KiB: the bytes moved lie in that range.
    let bytes = st["read_bytes"].as_u64().unwrap() + st["write_bytes"].as_u64().unwrap();
    assert!(bytes >= n * 8192 && bytes <= n * 65536);
    assert!(st["latency_p99_ps"].as_u64().unwrap() as f64 >= st["latency_mean_ps"].as_f64().unwrap());
}

#[test]
fn a_stopped_workload_issues_no_io_after_its_stop() {
    let p = plan(&["simulation.duration=\"4ms\"", "traffic[0].stop=\"1ms\""]);
    let mut sim = Simulation::new(&p).unwrap();
    sim.run_until(SimTime::us(990));
    let mut busy = sim.ios_in_progress();
    assert_eq!(busy, 8 * 32);
    // From the stop on the outstanding I/Os complete and none is issued.
    for k in 1..=30u64 {
        sim.run_until(SimTime::us(1000 + 100 * k));
        let now = sim.ios_in_progress();
        assert!(now <= busy, "{now} I/Os in progress after {busy}");
        busy = now;
    }
    assert_eq!(busy, 0);
    let r = finish(sim);
    let ios = col_u64(&r, "io", "ios");
    assert!(ios[..10].iter().all(|&n| n > 0) && ios[35..].iter().all(|&n| n == 0), "{ios:?}");
}

#[test]
fn reads_and_writes_queue_at_opposite_uplinks() {
    // Reads queue where the servers' blocks enter leaf1's uplink, writes where the
    // clients' blocks enter leaf0's: each marks there and not at the other end.
    let marks_at = |rf: &str| {
        let r = dcsim::sim::run(&plan(&[&format!("traffic[0].read_fraction={rf}")])).unwrap();
        let (node, marked) = (col_u64(&r, "ports", "node_id"), col_u64(&r, "ports", "ecn_marked"));
        // Nodes: c0..c7 = 0..7, s0 s1 = 8 9, leaf0 = 10, leaf1 = 11.
        let at = |n: u64| node.iter().zip(marked).filter(|(k, _)| **k == n).map(|(_, m)| *m).sum::<u64>();
        (at(10), at(11))
    };
    let (w0, w1) = marks_at("0.0");
    let (r0, r1) = marks_at("1.0");
    assert!(w0 > 1000 && w1 < w0 / 10, "writes: leaf0 {w0}, leaf1 {w1}");
    assert!(r1 > 1000 && r0 < r1 / 10, "reads: leaf0 {r0}, leaf1 {r1}");
}

#[test]
fn ecn_thresholds_changed_during_a_run_change_the_marks() {
    let p = plan(&["traffic[0].read_fraction=0.0"]);
    let half = SimTime::us(1500);
    // The same run with its thresholds raised far above any queue at half time.
    let marks_after_half = |change: bool| {
        let mut sim = Simulation::new(&p).unwrap();
        sim.run_until(half);
        let before: u64 = sim.io_kpi().map(|k| k.ecn_marked).unwrap();
        if change {
            sim.set_ecn(10_000_000, 11_000_000, 0.01, None).unwrap();
            // The switches' 12 ports (9 on leaf0, 3 on leaf1) take them, no host port.
            let new = (0..1000).filter(|&q| sim.ecn_thresholds(q) == Some((10_000_000, 11_000_000, 0.01))).count();
            assert_eq!(new, 12);
        }
        sim.run_until(SimTime::us(1600));
        let first_after = sim.io_kpi().unwrap().ecn_marked;
        while sim.run_until(sim.end()) {}
        let r = finish(sim);
        (before, first_after, col_u64(&r, "io", "ecn_marked")[16..].iter().sum::<u64>())
    };
    let (b0, _, same) = marks_after_half(false);
    let (b1, _, raised) = marks_after_half(true);
    assert_eq!(b0, b1, "identical until the change");
    assert!(same > 100, "{same}");
    // Queued frames judged before the change may still carry marks; none after.
    assert!(raised < same / 20, "marks after the change: {raised} (unchanged run {same})");
}

#[test]
fn a_stepped_run_equals_a_plain_run() {
    let p = plan(&[]);
    let plain = dcsim::sim::run(&p).unwrap();
    let mut sim = Simulation::new(&p).unwrap();
    let mut t = 0;
    while sim.run_until(SimTime(t)) || t < p.duration.0 {
        t += 37_000_123;
        let _ = sim.io_kpi();
    }
    assert_eq!(finish(sim).digest(), plain.digest());
}

#[test]
fn bad_storage_entries_name_the_field() {
    let err = |sets: &[&str]| {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed004_storage_oltp.toml");
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        dcsim::scenario::load_file(&file, &sets).unwrap_err().to_string()
    };
    assert!(err(&["traffic[0].profile=\"oltp\""]).contains("traffic[0].profile: unknown profile 'oltp'"));
    assert!(err(&["traffic[0].read_fraction=1.5"]).contains("traffic[0].read_fraction: must be in [0, 1]"));
    assert!(err(&["traffic[0].concurrency=0"]).contains("traffic[0].concurrency: must be >= 1"));
    assert!(err(&["traffic[0].block_sizes=[\"64KiB\", \"8KiB\"]"]).contains("traffic[0].block_sizes[1]"));
    assert!(err(&["traffic[0].priority=5"]).contains("traffic[0].priority: storage I/O runs on a lossless priority"));
    assert!(err(&["traffic[0].server_count=3"]).contains("traffic[0].servers[0]: host 'c7' is also a client"));
    assert!(err(&["traffic[0].start=\"1ms\"", "traffic[0].stop=\"1ms\""]).contains("traffic[0].stop: must be after start"));
    let e = err(&["traffic[0].profile=\"nope\"", "traffic[0].bogus=1"]);
    assert!(e.contains("traffic[0].bogus") || e.contains("traffic[0]"), "{e}");
}

#[test]
fn set_ecn_rejects_bad_values() {
    let mut sim = Simulation::new(&plan(&[])).unwrap();
    assert!(sim.set_ecn(10, 5, 0.1, None).unwrap_err().to_string().contains("set_ecn.kmax"));
    assert!(sim.set_ecn(5, 10, 0.0, None).unwrap_err().to_string().contains("set_ecn.pmax"));
    assert!(sim.set_ecn(5, 10, 0.1, Some(&[999_999])).unwrap_err().to_string().contains("set_ecn.ports[0]"));
    let mut off = Simulation::new(&plan(&["switch.ecn.mode=\"off\""])).unwrap();
    assert!(off.set_ecn(5, 10, 0.1, None).unwrap_err().to_string().contains("switch.ecn.mode"));
}
