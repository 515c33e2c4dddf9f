//! Link failures: a core link of a fat tree fails under a permutation, the flows on it
//! lose frames until the routes converge and then recover; the link comes back; bad
//! failure input is refused with the field named.

mod common;
use common::*;
use dcsim::results::Column;
use dcsim::sim;
use std::path::Path;

const SCENARIO: &str = "../../scenarios/link_failure_fat_tree.toml";

fn load(overrides: &[&str]) -> dcsim::plan::Plan {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_file(&path, &o).unwrap()
}

fn load_err(over: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    dcsim::scenario::load_file(&path, &[over.to_string()]).unwrap_err().to_string()
}

fn strs<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> Vec<&'a str> {
    match r.table(table).unwrap().get(col).unwrap() {
        Column::Str(v) => v.iter().collect(),
        _ => panic!("{col} is not a string column"),
    }
}

/// Payload bytes per flow delivered in goodput bins starting in [from, to).
fn delivered(r: &dcsim::Results, flows: usize, from: u64, to: u64) -> Vec<u64> {
    let t = col_u64(r, "goodput", "time_ps");
    let f = col_u64(r, "goodput", "flow_id");
    let b = col_u64(r, "goodput", "bytes");
    let mut out = vec![0; flows];
    for i in 0..t.len() {
        if t[i] >= from && t[i] < to {
            out[f[i] as usize] += b[i];
        }
    }
    out
}

const US: u64 = 1_000_000;

#[test]
fn a_core_link_failure_dips_and_recovers_after_convergence() {
    let r = sim::run(&load(&[])).unwrap();
    let s = &r.summary;
    assert_eq!(s["checks"]["ok"], true, "{}", s["checks"]);
    let ev = strs(&r, "link_events", "event");
    assert_eq!(ev, ["down", "routes_down", "up", "routes_up"]);
    assert_eq!(col_u64(&r, "link_events", "time_ps"), [1000 * US, 1100 * US, 2500 * US, 2600 * US]);
    assert_eq!((strs(&r, "link_events", "a")[0], strs(&r, "link_events", "b")[0]), ("agg0_0", "core0"));
    let lf = &s["link_failures"];
    let lost = lf["data_lost"].as_u64().unwrap();
    assert!(lost > 0 && lf["frames_lost_in_flight"].as_u64().unwrap() > 0, "{lf}");
    assert!(lf["data_dropped_at_down_port"].as_u64().unwrap() > 0, "black-holed before convergence: {lf}");
    assert_eq!(lf["route_updates"], 2);
    // The lost frames are sent again; the buffers themselves drop nothing (lossless).
    assert!(s["counters"]["retransmitted_packets"].as_u64().unwrap() >= lost, "{}", s["counters"]);
    assert_eq!(s["counters"]["drops_total"], 0);
    let n = s["counters"]["flows"].as_u64().unwrap() as usize;
    // The time series behind docs/models/link_failure.md (cargo test -- --nocapture).
    for k in 0..40 {
        let bin: u64 = delivered(&r, n, k * 100 * US, (k + 1) * 100 * US).iter().sum();
        println!("{:>5} us  {:>8.2} Gb/s", k * 100, bin as f64 * 8.0 / 100e-6 / 1e9);
    }
    println!("{lf}\nretransmitted {}", s["counters"]["retransmitted_packets"]);
    // The dip: the flows that lost frames (the ones ECMP hashed onto the link) deliver
    // next to nothing between the failure and convergence, and the fabric less than before.
    let hit: Vec<usize> = col_u64(&r, "flows", "retransmits").iter().enumerate().filter(|(_, &n)| n > 0).map(|(i, _)| i).collect();
    assert_eq!(hit.len() as u64, lf["flows_hit"].as_u64().unwrap(), "{lf}");
    let (b, d) = (delivered(&r, n, 500 * US, 1000 * US), delivered(&r, n, 1000 * US, 1100 * US));
    for &f in &hit {
        println!("flow {f} (hit): {} B in 500-1000 us, {} B in 1000-1100 us", b[f], d[f]);
        assert!(d[f] * 5 < b[f] / 2, "flow {f}: {} B per 500 us before, {} B per 100 us while black-holed", b[f], d[f]);
    }
    let before: u64 = b.iter().sum();
    let during: u64 = d.iter().sum::<u64>() * 5;
    assert!(during < before, "delivered per 500 us: before {before}, while black-holed {during}");
    // The recovery: after convergence every flow moves again (none is left stuck), and
    // the fabric as a whole is back near where it was.
    let after = delivered(&r, n, 1500 * US, 2000 * US);
    assert!(after.iter().all(|&b| b > 0), "a flow is stuck after convergence: {after:?}");
    let total: u64 = after.iter().sum();
    assert!(total * 10 >= before * 8, "before {before}, after convergence {total}");
    let end = delivered(&r, n, 3000 * US, 4000 * US);
    assert!(end.iter().all(|&b| b > 0), "a flow is stuck after the link came back: {end:?}");
}

