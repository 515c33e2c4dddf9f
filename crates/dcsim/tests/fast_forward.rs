//! Fast-forward through a training job's steady iterations (`simulation.fast_forward`,
//! docs/fast_forward.md): against the exact run of the same scenario, the iteration
//! times and the job's end within the stated bound, far fewer events, and the summary
//! saying what was skipped; runs that cannot skip say why.

mod common;
use common::{col_i64, col_u64};

use std::path::Path;

use dcsim::results::Results;

fn run(file: &str, sets: &[&str]) -> Results {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(file);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let plan = dcsim::scenario::load_file(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    r
}

/// The ring all-reduce job, long enough to have a steady phase.
const RING: [&str; 2] = ["traffic[0].iterations=40", "simulation.duration=40ms"];

#[test]
fn the_ring_all_reduce_fast_forwarded_matches_the_exact_run() {
    let exact = run("ai_ring_allreduce.toml", &RING);
    let ff = run("ai_ring_allreduce.toml", &[&RING[..], &["simulation.fast_forward=true"]].concat());
    let s = &ff.summary["fast_forward"];
    println!("{s:#}");
    let (fe, xe) = (col_u64(&ff, "jobs", "finish_ps"), col_u64(&exact, "jobs", "finish_ps"));
    assert_eq!(fe.len(), 40, "every iteration is in the jobs table");
    assert_eq!(xe.len(), 40);
    let (fi, xi) = (col_u64(&ff, "jobs", "iteration_ps"), col_u64(&exact, "jobs", "iteration_ps"));
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len() as f64;
    let end_err = fe[39] as f64 / xe[39] as f64 - 1.0;
    let it_err = mean(fi) / mean(xi) - 1.0;
    // Each iteration's completion time.
    let worst = fe.iter().zip(xe).map(|(a, b)| (*a as f64 / *b as f64 - 1.0).abs()).fold(0.0, f64::max);
    let (fev, xev) = (ff.summary["events"].as_u64().unwrap(), exact.summary["events"].as_u64().unwrap());
    println!("job end {:.1} us vs {:.1} us ({end_err:+.4}), worst iteration end {worst:.4}, mean iteration ({it_err:+.4}), events {fev} vs {xev} ({:.1}x)", fe[39] as f64 / 1e6, xe[39] as f64 / 1e6, xev as f64 / fev as f64);
    let skipped = s["iterations_skipped"].as_u64().unwrap();
    assert!(skipped >= 20, "{s}");
    assert_eq!(col_u64(&ff, "jobs", "fast_forwarded").iter().sum::<u64>(), skipped);
    let bound = s["tolerance"].as_f64().unwrap();
    assert!(end_err.abs() <= bound, "job end off by {end_err}");
    assert!(worst <= bound, "an iteration's completion off by {worst}");
    // The error estimate covers the error the skip made.
    let (est, made) = (s["error_estimate_ps"].as_f64().unwrap(), (fe[39] as f64 - xe[39] as f64).abs());
    println!("error estimate {:.1} us, job end off by {:.1} us", est / 1e6, made / 1e6);
    assert!(made <= est, "the job's end is off by {made} ps, more than the estimate {est} ps");
    assert!(xev as f64 / fev as f64 > 3.0, "{fev} events against {xev}");
    // The job's queue pairs are credited the skipped iterations' packets, and finish
    // with the job, as in the exact run.
    let (fd, xd) = (col_u64(&ff, "flows", "bytes_delivered"), col_u64(&exact, "flows", "bytes_delivered"));
    assert_eq!(fd, xd);
    assert_eq!(col_i64(&ff, "flows", "size_bytes"), col_i64(&exact, "flows", "size_bytes"));
    let (ff_fct, x_fct) = (col_i64(&ff, "flows", "fct_ps"), col_i64(&exact, "flows", "fct_ps"));
    assert!(x_fct.iter().all(|&x| x > 0), "every queue pair finishes in the exact run");
    for (q, (a, b)) in ff_fct.iter().zip(x_fct).enumerate() {
        assert!(*a > 0 && (*a as f64 / *b as f64 - 1.0).abs() <= bound, "queue pair {q}: FCT {a} ps against {b} ps exactly");
    }
    assert_eq!(col_u64(&ff, "flows", "messages_completed"), col_u64(&exact, "flows", "messages_completed"));
}

/// The skip comes as early as the windows allow and goes as far as the run allows: the
/// job's start begins its first period, so with windows of 2 a job steady from the start
/// skips at the end of its 4th iteration; it resumes less than one period before the
/// run's end, which cuts the iteration then under way as it cuts the exact run's.
#[test]
fn a_job_skips_after_two_windows_of_iterations_to_within_a_period_of_the_end() {
    let sets =
        ["traffic[0].iterations=200", "simulation.duration=20ms", "simulation.fast_forward=true", "simulation.fast_forward_window=2"];
    let ff = run("ai_ring_allreduce.toml", &[&sets[..], &["simulation.fast_forward_tolerance=0.05"]].concat());
    let s = &ff.summary["fast_forward"];
    let skip = &s["skips"][0];
    let (from, by) = (skip["from_ps"].as_u64().unwrap(), skip["skipped_ps"].as_u64().unwrap());
    let ends = col_u64(&ff, "jobs", "finish_ps");
    // (The jobs table's end of an iteration is its last rank's, the skip's the round's
    // in which every rank has ended it.)
    assert!(ends[2] < from && from <= ends[3], "the skip starts at the 4th iteration's end ({ends:?}): {s}");
    let n = skip["iterations"].as_u64().unwrap();
    let period = by as f64 / n as f64;
    let left = 20e9 - (from + by) as f64;
    assert!(left >= 0.0 && left < period, "{left} ps left after the skip, periods of {period}: {s}");
}

/// The expert-parallel job of the two-job scenario alone (its `moe_alone` variant: the
/// other job and the background start after the end), 60 iterations of two all-to-alls.
#[test]
fn an_all_to_all_job_fast_forwarded_matches_the_exact_run() {
    let alone =
        ["traffic[0].start=1s", "traffic[2].start=1s", "traffic[2].stop=1.00001s", "traffic[1].iterations=60", "simulation.duration=20ms"];
    let exact = run("ai_two_jobs_moe.toml", &alone);
    let ff = run("ai_two_jobs_moe.toml", &[&alone[..], &["simulation.fast_forward=true"]].concat());
    let s = &ff.summary["fast_forward"];
    let (fe, xe) = (col_u64(&ff, "jobs", "finish_ps"), col_u64(&exact, "jobs", "finish_ps"));
    assert_eq!((fe.len(), xe.len()), (60, 60));
    let worst = fe.iter().zip(xe).map(|(a, b)| (*a as f64 / *b as f64 - 1.0).abs()).fold(0.0, f64::max);
    let (fev, xev) = (ff.summary["events"].as_u64().unwrap(), exact.summary["events"].as_u64().unwrap());
    println!("{s}\nworst iteration end error {worst:.5}, events {fev} vs {xev}");
    assert!(s["iterations_skipped"].as_u64().unwrap() >= 40, "{s}");
    assert!(worst <= s["tolerance"].as_f64().unwrap(), "an iteration's completion off by {worst}");
    assert!(xev as f64 / fev as f64 > 4.0, "{fev} events against {xev}");
}

/// Both jobs of the two-job scenario without its background (its `jobs_only` variant):
/// the data-parallel job's iterations take about twice the expert-parallel job's, so a
/// skip ends on one job's iteration boundary and within the tolerance of the other's.
#[test]
fn two_jobs_fast_forwarded_match_the_exact_run() {
    let jobs = [
        "traffic[2].start=1s",
        "traffic[2].stop=1.00001s",
        "traffic[0].iterations=24",
        "traffic[1].iterations=48",
        "simulation.duration=12ms",
    ];
    let exact = run("ai_two_jobs_moe.toml", &jobs);
    let ff = run("ai_two_jobs_moe.toml", &[&jobs[..], &["simulation.fast_forward=true"]].concat());
    let s = &ff.summary["fast_forward"];
    let (fe, xe) = (col_u64(&ff, "jobs", "finish_ps"), col_u64(&exact, "jobs", "finish_ps"));
    assert_eq!((fe.len(), xe.len()), (72, 72), "every iteration of both jobs is in the jobs table");
    assert_eq!(ff.table("jobs").unwrap().get("job"), exact.table("jobs").unwrap().get("job"));
    let worst = fe.iter().zip(xe).map(|(a, b)| (*a as f64 / *b as f64 - 1.0).abs()).fold(0.0, f64::max);
    // Each job's last iteration: the error estimate covers both.
    let made = [23, 71].map(|i| (fe[i] as f64 - xe[i] as f64).abs()).into_iter().fold(0.0, f64::max);
    let (fev, xev) = (ff.summary["events"].as_u64().unwrap(), exact.summary["events"].as_u64().unwrap());
    println!("{s}\nworst iteration end error {worst:.5}, last ends off by {made} ps, events {fev} vs {xev}");
    let skipped = s["iterations_skipped"].as_u64().unwrap();
    assert!(skipped >= 20, "{s}");
    assert_eq!(col_u64(&ff, "jobs", "fast_forwarded").iter().sum::<u64>(), skipped);
    assert!(worst <= s["tolerance"].as_f64().unwrap(), "an iteration's completion off by {worst}");
    assert!(made <= s["error_estimate_ps"].as_f64().unwrap(), "a job's end is off by {made} ps, more than the estimate: {s}");
    assert!(xev as f64 / fev as f64 > 1.8, "{fev} events against {xev}");
    assert_eq!(col_u64(&ff, "flows", "bytes_delivered"), col_u64(&exact, "flows", "bytes_delivered"));
    // Both jobs' queue pairs finish with their jobs.
    assert_eq!(col_u64(&ff, "flows", "messages_completed"), col_u64(&exact, "flows", "messages_completed"));
}

/// Runs it cannot skip in (a job beside other traffic, flows that never settle) are the
/// exact run, and say why.
#[test]
fn runs_that_cannot_skip_are_the_exact_run_and_say_why() {
    for (file, sets, why) in [
        ("ai_two_jobs_moe.toml", vec!["traffic[0].start=1s"], "traffic[2] (websearch) runs beside a training job"),
        // Flows start every few microseconds: never two windows without a change.
        ("leaf_spine_websearch.toml", vec!["simulation.duration=3ms"], "no steady phase was found"),
    ] {
        let exact = run(file, &sets);
        let ff = run(file, &[&sets[..], &["simulation.fast_forward=true"]].concat());
        let s = &ff.summary["fast_forward"];
        assert_eq!(s["skipped_ps"], 0, "{s}");
        assert!(s["not_skipped_because"].as_str().unwrap().contains(why), "{why:?} not in {s}");
        assert_eq!(ff.summary["events"], exact.summary["events"], "{file}");
        // Every table as the exact run's (but the run id, which the setting changes).
        for (name, t) in &exact.tables {
            let other = ff.table(name).unwrap_or_else(|| panic!("{file}: no table {name}"));
            for (col, c) in t.columns.iter().filter(|(c, _)| c != "run_id") {
                // (As text: NaN, the slowdown of a job's queue pair, equals itself there.)
                assert_eq!(format!("{:?}", other.get(col)), format!("{:?}", Some(c)), "{file}: {name}.{col}");
            }
        }
    }
}

#[test]
fn bad_settings_name_the_field() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/ai_ring_allreduce.toml");
    for (sets, want) in [
        (
            vec!["simulation.fast_forward_tolerance=0.01"],
            "simulation.fast_forward_tolerance: has no effect without simulation.fast_forward = true",
        ),
        (
            vec!["simulation.fast_forward=true", "simulation.fast_forward_tolerance=0"],
            "simulation.fast_forward_tolerance: must be a fraction in (0, 0.5], got 0",
        ),
        (
            vec!["simulation.fast_forward=true", "simulation.fast_forward_window=1"],
            "simulation.fast_forward_window: must be at least 2 iterations, got 1",
        ),
        (vec!["simulation.fast_forward=true", "simulation.threads=2"], "simulation.threads: simulation.fast_forward runs on one thread"),
    ] {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = dcsim::scenario::load_file(&path, &sets).map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with(want), "{e}");
    }
}

