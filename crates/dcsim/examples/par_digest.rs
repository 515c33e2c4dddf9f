//! Digest, events and wall time of one scenario run with a given number of threads:
//! `par_digest FILE THREADS [KEY=VALUE ...]`.
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads: u32 = args[1].parse().expect("threads");
    let mut o: Vec<String> = args[2..].to_vec();
    o.push(format!("simulation.threads={threads}"));
    let plan = dcsim::scenario::load_file(Path::new(&args[0]), &o).unwrap_or_else(|e| panic!("{e}"));
    let t0 = Instant::now();
    let mut sim = dcsim::Simulation::new(&plan).unwrap();
    while sim.run_until(sim.end()) {}
    let (events, hops) = (sim.events(), sim.packet_hops());
    let wall = t0.elapsed().as_secs_f64();
    let res = sim.finish();
    println!("{} threads={threads} digest={:016x} events={events} hops={hops} wall={wall:.2}s checks={}", args[0], res.digest(), res.checks_passed());
}
