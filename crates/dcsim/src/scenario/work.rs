//! Bounded work: the events a scenario will cost, estimated from the settings that
//! multiply them, against a configurable limit. Valid settings can ask for more work
//! than any run could finish (a queue sample every picosecond on a fat tree, a timer
//! of 1 ps per flow): such a plan is refused at validation, naming the field that
//! drives the estimate, as `limits` refuses one that would not fit in memory.
//!
//! The estimate is a sum of terms, each named by the field that drives it:
//!
//! * frames (`traffic[g]`): every flow's offered bytes (its size, or its rate, at most
//!   its NIC's line rate, over the time it is active) in frames of `host.mtu`, each
//!   sender's total capped by what its link can carry in the run (and each receiver's,
//!   when every flow is lossless), times the hops of its path, times the events per
//!   hop (the frame's departure and arrival, and those of its ACK), plus each flow's
//!   start and end;
//! * periodic work, `duration / interval` times what each period visits: queue samples
//!   (`stats.sample_interval`, switch ports x priorities in use), the PFC watchdog and
//!   deadlock detector (switch ports), FECN rate updates and IB credit updates (ports),
//!   storage KPI rows (slots), pause refreshes (switch ports x lossless classes), pause
//!   storms, and the reaction points' timers (flows x periods: DCQCN, QCN, BCN, FECN
//!   probes, RCM recovery);
//! * rate-schedule steps within the run (`switch.rate_schedule`).
//!
//! It counts events and periodic visits alike (a sample of one queue is one unit).
//! Measured against real runs (`tests/work_estimate.rs`) it is an upper bound within
//! a stated factor: load-driven runs spend fewer events than the estimate when flows
//! share bottlenecks or finish early; timers held while quiet (DCQCN) are counted.
//!
//! The limit is `simulation.max_events`, else the environment variable
//! `DCSIM_MAX_EVENTS`, else `DEFAULT_MAX_EVENTS`.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::models::fabric_model::WorkCtx;
use crate::models::{CcPlan, FabricModels};
use crate::plan::{NodeKind, Plan, Transport};
use crate::units::SimTime;

pub use crate::plan::DEFAULT_MAX_EVENTS;
/// The environment variable that sets the limit for scenarios that do not.
pub const MAX_EVENTS_ENV: &str = "DCSIM_MAX_EVENTS";

/// Events per frame and hop: its departure and its arrival (forwarding included), and
/// the same for the ACK that answers it (`ACK_EVENTS_PER_HOP`, not for UDP).
const DATA_EVENTS_PER_HOP: u64 = 2;
const ACK_EVENTS_PER_HOP: u64 = 2;
/// Events of a flow besides its frames: its start and its end.
const FLOW_EVENTS: u128 = 2;
/// Sources whose paths are measured one by one; beyond, every path counts as the
/// longest from one source doubled (a bound on the diameter).
const MAX_PATH_SOURCES: usize = 2048;

/// The limit that applies when the scenario does not set one: `DCSIM_MAX_EVENTS` if set
/// (a count such as "2e11" or "200000000000"), else `DEFAULT_MAX_EVENTS`.
pub fn default_limit() -> Result<u64> {
    match std::env::var(MAX_EVENTS_ENV) {
        Ok(v) => parse_count(&v).ok_or_else(|| {
            Error::scenario(MAX_EVENTS_ENV, format!("must be a positive count of events, e.g. 2e11, got {v:?} (environment variable)"))
        }),
        Err(_) => Ok(DEFAULT_MAX_EVENTS),
    }
}

/// A positive count written as an integer or a float (`2e11`).
pub fn parse_count(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    if let Ok(n) = s.parse::<u64>() {
        return (n > 0).then_some(n);
    }
    let f: f64 = s.parse().ok()?;
    (f.is_finite() && f >= 1.0 && f < u64::MAX as f64).then_some(f as u64)
}

/// One term of the estimate: the field that drives it, what it counts, and its events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub field: String,
    pub what: String,
    pub events: u64,
}

/// The estimate of a plan, term by term.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub terms: Vec<Term>,
}

impl Work {
    fn add(&mut self, field: impl Into<String>, what: impl Into<String>, events: u64) {
        if events > 0 {
            self.terms.push(Term { field: field.into(), what: what.into(), events });
        }
    }

    /// Estimated events of the whole run (saturating).
    pub fn events(&self) -> u64 {
        self.terms.iter().fold(0u64, |a, t| a.saturating_add(t.events))
    }

    /// The largest term.
    pub fn largest(&self) -> Option<&Term> {
        self.terms.iter().max_by_key(|t| t.events)
    }

