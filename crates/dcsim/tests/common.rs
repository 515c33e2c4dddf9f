//! Plans built in code for the engine tests (the scenario layer has its own tests).
#![allow(dead_code)]

use dcsim::plan::*;
use dcsim::{Rate, SimTime};

pub fn host(p: &mut Plan, name: &str) -> u32 {
    p.nodes.push(NodePlan { name: name.into(), kind: NodeKind::Host });
    p.nodes.len() as u32 - 1
}
pub fn switch(p: &mut Plan, name: &str) -> u32 {
    p.nodes.push(NodePlan { name: name.into(), kind: NodeKind::Switch });
    p.nodes.len() as u32 - 1
}
pub fn link(p: &mut Plan, a: u32, b: u32, gbps: u64, delay_ns: u64) {
    p.links.push(LinkPlan { a, b, rate: Rate::gbps(gbps), delay: SimTime::ns(delay_ns) });
}
pub fn flow(p: &mut Plan, src: u32, dst: u32, size: Option<u64>, start: SimTime) {
    p.flows.push(FlowPlan {
        src,
        dst,
        size,
        start,
        priority: 3,
        rate: None,
        group: 0,
        cc: 0,
        messages: 1,
        transport: Transport::Roce,
        stop: None,
        sw_limit: None,
    });
}

/// The seed study's parking lot: A, B, C on S1; D and R on S2; all send to R.
pub fn parking_lot(duration: SimTime) -> Plan {
    let mut p = Plan::new("parking_lot", duration);
    p.host.mtu = 2048;
    let s1 = switch(&mut p, "S1");
    let s2 = switch(&mut p, "S2");
    let names = ["A", "B", "C", "D"];
    let mut senders = vec![];
    for (i, n) in names.iter().enumerate() {
        let h = host(&mut p, n);
        link(&mut p, h, if i < 3 { s1 } else { s2 }, 40, 100);
        senders.push(h);
    }
    let r = host(&mut p, "R");
    link(&mut p, r, s2, 40, 100);
    link(&mut p, s1, s2, 40, 100);
    for s in senders {
        flow(&mut p, s, r, None, SimTime::ZERO);
    }
    p.switch.arbitration = Arbitration::PerPort;
    p.stats.steady_start = SimTime::ms(1);
    p
}

/// N senders and one receiver on one switch.
pub fn incast(n: usize, gbps: u64, delay_ns: u64, size: Option<u64>, duration: SimTime) -> Plan {
    let mut p = Plan::new("incast", duration);
    let s = switch(&mut p, "S0");
    let r = host(&mut p, "h0");
    link(&mut p, r, s, gbps, delay_ns);
    for i in 0..n {
        let h = host(&mut p, &format!("h{}", i + 1));
        link(&mut p, h, s, gbps, delay_ns);
        flow(&mut p, h, r, size, SimTime::ZERO);
    }
    p
}

/// A column of a result table, by type; a missing table or column, or another type,
/// panics with its name.
fn column<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> Option<&'a dcsim::results::Column> {
    r.table(table).unwrap_or_else(|| panic!("no table {table}")).get(col)
}
pub fn col_f64<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> &'a [f64] {
    match column(r, table, col) {
        Some(dcsim::results::Column::F64(v)) => v,
        c => panic!("{table}.{col}: {c:?}"),
    }
}
pub fn col_u64<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> &'a [u64] {
    match column(r, table, col) {
        Some(dcsim::results::Column::U64(v)) => v,
        c => panic!("{table}.{col}: {c:?}"),
    }
}
pub fn col_i64<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> &'a [i64] {
    match column(r, table, col) {
        Some(dcsim::results::Column::I64(v)) => v,
        c => panic!("{table}.{col}: {c:?}"),
    }
}
pub fn col_str<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> Vec<&'a str> {
    match column(r, table, col) {
        Some(dcsim::results::Column::Str(v)) => v.iter().collect(),
        c => panic!("{table}.{col}: {c:?}"),
    }
}

/// k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores,
/// k/2 hosts per edge switch. Returns the plan and the host indices.
pub fn fat_tree(k: u32, gbps: u64, delay_ns: u64, duration: SimTime) -> (Plan, Vec<u32>) {
    let mut p = Plan::new("fat_tree", duration);
    let h = k / 2;
    let mut hosts = vec![];
    let cores: Vec<u32> = (0..h * h).map(|i| switch(&mut p, &format!("core{i}"))).collect();
    for pod in 0..k {
        let aggs: Vec<u32> = (0..h).map(|i| switch(&mut p, &format!("agg{pod}_{i}"))).collect();
        for (j, &a) in aggs.iter().enumerate() {
            for c in 0..h {
                link(&mut p, a, cores[(j as u32 * h + c) as usize], gbps, delay_ns);
            }
        }
        for e in 0..h {
            let edge = switch(&mut p, &format!("edge{pod}_{e}"));
            for &a in &aggs {
                link(&mut p, edge, a, gbps, delay_ns);
            }
            for i in 0..h {
                let x = host(&mut p, &format!("h{}", hosts.len()));
                let _ = i;
                link(&mut p, x, edge, gbps, delay_ns);
                hosts.push(x);
            }
        }
    }
    (p, hosts)
}

/// A random derangement of the hosts (seeded), one long flow per host.
pub fn permutation(p: &mut Plan, hosts: &[u32], seed: u64) {
    let n = hosts.len();
    let mut rng = dcsim::rng::Rng::stream(seed, "test-permutation");
    loop {
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            perm.swap(i, j);
        }
        if perm.iter().enumerate().all(|(i, &j)| i != j) {
            for (i, &j) in perm.iter().enumerate() {
                flow(p, hosts[i], hosts[j], None, SimTime::ZERO);
            }
            return;
        }
    }
}

/// Runs a scenario file with `overrides`, driven in seven chunks as the Python runner
/// drives it, after `setup` (an engine switch): its digest (every table and the summary
/// but the engine's memory figures), events, link crossings and the row count of each
/// table.
pub fn run_file(file: &str, overrides: &[String], setup: impl Fn(&mut dcsim::Simulation)) -> (String, u64, u64, Vec<String>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let plan = dcsim::scenario::load_file(&root.join(file), overrides).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut sim = dcsim::Simulation::new(&plan).unwrap();
    setup(&mut sim);
    let step = SimTime(sim.end().0 / 7 + 1);
    let mut t = SimTime::ZERO;
    while sim.run_until(t + step) {
        t = t + step;
    }
    let (events, hops) = (sim.events(), sim.packet_hops());
    let res = sim.finish();
    assert!(res.checks_passed(), "{file} {overrides:?}: {:?}", res.failed_checks());
    let rows = res.tables.iter().map(|(name, t)| format!("{name}: {}", t.rows())).collect();
    (format!("{:016x}", res.digest()), events, hops, rows)
}

/// A published reference result, `data/published/<name>.csv` (shared with the docs'
/// gallery, `python/dcsim/docgen/gallery.py`): its rows, each as (column, value) pairs.
pub fn published(name: &str) -> Vec<Vec<(String, String)>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/published").join(format!("{name}.csv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let head: Vec<String> = lines.next().expect("a header line").split(',').map(str::to_string).collect();
    lines.map(|l| head.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

/// Column `col` of a row of `published`.
pub fn field<T: std::str::FromStr>(row: &[(String, String)], col: &str) -> T {
    let v = &row.iter().find(|(c, _)| c == col).unwrap_or_else(|| panic!("no column {col}")).1;
    v.parse().unwrap_or_else(|_| panic!("{col}: {v}"))
}
