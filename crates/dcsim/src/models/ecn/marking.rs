//! Switch-side congestion management: ECN marking at enqueue or dequeue, the seed
//! study's detection rules 1a and 1b, and the congestion-point statistics they feed.
//! Nothing here runs unless marking or a detection rule is configured.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::ids::{PktId, PortId};
use crate::models::ecn::marker::{mark_instant, thresholds_for, RedAvg, Thresholds};
use crate::models::rcm::detection::{CongestionPoint, Demand, Interval, RECENT};
use crate::net::capped_log::CappedLog;
use crate::net::fabric::Fabric;
use crate::net::packet::{PktKind, FLAG_CE};
use crate::net::prio_slots::PrioSlots;
use crate::net::queue::{FxHasher, Queued};
use crate::plan::{Detection, EcnMode, MarkPoint, Plan};
use crate::rng::{keyed, stream_key, unit};
use crate::units::{Rate, SimTime};

/// What a switch port's marking reads at each departure, in one 8-byte record: eight
/// ports to a cache line, instead of a line of each of four tables (its node, the node's
/// detection rule, its thresholds, its congested bits), each a miss on a large fabric.
#[derive(Copy, Clone, Default)]
pub(crate) struct PortMark {
    /// The port's ECN thresholds: an index into `Marking::ths`.
    pub th: u32,
    /// The detection rule of the port's switch: an index into `Marking::rules`.
    pub rule: u16,
    /// The port's priorities whose congestion point is congested (`cps[..].congested`,
    /// a bit each). A queue that is not congested and stays so changes nothing in its
    /// congestion point, so a departure reads this bit instead of the point's record.
    pub congested: u8,
}
const _: () = assert!(std::mem::size_of::<PortMark>() == 8);

pub(crate) struct Marking {
    /// Whether anything below is configured at all.
    pub active: bool,
    /// Whether a frame's enqueue has anything to do here (marking on arrival, averaged
    /// RED, rule 1b's demand); marking at dequeue, the default, has not.
    pub at_enqueue: bool,
    pub mode: EcnMode,
    pub prios: u8,
    pub point: MarkPoint,
    pub wq: f64,
    /// Per port: its thresholds, detection rule and congested bits.
    pub port: Vec<PortMark>,
    /// The distinct detection rules of the switches.
    pub rules: Vec<Detection>,
    /// The distinct ECN threshold sets of the ports (one per port rate, and each set by
    /// `set_ecn`).
    pub ths: Vec<Thresholds>,
    /// Per (port, priority): averaged-RED state (RedAvg only).
    pub red: Vec<RedAvg>,
    /// Per (port, priority): congestion-point state (switch ports only).
    pub cps: Vec<CongestionPoint>,
    /// (congestion point, flow) pairs seen crossing a congested queue.
    pub pairs: HashSet<(u32, u32), BuildHasherDefault<FxHasher>>,
    /// Congestion intervals, at most `stats.max_rows`.
    pub intervals: CappedLog<Vec<Interval>>,
    pub demand: Option<Demand>,
    /// Key of the marking draws: each is derived from (queue, frame, time).
    pub key: u64,
}

impl Marking {
    /// `port_rates`, `port_nodes` and `radix`: per port, its rate, its node and its
    /// node's number of ports; `slots`: where each (port, priority)'s state is.
    pub fn new(plan: &Plan, port_rates: &[Rate], port_nodes: &[u32], radix: &[u32], slots: PrioSlots) -> Self {
        let ecn = &plan.fabric.marking.ecn;
        let mut rules = vec![plan.fabric.marking.detection.clone()];
        let mut node_rule = vec![0u16; plan.nodes.len()];
        for (node, d) in &plan.fabric.marking.detection_overrides {
            node_rule[*node as usize] = intern(&mut rules, d.clone()) as u16;
        }
        let mut used = vec![false; rules.len()];
        node_rule.iter().for_each(|&r| used[r as usize] = true);
        let in_use = |f: fn(&Detection) -> bool| rules.iter().zip(&used).any(|(d, &u)| u && f(d));
        let active = ecn.mode != EcnMode::Off || in_use(|d| !matches!(d, Detection::Ecn { .. }));
        let any_1b = in_use(|d| matches!(d, Detection::Rcm1b { .. }));
        let n = port_rates.len();
        let mut ths = Vec::new();
        let port = (0..n)
            .map(|p| PortMark {
                th: intern(&mut ths, thresholds_for(ecn, port_rates[p])) as u32,
                rule: node_rule[port_nodes[p] as usize],
                congested: 0,
            })
            .collect();
        let at_enqueue = any_1b || ecn.mode == EcnMode::RedAvg || (ecn.mark_point == MarkPoint::Enqueue && ecn.mode != EcnMode::Off);
        Marking {
            active,
            at_enqueue,
            mode: ecn.mode,
            prios: ecn.priorities,
            point: ecn.mark_point,
            wq: ecn.wq,
            port,
            rules,
            ths,
            red: if ecn.mode == EcnMode::RedAvg { vec![RedAvg::default(); slots.len(n)] } else { Vec::new() },
            cps: if active { vec![CongestionPoint::default(); slots.len(n)] } else { Vec::new() },
            pairs: HashSet::default(),
            intervals: CappedLog::new(plan.stats.max_rows),
            demand: any_1b.then(|| Demand::new(radix)),
            key: stream_key(plan.seed, "ecn"),
        }
    }
}

