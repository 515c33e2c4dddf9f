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
    assert_eq!(p.switch.egress_limit, None);
    assert_eq!(p.switch.buffer, BufferPlan::Shared { total: 32 << 20, reserve: 4096, alpha_shift: 3 });
    assert_eq!(p.fabric.pfc.lossless, 1 << 3);
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

/// `switch.egress_limit` drops on lossy priorities only (a lossless one pauses instead):
/// with every flow on a lossless priority it could never act, and is refused.
#[test]
fn egress_limit_needs_a_lossy_priority() {
    let limit = "switch.egress_limit=\"100KB\"";
    expect(BASE, &[limit], &["switch.egress_limit: applies to lossy priorities only", "lossless"]);
    expect(BASE, &[limit, "switch.pfc.mode=\"pause\""], &["switch.egress_limit: applies to lossy priorities only"]);
    let p = load(BASE, &[limit, "traffic[0].flows[1].priority=1"]).unwrap();
    assert_eq!(p.switch.egress_limit, Some(100_000));
    let p = load(BASE, &[limit, "switch.pfc.mode=\"off\"", "switch.pfc.lossless=[]"]).unwrap();
    assert_eq!(p.switch.egress_limit, Some(100_000));
}

/// `[switch.scheduler]`'s DWRR unit: bytes by default, packets, or cells of a size.
#[test]
fn dwrr_unit_keys() {
    use crate::net::queue::EtsUnit;
    assert_eq!(load(BASE, &[]).unwrap().switch.scheduler.unit, EtsUnit::Bytes);
    assert_eq!(load(BASE, &["switch.scheduler.unit=packets"]).unwrap().switch.scheduler.unit, EtsUnit::Packets);
    let p = load(BASE, &["switch.scheduler.unit=cells", "switch.scheduler.cell=\"208B\""]).unwrap();
    assert_eq!(p.switch.scheduler.unit, EtsUnit::Cells(208));
    expect(BASE, &["switch.scheduler.unit=cells"], &["switch.scheduler.cell: required with unit = \"cells\""]);
    expect(BASE, &["switch.scheduler.cell=\"208B\""], &["switch.scheduler.cell: only with unit = \"cells\""]);
    expect(BASE, &["switch.scheduler.unit=cells", "switch.scheduler.cell=\"0B\""], &["switch.scheduler.cell: must be 1..=65535 B"]);
    expect(BASE, &["switch.scheduler.unit=frames"], &["switch.scheduler.unit: must be \"bytes\", \"packets\" or \"cells\""]);
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
    let p = load(
        BASE,
        &[
            "switch.pfc.mode=off",
            "switch.pfc.lossless=[]",
            "simulation.seed=7",
            "topology.rate=\"100Gbps\"",
            "traffic[0].flows[1].size=2KB",
        ],
    )
    .unwrap();
    assert_eq!(p.fabric.pfc.mode, FlowControl::None);
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
        let text = format!("{head}type = \"hpcc\"\nfile = \"{}\"\n", hp.display());
        let e = load(&text, &[]).unwrap_err().to_string();
        assert!(e.starts_with("topology.file: '/work/shared/data/topologies/hpcc_fat.txt' is outside the scenario's directory"), "{e}");
        let roots = [hp.parent().unwrap().to_path_buf()];
        let p = crate::scenario::load_str_with(&text, Path::new("."), &[], &roots).unwrap();
        assert_eq!((p.nodes.len(), p.links.len()), (376, 480));
    }
}

