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
