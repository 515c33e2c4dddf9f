//! Host-originated pause storms: a NIC that keeps pausing its switch stops the flow to
//! it and, through the pauses that spread upstream, a flow that never goes near it; the
//! PFC watchdog (drop or forward) contains the storm.

mod common;
use common::*;
use dcsim::sim;
use std::path::Path;

const SCENARIO: &str = "../../scenarios/pause_storm.toml";
const US: u64 = 1_000_000;

fn run(overrides: &[&str]) -> dcsim::Results {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    sim::run(&dcsim::scenario::load_file(&path, &o).unwrap()).unwrap()
}

fn load_err(over: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    dcsim::scenario::load_file(&path, &[over.to_string()]).unwrap_err().to_string()
}

/// Payload bytes of flow `f` in goodput bins starting in [from, to).
fn delivered(r: &dcsim::Results, f: u64, from: u64, to: u64) -> u64 {
    let t = col_u64(r, "goodput", "time_ps");
    let fl = col_u64(r, "goodput", "flow_id");
    let b = col_u64(r, "goodput", "bytes");
    (0..t.len()).filter(|&i| fl[i] == f && t[i] >= from && t[i] < to).map(|i| b[i]).sum()
}

// Flow 0: A -> R (the stuck receiver); flow 1: C -> D (the victim).

#[test]
fn a_storming_nic_stops_its_flow_and_a_victim() {
    let r = run(&[]);
    assert_eq!(r.summary["checks"]["ok"], true, "{}", r.summary["checks"]);
    assert!(r.summary["pause_storms"]["pause_frames_sent"].as_u64().unwrap() >= 1);
    for f in [0, 1] {
        let before = delivered(&r, f, 500 * US, 1000 * US);
        let after = delivered(&r, f, 1500 * US, 3000 * US);
        println!("flow {f}: {before} B in 0.5-1 ms, {after} B in 1.5-3 ms");
        assert!(before > 0, "flow {f} moved before the storm");
        assert_eq!(after, 0, "flow {f} is stopped by the storm");
    }
    assert_eq!(r.summary["counters"]["drops_total"], 0);
}

#[test]
fn the_watchdog_contains_the_storm() {
    for action in ["drop", "forward"] {
        let r = run(&[&format!("switch.pfc.watchdog={{ detection_time = \"100us\", action = \"{action}\" }}")]);
        assert_eq!(r.summary["checks"]["ok"], true, "{action}: {}", r.summary["checks"]);
        let c = &r.summary["counters"];
        assert!(c["pfc_storms"].as_u64().unwrap() >= 1, "{action}: {c}");
        let victim_before = delivered(&r, 1, 500 * US, 1000 * US);
        let victim_after = delivered(&r, 1, 1500 * US, 3000 * US);
        let stuck_after = delivered(&r, 0, 1500 * US, 3000 * US);
        println!("{action}: victim {victim_before} B in 0.5-1 ms, {victim_after} B in 1.5-3 ms; A -> R {stuck_after} B; storms {}, storm drops {}", c["pfc_storms"], c["pfc_storm_drops"]);
        assert!(victim_after > 0, "{action}: the victim moves again");
        match action {
            "drop" => {
                assert!(c["pfc_storm_drops"].as_u64().unwrap() > 0, "{c}");
                // R re-sends its pause every 419 us (half of 65535 quanta at 40 Gb/s) and
                // the storm ends 100 us after the last one (restoration_time): the queue
                // is lossless again and sends to R until the next pause, so storms come
                // and go and R gets frames between them.
                assert!(c["pfc_storms"].as_u64().unwrap() >= 2, "{c}");
            }
            _ => {
                assert_eq!(c["pfc_storm_drops"], 0, "{c}");
                assert!(stuck_after > 0, "forward: frames to R are sent regardless of its pauses");
            }
        }
    }
}

#[test]
fn a_storm_that_stops_releases_the_fabric() {
    let r = run(&["host.pause_storms=[{ host = \"R\", priority = 3, start = \"1ms\", stop = \"1.5ms\" }]"]);
    for f in [0, 1] {
        assert_eq!(delivered(&r, f, 1200 * US, 1500 * US), 0, "flow {f} stopped during the storm");
        assert!(delivered(&r, f, 2000 * US, 3000 * US) > 0, "flow {f} moves after the XON");
    }
}

#[test]
fn bad_pause_storms_are_refused_with_the_field() {
    let one = |body: &str| format!("host.pause_storms=[{{ {body} }}]");
    for (over, needle) in [
        (one("host = \"S1\", priority = 3, start = \"1ms\""), "host.pause_storms[0].host: 'S1' is not a host"),
        (one("host = \"X\", priority = 3, start = \"1ms\""), "host.pause_storms[0].host: no node named 'X'"),
        (one("host = \"R\", priority = 2, start = \"1ms\""), "host.pause_storms[0].priority: priority 2 is not lossless"),
        (one("host = \"R\", priority = 9, start = \"1ms\""), "host.pause_storms[0].priority: must be 0..7"),
        (one("host = \"R\", priority = 3, start = \"1ms\", stop = \"1ms\""), "host.pause_storms[0].stop: must be after start"),
        ("switch.pfc.watchdog={ detection_time = \"0us\" }".to_string(), "switch.pfc.watchdog.detection_time: must be > 0"),
        ("switch.pfc.watchdog={ detection_time = \"1us\", action = \"ignore\" }".to_string(), "action"),
    ] {
        let e = load_err(&over);
        assert!(e.contains(needle), "{over}: {e}");
    }
}