const STAR8: &str =
    "[simulation]\nduration = \"10ms\"\nseed = 1\n[topology]\ntype = \"star\"\nhosts = 8\nrate = \"10Gbps\"\ndelay = \"1us\"\n";

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
    // The settings count, not how they are written.
    let text = "name = \"n\"\n[simulation]\nseed = 1 # the seed\n[switch.ecn]\nkmax = \"100KB\"\n";
    let h = scenario_hash(text, &[]);
    let ov = |o: &[&str]| scenario_hash(text, &o.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(h, ov(&["switch.ecn.kmax=100KB"]));
    assert_eq!(h, ov(&["switch.ecn.kmax=\"100KB\""]));
    assert_eq!(h, ov(&["simulation.seed=2", "simulation.seed=1"]));
    assert_eq!(h, scenario_hash("name = \"n\"\n[switch.ecn]\nkmax = \"100KB\"\n[simulation]\nseed = 1", &[]));
    assert_ne!(h, ov(&["simulation.seed=2"]));
    assert_ne!(h, ov(&["switch.ecn.kmax=200KB"]));
    // The threads do not change the results: one run id.
    assert_eq!(h, ov(&["simulation.threads=2"]));
    assert_ne!(ov(&["a.b=1", "a.c=2"]), ov(&["a.b=2", "a.c=1"]));
    assert_ne!(ov(&["a.b=1"]), ov(&["a.b=1.0"]));
    assert_ne!(ov(&["a.b=1"]), ov(&["a.b=\"1\""]));
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
fn unknown_keys_suggest_the_closest_key() {
    expect(
        &with(BASE, "xoff_quanta = 65535", "xof = 1"),
        &[],
        &["switch.pfc: unknown field 'xof' (did you mean 'xoff'?), expected one of"],
    );
    expect(&with(BASE, "seed = 1", "sed = 1"), &[], &["simulation: unknown field 'sed' (did you mean 'seed'?)"]);
    expect(&with(BASE, "size = \"1MB\"", "sise = \"1MB\""), &[], &["unknown field 'sise' (did you mean 'size'?)"]);
    expect(&with(BASE, "[stats]", "[stat]"), &[], &["unknown field 'stat' (did you mean 'stats'?)"]);
    expect(BASE, &["traffic[0].cc.type=dcqcn", "traffic[0].cc.gg=2"], &["traffic[0].cc: unknown field 'gg' (did you mean 'g'?)"]);
    expect(BASE, &["host.cc.type=dcqcn", "host.cc.gg=2"], &["host.cc: unknown field 'gg' (did you mean 'g'?)"]);
    expect(BASE, &["switch.pfc.xof_quanta=1"], &["unknown field 'xof_quanta' (did you mean 'xoff_quanta'?)"]);
    // A shared traffic key is read apart from the entry's own keys, yet still suggested.
    expect(BASE, &["traffic[0].prioirty=3"], &["traffic[0]: unknown field 'prioirty' (did you mean 'priority'?)"]);
    // Nothing close: no guess.
    let e = load_str(BASE, Path::new("."), &["switch.pfc.zzzzzz=1".to_string()]).unwrap_err().to_string();
    assert!(e.contains("unknown field 'zzzzzz', expected one of") && !e.contains("did you mean"), "{e}");
}

/// Every fabric model's keys where the list places them: `[fabric.<name>]` of a model
/// placed elsewhere is refused naming the place, an error inside its keys names them
/// where the file has them, an unknown key of the table they sit in lists them, and
/// one of `[fabric]` lists only the tables that are there.
#[test]
fn fabric_model_keys_are_named_where_the_list_places_them() {
    let places = crate::models::fabric_places();
    let fabric_list = err(BASE, &["fabric.zzzzzz=1"]);
    for &(name, place, keys) in &places {
        let own = format!("fabric.{name}");
        if place == own {
            assert!(fabric_list.contains(&format!("'{name}'")), "{fabric_list} lacks {name}");
            if keys.is_empty() {
                // A model without keys: its table is refused.
                expect(BASE, &[&format!("{own}.x=1")], &[&format!("{own}: "), "[switch] or [host]"]);
            }
            continue;
        }
        assert!(!fabric_list.contains(&format!("'{name}'")), "{fabric_list} lists {name}, placed at {place}");
        expect(BASE, &[&format!("{own}.x=1")], &[&format!("{own}: unknown table: these keys are in [{place}]")]);
        let (table, sub) = place.split_once('.').unwrap_or((place, ""));
        let listed = err(BASE, &[&format!("{table}.zzzzzz=1")]);
        let mine: Vec<&str> = if sub.is_empty() { keys.to_vec() } else { vec![sub] };
        for k in mine {
            assert!(listed.contains(&format!("'{k}'")), "{listed} lacks {name}'s '{k}'");
            let at = format!("{table}.{k}");
            let e = err(BASE, &[&format!("{at}.zzzzzz=1")]);
            assert!(e.starts_with(&format!("{at}:")) || e.starts_with(&format!("{at}.")), "{e} should name {at}");
        }
    }
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
    expect(BASE, &["topology.rate=40Gbs"], &["topology.rate: unknown rate unit \"Gbs\" in \"40Gbs\""]);
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
    expect(
        &t,
        &["switch.pfc.xon=\"40000B\"", "switch.pfc.xoff=\"30000B\""],
        &["switch.pfc.xon: must be below xoff (xon 40000 B >= xoff 30000 B)"],
    );
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

// ----------------------------------------------------------------------------------------
// Notification point, reaction points, ECN and congestion detection.

use crate::models::dcqcn::{DcqcnParams, DcqcnVariant};
use crate::models::fixed_rate::FixedRateParams;
use crate::models::rcm::{RcmLinearParams, RecoveryRule};
use crate::models::window_cap::WindowCap;
use crate::models::CcPlan;

/// Hosts A (40 Gb/s) and B (25 Gb/s) behind a 10 Gb/s switch-to-switch link: the
/// smallest host link rate is 25 Gb/s (switch links do not count).
const MIXED: &str = r#"
[simulation]
duration = "1ms"
[topology]
type = "explicit"
hosts = ["A", "B", "C"]
switches = ["S1", "S2"]
links = [
  { a = "A", b = "S1", rate = "40Gbps", delay = "1us" },
  { a = "C", b = "S1", rate = "40Gbps", delay = "1us" },
  { a = "B", b = "S2", rate = "25Gbps", delay = "1us" },
  { a = "S1", b = "S2", rate = "10Gbps", delay = "1us" },
]
"#;

fn dcqcn(p: &Plan, k: usize) -> DcqcnParams {
    match &p.ccs[k] {
        CcPlan::Dcqcn(d) => d.clone(),
        other => panic!("ccs[{k}] is {other:?}, not dcqcn"),
    }
}

#[test]
fn new_sections_default_to_plan_defaults() {
    let p = load(STAR8, &[]).unwrap();
    assert_eq!(p.fabric.cnp, CnpPlan::default());
    assert_eq!(p.fabric.marking.ecn, EcnPlan::default());
    assert_eq!(p.fabric.marking.detection, Detection::Ecn { root_only: false });
    assert_eq!(p.ccs, vec![CcPlan::None(())]);
    let p = load(BASE, &[]).unwrap();
    assert_eq!(p.ccs, vec![CcPlan::None(())]);
    assert!(p.flows.iter().all(|f| f.cc == 0));
}

#[test]
fn cnp_section_parses() {
    let t = format!("{STAR8}[host.cnp]\ninterval = \"0us\"\nnic_gap = \"1us\"\nsize = \"80B\"\npriority = 6\n");
    let p = load(&t, &[]).unwrap();
    assert_eq!(
        p.fabric.cnp,
        CnpPlan { interval: SimTime::ZERO, nic_gap: SimTime::us(1), bytes: 80, priority: Some(6), delay: SimTime::ZERO }
    );
    let p = load(&t, &["host.cnp.priority=control"]).unwrap();
    assert_eq!(p.fabric.cnp.priority, None);
    let p = load(STAR8, &["host.cnp.interval=\"20us\""]).unwrap();
    assert_eq!(p.fabric.cnp.interval, SimTime::us(20));
    assert_eq!((p.fabric.cnp.bytes, p.fabric.cnp.priority, p.fabric.cnp.nic_gap), (78, None, SimTime::ZERO));
}

#[test]
fn host_cc_types_parse() {
    let p = load(STAR8, &["host.cc.type=none"]).unwrap();
    assert_eq!(p.ccs, vec![CcPlan::None(())]);
    let p = load(STAR8, &["host.cc.type=fixed_rate", "host.cc.rate=2.5Gbps"]).unwrap();
    assert_eq!(p.ccs, vec![CcPlan::FixedRate(FixedRateParams { rate: Rate(2_500_000_000) })]);
    let p = load(STAR8, &["host.cc.type=rcm_linear"]).unwrap();
    assert_eq!(p.ccs, vec![CcPlan::RcmLinear(RcmLinearParams::default())]);
    let t = format!(
        "{STAR8}[host.cc]\ntype = \"rcm_linear\"\nrecover_time = \"20us\"\nrecover_bytes = \"64KB\"\nrule = \"both\"\nmax_level = 16\ngap = true\n"
    );
    let p = load(&t, &[]).unwrap();
    assert_eq!(
        p.ccs[0],
        CcPlan::RcmLinear(RcmLinearParams {
            recover_time: SimTime::us(20),
            recover_bytes: 64_000,
            rule: RecoveryRule::Both,
            max_level: 16,
            gap: true
        })
    );
    // Paper defaults (also without `variant`), then overrides field by field.
    let p = load(STAR8, &["host.cc.type=dcqcn"]).unwrap();
    assert_eq!(dcqcn(&p, 0), DcqcnParams::paper());
    let t = format!(
        "{STAR8}[host.cc]\ntype = \"dcqcn\"\nvariant = \"paper\"\ng = 0.0625\nalpha_init = 0.5\nalpha_period = \"50us\"\n\
         increase_period = \"40us\"\ndecrease_period = \"8us\"\nbyte_counter = \"1MB\"\nf = 3\nrate_ai = \"20Mbps\"\n\
         rate_hai = \"200Mbps\"\nrate_min = \"50Mbps\"\nclamp_target_rate = false\nrate_on_first_cnp = 0.5\n"
    );
    let d = dcqcn(&load(&t, &[]).unwrap(), 0);
    assert_eq!(
        d,
        DcqcnParams {
            variant: DcqcnVariant::Paper,
            g: 0.0625,
            alpha_init: 0.5,
            alpha_period: SimTime::us(50),
            increase_period: SimTime::us(40),
            decrease_period: SimTime::us(8),
            byte_counter: 1_000_000,
            f: 3,
            rate_ai: Rate::mbps(20),
            rate_hai: Rate::mbps(200),
            rate_min: Rate::mbps(50),
            clamp_target_rate: false,
            rate_on_first_cnp: 0.5,
            window: None,
            var_window: false,
        }
    );
}

#[test]
fn dcqcn_mellanox_defaults_scale_with_smallest_host_rate() {
    let p = load(MIXED, &["host.cc.type=dcqcn", "host.cc.variant=mellanox"]).unwrap();
    let d = dcqcn(&p, 0);
    assert_eq!(d, DcqcnParams::mellanox(Rate::gbps(25)));
    assert_eq!((d.rate_ai, d.rate_hai, d.rate_min), (Rate::mbps(5), Rate::mbps(50), Rate::mbps(1000)));
    assert_eq!((d.f, d.byte_counter, d.alpha_period, d.increase_period), (1, 0, SimTime::us(1), SimTime::us(300)));
    // A 100 Gb/s star: R_AI and R_HAI x4; a 5 Gb/s star: R_min capped at line rate / 10.
    let fast = STAR8.replace("10Gbps", "100Gbps");
    let d = dcqcn(&load(&fast, &["host.cc.type=dcqcn", "host.cc.variant=mellanox"]).unwrap(), 0);
    assert_eq!((d.rate_ai, d.rate_hai, d.rate_min), (Rate::mbps(20), Rate::mbps(200), Rate::mbps(1000)));
    let slow = STAR8.replace("10Gbps", "5Gbps");
    let d = dcqcn(&load(&slow, &["host.cc.type=dcqcn", "host.cc.variant=mellanox"]).unwrap(), 0);
    assert_eq!(d.rate_min, Rate::mbps(500));
    // Overrides on top of the scaled base; F = 0 is allowed for Mellanox.
    let d = dcqcn(
        &load(
            MIXED,
            &[
                "host.cc.type=dcqcn",
                "host.cc.variant=mellanox",
                "host.cc.rate_ai=\"40Mbps\"",
                "host.cc.f=0",
                "host.cc.clamp_target_rate=true",
            ],
        )
        .unwrap(),
        0,
    );
    assert_eq!(d, DcqcnParams { rate_ai: Rate::mbps(40), f: 0, clamp_target_rate: true, ..DcqcnParams::mellanox(Rate::gbps(25)) });
}

#[test]
fn traffic_cc_is_appended_and_indexed() {
    let t = format!(
        "{STAR8}[host.cc]\ntype = \"rcm_linear\"\n\
         [[traffic]]\ntype = \"incast\"\nsender_count = 3\nreceiver = \"h0\"\nsize = \"64KB\"\n\
         cc = {{ type = \"dcqcn\", variant = \"paper\", g = 0.00390625, f = 2 }}\n\
         [[traffic]]\ntype = \"all_to_all\"\nhosts = [\"h1\", \"h2\"]\nsize = \"10KB\"\n\
         [[traffic]]\ntype = \"flows\"\nflows = [{{ src = \"h4\", dst = \"h5\" }}]\ncc = {{ type = \"fixed_rate\", rate = \"1Gbps\" }}\n\
         [[traffic]]\ntype = \"permutation\"\nsize = \"1MB\"\ncc = {{ type = \"dcqcn\", variant = \"mellanox\", g = 1 }}\n"
    );
    let p = load(&t, &[]).unwrap();
    assert_eq!(p.ccs.len(), 4);
    assert_eq!(p.ccs[0], CcPlan::RcmLinear(RcmLinearParams::default()));
    assert_eq!(dcqcn(&p, 1), DcqcnParams { g: 1.0 / 256.0, f: 2, ..DcqcnParams::paper() });
    assert_eq!(p.ccs[2], CcPlan::FixedRate(FixedRateParams { rate: Rate::gbps(1) }));
    assert_eq!(dcqcn(&p, 3), DcqcnParams { g: 1.0, ..DcqcnParams::mellanox(Rate::gbps(10)) });
    for f in &p.flows {
        let want = [1, 0, 2, 3][f.group as usize];
        assert_eq!(f.cc, want, "flow of group {}", f.group);
    }
    // The same through an override of the existing base file.
    let p = load(BASE, &["traffic[0].cc.type=dcqcn"]).unwrap();
    assert_eq!(p.ccs, vec![CcPlan::None(()), CcPlan::Dcqcn(DcqcnParams::paper())]);
    assert!(p.flows.iter().all(|f| f.cc == 1));
}

#[test]
fn ecn_section_parses() {
    let t = format!(
        "{STAR8}[switch.ecn]\nmode = \"red_avg\"\nkmin = \"5KB\"\nkmax = \"200KB\"\npmax = 0.01\nwq = 0.004\n\
         mark_point = \"enqueue\"\npriorities = [3, 5]\n\
         by_speed = [ {{ rate = \"25Gbps\", kmin = \"100KB\", kmax = \"400KB\", pmax = 0.2 }}, {{ rate = \"100Gbps\", kmin = \"400KB\", kmax = \"1600KB\" }} ]\n"
    );
    let p = load(&t, &[]).unwrap();
    assert_eq!(
        p.fabric.marking.ecn,
        EcnPlan {
            mode: EcnMode::RedAvg,
            kmin: Some(5_000),
            kmax: Some(200_000),
            pmax: 0.01,
            wq: 0.004,
            mark_point: MarkPoint::Enqueue,
            priorities: (1 << 3) | (1 << 5),
            by_speed: vec![
                EcnSpeedPlan { rate: Rate::gbps(25), kmin: 100_000, kmax: 400_000, pmax: 0.2 },
                EcnSpeedPlan { rate: Rate::gbps(100), kmin: 400_000, kmax: 1_600_000, pmax: 0.01 },
            ],
        }
    );
    let p = load(STAR8, &["switch.ecn.mode=red"]).unwrap();
    assert_eq!(p.fabric.marking.ecn, EcnPlan { mode: EcnMode::Red, ..EcnPlan::default() });
    // Step marking: kmax may be omitted (also per speed, where it takes kmin).
    let p = load(
        STAR8,
        &[
            "switch.ecn.mode=step",
            "switch.ecn.kmin=\"30KB\"",
            "switch.ecn.by_speed=[{rate=\"10Gbps\", kmin=\"12KB\"}]",
            "switch.ecn.pmax=1",
        ],
    )
    .unwrap();
    assert_eq!(
        (p.fabric.marking.ecn.mode, p.fabric.marking.ecn.kmin, p.fabric.marking.ecn.kmax, p.fabric.marking.ecn.pmax),
        (EcnMode::Step, Some(30_000), None, 1.0)
    );
    assert_eq!(p.fabric.marking.ecn.by_speed, vec![EcnSpeedPlan { rate: Rate::gbps(10), kmin: 12_000, kmax: 12_000, pmax: 1.0 }]);
}

#[test]
fn congestion_section_parses() {
    let p = load(STAR8, &["switch.congestion.detection=ecn", "switch.congestion.root_only=true"]).unwrap();
    assert_eq!(p.fabric.marking.detection, Detection::Ecn { root_only: true });
    let p = load(STAR8, &["switch.congestion.detection=rcm_1a", "switch.congestion.threshold=20KB"]).unwrap();
    assert_eq!(p.fabric.marking.detection, Detection::Rcm1a { threshold: 20_000, mark_victims: false });
    let p = load(STAR8, &["switch.congestion.detection=rcm_1a", "switch.congestion.threshold=20KB", "switch.congestion.mark_victims=true"])
        .unwrap();
    assert_eq!(p.fabric.marking.detection, Detection::Rcm1a { threshold: 20_000, mark_victims: true });
    let p = load(STAR8, &["switch.congestion.detection=rcm_1b", "switch.congestion.threshold=\"8KiB\""]).unwrap();
    assert_eq!(p.fabric.marking.detection, Detection::Rcm1b { threshold: 8192, window: SimTime::us(10) });
    let t = format!("{STAR8}[switch.congestion]\ndetection = \"rcm_1b\"\nthreshold = \"20KB\"\nwindow = \"2us\"\n");
    assert_eq!(load(&t, &[]).unwrap().fabric.marking.detection, Detection::Rcm1b { threshold: 20_000, window: SimTime::us(2) });
    // ECN off with ECN detection is accepted: nothing marks.
    let p = load(STAR8, &["switch.ecn.mode=off", "switch.congestion.detection=ecn"]).unwrap();
    assert_eq!((p.fabric.marking.ecn.mode, p.fabric.marking.detection.clone()), (EcnMode::Off, Detection::Ecn { root_only: false }));
}

#[test]
fn ack_queue_parses_and_names_its_field() {
    assert!(!load(STAR8, &[]).unwrap().host.acks_in_data);
    assert!(!load(STAR8, &["host.ack_queue=control"]).unwrap().host.acks_in_data);
    assert!(load(STAR8, &["host.ack_queue=data"]).unwrap().host.acks_in_data);
    expect(STAR8, &["host.ack_queue=high"], &["host.ack_queue: must be \"control\" or \"data\" (got \"high\")"]);
    expect(STAR8, &["host.ack_queue=3"], &["host.ack_queue:"]);
}

#[test]
fn bad_cnp() {
    expect(STAR8, &["host.cnp.size=\"32B\""], &["host.cnp.size: must be 64..=65535 B (got 32 B)"]);
    expect(STAR8, &["host.cnp.size=\"70000B\""], &["host.cnp.size: must be 64..=65535"]);
    expect(STAR8, &["host.cnp.priority=9"], &["host.cnp.priority: must be 0..=7 (got 9)"]);
    expect(STAR8, &["host.cnp.priority=data"], &["host.cnp.priority:", "expected \"control\" or a priority 0..7"]);
    expect(STAR8, &["host.cnp.interval=50"], &["host.cnp.interval:", "needs a unit"]);
    expect(STAR8, &["host.cnp.rate=1"], &["host.cnp: unknown field 'rate'"]);
}

#[test]
fn bad_ecn() {
    let red = ["switch.ecn.mode=red", "switch.ecn.kmin=\"300KB\"", "switch.ecn.kmax=\"200KB\""];
    expect(STAR8, &red, &["switch.ecn.kmin: must be <= kmax (300000 B > 200000 B)"]);
    expect(STAR8, &["switch.ecn.mode=red", "switch.ecn.kmin=\"30KB\""], &["switch.ecn.kmax: missing"]);
    expect(STAR8, &["switch.ecn.mode=step", "switch.ecn.kmax=\"30KB\""], &["switch.ecn.kmin: missing"]);
    expect(STAR8, &["switch.ecn.pmax=1.5"], &["switch.ecn.pmax: must be in [0, 1] (got 1.5)"]);
    expect(STAR8, &["switch.ecn.pmax=-0.1"], &["switch.ecn.pmax: must be in [0, 1]"]);
    expect(STAR8, &["switch.ecn.wq=0"], &["switch.ecn.wq: must be in (0, 1]"]);
    expect(STAR8, &["switch.ecn.mode=wred"], &["switch.ecn.mode:", "unknown variant 'wred'"]);
    expect(STAR8, &["switch.ecn.mark_point=middle"], &["switch.ecn.mark_point:", "unknown variant"]);
    expect(STAR8, &["switch.ecn.priorities=[8]"], &["switch.ecn.priorities[0]:", "0..=7"]);
    expect(STAR8, &["switch.ecn.kmn=\"5KB\""], &["switch.ecn: unknown field 'kmn'"]);
    let bs = |v: &str| format!("switch.ecn.by_speed={v}");
    expect(STAR8, &["switch.ecn.mode=red", &bs("[{rate=\"25Gbps\", kmin=\"100KB\"}]")], &["switch.ecn.by_speed[0].kmax: missing"]);
    expect(STAR8, &[&bs("[{rate=\"25Gbps\", kmin=\"100KB\", kmax=\"10KB\"}]")], &["switch.ecn.by_speed[0].kmin: must be <= kmax"]);
    expect(STAR8, &[&bs("[{rate=\"25Gbps\", kmin=\"1KB\", kmax=\"10KB\", pmax=2}]")], &["switch.ecn.by_speed[0].pmax: must be in [0, 1]"]);
    expect(STAR8, &[&bs("[{rate=\"25Gbps\", kmin=\"1KB\", kmax=\"10KB\", p=2}]")], &["switch.ecn.by_speed[0]: unknown field 'p'"]);
    expect(STAR8, &[&bs("[{kmin=\"1KB\", kmax=\"10KB\"}]")], &["switch.ecn.by_speed[0]: missing field 'rate'"]);
    expect(
        STAR8,
        &[&bs("[{rate=\"25Gbps\", kmin=\"1KB\", kmax=\"10KB\"}, {rate=\"25Gbps\", kmin=\"2KB\", kmax=\"10KB\"}]")],
        &["switch.ecn.by_speed[1].rate: 25", "listed twice"],
    );
}

#[test]
fn bad_congestion() {
    let c = |k: &str, v: &str| format!("switch.congestion.{k}={v}");
    expect(
        STAR8,
        &[&c("detection", "rcm_1a"), &c("threshold", "20KB"), &c("window", "10us")],
        &["switch.congestion.window: only for detection = \"rcm_1b\""],
    );
    expect(
        STAR8,
        &[&c("detection", "rcm_1b"), &c("threshold", "20KB"), &c("mark_victims", "true")],
        &["switch.congestion.mark_victims: only for detection = \"rcm_1a\""],
    );
    expect(
        STAR8,
        &[&c("detection", "rcm_1b"), &c("threshold", "20KB"), &c("root_only", "true")],
        &["switch.congestion.root_only: only for detection = \"ecn\""],
    );
    expect(STAR8, &[&c("threshold", "20KB")], &["switch.congestion.threshold: only for detection = \"rcm_1a\" or \"rcm_1b\""]);
    expect(STAR8, &[&c("detection", "rcm_1a")], &["switch.congestion.threshold: missing; detection = \"rcm_1a\" needs a threshold"]);
    expect(STAR8, &[&c("detection", "rcm_1b")], &["switch.congestion.threshold: missing"]);
    expect(
        STAR8,
        &[&c("detection", "rcm_1b"), &c("threshold", "20KB"), &c("window", "\"0us\"")],
        &["switch.congestion.window: must be > 0"],
    );
    expect(STAR8, &[&c("detection", "rcm2")], &["switch.congestion.detection:", "unknown variant 'rcm2'", "rcm_1a"]);
    expect(STAR8, &[&c("threshold", "20")], &["switch.congestion.threshold:", "needs a unit"]);
    expect(STAR8, &[&c("windw", "\"1us\"")], &["switch.congestion: unknown field 'windw'"]);
}

#[test]
fn bad_host_cc() {
    let d = |kv: &[&str]| {
        let mut v = vec!["host.cc.type=dcqcn".to_string()];
        v.extend(kv.iter().map(|s| format!("host.cc.{s}")));
        v
    };
    let e = |kv: &[&str], needles: &[&str]| {
        let ov = d(kv);
        let ov: Vec<&str> = ov.iter().map(|s| s.as_str()).collect();
        expect(STAR8, &ov, needles);
    };
    e(&["g=0"], &["host.cc.g: must be in (0, 1] (got 0)"]);
    e(&["g=1.5"], &["host.cc.g: must be in (0, 1]"]);
    e(&["alpha_init=0.0"], &["host.cc.alpha_init: must be in (0, 1]"]);
    e(&["alpha_period=\"0us\""], &["host.cc.alpha_period: must be > 0"]);
    e(&["increase_period=\"0us\""], &["host.cc.increase_period: must be > 0"]);
    e(&["decrease_period=\"0ns\""], &["host.cc.decrease_period: must be > 0"]);
    e(&["f=0"], &["host.cc.f: must be >= 1 with variant = \"paper\""]);
    e(&["variant=mellanox", "f=-1"], &["host.cc.f: must be >= 0 (got -1)"]);
    e(&["rate_min=\"20Gbps\""], &["host.cc.rate_min: must be <= the smallest host link rate"]);
    e(&["rate_min=\"0Mbps\""], &["host.cc.rate_min: must be > 0"]);
    e(&["rate_on_first_cnp=0"], &["host.cc.rate_on_first_cnp: must be in (0, 1]"]);
    e(&["rate_on_first_cnp=1.2"], &["host.cc.rate_on_first_cnp: must be in (0, 1]"]);
    e(&["variant=intel"], &["host.cc.variant:", "unknown variant 'intel'"]);
    e(&["byte_counter=100"], &["host.cc.byte_counter:", "needs a unit"]);
    e(&["rate=\"1Gbps\""], &["host.cc.rate: only for type = \"fixed_rate\""]);
    e(&["gap=true"], &["host.cc.gap: only for type = \"rcm_linear\""]);
    e(&["alpha=0.5"], &["host.cc.alpha: only for type = \"nscc\""]);
    e(&["alfa=0.5"], &["host.cc: unknown field 'alfa'"]);
    // The bound of rate_min is the smallest host link rate (25 Gb/s here, not 40 or 10).
    expect(MIXED, &["host.cc.type=dcqcn", "host.cc.rate_min=\"30Gbps\""], &["host.cc.rate_min:", "25Gbps"]);
    assert!(load(MIXED, &["host.cc.type=dcqcn", "host.cc.rate_min=\"25Gbps\""]).is_ok());

    expect(STAR8, &["host.cc.type=fixed_rate"], &["host.cc.rate: missing; type = \"fixed_rate\" needs a rate"]);
    expect(STAR8, &["host.cc.type=fixed_rate", "host.cc.rate=\"0Gbps\""], &["host.cc.rate: must be > 0"]);
    expect(STAR8, &["host.cc.type=none", "host.cc.g=0.5"], &["host.cc.g: only for type = \"dcqcn\""]);
    expect(STAR8, &["host.cc.type=rcm_linear", "host.cc.rule=bytes"], &["host.cc.recover_bytes: must be > 0 with rule = \"bytes\""]);
    expect(
        STAR8,
        &["host.cc.type=rcm_linear", "host.cc.rule=either", "host.cc.recover_time=\"0us\"", "host.cc.recover_bytes=1KB"],
        &["host.cc.recover_time: must be > 0 with rule = \"either\""],
    );
    assert!(load(STAR8, &["host.cc.type=rcm_linear", "host.cc.rule=bytes", "host.cc.recover_time=\"0us\"", "host.cc.recover_bytes=1KB"])
        .is_ok());
    expect(STAR8, &["host.cc.type=rcm_linear", "host.cc.max_level=0"], &["host.cc.max_level: must be >= 1 (got 0)"]);
    expect(STAR8, &["host.cc.type=rcm_linear", "host.cc.rule=sometimes"], &["host.cc.rule:", "unknown variant 'sometimes'"]);
    expect(STAR8, &["host.cc.type=rcm_linear", "host.cc.variant=paper"], &["host.cc.variant: only for type = \"dcqcn\""]);
    expect(STAR8, &["host.cc.type=vegas"], &["host.cc.type:", "unknown congestion control type 'vegas'", "dcqcn"]);
    expect(STAR8, &["host.cc.g=0.5"], &["host.cc.type: missing; congestion control type is one of"]);
}

#[test]
fn bad_traffic_cc() {
    expect(BASE, &["traffic[0].cc.type=dcqcn", "traffic[0].cc.g=2"], &["traffic[0].cc.g: must be in (0, 1]"]);
    expect(BASE, &["traffic[0].cc.type=dcqcn", "traffic[0].cc.gg=2"], &["traffic[0].cc: unknown field 'gg'"]);
    expect(BASE, &["traffic[0].cc.type=dcq"], &["traffic[0].cc.type:", "unknown congestion control type 'dcq'"]);
    expect(BASE, &["traffic[0].cc.type=fixed_rate", "traffic[0].cc.rate=5"], &["traffic[0].cc.rate:", "needs a unit"]);
    let t = format!(
        "{STAR8}[[traffic]]\ntype = \"incast\"\nsender_count = 2\nreceiver = \"h0\"\ncc = {{ type = \"rcm_linear\", max_level = 0 }}\n"
    );
    expect(&t, &[], &["traffic[0].cc.max_level: must be >= 1"]);
}

#[test]
fn plan_level_cc_checks() {
    let mut p = load(BASE, &[]).unwrap();
    p.flows[1].cc = 3;
    let e = validate::validate_plan(&p).unwrap_err().to_string();
    assert!(e.contains("traffic[0].flows[1].cc: congestion control 3 does not exist"), "{e}");
    let mut p = load(BASE, &["traffic[0].cc.type=dcqcn"]).unwrap();
    if let CcPlan::Dcqcn(d) = &mut p.ccs[1] {
        d.g = 0.0;
    }
    let e = validate::validate_plan(&p).unwrap_err().to_string();
    assert!(e.contains("traffic[0].cc.g: must be in (0, 1]"), "{e}");
}

/// Headroom per switch port in BASE (40 Gb/s, 100 ns, 2130 B frames, formula):
/// 3 x 2130 + 84 + 2 x 500 = 7474 B; one lossless class.
#[test]
fn bad_static_buffer_below_headroom() {
    let stat = |size: &str| {
        with(
            BASE,
            "type = \"shared\"\nsize = \"32MiB\"\nreserve = \"4KiB\"\nalpha_shift = 3",
            &format!("type = \"static\"\nsize = \"{size}\""),
        )
    };
    expect(
        &stat("9604B"),
        &[],
        &["switch.buffer.size: a static buffer of 9604 B per port leaves 9604 B per lossless class, \
         not enough for its headroom of 7474 B plus one frame (2130 B on a 40Gbps link)"],
    );
    let p = load(&stat("9605B"), &[]).unwrap();
    assert_eq!(p.switch.buffer, BufferPlan::Static { port_buffer: 9605 });
    // Two lossless classes halve the share.
    expect(&stat("19208B"), &["switch.pfc.lossless=[3, 4]"], &["switch.buffer.size:", "leaves 9604 B per lossless class"]);
    assert!(load(&stat("19210B"), &["switch.pfc.lossless=[3, 4]"]).is_ok());
    // An explicit xoff, or no flow control, needs no headroom below the share.
    assert!(load(&stat("8000B"), &["switch.pfc.xoff=\"5000B\""]).is_ok());
    load(&stat("8000B"), &["switch.pfc.mode=off", "switch.pfc.lossless=[]"]).unwrap();
}

/// Switch S1 of BASE has four ports: 4 x (4096 B reserve + 7474 B headroom) = 46280 B.
#[test]
fn bad_shared_buffer_below_reserves_and_headroom() {
    expect(
        BASE,
        &["switch.buffer.size=\"30000B\""],
        &["switch.buffer.size: 30000 B cannot hold the reserves and headroom of switch 'S1' (46280 B) plus a frame"],
    );
    expect(BASE, &["switch.buffer.size=\"48410B\""], &["switch.buffer.size:", "switch 'S1' (46280 B)"]);
    assert!(load(BASE, &["switch.buffer.size=\"48411B\""]).is_ok());
}

#[test]
fn plan_level_flow_size_limit() {
    let mut p = load(BASE, &[]).unwrap();
    p.flows[1].size = Some(2048 * (u32::MAX as u64 - 1));
    validate::validate_plan(&p).unwrap();
    p.flows[1].size = Some(2048 * (u32::MAX as u64 - 1) + 1);
    let e = validate::validate_plan(&p).unwrap_err().to_string();
    assert!(e.contains("traffic[0].flows[1].size: message too large for 32-bit packet numbers"), "{e}");
}

#[test]
fn plan_level_topology_checks() {
    let e = validate::validate_plan(&Plan::new("empty", SimTime::ms(1))).unwrap_err().to_string();
    assert_eq!(e, "topology: has no nodes");
    let base = load(BASE, &[]).unwrap();
    let check = |f: &dyn Fn(&mut Plan), needle: &str| {
        let mut p = base.clone();
        f(&mut p);
        let e = validate::validate_plan(&p).unwrap_err().to_string();
        assert!(e.contains(needle), "error '{e}' should contain '{needle}'");
    };
    check(&|p| p.links[0].b = 99, "topology.links[0].b: node index 99 does not exist");
    check(&|p| p.links[0].rate = Rate(0), "topology.links[0].rate: must be > 0");
    check(&|p| p.links[0].b = p.links[0].a, "topology.links[0]: self-link");
    check(
        &|p| {
            let l = p.links[0].clone();
            p.links.push(l)
        },
        "has 2 links (a host needs exactly one)",
    );
    check(&|p| p.flows[0].src = 99, "traffic[0].flows[0].src: node index 99 does not exist");
    check(&|p| p.flows[0].priority = 8, "traffic[0].flows[0].priority: must be 0..=7 (got 8)");
    check(&|p| p.flows[0].size = Some(0), "traffic[0].flows[0].size: must be > 0");
    check(&|p| p.flows[0].dst = p.flows[0].src, "traffic[0].flows[0].dst: same host as src");
}

#[test]
fn plan_level_rate_schedule_checks() {
    let step = "switch.rate_schedule=[{ node = \"S1\", peer = \"S2\", at = \"1ms\", rate = \"1Gbps\" }]";
    let base = load(BASE, &[step]).unwrap();
    let idx = |name: &str| base.nodes.iter().position(|n| n.name == name).unwrap() as u32;
    assert_eq!((base.switch.rate_schedule[0].node, base.switch.rate_schedule[0].peer), (idx("S1"), idx("S2")));
    let check = |f: &dyn Fn(&mut RateStep), needle: &str| {
        let mut p = base.clone();
        f(&mut p.switch.rate_schedule[0]);
        let e = validate::validate_plan(&p).unwrap_err().to_string();
        assert!(e.contains(needle), "error '{e}' should contain '{needle}'");
    };
    check(&|s| s.node = 99, "switch.rate_schedule[0].node: node index 99 does not exist");
    check(&|s| s.peer = 99, "switch.rate_schedule[0].peer: node index 99 does not exist");
    check(&|s| s.node = idx("A"), "switch.rate_schedule[0].node: 'A' is not a switch");
    check(&|s| s.peer = idx("R"), "switch.rate_schedule[0].peer: 'S1' has no link to 'R'");
    check(&|s| s.rate = Rate(0), "switch.rate_schedule[0].rate: must be > 0");
    // The scenario layer names the nodes it cannot resolve.
    expect(
        BASE,
        &["switch.rate_schedule=[{ node = \"S1\", peer = \"nowhere\", at = \"1ms\", rate = \"1Gbps\" }]"],
        &["switch.rate_schedule[0].peer: no node named 'nowhere'"],
    );
}

#[test]
fn ack_driven_cc_on_udp_and_fecn_rate_min_are_refused() {
    let t = format!(
        "{STAR8}[[traffic]]\ntype = \"incast\"\nsender_count = 2\nreceiver = \"h0\"\ntransport = \"udp\"\ncc = {{ type = \"dctcp\" }}\n"
    );
    expect(&t, &[], &["traffic[0].transport: \"udp\" has no ACKs, but its congestion control type = \"dctcp\" needs them"]);
    assert!(load(&t, &["traffic[0].cc.type=dcqcn"]).is_ok(), "a rate-only algorithm is fine on UDP");
    expect(STAR8, &["switch.l2cm.type=fecn", "switch.l2cm.rate_min=\"1Gbps\""], &["switch.l2cm.rate_min: only for type = \"efecn\""]);
    assert!(load(STAR8, &["switch.l2cm.type=efecn", "switch.l2cm.rate_min=\"1Gbps\""]).is_ok());
    expect(STAR8, &["host.cc.type=dctcp", "host.cc.g=0"], &["host.cc.g: must be in (0, 1]"]);
    expect(STAR8, &["host.cc.type=timely", "host.cc.t_high=\"10us\""], &["host.cc.t_high: must be above t_low"]);
}

/// Egress queue entries name the ingress port by its index within the switch (16 bits).
#[test]
fn a_switch_with_too_many_ports_is_refused() {
    let t = with(STAR8, "hosts = 8", "hosts = 65537");
    expect(
        &format!("{t}[[traffic]]\ntype = \"flows\"\nflows = [{{ src = \"h1\", dst = \"h0\", size = \"1KB\" }}]\n"),
        &[],
        &["topology: ", "has 65537 links; a node may have at most 65536"],
    );
}

#[test]
fn var_window_of_dcqcn_and_timely() {
    let p = load(STAR8, &["host.cc.type=dcqcn", "host.cc.window=\"bdp\"", "host.cc.var_window=true"]).unwrap();
    assert_eq!((dcqcn(&p, 0).window, dcqcn(&p, 0).var_window), (Some(WindowCap::Bdp), true));
    assert!(!dcqcn(&load(STAR8, &["host.cc.type=dcqcn", "host.cc.window=\"bdp\""]).unwrap(), 0).var_window, "fixed by default");
    match &load(STAR8, &["host.cc.type=timely", "host.cc.window=\"64KB\"", "host.cc.var_window=true"]).unwrap().ccs[0] {
        CcPlan::Timely(t) => assert_eq!((t.window, t.var_window), (Some(WindowCap::Bytes(64_000)), true)),
        other => panic!("{other:?}"),
    }
    for ty in ["dcqcn", "timely"] {
        let ty = format!("host.cc.type={ty}");
        expect(STAR8, &[&ty, "host.cc.var_window=true"], &["host.cc.var_window: scales the window: set `window` too"]);
        expect(STAR8, &[&ty, "host.cc.window=\"bdp\"", "host.cc.var_window=\"rate\""], &["host.cc", "var_window"]);
    }
}

/// A fabric meant lossless but run without pauses is an error naming the list; RoCE on
/// a lossy priority is valid but warned about, TCP and UDP there are not.
#[test]
fn lossless_contradictions_and_warnings() {
    expect(BASE, &["switch.pfc.mode=\"off\""], &["switch.pfc.lossless:", "priority 3", "mode = \"off\" pauses nothing"]);
    let off = load(BASE, &["switch.pfc.mode=\"off\"", "switch.pfc.lossless=[]"]).unwrap();
    let w = validate::warnings(&off);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("traffic[0].priority: RoCE flows on priority 3, which is lossy (switch.pfc.mode = \"off\")"), "{w:?}");
    // The lossless base: no warning. The same flows on priority 0 while 3 is protected: one.
    assert!(validate::warnings(&load(BASE, &[]).unwrap()).is_empty());
    let p0 = load(BASE, &["traffic[0].priority=0", "traffic[0].flows[0].priority=0"]).unwrap();
    let w = validate::warnings(&p0);
    assert_eq!(w, vec!["traffic[0].priority: RoCE flows on priority 0, which is lossy (switch.pfc.lossless protects priority 3 only): full buffers drop their frames and go-back-N resends them".to_string()]);
    // UDP on a lossy priority is what it is made for.
    let udp = load(BASE, &["traffic[0].priority=0", "traffic[0].flows[0].priority=0", "traffic[0].transport=\"udp\""]).unwrap();
    assert!(validate::warnings(&udp).is_empty());
    // NSCC with ACKs held for several packets: a small window stalls.
    let nscc = load(BASE, &["host.cc.type=\"nscc\"", "host.ack_every=4"]).unwrap();
    let w = validate::warnings(&nscc);
    assert!(w.len() == 1 && w[0].starts_with("host.ack_every: 4 with NSCC"), "{w:?}");
    assert!(validate::warnings(&load(BASE, &["host.cc.type=\"nscc\""]).unwrap()).is_empty());
}

const STAR: &str = "[simulation]\nduration = \"5ms\"\n[topology]\ntype = \"star\"\nhosts = 4\nrate = \"40Gbps\"\ndelay = \"1us\"\n";

/// Names default to type and index; `period` repeats an entry's flows as one group.
#[test]
fn traffic_names_and_repeats() {
    let text = format!(
        "{STAR}[[traffic]]\ntype = \"permutation\"\nsize = \"10KB\"\n\
         [[traffic]]\ntype = \"incast\"\nname = \"burst\"\nreceiver = \"h0\"\nsenders = [\"h1\", \"h2\"]\nsize = \"20KB\"\nstart = \"100us\"\nperiod = \"1ms\"\ncount = 3\n"
    );
    let p = load(&text, &[]).unwrap();
    assert_eq!(p.group_names, vec!["permutation_0".to_string(), "burst".to_string()]);
    let burst: Vec<_> = p.flows.iter().filter(|f| f.group == 1).collect();
    assert_eq!(burst.len(), 6);
    let starts: Vec<u64> = burst.iter().map(|f| f.start.0 / 1_000_000).collect();
    assert_eq!(starts, vec![100, 100, 1100, 1100, 2100, 2100]);
    // `until`: copies that start before it (2.5 ms: at 0.1, 1.1, 2.1 ms).
    let until = load(&text, &["traffic[1].count=0"]);
    assert!(until.is_err());
    let mut t = text.replace("count = 3", "until = \"2.5ms\"");
    assert_eq!(load(&t, &[]).unwrap().flows.iter().filter(|f| f.group == 1).count(), 6);
    // Without count or until: to the end of the run (5 ms: five bursts).
    t = text.replace("count = 3\n", "");
    assert_eq!(load(&t, &[]).unwrap().flows.iter().filter(|f| f.group == 1).count(), 10);
    expect(&text, &["traffic[1].until=\"2ms\""], &["traffic[1].until:", "count or until, not both"]);
    expect(&text, &["traffic[1].period=\"0us\""], &["traffic[1].period:", "must be > 0"]);
    expect(&text, &["traffic[0].count=2"], &["traffic[0].count:", "give period too"]);
    expect(&text, &["traffic[0].name=\"burst\""], &["traffic[1].name:", "'burst' is already the name of traffic[0]"]);
    expect(&text, &["traffic[1].name=\"7\""], &["traffic[1].name:", "not a number"]);
    // A common key of another type: which types take it.
    let cdf = format!("{STAR}[[traffic]]\ntype = \"cdf\"\nfile = \"x.txt\"\nload = 0.5\nperiod = \"1ms\"\n");
    expect(&cdf, &[], &["traffic[0].period:", "only for type = \"flows\""]);
    // The shared keys still reach the flows: priority, transport, messages.
    let p = load(&text, &["traffic[1].priority=5", "traffic[1].messages=2"]).unwrap();
    assert!(p.flows.iter().filter(|f| f.group == 1).all(|f| f.priority == 5 && f.messages == 2));
}

/// A shipped workload by name; a missing file says where the shipped ones are.
#[test]
fn shipped_workloads_by_name() {
    let named = format!("{STAR}[[traffic]]\ntype = \"cdf\"\nfile = \"websearch\"\nload = 0.3\n");
    let by_path =
        format!("{STAR}[[traffic]]\ntype = \"cdf\"\nfile = \"../../data/workloads/hpcc_WebSearch_distribution.txt\"\nload = 0.3\n");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let a = load_str(&named, dir, &[]).unwrap();
    let b = load_str(&by_path, dir, &[]).unwrap();
    assert!(!a.flows.is_empty() && a.flows == b.flows);
    let missing = format!("{STAR}[[traffic]]\ntype = \"cdf\"\nfile = \"websarch.txt\"\nload = 0.3\n");
    let e = load_str(&missing, dir, &[]).unwrap_err().to_string();
    assert!(
        e.starts_with("traffic[0].file:") && e.contains("data/workloads") && e.contains("websearch, hadoop") && e.contains("--data-root"),
        "{e}"
    );
}

/// Keys declared with `params!` in their model's folder (PFC, the buffer, ECN, CNPs,
/// NetworkCC) still name their field and say why.
#[test]
fn declared_switch_keys_name_their_field() {
    expect(BASE, &["switch.pfc.xoff_quanta=70000"], &["switch.pfc.xoff_quanta: must be in [1, 65535] (got 70000)"]);
    expect(BASE, &["switch.pfc.deadlock_check=\"0us\""], &["switch.pfc.deadlock_check: must be > 0 (write \"off\""]);
    expect(BASE, &["switch.pfc.ib_period=\"10us\""], &["switch.pfc.ib_period: applies to mode = \"ib_credits\" only"]);
    expect(BASE, &["switch.pfc.watchdog={restoration_time=\"10us\"}"], &["switch.pfc.watchdog.detection_time: missing"]);
    expect(BASE, &["switch.pfc.watchdog={detection_time=\"10us\", action=\"flood\"}"], &["switch.pfc.watchdog.action:", "unknown variant"]);
    expect(BASE, &["switch.buffer={type=\"static\"}"], &["switch.buffer.size: missing"]);
    expect(BASE, &["switch.buffer={type=\"shared\", alpha_shift=300}"], &["switch.buffer.alpha_shift: must be in [0, 15] (got 300)"]);
    expect(STAR8, &["switch.ecn.kmin=\"10cells\""], &["switch.ecn.kmin:", "set switch.cell"]);
    expect(STAR8, &["switch.ecn.priorities=[1, 8]"], &["switch.ecn.priorities[1]: priority must be 0..=7 (got 8)"]);
    expect(STAR8, &["switch.network_cc.size=\"9000B\""], &["switch.network_cc.size: must be 64..=1500 bytes (got 9000)"]);
    expect(STAR8, &["switch.network_cc.alpha=2.0"], &["switch.network_cc.alpha: must be in (0, 1] (got 2)"]);
    let p = load(STAR8, &["switch.cell=\"200B\"", "switch.ecn.mode=red", "switch.ecn.kmin=\"10cells\"", "switch.ecn.kmax=\"20cells\""])
        .unwrap();
    assert_eq!((p.fabric.marking.ecn.kmin, p.fabric.marking.ecn.kmax), (Some(2000), Some(4000)));
}
