//! NIC receive buffers and slow receivers (docs/models/rx_buffer.md): a NIC that
//! processes slower than its link pauses its switch and holds the flow to its processing
//! rate without a drop; one that stops draining stops its senders; without PFC it drops;
//! with InfiniBand credits it returns credits only as it processes.

mod common;
use common::*;
use dcsim::sim;

/// Sender A and receiver R on one switch, 25 Gb/s, 1 us links, 1024 B payloads (1086 B
/// frames), one long-lived flow on lossless priority 3.
const BASE: &str = r#"
name = "rx_buffer_test"
[simulation]
duration = "2ms"
[host]
mtu = "1024B"
[topology]
type = "explicit"
hosts = ["A", "R"]
switches = ["S"]
links = [
  { a = "A", b = "S", rate = "25Gbps", delay = "1us" },
  { a = "R", b = "S", rate = "25Gbps", delay = "1us" },
]
[switch.pfc]
mode = "pfc"
lossless = [3]
[stats]
steady_start = "500us"
[[traffic]]
type = "flows"
priority = 3
flows = [{ src = "A", dst = "R" }]
"#;

fn plan(extra: &str, overrides: &[&str]) -> dcsim::Result<dcsim::Plan> {
    let text = format!("{BASE}\n{extra}");
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_str(&text, std::path::Path::new("."), &o)
}

fn run(extra: &str, overrides: &[&str]) -> dcsim::Results {
    let r = sim::run(&plan(extra, overrides).unwrap()).unwrap();
    assert_eq!(r.summary["checks"]["ok"], true, "{}", r.summary["checks"]);
    r
}

fn port_u64(r: &dcsim::Results, node: &str, peer: &str, col: &str) -> u64 {
    let strs = |c: &str| match r.table("ports").unwrap().get(c).unwrap() {
        dcsim::results::Column::Str(v) => v.iter().map(String::from).collect::<Vec<_>>(),
        _ => panic!("{c} is not a string column"),
    };
    let (n, p, prio, v) = (strs("node"), strs("peer"), col_u64(r, "ports", "priority"), col_u64(r, "ports", col));
    (0..n.len()).filter(|&i| n[i] == node && p[i] == peer && prio[i] == 3).map(|i| v[i]).sum()
}

#[test]
fn a_nic_at_line_rate_never_pauses() {
    let r = run("[host.rx_buffer]\n", &[]);
    assert_eq!(col_u64(&r, "rx_buffers", "pauses"), &[0, 0]);
    assert_eq!(port_u64(&r, "R", "S", "pfc_xoff_sent"), 0);
    let g = col_f64(&r, "flows", "goodput_steady_gbps")[0];
    let line = 25.0 * 1024.0 / (1086.0 + 20.0);
    assert!((g - line).abs() < 0.01 * line, "{g} vs {line}");
}

#[test]
fn a_slow_nic_holds_the_flow_to_its_processing_rate_without_loss() {
    let r = run("[host.rx_buffer]\nhosts = [\"R\"]\nrate = \"10Gbps\"\n", &[]);
    // The NIC processes 1086 B frames at 10 Gb/s: 10 * 1024 / 1086 Gb/s of payload.
    let g = col_f64(&r, "flows", "goodput_steady_gbps")[0];
    let want = 10.0 * 1024.0 / 1086.0;
    eprintln!("goodput {g} Gb/s, processing-rate bound {want}");
    assert!((g - want).abs() < 0.01 * want, "{g} vs {want}");
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    let xoff = port_u64(&r, "R", "S", "pfc_xoff_sent");
    assert!(xoff > 0 && port_u64(&r, "R", "S", "pfc_xon_sent") > 0);
    // Once the buffer has filled to XOFF (arriving at 25 * 1086 / 1106 Gb/s of frame bytes,
    // leaving at 10), S's port toward R is paused for the share of the time the link does
    // not need to carry 10 Gb/s of frames: 1 - 10 * 1106 / 1086 / 25.
    let paused = port_u64(&r, "S", "R", "paused_ps") as f64;
    let xoff_b = col_u64(&r, "rx_buffers", "xoff_bytes")[0] as f64;
    let fill_ps = xoff_b * 8.0 / (25.0 * 1086.0 / 1106.0 - 10.0) * 1e3;
    let want_paused = (1.0 - 10.0 * 1106.0 / 1086.0 / 25.0) * (2e9 - fill_ps);
    eprintln!("S -> R paused {paused} ps, expected {want_paused}");
    assert!((paused - want_paused).abs() < 0.03 * want_paused, "{paused} ps paused vs {want_paused}");
    // The buffer stays within its size; its peak is above XOFF (the headroom in use).
    let (max, xoff_b, size) =
        (col_u64(&r, "rx_buffers", "max_bytes")[0], col_u64(&r, "rx_buffers", "xoff_bytes")[0], col_u64(&r, "rx_buffers", "size_bytes")[0]);
    assert!(max > xoff_b && max <= size, "max {max} xoff {xoff_b} size {size}");
}

