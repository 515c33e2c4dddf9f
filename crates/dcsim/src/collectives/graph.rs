//! A job's iteration as a graph of chunks on queue pairs.
//!
//! Each algorithm lists its sends (source rank, destination rank, channel, packets, and
//! the send whose arrival it waits for); sends of one (source, destination, channel) go
//! on one queue pair, in the order of the iteration's collectives and, within one, in
//! step order. A chunk is posted when its rank has started its collective and, if it
//! waits for one, when that chunk has arrived at its rank (the queue pair keeps the order:
//! a chunk is posted after the ones before it). Chunks are whole packets (a size is
//! rounded up to the MTU payload). Pipelining: chunk j of step s waits for chunk j of
//! step s - 1 only, so a ring forwards a chunk as soon as it has it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::plan::{CollKind, JobPlan};
use crate::error::{Error, Result};
use crate::net::queue::FxHasher;

/// No chunk.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Packets of its queue pair up to and including this chunk, within one iteration.
    pub end: u32,
    /// Collective of the iteration it belongs to.
    pub coll: u16,
    /// The arrivals it waits for per iteration (0, 1, or 2 for a tree's reduction):
    /// the chunks whose `feeds` name it.
    pub waits: u8,
    /// The chunks its arrival lets its receiver post (`NONE`: none).
    pub feeds: [u32; 2],
}

/// The graph of one iteration of a job; iterations repeat it on the same queue pairs.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Per queue pair: source and destination rank.
    pub qps: Vec<(u32, u32)>,
    /// Per queue pair: its chunks are `chunks[first[q]..first[q + 1]]`.
    pub first: Vec<u32>,
    pub chunks: Vec<Chunk>,
    /// Per chunk: its queue pair.
    pub qp_of: Vec<u32>,
    /// Per (rank, collective): chunks the rank receives in one iteration.
    pub inbound: Vec<u32>,
    /// Per rank: its outgoing queue pairs are `out[out_first[r]..out_first[r + 1]]`.
    pub out_first: Vec<u32>,
    pub out: Vec<u32>,
}

impl Graph {
    /// Packets of queue pair `q` per iteration.
    pub fn qp_pkts(&self, q: usize) -> u32 {
        let (a, b) = (self.first[q] as usize, self.first[q + 1] as usize);
        if b > a {
            self.chunks[b - 1].end
        } else {
            0
        }
    }
}

struct Send {
    qp: u32,
    coll: u16,
    pkts: u32,
    deps: [u32; 2],
}

/// Queue pairs by (source, destination, channel), numbered in order of first use.
#[derive(Default)]
struct Qps {
    index: HashMap<(u32, u32, u32), u32, BuildHasherDefault<FxHasher>>,
    list: Vec<(u32, u32)>,
}

impl Qps {
    fn id(&mut self, src: u32, dst: u32, ch: u32) -> u32 {
        let list = &mut self.list;
        *self.index.entry((src, dst, ch)).or_insert_with(|| {
            list.push((src, dst));
            list.len() as u32 - 1
        })
    }
}

/// Packets of each chunk of `bytes` cut into chunks of at most `chunk` bytes, each a
/// whole number of `mtu` packets, as even as can be (at least one packet).
pub fn split(bytes: u64, chunk: u64, mtu: u64) -> Vec<u32> {
    let pkts = bytes.div_ceil(mtu).max(1);
    let per = chunk.div_ceil(mtu).max(1);
    let m = pkts.div_ceil(per);
    (0..m).map(|j| (pkts / m + u64::from(j < pkts % m)) as u32).collect()
}

/// The parent of each position in a balanced in-order binary tree over 0..n (the root
/// in the middle of its range, `NONE` for the root).
fn tree_parents(n: u32) -> Vec<u32> {
    fn fill(lo: u32, hi: u32, up: u32, out: &mut [u32]) {
        if lo >= hi {
            return;
        }
        let mid = (lo + hi) / 2;
        out[mid as usize] = up;
        fill(lo, mid, mid, out);
        fill(mid + 1, hi, mid, out);
    }
    let mut out = vec![NONE; n as usize];
    fill(0, n, NONE, &mut out);
    out
}

fn depth(parent: &[u32], mut v: u32) -> u32 {
    let mut d = 0;
    while parent[v as usize] != NONE {
        v = parent[v as usize];
        d += 1;
    }
    d
}

