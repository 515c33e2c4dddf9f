//! Seed 004, "fast congestion management" (NetworkCC): five ib_write_bw-style streams
//! into one receiver and ib_write_lat-style probes through the same port, with NIC CC
//! (ECN + DCQCN) and with NetworkCC (switch notifications carrying an RCP rate). The
//! figures and their comparison with the published ones are in docs/models/network_cc.md.

mod common;
use common::col_f64;

use std::path::Path;

use dcsim::results::Results;

fn run(name: &str, overrides: &[&str]) -> Results {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&file, &ov).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{name}: {:?}", r.failed_checks());
    assert_eq!(r.summary["counters"]["drops_total"], 0, "{name}: drops on the lossless class");
    r
}

/// (background goodput Gb/s, then per probe (mean, p99.9) in us).
fn figures(r: &Results) -> (f64, [(f64, f64); 2]) {
    let g = col_f64(r, "flows", "goodput_steady_gbps");
    let mean = col_f64(r, "flows", "message_latency_mean_ps");
    let p999 = col_f64(r, "flows", "message_latency_p999_ps");
    let bg: f64 = g[..5].iter().sum();
    (bg, [(mean[5] / 1e6, p999[5] / 1e6), (mean[6] / 1e6, p999[6] / 1e6)])
}

/// The DCQCN paper's ECN thresholds (the NIC CC file has Huawei CloudEngine's).
const PAPER: [&str; 3] = ["switch.ecn.kmin=\"5KB\"", "switch.ecn.kmax=\"200KB\"", "switch.ecn.pmax=0.01"];

/// The shipped files at the seed's 80 % load, clause by clause (docs/models/network_cc.md):
/// NIC CC with Huawei's thresholds (Kmin 7 KB, Kmax 200 KB, Pmax 10 %).
#[test]
fn network_cc_cuts_the_probe_tail_at_80_percent_load() {
    let nic = run("seed004_network_cc_nic.toml", &[]);
    let sw = run("seed004_network_cc_switch.toml", &[]);
    let (bg_n, pn) = figures(&nic);
    let (bg_s, ps) = figures(&sw);
    println!(
        "NIC CC:     background {bg_n:.2} Gb/s, 8B mean {:.2} p99.9 {:.2} us, 8KB mean {:.2} p99.9 {:.2} us",
        pn[0].0, pn[0].1, pn[1].0, pn[1].1
    );
    println!(
        "NetworkCC:  background {bg_s:.2} Gb/s, 8B mean {:.2} p99.9 {:.2} us, 8KB mean {:.2} p99.9 {:.2} us",
        ps[0].0, ps[0].1, ps[1].0, ps[1].1
    );
    println!("notifications sent: {}", sw.summary["network_cc"]["notifications_sent"]);
    assert!(sw.summary["network_cc"]["notifications_sent"].as_u64().unwrap() > 0);
    assert!(nic.summary.get("network_cc").is_none());
    // The tail of both probes is clearly lower with NetworkCC (seed: 60 % and 34.7 %
    // lower; measured about 49 % and 25 %).
    assert!(ps[0].1 < 0.6 * pn[0].1, "8 B: p99.9 {} vs {} us", ps[0].1, pn[0].1);
    assert!(ps[1].1 < 0.85 * pn[1].1, "8 KB: p99.9 {} vs {} us", ps[1].1, pn[1].1);
    // NetworkCC's tail within twice its mean for both probes (the seed's stability claim).
    for (k, (mean, p999)) in ps.iter().enumerate() {
        assert!(*p999 < 2.0 * mean, "probe {k}: p99.9 {p999} vs mean {mean} us");
    }
    // 8 KB averages similar (seed +5.4 %); the 8 B average is not (NIC CC's standing
    // queue at Kmin 7 KB about doubles the round trip: documented as not reproduced).
    assert!((ps[1].0 / pn[1].0 - 1.0).abs() < 0.1, "8 KB mean {} vs {} us", ps[1].0, pn[1].0);
    assert!(ps[0].0 < 0.6 * pn[0].0, "8 B mean {} vs {} us", ps[0].0, pn[0].0);
    // Average bandwidth similar: the background within 5 % (RCP gives the 8 KB probe an
    // equal share and keeps the queue near empty).
    assert!(bg_s > 0.95 * bg_n && bg_s < bg_n, "background {bg_s} vs {bg_n} Gb/s");
}

