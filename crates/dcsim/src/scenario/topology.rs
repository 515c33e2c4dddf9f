//! Topology builders: plain functions from parameters to nodes and links.
//! Hosts come first in `nodes`, then switches.

use std::collections::HashMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::plan::{LinkPlan, NodeKind, NodePlan};
use crate::units::{parse_rate, parse_time, Rate, SimTime};

/// Nodes and links of a built topology.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    pub nodes: Vec<NodePlan>,
    pub links: Vec<LinkPlan>,
}

impl Topology {
    fn add(&mut self, name: String, kind: NodeKind) -> u32 {
        self.nodes.push(NodePlan { name, kind });
        (self.nodes.len() - 1) as u32
    }
    fn host(&mut self, name: String) -> u32 {
        self.add(name, NodeKind::Host)
    }
    fn switch(&mut self, name: String) -> u32 {
        self.add(name, NodeKind::Switch)
    }
    fn link(&mut self, a: u32, b: u32, rate: Rate, delay: SimTime) {
        self.links.push(LinkPlan { a, b, rate, delay });
    }
    pub fn hosts(&self) -> impl Iterator<Item = (u32, &NodePlan)> {
        self.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeKind::Host).map(|(i, n)| (i as u32, n))
    }
}

/// The most nodes a topology may have: node ids are 32-bit (`u32::MAX` means none).
pub const MAX_NODES: u64 = u32::MAX as u64 - 1;

/// Errors (naming `path`) when a topology of `hosts + switches` nodes would not fit in
/// 32-bit node ids. Counts are computed in 64 bits by the callers, so they never wrap.
fn check_nodes(hosts: u64, switches: u64, path: &str) -> Result<()> {
    let n = hosts.saturating_add(switches);
    if n > MAX_NODES {
        return Err(Error::scenario(path, format!("gives {n} nodes ({hosts} hosts, {switches} switches); at most {MAX_NODES}")));
    }
    Ok(())
}

/// Spreadsheet-style letter names A, B, ..., Z, AA, AB, ... skipping "R" (the receiver).
pub fn sender_names(n: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(n);
    let mut i = 0usize;
    while out.len() < n {
        let mut k = i;
        let mut s = Vec::new();
        loop {
            s.push(b'A' + (k % 26) as u8);
            if k < 26 {
                break;
            }
            k = k / 26 - 1;
        }
        s.reverse();
        let name = String::from_utf8(s).unwrap();
        if name != "R" {
            out.push(name);
        }
        i += 1;
    }
    out
}

/// Parking lot: switches S1..Sn in a chain, `senders[i]` senders on switch i+1 named
/// A, B, C, ... in order, and the receiver R on the last switch. All links share
/// `rate` and `delay`.
pub fn parking_lot(switches: u32, senders: &[u32], rate: Rate, delay: SimTime) -> Result<Topology> {
    if switches == 0 {
        return Err(Error::scenario("topology.switches", "must be >= 1"));
    }
    if senders.len() != switches as usize {
        return Err(Error::scenario(
            "topology.senders",
            format!("needs one count per switch ({} entries for {} switches)", senders.len(), switches),
        ));
    }
    let total: u64 = senders.iter().map(|&n| n as u64).sum();
    check_nodes(total + 1, switches as u64, "topology.senders")?;
    let names = sender_names(total as usize);
    let mut t = Topology::default();
    let mut host_ids = Vec::new();
    for name in names {
        host_ids.push(t.host(name));
    }
    let r = t.host("R".to_string());
    let sw: Vec<u32> = (1..=switches).map(|i| t.switch(format!("S{i}"))).collect();
    let mut h = 0usize;
    for (i, &n) in senders.iter().enumerate() {
        for _ in 0..n {
            t.link(host_ids[h], sw[i], rate, delay);
            h += 1;
        }
    }
    for w in sw.windows(2) {
        t.link(w[0], w[1], rate, delay);
    }
    t.link(r, *sw.last().unwrap(), rate, delay);
    Ok(t)
}