/// The index of `x` in `set`, appended if it is not there yet.
fn intern<T: PartialEq>(set: &mut Vec<T>, x: T) -> usize {
    set.iter().position(|y| *y == x).unwrap_or_else(|| {
        set.push(x);
        set.len() - 1
    })
}

impl Marking {
    /// A data packet was queued at egress (out, prio); `q_before` is the queue before it.
    pub fn on_enqueue(&mut self, fx: &mut Fabric, out: PortId, prio: u8, id: PktId, in_local: u32, q_before: u64) {
        let now = fx.now();
        let m = &mut *self;
        if let Some(d) = m.demand.as_mut() {
            d.arrive(out.idx(), prio, in_local);
        }
        let Detection::Ecn { root_only } = m.rules[m.port[out.idx()].rule as usize] else { return };
        if m.prios & (1 << prio) == 0 || fx.pool.get(id).kind != PktKind::Data {
            return;
        }
        // The thresholds and the congestion point are read only when needed: marking at
        // dequeue leaves an enqueue nothing to read (a cache miss per frame saved).
        let draw = || unit(keyed(m.key, &[out.0 as u64, prio as u64, fx.pool.get(id).ident(), now.0]));
        let th = m.ths[m.port[out.idx()].th as usize];
        let mark = match m.mode {
            EcnMode::RedAvg => {
                let pkt_time = fx.ports[out.idx()].line.tx_time(fx.pool.get(id).frame as u64);
                m.red[fx.slots.at(out.idx(), prio)].on_arrival(&th, m.wq, q_before, now, pkt_time, draw)
            }
            mode if m.point == MarkPoint::Enqueue => mark_instant(mode, &th, q_before, draw),
            _ => false,
        };
        if !mark {
            return;
        }
        let ci = fx.slots.at(out.idx(), prio);
        let victim = fx.ports[out.idx()].paused & (1 << prio) != 0 || self.cps[ci].is_victim();
        if !(root_only && victim) {
            self.set_ce(fx, out, prio, id);
        }
    }

    /// A data-class packet left egress (p, prio) through arbitration: evaluate the
    /// congestion point, mark by the configured rule, record who crossed it.
    pub fn on_dequeue(&mut self, fx: &mut Fabric, p: PortId, prio: u8, item: &Queued, q_after: u64) {
        let id = item.id;
        let now = fx.now();
        let ci = fx.slots.at(p.idx(), prio);
        let rate = fx.ports[p.idx()].rate();
        // The port is sending now, so its paused time is fully accounted.
        let paused_total = fx.prio_stats[ci].paused_ps;
        let first = p.0 - fx.ports[p.idx()].local as u32;
        let m = &mut *self;
        if let Some(d) = m.demand.as_mut() {
            d.depart(p.idx(), prio, item.in_local as u32, now);
        }
        if q_after == 0 && !m.red.is_empty() {
            m.red[ci].on_empty(now);
        }
        let bit = 1u8 << prio;
        let pm = m.port[p.idx()];
        let was = pm.congested & bit != 0;
        // Whether the queue is a victim, judged on its interval so far (before this step).
        let victim = |m: &Marking| was && m.cps[ci].is_victim();
        let (congested, mark) = match m.rules[pm.rule as usize] {
            Detection::Ecn { root_only } => {
                let on = m.mode != EcnMode::Off && m.prios & (1 << prio) != 0;
                let th = &m.ths[pm.th as usize];
                let congested = on && q_after > th.kmin;
                let mark = on
                    && m.point == MarkPoint::Dequeue
                    && matches!(m.mode, EcnMode::Red | EcnMode::Step)
                    && !(root_only && victim(m))
                    && mark_instant(m.mode, th, q_after, || unit(keyed(m.key, &[p.0 as u64, prio as u64, fx.pool.get(id).ident(), now.0])));
                (congested, mark)
            }
            Detection::Rcm1a { threshold, mark_victims } => {
                let congested = q_after > threshold;
                (congested, congested && (mark_victims || !victim(m)))
            }
            Detection::Rcm1b { threshold, window } => {
                let ports = &fx.ports;
                let requested =
                    m.demand.as_ref().map_or(0, |d| d.requested(p.idx(), prio, now, window, |j| ports[(first + j) as usize].rate()));
                let congested = q_after > threshold && requested > rate.0;
                (congested, congested)
            }
        };
        if congested || was {
            if let Some((start, root_ps, victim_ps)) = m.cps[ci].evaluate(now, congested, paused_total) {
                m.intervals.push(Interval { port: p.0, prio, start, end: now, root_ps, victim_ps });
            }
            m.port[p.idx()].congested = if congested { pm.congested | bit } else { pm.congested & !bit };
        }
        if !(congested || mark) {
            return;
        }
        // The packet is read only here: a queue below Kmin (most) needs nothing of it.
        let pkt = fx.pool.get(id);
        if pkt.kind != PktKind::Data {
            return;
        }
        if congested {
            let flow = pkt.flow.0;
            let cp = &mut self.cps[ci];
            cp.pkts_while_congested += 1;
            if !cp.recent.contains(&(flow + 1)) {
                cp.recent[cp.recent_at as usize] = flow + 1;
                cp.recent_at = (cp.recent_at + 1) % RECENT as u8;
                self.pairs.insert((ci as u32, flow));
            }
        }
        if mark {
            self.set_ce(fx, p, prio, id);
        }
    }

