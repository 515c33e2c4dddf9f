//! The module layering that ARCHITECTURE.md promises, checked on the source text:
//! which module may name which, and that switch-side code never touches host state.
//! A failure names the file and the line that breaks the rule.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// (file relative to src/, its text without test modules and comments).
fn files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut v = Vec::new();
    sources(&src, &mut v);
    v.sort();
    v.into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            // Unit tests may reach anywhere: cut the test module off.
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
            let code: String = code.lines().map(|l| if l.trim_start().starts_with("//") { "" } else { l }).collect::<Vec<_>>().join("\n");
            (p.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/"), code)
        })
        .collect()
}

fn violations(files: &[(String, String)], applies: impl Fn(&str, &str) -> bool, needles: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, code) in files {
        if !applies(name, code) {
            continue;
        }
        for (i, line) in code.lines().enumerate() {
            for n in needles {
                if line.contains(n) {
                    out.push(format!("src/{name}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    out
}

#[test]
fn module_layers() {
    let f = files();
    let mut bad = Vec::new();
    // The fabric knows nothing above it.
    bad.extend(violations(
        &f,
        |n, _| n.starts_with("net/"),
        &["crate::plan", "crate::models", "crate::sim", "crate::scenario", "crate::keys"],
    ));
    // Models never read scenario files, and never the world: their hooks take the
    // fabric (`net::fabric::Fabric`) and their own state.
    bad.extend(violations(&f, |n, _| n.starts_with("models/"), &["crate::scenario", "crate::sim", "impl Simulation"]));
    // The scenario layer turns text into a plan and never builds the world; the world
    // is built from a plan alone.
    bad.extend(violations(&f, |n, _| n.starts_with("scenario/"), &["crate::sim"]));
    bad.extend(violations(&f, |n, _| n.starts_with("sim/") || n == "plan.rs", &["crate::scenario"]));
    bad.extend(violations(&f, |n, _| n == "plan.rs", &["crate::sim"]));
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn switches_do_not_touch_host_state() {
    let f = files();
    let switch_side = |n: &str, _: &str| {
        n == "sim/switch.rs"
            || n == "models/l2cm.rs"
            || n.ends_with("/cp.rs")
            || n == "models/fecn/switch.rs"
            || n.starts_with("models/network_cc/switch")
            || n == "models/network_cc/rcp.rs"
            || n == "models/fecn/ports.rs"
            || n.starts_with("models/ecn/mark")
            || n == "models/rcm/detection.rs"
            || n == "models/hpcc/int.rs"
            || n.starts_with("net/")
    };
    // What a switch learns about a sender comes from the sender's frames (and the flow
    // header table, which holds what those frames' headers say).
    let host_state = ["senders", "receivers", "tx_stats", "rx_stats", ".ccs", ".nics", "cc_hook"];
    let bad = violations(&f, switch_side, &host_state);
    assert!(bad.is_empty(), "switch-side code reads or writes host state:\n{}", bad.join("\n"));
    // The rule has teeth: host code does use those names.
    assert!(!violations(&f, |n, _| n == "sim/host.rs", &host_state).is_empty());
}
