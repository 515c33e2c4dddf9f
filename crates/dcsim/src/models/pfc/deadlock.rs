//! PFC deadlock detection. A deadlock is a cycle of switch egress queues, each paused by
//! the next switch because that switch's ingress buffer holds frames that wait in the
//! next queue of the cycle: no queue in it can send, so no ingress buffer in it drains,
//! so no pause is ever lifted (a cyclic buffer dependency).
//!
//! Every `check_interval` the detector builds the wait-for graph of the paused, non-empty
//! lossless egress queues of the switches: queue (p, c) waits on (q, c) when q is a port
//! of the switch at the other end of p and (q, c) holds a frame that came in through that
//! switch's end of p's link. A strongly connected set of queues is a suspected cycle; it
//! is a deadlock when it is found again at the next check and none of its queues sent a
//! frame in between. Each deadlock is reported once, with its switches, its ports and
//! the flows whose frames are caught in it; the run can be stopped there.

use std::collections::{BTreeMap, BTreeSet};

use crate::ids::PortId;
use crate::models::fabric_model::Worlds;
use crate::units::SimTime;

/// One egress queue: (port id, priority).
type QueueId = (u32, u8);

/// A detected deadlock.
#[derive(Clone, Debug)]
pub struct Deadlock {
    pub time: SimTime,
    pub prio: u8,
    /// The egress ports of the cycle, in wait-for order.
    pub ports: Vec<PortId>,
    /// Flows with frames queued in the cycle.
    pub flows: Vec<u32>,
    /// Bytes queued in the cycle's egress queues.
    pub bytes: u64,
}

/// The detector's state (`FabricModels::deadlocks`).
pub struct DeadlockDetector {
    pub interval: Option<SimTime>,
    /// Time of the next check (`SimTime::MAX`: never).
    pub next: SimTime,
    pub stop: bool,
    /// Queues of the cycles suspected at the last check, with their sent-frame counts.
    suspects: BTreeMap<QueueId, u64>,
    /// Cycles already reported (their sorted queues).
    reported: BTreeSet<Vec<QueueId>>,
    pub found: Vec<Deadlock>,
    /// Set when a deadlock stopped the run.
    pub stopped_at: Option<SimTime>,
}

impl DeadlockDetector {
    pub fn new(interval: Option<SimTime>, stop: bool) -> Self {
        DeadlockDetector {
            interval,
            next: interval.unwrap_or(SimTime::MAX),
            stop,
            suspects: BTreeMap::new(),
            reported: BTreeSet::new(),
            found: Vec::new(),
            stopped_at: None,
        }
    }
}

impl DeadlockDetector {
    pub(crate) fn check(&mut self, w: &Worlds) -> bool {
        let t = self.next;
        self.next = match self.interval {
            Some(i) => t + i,
            None => SimTime::MAX,
        };
        let cycles = waiting_cycles(w);
        // A deadlock that broke up (a watchdog dropped its frames) is reported again if
        // it forms anew.
        let present: BTreeSet<Vec<QueueId>> = cycles
            .iter()
            .map(|(_, c)| {
                let mut k = c.clone();
                k.sort_unstable();
                k
            })
            .collect();
        self.reported.retain(|k| present.contains(k));
        let mut new_found = false;
        let mut suspects = BTreeMap::new();
        let sent = |q: &QueueId| w.at(q.0).prio_stats[w.at(q.0).slots.at(q.0 as usize, q.1)].tx_pkts;
        for (prio, cycle) in cycles {
            let stuck = cycle.iter().all(|q| self.suspects.get(q) == Some(&sent(q)));
            for q in &cycle {
                suspects.insert(*q, sent(q));
            }
            let mut key = cycle.clone();
            key.sort_unstable();
            if !stuck || self.reported.contains(&key) {
                continue;
            }
            let mut flows = BTreeSet::new();
            let mut bytes = 0;
            for &(p, c) in &cycle {
                let s = w.at(p);
                s.egress.for_each_queued(PortId(p), c, |item| {
                    flows.insert(s.pool.get(item.id).flow.0);
                    bytes += item.frame as u64;
                });
            }
            let ports = cycle.iter().map(|q| PortId(q.0)).collect();
            self.found.push(Deadlock { time: t, prio, ports, flows: flows.into_iter().collect(), bytes });
            self.reported.insert(key);
            new_found = true;
        }
        self.suspects = suspects;
        if new_found && self.stop {
            self.stopped_at = Some(t);
            return true;
        }
        false
    }
}

