//! The Ultra Ethernet transport in the world (`scenarios/uet_incast_sprayed.toml`,
//! docs/models/uet.md): an 8-to-1 incast across a sprayed, trimming two-tier fabric,
//! with NSCC and with receiver credits (RCCC), side by side with htsim's UEC model; a
//! scenario that says only `transport = "uet"`; the keys' errors and warnings. (The
//! scoreboard, credits and pacer are unit-tested in `models/uet`.)

mod common;
use common::col_i64;

use std::path::Path;

use dcsim::results::Results;

const SCENARIO: &str = "../../scenarios/uet_incast_sprayed.toml";
/// RCCC alone, as htsim's `-receiver_cc_only`.
const RCCC: [&str; 2] = ["host.uet.rccc=true", "traffic[0].cc={type=\"none\"}"];

fn run(extra: &[&str]) -> Results {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let ov: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&file, &ov).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    r
}

/// Sorted FCTs in us (every flow finished).
fn fcts(r: &Results) -> Vec<f64> {
    let mut us: Vec<f64> = col_i64(r, "flows", "fct_ps").iter().map(|&f| f as f64 / 1e6).collect();
    assert!(us.iter().all(|&f| f > 0.0), "every flow finishes: {us:?}");
    us.sort_by(f64::total_cmp);
    us
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Over six seeds: (median last FCT, mean of the seeds' mean FCTs, mean trims).
fn six_seeds(extra: &[&str]) -> (f64, f64, f64) {
    let (mut last, mut means, mut trims) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 1..=6 {
        let s = format!("simulation.seed={seed}");
        let mut ov = vec![s.as_str()];
        ov.extend_from_slice(extra);
        let r = run(&ov);
        let us = fcts(&r);
        println!("{extra:?} seed {seed}: FCTs {us:?} trimming {}", r.summary["trimming"]);
        assert_eq!(r.summary["trimming"]["headers_dropped"], 0);
        last.push(us[7]);
        means.push(mean(&us));
        trims.push(r.summary["trimming"]["trimmed"].as_u64().unwrap() as f64);
    }
    (median(&mut last), mean(&means), mean(&trims))
}

/// htsim_uec (commit 40ccb05) on the same incast, `-tiers 2 -linkspeed 100000
/// -load_balancing_algo oblivious -end 5000`, seeds 1, 2, 3, 4, 5, 13
/// (docs/models/uet.md): (median last FCT, mean of the mean FCTs, mean trims).
const HTSIM_NSCC: (f64, f64, f64) = (1330.845, 1215.58, 289.33);
const HTSIM_RCCC: (f64, f64, f64) = (1315.27, 1311.79, 208.5);

/// The port's busy time: 8 x (489 frames of 4150 B and one of 1946 + 64 B) at 100 Gb/s.
const PORT_US: f64 = 8.0 * (489.0 * 4150.0 + 2010.0) * 8.0 / 100e9 * 1e6;

#[test]
fn nscc_over_sprayed_entropy_matches_htsim_within_the_stated_tolerance() {
    let (last, mean_fct, trims) = six_seeds(&[]);
    let (h_last, h_mean, h_trims) = HTSIM_NSCC;
    println!("NSCC: last {last:.2} (htsim {h_last}), mean {mean_fct:.2} ({h_mean}), trims {trims:.1} ({h_trims})");
    assert!(last > PORT_US, "no faster than the port");
    assert!((last / h_last - 1.0).abs() < 0.02, "median last FCT {last} us against htsim's {h_last} us");
    assert!((mean_fct / h_mean - 1.0).abs() < 0.05, "mean FCT {mean_fct} us against htsim's {h_mean} us");
    assert!((trims / h_trims - 1.0).abs() < 0.10, "{trims} trims against htsim's {h_trims}");
}

#[test]
fn rccc_matches_htsim_within_the_stated_tolerance() {
    let (last, mean_fct, trims) = six_seeds(&RCCC);
    let (h_last, h_mean, h_trims) = HTSIM_RCCC;
    println!("RCCC: last {last:.2} (htsim {h_last}), mean {mean_fct:.2} ({h_mean}), trims {trims:.1} ({h_trims})");
    // Credits at 0.99 of the line rate: the port is busy 1/0.99 of its frames' time.
    assert!(last > PORT_US / 0.99, "no faster than the credits allow");
    assert!((last / h_last - 1.0).abs() < 0.005, "median last FCT {last} us against htsim's {h_last} us");
    assert!((mean_fct / h_mean - 1.0).abs() < 0.01, "mean FCT {mean_fct} us against htsim's {h_mean} us");
    assert!((trims / h_trims - 1.0).abs() < 0.10, "{trims} trims against htsim's {h_trims}");
}

/// Credits are granted in turn: the flows share the port evenly and end together, and
/// only the unsolicited first windows (and their resends) were trimmed: nothing after
/// the first 100 us.
#[test]
fn rccc_shares_the_port_in_turn_and_trims_only_the_first_windows() {
    let mut ov = RCCC.to_vec();
    let us = fcts(&run(&ov));
    assert!(us[7] - us[0] < 0.02 * us[7], "the flows end together: {us:?}");
    ov.push("simulation.duration=\"100us\"");
    let early = run(&ov).summary["trimming"]["trimmed"].as_u64().unwrap();
    let r = run(&RCCC);
    let all = r.summary["trimming"]["trimmed"].as_u64().unwrap();
    assert_eq!(early, all, "every trim within 100 us");
    // Each flow spent at most its unsolicited window (and one frame) before credits.
    let u = &r.summary["uet"];
    assert!(u["unsolicited_bytes"].as_u64().unwrap() <= 8 * (175_284 + 4150), "{u}");
    assert_eq!(u["requests_to_send"], 0);
    // Without the unsolicited window nothing is trimmed, and the start costs a round trip.
    let mut ov = RCCC.to_vec();
    ov.push("host.uet.unsolicited=\"0B\"");
    let r = run(&ov);
    assert_eq!(r.summary["trimming"]["trimmed"], 0);
    assert_eq!(r.summary["uet"]["unsolicited_bytes"], 0);
    assert_eq!(r.summary["uet"]["requests_to_send"], 8, "one request to send per flow");
    assert!(fcts(&r)[7] > us[7]);
}

/// `transport = "uet"` alone: NSCC with its defaults, selective repeat, entropy.
#[test]
fn uet_alone_works() {
    let text = r#"
        name = "uet_alone"
        [simulation]
        duration = "2ms"
        [topology]
        type = "leaf_spine"
        leaves = 2
        spines = 2
        hosts_per_leaf = 4
        host_rate = "100Gbps"
        fabric_rate = "100Gbps"
        delay = "1us"
        [fabric.load_balancing]
        mode = "entropy"
        [[traffic]]
        type = "incast"
        senders = ["h4", "h5", "h6", "h7"]
        receiver = "h0"
        size = "1MB"
        transport = "uet"
    "#;
    let plan = dcsim::scenario::load_str(text, Path::new("."), &[]).unwrap();
    assert!(matches!(plan.ccs[plan.flows[0].cc as usize], dcsim::models::CcPlan::Nscc(_)), "NSCC by default");
    assert!(dcsim::scenario::validate::warnings(&plan).is_empty());
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    let us = fcts(&r);
    assert!(us[3] < 400.0, "4 MB through a 100 Gb/s port in {us:?} us");
    // ECMP on a fabric with a choice of paths: a warning naming the field.
    let ecmp = dcsim::scenario::load_str(text, Path::new("."), &["fabric.load_balancing.mode=\"ecmp\"".to_string()]).unwrap();
    let w = dcsim::scenario::validate::warnings(&ecmp);
    assert!(w.iter().any(|w| w.starts_with("fabric.load_balancing.mode: transport = \"uet\"")), "{w:?}");
    // A lossy priority without trimming: a drop waits for the timer.
    let lossy = dcsim::scenario::load_str(text, Path::new("."), &["switch.pfc.mode=\"off\"".to_string()]).unwrap();
    let w = dcsim::scenario::validate::warnings(&lossy);
    assert!(w.iter().any(|w| w.starts_with("traffic[0].priority: UET flows on lossy priority 3 without [fabric.trimming]")), "{w:?}");
}

#[test]
fn bad_keys_name_the_field() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let err = |ov: &[&str]| {
        let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
        dcsim::scenario::load_file(&file, &ov).unwrap_err().to_string()
    };
    assert!(err(&["host.uet.credit_rate=0"]).starts_with("host.uet.credit_rate: must be"));
    assert!(err(&["host.uet.credit_rate=1.5"]).starts_with("host.uet.credit_rate: must be"));
    assert!(err(&["host.uet.credit_packets=0"]).starts_with("host.uet.credit_packets: must be"));
    assert!(err(&["host.uet.unsolicited=\"200KB\""]).starts_with("host.uet.unsolicited: must be at most max_credit"));
    assert!(err(&["host.uet.nonsense=1"]).contains("nonsense"));
    assert!(err(&["traffic[0].transport=\"quic\""]).starts_with("traffic[0].transport"));
}

/// A lossy fabric without trimming: UET NAKs no gap, so each drop waits for the timer
/// (the warning says so); `[host.uet] loss_threshold` resends a hole once packets
/// enough above it are SACKed.
#[test]
fn sack_threshold_recovers_drops_without_trimming() {
    let text = r#"
        name = "uet_lossy"
        [simulation]
        duration = "20ms"
        [host]
        rto = "100us"
        [switch]
        egress_limit = "100KB"
        [switch.pfc]
        mode = "off"
        lossless = []
        [topology]
        type = "star"
        hosts = 9
        rate = "100Gbps"
        delay = "1us"
        [[traffic]]
        type = "incast"
        senders = ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"]
        receiver = "h0"
        size = "1MB"
        transport = "uet"
    "#;
    let last = |ov: &[&str]| {
        let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
        let plan = dcsim::scenario::load_str(text, Path::new("."), &ov).unwrap();
        let r = dcsim::sim::run(&plan).unwrap();
        assert!(r.checks_passed(), "{:?}", r.failed_checks());
        println!("{ov:?}: {:?} drops {} {}", fcts(&r), r.summary["counters"]["drops_total"], r.summary["uet"]);
        (fcts(&r)[7], r.summary["uet"]["sack_resends"].as_u64().unwrap())
    };
    // The port's frames alone take 691 us (8 x 977 frames of 1106 B on the wire).
    let (timer, none) = last(&[]);
    assert_eq!(none, 0);
    let (sack, resent) = last(&["host.uet.loss_threshold=3"]);
    assert!(resent > 0);
    assert!(timer > 5_000.0, "one drop per timeout: {timer} us");
    assert!(sack < 2_000.0 && sack < timer / 5.0, "with SACK-driven resends {sack} us, with the timer alone {timer} us");
}
