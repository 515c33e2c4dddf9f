//! A process with less memory than dcsim's own limit (`ulimit -v`, a container): a
//! scenario too large for it is an error, never an abort. The test runs itself again
//! as a child under a 4 GiB address-space cap (`RLIMIT_AS`), on an incast of 10^7 flows.

use std::os::unix::process::CommandExt;
use std::process::Command;

const CAP: u64 = 4 << 30;
const CHILD: &str = "DCSIM_ALLOC_CHILD";

fn incast(memory_limit: Option<&str>) -> String {
    let limit = memory_limit.map_or(String::new(), |l| format!("memory_limit = \"{l}\"\n"));
    format!(
        r#"
[simulation]
duration = "10us"
{limit}
[topology]
type = "star"
hosts = 5
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "incast"
receiver = "h0"
sender_count = 4
flows_per_sender = 2500000
"#
    )
}

/// In the child: loads and builds the scenario of `DCSIM_ALLOC_CHILD`, prints the
/// outcome on one line.
fn child(which: &str) {
    let text = incast(if which == "explicit" { Some("64GiB") } else { None });
    let out = dcsim::scenario::load_str(&text, std::path::Path::new("."), &[]).and_then(|plan| dcsim::Simulation::new(&plan).map(|_| ()));
    match out {
        Ok(()) => println!("OUTCOME ok"),
        Err(e @ dcsim::Error::Resource { .. }) => println!("OUTCOME resource {e}"),
        Err(e) => println!("OUTCOME error {e}"),
    }
}

fn run_capped(which: &str) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "ten_million_flows_under_an_address_space_cap", "--nocapture", "--test-threads=1"]).env(CHILD, which);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let r = libc::rlimit { rlim_cur: CAP as libc::rlim_t, rlim_max: CAP as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.code().is_some(), "the child was killed ({:?}): {stderr}", out.status);
    assert!(!stderr.contains("memory allocation of"), "{stderr}");
    stdout
        .lines()
        .find_map(|l| l.split_once("OUTCOME ").map(|x| x.1))
        .unwrap_or_else(|| panic!("no outcome: {stdout}\n{stderr}"))
        .to_string()
}

#[test]
fn ten_million_flows_under_an_address_space_cap() {
    if let Ok(which) = std::env::var(CHILD) {
        return child(&which);
    }
    // The default limit is the room the cap leaves: refused by the estimate, naming it.
    let e = run_capped("default");
    assert!(e.starts_with("error traffic[0].flows_per_sender: this scenario needs about "), "{e}");
    assert!(e.contains("10000000 flows") && e.contains("address-space limit (RLIMIT_AS"), "{e}");
    // A limit set above the cap: the allocation fails, as an error naming what was built.
    let e = run_capped("explicit");
    assert!(e.starts_with("resource ") && e.contains(": out of memory: could not allocate"), "{e}");
}
