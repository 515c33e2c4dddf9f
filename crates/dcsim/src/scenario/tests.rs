//! End-to-end tests of the scenario layer: full files to `Plan`s, and malformed files to
//! errors naming the field path.

use std::path::Path;

use super::*;
use crate::plan::*;
use crate::units::{Rate, SimTime};

const BASE: &str = r#"
name = "seed000_parking_lot_pfc"
description = "two switches"

[simulation]
duration = "20ms"
seed = 1

[host]
mtu = "2048B"
header = "62B"
preamble_ifg = true
ack_bytes = "66B"
ack_every = 1
rto = "1ms"

[topology]
type = "parking_lot"
switches = 2
senders = [3, 1]
rate = "40Gbps"
delay = "100ns"

[switch]
arbitration = "fifo"
egress_limit = "100KB"
[switch.buffer]
type = "shared"
size = "32MiB"
reserve = "4KiB"
alpha_shift = 3
[switch.pfc]
mode = "pfc"
pause_mode = "xon_xoff"
lossless = [3]
xoff_quanta = 65535
pause_time = "5us"
refresh_fraction = 0.5
reaction_quanta = 0
headroom = "formula"
phy_delay = "0ns"
resume_offset = "3KiB"
[switch.scheduler]
type = "dwrr"
weights = [1,1,1,2,1,1,1,1]
strict = [7]

[[traffic]]
type = "flows"
priority = 3
flows = [
  { src = "A", dst = "R", size = "inf", start = "0us", priority = 3, rate = "10Gbps" },
  { src = "D", dst = "R", size = "1MB", start = "5us" },
]

[stats]
goodput_interval = "100us"
sample_interval = "off"
steady_start = "5ms"
max_pfc_events = 1000000
max_rows = 10000000
"#;

fn load(text: &str, ov: &[&str]) -> crate::error::Result<Plan> {
    let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
    load_str(text, Path::new("."), &ov)
}

fn err(text: &str, ov: &[&str]) -> String {
    match load(text, ov) {
        Ok(_) => panic!("expected an error for overrides {ov:?}"),
        Err(e) => e.to_string(),
    }
}

fn expect(text: &str, ov: &[&str], needles: &[&str]) {
    let e = err(text, ov);
    for n in needles {
        assert!(e.contains(n), "error '{e}' should contain '{n}'");
    }
}

/// A base scenario with one section replaced.
fn with(base: &str, from: &str, to: &str) -> String {
    assert!(base.contains(from), "test setup: '{from}' not in base");
    base.replacen(from, to, 1)
}

#[test]
fn full_scenario_parses() {
    let p = load(BASE, &[]).unwrap();
    assert_eq!(p.name, "seed000_parking_lot_pfc");
    assert_eq!(p.duration, SimTime::ms(20));
    assert_eq!(p.host.mtu, 2048);
    assert_eq!(p.nodes.len(), 7);
    assert_eq!(p.links.len(), 6);
    assert_eq!(p.links[0].rate, Rate::gbps(40));
    assert_eq!(p.links[0].delay, SimTime::ns(100));
    assert_eq!(p.switch.egress_limit, Some(100_000));
    assert_eq!(p.switch.buffer, BufferPlan::Shared { total: 32 << 20, reserve: 4096, alpha_shift: 3 });
    assert_eq!(p.switch.pfc.lossless, 1 << 3);
    assert_eq!(p.switch.scheduler.kind, SchedulerKind::Dwrr);
    assert_eq!(p.switch.scheduler.weights[3], 2);
    assert_eq!(p.switch.scheduler.strict_mask, 1 << 7);
    assert_eq!(p.flows.len(), 2);
    assert_eq!(p.flows[0].size, None);
    assert_eq!(p.flows[0].rate, Some(Rate::gbps(10)));
    assert_eq!(p.flows[1].size, Some(1_000_000));
    assert_eq!(p.flows[1].start, SimTime::us(5));
    assert_eq!(p.flows[1].src, 3);
    assert_eq!(p.flows[1].dst, 4);
    assert_eq!(p.stats.sample_interval, None);
    assert_eq!(p.stats.goodput_interval, Some(SimTime::us(100)));
    assert_eq!(p.stats.steady_start, SimTime::ms(5));
}

