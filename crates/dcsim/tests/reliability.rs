//! Inputs that used to panic, hang or abort, each now an error naming its field (issue:
//! "no panic, hang or abort on any input"), the memory limit, and the run's own checks.

use std::path::Path;

use dcsim::scenario::load_str;

fn load(text: &str) -> Result<dcsim::Plan, String> {
    load_str(text, Path::new("."), &[]).map_err(|e| e.to_string())
}

fn load_err(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e,
    }
}

const FAT_TREE: &str = r#"
[simulation]
duration = "10us"
[topology]
type = "fat_tree"
k = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[[traffic]]
type = "flows"
flows = [{ src = "h0", dst = "h1", size = "10KB" }]
"#;

#[test]
fn fat_tree_with_huge_k_and_named_hosts_is_an_error() {
    assert!(load(FAT_TREE).is_ok());
    // k = 4096: k^3/4 wrapped to 0 hosts in 32 bits and the builder indexed an empty list.
    for k in ["4096", "65536", "2048", "4294967294"] {
        let e = load_err(&FAT_TREE.replace("k = 4", &format!("k = {k}")));
        assert!(e.starts_with("topology: this scenario needs about ") || e.starts_with("topology.k: "), "k = {k}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn huge_counts_are_refused_with_the_estimate_before_allocation() {
    let leaf_spine = r#"
[simulation]
duration = "10us"
[topology]
type = "leaf_spine"
leaves = 100000
spines = 4
hosts_per_leaf = 16
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
"#;
    let e = load_err(leaf_spine);
    assert!(e.starts_with("topology: this scenario needs about "), "{e}");
    assert!(e.contains("GiB for 1600000 hosts, 100004 switches") && e.contains("the limit is 16.00 GiB"), "{e}");

    let parking = r#"
[simulation]
duration = "10us"
[topology]
type = "parking_lot"
switches = 2
senders = [1000000000, 1]
rate = "40Gbps"
delay = "1us"
"#;
    assert!(load_err(parking).starts_with("topology: this scenario needs about "));

    let incast = r#"
[simulation]
duration = "10us"
[topology]
type = "star"
hosts = 4
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "incast"
receiver = "h0"
sender_count = 3
flows_per_sender = 1000000000
"#;
    let e = load_err(incast);
    assert!(e.starts_with("traffic[0].flows_per_sender: this scenario needs about ") && e.contains("3000000000 flows"), "{e}");

    // The limit is configurable: in the scenario (or with --set) ...
    let small = incast.replace("1000000000", "1000");
    assert!(load(&small).is_ok());
    let e = load_err(&small.replace("duration = \"10us\"", "duration = \"10us\"\nmemory_limit = \"1MiB\""));
    assert!(e.contains("the limit is 0.01 GiB") || e.contains("the limit is 0.00 GiB"), "{e}");
    // ... and a plan built in code is checked by validation too.
    let mut plan = load(&small).unwrap();
    plan.memory_limit = 1 << 10;
    assert!(dcsim::scenario::validate::validate_plan(&plan).unwrap_err().to_string().contains("this scenario needs about"));
}

#[test]
fn a_rate_whose_frames_take_no_time_is_refused() {
    // At 1000 Tb/s a 64 B frame serialized in 0 ps and the clock stopped: the run hung.
    let e = load_err(&FAT_TREE.replace("host_rate = \"100Gbps\"", "host_rate = \"1000Tbps\""));
    assert!(e.starts_with("topology.host_rate: rate \"1000Tbps\" is above the largest supported rate, 8Tbps"), "{e}");
    // The largest rate runs, and its clock advances.
    let plan = load(&FAT_TREE.replace("100Gbps", "8Tbps")).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    assert_eq!(r.summary["counters"]["flows_finished"], 1);
}

#[test]
fn errors_quote_values_on_one_line() {
    for bad in ["h\n0", "h\u{2028}0", "h\r0", "h\u{85}0"] {
        let text = FAT_TREE.replace("src = \"h0\"", &format!("src = {:?}", bad).replace("\\u{2028}", "\u{2028}").replace("\\u{85}", "\\u0085"));
        let e = load_err(&text);
        assert!(e.starts_with("traffic[0].flows[0].src: no host named '"), "{e}");
        assert!(!e.contains(['\n', '\r', '\u{2028}', '\u{85}']), "{e:?}");
    }
    let e = load_err(&FAT_TREE.replace("delay = \"1us\"", "delay = \"1u\\ns\""));
    assert!(e.starts_with("topology.delay: ") && e.contains(r#""1u\ns""#), "{e}");
}

#[test]
fn referenced_files_are_read_only_as_text() {
    let dir = std::env::temp_dir().join(format!("dcsim-rel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bin.txt"), b"3 1 2\n\x00\x01\x02").unwrap();
    std::fs::write(dir.join("latin1.txt"), b"3 1 2\n\xe9\n").unwrap();
    let hpcc = |file: &str| format!("[simulation]\nduration = \"10us\"\n[topology]\ntype = \"hpcc\"\nfile = {file:?}\n");
    let load_in = |text: &str| load_str(text, &dir, &[]).map(|_| ()).unwrap_err().to_string();
    let cases = [
        (dir.to_str().unwrap().to_string(), "is a directory, not a file"),
        ("/dev/zero".to_string(), "is not a regular file"),
        ("bin.txt".to_string(), "is a binary file, not text (NUL byte at offset 6)"),
        ("latin1.txt".to_string(), "is not UTF-8 text (invalid byte at offset 6)"),
        ("missing.txt".to_string(), "cannot read"),
    ];
    for (file, want) in cases {
        let e = load_in(&hpcc(&file));
        assert!(e.starts_with("topology.file: ") && e.contains(want), "{file}: {e}");
    }
    let csv = "[simulation]\nduration = \"10us\"\n[topology]\ntype = \"star\"\nhosts = 2\nrate = \"1Gbps\"\ndelay = \"1us\"\n\
               [[traffic]]\ntype = \"csv\"\nfile = \"/dev/zero\"\n";
    assert!(load_in(csv).starts_with("traffic[0].file: '/dev/zero' is not a regular file"));
    let e = dcsim::scenario::load_file(Path::new("/dev/zero"), &[]).unwrap_err().to_string();
    assert!(e.contains("is not a regular file"), "{e}");
    // A relative name is shown resolved: where it was looked for.
    let e = load_in(&hpcc("sub/../missing.txt"));
    let want = format!("cannot read '{}'", dir.join("missing.txt").display());
    assert!(e.starts_with("topology.file: ") && e.contains(&want), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn log_caps_must_fit_the_memory_limit() {
    let e = load_err(&FAT_TREE.replace("[[traffic]]", "[stats]\nmax_rows = 1000000000000\n[[traffic]]"));
    assert!(e.starts_with("stats.max_rows: 1000000000000 rows could need about ") && e.contains("the limit is 16.00 GiB"), "{e}");
    let e = load_err(&FAT_TREE.replace("[[traffic]]", "[stats]\nmax_pfc_events = 1000000000000\n[[traffic]]"));
    assert!(e.starts_with("stats.max_pfc_events: "), "{e}");
}
