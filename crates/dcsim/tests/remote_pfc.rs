//! Remote PFC in the world (models/remote_pfc): a shortened seed 001 test bed (the
//! shipped scenarios with fewer queue pairs and a shorter run), where the receiver's ToR
//! sends messages, the senders' ToRs turn them into pauses of their hosts and nobody
//! else consumes them; no drop on the lossless class; and the bad-input errors.

mod common;
use common::{col_f64, col_str, col_u64};

use std::path::Path;

use dcsim::results::Results;
use dcsim::scenario::{load_file, load_str};

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The seed 001 bed (256 queue pairs per sender, 4 KB messages), 3 ms instead of 10.
fn run_bed(file: &str, extra: &[&str]) -> Results {
    let mut sets: Vec<String> = ["simulation.duration=3ms", "stats.steady_start=1ms"].iter().map(|s| s.to_string()).collect();
    sets.extend(extra.iter().map(|s| s.to_string()));
    let plan = load_file(&root().join("scenarios").join(file), &sets).unwrap();
    let res = dcsim::sim::run(&plan).unwrap();
    assert!(res.checks_passed(), "{file}: {:?}", res.failed_checks());
    res
}

/// Packet-weighted mean network latency (NIC send to arrival) of traffic[0], in us.
fn roce_network_latency_us(r: &Results) -> f64 {
    let group = col_u64(r, "flows", "group");
    let rx = col_u64(r, "flows", "pkts_received");
    let lat = col_f64(r, "flows", "latency_mean_ps");
    let (mut n, mut sum) = (0u64, 0f64);
    for i in 0..group.len() {
        if group[i] == 0 && rx[i] > 0 {
            n += rx[i];
            sum += lat[i] * rx[i] as f64;
        }
    }
    sum / n as f64 / 1e6
}

/// Drops on the lossless priority (3), all ports.
fn lossless_drops(r: &Results) -> u64 {
    let prio = col_u64(r, "ports", "priority");
    let mut d = 0;
    for col in ["drops_buffer_full", "drops_headroom_exceeded", "drops_shared_threshold", "drops_egress_full"] {
        d += col_u64(r, "ports", col).iter().zip(prio).filter(|(_, p)| **p == 3).map(|(v, _)| v).sum::<u64>();
    }
    d
}

#[test]
fn the_receivers_tor_sends_and_only_the_senders_tors_pause_their_hosts() {
    let on = run_bed("seed001_remote_pfc_on.toml", &[]);
    let node = col_str(&on, "remote_pfc", "node");
    let sent = col_u64(&on, "remote_pfc", "messages_sent");
    let consumed = col_u64(&on, "remote_pfc", "messages_consumed");
    let pauses = col_u64(&on, "remote_pfc", "pauses_sent");
    let granted = col_u64(&on, "remote_pfc", "pause_granted_ps");
    let paused = col_u64(&on, "remote_pfc", "paused_ps");
    let at = |name: &str| node.iter().position(|n| *n == name).unwrap();
    assert!(sent[at("leaf0")] > 0, "the congested ToR (toward h0) sends messages");
    for l in 1..8 {
        let i = at(&format!("leaf{l}"));
        assert!(consumed[i] > 0 && pauses[i] > 0 && pauses[i] <= consumed[i], "leaf{l}: {} {}", consumed[i], pauses[i]);
        let h = at(&format!("h{l}"));
        assert!(granted[h] > 0 && paused[h] >= granted[h] / 2, "h{l}: granted {} paused {}", granted[h], paused[h]);
    }
    // The spines forward, and the receiver's ToR has no sender behind it.
    for n in ["spine0", "spine1", "leaf0"] {
        assert_eq!(consumed[at(n)], 0, "{n}");
        assert_eq!(pauses[at(n)], 0, "{n}");
    }
    assert_eq!(granted[at("h0")], 0);
    // Every message sent is consumed, unless still travelling at the end (a few).
    let (s, c): (u64, u64) = (sent.iter().sum(), consumed.iter().sum());
    assert!(c <= s && s - c <= 7, "sent {s} consumed {c}");
    assert_eq!(on.summary["remote_pfc"]["messages_sent"], serde_json::json!(s));
    assert_eq!(lossless_drops(&on), 0);
}

