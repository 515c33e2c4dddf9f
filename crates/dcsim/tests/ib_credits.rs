//! InfiniBand credit-based flow control (docs/models/ib_credits.md) on the seed 000
//! parking lot: lossless with no XOFF, the same per-input-port shares as PFC, and an
//! input buffer bounded by the credits it advertised.

mod common;
use common::*;
use dcsim::sim;

fn within(x: f64, target: f64, tol: f64) -> bool { (x - target).abs() <= tol * target }

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
        let e = dcsim::scenario::load_file(&path, &[o.to_string()]).err().expect(o).to_string();
        eprintln!("{e}");
        e
    };
    assert!(err("switch.pfc.ib_buffer=\"1KiB\"").contains("switch.pfc.ib_buffer"));
    assert!(err("switch.pfc.ib_update=\"0B\"").contains("switch.pfc.ib_update"));
    assert!(err("switch.pfc.ib_update=\"64KiB\"").contains("switch.pfc.ib_update"));
}