/// Dumbbell: senders s0.. on SL, receivers r0.. on SR, SL-SR at `bottleneck`.
pub fn dumbbell(senders: u32, receivers: u32, host_rate: Rate, bottleneck: Rate, delay: SimTime) -> Result<Topology> {
    check_nodes(senders as u64 + receivers as u64, 2, "topology.senders")?;
    let mut t = Topology::default();
    let s: Vec<u32> = (0..senders).map(|i| t.host(format!("s{i}"))).collect();
    let r: Vec<u32> = (0..receivers).map(|i| t.host(format!("r{i}"))).collect();
    let sl = t.switch("SL".into());
    let sr = t.switch("SR".into());
    for h in s {
        t.link(h, sl, host_rate, delay);
    }
    for h in r {
        t.link(h, sr, host_rate, delay);
    }
    t.link(sl, sr, bottleneck, delay);
    Ok(t)
}

/// Star: hosts h0..h{n-1} on switch S0.
pub fn star(hosts: u32, rate: Rate, delay: SimTime) -> Result<Topology> {
    check_nodes(hosts as u64, 1, "topology.hosts")?;
    let mut t = Topology::default();
    let h: Vec<u32> = (0..hosts).map(|i| t.host(format!("h{i}"))).collect();
    let s = t.switch("S0".into());
    for x in h {
        t.link(x, s, rate, delay);
    }
    Ok(t)
}

/// Leaf-spine: host h{l*hosts_per_leaf + i} on leaf{l}; every leaf linked to every spine.
pub fn leaf_spine(leaves: u32, spines: u32, hosts_per_leaf: u32, host_rate: Rate, fabric_rate: Rate, delay: SimTime) -> Result<Topology> {
    let nhosts = leaves as u64 * hosts_per_leaf as u64;
    check_nodes(nhosts, leaves as u64 + spines as u64, "topology.leaves")?;
    let mut t = Topology::default();
    let h: Vec<u32> = (0..nhosts as u32).map(|i| t.host(format!("h{i}"))).collect();
    let l: Vec<u32> = (0..leaves).map(|i| t.switch(format!("leaf{i}"))).collect();
    let s: Vec<u32> = (0..spines).map(|i| t.switch(format!("spine{i}"))).collect();
    for (i, &x) in h.iter().enumerate() {
        t.link(x, l[i / hosts_per_leaf as usize], host_rate, delay);
    }
    for &a in &l {
        for &b in &s {
            t.link(a, b, fabric_rate, delay);
        }
    }
    Ok(t)
}

/// k-ary fat tree (Al-Fares et al.): k pods of k/2 edge switches `edge{pod}_{i}` and k/2
/// aggregation switches `agg{pod}_{i}`; (k/2)^2 cores `core{i}`; k/2 hosts per edge
/// switch, named h0.. in pod/edge order. Aggregation switch i of each pod links to cores
/// i*k/2 .. (i+1)*k/2 - 1.
pub fn fat_tree(k: u32, host_rate: Rate, fabric_rate: Rate, delay: SimTime) -> Result<Topology> {
    if k < 2 || !k.is_multiple_of(2) {
        return Err(Error::scenario("topology.k", format!("must be even and >= 2 (got {k})")));
    }
    let half = k / 2;
    // In 64 bits: k^3/4 overflows 32 bits from k = 2048 on.
    let (k64, h64) = (k as u64, half as u64);
    check_nodes(k64.saturating_mul(h64 * h64), (2 * k64 * h64).saturating_add(h64 * h64), "topology.k")?;
    let mut t = Topology::default();
    let nhosts = k * half * half;
    let hosts: Vec<u32> = (0..nhosts).map(|i| t.host(format!("h{i}"))).collect();
    let mut edge = Vec::new();
    let mut agg = Vec::new();
    for p in 0..k {
        edge.push((0..half).map(|i| t.switch(format!("edge{p}_{i}"))).collect::<Vec<_>>());
    }
    for p in 0..k {
        agg.push((0..half).map(|i| t.switch(format!("agg{p}_{i}"))).collect::<Vec<_>>());
    }
    let core: Vec<u32> = (0..half * half).map(|i| t.switch(format!("core{i}"))).collect();
    for p in 0..k as usize {
        for e in 0..half as usize {
            for x in 0..half as usize {
                let h = hosts[(p * half as usize + e) * half as usize + x];
                t.link(h, edge[p][e], host_rate, delay);
            }
        }
    }
    for (ep, ap) in edge.iter().zip(&agg) {
        for &e in ep {
            for &a in ap {
                t.link(e, a, fabric_rate, delay);
            }
        }
    }
    // Aggregation switch a of every pod links to core switches a * half .. (a + 1) * half.
    for ap in &agg {
        for (&a, cores) in ap.iter().zip(core.chunks(half as usize)) {
            for &c in cores {
                t.link(a, c, fabric_rate, delay);
            }
        }
    }
    Ok(t)
}

