//! Lossless-fabric pathologies: the PFC deadlock of a ring with cyclic routes, found and
//! reported by the deadlock detector, and the remedies that avoid it.

mod common;
use common::*;
use dcsim::results::Column;
use dcsim::sim;
use std::path::Path;

fn ring(overrides: &[&str]) -> dcsim::Results {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/deadlock_ring.toml");
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&path, &o).unwrap();
    sim::run(&plan).unwrap()
}

fn strs<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> Vec<&'a str> {
    match r.table(table).unwrap().get(col).unwrap() {
        Column::Str(v) => v.iter().collect(),
        _ => panic!("{col} is not a string column"),
    }
}

/// Payload bytes delivered in goodput bins starting at or after `from_ps`.
fn delivered_after(r: &dcsim::Results, from_ps: u64) -> u64 {
    let t = col_u64(r, "goodput", "time_ps");
    let b = col_u64(r, "goodput", "bytes");
    t.iter().zip(b).filter(|(t, _)| **t >= from_ps).map(|(_, b)| *b).sum()
}

#[test]
fn a_ring_with_clockwise_routes_deadlocks_and_is_reported() {
    let r = ring(&[]);
    let n = r.summary["counters"]["deadlocks_detected"].as_u64().unwrap();
    assert_eq!(n, 1, "{}", r.summary);
    let sw = &strs(&r, "deadlocks", "switches")[0];
    let mut names: Vec<&str> = sw.split(' ').collect();
    names.sort();
    assert_eq!(names, ["s0", "s1", "s2", "s3"], "the cycle is the ring: {sw}");
    let ports = &strs(&r, "deadlocks", "ports")[0];
    for hop in ports.split(' ') {
        let (a, b) = hop.split_once("->").unwrap();
        let (i, j): (u32, u32) = (a[1..].parse().unwrap(), b[1..].parse().unwrap());
        assert_eq!(j, (i + 1) % 4, "each port of the cycle points clockwise: {ports}");
    }
    assert_eq!(strs(&r, "deadlocks", "flows")[0], "0 1 2 3");
    // Delivered bytes fall to zero and stay there.
    let t = col_u64(&r, "deadlocks", "time_ps")[0];
    assert_eq!(delivered_after(&r, t), 0, "traffic after the deadlock at {t} ps");
    assert_eq!(r.summary["counters"]["drops_total"], 0);
}

#[test]
fn without_one_flow_the_ring_does_not_deadlock() {
    let r = ring(&["traffic[0].flows=[{src=\"h0\",dst=\"h2\"},{src=\"h1\",dst=\"h3\"},{src=\"h2\",dst=\"h0\"}]"]);
    assert_eq!(r.summary["counters"]["deadlocks_detected"], 0, "{}", r.summary);
    assert!(delivered_after(&r, 1_000_000_000) > 0);
}

#[test]
fn shortest_path_routes_do_not_deadlock() {
    let r = ring(&["switch.routes=[]"]);
    assert_eq!(r.summary["counters"]["deadlocks_detected"], 0, "{}", r.summary);
}

#[test]
fn up_down_routing_does_not_deadlock_and_every_flow_keeps_delivering() {
    let r = ring(&["switch.routes=[]", "switch.routing=\"up_down\""]);
    let c = &r.summary["counters"];
    assert_eq!(c["deadlocks_detected"], 0, "{}", r.summary);
    assert_eq!(c["drops_total"], 0, "{c}");
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    // Every flow delivers in every 250 us of the run.
    let (t, f, b) = (col_u64(&r, "goodput", "time_ps"), col_u64(&r, "goodput", "flow_id"), col_u64(&r, "goodput", "bytes"));
    let mut per = [[0u64; 8]; 4];
    for i in 0..t.len() {
        per[f[i] as usize][(t[i] / 250_000_000) as usize] += b[i];
    }
    for (flow, bins) in per.iter().enumerate() {
        println!("flow {flow}: bytes per 250 us {bins:?}");
        assert!(bins.iter().all(|&x| x > 0), "flow {flow} stalls: {bins:?}");
    }
    println!("{c}");
    // The clockwise static routes still override up-down routing (and deadlock).
    let stat = ring(&["switch.routing=\"up_down\""]);
    assert_eq!(stat.summary["counters"]["deadlocks_detected"], 1);
}

#[test]
fn the_run_can_stop_at_the_deadlock() {
    let r = ring(&["switch.pfc.deadlock_stop=true"]);
    let stop = r.summary["stopped_by_deadlock_ps"].as_u64().expect("stopped");
    assert_eq!(stop, col_u64(&r, "deadlocks", "time_ps")[0]);
    assert!(r.summary["duration_ps"].as_u64().unwrap() < 2_000_000_000);
}

fn ring_error(over: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/deadlock_ring.toml");
    dcsim::scenario::load_file(&path, &[over.to_string()]).unwrap_err().to_string()
}