    /// Checks new RED thresholds for `set_ecn` (seed 004's reconfiguration) on the
    /// switch ports `ports` (port ids; `None`: every switch port).
    pub fn check_thresholds(&self, fx: &Fabric, kmin: u64, kmax: u64, pmax: f64, ports: Option<&[u32]>) -> crate::error::Result<()> {
        use crate::error::Error;
        if self.mode == EcnMode::Off || self.port.is_empty() {
            return Err(Error::scenario("switch.ecn.mode", "ECN marking is off in this run: there are no thresholds to change"));
        }
        if kmax < kmin {
            return Err(Error::scenario("set_ecn.kmax", format!("must be >= kmin ({kmax} < {kmin})")));
        }
        if !(pmax > 0.0 && pmax <= 1.0) {
            return Err(Error::scenario("set_ecn.pmax", format!("must be in (0, 1] (got {pmax})")));
        }
        if let Some(list) = ports {
            for (i, &p) in list.iter().enumerate() {
                let ok = fx.ports.get(p as usize).is_some_and(|port| !fx.nodes[port.node.idx()].is_host);
                if !ok {
                    return Err(Error::scenario(format!("set_ecn.ports[{i}]"), format!("{p} is not a switch port id")));
                }
            }
        }
        Ok(())
    }

    /// Uses thresholds `th` from now on at `ports` (checked by `check_thresholds`): frames
    /// queued from now on are judged by them; nothing already marked changes.
    pub fn apply_thresholds(&mut self, fx: &Fabric, th: Thresholds, ports: Option<&[u32]>) {
        let th = intern(&mut self.ths, th) as u32;
        match ports {
            Some(list) => list.iter().for_each(|&p| self.port[p as usize].th = th),
            None => {
                for (p, port) in fx.ports.iter().enumerate() {
                    if !fx.nodes[port.node.idx()].is_host {
                        self.port[p].th = th;
                    }
                }
            }
        }
    }

    /// The RED thresholds port `p` uses now, if ECN marking is on.
    pub fn thresholds(&self, p: u32) -> Option<(u64, u64, f64)> {
        let t = self.port.get(p as usize).filter(|_| self.mode != EcnMode::Off)?;
        let t = &self.ths[t.th as usize];
        Some((t.kmin, t.kmax, t.pmax))
    }

    fn set_ce(&mut self, fx: &mut Fabric, p: PortId, prio: u8, id: PktId) {
        let pkt = fx.pool.get_mut(id);
        if pkt.flags & FLAG_CE == 0 {
            pkt.flags |= FLAG_CE;
            let ci = fx.slots.at(p.idx(), prio);
            fx.prio_stats[ci].ecn_marked += 1;
            if let Some(cp) = self.cps.get_mut(ci) {
                cp.marked += 1;
            }
        }
    }

    /// Closes congested intervals still open at the end of the run.
    pub fn close(&mut self, fx: &Fabric, end: SimTime) {
        for ci in 0..self.cps.len() {
            let paused_total = fx.prio_stats[ci].paused_ps;
            let (port, prio) = fx.slots.port_prio(ci);
            let cp = &mut self.cps[ci];
            if cp.congested {
                if let Some((start, r, v)) = cp.evaluate(end, false, paused_total) {
                    self.intervals.push(Interval { port: port as u32, prio, start, end, root_ps: r, victim_ps: v });
                }
                self.port[port].congested &= !(1 << prio);
            }
        }
    }
}
