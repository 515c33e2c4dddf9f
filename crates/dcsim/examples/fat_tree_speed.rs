//! Quick speed probe for development: k=8 fat-tree permutation, PFC on, no CC; with
//! `hpcc`, HPCC on every flow (INT at every switch egress, an ACK per packet echoing it,
//! the HPCC law per ACK; frames and ACKs 42 B longer for the INT header).
//! `cargo run --release -p dcsim --example fat_tree_speed -- [ms] [hpcc]`
#[path = "../tests/common.rs"]
mod common;
use dcsim::SimTime;

fn main() {
    let ms: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let (mut plan, hosts) = common::fat_tree(8, 100, 1000, SimTime::ms(ms));
    plan.host.mtu = 4000;
    if std::env::args().nth(2).as_deref() == Some("hpcc") {
        plan.ccs[0] = dcsim::models::CcPlan::Hpcc(dcsim::models::hpcc::HpccParams::default());
        plan.host.header_bytes += 42;
        plan.host.ack_bytes += 42;
    }
    common::permutation(&mut plan, &hosts, 1);
    plan.stats.sample_interval = None;
    plan.stats.goodput_interval = None;
    let t0 = std::time::Instant::now();
    let mut sim = dcsim::Simulation::new(&plan).unwrap();
    while sim.run_until(sim.end()) {}
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "wall {:.3}s events {} ({:.2} M/s) hops {} ({:.2} M/s) peak packets {}",
        wall,
        sim.events(),
        sim.events() as f64 / wall / 1e6,
        sim.packet_hops(),
        sim.packet_hops() as f64 / wall / 1e6,
        sim.peak_packets()
    );
}