    /// "2.1e9 for frames of traffic[0], 3.0e5 for queue samples, ...", largest first.
    pub fn describe(&self) -> String {
        let mut ts: Vec<&Term> = self.terms.iter().collect();
        ts.sort_by_key(|t| std::cmp::Reverse(t.events));
        if ts.is_empty() {
            return "nothing".into();
        }
        ts.iter().map(|t| format!("{} for {} ({})", sci(t.events), t.what, t.field)).collect::<Vec<_>>().join(", ")
    }

    /// Errors, naming the field of the largest term, when the estimate exceeds `limit`.
    pub fn check(&self, limit: u64) -> Result<()> {
        let need = self.events();
        if need <= limit {
            return Ok(());
        }
        let top = self.largest().expect("a positive estimate has a term");
        Err(Error::scenario(
            &top.field,
            format!(
                "this scenario would take about {} events ({}); the limit is {} (raise it with \
                 simulation.max_events, e.g. --set simulation.max_events={}, --max-events, or the \
                 {MAX_EVENTS_ENV} environment variable)",
                sci(need),
                self.describe(),
                sci(limit),
                need.saturating_mul(2)
            ),
        ))
    }
}

/// A count in scientific notation with two significant decimals ("3.1e10"); small
/// counts as they are.
pub fn sci(n: u64) -> String {
    if n < 100_000 {
        return n.to_string();
    }
    let e = (n as f64).log10().floor() as i32;
    let m = n as f64 / 10f64.powi(e);
    format!("{m:.1}e{e}")
}

/// Periods of `iv` in `span` (at least one when the span is not empty).
fn periods(span: SimTime, iv: SimTime) -> u64 {
    iv.periods_in(span)
}

/// The estimate of a validated plan (names, links and flows resolved).
pub fn plan_work(p: &Plan) -> Work {
    let mut w = Work::default();
    let dur = p.duration;
    let is_switch = |i: u32| p.nodes.get(i as usize).is_some_and(|n| n.kind == NodeKind::Switch);
    let switch_ports: u64 = p.links.iter().map(|l| is_switch(l.a) as u64 + is_switch(l.b) as u64).sum();
    let ports = 2 * p.links.len() as u64;
    let prios = p.flows.iter().fold(0u8, |m, f| m | 1u8.checked_shl(f.priority as u32).unwrap_or(0)).count_ones().max(1) as u64;

    let hops_of_cc = frames(p, &mut w);

    // Periodic work of the loop and of the switches.
    let st = &p.stats;
    if let Some(iv) = st.sample_interval {
        w.add("stats.sample_interval", "queue samples", periods(dur, iv).saturating_mul(switch_ports).saturating_mul(prios));
    }
    if let (Some(iv), false) = (st.io_interval, p.storage.is_empty()) {
        let slots = p.storage.iter().map(|s| s.slots as u64).sum::<u64>().max(1);
        w.add("stats.io_interval", "storage KPI rows", periods(dur, iv).saturating_mul(slots));
    }
    // The fabric models' periodic work, in the list's order.
    let mut terms = Vec::new();
    FabricModels::work(p, &WorkCtx { switch_ports, ports, prios }, &mut terms);
    for (field, what, events) in terms {
        w.add(field, what, events);
    }
    let steps = p.switch.rate_schedule.iter().filter(|s| s.at <= dur).count() as u64;
    w.add("switch.rate_schedule", "rate-schedule steps", steps);

    timers(p, &hops_of_cc, &mut w);
    w
}

/// Reaction-point timers: per flow, its active time over each period of its algorithm.
fn timers(p: &Plan, hops_of_cc: &[u64], w: &mut Work) {
    // Flow-time (ps) and flows of each `ccs` entry, and the group that names it.
    let mut per_cc: Vec<(u128, u64, Option<u32>)> = vec![(0, 0, None); p.ccs.len()];
    for f in &p.flows {
        if let Some(e) = per_cc.get_mut(f.cc as usize) {
            let end = f.stop.unwrap_or(p.duration).min(p.duration);
            e.0 += end.0.saturating_sub(f.start.0) as u128;
            e.1 += 1;
            e.2.get_or_insert(f.group);
        }
    }
    for (k, cc) in p.ccs.iter().enumerate() {
        let (span, flows, group) = per_cc[k];
        if flows == 0 {
            continue;
        }
        let path = if k == 0 { "host.cc".to_string() } else { format!("traffic[{}].cc", group.unwrap_or(0)) };
        let count = |iv: SimTime| -> u64 { (span / iv.0.max(1) as u128).saturating_add(flows as u128).min(u64::MAX as u128) as u64 };
        // A FECN probe is a frame to the destination and back.
        let probe = (DATA_EVENTS_PER_HOP + ACK_EVENTS_PER_HOP) * hops_of_cc[k].max(1);
        let periodic: Vec<(&str, SimTime)> = match cc {
            CcPlan::Dcqcn(d) => {
                vec![("alpha_period", d.alpha_period), ("increase_period", d.increase_period), ("decrease_period", d.decrease_period)]
            }
            CcPlan::Qcn(q) => vec![("timer_period", q.timer_period)],
            CcPlan::Bcn(b) => vec![("drift_interval", b.drift_interval)],
            CcPlan::Fecn(f) | CcPlan::Efecn(f) => {
                w.add(format!("{path}.probe_interval"), "FECN probes", count(f.probe_interval).saturating_mul(probe));
                vec![("timeout", f.timeout)]
            }
            CcPlan::RcmLinear(r) => vec![("recover_time", r.recover_time)],
            _ => vec![],
        };
        for (key, iv) in periodic {
            w.add(format!("{path}.{key}"), "congestion-control timers", count(iv));
        }
    }
}

