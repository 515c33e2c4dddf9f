//! InfiniBand credit-based flow control (docs/models/ib_credits.md) on the seed 000
//! parking lot: lossless with no XOFF, the same per-input-port shares as PFC, and an
//! input buffer bounded by the credits it advertised.

mod common;
use common::*;
use dcsim::sim;

fn within(x: f64, target: f64, tol: f64) -> bool {
    (x - target).abs() <= tol * target
}

fn load(name: &str) -> dcsim::Results {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/{name}.toml"));
    let plan = dcsim::scenario::load_file(&path, &[]).unwrap();
    sim::run(&plan).unwrap()
}

fn drops(r: &dcsim::Results) -> u64 {
    ["drops_buffer_full", "drops_headroom_exceeded", "drops_shared_threshold", "drops_egress_full"]
        .iter()
        .map(|c| col_u64(r, "ports", c).iter().sum::<u64>())
        .sum()
}

#[test]
fn parking_lot_with_credits_matches_pfc_shares_and_bounds_the_input_buffer() {
    let ib = load("seed000_parking_lot_ib_credits");
    let pfc = load("seed000_parking_lot_pfc");
    let g_ib = col_f64(&ib, "flows", "goodput_steady_gbps");
    let g_pfc = col_f64(&pfc, "flows", "goodput_steady_gbps");
    eprintln!("goodput ib {g_ib:?} pfc {g_pfc:?}");
    // Round robin over input ports: R's link split D : S1 = 1 : 1, S1's half in three.
    let line = 40.0 * 2048.0 / (2048.0 + 82.0);
    for (i, &x) in g_ib.iter().enumerate() {
        let target = if i < 3 { line / 6.0 } else { line / 2.0 };
        assert!(within(x, target, 0.03), "flow {i}: {x} Gb/s vs {target}");
        assert!(within(x, g_pfc[i], 0.03), "flow {i}: {x} Gb/s with credits vs {} with PFC", g_pfc[i]);
    }
    assert_eq!(drops(&ib), 0);
    // No PFC frame at all; FCPs flow (counted as pfc_xon_sent / received).
    assert_eq!(col_u64(&ib, "ports", "pfc_xoff_sent").iter().sum::<u64>(), 0);
    let fcps: u64 = col_u64(&ib, "ports", "pfc_xon_sent").iter().sum();
    assert_eq!(fcps, col_u64(&ib, "ports", "pfc_xon_received").iter().sum::<u64>());
    assert!(fcps > 1000, "{fcps} FCPs");
    // Senders spend time blocked for lack of credits (A, B, C at S1, and S1 -> S2).
    let blocked: u64 = col_u64(&ib, "ports", "paused_ps").iter().sum();
    eprintln!("{fcps} FCPs, {blocked} ps blocked in all");
    assert!(blocked > 0);
    // Input buffers: credits bound each (port, VL) by its 64 KiB; PFC lets S1's busiest
    // ingress grow past XOFF into its headroom.
    let max_ib = *col_u64(&ib, "ports", "max_ingress_bytes").iter().max().unwrap();
    let max_pfc = *col_u64(&pfc, "ports", "max_ingress_bytes").iter().max().unwrap();
    eprintln!("largest input buffer: credits {max_ib} B, PFC {max_pfc} B");
    assert!(max_ib <= 64 * 1024, "{max_ib}");
    assert!(max_ib > 32 * 1024, "{max_ib}: the buffer is used");
    assert!(max_pfc > max_ib, "PFC {max_pfc} vs credits {max_ib}");
}

#[test]
fn bad_credit_settings_name_the_field() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed000_parking_lot_ib_credits.toml");
    let err = |o: &str| {
        let e = dcsim::scenario::load_file(&path, &[o.to_string()]).expect_err(o).to_string();
        eprintln!("{e}");
        e
    };
    assert!(err("switch.pfc.ib_buffer=\"1KiB\"").contains("switch.pfc.ib_buffer"));
    assert!(err("switch.pfc.ib_update=\"0B\"").contains("switch.pfc.ib_update"));
    assert!(err("switch.pfc.ib_update=\"64KiB\"").contains("switch.pfc.ib_update"));
}

/// A - S1 - S2 - B, the S1 - S2 link fails at 200 us and is back at 400 us (routes
/// converge 10 us after each). Frames on the wire at the failure, frames queued at the
/// dead port and frames that arrive at S1 with no route took credits with them: each
/// must give them back, or S1's input buffer for A (and A) stay blocked for good.
fn credits_across_a_failed_link(period: &str) -> dcsim::Results {
    let text = format!(
        r#"
name = "ib_credits_link_failure"
[simulation]
duration = "1ms"
[host]
mtu = "1024B"
rto = "50us"
[topology]
type = "explicit"
hosts = ["A", "B"]
switches = ["S1", "S2"]
links = [
  {{ a = "A", b = "S1", rate = "25Gbps", delay = "1us" }},
  {{ a = "S1", b = "S2", rate = "25Gbps", delay = "5us" }},
  {{ a = "S2", b = "B", rate = "25Gbps", delay = "1us" }},
]
[switch]
link_failures = [{{ a = "S1", b = "S2", down = "200us", up = "400us" }}]
convergence = "10us"
[switch.pfc]
mode = "ib_credits"
ib_buffer = "8KiB"
ib_update = "2KiB"
ib_period = "{period}"
[stats]
goodput_interval = "100us"
[[traffic]]
type = "flows"
priority = 3
flows = [{{ src = "A", dst = "B" }}]
"#
    );
    let plan = dcsim::scenario::load_str(&text, std::path::Path::new("."), &[]).unwrap();
    let r = sim::run(&plan).unwrap();
    assert_eq!(r.summary["checks"]["ok"], true, "{}", r.summary["checks"]);
    assert!(r.summary["link_failures"]["frames_lost_in_flight"].as_u64().unwrap() > 0);
    r
}

fn delivered_after(r: &dcsim::Results, t_ps: u64) -> u64 {
    let (t, b) = (col_u64(r, "goodput", "time_ps"), col_u64(r, "goodput", "bytes"));
    (0..t.len()).filter(|&i| t[i] >= t_ps).map(|i| b[i]).sum()
}

#[test]
fn credits_come_back_after_a_link_failure_and_periodic_fcps_are_sent() {
    let plain = credits_across_a_failed_link("off");
    let periodic = credits_across_a_failed_link("10us");
    for r in [&plain, &periodic] {
        let before = delivered_after(r, 0) - delivered_after(r, 200_000_000);
        let after = delivered_after(r, 500_000_000);
        eprintln!("delivered before the failure {before} B, after 500 us {after} B");
        assert!(before > 100_000, "{before} B");
        // Credit-limited (8 KiB per ~13 us round trip, ~5 Gb/s): ~300 KB in 500 us.
        assert!(after > 150_000, "the flow is stuck after the link came back: {after} B");
    }
    // A receives no data, so its port sends FCPs only at the period: one per 10 us.
    let fcps = |r: &dcsim::Results| {
        let n = col_u64(r, "ports", "port_id").len();
        (0..n).filter(|&i| col_u64(r, "ports", "node_id")[i] == 0).map(|i| col_u64(r, "ports", "pfc_xon_sent")[i]).sum::<u64>()
    };
    assert_eq!(fcps(&plain), 0);
    assert_eq!(fcps(&periodic), 100);
    // Periodic FCPs are for ib_credits only.
    let e = dcsim::scenario::load_file(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed000_parking_lot_pfc.toml"),
        &["switch.pfc.ib_period=\"10us\"".to_string()],
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("switch.pfc.ib_period"), "{e}");
}
