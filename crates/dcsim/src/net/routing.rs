//! Shortest-path routing with per-flow ECMP. For every switch and destination the table
//! holds the equal-cost next-hop ports; a flow picks one by a seeded hash of
//! (flow, switch), so a flow keeps its path and a new seed reshuffles paths. Static
//! routes (`Override`) replace the entry of one (switch, destination); `route_loop`
//! finds the ones that would send frames in a circle.
//!
//! Destinations are grouped: the hosts with a single link to the same switch (their edge
//! switch) are reached along the same paths, so they share one column of the table, and
//! their edge switch sends to each over its own link. Other hosts (two links, a link to a
//! host, the target of a static route) have a column each. The table is switches x groups,
//! not switches x hosts: 0.3 MB instead of 2.6 MB on a 1024-host fat-tree, so that it
//! stays in cache at scale.

use std::collections::VecDeque;

use crate::ids::{NodeId, PortId};
use crate::rng::mix64;

use super::up_down::UpDown;

/// What the routes are computed from: the graph, the overrides, the seed of ECMP hashing
/// and the up-down root (kept by models that recompute routes, such as link failures).
#[derive(Clone)]
pub struct RouteInputs {
    pub is_host: Vec<bool>,
    pub node_ports: Vec<std::ops::Range<u32>>,
    pub peer_node: Vec<NodeId>,
    pub overrides: Vec<Override>,
    pub seed: u64,
    /// Root switch of up-down routing (levels are recomputed over the live links).
    pub up_down: Option<NodeId>,
}

pub struct Routing {
    /// Destination group of each node (u32::MAX for switches).
    group: Vec<u32>,
    /// Dense switch index of each node (u32::MAX for hosts).
    switch_index: Vec<u32>,
    /// Per switch index: its row of (offset, len) entries into `ports`, one per group
    /// (`len == LOCAL`: the switch is the group's edge switch and each host is reached
    /// over its own link), most of it one shared entry.
    rows: Vec<Row>,
    /// The rows' entries for the groups that differ from their row's default.
    entries: Vec<(u32, u16)>,
    ports: Vec<PortId>,
    /// Per node: the port of a grouped host's edge switch toward it.
    local: Vec<PortId>,
    salt: u64,
}

/// One switch's row of the table: the entry that most groups share (all the uplinks, on
/// a fat tree's edge and aggregation switches) and, for the groups `lo..hi`, entries of
/// their own from `at` in `Routing::entries`. On a k = 16 fat tree that is about 70 KB of
/// entries instead of 330 KB, so that a route's entry stays in cache.
#[derive(Copy, Clone, Debug)]
struct Row {
    default: (u32, u16),
    lo: u32,
    hi: u32,
    at: u32,
}

impl Row {
    /// Appends the entries of `full` (one per group) that the row does not cover with its
    /// default to `entries`: the most common entry (the smallest on a tie) is the default.
    fn compact(full: &[(u32, u16)], entries: &mut Vec<(u32, u16)>) -> Row {
        let mut count: std::collections::HashMap<(u32, u16), usize> = Default::default();
        full.iter().for_each(|e| *count.entry(*e).or_default() += 1);
        let default = count.into_iter().max_by_key(|&(e, n)| (n, std::cmp::Reverse(e))).map_or((0, 0), |(e, _)| e);
        let lo = full.iter().position(|e| *e != default).unwrap_or(full.len());
        let hi = full.iter().rposition(|e| *e != default).map_or(lo, |i| i + 1);
        let at = entries.len() as u32;
        entries.extend_from_slice(&full[lo..hi]);
        Row { default, lo: lo as u32, hi: hi as u32, at }
    }

    /// The entry for group `g`.
    #[inline(always)]
    fn get(&self, g: u32, entries: &[(u32, u16)]) -> (u32, u16) {
        if g.wrapping_sub(self.lo) < self.hi - self.lo {
            entries[(self.at + g - self.lo) as usize]
        } else {
            self.default
        }
    }
}

/// Entry length marking an edge switch's own group.
const LOCAL: u16 = u16::MAX;

/// A static route: at switch `at`, frames to host `to` leave by `port`.
#[derive(Copy, Clone, Debug)]
pub struct Override {
    pub at: NodeId,
    pub to: NodeId,
    pub port: PortId,
}

