//! The parallel engine (`simulation.threads`) gives the results of one thread, bit for
//! bit: every table and the summary (`Results::digest`, which leaves out the engine's
//! memory figures) and the number of events, on fabrics it splits into partitions.

use std::path::Path;

fn run(file: &str, overrides: &[&str], threads: u32) -> (String, u64, u64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    o.push(format!("simulation.threads={threads}"));
    let plan = dcsim::scenario::load_file(&root.join(file), &o).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut sim = dcsim::Simulation::new(&plan).unwrap();
    // In chunks, as the Python runner drives it.
    let step = dcsim::units::SimTime(sim.end().0 / 7 + 1);
    let mut t = dcsim::units::SimTime::ZERO;
    while sim.run_until(t + step) {
        t = t + step;
    }
    let (events, hops) = (sim.events(), sim.packet_hops());
    let res = sim.finish();
    assert!(res.checks_passed(), "{file} threads={threads}: {:?}", res.failed_checks());
    (format!("{:016x}", res.digest()), events, hops)
}

fn same(file: &str, overrides: &[&str]) {
    let one = run(file, overrides, 1);
    eprintln!("{file}: {one:?}");
    assert!(one.2 > 1000, "{file}: too small a run to compare ({} hops)", one.2);
    for threads in [2, 3] {
        let par = run(file, overrides, threads);
        assert_eq!(one, par, "{file} {overrides:?}: threads = {threads} differs from one thread");
    }
}

#[test]
fn fat_tree_permutation_with_pfc() {
    same("python/dcsim/benchmarks/fat_tree_k8_permutation.toml", &["simulation.duration=300us", "stats.sample_interval=20us", "stats.goodput_interval=50us", "stats.max_pfc_events=100000"]);
}
