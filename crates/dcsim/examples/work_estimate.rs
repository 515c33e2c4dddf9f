//! The work estimate of a scenario (`scenario::work`) beside the events a run really
//! takes: `cargo run -p dcsim --example work_estimate -- scenario.toml [key=value ...]`
//! (`NO_RUN=1`: the estimate alone).
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: work_estimate scenario.toml [key=value ...]");
    let sets: Vec<String> = args.collect();
    let t0 = Instant::now();
    let plan = match dcsim::scenario::load_file(std::path::Path::new(&path), &sets) {
        Ok(p) => p,
        Err(e) => {
            println!("refused in {:.2} s: {e}", t0.elapsed().as_secs_f64());
            return;
        }
    };
    let w = dcsim::scenario::work::plan_work(&plan);
    println!("estimate {} events ({}), loaded in {:.2} s", w.events(), w.describe(), t0.elapsed().as_secs_f64());
    if std::env::var_os("NO_RUN").is_some() {
        return;
    }
    let mut sim = dcsim::Simulation::new(&plan).expect("a validated plan builds");
    let t1 = Instant::now();
    while sim.run_until(plan.duration) {}
    let n = sim.events();
    println!("actual {n} events in {:.2} s; estimate / actual = {:.2}", t1.elapsed().as_secs_f64(), w.events() as f64 / n.max(1) as f64);
}