/// Graph view the routing is computed from.
pub struct Graph<'a> {
    pub is_host: &'a [bool],
    /// Ports of each node: `node_ports[n]` is the range of port ids.
    pub node_ports: &'a [std::ops::Range<u32>],
    /// Node at the other end of each port.
    pub peer_node: &'a [NodeId],
}

impl Routing {
    /// `up_down`: the root switch of up-down routing, or `None` for shortest paths.
    pub fn build(g: &Graph, seed: u64, overrides: &[Override], up_down: Option<NodeId>) -> Routing {
        Self::build_with(g, seed, true, overrides, &[], up_down)
    }

    /// The tables without the ports marked in `dead` (one flag per port; both ends of a
    /// failed link): what the switches route on once they have converged after link
    /// failures. A static route through a dead port gives way to the shortest paths; a
    /// destination no path reaches has no next hop (`route` gives `PortId::NONE`).
    pub fn build_without(g: &Graph, seed: u64, overrides: &[Override], dead: &[bool], up_down: Option<NodeId>) -> Routing {
        Self::build_with(g, seed, true, overrides, dead, up_down)
    }

    /// `share = false` computes every destination by its own search (the reference the
    /// shared form is tested against). `dead` is empty or has one flag per port.
    fn build_with(g: &Graph, seed: u64, share: bool, overrides: &[Override], dead: &[bool], up_down: Option<NodeId>) -> Routing {
        let live = |p: u32| dead.is_empty() || !dead[p as usize];
        let mut ud = up_down.map(|root| UpDown::new(g, dead, root.idx()));
        let n = g.is_host.len();
        let mut switch_index = vec![u32::MAX; n];
        let mut ns = 0u32;
        for (i, &h) in g.is_host.iter().enumerate() {
            if !h {
                switch_index[i] = ns;
                ns += 1;
            }
        }
        let mut ports = Vec::new();
        // The switch ports leading to each host, in port order (one pass over the ports).
        let mut to_host: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for s in 0..n {
            if g.is_host[s] {
                continue;
            }
            for p in g.node_ports[s].clone().filter(|&p| live(p)) {
                let v = g.peer_node[p as usize].idx();
                if g.is_host[v] {
                    to_host[v].push(PortId(p));
                }
            }
        }
        // A host with one link, to a switch, is reached through that switch (its edge
        // switch): from every other switch the next hops toward it are those toward the
        // edge switch, the same for every host on it. So one BFS per edge switch over the
        // switches (hosts do not forward), its next-hop lists shared by the edge switch's
        // hosts; one BFS per destination would scan every switch port once per host,
        // quadratic in the hosts of a star. Other hosts (two links, or linked to a host)
        // get the BFS from themselves.
        let mut by_edge: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut alone = Vec::new();
        let mut routed = vec![false; n];
        overrides.iter().for_each(|o| routed[o.to.idx()] = true);
        for (h, &overridden) in routed.iter().enumerate() {
            if !g.is_host[h] {
                continue;
            }
            let mine = g.node_ports[h].clone();
            match (mine.len(), mine.clone().next().map(|p| g.peer_node[p as usize].idx())) {
                (1, Some(e)) if share && !overridden && !g.is_host[e] => by_edge[e].push(h),
                _ => alone.push(h),
            }
        }
        // Groups: one per edge switch with hosts, in node order, then one per other host.
        let mut group = vec![u32::MAX; n];
        let mut edge_group = vec![u32::MAX; n];
        let mut ng = 0u32;
        for (e, hosts) in by_edge.iter().enumerate() {
            if !hosts.is_empty() {
                edge_group[e] = ng;
                hosts.iter().for_each(|&h| group[h] = ng);
                ng += 1;
            }
        }
        for &h in &alone {
            group[h] = ng;
            ng += 1;
        }
        let mut entries = vec![(0u32, 0u16); ns as usize * ng as usize];
        let mut lists = Lists::default();
        let mut local = vec![PortId(u32::MAX); n];
        let mut dist = vec![u32::MAX; n];
        let mut bfs = VecDeque::new();
        // Distances from `root` over the switches (and `root` itself, switch or host).
        let mut search = |root: usize, dist: &mut Vec<u32>| {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[root] = 0;
            bfs.clear();
            bfs.push_back(root);
            while let Some(u) = bfs.pop_front() {
                if u != root && g.is_host[u] {
                    continue;
                }
                for p in g.node_ports[u].clone().filter(|&p| live(p)) {
                    let v = g.peer_node[p as usize].idx();
                    if dist[v] == u32::MAX {
                        dist[v] = dist[u] + 1;
                        bfs.push_back(v);
                    }
                }
            }
        };
        for (e, hosts) in by_edge.iter().enumerate() {
            if hosts.is_empty() {
                continue;
            }
            match ud.as_mut() {
                Some(u) => u.search(g, dead, e, &mut dist),
                None => search(e, &mut dist),
            }
            let col = edge_group[e] as usize;
            for s in 0..n {
                if g.is_host[s] || dist[s] == u32::MAX {
                    continue;
                }
                let at = switch_index[s] as usize * ng as usize + col;
                if s == e {
                    for &h in hosts {
                        local[h] = to_host[h].first().copied().unwrap_or(PortId::NONE);
                    }
                    entries[at] = (0, LOCAL);
                    continue;
                }
                let off = ports.len() as u32;
                for p in g.node_ports[s].clone().filter(|&p| live(p)) {
                    let v = g.peer_node[p as usize].idx();
                    let legal = ud.as_ref().is_none_or(|u| u.legal(s, v));
                    if !g.is_host[v] && dist[v] != u32::MAX && dist[v] + 1 == dist[s] && legal {
                        ports.push(PortId(p));
                    }
                }
                entries[at] = lists.intern(&mut ports, off);
            }
        }
        for &dst in &alone {
            match ud.as_mut() {
                Some(u) => u.search(g, dead, dst, &mut dist),
                None => search(dst, &mut dist),
            }
            let col = group[dst] as usize;
            for s in 0..n {
                if g.is_host[s] || dist[s] == u32::MAX {
                    continue;
                }
                let off = ports.len() as u32;
                for p in g.node_ports[s].clone().filter(|&p| live(p)) {
                    let v = g.peer_node[p as usize].idx();
                    let legal = ud.as_ref().is_none_or(|u| u.legal(s, v));
                    if dist[v] != u32::MAX && dist[v] + 1 == dist[s] && (!g.is_host[v] || v == dst) && legal {
                        ports.push(PortId(p));
                    }
                }
                entries[switch_index[s] as usize * ng as usize + col] = lists.intern(&mut ports, off);
            }
        }
        for o in overrides.iter().filter(|o| live(o.port.0)) {
            let off = ports.len() as u32;
            ports.push(o.port);
            entries[switch_index[o.at.idx()] as usize * ng as usize + group[o.to.idx()] as usize] = lists.intern(&mut ports, off);
        }
        let mut compact = Vec::new();
        let rows = entries.chunks(ng.max(1) as usize).take(ns as usize).map(|full| Row::compact(full, &mut compact)).collect();
        Routing { group, switch_index, rows, entries: compact, ports, local, salt: mix64(seed ^ 0xEC3F) }
    }

