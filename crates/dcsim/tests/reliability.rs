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
        let text =
            FAT_TREE.replace("src = \"h0\"", &format!("src = {:?}", bad).replace("\\u{2028}", "\u{2028}").replace("\\u{85}", "\\u0085"));
        let e = load_err(&text);
        assert!(e.starts_with("traffic[0].flows[0].src: no host named '"), "{e}");
        assert!(!e.contains(['\n', '\r', '\u{2028}', '\u{85}']), "{e:?}");
    }
    let e = load_err(&FAT_TREE.replace("delay = \"1us\"", "delay = \"1u\\ns\""));
    assert!(e.starts_with("topology.delay: ") && e.contains(r#""1u\ns""#), "{e}");
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dcsim-rel-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

const STAR: &str = "[simulation]\nduration = \"10us\"\n[topology]\ntype = \"star\"\nhosts = 2\nrate = \"1Gbps\"\ndelay = \"1us\"\n";

/// A scenario naming `file` in each place a scenario can name one.
fn referencing(file: &str) -> [(&'static str, String); 3] {
    [
        ("topology.file", format!("[simulation]\nduration = \"10us\"\n[topology]\ntype = \"hpcc\"\nfile = {file:?}\n")),
        ("traffic[0].file", format!("{STAR}[[traffic]]\ntype = \"csv\"\nfile = {file:?}\n")),
        ("traffic[0].file", format!("{STAR}[[traffic]]\ntype = \"cdf\"\nload = 0.5\nstop = \"5us\"\nfile = {file:?}\n")),
    ]
}

#[test]
fn referenced_files_are_read_only_as_text() {
    let dir = scratch("text");
    std::fs::write(dir.join("bin.txt"), b"3 1 2\n\x00\x01\x02").unwrap();
    std::fs::write(dir.join("latin1.txt"), b"3 1 2\n\xe9\n").unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    // A 1 GiB file that takes no disk space: refused from its size, not read.
    std::fs::File::create(dir.join("huge.txt")).unwrap().set_len(1 << 30).unwrap();
    let cases = [
        ("sub", "'{dir}/sub' is a directory, not a file"),
        ("bin.txt", "'{dir}/bin.txt' is a binary file, not text (NUL byte at offset 6)"),
        ("latin1.txt", "'{dir}/latin1.txt' is not UTF-8 text (invalid byte at offset 6)"),
        ("missing.txt", "'{dir}/missing.txt' cannot be read: no such file or directory"),
        ("huge.txt", "'{dir}/huge.txt' is larger than 256 MiB, the most a scenario file or a file it names may be"),
    ];
    for (file, want) in cases {
        let want = want.replace("{dir}", dir.to_str().unwrap());
        for (k, (field, text)) in referencing(file).into_iter().enumerate() {
            let e = load_str(&text, &dir, &[]).map(|_| ()).unwrap_err().to_string();
            // A CDF file that is not there also names the shipped workloads.
            let hint = if k == 2 && file == "missing.txt" {
                "; the shipped workloads are in data/workloads and can be named without a path (websearch, hadoop, fbhdp); \
                 a file elsewhere needs --data-root DIR"
            } else {
                ""
            };
            assert_eq!(e, format!("{field}: {want}{hint}"), "{file}");
        }
    }
    // Devices are refused as such when a data root lets the scenario name them.
    let e = dcsim::scenario::load_str_with(&referencing("/dev/zero")[1].1, &dir, &[], &["/dev".into()]).unwrap_err().to_string();
    assert_eq!(e, "traffic[0].file: '/dev/zero' is not a regular file (a device, a pipe or a socket?)");
    let e = dcsim::scenario::load_file(Path::new("/dev/zero"), &[]).unwrap_err().to_string();
    assert!(e.contains("is not a regular file"), "{e}");
    // A relative name is shown resolved: where it was looked for.
    for (field, text) in referencing("sub/../missing.txt") {
        let e = load_str(&text, &dir, &[]).map(|_| ()).unwrap_err().to_string();
        let want = format!("{field}: '{}' cannot be read", dir.join("missing.txt").display());
        assert!(e.starts_with(&want), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn file_references_stay_inside_the_scenario_directory_and_the_data_roots() {
    let dir = scratch("scope");
    let scen = dir.join("scenarios");
    std::fs::create_dir(&scen).unwrap();
    std::fs::write(dir.join("sizes.txt"), "1000 0\n3000 100\n").unwrap();
    std::fs::write(scen.join("sizes.txt"), "1000 0\n3000 100\n").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", scen.join("passwd.txt")).unwrap();
    std::os::unix::fs::symlink("/etc", scen.join("etc")).unwrap();
    std::os::unix::fs::symlink(dir.join("sizes.txt"), scen.join("up.txt")).unwrap();
    std::os::unix::fs::symlink(scen.join("sizes.txt"), scen.join("same.txt")).unwrap();
    let outside = |shown: &str| format!("'{shown}' is outside the scenario's directory and the data roots");
    let through = |named: &str, target: &str| format!("'{named}' leads (through a symbolic link) to '{target}', outside");
    let d = dir.display().to_string();
    let s = scen.display().to_string();
    let cases = [
        ("../../../../../../../../etc/passwd", outside("/etc/passwd")),
        ("/etc/passwd", outside("/etc/passwd")),
        ("/dev/zero", outside("/dev/zero")),
        ("/dev/urandom", outside("/dev/urandom")),
        ("../sizes.txt", outside(&format!("{d}/sizes.txt"))),
        ("sub/../../sizes.txt", outside(&format!("{d}/sizes.txt"))),
        ("passwd.txt", through(&format!("{s}/passwd.txt"), "/etc/passwd")),
        ("etc/passwd", through(&format!("{s}/etc/passwd"), "/etc/passwd")),
        ("up.txt", through(&format!("{s}/up.txt"), &format!("{d}/sizes.txt"))),
        // A missing file outside is "outside" too: errors do not tell what exists there.
        ("../nope.txt", outside(&format!("{d}/nope.txt"))),
        ("/etc/no-such-file", outside("/etc/no-such-file")),
    ];
    for (file, want) in &cases {
        for (field, text) in referencing(file) {
            let e = load_str(&text, &scen, &[]).map(|_| ()).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}: {want}")), "{file}: {e}");
            assert!(e.contains("--data-root"), "{e}");
            assert!(!e.contains("root:"), "content echoed: {e}");
        }
    }
    // Inside: a plain file and a symlink to one in the directory; the parent directory
    // once it is passed as a data root.
    let cdf = |f: &str| referencing(f)[2].1.clone();
    for f in ["sizes.txt", "same.txt", "./sizes.txt", &format!("{s}/sizes.txt")] {
        load_str(&cdf(f), &scen, &[]).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    // A name that leaves the directory but leads back into it through a link (as the
    // shipped scenarios' `../data` does into the shipped data) is followed.
    std::os::unix::fs::symlink(&scen, dir.join("back")).unwrap();
    load_str(&cdf("../back/sizes.txt"), &scen, &[]).unwrap();
    let root = [dir.clone()];
    for f in ["../sizes.txt", "up.txt"] {
        dcsim::scenario::load_str_with(&cdf(f), &scen, &[], &root).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    // A file outside, once allowed, is read as data: its content is not echoed.
    let etc = ["/etc".into()];
    for (field, text) in referencing("/etc/passwd") {
        let e = dcsim::scenario::load_str_with(&text, &scen, &[], &etc).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{field}: '/etc/passwd', line 1: ")), "{e}");
        assert!(!e.contains("root") && !e.contains("/bin"), "content echoed: {e}");
    }
    // A data root must be a directory.
    let e = dcsim::scenario::load_str_with(STAR, &scen, &[], &[dir.join("nope")]).unwrap_err().to_string();
    assert!(e.starts_with(&format!("data_roots[0]: '{d}/nope': no such file or directory")), "{e}");
    // Files through a scenario file resolve against its directory.
    std::fs::write(scen.join("s.toml"), cdf("../sizes.txt")).unwrap();
    let e = dcsim::scenario::load_file(&scen.join("s.toml"), &[]).unwrap_err().to_string();
    assert!(e.starts_with(&format!("traffic[0].file: {}", outside(&format!("{d}/sizes.txt")))), "{e}");
    dcsim::scenario::load_file_with(&scen.join("s.toml"), &[], &root).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_about_file_content_name_the_file_and_line_not_the_content() {
    let dir = scratch("content");
    let m = "SECRET-7f3a";
    let files: &[(&str, &str, String)] = &[
        ("topology.file", "t", format!("{m}\n")),
        ("topology.file", "t", format!("3 1 {m}\n")),
        ("topology.file", "t", format!("3 1 2\n2\n0 2 {m} 1us 0\n1 2 100Gbps 1us 0\n")),
        ("topology.file", "t", format!("3 1 2\n2\n0 2 100Gbps {m} 0\n1 2 100Gbps 1us 0\n")),
        ("topology.file", "t", format!("3 1 2\n2\n0 2 100Gbps 1us {m}\n1 2 100Gbps 1us 0\n")),
        ("topology.file", "t", format!("3 1 2\n2\n0 2 {m}\n")),
        ("traffic[0].file", "c", format!("src,dst,{m},start\n")),
        ("traffic[0].file", "c", format!("src,dst,size,start\n{m},h1,1,1\n")),
        ("traffic[0].file", "c", format!("src,dst,size,start\nh0,h1,{m},1\n")),
        ("traffic[0].file", "c", format!("src,dst,size,start\nh0,h1,1,{m}\n")),
        ("traffic[0].file", "c", format!("src,dst,size,start,priority\nh0,h1,1,1,{m}\n")),
        ("traffic[0].file", "c", format!("src,dst,size,start\nh0,h0,1,1 {m}\n")),
        ("traffic[0].file", "d", format!("{m} 0\n")),
        ("traffic[0].file", "d", format!("1000 0\n2000 {m}\n")),
        ("traffic[0].file", "d", format!("1000 0\n2000 50 {m} 1\n")),
    ];
    for (i, (field, kind, content)) in files.iter().enumerate() {
        let name = format!("f{i}.txt");
        std::fs::write(dir.join(&name), content).unwrap();
        let r = referencing(&name);
        let text = &r[match *kind {
            "t" => 0,
            "c" => 1,
            _ => 2,
        }]
        .1;
        let e = load_str(text, &dir, &[]).map(|_| ()).unwrap_err().to_string();
        let want = format!("{field}: '{}', ", dir.join(&name).display());
        assert!(e.starts_with(&want), "{content:?}: {e}");
        assert!(e.contains("line "), "{content:?}: {e}");
        assert!(!e.contains(m), "content echoed: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn log_caps_must_fit_the_memory_limit() {
    let e = load_err(&FAT_TREE.replace("[[traffic]]", "[stats]\nmax_rows = 1000000000000\n[[traffic]]"));
    assert!(e.starts_with("stats.max_rows: 1000000000000 rows could need about ") && e.contains("the limit is 16.00 GiB"), "{e}");
    let e = load_err(&FAT_TREE.replace("[[traffic]]", "[stats]\nmax_pfc_events = 1000000000000\n[[traffic]]"));
    assert!(e.starts_with("stats.max_pfc_events: "), "{e}");
}
