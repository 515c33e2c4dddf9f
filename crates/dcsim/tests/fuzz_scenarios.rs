//! Property-based robustness test: scenarios mutated from the shipped ones (keys
//! deleted, types swapped, extreme numbers, odd units and unicode, huge counts, and
//! extreme valid values: 1 ps intervals, huge fabrics and flow counts, tiny buffers)
//! go through scenario loading and, when they load, a short run. Every case must end
//! in `Ok` or in a one-line error naming a field (`path: reason`): never a panic, never
//! a hang (each run is capped in simulated time and in events, its clock must advance,
//! and a case may take at most `CASE_SECONDS` of wall time), never an abort (a memory
//! limit of 256 MiB applies), and never a run past its work estimate (more events than
//! `scenario::work` allows for, by its stated factor).
//!
//! The default suite runs a bounded number of cases (a few seconds). A longer run:
//!
//! ```text
//! DCSIM_FUZZ_CASES=10000 cargo test --release -p dcsim --test fuzz_scenarios -- --nocapture
//! ```
//!
//! `DCSIM_FUZZ_SEED` picks another sequence of cases, `DCSIM_FUZZ_FIRST` the first
//! case number (to split a long run among processes). A failing case prints its seed,
//! case number and the mutated scenario text, which reproduces it with `dcsim validate`
//! or `dcsim run`. `DCSIM_FUZZ_VERBOSE` prints every error (`FIELD-ERROR path: reason`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use dcsim::rng::Rng;
use dcsim::SimTime;
use toml::Value;

/// Simulated time and events each run that loads may use.
const RUN_TIME: SimTime = SimTime::us(20);
const RUN_EVENTS: u64 = 200_000;
/// Wall time a case may take (loading and its short run).
const CASE_SECONDS: f64 = 20.0;
/// A run may take at most this many times its estimated events (`scenario::work`: the
/// estimate is at least half the events, docs/scenarios.md), plus a few for start-up.
const PAST_ESTIMATE: u64 = 2;
const ESTIMATE_SLACK: u64 = 1000;

/// Valid but extreme settings: (dotted path, values). Applied where the scenario has
/// the table (or adds the key to it).
const EXTREME_VALID: &[(&str, &[&str])] = &[
    ("stats.sample_interval", &["\"1ps\"", "\"1ns\""]),
    ("stats.goodput_interval", &["\"1ps\""]),
    ("stats.max_rows", &["1", "100000000000"]),
    ("switch.l2cm.interval", &["\"1ps\""]),
    ("switch.pfc.deadlock_check", &["\"1ps\""]),
    ("switch.pfc.pause_time", &["\"1ps\""]),
    ("host.cc.probe_interval", &["\"1ps\""]),
    ("host.cc.alpha_period", &["\"1ps\""]),
    ("host.cc.timer_period", &["\"1ps\""]),
    ("host.mtu", &["\"1B\"", "\"9000B\"", "\"65000B\""]),
    ("simulation.duration", &["\"1ps\"", "\"1000s\"", "\"50d\""]),
    ("simulation.threads", &["2", "16"]),
    ("topology.k", &["2", "64", "1000"]),
    ("topology.hosts", &["1", "2", "100000", "10000000"]),
    ("topology.rate", &["\"8Tbps\"", "\"1bps\""]),
    ("topology.delay", &["\"0ps\"", "\"1s\""]),
    ("topology.leaves", &["100000"]),
    ("switch.buffer.size", &["\"1B\"", "\"1TiB\""]),
    ("traffic.0.flows_per_sender", &["1000000", "10000000"]),
    ("traffic.0.size", &["\"1B\"", "\"1PB\""]),
    ("traffic.0.rate", &["\"8Tbps\""]),
    ("traffic.0.load", &["0.000001", "1.0"]),
];

