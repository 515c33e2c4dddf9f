//! Traffic builders: plain functions from parameters to flows.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::plan::{FlowPlan, NodeKind, NodePlan, Transport};
use crate::rng::Rng;
use crate::scenario::cdf::{Cdf, CdfReading};
use crate::units::{parse_bytes, parse_time, Rate, SimTime};

/// What every flow of a generated set shares.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowTemplate {
    pub size: Option<u64>,
    pub start: SimTime,
    pub priority: u8,
    pub rate: Option<Rate>,
    pub group: u32,
}

impl FlowTemplate {
    pub fn flow(&self, src: u32, dst: u32) -> FlowPlan {
        FlowPlan {
            src,
            dst,
            size: self.size,
            start: self.start,
            priority: self.priority,
            rate: self.rate,
            group: self.group,
            cc: 0,
            messages: 1,
            transport: Transport::Roce,
            stop: None,
            sw_limit: None,
        }
    }
}

/// Name -> node index lookup that only accepts hosts.
pub struct HostIndex<'a> {
    nodes: &'a [NodePlan],
    by_name: HashMap<&'a str, u32>,
}

impl<'a> HostIndex<'a> {
    pub fn new(nodes: &'a [NodePlan]) -> Self {
        let by_name = nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as u32)).collect();
        HostIndex { nodes, by_name }
    }

    /// The host named `name`; errors name `path`.
    pub fn host(&self, name: &str, path: &str) -> Result<u32> {
        match self.by_name.get(name) {
            None => Err(Error::scenario(path, format!("no host named '{name}'"))),
            Some(&i) if self.nodes[i as usize].kind != NodeKind::Host => {
                Err(Error::scenario(path, format!("'{name}' is a switch, not a host")))
            }
            Some(&i) => Ok(i),
        }
    }

    /// Resolves a host list (path `prefix[i]`), or all hosts when `names` is `None`.
    pub fn hosts(&self, names: Option<&[String]>, prefix: &str) -> Result<Vec<u32>> {
        match names {
            None => Ok(self.all()),
            Some(list) => {
                let mut out = Vec::with_capacity(list.len());
                let mut seen = vec![false; self.nodes.len()];
                for (i, n) in list.iter().enumerate() {
                    let h = self.host(n, &format!("{prefix}[{i}]"))?;
                    if std::mem::replace(&mut seen[h as usize], true) {
                        return Err(Error::scenario(format!("{prefix}[{i}]"), format!("host '{n}' listed twice")));
                    }
                    out.push(h);
                }
                Ok(out)
            }
        }
    }

    pub fn all(&self) -> Vec<u32> {
        self.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeKind::Host).map(|(i, _)| i as u32).collect()
    }
}

/// Every sender sends `per_sender` flows to `receiver`.
pub fn incast(senders: &[u32], receiver: u32, per_sender: u32, t: &FlowTemplate) -> Vec<FlowPlan> {
    let mut out = Vec::new();
    for _ in 0..per_sender {
        for &s in senders {
            out.push(t.flow(s, receiver));
        }
    }
    out
}

/// A uniformly random derangement of `hosts`: each host sends one flow to another host
/// and receives one. Needs at least 2 hosts.
pub fn permutation(hosts: &[u32], rng: &mut Rng, t: &FlowTemplate) -> Vec<FlowPlan> {
    assert!(hosts.len() >= 2, "a permutation needs at least 2 hosts");
    let n = hosts.len();
    let mut perm: Vec<usize> = (0..n).collect();
    loop {
        rng.shuffle(&mut perm);
        if perm.iter().enumerate().all(|(i, &p)| i != p) {
            break;
        }
    }
    (0..n).map(|i| t.flow(hosts[i], hosts[perm[i]])).collect()
}

/// One flow from every host to every other host.
pub fn all_to_all(hosts: &[u32], t: &FlowTemplate) -> Vec<FlowPlan> {
    let mut out = Vec::new();
    for &s in hosts {
        for &d in hosts {
            if s != d {
                out.push(t.flow(s, d));
            }
        }
    }
    out
}