/// The cycles of the wait-for graph (strongly connected sets of more than one queue,
/// or one queue waiting on itself), each in wait-for order, with their priority.
fn waiting_cycles(w: &Worlds<'_>) -> Vec<(u8, Vec<QueueId>)> {
    let any = w.fabrics[0];
    // Nodes: paused, non-empty lossless egress queues of switches.
    let mut index: BTreeMap<QueueId, usize> = BTreeMap::new();
    let mut nodes: Vec<QueueId> = Vec::new();
    for p in 0..any.ports.len() {
        let s = w.at(p as u32);
        let port = &s.ports[p];
        if port.paused == 0 || s.nodes[port.node.idx()].is_host {
            continue;
        }
        for c in 0..8u8 {
            if port.paused & (1 << c) != 0 && s.egress.queue(PortId(p as u32), c).pkts > 0 {
                index.insert((p as u32, c), nodes.len());
                nodes.push((p as u32, c));
            }
        }
    }
    if nodes.is_empty() {
        return Vec::new();
    }
    // Edges: (p, c) -> (q, c) for the downstream switch's queues holding frames that
    // came in through p's peer port.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, &(p, c)) in nodes.iter().enumerate() {
        let ingress = any.ports[p as usize].peer;
        let down = any.ports[ingress.idx()].node;
        if any.nodes[down.idx()].is_host {
            continue;
        }
        let in_local = any.ports[ingress.idx()].local;
        for q in any.nodes[down.idx()].ports.clone() {
            let Some(&j) = index.get(&(q, c)) else { continue };
            let mut from_ingress = false;
            w.at(q).egress.for_each_queued(PortId(q), c, |item| from_ingress |= item.in_local == in_local);
            if from_ingress {
                succ[i].push(j);
            }
        }
    }
    strongly_connected(&succ)
        .into_iter()
        .filter(|scc| scc.len() > 1 || succ[scc[0]].contains(&scc[0]))
        .map(|scc| (nodes[scc[0]].1, cycle_order(&scc, &succ).into_iter().map(|k| nodes[k]).collect()))
        .collect()
}

/// Tarjan's strongly connected components (iterative), each sorted.
fn strongly_connected(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                scc.sort_unstable();
                out.push(scc);
            }
        }
    }
    out
}

/// The members of a strongly connected set in wait-for order, starting from its first:
/// a walk that takes the first unvisited successor inside the set, then the rest.
fn cycle_order(scc: &[usize], succ: &[Vec<usize>]) -> Vec<usize> {
    let inside: BTreeSet<usize> = scc.iter().copied().collect();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut v = scc[0];
    loop {
        seen.insert(v);
        order.push(v);
        match succ[v].iter().find(|w| inside.contains(w) && !seen.contains(w)) {
            Some(&w) => v = w,
            None => break,
        }
    }
    order.extend(scc.iter().filter(|k| !seen.contains(k)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_and_cycles() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 0 waits on it; 4 waits on itself.
        let succ = vec![vec![1], vec![2], vec![0], vec![0], vec![4]];
        let mut sccs = strongly_connected(&succ);
        sccs.sort();
        assert_eq!(sccs, vec![vec![0, 1, 2], vec![3], vec![4]]);
        assert_eq!(cycle_order(&[0, 1, 2], &succ), vec![0, 1, 2]);
        let succ = vec![vec![2], vec![0], vec![1]];
        assert_eq!(cycle_order(&[0, 1, 2], &succ), vec![0, 2, 1]);
    }
}