/// Sets `path` (dotted; a number indexes an array) to the TOML value `v`, where the
/// tables on the way exist.
fn set_path(root: &mut Value, path: &str, v: &str) {
    let value: Value = match format!("x = {v}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("x").unwrap(),
        Err(_) => return,
    };
    let parts: Vec<&str> = path.split('.').collect();
    let mut cur = root;
    for p in &parts[..parts.len() - 1] {
        cur = match (cur, p.parse::<usize>()) {
            (Value::Array(a), Ok(i)) if i < a.len() => &mut a[i],
            (Value::Table(t), _) if t.contains_key(*p) => t.get_mut(*p).unwrap(),
            _ => return,
        };
    }
    if let Value::Table(t) = cur {
        t.insert(parts[parts.len() - 1].to_string(), value);
    }
}

fn shipped() -> Vec<(PathBuf, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.push(root.join("python/dcsim/benchmarks/incast_64_to_1.toml"));
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let v: Value = Value::Table(std::fs::read_to_string(&p).unwrap().parse().unwrap());
            (p, v)
        })
        .collect()
}

const ODD_STRINGS: &[&str] = &[
    "",
    " ",
    "0",
    "-1",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "0ps",
    "1ps",
    "0.5ps",
    "1000Tbps",
    "8Tbps",
    "8.000001Tbps",
    "1bps",
    "0bps",
    "1e30GiB",
    "18446744073709551615B",
    "9223372036854775807ps",
    "1e19ps",
    "106751991167s",
    "0B",
    "1B",
    "65535B",
    "65536B",
    "4GiB",
    "-0us",
    "+5us",
    "1.5.5us",
    "1 us",
    "1\nus",
    "1u\ns",
    "\u{2028}",
    "h\u{2028}0",
    "µs",
    "5µs",
    "５us",
    "1ｍs",
    "💥",
    "h0\n",
    "\"",
    "'",
    "\\",
    "h0",
    "h1",
    "R",
    "A",
    "S1",
    "core0",
    "static",
    "shared",
    "pfc",
    "pause",
    "none",
    "dcqcn",
    "fixed",
    "inf",
    "formula",
    "hpcc",
    "control",
    "step",
    "red",
    "off",
    "dwrr",
    "strict",
    "per_flow",
    "/nonexistent",
    "../data",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
];

const EXTREME_INTS: &[i64] = &[
    0,
    1,
    -1,
    2,
    7,
    8,
    255,
    256,
    65535,
    65536,
    1 << 20,
    1_000_000_000,
    (1 << 31) - 1,
    1 << 31,
    u32::MAX as i64,
    (u32::MAX as i64) + 1,
    1 << 53,
    i64::MAX,
    i64::MIN,
];

const EXTREME_FLOATS: &[f64] = &[0.0, -0.0, 1e-300, 1e-9, 0.5, 1.0, 1.0000001, 2.0, -1.0, 1e300, f64::INFINITY, f64::NAN];

fn pick<'a, T>(rng: &mut Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.below(xs.len() as u64) as usize]
}

fn random_value(rng: &mut Rng, like: Option<&Value>) -> Value {
    // Mostly a value of the same kind with an odd content; sometimes another kind.
    let kind = match (like, rng.below(3)) {
        (Some(Value::String(_)), 0 | 1) => 0,
        (Some(Value::Integer(_)), 0 | 1) => 1,
        (Some(Value::Float(_)), 0 | 1) => 2,
        _ => rng.below(7),
    };
    match kind {
        0 => Value::String(pick(rng, ODD_STRINGS).to_string()),
        1 => Value::Integer(*pick(rng, EXTREME_INTS)),
        2 => Value::Float(*pick(rng, EXTREME_FLOATS)),
        3 => Value::Boolean(rng.below(2) == 0),
        4 => Value::Array((0..rng.below(4)).map(|_| Value::Integer(*pick(rng, EXTREME_INTS))).collect()),
        5 => {
            let mut t = toml::Table::new();
            t.insert(pick(rng, ODD_STRINGS).to_string(), Value::String(pick(rng, ODD_STRINGS).to_string()));
            Value::Table(t)
        }
        _ => Value::Array(vec![Value::String(pick(rng, ODD_STRINGS).to_string())]),
    }
}