    /// The (offset, len) entry of switch `sw` toward host `dst`.
    #[inline(always)]
    fn entry(&self, sw: NodeId, dst: NodeId) -> (u32, u16) {
        self.rows[self.switch_index[sw.idx()] as usize].get(self.group[dst.idx()], &self.entries)
    }

    /// Equal-cost next hops from switch `sw` toward host `dst`.
    #[inline]
    pub fn next_hops(&self, sw: NodeId, dst: NodeId) -> &[PortId] {
        let (off, len) = self.entry(sw, dst);
        if len == LOCAL {
            return std::slice::from_ref(&self.local[dst.idx()]);
        }
        &self.ports[off as usize..off as usize + len as usize]
    }

    /// Which of `len` equal-cost next hops flow `flow` takes at switch `sw` (`route`'s
    /// seeded hash of (flow, switch)).
    #[inline(always)]
    pub fn ecmp_index(&self, sw: NodeId, flow: u32, len: usize) -> usize {
        let h = mix64(self.salt ^ ((flow as u64) << 32) ^ sw.0 as u64);
        ((h as u128 * len as u128) >> 64) as usize
    }

    /// Whether switch `sw` has more than one next hop toward some destination.
    pub fn multipath(&self, sw: NodeId) -> bool {
        let row = &self.rows[self.switch_index[sw.idx()] as usize];
        let many = |e: &(u32, u16)| e.1 > 1 && e.1 != LOCAL;
        many(&row.default) || self.entries[row.at as usize..(row.at + row.hi - row.lo) as usize].iter().any(many)
    }