/// How many chunks `split` makes.
fn parts(bytes: u64, chunk: u64, mtu: u64) -> u64 {
    bytes.div_ceil(mtu).max(1).div_ceil(chunk.div_ceil(mtu).max(1))
}

/// The number of chunks `build` makes for one iteration, computed without building it
/// (checked against a limit before anything of that size is allocated).
pub fn count(job: &JobPlan, mtu: u64) -> u64 {
    let total = job.ranks.len() as u64;
    job.colls
        .iter()
        .map(|c| {
            // Every group the same size, each an instance of the collective.
            let n = c.groups.size(total as usize) as u64;
            if n < 2 {
                return 0;
            }
            let instances = total / n;
            let per_ch = c.bytes / c.channels as u64;
            let one = match c.kind {
                CollKind::AllReduceRing => 2 * (n - 1) * n * parts(per_ch / n, c.chunk, mtu),
                CollKind::AllGather | CollKind::ReduceScatter => (n - 1) * n * parts(per_ch / n, c.chunk, mtu),
                CollKind::AllReduceHd => 2 * n.trailing_zeros() as u64 * n,
                CollKind::AllReduceTree => 2 * 2 * (n - 1) * parts(per_ch / 2, c.chunk, mtu),
                CollKind::Broadcast | CollKind::SendRecv => (n - 1) * parts(per_ch, c.chunk, mtu),
                CollKind::AllToAll => n * (n - 1) * parts(per_ch / n, c.chunk, mtu),
            };
            instances * c.channels as u64 * one
        })
        .fold(0u64, |a, b| a.saturating_add(b))
}