/// Applies one mutation at a random place of `v`.
fn mutate(rng: &mut Rng, v: &mut Value, depth: u32) {
    match v {
        Value::Table(t) if !t.is_empty() => {
            let keys: Vec<String> = t.keys().cloned().collect();
            let k = pick(rng, &keys).clone();
            match rng.below(10) {
                0 => {
                    t.remove(&k);
                }
                1 => {
                    let nv = random_value(rng, None);
                    t.insert(pick(rng, ODD_STRINGS).to_string(), nv);
                }
                2 | 3 => {
                    let nv = random_value(rng, t.get(&k));
                    t.insert(k, nv);
                }
                _ => {
                    let child = t.get_mut(&k).unwrap();
                    if depth < 6 && matches!(child, Value::Table(_) | Value::Array(_)) {
                        mutate(rng, child, depth + 1);
                    } else {
                        *child = random_value(rng, Some(child));
                    }
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len() as u64) as usize;
            match rng.below(6) {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let c = a[i].clone();
                    for _ in 0..rng.below(3) + 1 {
                        a.push(c.clone());
                    }
                }
                2 => a[i] = random_value(rng, Some(&a[i])),
                _ => {
                    if depth < 6 && matches!(a[i], Value::Table(_) | Value::Array(_)) {
                        mutate(rng, &mut a[i], depth + 1);
                    } else {
                        a[i] = random_value(rng, Some(&a[i]));
                    }
                }
            }
        }
        other => *other = random_value(rng, Some(other)),
    }
}

/// Multiplies a number in place (a plain integer or the number of a unit string) by a
/// large or small factor: the values a mistyped digit gives.
fn scale(rng: &mut Rng, v: &mut Value, depth: u32) {
    match v {
        Value::Table(t) if !t.is_empty() && depth < 6 => {
            let keys: Vec<String> = t.keys().cloned().collect();
            let k = pick(rng, &keys).clone();
            scale(rng, t.get_mut(&k).unwrap(), depth + 1);
        }
        Value::Array(a) if !a.is_empty() && depth < 6 => {
            let i = rng.below(a.len() as u64) as usize;
            scale(rng, &mut a[i], depth + 1);
        }
        Value::Integer(i) => *i = i.saturating_mul(*pick(rng, &[0, 1000, 1_000_000, 1 << 32, -1])),
        Value::Float(f) => *f *= *pick(rng, &[0.0, 1e-6, 1e6, 1e300]),
        Value::String(s) => {
            let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
            if let Ok(x) = s[..end].parse::<f64>() {
                let f = *pick(rng, &[0.0, 1e-9, 1e-3, 1e3, 1e6, 1e9, 1e15]);
                *s = format!("{}{}", x * f, &s[end..]);
            }
        }
        _ => {}
    }
}

