//! How a parallel run splits the fabric: each host goes with its switch; edge switches
//! (those with hosts) are cut into contiguous runs of about equal host counts (the pods
//! of a fat tree, in their index order); every other switch joins the partition most of
//! its links lead to, the least loaded one on a tie (a fat tree's core switches, whose
//! links spread evenly over the pods, alternate). The lookahead is the shortest delay of
//! a link between two partitions: a frame sent at t arrives there no earlier than
//! t + delay, so each partition may run that far ahead of the others.

use crate::plan::{NodeKind, Plan};
use crate::units::SimTime;

/// The partition of every node, and the lookahead (`None`: no link between partitions).
pub(crate) fn partition(plan: &Plan, parts: usize) -> (Vec<u16>, Option<SimTime>) {
    let n = plan.nodes.len();
    const NONE: u16 = u16::MAX;
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for l in &plan.links {
        adj[l.a as usize].push(l.b as usize);
        adj[l.b as usize].push(l.a as usize);
    }
    let is_host = |i: usize| plan.nodes[i].kind == NodeKind::Host;
    let hosts_of = |i: usize| adj[i].iter().filter(|&&j| is_host(j)).count();
    let total: usize = (0..n).filter(|&i| !is_host(i)).map(hosts_of).sum();
    let mut part = vec![NONE; n];
    let mut load = vec![0usize; parts];
    // Edge switches: contiguous runs by the hosts before them.
    let mut before = 0;
    for i in (0..n).filter(|&i| !is_host(i)) {
        let h = hosts_of(i);
        if h == 0 {
            continue;
        }
        let p = (before * parts / total.max(1)).min(parts - 1);
        part[i] = p as u16;
        load[p] += adj[i].len();
        before += h;
    }
    // Other switches, in waves outward from the assigned ones.
    loop {
        let mut changed = false;
        let mut any_left = false;
        for i in (0..n).filter(|&i| !is_host(i) && part[i] == NONE).collect::<Vec<_>>() {
            let mut votes = vec![0usize; parts];
            for &j in &adj[i] {
                if part[j] != NONE && !is_host(j) {
                    votes[part[j] as usize] += 1;
                }
            }
            let best = *votes.iter().max().unwrap();
            if best == 0 {
                any_left = true;
                continue;
            }
            let p = (0..parts).filter(|&p| votes[p] == best).min_by_key(|&p| (load[p], p)).unwrap();
            part[i] = p as u16;
            load[p] += adj[i].len();
            changed = true;
        }
        if !any_left {
            break;
        }
        if !changed {
            // Switches unreachable from any edge switch: the least loaded partition.
            for i in (0..n).filter(|&i| !is_host(i) && part[i] == NONE).collect::<Vec<_>>() {
                let p = (0..parts).min_by_key(|&p| (load[p], p)).unwrap();
                part[i] = p as u16;
                load[p] += adj[i].len();
            }
            break;
        }
    }
    // Hosts with their switch (a host alone, or two hosts linked directly: partition 0).
    for i in (0..n).filter(|&i| is_host(i)) {
        part[i] = adj[i].iter().find(|&&j| !is_host(j)).map_or(0, |&j| part[j]);
    }
    let lookahead = plan.links.iter().filter(|l| part[l.a as usize] != part[l.b as usize]).map(|l| l.delay).min();
    (part, lookahead)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Plan {
        crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap()
    }

    #[test]
    fn a_fat_tree_splits_by_pods_with_the_cores_shared() {
        let p = plan(
            "[simulation]\nduration = \"1us\"\n[topology]\ntype = \"fat_tree\"\nk = 4\nhost_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\ndelay = \"1us\"\n",
        );
        let (part, la) = partition(&p, 2);
        assert_eq!(la, Some(SimTime::us(1)));
        let count = |k: u16, kind: NodeKind| p.nodes.iter().zip(&part).filter(|(n, &q)| q == k && n.kind == kind).count();
        // 16 hosts and 20 switches: two pods (8 hosts, 4 switches) and two cores each.
        for k in 0..2 {
            assert_eq!(count(k, NodeKind::Host), 8);
            assert_eq!(count(k, NodeKind::Switch), 10);
        }
        // Only core-aggregation links cross: 8 of the 16 fabric links above the pods.
        let cut = p.links.iter().filter(|l| part[l.a as usize] != part[l.b as usize]).count();
        assert_eq!(cut, 8);
    }

    #[test]
    fn a_single_switch_stays_whole() {
        let p = plan("[simulation]\nduration = \"1us\"\n[topology]\ntype = \"star\"\nhosts = 4\nrate = \"10Gbps\"\ndelay = \"1us\"\n");
        let (part, la) = partition(&p, 2);
        assert!(part.iter().all(|&q| q == part[0]));
        assert_eq!(la, None);
    }
}
