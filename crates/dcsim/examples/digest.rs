//! Prints a stable digest of everything a scenario's run produces (every table, every
//! column, the summary), one line per scenario: `<file> <fnv1a64 hex> <events>`.
//! Two builds that print the same lines produced byte-identical results.
//! `cargo run --release -p dcsim --example digest -- scenarios/*.toml`
use std::path::Path;

fn main() {
    let mut failed = false;
    for arg in std::env::args().skip(1) {
        let plan = match dcsim::scenario::load_file(Path::new(&arg), &[]) {
            Ok(p) => p,
            Err(e) => {
                println!("{arg} error: {e}");
                failed = true;
                continue;
            }
        };
        let mut sim = dcsim::Simulation::new(&plan).expect("validated plan builds");
        while sim.run_until(sim.end()) {}
        let events = sim.events();
        let res = sim.finish();
        println!("{arg} {:016x} {events}", res.digest());
    }
    if failed {
        std::process::exit(1);
    }
}