/// One link of an explicit topology, by node names.
#[derive(Clone, Debug)]
pub struct NamedLink {
    pub a: String,
    pub b: String,
    pub rate: Rate,
    pub delay: SimTime,
}

/// Explicit topology from names. Errors name `topology.hosts[i]`, `topology.links[i].a` ...
pub fn explicit(hosts: &[String], switches: &[String], links: &[NamedLink]) -> Result<Topology> {
    let mut t = Topology::default();
    let mut index: HashMap<String, u32> = HashMap::new();
    for (list, kind, field) in [(hosts, NodeKind::Host, "hosts"), (switches, NodeKind::Switch, "switches")] {
        for (i, n) in list.iter().enumerate() {
            let path = format!("topology.{field}[{i}]");
            if n.trim().is_empty() {
                return Err(Error::scenario(path, "node name is empty"));
            }
            if index.contains_key(n) {
                return Err(Error::scenario(path, format!("duplicate node name '{n}'")));
            }
            let id = t.add(n.clone(), kind);
            index.insert(n.clone(), id);
        }
    }
    for (i, l) in links.iter().enumerate() {
        let a = *index.get(&l.a).ok_or_else(|| Error::scenario(format!("topology.links[{i}].a"), format!("no node named '{}'", l.a)))?;
        let b = *index.get(&l.b).ok_or_else(|| Error::scenario(format!("topology.links[{i}].b"), format!("no node named '{}'", l.b)))?;
        if a == b {
            return Err(Error::scenario(format!("topology.links[{i}]"), format!("self-link on '{}'", l.a)));
        }
        t.link(a, b, l.rate, l.delay);
    }
    Ok(t)
}