/// The graph of `job`'s iteration with packets of `mtu` payload bytes. Errors name
/// `path` (a queue pair with more packets than the engine numbers).
pub fn build(job: &JobPlan, mtu: u64, path: &str) -> Result<Graph> {
    let total = job.ranks.len() as u32;
    let mut sends: Vec<Send> = Vec::new();
    let mut qps = Qps::default();
    for (ci, c) in job.colls.iter().enumerate() {
        let ci = ci as u16;
        let per_ch = c.bytes / c.channels as u64;
        let groups = c.groups.members(total);
        for (ch, members) in (0..c.channels).flat_map(|ch| groups.iter().map(move |m| (ch, m))) {
            // The algorithm runs over the group's positions 0..n; `id` names the queue
            // pair of the ranks at two positions (the identity for `Groups::All`, so a
            // job without groups builds the graph it always did). A group of one rank
            // sends nothing.
            let n = members.len() as u32;
            if n < 2 {
                continue;
            }
            let mut id = |a: u32, b: u32, ch: u32| qps.id(members[a as usize], members[b as usize], ch);
            let push = |sends: &mut Vec<Send>, qp: u32, pkts: u32, dep: u32| {
                sends.push(Send { qp, coll: ci, pkts, deps: [dep, NONE] });
                sends.len() as u32 - 1
            };
            match c.kind {
                CollKind::AllReduceRing | CollKind::AllGather | CollKind::ReduceScatter => {
                    let steps = if c.kind == CollKind::AllReduceRing { 2 * (n - 1) } else { n - 1 };
                    let parts = split(per_ch / n as u64, c.chunk, mtu);
                    let m = parts.len() as u32;
                    let base = sends.len() as u32;
                    let ring: Vec<u32> = (0..n).map(|r| id(r, (r + 1) % n, ch)).collect();
                    sends.reserve(steps as usize * n as usize * parts.len());
                    // Send id of (step s, rank r, chunk j): base + (s n + r) m + j.
                    for s in 0..steps {
                        for r in 0..n {
                            for (j, &p) in parts.iter().enumerate() {
                                let prev = (r + n - 1) % n;
                                let dep = if s == 0 { NONE } else { base + ((s - 1) * n + prev) * m + j as u32 };
                                push(&mut sends, ring[r as usize], p, dep);
                            }
                        }
                    }
                }
                CollKind::AllReduceHd => {
                    let l = n.trailing_zeros();
                    let mut prev: Vec<u32> = vec![NONE; n as usize];
                    // Halving (reduce-scatter), then doubling (all-gather); one chunk per
                    // step, which waits for the whole previous step from its partner.
                    for k in 0..2 * l {
                        let (d, share) = if k < l { (n >> (k + 1), 1u64 << (k + 1)) } else { (1 << (k - l), 1u64 << (2 * l - k)) };
                        let pkts = (per_ch / share).div_ceil(mtu).max(1) as u32;
                        let mut now = vec![NONE; n as usize];
                        for r in 0..n {
                            // Rank r's send of step k waits for what it received in step
                            // k - 1: the send of its partner then.
                            let dep = if k == 0 { NONE } else { prev[(r ^ if k - 1 < l { n >> k } else { 1 << (k - 1 - l) }) as usize] };
                            now[r as usize] = push(&mut sends, id(r, r ^ d, ch), pkts, dep);
                        }
                        prev = now;
                    }
                }
                CollKind::AllReduceTree => {
                    // Two trees, each with half the data; the second is the first with
                    // the ranks shifted by one, so that a leaf of one is inside the other.
                    let parts = split(per_ch / 2, c.chunk, mtu);
                    let parent = tree_parents(n);
                    for t in 0..2u32 {
                        let rank = |v: u32| (v + t) % n;
                        let qch = ch * 2 + t;
                        for (j, &p) in parts.iter().enumerate() {
                            let _ = j;
                            // Up: each node sends its reduced chunk to its parent once its
                            // children's have arrived; then down from the root.
                            let mut up = vec![NONE; n as usize];
                            let mut order: Vec<u32> = (0..n).collect();
                            order.sort_by_key(|&v| std::cmp::Reverse(depth(&parent, v)));
                            for &v in &order {
                                if parent[v as usize] == NONE {
                                    continue;
                                }
                                let kids: Vec<u32> = (0..n).filter(|&k| parent[k as usize] == v).map(|k| up[k as usize]).collect();
                                let q = id(rank(v), rank(parent[v as usize]), qch);
                                let id = push(&mut sends, q, p, kids.first().copied().unwrap_or(NONE));
                                sends[id as usize].deps[1] = kids.get(1).copied().unwrap_or(NONE);
                                up[v as usize] = id;
                            }
                            let mut down = vec![NONE; n as usize];
                            order.reverse();
                            for &v in &order {
                                let pv = parent[v as usize];
                                if pv == NONE {
                                    continue;
                                }
                                // The root sends down once both children's chunks are in;
                                // another node once its parent's has arrived.
                                let deps = if parent[pv as usize] == NONE {
                                    let kids: Vec<u32> = (0..n).filter(|&k| parent[k as usize] == pv).map(|k| up[k as usize]).collect();
                                    [kids[0], kids.get(1).copied().unwrap_or(NONE)]
                                } else {
                                    [down[pv as usize], NONE]
                                };
                                let id = push(&mut sends, id(rank(pv), rank(v), qch), p, deps[0]);
                                sends[id as usize].deps[1] = deps[1];
                                down[v as usize] = id;
                            }
                        }
                    }
                }
                CollKind::Broadcast => {
                    let parts = split(per_ch, c.chunk, mtu);
                    let m = parts.len() as u32;
                    let base = sends.len() as u32;
                    for pos in 0..n - 1 {
                        let q = id((c.root + pos) % n, (c.root + pos + 1) % n, ch);
                        for (j, &p) in parts.iter().enumerate() {
                            let dep = if pos == 0 { NONE } else { base + (pos - 1) * m + j as u32 };
                            push(&mut sends, q, p, dep);
                        }
                    }
                }
                CollKind::AllToAll => {
                    let parts = split(per_ch / n as u64, c.chunk, mtu);
                    for d in 1..n {
                        for r in 0..n {
                            let q = id(r, (r + d) % n, ch);
                            for &p in &parts {
                                push(&mut sends, q, p, NONE);
                            }
                        }
                    }
                }
                CollKind::SendRecv => {
                    let parts = split(per_ch, c.chunk, mtu);
                    for r in 0..n - 1 {
                        let q = id(r, r + 1, ch);
                        for &p in &parts {
                            push(&mut sends, q, p, NONE);
                        }
                    }
                }
            }
        }
    }
    // Chunks grouped by queue pair (numbered in the order of their first send).
    let qps = qps.list;
    let mut first = vec![0u32; qps.len() + 1];
    for s in &sends {
        first[s.qp as usize + 1] += 1;
    }
    for q in 0..qps.len() {
        first[q + 1] += first[q];
    }
    let mut fill = first.clone();
    let mut chunk_of_send = vec![0u32; sends.len()];
    let mut chunks = vec![Chunk { end: 0, coll: 0, waits: 0, feeds: [NONE; 2] }; sends.len()];
    let mut qp_of = vec![0u32; sends.len()];
    let mut ends = vec![0u64; qps.len()];
    for (i, s) in sends.iter().enumerate() {
        let q = s.qp as usize;
        let k = fill[q] as usize;
        fill[q] += 1;
        ends[q] += s.pkts as u64;
        if ends[q] >= u32::MAX as u64 / 2 {
            return Err(Error::scenario(
                path,
                "a queue pair would carry more than 2^31 packets per iteration; use fewer or smaller collectives",
            ));
        }
        chunk_of_send[i] = k as u32;
        qp_of[k] = q as u32;
        let waits = s.deps.iter().filter(|&&d| d != NONE).count() as u8;
        chunks[k] = Chunk { end: ends[q] as u32, coll: s.coll, waits, feeds: [NONE; 2] };
    }
    for (i, s) in sends.iter().enumerate() {
        for &d in s.deps.iter().filter(|&&d| d != NONE) {
            let f = &mut chunks[chunk_of_send[d as usize] as usize].feeds;
            let slot = f.iter().position(|&x| x == NONE).expect("a chunk feeds at most two");
            f[slot] = chunk_of_send[i];
        }
    }
    let n = total;
    let nc = job.colls.len();
    let mut inbound = vec![0u32; n as usize * nc];
    for s in &sends {
        inbound[qps[s.qp as usize].1 as usize * nc + s.coll as usize] += 1;
    }
    let mut out_first = vec![0u32; n as usize + 1];
    for &(src, _) in &qps {
        out_first[src as usize + 1] += 1;
    }
    for r in 0..n as usize {
        out_first[r + 1] += out_first[r];
    }
    let mut at = out_first.clone();
    let mut out = vec![0u32; qps.len()];
    for (q, &(src, _)) in qps.iter().enumerate() {
        out[at[src as usize] as usize] = q as u32;
        at[src as usize] += 1;
    }
    Ok(Graph { qps, first, chunks, qp_of, inbound, out_first, out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collectives::plan::{CollPlan, Groups, Op};
    use crate::units::SimTime;

    pub(super) fn job(kind: CollKind, n: u32, bytes: u64, channels: u32, chunk: u64) -> JobPlan {
        JobPlan {
            name: "j".into(),
            group: 0,
            ranks: (0..n).collect(),
            start: SimTime::ZERO,
            iterations: 1,
            colls: vec![CollPlan { kind, bytes, channels, chunk, root: 0, groups: Groups::All }],
            ops: vec![Op::Coll(0)],
            overlap: false,
            first_flow: 0,
            flows: 0,
        }
    }

    #[test]
    fn groups_stay_within_their_ranks() {
        for (groups, same) in
            [(Groups::Blocks(4), (|a: u32, b: u32| a / 4 == b / 4) as fn(u32, u32) -> bool), (Groups::Strided(2), |a, b| a % 2 == b % 2)]
        {
            for kind in [CollKind::AllReduceRing, CollKind::AllToAll, CollKind::AllReduceTree, CollKind::AllReduceHd, CollKind::Broadcast] {
                let mut j = job(kind, 8, 4 * 3 * 1000 * 5, 3, 2000);
                j.colls[0].groups = groups;
                let g = build(&j, 1000, "t").unwrap();
                assert!(g.qps.iter().all(|&(a, b)| a != b && same(a, b)), "{groups:?} {kind:?}");
                assert_eq!(count(&j, 1000), g.chunks.len() as u64, "{groups:?} {kind:?}");
                // Every rank receives in its group's instance, but a broadcast's roots
                // (one per group).
                let idle = g.inbound.iter().filter(|&&x| x == 0).count();
                assert_eq!(idle, if kind == CollKind::Broadcast { 2 } else { 0 }, "{groups:?} {kind:?}");
            }
        }
        // Two groups of 4: twice the queue pairs and chunks of one ring of 4.
        let mut j = job(CollKind::AllReduceRing, 8, 4 * 8000, 1, 1000);
        j.colls[0].groups = Groups::Blocks(4);
        let one = build(&job(CollKind::AllReduceRing, 4, 4 * 8000, 1, 1000), 1000, "t").unwrap();
        let two = build(&j, 1000, "t").unwrap();
        assert_eq!((two.qps.len(), two.chunks.len()), (2 * one.qps.len(), 2 * one.chunks.len()));
        assert_eq!(Groups::Strided(2).members(6), vec![vec![0, 2, 4], vec![1, 3, 5]]);
    }

    #[test]
    fn split_is_even_and_whole() {
        assert_eq!(split(10_000, 4_000, 1000), vec![4, 3, 3]);
        assert_eq!(split(1, 4_000, 1000), vec![1]);
        assert_eq!(split(8_000, 8_000, 1000), vec![8]);
    }

    #[test]
    fn ring_all_reduce_shape() {
        let g = build(&job(CollKind::AllReduceRing, 4, 4 * 2 * 8000, 2, 4000), 1000, "t").unwrap();
        // 4 ring edges x 2 channels; 6 steps x 2 chunks of 4 packets each.
        assert_eq!(g.qps.len(), 8);
        assert!((0..8).all(|q| g.qp_pkts(q) == 6 * 8));
        assert_eq!(g.inbound, vec![2 * 6 * 2; 4]);
        assert_eq!(count(&job(CollKind::AllReduceRing, 4, 4 * 2 * 8000, 2, 4000), 1000), g.chunks.len() as u64);
        // Every chunk but the last step's feeds one; every chunk but step 0's waits.
        let feeds = g.chunks.iter().filter(|c| c.feeds[0] != NONE).count();
        let waits = g.chunks.iter().filter(|c| c.waits == 1).count();
        assert_eq!((feeds, waits), (8 * 5 * 2, 8 * 5 * 2));
        for (i, c) in g.chunks.iter().enumerate().filter(|(_, c)| c.feeds[0] != NONE) {
            let (a, b) = (g.qps[g.qp_of[i] as usize], g.qps[g.qp_of[c.feeds[0] as usize] as usize]);
            assert_eq!(a.1, b.0, "a chunk feeds a send of its receiver");
        }
    }

    #[test]
    fn halving_doubling_partners() {
        let g = build(&job(CollKind::AllReduceHd, 8, 8 * 1000 * 8, 1, 1 << 20), 1000, "t").unwrap();
        // Each rank talks to 3 partners; each pair carries one halving and one doubling step.
        assert_eq!(g.qps.len(), 24);
        assert!(g.qps.iter().all(|&(a, b)| (a ^ b).is_power_of_two()));
        let total: u32 = (0..g.qps.len()).map(|q| g.qp_pkts(q)).sum();
        // 2 (n-1)/n S per rank: 2 * 7/8 * 64 packets * 8 ranks.
        assert_eq!(total, 2 * 7 * 8 * 8);
        for kind in [
            CollKind::AllGather,
            CollKind::AllToAll,
            CollKind::Broadcast,
            CollKind::SendRecv,
            CollKind::AllReduceHd,
            CollKind::AllReduceTree,
        ] {
            let j = job(kind, 8, 8 * 3 * 1000 * 5 + 17, 3, 2000);
            assert_eq!(count(&j, 1000), build(&j, 1000, "t").unwrap().chunks.len() as u64, "{kind:?}");
        }
    }
}

#[cfg(test)]
pub(crate) fn tests_job(kind: CollKind, n: u32, bytes: u64, channels: u32, chunk: u64) -> JobPlan {
    tests::job(kind, n, bytes, channels, chunk)
}

#[cfg(test)]
mod tree_tests {
    use super::*;

    #[test]
    fn double_binary_tree_shape() {
        assert_eq!(tree_parents(7), vec![1, 3, 1, NONE, 5, 3, 5]);
        let j = crate::collectives::graph::tests_job(CollKind::AllReduceTree, 7, 2 * 3000, 1, 1000);
        let g = build(&j, 1000, "t").unwrap();
        // Per tree: 6 edges up and 6 down, 3 chunks each; the trees use their own queue pairs.
        assert_eq!(g.qps.len(), 24);
        assert_eq!(g.chunks.len(), 2 * 12 * 3);
        // The root of tree 0 (rank 3) waits for two children before sending down.
        assert_eq!(g.chunks.iter().filter(|c| c.waits == 2).count(), 2 * (2 * 3 + 2 * 3));
        // Every rank receives its share of both trees.
        assert!(g.inbound.iter().all(|&x| x > 0));
    }
}
