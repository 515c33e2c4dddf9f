//! Start-up time of a scenario: load (parse, build the plan, validate) and build the
//! world, each timed, best of `reps`; with a time `T`, also the wall time to simulate
//! the first `T` (once).
//! `cargo run --release -p dcsim --example startup -- scenario.toml [reps [T]]`
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: startup scenario.toml [reps [T]]");
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let first = args.next().map(|s| dcsim::units::parse_time(&s).unwrap_or_else(|e| panic!("{}", e.0)));
    let (mut load, mut build) = (f64::MAX, f64::MAX);
    for _ in 0..reps {
        let t0 = Instant::now();
        let plan = dcsim::scenario::load_file(std::path::Path::new(&path), &[]).unwrap_or_else(|e| panic!("{e}"));
        let t1 = Instant::now();
        let sim = dcsim::Simulation::new(&plan).expect("a validated plan builds");
        let t2 = Instant::now();
        std::hint::black_box(&sim);
        load = load.min((t1 - t0).as_secs_f64());
        build = build.min((t2 - t1).as_secs_f64());
    }
    println!("load {:.1} ms  build {:.1} ms  total {:.1} ms", load * 1e3, build * 1e3, (load + build) * 1e3);
    if let Some(t) = first {
        let plan = dcsim::scenario::load_file(std::path::Path::new(&path), &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = dcsim::Simulation::new(&plan).expect("a validated plan builds");
        let t0 = Instant::now();
        while sim.run_until(t) {}
        println!("simulated {} ps in {:.2} s ({} events)", sim.now().0, t0.elapsed().as_secs_f64(), sim.events());
    }
}
