//! The NIC's own delays (models/nic_timing, docs/models/dcqcn.md "NIC timing"): each is
//! checked against what it must do to a run that is otherwise the same, to the picosecond.

mod common;
use common::{col_f64, col_i64, col_str, col_u64};

use std::path::Path;

fn run(text: &str, overrides: &[&str]) -> dcsim::Results {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_str(text, Path::new("."), &ov).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    r
}

/// One flow from h1 to h0 through a switch, 25 Gb/s links: nothing else on the path.
const LONE: &str = r#"
name = "lone"
[simulation]
duration = "2ms"
[topology]
type = "star"
hosts = 2
rate = "25Gbps"
delay = "1us"
[[traffic]]
type = "flows"
flows = [{ src = "h1", dst = "h0", size = "100KiB", start = "10us" }]
"#;

/// ACK and other control bytes the receiver h0 sent.
fn ctrl_bytes_of(r: &dcsim::Results, node: &str) -> u64 {
    let nodes = col_str(r, "ports", "node");
    let bytes = col_u64(r, "ports", "ctrl_tx_bytes");
    nodes.iter().zip(bytes).find(|(n, _)| **n == node).map(|(_, b)| *b).unwrap()
}

#[test]
fn a_doorbell_delay_adds_exactly_itself_to_a_lone_flows_fct() {
    for size in ["1B", "1500B", "100KiB"] {
        let set = format!("traffic[0].flows[0].size=\"{size}\"");
        let base = col_i64(&run(LONE, &[&set]), "flows", "fct_ps")[0];
        let late = col_i64(&run(LONE, &[&set, "host.doorbell=\"1.7us\""]), "flows", "fct_ps")[0];
        assert_eq!(late - base, 1_700_000, "{size}: FCT {base} -> {late} ps");
    }
}

#[test]
fn a_doorbell_delay_adds_itself_to_every_message_of_a_train() {
    let lat = |ov: &[&str]| {
        let r = run(LONE, &[&["traffic[0].messages=5", "traffic[0].flows[0].size=\"4KiB\""], ov].concat());
        (col_i64(&r, "flows", "fct_ps")[0], col_f64(&r, "flows", "message_latency_mean_ps")[0])
    };
    let (fct0, mean0) = lat(&[]);
    let (fct1, mean1) = lat(&["host.doorbell=\"2us\""]);
    assert_eq!(fct1 - fct0, 5 * 2_000_000, "five messages, each posted after the last is acknowledged");
    assert_eq!(mean1 - mean0, 2_000_000.0);
}

#[test]
fn acks_coalesced_by_count_divide_the_ack_count() {
    // 100 KiB in 1 KiB packets: 100 packets, ACKed every n-th (and the last).
    let acks = |ov: &[&str]| ctrl_bytes_of(&run(LONE, ov), "h0") / 66;
    assert_eq!(acks(&[]), 100);
    assert_eq!(acks(&["host.ack_every=4"]), 25);
    assert_eq!(acks(&["host.ack_every=7"]), 15); // 14 by count, and the last packet
}

#[test]
fn acks_coalesced_by_time_follow_the_packet_spacing() {
    // Back-to-back full frames reach h0 every 1106 B at 25 Gb/s = 353.92 ns; an ACK due
    // once 3 spacings (less 1 ps) have passed since the oldest unacknowledged packet
    // comes every 4th packet, as ack_every = 4 does.
    let acks = |ov: &[&str]| ctrl_bytes_of(&run(LONE, ov), "h0") / 66;
    let t = format!("host.ack_interval=\"{}ps\"", 3 * 353_920 - 1);
    assert_eq!(acks(&["host.ack_every=1000", &t]), 25);
    let t = format!("host.ack_interval=\"{}ps\"", 3 * 353_920 + 1);
    assert_eq!(acks(&["host.ack_every=1000", &t]), 20);
    // Neither set: one ACK per packet; the count alone: the last packet only.
    assert_eq!(acks(&["host.ack_every=1000"]), 1);
}

/// Two UDP senders into one 25 Gb/s port with ECN and DCQCN: the receiver sends only
/// CNPs, so a CNP generation delay moves the first rate cut by exactly itself.
const INCAST: &str = r#"
name = "cnp_delay"
[simulation]
duration = "200us"
[topology]
type = "star"
hosts = 3
rate = "25Gbps"
delay = "1us"
[host.cc]
type = "dcqcn"
variant = "paper"
[switch.ecn]
mode = "red"
kmin = "5KB"
kmax = "200KB"
pmax = 0.1
[[traffic]]
type = "incast"
receiver = "h0"
sender_count = 2
transport = "udp"
"#;

#[test]
fn a_cnp_generation_delay_moves_the_first_rate_cut_by_itself() {
    let first_cut = |ov: &[&str]| {
        let r = run(INCAST, ov);
        let t = col_u64(&r, "rates", "time_ps");
        assert!(!t.is_empty(), "no rate change: no CNP reached a sender");
        t[0]
    };
    let base = first_cut(&[]);
    for d in ["1us", "20us"] {
        let ps = dcsim::units::parse_time(d).unwrap().0;
        assert_eq!(first_cut(&[&format!("host.cnp.delay=\"{d}\"")]) - base, ps, "delay {d}");
    }
}

#[test]
fn bad_timing_values_name_the_field() {
    for (set, field) in [
        ("host.doorbell=\"2\"", "host.doorbell"),
        ("host.ack_interval=\"-1us\"", "host.ack_interval"),
        ("host.cnp.delay=\"fast\"", "host.cnp.delay"),
    ] {
        let e = dcsim::scenario::load_str(LONE, Path::new("."), &[set.to_string()]).unwrap_err().to_string();
        assert!(e.starts_with(field), "{set}: {e}");
    }
}
