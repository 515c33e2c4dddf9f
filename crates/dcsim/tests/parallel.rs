//! The parallel engine (`simulation.threads`) gives the results of one thread, bit for
//! bit: every table and the summary (`Results::digest`, which leaves out the engine's
//! memory figures), the number of events and of link crossings, on fabrics it splits
//! into two, three and four partitions, driven in chunks as the Python runner drives it.

use std::path::Path;

use dcsim::units::SimTime;

mod common;

fn run(file: &str, overrides: &[&str], threads: u32) -> (String, u64, u64, Vec<String>) {
    let mut o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    o.push(format!("simulation.threads={threads}"));
    common::run_file(file, &o, |_| {})
}

fn same_as_one_thread(file: &str, overrides: &[&str]) -> (String, u64, u64, Vec<String>) {
    let one = run(file, overrides, 1);
    eprintln!("{file} {overrides:?}: {one:?}");
    assert!(one.2 > 5_000, "{file}: too small a run to compare ({} link crossings)", one.2);
    for threads in [2, 3, 4] {
        let par = run(file, overrides, threads);
        assert_eq!(one, par, "{file} {overrides:?}: threads = {threads} differs from one thread");
    }
    one
}

/// UET across leaves: SACKs, trimmed headers, and RCCC's credit pacers (an event of the
/// receiving host) with the pull target riding in the frames' tag between partitions.
#[test]
fn uet_with_receiver_credits() {
    same_as_one_thread("scenarios/uet_incast_sprayed.toml", &["host.uet.rccc=true", "traffic[0].cc={type=\"none\"}"]);
    same_as_one_thread("scenarios/uet_incast_sprayed.toml", &["host.uet.rccc=true"]);
}

/// ECN thresholds changed during a run (`Simulation::set_ecn`, seed 004's
/// reconfiguration) reach the ports of every partition: the marks and results are
/// those of one thread, and differ from a run without the change.
#[test]
fn ecn_thresholds_changed_during_a_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let file = root.join("scenarios/hpcc_fat_tree_hadoop_dcqcn_30.toml");
    let run = |threads: u32, change: bool| {
        let o = ["simulation.duration=300us".to_string(), format!("simulation.threads={threads}")];
        let plan = dcsim::scenario::load_file(&file, &o).unwrap();
        let mut sim = dcsim::Simulation::new(&plan).unwrap();
        sim.run_until(SimTime::us(100));
        if change {
            sim.set_ecn(2_000, 4_000, 1.0, None).unwrap();
        }
        while sim.run_until(sim.end()) {}
        format!("{:016x}", sim.finish().digest())
    };
    let one = run(1, true);
    assert_ne!(one, run(1, false), "the change changes the run");
    for threads in [2, 3] {
        assert_eq!(run(threads, true), one, "threads = {threads}");
    }
}

#[test]
fn fat_tree_permutation_with_pfc() {
    let r = same_as_one_thread(
        "python/dcsim/benchmarks/fat_tree_k8_permutation.toml",
        &["simulation.duration=300us", "stats.sample_interval=20us", "stats.goodput_interval=50us", "stats.max_pfc_events=100000"],
    );
    // The logs the merge orders are there to compare.
    for t in ["samples", "goodput"] {
        assert!(r.3.iter().any(|x| x.starts_with(&format!("{t}: ")) && !x.ends_with(": 0")), "{t} empty: {:?}", r.3);
    }
}

/// Seed 001's field test: 7-to-1 incasts and a full mesh over four ToR groups, TCP
/// beside RoCE with DCQCN, PFC on the RoCE class.
#[test]
fn incast_with_pfc_across_tors() {
    same_as_one_thread("scenarios/seed001_field_test.toml", &["simulation.duration=400us", "stats.steady_start=0us"]);
}

/// The HPCC study's fat tree with FB_Hadoop flow sizes and DCQCN, ECN marking.
#[test]
fn cdf_workload_with_dcqcn() {
    same_as_one_thread("scenarios/hpcc_fat_tree_hadoop_dcqcn_30.toml", &["simulation.duration=300us", "stats.sample_interval=50us"]);
}