    /// The port a flow's packets take at switch `sw` toward `dst`.
    #[inline(always)]
    pub fn route(&self, sw: NodeId, dst: NodeId, flow: u32) -> PortId {
        let (off, len) = self.entry(sw, dst);
        match len {
            1 => self.ports[off as usize],
            0 => PortId::NONE, // unreachable after link failures
            LOCAL => self.local[dst.idx()],
            _ => self.ports[off as usize + self.ecmp_index(sw, flow, len as usize)],
        }
    }
}

/// The distinct next-hop lists. A switch reaches most destinations over the same few
/// lists (all its uplinks, or one port), so the lists are stored once each: the table's
/// port array then stays in L1 instead of growing with switches x groups (1.3 MB on a
/// 1024-host fat tree), and a route costs one miss at most, on its entry.
#[derive(Default)]
struct Lists(std::collections::HashMap<Vec<PortId>, u32>);

impl Lists {
    /// The entry for the list just appended to `ports` at `off`: an earlier copy of it
    /// if there is one (the append is undone), else the new list.
    fn intern(&mut self, ports: &mut Vec<PortId>, off: u32) -> (u32, u16) {
        let len = (ports.len() as u32 - off) as u16;
        let list = &ports[off as usize..];
        if let Some(&at) = self.0.get(list) {
            ports.truncate(off as usize);
            return (at, len);
        }
        self.0.insert(list.to_vec(), off);
        (off, len)
    }
}

/// Hop distances to host `dst` on which hosts other than `dst` do not forward.
fn distances(g: &Graph, dst: usize) -> Vec<u32> {
    let mut dist = vec![u32::MAX; g.is_host.len()];
    let mut bfs = VecDeque::from([dst]);
    dist[dst] = 0;
    while let Some(u) = bfs.pop_front() {
        if u != dst && g.is_host[u] {
            continue;
        }
        for p in g.node_ports[u].clone() {
            let v = g.peer_node[p as usize].idx();
            if dist[v] == u32::MAX {
                dist[v] = dist[u] + 1;
                bfs.push_back(v);
            }
        }
    }
    dist
}