#[test]
fn remote_pfc_shortens_the_queue_and_the_network_latency_without_drops() {
    let off = run_bed("seed001_remote_pfc.toml", &[]);
    let on = run_bed("seed001_remote_pfc_on.toml", &[]);
    assert!(off.table("remote_pfc").is_none() && off.summary.get("remote_pfc").is_none());
    assert_eq!(lossless_drops(&off), 0);
    assert_eq!(lossless_drops(&on), 0);
    let q = |r: &Results| *col_u64(r, "ports", "max_egress_bytes").iter().max().unwrap();
    assert!(q(&on) * 3 < q(&off) * 2, "largest egress queue: on {} off {}", q(&on), q(&off));
    let (l_off, l_on) = (roce_network_latency_us(&off), roce_network_latency_us(&on));
    assert!(l_on < 0.8 * l_off, "network latency: on {l_on:.1} us, off {l_off:.1} us");
}

#[test]
fn same_seed_same_results() {
    let a = run_bed("seed001_remote_pfc_on.toml", &["traffic[0].flows_per_sender=16"]);
    let b = run_bed("seed001_remote_pfc_on.toml", &["traffic[0].flows_per_sender=16"]);
    assert_eq!(a.digest(), b.digest());
}

const SMALL: &str = r#"
name = "rpfc_small"
[simulation]
duration = "100us"
[topology]
type = "leaf_spine"
leaves = 2
spines = 1
hosts_per_leaf = 1
host_rate = "25Gbps"
fabric_rate = "25Gbps"
delay = "1us"
[switch.ecn]
mode = "red"
kmin = "7KB"
kmax = "750KB"
[switch.remote_pfc]
enabled = true
[[traffic]]
type = "flows"
flows = [{ src = "h0", dst = "h1" }]
"#;

fn err(text: &str, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let e = load_str(text, Path::new("."), &sets).expect_err("must be refused");
    e.to_string()
}

#[test]
fn bad_input_names_the_field() {
    // The small fabric runs as it is.
    load_str(SMALL, Path::new("."), &[]).unwrap();
    let e = err(SMALL, &["switch.remote_pfc.threshold=5KB"]);
    assert!(e.starts_with("switch.remote_pfc.threshold") && e.contains("below the ECN Kmin"), "{e}");
    let e = err(SMALL, &["switch.ecn.mode=off"]);
    assert!(e.starts_with("switch.remote_pfc.threshold") && e.contains("missing"), "{e}");
    let e = err(SMALL, &["switch.pfc.mode=off"]);
    assert!(e.starts_with("switch.remote_pfc.enabled"), "{e}");
    let e = err(SMALL, &["switch.pfc.pause_mode=infinite"]);
    assert!(e.starts_with("switch.remote_pfc.enabled") && e.contains("infinite"), "{e}");
    let e = err(SMALL, &["switch.remote_pfc.target=2MB"]);
    assert!(e.starts_with("switch.remote_pfc.target") && e.contains("below threshold") || e.contains("must be below"), "{e}");
    let e = err(SMALL, &["switch.remote_pfc.threshold=2MB", "switch.remote_pfc.target=2MB"]);
    assert!(e.starts_with("switch.remote_pfc.target"), "{e}");
    let e = err(SMALL, &["switch.remote_pfc.max_quanta=70000"]);
    assert!(e.starts_with("switch.remote_pfc.max_quanta"), "{e}");
    let e = err(SMALL, &["switch.remote_pfc.message_size=20B"]);
    assert!(e.starts_with("switch.remote_pfc.message_size"), "{e}");
    let e = err(SMALL, &["switch.remote_pfc.foo=1"]);
    assert!(e.starts_with("switch.remote_pfc"), "{e}");
    // Two hosts linked back to back: the source has no ToR.
    let direct = r#"
name = "rpfc_direct"
[simulation]
duration = "100us"
[topology]
type = "explicit"
hosts = ["a", "b"]
switches = []
links = [{ a = "a", b = "b", rate = "25Gbps", delay = "1us" }]
[switch.remote_pfc]
enabled = true
threshold = "1MB"
[[traffic]]
type = "flows"
flows = [{ src = "a", dst = "b" }]
"#;
    let e = err(direct, &[]);
    assert!(e.starts_with("switch.remote_pfc") && e.contains("ToR of host 'a'") && e.contains("cannot be found"), "{e}");
}
