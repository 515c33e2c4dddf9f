//! TIMELY in the world: on the 2-to-1 incast of `scenarios/dcqcn_2to1.toml` the RTT
//! samples carried by ACKs slow both senders below line rate, and they share the
//! bottleneck. (The algorithm's steps are unit-tested in `models/timely`.)

use std::path::Path;

use dcsim::results::Column;

#[test]
fn rtt_samples_slow_the_senders_and_they_share() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dcqcn_2to1.toml");
    let ov = ["host.cc={type=\"timely\"}".to_string(), "simulation.duration=\"30ms\"".to_string()];
    let plan = dcsim::scenario::load_file(&file, &ov).unwrap();
    let res = dcsim::sim::run(&plan).unwrap();
    let f = res.table("flows").unwrap();
    let (Some(Column::F64(min_rate)), Some(Column::F64(g))) = (f.get("min_rate_gbps"), f.get("goodput_steady_gbps")) else { panic!() };
    assert!(min_rate.iter().all(|&r| r < 20.0), "both senders were slowed: {min_rate:?}");
    let ceiling = 40.0 * 1024.0 / 1106.0;
    let total: f64 = g.iter().sum();
    assert!(total > 0.8 * ceiling && total <= ceiling, "total {total:.2} of {ceiling:.2} Gb/s");
    assert!(g.iter().all(|&x| x > 0.4 * total), "they share: {g:?}");
}