/// The deadlock detector reads pauses and queues of switches in different partitions;
/// with `deadlock_stop` the run ends where one thread's does.
#[test]
fn deadlocks_across_partitions() {
    same_as_one_thread("scenarios/deadlock_ring.toml", &[]);
    same_as_one_thread("scenarios/deadlock_ring.toml", &["switch.pfc.deadlock_stop=true", "stats.sample_interval=7us"]);
    // The loop runs each check at its own time, after the events up to it: a stopped
    // run ends at a multiple of the check period (20 us), with its samples up to it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = ["switch.pfc.deadlock_stop=true".to_string(), "stats.sample_interval=7us".to_string()];
    let plan = dcsim::scenario::load_file(&root.join("scenarios/deadlock_ring.toml"), &o).unwrap();
    let res = dcsim::sim::run(&plan).unwrap();
    let end = res.summary["duration_ps"].as_u64().unwrap();
    assert!(end > 0 && end.is_multiple_of(20_000_000) && end < 2_000_000_000, "stopped at {end} ps");
    let Some(dcsim::results::Column::U64(t)) = res.table("samples").unwrap().get("time_ps") else { panic!("samples") };
    assert!(*t.iter().max().unwrap() <= end && *t.iter().max().unwrap() + 7_000_000 > end);
}

/// Remote PFC (messages to the source's ToR across partitions), NetworkCC (switch
/// notifications with a rate), pause storms and slow receivers (NIC receive buffers).
#[test]
fn remote_pfc_network_cc_pause_storms_and_slow_receivers() {
    same_as_one_thread("scenarios/seed001_remote_pfc_on.toml", &[]);
    same_as_one_thread(
        "scenarios/seed001_field_test.toml",
        &["simulation.duration=400us", "stats.steady_start=0us", "switch.remote_pfc.enabled=true"],
    );
    same_as_one_thread("scenarios/seed004_network_cc_switch.toml", &[]);
    same_as_one_thread("scenarios/pause_storm.toml", &[]);
    same_as_one_thread("scenarios/slow_receiver.toml", &[]);
}

/// 802.1Qau congestion points (QCN, BCN: per-queue state and draws, feedback frames to
/// the sources) on the k = 8 fat tree.
#[test]
fn qcn_and_bcn_on_a_fat_tree() {
    for cc in ["qcn", "bcn"] {
        let (l2, rp) = (format!("switch.l2cm.type={cc}"), format!("host.cc.type={cc}"));
        same_as_one_thread("python/dcsim/benchmarks/fat_tree_k8_permutation.toml", &["simulation.duration=300us", &l2, &rp]);
    }
}

/// The PFC watchdog's polls restore queues, which then send: rounds start no later than
/// the next poll. Beside a pause storm, on the deadlock ring, on the k = 8 fat tree.
#[test]
fn pfc_watchdog() {
    let w = "switch.pfc.watchdog.detection_time=100us";
    same_as_one_thread("scenarios/pause_storm.toml", &[w]);
    same_as_one_thread("scenarios/slow_receiver.toml", &[w]);
    same_as_one_thread("scenarios/deadlock_ring.toml", &["switch.pfc.watchdog.detection_time=50us"]);
    same_as_one_thread(
        "python/dcsim/benchmarks/fat_tree_k8_permutation.toml",
        &["simulation.duration=300us", "switch.pfc.watchdog.detection_time=5us"],
    );
}

