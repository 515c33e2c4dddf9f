//! HPCC in the world: the HPCC paper's 16-to-1 incast in one rack
//! (`scenarios/hpcc_incast_16to1.toml`). The ToR queue toward the receiver peaks in the
//! first RTT (16 senders at line rate), drains to near zero within about 100 us and stays
//! there, and the bottleneck carries about eta = 0.95 of its rate. (The algorithm's steps
//! are unit-tested in `models/hpcc`.)

use std::path::Path;

mod common;
use common::{col_f64, col_u64};

const US: u64 = 1_000_000;

struct Incast {
    peak: u64,
    peak_at: u64,
    /// First sample after the peak with the queue under 10 KB.
    drained_at: u64,
    /// Largest queue from 150 us to the end.
    after: u64,
    /// Bottleneck wire utilisation after steady_start.
    util: f64,
}

fn run(overrides: &[&str]) -> Incast {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/hpcc_incast_16to1.toml");
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&file, &ov).unwrap();
    let wire_per_payload = (plan.host.mtu + plan.host.header_bytes + 20) as f64 / plan.host.mtu as f64;
    let res = dcsim::sim::run(&plan).unwrap();
    let (t, port, q) = (col_u64(&res, "samples", "time_ps"), col_u64(&res, "samples", "port_id"), col_u64(&res, "samples", "egress_bytes"));
    let busiest = port[(0..q.len()).max_by_key(|&i| q[i]).unwrap()];
    let series: Vec<(u64, u64)> = (0..q.len()).filter(|&i| port[i] == busiest).map(|i| (t[i], q[i])).collect();
    let (peak_at, peak) = *series.iter().max_by_key(|s| s.1).unwrap();
    let drained_at = series.iter().find(|s| s.0 > peak_at && s.1 < 10_000).map_or(u64::MAX, |s| s.0);
    let after = series.iter().filter(|s| s.0 >= 150 * US).map(|s| s.1).max().unwrap();
    let goodput: f64 = col_f64(&res, "flows", "goodput_steady_gbps").iter().sum();
    Incast { peak, peak_at, drained_at, after, util: goodput * wire_per_payload / 100.0 }
}

#[test]
fn incast_queue_peaks_then_drains_within_100us_at_eta_utilisation() {
    let r = run(&[]);
    eprintln!(
        "peak {} B at {} us, under 10 KB at {} us, max after 150 us {} B, utilisation {:.4}",
        r.peak,
        r.peak_at / US,
        r.drained_at / US,
        r.after,
        r.util
    );
    // 16 senders at line rate for one base RTT (about 4.2 us, BDP about 52 KB each).
    assert!(r.peak > 500_000 && r.peak_at <= 20 * US, "peak {} B at {} us", r.peak, r.peak_at / US);
    // Draining 0.8 MB at 100 Gb/s takes at least 66 us; HPCC gets there within ~100 us.
    assert!(r.drained_at <= 120 * US, "drained at {} us", r.drained_at / US);
    assert!(r.after < 10_000, "queue stays low: {} B", r.after);
    assert!((r.util - 0.95).abs() < 0.03, "utilisation {:.4}", r.util);
}

/// ACKs queued with data (`host.ack_queue = "data"`, the HPCC study's switches) carry the
/// INT echo unchanged: the incast converges as with control-class ACKs.
#[test]
fn incast_converges_with_data_class_acks() {
    let r = run(&["host.ack_queue=data"]);
    assert!(r.drained_at <= 120 * US, "drained at {} us", r.drained_at / US);
    assert!(r.after < 10_000, "queue stays low: {} B", r.after);
    assert!((r.util - 0.95).abs() < 0.03, "utilisation {:.4}", r.util);
}

#[test]
fn eta_sets_the_utilisation() {
    let r = run(&["host.cc.eta=0.8", "simulation.duration=\"1500us\""]);
    eprintln!("eta 0.8: utilisation {:.4}, max queue after 150 us {} B", r.util, r.after);
    assert!((r.util - 0.8).abs() < 0.03, "utilisation {:.4}", r.util);
}

/// "+win" (the HPCC study's DCQCN+win): without ECN marking DCQCN never slows down and
/// the incast queue grows to the PFC limits; a one-BDP window per sender bounds it by
/// what 16 windows can put in flight.
#[test]
fn dcqcn_plus_win_bounds_the_incast_queue() {
    let base = ["host.cc={type=\"dcqcn\", variant=\"mellanox\"}", "simulation.duration=\"600us\""];
    let no_win = run(&base);
    let win = run(&[base[0].replace("}", ", window=\"bdp\"}").as_str(), base[1]]);
    eprintln!("dcqcn peak {} B, dcqcn+win peak {} B", no_win.peak, win.peak);
    // A window of 52 503 B of payload (100 Gb/s x the 4.2 us base RTT) holds 52 packets
    // of 1104 B frames: 16 of them can queue at most 918 528 B (less what the path holds).
    assert!(win.peak <= 16 * 52 * 1104, "dcqcn+win peak {} B", win.peak);
    assert!(no_win.peak > 2 * win.peak, "dcqcn peak {} B", no_win.peak);
}

#[test]
fn bad_keys_name_the_field() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/hpcc_incast_16to1.toml");
    let err = |ov: &[&str]| {
        let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
        dcsim::scenario::load_file(&file, &ov).unwrap_err().to_string()
    };
    assert!(err(&["host.cc.eta=1.2"]).contains("host.cc.eta: must be in (0, 1]"));
    assert!(err(&["host.cc.w_ai=\"80B\"", "host.cc.rate_ai=\"1Gbps\""]).contains("host.cc.w_ai: give either rate_ai or w_ai"));
    assert!(err(&["host.cc.rate_min=\"200Gbps\""]).contains("host.cc.rate_min: must be <="));
    assert!(err(&["host.cc={type=\"timely\", window=\"wide\"}"]).contains("host.cc.window: must be \"bdp\" or a size"));
    assert!(err(&["host.cc={type=\"dcqcn\", window=\"0B\"}"]).contains("host.cc.window: must be > 0"));
    assert!(err(&["traffic[0].transport=\"udp\""]).contains("traffic[0].transport: \"udp\" has no ACKs"));
    assert!(err(&["host.cc={type=\"dcqcn\", window=\"bdp\"}", "traffic[0].transport=\"udp\""]).contains("traffic[0].transport"));
}

/// The shipped HPCC scenarios run clean: no drops (PFC), every run invariant holds.
#[test]
fn hpcc_scenarios_run_clean() {
    for name in ["hpcc_incast_16to1", "hpcc_fat_tree_hadoop_hpcc"] {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/{name}.toml"));
        let res = dcsim::sim::run(&dcsim::scenario::load_file(&file, &[]).unwrap()).unwrap();
        assert!(res.checks_passed(), "{name}: {}", res.summary["checks"]);
        assert_eq!(res.summary["counters"]["drops_total"], 0, "{name}");
    }
}