/// Frames from the offered load, each sender's (and, lossless, receiver's) total capped
/// by its link. Returns the longest path of each `ccs` entry's flows.
fn frames(p: &Plan, w: &mut Work) -> Vec<u64> {
    let mut hops_of_cc = vec![0u64; p.ccs.len()];
    if p.flows.is_empty() {
        return hops_of_cc;
    }
    let mss = p.host.mtu.max(1) as u128;
    let wire = crate::scenario::validate::max_wire(p).max(1) as u128;
    // Each host's one link: its rate and the node at its other end.
    let mut host_link: HashMap<u32, (u64, u32)> = HashMap::new();
    for l in &p.links {
        for (h, o) in [(l.a, l.b), (l.b, l.a)] {
            if p.nodes.get(h as usize).is_some_and(|n| n.kind == NodeKind::Host) {
                host_link.entry(h).or_insert((l.rate.0, o));
            }
        }
    }
    let hops = Hops::new(p, &host_link);
    let cap = |h: u32| -> u128 {
        let rate = host_link.get(&h).map_or(0, |x| x.0) as u128;
        rate * p.duration.0 as u128 / 8_000_000_000_000 / wire + 1
    };
    // Per sender and per receiver: offered frames and the most hops of their flows.
    let mut by_src: HashMap<u32, (u128, u64)> = HashMap::new();
    let mut by_dst: HashMap<u32, (u128, u64)> = HashMap::new();
    // Per group: offered frame-hops, whether ACKed, and flows that start in the run.
    let mut by_group: HashMap<u32, (u128, bool, u128)> = HashMap::new();
    for f in &p.flows {
        let line = host_link.get(&f.src).map_or(0, |x| x.0);
        let rate = f.rate.map_or(line, |r| r.0.min(line)) as u128;
        let end = f.stop.unwrap_or(p.duration).min(p.duration);
        let active = end.0.saturating_sub(f.start.0) as u128;
        let by_rate = rate * active / 8_000_000_000_000;
        let bytes = match f.size {
            Some(s) if f.messages > 0 => (s as u128 * f.messages as u128).min(by_rate),
            _ => by_rate,
        };
        let n = bytes.div_ceil(mss).max(1);
        let h = hops.of(f.src, f.dst);
        if let Some(c) = hops_of_cc.get_mut(f.cc as usize) {
            *c = (*c).max(h);
        }
        for (m, k) in [(&mut by_src, f.src), (&mut by_dst, f.dst)] {
            let e = m.entry(k).or_insert((0, 0));
            e.0 += n;
            e.1 = e.1.max(h);
        }
        let g = by_group.entry(f.group).or_insert((0, false, 0));
        g.0 += n * h as u128;
        g.1 |= f.transport != Transport::Udp;
        g.2 += (f.start < p.duration) as u128;
    }
    let side = |m: &HashMap<u32, (u128, u64)>| m.iter().map(|(&h, &(n, hops))| n.min(cap(h)) * hops as u128).sum::<u128>();
    // What the senders' links carry bounds every run; what the receivers' links carry
    // bounds it too when no frame is dropped on the way (every flow lossless), with the
    // frames the switch buffers can hold at the end, each some hops on its way.
    // The estimate runs before validation: a priority above 7 is no class.
    let lossless = |prio: u8| prio < 8 && p.is_lossless(prio);
    let frame_hops = if p.flows.iter().all(|f| lossless(f.priority)) {
        let is_switch = |i: u32| p.nodes.get(i as usize).is_some_and(|n| n.kind == NodeKind::Switch);
        let switches = p.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count() as u64;
        let switch_ports = p.links.iter().map(|l| is_switch(l.a) as u64 + is_switch(l.b) as u64).sum();
        let buffered = crate::scenario::limits::buffer_packets(&p.switch.buffer, switches, switch_ports, wire as u64) as u128;
        let longest = by_src.values().map(|x| x.1).max().unwrap_or(1) as u128;
        side(&by_src).min(side(&by_dst) + buffered * longest.saturating_sub(1).max(1))
    } else {
        side(&by_src)
    };
    let offered: u128 = by_group.values().map(|g| g.0).sum::<u128>().max(1);
    // The capped total shared among the groups by their offered frame-hops, each
    // named by its `[[traffic]]` entry.
    let mut groups: Vec<_> = by_group.into_iter().collect();
    groups.sort_by_key(|g| g.0);
    for (g, (n, acked, started)) in groups {
        let per_hop = DATA_EVENTS_PER_HOP + if acked { ACK_EVENTS_PER_HOP } else { 0 };
        // And each flow's start and end.
        let ev = frame_hops * n / offered * per_hop as u128 + FLOW_EVENTS * started;
        w.add(format!("traffic[{g}]"), format!("frames of traffic[{g}]"), ev.min(u64::MAX as u128) as u64);
    }
    hops_of_cc
}