#[test]
fn bad_static_routes_and_detector_settings_are_refused_with_their_field() {
    let r = |s: &str| format!("switch.routes=[{s}]");
    for (over, want) in [
        (
            r(r#"{at="s0",to="h2",via="s1"},{at="s1",to="h2",via="s0"}"#),
            "switch.routes[0]: frames to 'h2' leaving 's0' toward 's1' can come back",
        ),
        (r(r#"{at="h0",to="h2",via="s0"}"#), "switch.routes[0].at: 'h0' is not a switch"),
        (r(r#"{at="s0",to="s1",via="s1"}"#), "switch.routes[0].to: 's1' is not a host"),
        (r(r#"{at="s0",to="h2",via="s2"}"#), "switch.routes[0].via: 's0' has no link to 's2'"),
        (r(r#"{at="s0",to="h2",via="h0"}"#), "switch.routes[0].via: 'h0' is a host other than the destination"),
        (r(r#"{at="s0",to="h2",via="x"}"#), "switch.routes[0].via: no node named 'x'"),
        (r(r#"{at="s0",to="h2",via="s1"},{at="s0",to="h2",via="s3"}"#), "switch.routes[1]: a second route at 's0' to 'h2'"),
        ("switch.pfc.deadlock_check=\"0us\"".to_string(), "switch.pfc.deadlock_check: must be > 0"),
        ("switch.routing=\"updown\"".to_string(), "switch.routing: unknown routing 'updown'"),
        ("switch.up_down_root=\"s1\"".to_string(), "switch.up_down_root: needs switch.routing = \"up_down\""),
    ] {
        let e = ring_error(&over);
        assert!(e.contains(want), "{over}: {e}");
    }
}

#[test]
fn a_bad_up_down_root_is_refused_with_its_field() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/deadlock_ring.toml");
    for (root, want) in [("s9", "switch.up_down_root: no switch named 's9'"), ("h0", "switch.up_down_root: 'h0' is a host, not a switch")] {
        let o = ["switch.routing=\"up_down\"".to_string(), format!("switch.up_down_root=\"{root}\"")];
        let e = dcsim::scenario::load_file(&path, &o).unwrap_err().to_string();
        assert!(e.contains(want), "{root}: {e}");
    }
    // A named root other than the first switch is taken.
    let o = ["switch.routing=\"up_down\"".to_string(), "switch.up_down_root=\"s2\"".to_string()];
    assert_eq!(dcsim::scenario::load_file(&path, &o).unwrap().switch.up_down_root, Some(6));
}

#[test]
fn explicit_shortest_routing_equals_the_default_on_a_fat_tree() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/link_failure_fat_tree.toml");
    let run =
        |o: &[&str]| sim::run(&dcsim::scenario::load_file(&path, &o.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()).unwrap();
    let short = ["simulation.duration=\"1.3ms\""];
    let (a, b) = (run(&short), run(&[short[0], "switch.routing=\"shortest\""]));
    assert_eq!(a.digest(), b.digest());
    // Up-down (root core0) is another routing: the results differ.
    let c = run(&[short[0], "switch.routing=\"up_down\"", "switch.up_down_root=\"core0\""]);
    assert_ne!(a.digest(), c.digest());
    assert!(c.checks_passed(), "{:?}", c.failed_checks());
}

#[test]
fn the_pfc_watchdog_breaks_the_deadlock_and_counts_its_drops() {
    let r = ring(&["switch.pfc.watchdog={detection_time=\"50us\",restoration_time=\"50us\"}"]);
    let c = &r.summary["counters"];
    let storms = c["pfc_storms"].as_u64().unwrap();
    let drops = c["pfc_storm_drops"].as_u64().unwrap();
    assert!(storms >= 1 && drops > 0, "{c}");
    // Traffic keeps moving to the end of the run (the ring deadlocks again and again and
    // the watchdog breaks it each time), and far more of it than the 592 packets that got
    // through before the deadlock without the watchdog.
    assert!(delivered_after(&r, 1_500_000_000) > 0, "nothing delivered after 1.5 ms");
    let without = ring(&[]);
    let pkts = |r: &dcsim::Results| r.summary["counters"]["data_packets_delivered"].as_u64().unwrap();
    assert!(pkts(&r) > 3 * pkts(&without), "{} vs {} packets", pkts(&r), pkts(&without));
    // The dropped frames are losses of the flows, retransmitted by go-back-N.
    assert!(c["retransmitted_packets"].as_u64().unwrap() > 0, "{c}");
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    // Ports report their storms.
    let port_storms: u64 = col_u64(&r, "ports", "pfc_storms").iter().sum();
    assert_eq!(port_storms, storms);
}

#[test]
fn a_watchdog_with_a_zero_detection_time_is_refused() {
    let e = ring_error("switch.pfc.watchdog={detection_time=\"0us\"}");
    assert!(e.contains("switch.pfc.watchdog.detection_time: must be > 0"), "{e}");
}
