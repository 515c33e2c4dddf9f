//! Every shipped scenario's results, bit for bit: the digest of each run (all tables and
//! the summary, `Results::digest`) must equal the one recorded in `golden/digests.txt`,
//! and so must its event count (which the digest leaves out: a change that makes the
//! engine do less work for the same results moves only the count).
//! A change that moves any result fails here; if the change is meant to (a model fix),
//! regenerate the file with
//! `cargo run --release -p dcsim --example digest -- scenarios/*.toml python/dcsim/benchmarks/incast_64_to_1.toml > crates/dcsim/tests/golden/digests.txt`
//! (from the repository root) and say why in the commit.

use std::path::Path;

#[test]
fn shipped_scenarios_reproduce_their_recorded_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let golden = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/digests.txt")).unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        let (file, digest, events) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let plan = dcsim::scenario::load_file(&root.join(file), &[]).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut sim = dcsim::Simulation::new(&plan).unwrap();
        while sim.run_until(sim.end()) {}
        let n = sim.events();
        let res = sim.finish();
        // Every shipped scenario passes the run's own checks (conservation, lossless).
        assert!(res.checks_passed(), "{file}: {:?}", res.failed_checks());
        for k in ["conservation", "lossless_no_drops", "counters_non_negative", "clock_advances"] {
            assert_eq!(res.summary["checks"][k]["ok"], true, "{file}: {k}");
        }
        no_flow_beats_its_ideal(file, &res);
        let got = format!("{:016x}", res.digest());
        if got != digest || n.to_string() != events {
            wrong.push(format!("{file}: digest {got} events {n}, recorded {digest} events {events}"));
        }
        checked += 1;
    }
    // Every scenario file shipped is covered.
    let shipped = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "toml"))
        .count();
    assert!(checked > shipped, "golden file covers {checked} runs, {shipped} scenarios shipped");
    assert!(wrong.is_empty(), "results changed:\n{}", wrong.join("\n"));
}

/// `ideal_fct_ps` is a lower bound: no finished flow of a shipped scenario completes
/// faster than alone in the empty fabric, and the slowdown (not clamped) is at least 1.
fn no_flow_beats_its_ideal(file: &str, res: &dcsim::Results) {
    use dcsim::results::Column;
    let t = res.table("flows").unwrap();
    let (Some(Column::I64(fct)), Some(Column::I64(ideal)), Some(Column::F64(slowdown))) =
        (t.get("fct_ps"), t.get("ideal_fct_ps"), t.get("slowdown"))
    else {
        panic!("{file}: flows table columns")
    };
    for i in 0..fct.len() {
        if fct[i] >= 0 && ideal[i] > 0 {
            assert!(fct[i] >= ideal[i], "{file}: flow {i} finished in {} ps, below its ideal {} ps", fct[i], ideal[i]);
            assert!(slowdown[i] >= 1.0, "{file}: flow {i} slowdown {}", slowdown[i]);
        }
    }
}
