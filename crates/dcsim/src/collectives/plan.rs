//! A job as the world runs it: ranks on hosts, the collectives of one iteration and the
//! order in which each rank computes and communicates.

use crate::units::SimTime;

/// What a collective computes (nccl-tests' names), with its algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollKind {
    /// Ring all-reduce: reduce-scatter then all-gather around the ring, 2(n-1) steps.
    AllReduceRing,
    /// Recursive halving-doubling all-reduce (n a power of two): log2 n exchanges of
    /// halving size, then log2 n of doubling size.
    AllReduceHd,
    /// Double binary tree (NCCL's tree): two pipelined reduce-then-broadcast trees, each
    /// with half the data, the second the first with the ranks shifted by one.
    AllReduceTree,
    AllGather,
    ReduceScatter,
    AllToAll,
    /// Pipelined chain from the root along the ring order.
    Broadcast,
    /// Rank r sends to rank r + 1 (pipeline stages).
    SendRecv,
}

impl CollKind {
    pub fn name(self) -> &'static str {
        match self {
            CollKind::AllReduceRing | CollKind::AllReduceHd | CollKind::AllReduceTree => "all_reduce",
            CollKind::AllGather => "all_gather",
            CollKind::ReduceScatter => "reduce_scatter",
            CollKind::AllToAll => "all_to_all",
            CollKind::Broadcast => "broadcast",
            CollKind::SendRecv => "send_recv",
        }
    }

    pub fn algorithm(self) -> &'static str {
        match self {
            CollKind::AllReduceHd => "halving_doubling",
            CollKind::AllReduceTree => "double_binary_tree",
            CollKind::AllToAll | CollKind::SendRecv => "direct",
            CollKind::Broadcast => "chain",
            _ => "ring",
        }
    }

    /// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): busbw = algbw x factor.
    pub fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            CollKind::AllReduceRing | CollKind::AllReduceHd | CollKind::AllReduceTree => 2.0 * (n - 1.0) / n,
            CollKind::AllGather | CollKind::ReduceScatter | CollKind::AllToAll => (n - 1.0) / n,
            CollKind::Broadcast | CollKind::SendRecv => 1.0,
        }
    }
}

/// Which of a job's ranks run a collective together: the ranks are cut into disjoint
/// groups of equal size, each running its own instance of the collective at the same
/// time (ASTRA-sim's model- and data-parallel groups; docs/models/collectives.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Groups {
    /// One group of all the job's ranks.
    #[default]
    All,
    /// Groups of `k` consecutive ranks: rank r is member r % k of group r / k.
    Blocks(u32),
    /// `k` groups of the ranks equal modulo `k`: rank r is member r / k of group r % k.
    Strided(u32),
}

impl Groups {
    /// The job ranks of each group, in the order of their positions in it, for `n` ranks
    /// (`k` divides `n`, checked where the groups are made).
    pub fn members(self, n: u32) -> Vec<Vec<u32>> {
        match self {
            Groups::All => vec![(0..n).collect()],
            Groups::Blocks(k) => (0..n / k).map(|g| (g * k..(g + 1) * k).collect()).collect(),
            Groups::Strided(k) => (0..k).map(|g| (g..n).step_by(k as usize).collect()).collect(),
        }
    }

    /// Ranks per group, for `n` ranks.
    pub fn size(self, n: usize) -> usize {
        match self {
            Groups::All => n,
            Groups::Blocks(k) => k as usize,
            Groups::Strided(k) => n / k as usize,
        }
    }
}

/// One collective of an iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct CollPlan {
    pub kind: CollKind,
    /// nccl-tests' size: the buffer of one rank (all-reduce, broadcast, all-to-all's send
    /// buffer, send_recv's message) or the whole gathered buffer (all-gather,
    /// reduce-scatter's input).
    pub bytes: u64,
    /// Parallel rings (or queue pairs per peer), each with `bytes / channels`.
    pub channels: u32,
    /// Largest chunk in bytes: each step's data is cut into chunks pipelined along the ring.
    pub chunk: u64,
    /// Broadcast: the root rank (its position in each group).
    pub root: u32,
    /// The groups that run it, each its own instance over `bytes`.
    pub groups: Groups,
}

/// What a rank does, in order, in each iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Compute(SimTime),
    /// Its part of the iteration's collective k, waited for (unless the job overlaps).
    Coll(u16),
    /// Its part of collective k, not waited for: the iteration's end waits for it.
    Issue(u16),
    /// Waits for its part of collective k, issued earlier in the iteration (unless the
    /// job overlaps).
    Wait(u16),
}

/// A training job: ranks on hosts, running `iterations` of `ops`.
#[derive(Clone, Debug, PartialEq)]
pub struct JobPlan {
    pub name: String,
    /// The `[[traffic]]` entry (flows' `group`).
    pub group: u32,
    /// Host node of each rank.
    pub ranks: Vec<u32>,
    pub start: SimTime,
    pub iterations: u32,
    pub colls: Vec<CollPlan>,
    pub ops: Vec<Op>,
    /// A collective does not block its rank: the next compute runs beside it, and the
    /// iteration ends when the rank's compute and all its collectives are done.
    pub overlap: bool,
    /// The job's queue pairs are flows `first_flow..first_flow + flows` (graph.rs order).
    pub first_flow: u32,
    pub flows: u32,
}

impl JobPlan {
    /// The compute time of one iteration.
    pub fn compute(&self) -> SimTime {
        self.ops.iter().fold(SimTime::ZERO, |t, o| match o {
            Op::Compute(c) => t + *c,
            Op::Coll(_) | Op::Issue(_) | Op::Wait(_) => t,
        })
    }
}