#[test]
fn without_convergence_the_flows_on_the_dead_link_stay_black_holed() {
    // Routes never change during the run: the flows hashed onto the failed link deliver
    // nothing after it fails (the control for the test above).
    let r = sim::run(&load(&["switch.convergence=\"10ms\"", "switch.link_failures[0].up=\"10ms\""])).unwrap();
    let n = r.summary["counters"]["flows"].as_u64().unwrap() as usize;
    let after = delivered(&r, n, 1500 * US, 4000 * US);
    let stuck = after.iter().filter(|&&b| b == 0).count();
    assert!(stuck > 0, "no flow crossed agg0_0 - core0: {after:?}");
    assert!(stuck < n, "every flow stopped: {after:?}");
    assert_eq!(r.summary["link_failures"]["route_updates"], 0);
    assert_eq!(r.summary["checks"]["ok"], true, "{}", r.summary["checks"]);
}

#[test]
fn runs_without_failures_have_no_link_outputs() {
    let r = sim::run(&load(&["switch.link_failures=[]", "simulation.duration=\"200us\""])).unwrap();
    assert!(r.table("link_events").is_none());
    assert!(r.summary.get("link_failures").is_none());
}

#[test]
fn bad_link_failures_are_refused_with_the_field() {
    let one = |body: &str| format!("switch.link_failures=[{{ {body} }}]");
    for (over, needle) in [
        (one("a = \"agg0_0\", b = \"core3\", down = \"1ms\""), "switch.link_failures[0].b: no link between 'agg0_0' and 'core3'"),
        (one("a = \"h0\", b = \"edge0_0\", down = \"1ms\""), "switch.link_failures[0].a: 'h0' is not a switch"),
        (one("a = \"agg0_0\", b = \"nowhere\", down = \"1ms\""), "switch.link_failures[0].b: no node named 'nowhere'"),
        (one("a = \"agg0_0\", b = \"core0\", down = \"1ms\", up = \"1ms\""), "switch.link_failures[0].up: must be after down"),
        (one("a = \"agg0_0\", b = \"core0\", down = \"1ms\", upp = \"2ms\""), "upp"),
        (
            "switch.link_failures=[{ a = \"agg0_0\", b = \"core0\", down = \"1ms\" }, { a = \"core0\", b = \"agg0_0\", down = \"2ms\", up = \"3ms\" }]".to_string(),
            "switch.link_failures[1].down: the link is already down then (switch.link_failures[0])",
        ),
    ] {
        let e = load_err(&over);
        assert!(e.contains(needle), "{over}: {e}");
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let text = std::fs::read_to_string(&path).unwrap().replace("convergence = \"100us\"\n", "");
    let e = dcsim::scenario::load_str(&text, path.parent().unwrap(), &[]).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("switch.convergence: required when switch.link_failures is given"), "{e}");
}

#[test]
fn link_failure_runs_are_deterministic() {
    let plan = load(&["simulation.duration=\"1.5ms\""]);
    let (a, b) = (sim::run(&plan).unwrap(), sim::run(&plan).unwrap());
    assert_eq!(a.digest(), b.digest());
}