#[test]
fn rate_trigger_tells_every_limited_flow_and_holds_the_queue_shorter_than_lower_only() {
    // The explicit-rate.md EXPLICIT_RATE variant (queue trigger, RC = min(RC, rate)).
    let lower = run("seed004_network_cc_switch.toml", &["switch.network_cc.trigger=\"queue\"", "host.cc.reaction=\"lower\""]);
    let follow = run("seed004_network_cc_switch.toml", &[]);
    let sent = |r: &Results| r.summary["network_cc"]["notifications_sent"].as_u64().unwrap();
    // With the rate trigger each of the 7 flows hears the port's rate about once per
    // 50 us interval of the 35 ms it is limited (at most 7 x 700 + the start); the queue
    // trigger notifies only when a frame finds the queue above 5 KB.
    println!("notifications: queue trigger {}, rate trigger {}", sent(&lower), sent(&follow));
    assert!(sent(&follow) > 10 * sent(&lower) && sent(&follow) <= 7 * 800, "{} vs {}", sent(&follow), sent(&lower));
    // Lower only: a stream recovers by DCQCN's increase past the port's rate until its
    // frames find the queue above 5 KB again; following the rate holds it at R, so the
    // 8 B probe (one frame, no pacing to speak of) meets a shorter queue at the tail.
    let (bg_l, pl) = figures(&lower);
    let (bg_f, pf) = figures(&follow);
    println!("lower only: background {bg_l:.2} Gb/s, 8B p99.9 {:.2} us; follow: {bg_f:.2} Gb/s, {:.2} us", pl[0].1, pf[0].1);
    assert!(pf[0].1 < 0.7 * pl[0].1, "8 B p99.9: follow {} vs lower {} us", pf[0].1, pl[0].1);
}

/// The 8 KB probe is a sixth sender into the bottleneck: with NIC CC (the DCQCN paper's
/// marking) it keeps a standing queue there that the 8 B probe waits behind, so the 8 B
/// probe alone (the 8 KB probe held back past the end, as one ib_write_lat run per size
/// would be) sees a much lower average; with NetworkCC the queue is short either way and
/// the 8 B average is the round trip with or without it (docs/models/network_cc.md, "One
/// probe per run").
#[test]
fn the_8_kb_probe_holds_nic_ccs_queue_up_for_the_8_b_probe() {
    let alone = ["traffic[2].start=\"40ms\""];
    let avg_8b = |name: &str, ov: &[&str]| figures(&run(name, ov)).1[0].0;
    let alone_paper: Vec<&str> = alone.iter().chain(PAPER.iter()).copied().collect();
    let (nic_both, nic_alone) = (avg_8b("seed004_network_cc_nic.toml", &PAPER), avg_8b("seed004_network_cc_nic.toml", &alone_paper));
    let (sw_both, sw_alone) = (avg_8b("seed004_network_cc_switch.toml", &[]), avg_8b("seed004_network_cc_switch.toml", &alone));
    println!("8 B average: NIC CC {nic_both:.2} us with the 8 KB probe, {nic_alone:.2} alone; NetworkCC {sw_both:.2}, {sw_alone:.2}");
    assert!(nic_alone < 0.6 * nic_both, "NIC CC: {nic_alone} alone vs {nic_both} us");
    assert!((sw_alone / sw_both - 1.0).abs() < 0.15, "NetworkCC: {sw_alone} alone vs {sw_both} us");
}

/// One probe per run, as perftest's ib_write_lat measures (the other probe started past
/// the end): NetworkCC's tail stays within twice its average for both probes (the seed's
/// stability claim), NIC CC's 8 B tail (with the DCQCN paper's thresholds) is several
/// times its average, and NetworkCC's tails are clearly
/// lower (docs/models/network_cc.md, "One probe per run, shipped reading").
#[test]
fn with_one_probe_per_run_network_ccs_tail_stays_within_twice_its_average() {
    for (k, held_back) in [(0, "traffic[2].start=\"40ms\""), (1, "traffic[1].start=\"40ms\"")] {
        let (_, pn) = figures(&run("seed004_network_cc_nic.toml", &[held_back, PAPER[0], PAPER[1], PAPER[2]]));
        let (_, ps) = figures(&run("seed004_network_cc_switch.toml", &[held_back]));
        let ((nic_avg, nic_p999), (sw_avg, sw_p999)) = (pn[k], ps[k]);
        println!("probe {k} alone: NIC CC avg {nic_avg:.2} p99.9 {nic_p999:.2} us; NetworkCC avg {sw_avg:.2} p99.9 {sw_p999:.2} us");
        assert!(sw_p999 < 2.0 * sw_avg, "probe {k}: NetworkCC p99.9 {sw_p999} vs avg {sw_avg} us");
        assert!(sw_p999 < 0.5 * nic_p999, "probe {k}: p99.9 {sw_p999} vs NIC CC's {nic_p999} us");
        if k == 0 {
            assert!(nic_p999 > 3.0 * nic_avg, "8 B: NIC CC p99.9 {nic_p999} vs avg {nic_avg} us");
        }
    }
}

