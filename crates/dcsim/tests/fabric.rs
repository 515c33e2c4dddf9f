//! Small exact scenarios of the PFC fabric, built in code.

mod common;
use common::*;
use dcsim::plan::*;
use dcsim::{sim, SimTime};

#[test]
fn parking_lot_pfc_gives_the_published_unfair_shares() {
    let plan = parking_lot(SimTime::ms(5));
    let r = sim::run(&plan).unwrap();
    let g = col_f64(&r, "flows", "goodput_steady_gbps");
    eprintln!("{g:?} {}", r.summary);
    assert_eq!(r.summary["counters"]["drops_total"], 0);
}

#[test]
fn seed_scenario_file_loads_and_runs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed000_parking_lot_pfc.toml");
    let plan = dcsim::scenario::load_file(&path, &[]).unwrap();
    let r = sim::run(&plan).unwrap();
    let g = col_f64(&r, "flows", "goodput_steady_gbps");
    eprintln!("file: {g:?}");
}