#[test]
fn minimal_scenario_uses_defaults() {
    let text = r#"
[simulation]
duration = "1ms"
[topology]
type = "star"
hosts = 3
rate = "10Gbps"
delay = "1us"
"#;
    let p = load(text, &[]).unwrap();
    assert_eq!(p.name, "scenario");
    assert_eq!(p.seed, 1);
    assert_eq!(p.host, HostPlan::default());
    assert_eq!(p.switch, SwitchPlan::default());
    assert_eq!(p.stats.steady_start, SimTime::us(100));
    assert!(p.flows.is_empty());
}

#[test]
fn overrides_apply_before_deserialization() {
    let p = load(BASE, &["switch.pfc.mode=off", "simulation.seed=7", "topology.rate=\"100Gbps\"", "traffic[0].flows[1].size=2KB"])
        .unwrap();
    assert_eq!(p.switch.pfc.mode, FlowControl::None);
    assert_eq!(p.seed, 7);
    assert_eq!(p.links[0].rate, Rate::gbps(100));
    assert_eq!(p.flows[1].size, Some(2000));
    expect(BASE, &["switch.pfc.xof=1"], &["switch.pfc", "unknown field 'xof'", "expected one of"]);
    expect(BASE, &["simulation.duration.x=1"], &["simulation.duration.x", "not a table"]);
}

#[test]
fn every_topology_type_loads() {
    let head = "[simulation]\nduration = \"1ms\"\n[topology]\n";
    let cases = [
        ("type = \"dumbbell\"\nsenders = 2\nreceivers = 2\nhost_rate = \"10Gbps\"\ndelay = \"1us\"", 4, 2),
        ("type = \"star\"\nhosts = 4\nrate = \"10Gbps\"\ndelay = \"1us\"", 4, 1),
        (
            "type = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nhost_rate = \"10Gbps\"\nfabric_rate = \"40Gbps\"\ndelay = \"1us\"",
            4,
            4,
        ),
        ("type = \"fat_tree\"\nk = 4\nhost_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\ndelay = \"1us\"", 16, 20),
        (
            "type = \"explicit\"\nhosts = [\"A\", \"B\"]\nswitches = [\"S1\"]\nlinks = [{ a = \"A\", b = \"S1\", rate = \"40Gbps\", delay = \"1us\" }, { a = \"B\", b = \"S1\", rate = \"40Gbps\", delay = \"1us\" }]",
            2,
            1,
        ),
    ];
    for (body, hosts, switches) in cases {
        let p = load(&format!("{head}{body}\n"), &[]).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(p.nodes.iter().filter(|n| n.kind == NodeKind::Host).count(), hosts, "{body}");
        assert_eq!(p.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count(), switches, "{body}");
    }
    let hp = Path::new("/work/shared/data/topologies/hpcc_fat.txt");
    if hp.exists() {
        let p = load(&format!("{head}type = \"hpcc\"\nfile = \"{}\"\n", hp.display()), &[]).unwrap();
        assert_eq!((p.nodes.len(), p.links.len()), (376, 480));
    }
}

const STAR8: &str = "[simulation]\nduration = \"10ms\"\nseed = 1\n[topology]\ntype = \"star\"\nhosts = 8\nrate = \"10Gbps\"\ndelay = \"1us\"\n";

#[test]
fn generated_traffic_types() {
    let t = format!(
        "{STAR8}[[traffic]]\ntype = \"incast\"\nsender_count = 3\nreceiver = \"h0\"\nsize = \"64KB\"\nflows_per_sender = 2\n\
         [[traffic]]\ntype = \"permutation\"\nsize = \"1MB\"\npriority = 1\n\
         [[traffic]]\ntype = \"all_to_all\"\nhosts = [\"h1\", \"h2\", \"h3\"]\nsize = \"10KB\"\nstart = \"1us\"\n"
    );
    let p = load(&t, &[]).unwrap();
    let g = |i: u32| p.flows.iter().filter(|f| f.group == i).cloned().collect::<Vec<_>>();
    assert_eq!(g(0).len(), 6);
    assert!(g(0).iter().all(|f| f.dst == 0 && (1..=3).contains(&f.src) && f.size == Some(64_000)));
    assert_eq!(g(1).len(), 8);
    assert!(g(1).iter().all(|f| f.src != f.dst && f.priority == 1));
    assert_eq!(g(2).len(), 6);
    let q = load(&t, &["simulation.seed=2"]).unwrap();
    let perm = |p: &Plan| p.flows.iter().filter(|f| f.group == 1).map(|f| f.dst).collect::<Vec<_>>();
    assert_ne!(perm(&p), perm(&q), "the permutation should change with the seed");
}