/// The first static route from which frames to its destination can come back to a switch
/// they already crossed (following the static routes where they apply and every
/// equal-cost shortest path elsewhere), or `None` when every path ends at its host.
pub fn route_loop(g: &Graph, overrides: &[Override]) -> Option<usize> {
    let mut dsts: Vec<NodeId> = overrides.iter().map(|o| o.to).collect();
    dsts.sort_unstable_by_key(|n| n.0);
    dsts.dedup();
    for dst in dsts {
        let dist = distances(g, dst.idx());
        let fixed: std::collections::HashMap<usize, usize> =
            overrides.iter().filter(|o| o.to == dst).map(|o| (o.at.idx(), g.peer_node[o.port.idx()].idx())).collect();
        let next = |s: usize| -> Vec<usize> {
            if let Some(&v) = fixed.get(&s) {
                return vec![v];
            }
            g.node_ports[s]
                .clone()
                .map(|p| g.peer_node[p as usize].idx())
                .filter(|&v| dist[v] != u32::MAX && dist[v] + 1 == dist[s] && (!g.is_host[v] || v == dst.idx()))
                .collect()
        };
        // Depth-first search with colours: 1 on the current path, 2 done.
        let mut colour = vec![0u8; g.is_host.len()];
        for (i, o) in overrides.iter().enumerate().filter(|(_, o)| o.to == dst) {
            let mut stack = vec![(o.at.idx(), next(o.at.idx()), 0usize)];
            if colour[o.at.idx()] != 0 {
                continue;
            }
            colour[o.at.idx()] = 1;
            while let Some((u, succ, k)) = stack.last_mut() {
                if *k == succ.len() {
                    colour[*u] = 2;
                    stack.pop();
                    continue;
                }
                let v = succ[*k];
                *k += 1;
                if g.is_host[v] {
                    continue;
                }
                match colour[v] {
                    1 => return Some(i),
                    0 => {
                        colour[v] = 1;
                        let nv = next(v);
                        stack.push((v, nv, 0));
                    }
                    _ => {}
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compacted row gives back every entry of the full row, wherever its exceptions
    /// are: none, at either end, or spread with the default between them.
    #[test]
    fn a_compacted_row_gives_every_entry_back() {
        let (d, a, b) = ((0, 2), (4, 1), (5, 1));
        for full in [vec![d; 6], vec![a, d, d, d], vec![d, d, d, b], vec![d, a, d, d, b, d], vec![a, b], vec![]] {
            let mut entries = vec![(9, 9)];
            let r = Row::compact(&full, &mut entries);
            for (g, e) in full.iter().enumerate() {
                assert_eq!(r.get(g as u32, &entries), *e, "group {g} of {full:?}");
            }
            assert!(entries.len() - 1 <= full.len().saturating_sub(1), "{full:?} kept {} entries", entries.len() - 1);
        }
    }

    /// Each node's port range and each port's peer, ports numbered per node in link order.
    fn ports_of(n: usize, links: impl Iterator<Item = (usize, usize)>) -> (Vec<std::ops::Range<u32>>, Vec<NodeId>) {
        let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (a, b) in links {
            per_node[a].push(b);
            per_node[b].push(a);
        }
        let (mut node_ports, mut peer_node, mut next) = (Vec::new(), Vec::new(), 0u32);
        for peers in &per_node {
            node_ports.push(next..next + peers.len() as u32);
            next += peers.len() as u32;
            peer_node.extend(peers.iter().map(|&v| NodeId(v as u32)));
        }
        (node_ports, peer_node)
    }

    /// Ports numbered per node in link order, as the world numbers them.
    fn check(n: usize, hosts: &[usize], links: &[(usize, usize)]) {
        let is_host: Vec<bool> = (0..n).map(|i| hosts.contains(&i)).collect();
        let (node_ports, peer_node) = ports_of(n, links.iter().copied());
        let g = Graph { is_host: &is_host, node_ports: &node_ports, peer_node: &peer_node };
        let (fast, slow) = (Routing::build_with(&g, 1, true, &[], &[], None), Routing::build_with(&g, 1, false, &[], &[], None));
        for s in (0..n).filter(|&s| !is_host[s]) {
            for &h in hosts {
                let (a, b) = (fast.next_hops(NodeId(s as u32), NodeId(h as u32)), slow.next_hops(NodeId(s as u32), NodeId(h as u32)));
                assert_eq!(a, b, "switch {s} toward host {h}");
            }
        }
    }

    #[test]
    fn shared_next_hops_equal_one_search_per_destination() {
        // Star: switch 0, hosts 1..=5.
        check(6, &[1, 2, 3, 4, 5], &[(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]);
        // Leaf-spine with two spines and a parallel leaf-spine link (ECMP lists).
        check(9, &[4, 5, 6, 7, 8], &[(0, 2), (0, 3), (1, 2), (1, 3), (1, 3), (4, 0), (5, 0), (6, 1), (7, 1), (8, 3)]);
        // A host with two links, a host-to-host pair, a switch island with its own host.
        check(8, &[2, 3, 4, 5, 7], &[(0, 1), (2, 0), (3, 0), (3, 1), (4, 5), (6, 7)]);
        // A parking lot: a chain of switches.
        check(7, &[3, 4, 5, 6], &[(0, 1), (1, 2), (3, 0), (4, 1), (5, 2), (6, 2)]);
    }

    /// Routes without the ports of a failed link equal the routes of the graph without
    /// that link (ports renumbered), and a destination cut off has no next hop.
    #[test]
    fn routes_without_dead_ports_avoid_the_link() {
        // Leaf-spine: leaves 0, 1; spines 2, 3; hosts 4 (on 0) and 5 (on 1).
        let graph = |links: &[(usize, usize)]| {
            let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); 6];
            for &(a, b) in links {
                per_node[a].push(b);
                per_node[b].push(a);
            }
            let (mut node_ports, mut peer_node, mut next) = (Vec::new(), Vec::new(), 0u32);
            for peers in &per_node {
                node_ports.push(next..next + peers.len() as u32);
                next += peers.len() as u32;
                peer_node.extend(peers.iter().map(|&v| NodeId(v as u32)));
            }
            (node_ports, peer_node)
        };
        let is_host = [false, false, false, false, true, true];
        let all = [(0, 2), (0, 3), (1, 2), (1, 3), (4, 0), (5, 1)];
        let (np, pn) = graph(&all);
        let g = Graph { is_host: &is_host, node_ports: &np, peer_node: &pn };
        let full = Routing::build(&g, 1, &[], None);
        assert_eq!(full.next_hops(NodeId(0), NodeId(5)).len(), 2);
        // Link 0 - 2 fails: leaf 0's port 0 and spine 2's port 0.
        let mut dead = vec![false; pn.len()];
        dead[np[0].start as usize] = true;
        dead[np[2].start as usize] = true;
        let without = Routing::build_without(&g, 1, &[], &dead, None);
        let to_peer = |r: &Routing, s: usize, h: usize, np: &[std::ops::Range<u32>], pn: &[NodeId]| -> Vec<u32> {
            let _ = np;
            r.next_hops(NodeId(s as u32), NodeId(h as u32)).iter().map(|p| pn[p.idx()].0).collect()
        };
        let (np2, pn2) = graph(&all[1..]);
        let g2 = Graph { is_host: &is_host, node_ports: &np2, peer_node: &pn2 };
        let reference = Routing::build(&g2, 1, &[], None);
        for s in 0..4 {
            for h in [4, 5] {
                assert_eq!(to_peer(&without, s, h, &np, &pn), to_peer(&reference, s, h, &np2, &pn2), "switch {s} to host {h}");
            }
        }
        assert_eq!(to_peer(&without, 0, 5, &np, &pn), [3]);
        // Both uplinks of leaf 0 dead: host 5 is unreachable from it.
        dead[np[0].start as usize + 1] = true;
        dead[np[3].start as usize] = true;
        let cut = Routing::build_without(&g, 1, &[], &dead, None);
        assert!(cut.next_hops(NodeId(0), NodeId(5)).is_empty());
        assert_eq!(cut.route(NodeId(0), NodeId(5), 7), PortId::NONE);
    }

    /// Switches `0..ns`, host `ns + i` on switch `i`; ports numbered per node in link order.
    fn with_hosts(ns: usize, links: &[(usize, usize)]) -> (Vec<bool>, Vec<std::ops::Range<u32>>, Vec<NodeId>) {
        let n = 2 * ns;
        let (node_ports, peer_node) = ports_of(n, links.iter().copied().chain((0..ns).map(|i| (i, ns + i))));
        ((0..n).map(|i| i >= ns).collect(), node_ports, peer_node)
    }

    /// Checks up-down routes from every switch to every host: each ECMP path ends at the
    /// host, never goes up after going down, and is as long as the shortest legal path
    /// (found by a search over (switch, has gone down)). Returns how many (switch, host)
    /// routes are longer than that (only checked to be zero when `exact`).
    fn check_up_down(ns: usize, links: &[(usize, usize)], root: usize, exact: bool) -> usize {
        let (is_host, np, pn) = with_hosts(ns, links);
        let g = Graph { is_host: &is_host, node_ports: &np, peer_node: &pn };
        let r = Routing::build(&g, 3, &[], Some(NodeId(root as u32)));
        let ud = UpDown::new(&g, &[], root);
        let mut longer = 0;
        for h in ns..2 * ns {
            // Shortest legal lengths: state (u, down) with down = a down hop was taken.
            let mut best = vec![[u32::MAX; 2]; 2 * ns];
            let mut bfs = VecDeque::new();
            let mut shortest = vec![u32::MAX; ns];
            for s0 in 0..ns {
                best.iter_mut().for_each(|b| *b = [u32::MAX; 2]);
                best[s0][0] = 0;
                bfs.clear();
                bfs.push_back((s0, 0usize));
                while let Some((u, d)) = bfs.pop_front() {
                    if u == h {
                        shortest[s0] = shortest[s0].min(best[u][d]);
                        continue;
                    }
                    if is_host[u] {
                        continue;
                    }
                    for p in np[u].clone() {
                        let v = pn[p as usize].idx();
                        let up = ud.is_up(u, v);
                        if up && d == 1 {
                            continue;
                        }
                        let nd = if up { 0 } else { 1 };
                        if best[v][nd] == u32::MAX {
                            best[v][nd] = best[u][d] + 1;
                            bfs.push_back((v, nd));
                        }
                    }
                }
            }
            for (s0, &short) in shortest.iter().enumerate() {
                // Every ECMP path from s0: (node, gone down, hops).
                let mut stack = vec![(s0, false, 0u32)];
                let mut len = None;
                while let Some((u, down, hops)) = stack.pop() {
                    if u == h {
                        assert!(len.is_none_or(|l| l == hops), "paths of unequal length from {s0} to {h}");
                        len = Some(hops);
                        continue;
                    }
                    assert!(!is_host[u] && hops <= 2 * ns as u32, "route from {s0} to {h} is lost at {u}");
                    let next = r.next_hops(NodeId(u as u32), NodeId(h as u32));
                    assert!(!next.is_empty(), "no route from {u} to {h}");
                    for p in next {
                        let v = pn[p.idx()].idx();
                        let up = ud.is_up(u, v);
                        assert!(!(up && down), "route from {s0} to {h} turns up at {u} -> {v} after going down");
                        stack.push((v, down || !up, hops + 1));
                    }
                }
                let len = len.unwrap();
                assert!(len >= short, "shorter than the shortest legal path?");
                if len > short {
                    assert!(!exact, "route from {s0} to {h}: {len} hops, shortest legal path {short}");
                    longer += 1;
                }
            }
        }
        longer
    }

    #[test]
    fn up_down_routes_turn_only_from_up_to_down_on_the_shortest_legal_path() {
        // The ring of scenarios/deadlock_ring.toml, root s0: levels s0 0, s1 and s3 1, s2 2.
        let ring = [(0, 1), (1, 2), (2, 3), (3, 0)];
        let (is_host, np, pn) = with_hosts(4, &ring);
        let ud = UpDown::new(&Graph { is_host: &is_host, node_ports: &np, peer_node: &pn }, &[], 0);
        let ups: Vec<(usize, usize)> =
            (0..4).flat_map(|u| (0..4).map(move |v| (u, v))).filter(|&(u, v)| u != v && ud.is_up(u, v)).collect();
        // Up toward the lower (level, id): s3 (1, 3) -> s1 (1, 1) is up, s2 -> s3 too.
        assert_eq!(ups, [(1, 0), (2, 0), (2, 1), (2, 3), (3, 0), (3, 1)]);
        check_up_down(4, &ring, 0, true);
        // The ring's routes: s1 reaches h3 only through s0 (s1 -> s2 -> s3 would turn up
        // at s2), s0 reaches h2 both ways.
        let g = Graph { is_host: &is_host, node_ports: &np, peer_node: &pn };
        let r = Routing::build(&g, 1, &[], Some(NodeId(0)));
        let peers = |s: u32, h: u32| -> Vec<u32> { r.next_hops(NodeId(s), NodeId(h)).iter().map(|p| pn[p.idx()].0).collect() };
        assert_eq!(peers(1, 7), [0]);
        assert_eq!(peers(3, 5), [0]);
        assert_eq!(peers(0, 6), [1, 3]);
        // Another root, a grid and a leaf-spine with a leaf-to-leaf link.
        check_up_down(4, &ring, 2, true);
        check_up_down(6, &[(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)], 4, true);
        check_up_down(5, &[(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3)], 0, true);
        // Random connected graphs (a spanning tree plus chords): every route legal; count
        // the routes longer than the shortest legal path (see net/up_down.rs).
        let (mut longer, mut total) = (0, 0);
        for k in 0..200u64 {
            let ns = 4 + (mix64(k) % 6) as usize;
            let mut links: Vec<(usize, usize)> = (1..ns).map(|i| ((mix64(k * 31 + i as u64) % i as u64) as usize, i)).collect();
            for c in 0..ns as u64 {
                let (a, b) = ((mix64(k ^ (c << 20)) % ns as u64) as usize, (mix64(k ^ (c << 40) ^ 7) % ns as u64) as usize);
                if a != b {
                    links.push((a, b));
                }
            }
            longer += check_up_down(ns, &links, (mix64(k ^ 99) % ns as u64) as usize, false);
            total += ns * ns;
        }
        println!("up-down routes longer than the shortest legal path: {longer} of {total}");
    }
}