/// Hops of a path between two hosts: to the source's switch, across the switches (the
/// fewest links), to the destination.
struct Hops {
    /// The host's neighbour, and whether it is a switch.
    at: HashMap<u32, (u32, bool)>,
    /// Distances between switches from each source switch measured.
    dist: HashMap<u32, Vec<u32>>,
    /// Every path's bound when sources are too many to measure.
    bound: Option<u64>,
}

impl Hops {
    fn new(p: &Plan, host_link: &HashMap<u32, (u64, u32)>) -> Self {
        let n = p.nodes.len();
        let is_switch = |i: u32| p.nodes.get(i as usize).is_some_and(|x| x.kind == NodeKind::Switch);
        let at: HashMap<u32, (u32, bool)> = host_link.iter().map(|(&h, &(_, o))| (h, (o, is_switch(o)))).collect();
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for l in &p.links {
            if is_switch(l.a) && is_switch(l.b) && (l.a as usize) < n && (l.b as usize) < n {
                adj[l.a as usize].push(l.b);
                adj[l.b as usize].push(l.a);
            }
        }
        let bfs = |s: u32| -> Vec<u32> {
            let mut d = vec![u32::MAX; n];
            let mut q = std::collections::VecDeque::from([s]);
            d[s as usize] = 0;
            while let Some(u) = q.pop_front() {
                for &v in &adj[u as usize] {
                    if d[v as usize] == u32::MAX {
                        d[v as usize] = d[u as usize] + 1;
                        q.push_back(v);
                    }
                }
            }
            d
        };
        let mut sources: Vec<u32> = p.flows.iter().filter_map(|f| at.get(&f.src)).filter(|x| x.1).map(|x| x.0).collect();
        sources.sort_unstable();
        sources.dedup();
        if sources.len() > MAX_PATH_SOURCES {
            let ecc = bfs(sources[0]).into_iter().filter(|&d| d != u32::MAX).max().unwrap_or(0) as u64;
            return Hops { at, dist: HashMap::new(), bound: Some(2 + 2 * ecc) };
        }
        let dist = sources.into_iter().map(|s| (s, bfs(s))).collect();
        Hops { at, dist, bound: None }
    }

    fn of(&self, src: u32, dst: u32) -> u64 {
        let (Some(&(a, a_sw)), Some(&(b, _))) = (self.at.get(&src), self.at.get(&dst)) else { return 1 };
        if !a_sw {
            return 1; // host to host
        }
        if let Some(b) = self.bound {
            return b;
        }
        let d = self.dist.get(&a).and_then(|d| d.get(b as usize)).copied().unwrap_or(0);
        2 + if d == u32::MAX { 0 } else { d as u64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_the_largest_term_and_the_override() {
        let mut w = Work::default();
        w.add("traffic[0]", "frames of traffic[0]", 1_000_000);
        w.add("stats.sample_interval", "queue samples", 3_000_000_000_000);
        let e = w.check(1_000_000_000).unwrap_err().to_string();
        assert!(e.starts_with("stats.sample_interval: this scenario would take about 3.0e12 events"), "{e}");
        assert!(e.contains("simulation.max_events") && e.contains(MAX_EVENTS_ENV) && e.contains("the limit is 1.0e9"), "{e}");
        assert!(w.check(u64::MAX).is_ok());
        assert_eq!(sci(12_345), "12345");
        assert_eq!(parse_count("2e11"), Some(200_000_000_000));
        assert_eq!(parse_count("1_000"), Some(1000));
        assert_eq!(parse_count("0"), None);
        assert_eq!(parse_count("nan"), None);
    }
}
