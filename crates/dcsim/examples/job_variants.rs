//! Runs a scenario and each of its `[variants.NAME]` (quoted override paths only) and
//! prints every job's iteration times: the figures of docs/models/collectives.md.
//! `cargo run --release -p dcsim --example job_variants -- scenarios/ai_two_jobs_moe.toml`
use std::path::Path;

fn main() {
    let file = std::env::args().nth(1).expect("a scenario file");
    let text = std::fs::read_to_string(&file).expect("readable scenario");
    let value: toml::Table = text.parse().expect("TOML");
    let mut runs = vec![("base".to_string(), Vec::new())];
    if let Some(v) = value.get("variants").and_then(|v| v.as_table()) {
        for (name, t) in v {
            let t = t.as_table().expect("a variant is a table");
            runs.push((name.clone(), t.iter().map(|(k, x)| format!("{k}={x}")).collect()));
        }
    }
    println!("| variant | job | iterations | mean iteration (us) | max (us) | slowdown vs ideal | busbw (Gb/s) |");
    println!("|---|---|---|---|---|---|---|");
    for (name, o) in runs {
        let plan = dcsim::scenario::load_file(Path::new(&file), &o).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t0 = std::time::Instant::now();
        let res = dcsim::sim::run(&plan).expect("runs");
        eprintln!("{name}: {:.1} s", t0.elapsed().as_secs_f64());
        for j in res.summary["jobs"].as_array().expect("jobs") {
            if j["iterations_done"] == 0 {
                continue;
            }
            let bus: Vec<String> =
                j["busbw_mean_bps"].as_array().unwrap().iter().map(|b| format!("{:.1}", b.as_f64().unwrap_or(f64::NAN) / 1e9)).collect();
            println!(
                "| {name} | {} | {} | {:.1} | {:.1} | {:.3} | {} |",
                j["job"].as_str().unwrap(),
                j["iterations_done"],
                j["iteration_mean_ps"].as_f64().unwrap() / 1e6,
                j["iteration_max_ps"].as_f64().unwrap() / 1e6,
                j["slowdown_mean"].as_f64().unwrap(),
                bus.join(", ")
            );
        }
    }
}
