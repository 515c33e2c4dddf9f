//! The work estimate (`scenario::work`): its accuracy against the events real runs take,
//! the runaway settings it refuses (naming the field), and every shipped scenario under
//! the default limit.

use std::path::{Path, PathBuf};

use dcsim::scenario::work::{plan_work, DEFAULT_MAX_EVENTS};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(file: &str, sets: &[&str]) -> dcsim::Result<dcsim::Plan> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    dcsim::scenario::load_file(&root().join(file), &sets)
}

/// The estimate is within this factor of the events of a run, either way (docs/scenarios.md).
const LOW: f64 = 0.5;
const HIGH: f64 = 5.0;

#[test]
fn estimate_is_within_its_stated_factor_of_real_runs() {
    let cases: &[(&str, &[&str])] = &[
        ("scenarios/dcqcn_2to1.toml", &["simulation.duration=\"2ms\"", "stats.steady_start=\"0s\""]),
        ("python/dcsim/benchmarks/incast_64_to_1.toml", &["simulation.duration=\"1ms\""]),
        ("scenarios/hpcc_fat_tree_websearch_dcqcn_30.toml", &[]),
        ("scenarios/leaf_spine_websearch.toml", &["simulation.duration=\"1ms\"", "stats.steady_start=\"0s\""]),
        ("scenarios/seed002_fecn.toml", &["simulation.duration=\"10ms\"", "stats.steady_start=\"0s\""]),
        ("scenarios/tcp_newreno_bottleneck.toml", &["simulation.duration=\"5ms\"", "stats.steady_start=\"0s\""]),
        ("scenarios/seed001_dcqcn_timer.toml", &["simulation.duration=\"2ms\"", "stats.steady_start=\"0s\""]),
        ("scenarios/link_failure_fat_tree.toml", &["simulation.duration=\"1ms\""]),
        ("scenarios/seed004_storage_oltp.toml", &[]),
    ];
    let mut report = Vec::new();
    for (file, sets) in cases {
        let plan = load(file, sets).unwrap_or_else(|e| panic!("{file}: {e}"));
        let est = plan_work(&plan).events();
        let mut sim = dcsim::Simulation::new(&plan).unwrap();
        while sim.run_until(plan.duration) {}
        let ratio = est as f64 / sim.events() as f64;
        report.push(format!("{file}: estimate {est}, events {}, ratio {ratio:.2}", sim.events()));
        assert!((LOW..=HIGH).contains(&ratio), "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn runaway_settings_are_refused_naming_the_field() {
    let short = ["simulation.duration=\"300us\"", "stats.steady_start=\"0s\""];
    let cases: &[(&str, &[&str], &str)] = &[
        ("python/dcsim/benchmarks/fat_tree_k8_permutation.toml", &["stats.sample_interval=\"1ps\""], "stats.sample_interval: "),
        ("scenarios/seed002_fecn.toml", &["switch.l2cm.interval=\"1ps\""], "switch.l2cm.interval: "),
        (
            "scenarios/seed002_fecn.toml",
            &["host.cc.probe_interval=\"1ps\"", "traffic[0].flows[0].start=\"0s\""],
            "host.cc.probe_interval: ",
        ),
        ("scenarios/hpcc_fat_tree_websearch_dcqcn_30.toml", &["host.cc.alpha_period=\"1ps\""], "host.cc.alpha_period: "),
        ("scenarios/hpcc_incast_16to1.toml", &["switch.pfc.deadlock_check=\"1ps\""], "switch.pfc.deadlock_check: "),
    ];
    for (file, sets, field) in cases {
        let all: Vec<&str> = short.iter().chain(sets.iter()).copied().collect();
        let e = load(file, &all).expect_err(file).to_string();
        assert!(e.starts_with(field) && e.contains("events") && e.contains("simulation.max_events"), "{file}: {e}");
        // Raising the limit lets it through.
        let raised: Vec<&str> = all.iter().copied().chain(["simulation.max_events=1000000000000000"]).collect();
        load(file, &raised).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let e = load("scenarios/dcqcn_2to1.toml", &["simulation.max_events=0"]).unwrap_err().to_string();
    assert!(e.starts_with("simulation.max_events: must be > 0"), "{e}");
}

#[test]
fn shipped_scenarios_stay_under_the_default_limit() {
    let mut files: Vec<PathBuf> = ["scenarios", "python/dcsim/benchmarks"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() > 50);
    let mut top = (0, PathBuf::new());
    for f in files {
        let plan = dcsim::scenario::load_file(&f, &[]).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        // Only a scale benchmark raises the limit (k = 32), and says so in its file.
        let raised = f.file_name().is_some_and(|n| n.to_string_lossy().contains("k32"));
        assert_eq!(plan.max_events == DEFAULT_MAX_EVENTS, !raised, "{}", f.display());
        let est = plan_work(&plan).events();
        // With room: a shipped scenario is far from its limit.
        assert!(est < plan.max_events / 2, "{}: {est}", f.display());
        top = top.max((est, f));
    }
    eprintln!("largest estimate: {} ({})", top.0, top.1.display());
}
