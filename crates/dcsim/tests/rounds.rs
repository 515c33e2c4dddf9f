//! Rounds served node by node (`event/rounds.rs`, the default where a run allows them)
//! give the results of serving every event in time order, bit for bit: every table and
//! the summary, the number of events and of link crossings, driven in chunks whose
//! stops fall inside rounds, with samples, logs and periodic checks cutting rounds short.

mod common;

fn run(file: &str, overrides: &[&str], rounds: bool) -> (String, u64, u64, Vec<String>) {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    common::run_file(file, &o, |sim| {
        assert!(sim.node_rounds().is_some(), "{file}: the run allows rounds");
        sim.set_node_rounds(rounds);
        assert_eq!(sim.node_rounds().is_some(), rounds);
    })
}

fn same_in_time_order(file: &str, overrides: &[&str]) {
    let rounds = run(file, overrides, true);
    eprintln!("{file} {overrides:?}: {rounds:?}");
    assert!(rounds.2 > 5_000, "{file}: too small a run to compare ({} link crossings)", rounds.2);
    assert_eq!(rounds, run(file, overrides, false), "{file} {overrides:?}: rounds differ from time order");
}

/// A fat tree with PFC, queue samples and goodput bins (rounds cut at each sample).
#[test]
fn fat_tree_permutation_with_pfc_and_samples() {
    same_in_time_order(
        "python/dcsim/benchmarks/fat_tree_k8_permutation.toml",
        &["simulation.duration=300us", "stats.sample_interval=7us", "stats.goodput_interval=50us", "stats.max_pfc_events=100000"],
    );
}

/// DCQCN with ECN on a CDF workload (its held-back quiet timers), HPCC with INT, TCP
/// beside RoCE (delayed ACKs, retransmission timers).
#[test]
fn congestion_control_of_every_kind() {
    same_in_time_order("scenarios/hpcc_fat_tree_hadoop_dcqcn_30.toml", &["simulation.duration=300us"]);
    same_in_time_order("scenarios/hpcc_fat_tree_hadoop_hpcc.toml", &["simulation.duration=300us"]);
    same_in_time_order("scenarios/seed001_field_test.toml", &["simulation.duration=400us", "stats.steady_start=0us"]);
    same_in_time_order("scenarios/tcp_newreno_bottleneck.toml", &[]);
}

/// Switch-side models that send to other nodes: remote PFC, NetworkCC, QCN and BCN.
#[test]
fn notifications_from_switches() {
    same_in_time_order("scenarios/seed001_remote_pfc_on.toml", &[]);
    same_in_time_order("scenarios/seed004_network_cc_switch.toml", &[]);
    for cc in ["qcn", "bcn"] {
        let (l2, rp) = (format!("switch.l2cm.type={cc}"), format!("host.cc.type={cc}"));
        same_in_time_order("python/dcsim/benchmarks/fat_tree_k8_permutation.toml", &["simulation.duration=300us", &l2, &rp]);
    }
}

/// Pathologies: a deadlock stopped by its check, pause storms and a slow receiver with
/// the PFC watchdog polling.
#[test]
fn deadlocks_storms_and_the_watchdog() {
    same_in_time_order("scenarios/deadlock_ring.toml", &["switch.pfc.deadlock_stop=true", "stats.sample_interval=7us"]);
    let w = "switch.pfc.watchdog.detection_time=100us";
    same_in_time_order("scenarios/pause_storm.toml", &[w]);
    same_in_time_order("scenarios/slow_receiver.toml", &[w]);
}

/// Runs whose events are not each one node's, or whose links have no delay, are served
/// in time order.
#[test]
fn runs_without_node_local_events_are_served_in_time_order() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rounds = |file: &str, sets: &[&str]| {
        let o: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        dcsim::Simulation::new(&dcsim::scenario::load_file(&root.join(file), &o).unwrap()).unwrap().node_rounds()
    };
    for file in [
        "scenarios/seed002_fecn.toml",
        "scenarios/link_failure_fat_tree.toml",
        "scenarios/seed004_storage_oltp.toml",
        "scenarios/seed000_parking_lot_ib_credits.toml",
    ] {
        assert_eq!(rounds(file, &[]), None, "{file}");
    }
    let k8 = "python/dcsim/benchmarks/fat_tree_k8_permutation.toml";
    assert_eq!(rounds(k8, &["topology.delay=\"0ns\""]), None);
    assert_eq!(rounds(k8, &["topology.delay=\"300ns\""]), Some(dcsim::SimTime::ns(300)));
}