/// HPCC-style open-loop load: for each host, Poisson arrivals in [start, stop) with mean
/// gap `mean_size * 8 / (load * host_rate)`; destination uniform among the other hosts;
/// sizes drawn from `cdf` (whole bytes, at least 1). Flows are ordered by start time.
#[allow(clippy::too_many_arguments)]
pub fn cdf_poisson(
    hosts: &[(u32, Rate)],
    cdf: &Cdf,
    reading: CdfReading,
    load: f64,
    start: SimTime,
    stop: SimTime,
    priority: u8,
    group: u32,
    rng: &mut Rng,
) -> Vec<FlowPlan> {
    let mut out = Vec::new();
    if hosts.len() < 2 || stop <= start {
        return out;
    }
    let mean = cdf.mean(reading).max(1.0);
    for (k, &(src, rate)) in hosts.iter().enumerate() {
        let mean_gap_ps = mean * 8.0 / (load * rate.0 as f64) * 1e12;
        let mut t = start.0 as f64;
        loop {
            t += rng.exp(mean_gap_ps);
            if t >= stop.0 as f64 {
                break;
            }
            let mut j = rng.below(hosts.len() as u64 - 1) as usize;
            if j >= k {
                j += 1;
            }
            let size = cdf.sample(rng, reading);
            out.push(FlowPlan {
                src,
                dst: hosts[j].0,
                size: Some(size),
                start: SimTime(t as u64),
                priority,
                rate: None,
                group,
                cc: 0,
                messages: 1,
                transport: Transport::Roce,
                stop: None,
                sw_limit: None,
            });
        }
    }
    out.sort_by_key(|f| (f.start, f.src));
    out
}

/// Parses flows from CSV text with a header naming `src,dst,size,start[,priority]`
/// (any column order; extra unknown columns are an error). Sizes: unit strings ("10KB"),
/// plain integers (bytes) or "inf"; starts: unit strings ("5us") or plain integers
/// (nanoseconds). Errors are `origin: line N: ...`.
pub fn parse_csv(text: &str, hosts: &HostIndex, default_priority: u8, group: u32, origin: &str) -> Result<Vec<FlowPlan>> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let err = |ln: usize, m: String| Error::scenario(origin, format!("line {ln}: {m}"));
    let (hl, header) = lines.next().ok_or_else(|| Error::scenario(origin, "empty CSV file"))?;
    let cols: Vec<String> = header.split(',').map(|s| s.trim().to_ascii_lowercase()).collect();
    let mut idx: HashMap<&str, usize> = HashMap::new();
    for (i, c) in cols.iter().enumerate() {
        match c.as_str() {
            "src" | "dst" | "size" | "start" | "priority" => {
                if idx.insert(c.as_str(), i).is_some() {
                    return Err(err(hl, format!("column {} ({c}) appears twice", i + 1)));
                }
            }
            _ => return Err(err(hl, format!("column {} is not one of src,dst,size,start,priority", i + 1))),
        }
    }
    for need in ["src", "dst", "size", "start"] {
        if !idx.contains_key(need) {
            return Err(err(hl, format!("missing column '{need}' (expected src,dst,size,start[,priority])")));
        }
    }
    let mut out = Vec::new();
    for (ln, l) in lines {
        let f: Vec<&str> = l.split(',').map(|s| s.trim()).collect();
        if f.len() != cols.len() {
            return Err(err(ln, format!("expected {} fields, got {}", cols.len(), f.len())));
        }
        let get = |c: &str| f[idx[c]];
        let src = hosts.host(get("src"), "").map_err(|e| err(ln, format!("src: {}", hidden(&e))))?;
        let dst = hosts.host(get("dst"), "").map_err(|e| err(ln, format!("dst: {}", hidden(&e))))?;
        if src == dst {
            return Err(err(ln, "src and dst are the same host".into()));
        }
        let s = get("size");
        let size = if s.eq_ignore_ascii_case("inf") {
            None
        } else if let Ok(v) = s.parse::<u64>() {
            Some(v)
        } else {
            Some(parse_bytes(s).map_err(|_| err(ln, "size: not a byte count (e.g. 1500 or 64KB) or inf".into()))?)
        };
        if size == Some(0) {
            return Err(err(ln, "size: must be > 0".into()));
        }
        let st = get("start");
        let start = if let Ok(v) = st.parse::<u64>() {
            SimTime::ns(v)
        } else {
            parse_time(st).map_err(|_| err(ln, "start: not a time (nanoseconds, or with a unit, e.g. 10us)".into()))?
        };
        let priority = match idx.get("priority") {
            None => default_priority,
            Some(&i) => match f[i].parse::<u8>() {
                Ok(p) if p <= 7 => p,
                _ => return Err(err(ln, "priority: must be 0..=7".into())),
            },
        };
        out.push(FlowPlan {
            src,
            dst,
            size,
            start,
            priority,
            rate: None,
            group,
            cc: 0,
            messages: 1,
            transport: Transport::Roce,
            stop: None,
            sw_limit: None,
        });
    }
    Ok(out)
}