/// `Ok(true)` (loaded and ran), `Ok(false)` (a clean error) or why the case fails.
fn check_case(text: &str, base: &Path) -> Result<bool, String> {
    // 256 MiB, and log caps that fit in it (unless a mutation removed [stats]).
    let mut overrides = vec!["simulation.memory_limit=\"256MiB\"".to_string()];
    if !text.contains("max_rows") {
        overrides.push("stats.max_rows=100000".to_string());
    }
    let loaded = catch_unwind(AssertUnwindSafe(|| dcsim::scenario::load_str(text, base, &overrides)))
        .map_err(|p| format!("panic while loading: {}", panic_text(&p)))?;
    let mut plan = match loaded {
        Ok(p) => p,
        Err(e @ dcsim::Error::Resource { .. }) => {
            // Allocation failure as an error (the memory estimate is below the real need):
            // clean, but counted apart.
            eprintln!("RESOURCE-ERROR {e}");
            return Ok(false);
        }
        Err(e) => {
            let e = e.to_string();
            let (path, reason) = e.split_once(": ").ok_or_else(|| format!("error without a field: {e:?}"))?;
            if path.trim().is_empty() || reason.trim().is_empty() {
                return Err(format!("error without a field or a reason: {e:?}"));
            }
            if e.contains(|c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}') {
                return Err(format!("error on more than one line: {e:?}"));
            }
            if std::env::var_os("DCSIM_FUZZ_VERBOSE").is_some() {
                eprintln!("FIELD-ERROR {e}");
            }
            return Ok(false);
        }
    };
    plan.duration = plan.duration.min(RUN_TIME);
    plan.stats.steady_start = SimTime::ZERO;
    // The bound of the short run: what the estimate allows for it, by its stated factor.
    let bound = dcsim::scenario::work::plan_work(&plan).events().saturating_mul(PAST_ESTIMATE).saturating_add(ESTIMATE_SLACK);
    let run = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
        let mut sim = match dcsim::Simulation::new(&plan) {
            Ok(s) => s,
            Err(e @ dcsim::Error::Resource { .. }) => {
                eprintln!("RESOURCE-ERROR {e}");
                return Ok(());
            }
            Err(e) => panic!("a validated plan builds: {e}"),
        };
        let mut t = SimTime::ZERO;
        // Small steps so that the event cap is checked often; the clock must advance.
        while sim.events() < RUN_EVENTS {
            t = SimTime(t.0 + 100_000);
            if !sim.run_until(t) {
                break;
            }
        }
        assert_eq!(sim.stalled(), None, "the clock stopped advancing");
        if sim.events() > bound {
            return Err(format!("ran past its work estimate: {} events by {}, at most {bound} allowed", sim.events(), sim.now()));
        }
        let capped = sim.events() >= RUN_EVENTS;
        let res = sim.finish();
        if !capped {
            assert!(res.checks_passed(), "run checks failed: {:?}", res.failed_checks());
        }
        Ok(())
    }));
    run.map_err(|p| format!("panic while running: {}", panic_text(&p)))??;
    Ok(true)
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

#[test]
fn mutated_shipped_scenarios_load_or_fail_cleanly() {
    let cases: u64 = std::env::var("DCSIM_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let seed: u64 = std::env::var("DCSIM_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let first: u64 = std::env::var("DCSIM_FUZZ_FIRST").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let max_failures: usize = std::env::var("DCSIM_FUZZ_MAX_FAILURES").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let base = shipped();
    // Quiet panic messages of the cases (they are reported below).
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let (mut loaded, mut rejected) = (0u64, 0u64);
    for case in first..first + cases {
        let mut rng = Rng::for_component(seed, "fuzz", case);
        let (file, orig) = pick(&mut rng, &base);
        let mut v = orig.clone();
        for _ in 0..rng.below(2) + 1 {
            match rng.below(3) {
                0 => scale(&mut rng, &mut v, 0),
                1 => mutate(&mut rng, &mut v, 0),
                _ => {
                    let (path, values) = *pick(&mut rng, EXTREME_VALID);
                    let value: &str = pick::<&str>(&mut rng, values);
                    set_path(&mut v, path, value);
                }
            }
        }
        let text = match toml::to_string(&v) {
            Ok(t) => t,
            Err(_) => continue, // not representable as TOML (e.g. a table after a value)
        };
        let dir = file.parent().unwrap();
        let t0 = std::time::Instant::now();
        let outcome = check_case(&text, dir);
        let secs = t0.elapsed().as_secs_f64();
        if std::env::var_os("DCSIM_FUZZ_VERBOSE").is_some() {
            eprintln!("CASE {case} {secs:.3} s");
            if secs > 1.0 {
                eprintln!("SLOW CASE {case} (from {}):\n{text}", file.display());
            }
        }
        match outcome {
            Err(why) => failures.push(format!("seed {seed} case {case} (from {}): {why}\n{text}", file.display())),
            Ok(_) if secs > CASE_SECONDS => {
                failures.push(format!("seed {seed} case {case} (from {}): took {secs:.1} s\n{text}", file.display()))
            }
            Ok(true) => loaded += 1,
            Ok(false) => rejected += 1,
        }
        if failures.len() >= max_failures {
            break;
        }
    }
    std::panic::set_hook(hook);
    eprintln!("{cases} cases: {loaded} loaded and ran, {rejected} rejected with a field error");
    assert!(failures.is_empty(), "{} failing cases:\n\n{}", failures.len(), failures.join("\n\n"));
}