/// Parses a topology in the HPCC simulator's text format: line 1 `nodes switches links`,
/// line 2 the switch ids, then one `a b rate delay error_rate` line per link. Nodes are
/// named by their number. `origin` names the source in errors (e.g. `topology.file`),
/// which give the line number and never quote the file's content.
pub fn parse_hpcc(text: &str, origin: &str) -> Result<Topology> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim())).filter(|(_, l)| !l.is_empty());
    let err = |line: usize, msg: String| Error::scenario(origin, format!("line {line}: {msg}"));
    let (ln, header) = lines.next().ok_or_else(|| Error::scenario(origin, "empty topology file"))?;
    let nums: Vec<&str> = header.split_whitespace().collect();
    if nums.len() < 3 {
        return Err(err(ln, format!("expected 'nodes switches links', got {} fields", nums.len())));
    }
    let parse_n = |s: &str, line: usize| -> Result<usize> {
        s.parse::<usize>().map_err(|_| err(line, "a node count or id is not a non-negative integer".to_string()))
    };
    let n_nodes = parse_n(nums[0], ln)?;
    let n_switches = parse_n(nums[1], ln)?;
    let n_links = parse_n(nums[2], ln)?;
    if n_switches > n_nodes {
        return Err(err(ln, format!("{n_switches} switches but only {n_nodes} nodes")));
    }
    // Checked before anything is sized from the header: every link is a line of the file,
    // and a connected graph of n nodes has at least n - 1 links.
    let n_lines = text.lines().count();
    if n_links > n_lines {
        return Err(err(ln, format!("header announces {n_links} links but the file has {n_lines} lines")));
    }
    if n_nodes > n_links + 1 {
        return Err(err(ln, format!("{n_nodes} nodes cannot be connected by {n_links} links")));
    }
    let mut is_switch = vec![false; n_nodes];
    let mut found = 0;
    while found < n_switches {
        let (ln, l) = lines.next().ok_or_else(|| Error::scenario(origin, format!("expected {n_switches} switch ids, found {found}")))?;
        for s in l.split_whitespace() {
            let id = parse_n(s, ln)?;
            if id >= n_nodes {
                return Err(err(ln, format!("switch id {id} out of range (nodes 0..{})", n_nodes)));
            }
            if is_switch[id] {
                return Err(err(ln, format!("switch id {id} listed twice")));
            }
            is_switch[id] = true;
            found += 1;
        }
    }
    if found != n_switches {
        return Err(Error::scenario(origin, format!("expected {n_switches} switch ids, found {found}")));
    }
    let mut t = Topology::default();
    // Keep node numbers as indices so that node "i" is index i.
    for (i, &sw) in is_switch.iter().enumerate() {
        t.add(i.to_string(), if sw { NodeKind::Switch } else { NodeKind::Host });
    }
    for (ln, l) in lines {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 4 {
            return Err(err(ln, format!("expected 'a b rate delay [error_rate]', got {} fields", f.len())));
        }
        let a = parse_n(f[0], ln)?;
        let b = parse_n(f[1], ln)?;
        for x in [a, b] {
            if x >= n_nodes {
                return Err(err(ln, format!("node {x} out of range (nodes 0..{n_nodes})")));
            }
        }
        if a == b {
            return Err(err(ln, format!("self-link on node {a}")));
        }
        let rate = parse_rate(f[2]).map_err(|_| err(ln, "the rate is not a rate with a unit (e.g. 100Gbps)".into()))?;
        if rate.0 == 0 {
            return Err(err(ln, "rate must be > 0".into()));
        }
        let delay = parse_time(f[3]).map_err(|_| err(ln, "the delay is not a time with a unit (e.g. 1us)".into()))?;
        if let Some(e) = f.get(4) {
            let v: f64 = e.parse().map_err(|_| err(ln, "the error rate is not a number".into()))?;
            if v != 0.0 {
                return Err(err(ln, format!("error rate {v} is not supported (must be 0)")));
            }
        }
        t.link(a as u32, b as u32, rate, delay);
    }
    if t.links.len() != n_links {
        return Err(Error::scenario(origin, format!("header announces {n_links} links but the file has {}", t.links.len())));
    }
    Ok(t)
}

