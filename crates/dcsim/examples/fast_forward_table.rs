//! The tables of docs/fast_forward.md: a run exactly and fast-forwarded at several
//! tolerances and windows, with the error of its completion times (a job's iterations,
//! or the flows' FCTs in a run without jobs), its events and the wall time of each run
//! (one pair each, same build).
//! `cargo run --release -p dcsim --example fast_forward_table -- scenario.toml [key=value ...]`
use std::time::Instant;

use dcsim::results::{Column, Results};

fn run(path: &str, sets: &[String]) -> (Results, f64) {
    let plan = dcsim::scenario::load_file(std::path::Path::new(path), sets).unwrap_or_else(|e| panic!("{e}"));
    let t = Instant::now();
    let r = dcsim::sim::run(&plan).unwrap_or_else(|e| panic!("{e}"));
    (r, t.elapsed().as_secs_f64())
}

fn finishes(r: &Results) -> Vec<u64> {
    match (r.table("jobs").and_then(|t| t.get("finish_ps")), r.table("flows").and_then(|t| t.get("fct_ps"))) {
        (Some(Column::U64(v)), _) => v.clone(),
        (None, Some(Column::I64(v))) => v.iter().map(|&x| x.max(0) as u64).collect(),
        _ => panic!("no jobs or flows table"),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: fast_forward_table scenario.toml [key=value ...]");
    let sets: Vec<String> = args.collect();
    // The exact run takes the scenario's settings but fast-forward's.
    let plain: Vec<String> = sets.iter().filter(|s| !s.starts_with("simulation.fast_forward")).cloned().collect();
    let (exact, wall0) = run(&path, &plain);
    let (xf, xev) = (finishes(&exact), exact.summary["events"].as_u64().unwrap());
    println!("exact: {} completions, the last {:.3} ms, {xev} events, {wall0:.2} s", xf.len(), *xf.iter().max().unwrap() as f64 / 1e9);
    println!("| tolerance | window | iterations skipped | skipped time | error estimate | worst completion error | last completion error | events | wall time | speed-up (wall) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (tol, w) in [(0.001, 4), (0.005, 4), (0.01, 2), (0.01, 4), (0.01, 8), (0.05, 2)] {
        let mut s = sets.clone();
        s.extend([
            "simulation.fast_forward=true".into(),
            format!("simulation.fast_forward_tolerance={tol}"),
            format!("simulation.fast_forward_window={w}"),
        ]);
        let (r, wall) = run(&path, &s);
        let f = finishes(&r);
        // The iterations both runs finished (a job ending a little earlier may fit one more).
        let worst = f.iter().zip(&xf).filter(|(_, b)| **b > 0).map(|(a, b)| (*a as f64 / *b as f64 - 1.0).abs()).fold(0.0, f64::max);
        let k = f.len().min(xf.len()) - 1;
        let end = f[..=k].iter().max().copied().unwrap_or(0) as f64 / xf[..=k].iter().max().copied().unwrap_or(1) as f64 - 1.0;
        let ff = &r.summary["fast_forward"];
        let ev = r.summary["events"].as_u64().unwrap();
        println!(
            "| {tol} | {w} | {} | {:.1} % | {:.2} % | {:.2} % | {:+.2} % | {ev} ({:.1}x fewer) | {wall:.2} s | {:.1}x |",
            ff["iterations_skipped"],
            ff["skipped_fraction"].as_f64().unwrap() * 100.0,
            ff["error_estimate_fraction"].as_f64().unwrap() * 100.0,
            worst * 100.0,
            end * 100.0,
            xev as f64 / ev as f64,
            wall0 / wall
        );
    }
}
