//! Switch buffers in cells (`switch.cell`, net/mmu.rs): every charge is whole cells and
//! thresholds may be written in cells. The receiver h0 pauses its switch from the start
//! (a pause storm), so every frame h1 sends stays charged at the switch's ingress.

mod common;
use common::{col_i64, col_str, col_u64};

use std::path::Path;

const HELD: &str = r#"
name = "cells"
[simulation]
duration = "100us"
[host]
pause_storms = [{ host = "h0", priority = 3, start = "0us" }]
[topology]
type = "star"
hosts = 2
rate = "25Gbps"
delay = "1us"
[switch.buffer]
type = "static"
size = "1MB"
[switch.pfc]
xoff = "20000B"
[[traffic]]
type = "flows"
flows = [{ src = "h1", dst = "h0", size = "100KiB" }]
"#;

fn run(overrides: &[&str]) -> dcsim::Results {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_str(HELD, Path::new("."), &ov).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    r
}

/// The largest charge of the switch's port from h1.
fn peak_from_h1(r: &dcsim::Results) -> u64 {
    let (node, peer, peak) = (col_str(r, "ports", "node"), col_str(r, "ports", "peer"), col_u64(r, "ports", "max_ingress_bytes"));
    (0..node.len()).find(|&i| node[i] == "S0" && peer[i] == "h1").map(|i| peak[i]).unwrap()
}

/// When h1 is first paused (the XOFF frame received).
fn first_pause(r: &dcsim::Results) -> i64 {
    let (node, event, t) = (col_str(r, "pfc_events", "node"), col_str(r, "pfc_events", "event"), col_u64(r, "pfc_events", "time_ps"));
    (0..node.len()).find(|&i| node[i] == "h1" && event[i] == "pause").map(|i| t[i] as i64).expect("h1 never paused")
}

#[test]
fn a_65_byte_frame_takes_one_208_byte_cell() {
    // 3 B of payload and the 62 B header: a 65 B frame.
    let small = "traffic[0].flows[0].size=\"3B\"";
    assert_eq!(peak_from_h1(&run(&[small])), 65);
    assert_eq!(peak_from_h1(&run(&[small, "switch.cell=\"208B\""])), 208);
    assert_eq!(peak_from_h1(&run(&[small, "switch.cell=\"254B\""])), 254);
}

#[test]
fn pfc_triggers_earlier_in_cells_by_the_frames_the_cells_cost() {
    // 1086 B frames (1024 B payload + 62 B header), back to back at 25 Gb/s every
    // 1106 wire bytes (353.92 ns). XOFF at 20000 B: in bytes the 19th frame crosses it
    // (19 x 1086 = 20634), in 208 B cells (6 per frame, 1248 B) the 17th (17 x 1248 =
    // 21216): two frames, 707.84 ns, earlier.
    let bytes = first_pause(&run(&[]));
    let cells = first_pause(&run(&["switch.cell=\"208B\""]));
    assert_eq!(bytes - cells, 2 * 353_920, "first pause: bytes {bytes} ps, cells {cells} ps");
    // A threshold written in cells is that many cells: 97 x 208 = 20176 B, crossed by
    // the same 17th frame.
    let in_cells = first_pause(&run(&["switch.cell=\"208B\"", "switch.pfc.xoff=\"97cells\""]));
    assert_eq!(in_cells, cells);
    // And the frame counts are what the peak charge says once h1 stops.
    let r = run(&["switch.cell=\"208B\""]);
    assert_eq!(peak_from_h1(&r) % 208, 0);
    assert!(col_i64(&r, "flows", "finish_ps")[0] < 0, "h0 never drains, the flow cannot finish");
}

#[test]
fn cells_without_a_cell_size_and_bad_cells_name_the_field() {
    let err = |ov: &[&str]| {
        let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
        dcsim::scenario::load_str(HELD, Path::new("."), &ov).unwrap_err().to_string()
    };
    let e = err(&["switch.pfc.xoff=\"97cells\""]);
    assert!(e.starts_with("switch.pfc.xoff:") && e.contains("switch.cell"), "{e}");
    assert!(err(&["switch.cell=\"0B\""]).starts_with("switch.cell:"));
    assert!(err(&["switch.cell=\"208B\"", "switch.pfc.xoff=\"1.5cells\""]).starts_with("switch.pfc.xoff:"));
}

#[test]
fn a_vendor_configuration_in_cells_is_entered_as_written() {
    // docs/models/pfc.md: Arista's "minimum-threshold 2000 segments maximum-threshold
    // 10000 segments" with 208 B cells.
    let ov: Vec<String> =
        ["switch.cell=\"208B\"", "switch.ecn.mode=\"red\"", "switch.ecn.kmin=\"2000cells\"", "switch.ecn.kmax=\"10000cells\""]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let plan = dcsim::scenario::load_str(HELD, Path::new("."), &ov).unwrap();
    assert_eq!(plan.switch.cell, Some(208));
    assert_eq!((plan.fabric.marking.ecn.kmin, plan.fabric.marking.ecn.kmax), (Some(416_000), Some(2_080_000)));
}