#[test]
fn a_receiver_that_stops_draining_stops_its_sender_and_resumes() {
    let extra = "[host.rx_buffer]\nhosts = [\"R\"]\nrate_changes = [{ host = \"R\", at = \"500us\", rate = \"0bps\" }, { host = \"R\", at = \"1500us\", rate = \"25Gbps\" }]\n";
    let r = run(extra, &["stats.goodput_interval=\"100us\""]);
    let (start, bytes) = (col_u64(&r, "goodput", "time_ps"), col_u64(&r, "goodput", "bytes"));
    let bin = |us: u64| (0..start.len()).find(|&i| start[i] == us * 1_000_000).map(|i| bytes[i]).unwrap_or(0);
    // Stopped from 500 us (after the 256 KiB buffer fills, ~85 us at 25 Gb/s) to 1500 us.
    assert!(bin(300) > 250_000, "{}", bin(300));
    for us in [700, 1000, 1300] {
        assert_eq!(bin(us), 0, "delivered in the bin at {us} us");
    }
    assert!(bin(1700) > 250_000, "{}", bin(1700));
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    assert_eq!(col_u64(&r, "rx_buffers", "pauses")[0], 1);
    let held = col_u64(&r, "rx_buffers", "paused_ps")[0] as f64;
    assert!(held > 0.85e9 && held < 1.0e9, "{held} ps");
    assert!(port_u64(&r, "R", "S", "pfc_xon_sent") >= 1);
}

#[test]
fn without_flow_control_a_full_nic_buffer_drops() {
    let r = sim::run(
        &plan("[host.rx_buffer]\nhosts = [\"R\"]\nrate = \"10Gbps\"\n", &["switch.pfc.mode=\"off\"", "switch.pfc.lossless=[]"]).unwrap(),
    )
    .unwrap();
    assert_eq!(r.summary["checks"]["ok"], true, "{}", r.summary["checks"]);
    assert!(col_u64(&r, "rx_buffers", "drops")[0] > 0);
    assert_eq!(port_u64(&r, "R", "S", "pfc_xoff_sent"), 0);
    assert!(port_u64(&r, "R", "S", "drops_buffer_full") > 0);
}

#[test]
fn with_credits_the_nic_returns_them_as_it_processes() {
    let r = run("[host.rx_buffer]\nhosts = [\"R\"]\nrate = \"10Gbps\"\n", &["switch.pfc.mode=\"ib_credits\""]);
    let g = col_f64(&r, "flows", "goodput_steady_gbps")[0];
    let want = 10.0 * 1024.0 / 1086.0;
    assert!((g - want).abs() < 0.01 * want, "{g} vs {want}");
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    assert_eq!(port_u64(&r, "R", "S", "pfc_xoff_sent"), 0);
    // Credits bound what the NIC holds to the switch's 64 KiB per VL.
    assert!(col_u64(&r, "rx_buffers", "max_bytes")[0] <= 64 * 1024);
}

#[test]
fn bad_receive_buffer_settings_name_the_field() {
    let err = |extra: &str| {
        let e = plan(extra, &[]).expect_err(extra).to_string();
        eprintln!("{e}");
        e
    };
    assert!(err("[host.rx_buffer]\nsize = \"8KiB\"\n").contains("host.rx_buffer.size"));
    assert!(err("[host.rx_buffer]\nrate = \"0bps\"\n").contains("host.rx_buffer.rate"));
    assert!(err("[host.rx_buffer]\nhosts = [\"S\"]\n").contains("host.rx_buffer.hosts[0]"));
    assert!(err("[host.rx_buffer]\nhosts = [\"Q\"]\n").contains("host.rx_buffer.hosts[0]"));
    assert!(err("[host.rx_buffer]\nxoff = \"100KiB\"\nxon = \"120KiB\"\n").contains("host.rx_buffer.xon"));
    assert!(err("[host.rx_buffer]\nxoff = \"300KiB\"\n").contains("host.rx_buffer.xoff"));
    assert!(err("[host.rx_buffer]\nhosts = [\"R\"]\nrate_changes = [{ host = \"A\", at = \"1ms\", rate = \"0bps\" }]\n")
        .contains("host.rx_buffer.rate_changes[0].host"));
    assert!(err("[host.rx_buffer]\nrate_changes = [{ host = \"R\", at = \"-1ms\", rate = \"0bps\" }]\n")
        .contains("host.rx_buffer.rate_changes[0].at"));
    assert!(err("[host.rx_buffer]\nrate_changes = [{ host = \"R\", at = \"1ms\", rate = \"fast\" }]\n")
        .contains("host.rx_buffer.rate_changes[0].rate"));
}