/// Reads and parses an HPCC topology file.
pub fn hpcc_file(path: &Path, origin: &str) -> Result<Topology> {
    let text = crate::scenario::read_text(path).map_err(|m| Error::scenario(origin, m))?;
    parse_hpcc(&text, origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(t: &Topology) -> (usize, usize, usize) {
        let h = t.nodes.iter().filter(|n| n.kind == NodeKind::Host).count();
        (h, t.nodes.len() - h, t.links.len())
    }

    #[test]
    fn parking_lot_names_and_wiring() {
        let t = parking_lot(2, &[3, 1], Rate::gbps(40), SimTime::ns(100)).unwrap();
        let names: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["A", "B", "C", "D", "R", "S1", "S2"]);
        assert_eq!(counts(&t), (5, 2, 6));
        // D and R hang off S2 (index 6).
        let peer = |h: u32| t.links.iter().find(|l| l.a == h).unwrap().b;
        assert_eq!(peer(0), 5);
        assert_eq!(peer(3), 6);
        assert_eq!(peer(4), 6);
        assert!(parking_lot(2, &[1], Rate::gbps(40), SimTime::ns(1)).is_err());
    }

    #[test]
    fn sender_names_skip_r() {
        let n = sender_names(30);
        assert!(!n.contains(&"R".to_string()));
        assert_eq!(n[16], "Q");
        assert_eq!(n[17], "S");
        assert_eq!(n[25], "AA");
    }

    #[test]
    fn small_builders() {
        let d = dumbbell(3, 2, Rate::gbps(10), Rate::gbps(40), SimTime::us(1)).unwrap();
        assert_eq!(counts(&d), (5, 2, 6));
        assert_eq!(d.links.last().unwrap().rate, Rate::gbps(40));
        let s = star(4, Rate::gbps(10), SimTime::us(1)).unwrap();
        assert_eq!(counts(&s), (4, 1, 4));
        let ls = leaf_spine(4, 2, 8, Rate::gbps(100), Rate::gbps(400), SimTime::us(1)).unwrap();
        assert_eq!(counts(&ls), (32, 6, 32 + 8));
        assert_eq!(ls.nodes[32].name, "leaf0");
        assert_eq!(ls.nodes[36].name, "spine0");
    }

    #[test]
    fn fat_tree_sizes() {
        let t4 = fat_tree(4, Rate::gbps(100), Rate::gbps(100), SimTime::us(1)).unwrap();
        assert_eq!(counts(&t4), (16, 20, 48));
        let t8 = fat_tree(8, Rate::gbps(100), Rate::gbps(100), SimTime::us(1)).unwrap();
        assert_eq!(counts(&t8), (128, 80, 384));
        // every core has k links, every switch k ports
        let mut deg = vec![0; t8.nodes.len()];
        for l in &t8.links {
            deg[l.a as usize] += 1;
            deg[l.b as usize] += 1;
        }
        for (i, n) in t8.nodes.iter().enumerate() {
            assert_eq!(deg[i], if n.kind == NodeKind::Host { 1 } else { 8 }, "{}", n.name);
        }
        assert!(fat_tree(3, Rate::gbps(1), Rate::gbps(1), SimTime::us(1)).is_err());
    }

    #[test]
    fn huge_counts_are_errors_not_wrapped_arithmetic() {
        // k = 4096: k^3/4 = 2^34 hosts wrapped to 0 in 32 bits, and the first link indexed
        // an empty host list.
        let (r, d) = (Rate::gbps(1), SimTime::us(1));
        let e = fat_tree(4096, r, r, d).unwrap_err().to_string();
        assert!(e.starts_with("topology.k: gives"), "{e}");
        assert!(fat_tree(u32::MAX - 1, r, r, d).is_err());
        assert!(leaf_spine(1 << 20, 1, 1 << 20, r, r, d).is_err());
        assert!(parking_lot(2, &[u32::MAX, u32::MAX], r, d).is_err());
        assert!(dumbbell(u32::MAX, u32::MAX, r, r, d).is_err());
        assert!(star(u32::MAX, r, d).is_err());
    }

    #[test]
    fn explicit_errors() {
        let l = |a: &str, b: &str| NamedLink { a: a.into(), b: b.into(), rate: Rate::gbps(1), delay: SimTime::us(1) };
        let hs = vec!["A".to_string(), "B".to_string()];
        let ss = vec!["S".to_string()];
        let t = explicit(&hs, &ss, &[l("A", "S"), l("B", "S")]).unwrap();
        assert_eq!(counts(&t), (2, 1, 2));
        let e = explicit(&hs, &ss, &[l("A", "X")]).unwrap_err().to_string();
        assert!(e.contains("topology.links[0].b") && e.contains("'X'"), "{e}");
        let e = explicit(&hs, &["A".to_string()], &[]).unwrap_err().to_string();
        assert!(e.contains("topology.switches[0]") && e.contains("duplicate"), "{e}");
    }

    #[test]
    fn hpcc_text_and_file() {
        let text = "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1us 0.000000\n";
        let t = parse_hpcc(text, "topology.file").unwrap();
        assert_eq!(counts(&t), (2, 1, 2));
        assert_eq!(t.links[0].delay, SimTime::us(1));
        let e = parse_hpcc("3 1 2\n2\n0 2 100Gbs 1000ns 0\n", "topology.file").unwrap_err().to_string();
        assert!(e.contains("topology.file: line 3: the rate is not a rate") && !e.contains("Gbs"), "{e}");

        let p = Path::new("/work/shared/data/topologies/hpcc_fat.txt");
        if !p.exists() {
            eprintln!("skipping: {} not found", p.display());
            return;
        }
        let t = hpcc_file(p, "topology.file").unwrap();
        assert_eq!(t.nodes.len(), 376);
        assert_eq!(t.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count(), 56);
        assert_eq!(t.links.len(), 480);
        assert_eq!(t.nodes[320].kind, NodeKind::Switch);
        assert_eq!(t.nodes[0].name, "0");
    }
}
