//! Figures of the HPCC incast (`scenarios/hpcc_incast_16to1.toml` or another scenario
//! with queue samples): the bottleneck queue's peak and when it was reached, when it
//! first fell under 10 KB, its largest value after 150 us, the bottleneck's wire
//! utilisation after `stats.steady_start`, and the spread of the flows' goodputs.
//! `cargo run --release -p dcsim --example hpcc_incast -- FILE [k=v ...]`
#[path = "../tests/common.rs"]
mod common;
use common::{col_f64, col_u64};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plan = dcsim::scenario::load_file(std::path::Path::new(&args[0]), &args[1..]).unwrap();
    let wire_per_payload = (plan.host.mtu + plan.host.header_bytes + 20) as f64 / plan.host.mtu as f64;
    let res = dcsim::sim::run(&plan).unwrap();
    let (t, port, q) = (col_u64(&res, "samples", "time_ps"), col_u64(&res, "samples", "port_id"), col_u64(&res, "samples", "egress_bytes"));
    let busiest = port[(0..q.len()).max_by_key(|&i| q[i]).unwrap()];
    let series: Vec<(u64, u64)> = (0..q.len()).filter(|&i| port[i] == busiest).map(|i| (t[i], q[i])).collect();
    let (peak_at, peak) = *series.iter().max_by_key(|s| s.1).unwrap();
    let drained = series.iter().find(|s| s.0 > peak_at && s.1 < 10_000).map(|s| s.0 / 1_000_000);
    let after: Vec<u64> = series.iter().filter(|s| s.0 >= 150_000_000).map(|s| s.1).collect();
    let g = col_f64(&res, "flows", "goodput_steady_gbps");
    let total: f64 = g.iter().sum();
    let (lo, hi) = g.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    println!(
        "peak {:.0} KB at {} us; under 10 KB at {:?} us; after 150 us mean {:.1} KB max {:.1} KB; utilisation {:.3}; flows {:.2}..{:.2} Gb/s",
        peak as f64 / 1e3, peak_at / 1_000_000, drained,
        after.iter().sum::<u64>() as f64 / after.len().max(1) as f64 / 1e3, *after.iter().max().unwrap_or(&0) as f64 / 1e3,
        total * wire_per_payload / 100.0, lo, hi
    );
}
