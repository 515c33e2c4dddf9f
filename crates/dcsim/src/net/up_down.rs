//! Up-down routing (Autonet: Schroeder et al., "Autonet: a high-speed, self-configuring
//! local area network using point-to-point links", IEEE JSAC 9(8), 1991). Switches are
//! ranked by (BFS level from a root switch, node id); a hop toward a lower rank is "up".
//! A legal path takes zero or more up hops, then zero or more down hops: it never turns
//! from down to up, so the channel dependencies are acyclic and PFC cannot deadlock.
//!
//! The routing table has one entry per (switch, destination), with no record of whether
//! a frame has already gone down. The shortest legal path from each switch alone does not
//! give such a table: a switch `p` may reach the destination fastest by going down to `s`
//! and on down from there, while `s`'s own shortest legal path goes up (a shorter up-then-
//! down detour that `p`, having gone down, may no longer take); `s`'s entry then turns a
//! frame from `p` up. So each switch is given one of two kinds of entry, decided in order
//! of distance from the destination: a *down* entry lists down hops to switches with down
//! entries only; an *up* entry lists up hops to any switch (and, at equal length, would
//! list down hops to down entries, but those are never shorter than the switch's own down
//! entry, which it then takes). A switch takes the down entry when it is no longer than
//! the up one. A frame that has gone down is thus always at a switch with a down entry,
//! and every route is up* down*. The route from a switch is the shortest legal path whose
//! down part crosses only down entries; `routing::tests` checks that this is the shortest
//! legal path on the graphs tested, but it can be longer on graphs where the case above
//! arises.

use std::cmp::Ordering;

pub(crate) struct UpDown {
    /// (level, id) per node; hosts rank last, so a hop into a host is down.
    rank: Vec<(u32, u32)>,
    /// Per node, for the destination last searched: the entry is down-only.
    down_entry: Vec<bool>,
    cand_down: Vec<u32>,
    cand_up: Vec<u32>,
    done: Vec<bool>,
    buckets: Vec<Vec<usize>>,
}

impl UpDown {
    /// Levels by BFS from `root` over the live links between switches.
    pub(crate) fn new(g: &super::routing::Graph, dead: &[bool], root: usize) -> UpDown {
        let n = g.is_host.len();
        let live = |p: u32| dead.is_empty() || !dead[p as usize];
        let mut level = vec![u32::MAX; n];
        level[root] = 0;
        let mut bfs = std::collections::VecDeque::from([root]);
        while let Some(u) = bfs.pop_front() {
            for p in g.node_ports[u].clone().filter(|&p| live(p)) {
                let v = g.peer_node[p as usize].idx();
                if !g.is_host[v] && level[v] == u32::MAX {
                    level[v] = level[u] + 1;
                    bfs.push_back(v);
                }
            }
        }
        let rank = (0..n).map(|i| if g.is_host[i] { (u32::MAX, u32::MAX) } else { (level[i], i as u32) }).collect();
        UpDown {
            rank,
            down_entry: vec![false; n],
            cand_down: vec![u32::MAX; n],
            cand_up: vec![u32::MAX; n],
            done: vec![false; n],
            buckets: Vec::new(),
        }
    }

    /// The hop `u -> v` goes up (toward the lower rank).
    #[inline]
    pub(crate) fn is_up(&self, u: usize, v: usize) -> bool {
        self.rank[v].cmp(&self.rank[u]) == Ordering::Less
    }

    /// `u`'s entry toward the destination last searched may list the hop `u -> v`.
    #[inline]
    pub(crate) fn legal(&self, u: usize, v: usize) -> bool {
        if self.down_entry[u] {
            !self.is_up(u, v) && self.down_entry[v]
        } else {
            self.is_up(u, v) || self.down_entry[v]
        }
    }

    /// Route lengths toward `target` (a switch or a host) into `dist`, deciding each
    /// switch's entry kind: a bucket queue by distance, as the hops all count one.
    pub(crate) fn search(&mut self, g: &super::routing::Graph, dead: &[bool], target: usize, dist: &mut [u32]) {
        let live = |p: u32| dead.is_empty() || !dead[p as usize];
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        self.down_entry.iter_mut().for_each(|k| *k = false);
        self.cand_down.iter_mut().for_each(|d| *d = u32::MAX);
        self.cand_up.iter_mut().for_each(|d| *d = u32::MAX);
        self.done.iter_mut().for_each(|d| *d = false);
        self.buckets.iter_mut().for_each(Vec::clear);
        self.cand_down[target] = 0;
        let push = |b: &mut Vec<Vec<usize>>, d: u32, x: usize| {
            if b.len() <= d as usize {
                b.resize_with(d as usize + 1, Vec::new);
            }
            b[d as usize].push(x);
        };
        push(&mut self.buckets, 0, target);
        let mut d = 0;
        while d < self.buckets.len() {
            let mut k = 0;
            while k < self.buckets[d].len() {
                let x = self.buckets[d][k];
                k += 1;
                if self.done[x] {
                    continue;
                }
                self.done[x] = true;
                dist[x] = d as u32;
                self.down_entry[x] = self.cand_down[x] <= self.cand_up[x];
                for p in g.node_ports[x].clone().filter(|&p| live(p)) {
                    let q = g.peer_node[p as usize].idx();
                    if g.is_host[q] || self.done[q] {
                        continue;
                    }
                    let next = d as u32 + 1;
                    let slot = if self.is_up(q, x) {
                        &mut self.cand_up[q]
                    } else if self.down_entry[x] {
                        &mut self.cand_down[q]
                    } else {
                        continue;
                    };
                    if next < *slot {
                        *slot = next;
                        push(&mut self.buckets, next, q);
                    }
                }
            }
            d += 1;
        }
    }
}