/// Why a host name from the file was refused, without the name (file content is not
/// echoed).
fn hidden(e: &Error) -> &'static str {
    match e {
        Error::Scenario { msg, .. } if msg.contains("is a switch") => "names a switch, not a host",
        _ => "no host of that name",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::cdf::parse_cdf;
    use crate::scenario::topology;

    fn tmpl() -> FlowTemplate {
        FlowTemplate { size: Some(1000), start: SimTime::ZERO, priority: 3, rate: None, group: 0 }
    }

    #[test]
    fn permutation_is_a_derangement_and_seeded() {
        let hosts: Vec<u32> = (0..16).collect();
        let mut seen = std::collections::HashSet::new();
        for seed in 0..20 {
            let f = permutation(&hosts, &mut Rng::stream(seed, "traffic[0]"), &tmpl());
            assert_eq!(f.len(), 16);
            assert!(f.iter().all(|x| x.src != x.dst));
            let mut dsts: Vec<u32> = f.iter().map(|x| x.dst).collect();
            let key = dsts.clone();
            dsts.sort();
            assert_eq!(dsts, hosts);
            seen.insert(key);
        }
        assert!(seen.len() > 15, "permutations should change with the seed");
        let a = permutation(&hosts, &mut Rng::stream(5, "t"), &tmpl());
        let b = permutation(&hosts, &mut Rng::stream(5, "t"), &tmpl());
        assert_eq!(a, b);
        let two = permutation(&[4, 9], &mut Rng::stream(1, "t"), &tmpl());
        assert_eq!((two[0].dst, two[1].dst), (9, 4));
    }

    #[test]
    fn incast_and_all_to_all() {
        let f = incast(&[1, 2, 3], 0, 2, &tmpl());
        assert_eq!(f.len(), 6);
        assert!(f.iter().all(|x| x.dst == 0));
        let a = all_to_all(&[0, 1, 2, 3], &tmpl());
        assert_eq!(a.len(), 12);
    }

    #[test]
    fn csv_parsing() {
        let t = topology::star(3, Rate::gbps(10), SimTime::us(1)).unwrap();
        let idx = HostIndex::new(&t.nodes);
        let text = "src,dst,size,start,priority\nh0,h1,10KB,5us,2\nh1,h2,1500,100,3\nh2,h0,inf,0us,3\n";
        let f = parse_csv(text, &idx, 3, 4, "traffic[0].file").unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].size, Some(10_000));
        assert_eq!(f[0].start, SimTime::us(5));
        assert_eq!(f[0].priority, 2);
        assert_eq!(f[1].size, Some(1500));
        assert_eq!(f[1].start, SimTime::ns(100));
        assert_eq!(f[2].size, None);
        assert_eq!(f[2].group, 4);
        let e = parse_csv("src,dst,size,start\nh0,Q,1,1\n", &idx, 3, 0, "traffic[0].file").unwrap_err().to_string();
        assert!(e.contains("traffic[0].file: line 2: dst: no host of that name"), "{e}");
        let e = parse_csv("src,dst,size,start\nh0,S0,1,1\n", &idx, 3, 0, "traffic[0].file").unwrap_err().to_string();
        assert!(e.contains("switch"), "{e}");
        assert!(parse_csv("src,dst,bytes,start\n", &idx, 3, 0, "x").is_err());
    }

    #[test]
    fn poisson_load_matches_target() {
        let cdf = parse_cdf("1000 0\n1000 1\n", 1.0, None).unwrap();
        let hosts: Vec<(u32, Rate)> = (0..4).map(|i| (i, Rate::gbps(10))).collect();
        let stop = SimTime::ms(10);
        let f = cdf_poisson(&hosts, &cdf, CdfReading::Interpolated, 0.5, SimTime::ZERO, stop, 3, 1, &mut Rng::stream(1, "c"));
        // 4 hosts * 0.5 * 10 Gb/s * 10 ms / 8000 bits = 25000 flows expected
        let n = f.len() as f64;
        assert!((n - 25000.0).abs() < 800.0, "{n}");
        assert!(f.iter().all(|x| x.src != x.dst && x.start < stop && x.size == Some(1000)));
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
        let g = cdf_poisson(&hosts, &cdf, CdfReading::Interpolated, 0.5, SimTime::ZERO, stop, 3, 1, &mut Rng::stream(2, "c"));
        assert_ne!(f, g);
    }
}