#[test]
fn cdf_and_csv_traffic_from_files() {
    let dir = std::env::temp_dir().join(format!("dcsim-scenario-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sizes.txt"), "1000 0\n3000 100\n").unwrap();
    std::fs::write(dir.join("flows.csv"), "src,dst,size,start\nh0,h1,10KB,5us\nh2,h3,inf,0\n").unwrap();
    let t = format!(
        "{STAR8}[[traffic]]\ntype = \"cdf\"\nfile = \"sizes.txt\"\nload = 0.5\nstop = \"2ms\"\n\
         [[traffic]]\ntype = \"csv\"\nfile = \"flows.csv\"\n"
    );
    std::fs::write(dir.join("s.toml"), &t).unwrap();
    let p = load_file(&dir.join("s.toml"), &[]).unwrap();
    assert_eq!(p.name, "s");
    let cdf: Vec<_> = p.flows.iter().filter(|f| f.group == 0).collect();
    // 8 hosts * 0.5 * 10 Gb/s * 2 ms / (2000 B * 8) = 5000 flows expected
    assert!((cdf.len() as f64 - 5000.0).abs() < 300.0, "{}", cdf.len());
    assert!(cdf.iter().all(|f| f.start < SimTime::ms(2) && f.src != f.dst));
    let mean = cdf.iter().map(|f| f.size.unwrap() as f64).sum::<f64>() / cdf.len() as f64;
    assert!((mean - 2000.0).abs() < 40.0, "{mean}");
    assert_eq!(p.flows.iter().filter(|f| f.group == 1).count(), 2);
    let q = load_file(&dir.join("s.toml"), &["simulation.seed=9".to_string()]).unwrap();
    assert_ne!(p.flows, q.flows);
    let e = load_file(&dir.join("s.toml"), &["traffic[1].file=\"nope.csv\"".to_string()]).unwrap_err().to_string();
    assert!(e.contains("traffic[1].file") && e.contains("nope.csv"), "{e}");
    let e = load_file(&dir.join("missing.toml"), &[]).unwrap_err().to_string();
    assert!(e.contains("missing.toml"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn hash_is_stable_and_override_sensitive() {
    let a = scenario_hash("x", &[]);
    assert_eq!(a, scenario_hash("x", &[]));
    assert_eq!(a.len(), 16);
    assert_ne!(a, scenario_hash("x", &["a=1".to_string()]));
    assert_ne!(a, scenario_hash("y", &[]));
}

// ----------------------------------------------------------------------------------------
// Malformed scenarios: each error names the field path.

#[test]
fn bad_unknown_key() {
    expect(&with(BASE, "xoff_quanta = 65535", "xof = 1"), &[], &["switch.pfc: unknown field 'xof'", "expected one of"]);
    expect(&with(BASE, "seed = 1", "sed = 1"), &[], &["simulation: unknown field 'sed'"]);
    expect(&with(BASE, "switches = 2", "switches = 2\nswiches = 2"), &[], &["topology: unknown field 'swiches'"]);
    expect(&with(BASE, "size = \"1MB\"", "sise = \"1MB\""), &[], &["traffic[0].flows[1]: unknown field 'sise'"]);
    expect(&with(BASE, "[stats]", "[stat]"), &[], &["unknown field 'stat'"]);
}

#[test]
fn bad_negative_rate() {
    expect(BASE, &["topology.rate=\"-40Gbps\""], &["topology.rate:", "negative"]);
}

#[test]
fn bad_zero_rate() {
    expect(BASE, &["topology.rate=\"0Gbps\""], &["topology.rate:", "must be > 0"]);
    expect(BASE, &["traffic[0].flows[0].rate=\"0Gbps\""], &["traffic[0].flows[0].rate:", "must be > 0"]);
}

#[test]
fn bad_unit_typo() {
    expect(BASE, &["topology.rate=40Gbs"], &["topology.rate: unknown rate unit 'Gbs' in '40Gbs'"]);
    expect(BASE, &["topology.delay=100nss"], &["topology.delay:", "unknown time unit"]);
    expect(BASE, &["switch.buffer.size=32Mib"], &["switch.buffer.size:", "unknown size unit"]);
}

#[test]
fn bad_number_without_unit() {
    expect(BASE, &["topology.rate=40"], &["topology.rate:", "needs a unit, e.g. \"40Gbps\""]);
    expect(BASE, &["simulation.duration=20"], &["simulation.duration:", "needs a unit"]);
    expect(BASE, &["host.mtu=1024"], &["host.mtu:", "needs a unit"]);
    expect(BASE, &["traffic[0].flows[1].size=100"], &["traffic[0].flows[1].size:", "needs a unit"]);
    expect(BASE, &["topology.rate=\"40\""], &["topology.rate:", "no unit"]);
}

#[test]
fn bad_xon_above_xoff() {
    let t = with(BASE, "type = \"shared\"\nsize = \"32MiB\"\nreserve = \"4KiB\"\nalpha_shift = 3", "type = \"static\"\nsize = \"200KB\"");
    assert!(load(&t, &[]).is_ok());
    expect(&t, &["switch.pfc.xon=\"40000B\"", "switch.pfc.xoff=\"30000B\""], &["switch.pfc.xon: must be below xoff (xon 40000 B >= xoff 30000 B)"]);
    expect(BASE, &["switch.pfc.xoff=\"30000B\""], &["switch.pfc.xoff:", "static buffer"]);
}

#[test]
fn bad_disconnected_and_unreachable() {
    let t = "[simulation]\nduration = \"1ms\"\n[topology]\ntype = \"explicit\"\nhosts = [\"A\", \"B\"]\nswitches = [\"S1\", \"S2\"]\n\
             links = [{ a = \"A\", b = \"S1\", rate = \"40Gbps\", delay = \"1us\" }, { a = \"B\", b = \"S2\", rate = \"40Gbps\", delay = \"1us\" }]\n";
    expect(t, &[], &["topology: the graph is disconnected: node 'A' cannot reach"]);
    let f = format!("{t}[[traffic]]\ntype = \"flows\"\nflows = [{{ src = \"A\", dst = \"B\" }}]\n");
    expect(&f, &[], &["traffic[0].flows[0].dst:", "cannot be reached from 'A'"]);
}

#[test]
fn bad_zero_mtu() {
    expect(BASE, &["host.mtu=\"0B\""], &["host.mtu: must be > 0"]);
}

#[test]
fn bad_buffer_smaller_than_mtu() {
    expect(BASE, &["switch.buffer.size=\"2KB\""], &["switch.buffer.size:", "smaller than one MTU-sized frame (2130 B"]);
    let t = with(BASE, "type = \"shared\"\nsize = \"32MiB\"\nreserve = \"4KiB\"\nalpha_shift = 3", "type = \"static\"\nsize = \"1KB\"");
    expect(&t, &[], &["switch.buffer.size:", "smaller than one MTU"]);
}

#[test]
fn bad_unknown_node_in_flow() {
    expect(BASE, &["traffic[0].flows[1].dst=Q"], &["traffic[0].flows[1].dst: no host named 'Q'"]);
    expect(BASE, &["traffic[0].flows[0].src=S1"], &["traffic[0].flows[0].src: 'S1' is a switch"]);
}

#[test]
fn bad_src_equals_dst() {
    expect(BASE, &["traffic[0].flows[1].dst=D"], &["traffic[0].flows[1].dst:", "same host as src"]);
}

#[test]
fn bad_priority() {
    expect(BASE, &["traffic[0].flows[0].priority=8"], &["traffic[0].flows[0].priority: must be 0..=7 (got 8)"]);
    expect(BASE, &["traffic[0].priority=-1"], &["traffic[0].priority:", "0..=7"]);
    expect(BASE, &["switch.pfc.lossless=[3, 9]"], &["switch.pfc.lossless[1]:", "0..=7"]);
}

#[test]
fn bad_fat_tree_k_odd() {
    let t = "[simulation]\nduration = \"1ms\"\n[topology]\ntype = \"fat_tree\"\nk = 5\nhost_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\ndelay = \"1us\"\n";
    expect(t, &[], &["topology.k: must be even"]);
}

#[test]
fn bad_topology_type() {
    expect(BASE, &["topology.type=ring"], &["topology.type: unknown topology type 'ring'", "parking_lot"]);
    expect(BASE, &["traffic[0].type=flood"], &["traffic[0].type: unknown traffic type 'flood'"]);
    expect(BASE, &["switch.scheduler.type=wfq"], &["switch.scheduler.type: unknown scheduler type 'wfq'"]);
}

#[test]
fn bad_duplicate_node_names() {
    let t = "[simulation]\nduration = \"1ms\"\n[topology]\ntype = \"explicit\"\nhosts = [\"A\", \"A\"]\nswitches = [\"S1\"]\nlinks = []\n";
    expect(t, &[], &["topology.hosts[1]: duplicate node name 'A'"]);
}

#[test]
fn bad_parking_lot_senders_length() {
    expect(BASE, &["topology.senders=[1]"], &["topology.senders:", "one count per switch"]);
}

#[test]
fn bad_wrong_types() {
    expect(BASE, &["simulation.seed=\"x\""], &["simulation.seed:", "invalid type"]);
    expect(BASE, &["switch.pfc.mode=maybe"], &["switch.pfc.mode:", "unknown variant 'maybe'"]);
    expect(BASE, &["topology.switches=\"two\""], &["topology.switches:", "invalid type"]);
}

#[test]
fn bad_ranges() {
    expect(BASE, &["switch.pfc.refresh_fraction=0.0"], &["switch.pfc.refresh_fraction: must be in (0, 1]"]);
    expect(BASE, &["switch.pfc.xoff_quanta=0"], &["switch.pfc.xoff_quanta:"]);
    expect(BASE, &["switch.buffer.alpha_shift=16"], &["switch.buffer.alpha_shift:"]);
    expect(BASE, &["switch.scheduler.weights=[1,1,1,0,1,1,1,1]"], &["switch.scheduler.weights[3]: must be >= 1"]);
    expect(BASE, &["simulation.duration=\"0ms\""], &["simulation.duration: must be > 0"]);
    expect(BASE, &["stats.steady_start=\"30ms\""], &["stats.steady_start: must be below"]);
    expect(BASE, &["host.ack_every=0"], &["host.ack_every: must be >= 1"]);
    expect(BASE, &["switch.pfc.headroom=lots"], &["switch.pfc.headroom:"]);
    expect(BASE, &["switch.pfc.headroom=hpcc"], &["switch.pfc.phy_delay: only applies"]);
    expect(BASE, &["traffic[0].flows[1].size=\"0B\""], &["traffic[0].flows[1].size: must be > 0"]);
}

#[test]
fn bad_missing_fields_and_syntax() {
    expect(&with(BASE, "duration = \"20ms\"", ""), &[], &["simulation: missing field 'duration'"]);
    expect(&with(BASE, "rate = \"40Gbps\"\n", ""), &[], &["topology: missing field 'rate'"]);
    expect(&with(BASE, "[simulation]", "[simulation"), &[], &["line", "TOML syntax error"]);
    expect(BASE, &["topology.type=\"\""], &["topology.type:"]);
}

#[test]
#[ignore]
fn print_sample_errors() {
    for ov in [
        "switch.pfc.xof=1",
        "topology.rate=40",
        "topology.rate=40Gbs",
        "simulation.seed=\"x\"",
        "traffic[0].flows[1].dst=Q",
        "traffic[0].flows[1].sise=1",
        "topology.type=ring",
        "switch.buffer.size=\"1KB\"",
        "traffic=3",
    ] {
        eprintln!("{ov:32} -> {}", err(BASE, &[ov]));
    }
}