/// A permutation of long flows (k = 8 fat tree, packets sprayed round-robin, PFC, 200 MB
/// each): fast-forwarded with rates measured over 200 us, every flow completes within
/// the tolerance of the exact run, with the same bytes, and far fewer events.
#[test]
fn a_long_permutation_fast_forwarded_matches_the_exact_run() {
    let sets = ["traffic[0].size=\"200MB\"", "simulation.duration=\"20ms\"", "stats.steady_start=\"0us\""];
    let exact = run("lb_permutation_k8.toml", &sets);
    let ff = run(
        "lb_permutation_k8.toml",
        &[&sets[..], &["simulation.fast_forward=true", "simulation.fast_forward_interval=\"200us\""]].concat(),
    );
    let s = &ff.summary["fast_forward"];
    let (fe, xe) = (col_i64(&ff, "flows", "fct_ps"), col_i64(&exact, "flows", "fct_ps"));
    assert!(xe.iter().all(|&x| x > 0), "every flow finishes in the exact run");
    let worst = fe.iter().zip(xe).map(|(a, b)| (*a as f64 / *b as f64 - 1.0).abs()).fold(0.0, f64::max);
    let (fev, xev) = (ff.summary["events"].as_u64().unwrap(), exact.summary["events"].as_u64().unwrap());
    println!("{s}\nworst FCT error {worst:.5}, events {fev} vs {xev} ({:.1}x)", xev as f64 / fev as f64);
    assert!(s["skips"][0]["flows"].as_u64().unwrap() == 128, "{s}");
    assert!(worst <= s["tolerance"].as_f64().unwrap(), "a flow's completion off by {worst}");
    assert_eq!(col_u64(&ff, "flows", "bytes_delivered"), col_u64(&exact, "flows", "bytes_delivered"));
    // The credited packets leave the sequence space, not the size the table shows.
    assert_eq!(col_i64(&ff, "flows", "size_bytes"), col_i64(&exact, "flows", "size_bytes"));
    assert!(xev as f64 / fev as f64 > 2.0, "{fev} events against {xev}");
    // The frames in flight across the skip carry their send times moved with the world:
    // none arrives looking a skip old.
    let (fl, xl) = (col_u64(&ff, "flows", "latency_max_ps"), col_u64(&exact, "flows", "latency_max_ps"));
    let (fm, xm) = (fl.iter().max().unwrap(), xl.iter().max().unwrap());
    assert!(*fm < 2 * xm, "a frame's latency {fm} ps against at most {xm} ps in the exact run");
}