/// A stream's `rate` is its NIC's rate limiter: the congestion control's rate never lifts
/// the stream above it (DCQCN recovers to the line rate, NetworkCC's `follow` takes a
/// notified rate up to it), and a cut to a rate above the limit must not lift it either.
/// Five streams of 4 Gb/s and the probes load the port to about its ceiling, so both
/// CCs change the streams' rates.
#[test]
fn a_paced_stream_never_exceeds_its_rate_whatever_its_cc_rate() {
    for name in ["seed004_network_cc_nic.toml", "seed004_network_cc_switch.toml"] {
        let r = run(name, &["traffic[0].rate=\"4Gbps\""]);
        let cap = 4.0 * 1024.0 / 1106.0; // payload of a 1024 B packet in a 1106 B frame
        for (i, &g) in col_f64(&r, "flows", "goodput_steady_gbps")[..5].iter().enumerate() {
            assert!(g <= cap * 1.0001, "{name}: stream {i} at {g:.3} Gb/s, above its 4 Gb/s limit ({cap:.3} of payload)");
            assert!(g > 0.5 * cap, "{name}: stream {i} at {g:.3} Gb/s");
        }
        let cut = col_f64(&r, "flows", "min_rate_gbps")[..5].iter().cloned().fold(f64::MAX, f64::min);
        assert!(cut < 20.0, "{name}: the CC never changed a stream's rate ({cut} Gb/s)");
    }
}

fn load_err(name: &str, overrides: &[&str]) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match dcsim::scenario::load_file(&file, &ov) {
        Ok(_) => panic!("{overrides:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_input_names_the_field() {
    let sw = "seed004_network_cc_switch.toml";
    // NetworkCC on a lossy priority without a rule.
    let e = load_err(sw, &["switch.network_cc.priorities=[3, 5]"]);
    assert!(e.starts_with("switch.network_cc.priorities:") && e.contains("priority 5 is lossy"), "{e}");
    // ... is accepted once the rule is named.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(sw);
    dcsim::scenario::load_file(&file, &["switch.network_cc.priorities=[3, 5]".into(), "switch.network_cc.rule=\"rcp\"".into()]).unwrap();
    // The rate trigger without a rate to compare.
    let e = load_err(sw, &["switch.network_cc.rule=\"cnp\"", "switch.network_cc.trigger=\"rate\""]);
    assert!(e.starts_with("switch.network_cc.trigger:") && e.contains("rule = \"rcp\""), "{e}");
    // A network_cc flow on a priority no switch serves.
    let e = load_err(sw, &["switch.network_cc.priorities=[4]", "switch.pfc.lossless=[3, 4]"]);
    assert!(e.starts_with("host.cc:") && e.contains("priority 3"), "{e}");
    let e = load_err("seed004_network_cc_nic.toml", &["traffic[1].cc={type=\"network_cc\"}"]);
    assert!(e.starts_with("traffic[1].cc:"), "{e}");
    // Unknown switch, bad parameters, unknown keys.
    let e = load_err(sw, &["switch.network_cc.switches=[\"h0\"]"]);
    assert!(e.starts_with("switch.network_cc.switches[0]:"), "{e}");
    for (ov, path) in [
        ("switch.network_cc.alpha=0", "switch.network_cc.alpha:"),
        ("switch.network_cc.beta=-1", "switch.network_cc.beta:"),
        ("switch.network_cc.threshold=\"0B\"", "switch.network_cc.threshold:"),
        ("switch.network_cc.size=\"10B\"", "switch.network_cc.size:"),
        ("switch.network_cc.rtt=\"0us\"", "switch.network_cc.rtt:"),
        ("switch.network_cc.priorities=[]", "switch.network_cc.priorities:"),
        ("switch.network_cc.priorities=[9]", "switch.network_cc.priorities[0]:"),
        ("switch.network_cc.rule=\"fast\"", "switch.network_cc.rule"),
        ("switch.network_cc.trigger=\"always\"", "switch.network_cc.trigger"),
        ("host.cc.reaction=\"raise\"", "host.cc.reaction"),
        ("switch.network_cc.thresold=\"5KB\"", "switch.network_cc"),
        ("host.cc.dcqcn={g=2.0}", "host.cc.dcqcn.g:"),
        ("traffic[1].iters=0", "traffic[1].iters:"),
        ("traffic[1].size=\"inf\"", "traffic[1].size:"),
        ("traffic[0].senders=[\"h0\"]", "traffic[0].senders[0]:"),
    ] {
        let e = load_err(sw, &[ov]);
        assert!(e.starts_with(path), "{ov}: {e}");
    }
}