/// Every shipped scenario the parallel engine runs gives, on 2 threads, the digest and
/// event count that `golden.rs` records for one thread; the others are refused by name.
/// (3 threads on the scenarios above: on a 2-core machine they take turns on the cores.)
#[test]
fn every_shipped_scenario_matches_its_one_thread_golden_digest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let golden = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/digests.txt")).unwrap();
    let (mut ran, mut refused, mut wrong) = (0, 0, Vec::new());
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        let (file, digest, events) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let plan = match dcsim::scenario::load_file(&root.join(file), &["simulation.threads=2".to_string()]) {
            Ok(p) => p,
            Err(e) => {
                assert!(e.to_string().starts_with("simulation.threads: the parallel engine does not run"), "{file}: {e}");
                refused += 1;
                continue;
            }
        };
        let mut sim = dcsim::Simulation::new(&plan).unwrap();
        while sim.run_until(sim.end()) {}
        let n = sim.events();
        let got = format!("{:016x}", sim.finish().digest());
        if got != digest || n.to_string() != events {
            wrong.push(format!("{file}: digest {got} events {n} on 2 threads, {digest} events {events} on one"));
        }
        ran += 1;
    }
    assert!(ran >= 45 && refused <= 8, "{ran} runs, {refused} refused");
    assert!(wrong.is_empty(), "differs from one thread:\n{}", wrong.join("\n"));
}

#[test]
fn what_the_parallel_engine_does_not_run_is_refused_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (file, key) in [
        ("scenarios/seed002_fecn.toml", "switch.l2cm"),
        ("scenarios/link_failure_fat_tree.toml", "switch.link_failures"),
        ("scenarios/seed004_storage_oltp.toml", "storage traffic"),
        ("scenarios/seed000_parking_lot_ib_credits.toml", "ib_credits"),
    ] {
        let e = dcsim::scenario::load_file(&root.join(file), &["simulation.threads=2".to_string()]).unwrap_err().to_string();
        assert!(e.contains("simulation.threads") && e.contains(key), "{file}: {e}");
    }
    let e =
        dcsim::scenario::load_file(&root.join("scenarios/dcqcn_2to1.toml"), &["simulation.threads=0".to_string()]).unwrap_err().to_string();
    assert!(e.contains("simulation.threads") && e.contains("between 1 and"), "{e}");
    // No lookahead: a link between partitions without delay. One thread runs it.
    let file = root.join("python/dcsim/benchmarks/fat_tree_k8_permutation.toml");
    let zero = |threads: u32| {
        let o = ["topology.delay=\"0ns\"".to_string(), format!("simulation.threads={threads}")];
        dcsim::Simulation::new(&dcsim::scenario::load_file(&file, &o).unwrap())
    };
    let e = zero(2).err().expect("threads = 2 without link delay is refused").to_string();
    assert!(e.contains("simulation.threads") && e.contains("no delay"), "{e}");
    assert!(zero(1).is_ok());
}

/// Logs cut at their limits keep the same rows as one thread's: the first in each log's
/// order (`CappedLog`), whatever order a partition's rows come in (a goodput bin is written
/// when the flow's next packet arrives, a congestion interval when it ends; rows of one
/// picosecond are served in another order). Each run cuts the logs it names.
#[test]
fn logs_cut_at_their_limits_keep_the_same_rows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (file, sets, cut) in [
        (
            "scenarios/hpcc_fat_tree_hadoop_dcqcn_30.toml",
            &["simulation.duration=300us", "stats.sample_interval=5us", "stats.goodput_interval=5us", "stats.max_rows=12"][..],
            &["samples_not_kept", "goodput_bins_not_kept", "rate_changes_not_kept", "congestion_intervals_not_kept"][..],
        ),
        (
            "scenarios/seed001_remote_pfc.toml",
            &["stats.max_pfc_events=100", "stats.goodput_interval=20us", "stats.max_rows=500"],
            &["pfc_events_not_logged", "goodput_bins_not_kept"],
        ),
    ] {
        let o: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let res = dcsim::sim::run(&dcsim::scenario::load_file(&root.join(file), &o).unwrap()).unwrap();
        for key in cut {
            assert!(res.summary["outputs"][key].as_u64().unwrap() > 0, "{file}: {key} is 0: {}", res.summary["outputs"]);
        }
        same_as_one_thread(file, sets);
    }
}

/// perftest's software rate limiter: its burst deadlines are events of the sending host.
#[test]
fn software_rate_limited_streams() {
    same_as_one_thread(
        "scenarios/seed004_network_cc_nic.toml",
        &["simulation.duration=6ms", "traffic[0].rate=\"4Gbps\"", "traffic[0].rate_limiter=\"sw\"", "traffic[0].tx_depth=16"],
    );
}
