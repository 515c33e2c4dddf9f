//! Scenario keys of `[[traffic]] type = "job"` and `type = "collective"`
//! (docs/scenarios.md, docs/models/collectives.md).

use serde::Deserialize;

use crate::keys::{SizeStr, TimeStr};

/// One collective of a job's iteration (a layer's gradient all-reduce, an expert
/// layer's all-to-all, ...).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerSpec {
    /// Compute time of the layer, before its collective (default "0us").
    pub compute: Option<TimeStr>,
    /// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
    /// "send_recv".
    pub kind: String,
    /// nccl-tests' size (docs/models/collectives.md).
    pub size: SizeStr,
    /// all_reduce: "ring" (default), "halving_doubling" (ranks a power of two) or
    /// "double_binary_tree".
    pub algorithm: Option<String>,
    /// Parallel rings (queue pairs per peer), each with size / channels (default 1).
    pub channels: Option<u32>,
    /// Largest chunk pipelined along the ring (default "512KiB", NCCL's Simple-protocol
    /// step: NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8).
    pub chunk: Option<SizeStr>,
    /// broadcast: the root rank (default 0).
    pub root: Option<u32>,
    /// Which ranks run it together: "all" (default), "model" (the job's model-parallel
    /// groups of `model_parallel` consecutive ranks) or "data" (its data-parallel groups:
    /// the ranks at the same position in their model-parallel group), each group its own
    /// instance at the same time.
    pub groups: Option<String>,
}

/// `type = "job"`: ranks that run `iterations` of compute and collectives.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    pub ranks: Option<Vec<i64>>,
    pub rank_count: Option<u32>,
    pub placement: Option<String>,
    /// Iterations (default 1).
    pub iterations: Option<u32>,
    /// Compute at the start of each iteration, before the first layer (default "0us").
    pub compute: Option<TimeStr>,
    /// A layer's collective runs beside the next layer's compute (default false: a rank
    /// waits for its collective before it computes again).
    pub overlap: Option<bool>,
    #[serde(default)]
    pub layers: Vec<LayerSpec>,
    /// An ASTRA-sim 1.0 / SimAI workload text file instead of `compute` and `layers`
    /// (`collectives/workload.rs`).
    pub workload: Option<String>,
    /// The workload file's unit of time (default "1ns": a cycle at 1 GHz).
    pub time_unit: Option<TimeStr>,
    /// Ranks per model-parallel group (divides the rank count), for layers' `groups`.
    pub model_parallel: Option<u32>,
}

/// `type = "collective"`: one collective over ranks, `iterations` times back to back
/// (a job of one layer without compute).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectiveSpec {
    pub ranks: Option<Vec<i64>>,
    pub rank_count: Option<u32>,
    pub placement: Option<String>,
    pub iterations: Option<u32>,
    pub kind: String,
    pub size: SizeStr,
    pub algorithm: Option<String>,
    pub channels: Option<u32>,
    pub chunk: Option<SizeStr>,
    pub root: Option<u32>,
    pub model_parallel: Option<u32>,
    pub groups: Option<String>,
}

impl CollectiveSpec {
    /// The job this is.
    pub fn job(&self) -> JobSpec {
        JobSpec {
            ranks: self.ranks.clone(),
            rank_count: self.rank_count,
            placement: self.placement.clone(),
            iterations: self.iterations,
            compute: None,
            overlap: None,
            workload: None,
            time_unit: None,
            model_parallel: self.model_parallel,
            layers: vec![LayerSpec {
                compute: None,
                kind: self.kind.clone(),
                size: self.size.clone(),
                algorithm: self.algorithm.clone(),
                channels: self.channels,
                chunk: self.chunk.clone(),
                root: self.root,
                groups: self.groups.clone(),
            }],
        }
    }
}
