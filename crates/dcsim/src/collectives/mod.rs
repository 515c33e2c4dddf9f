//! AI training traffic: collectives (all-reduce, all-gather, ...) and jobs (ranks that
//! run iterations of compute and collectives) as traffic of queue pairs.
//!
//! A collective is a dependency graph of chunks sent on RoCE queue pairs between ranks
//! (`graph.rs`): a chunk is posted on its queue pair when its rank has started the
//! collective and, where the algorithm says so, when the chunk it forwards or reduces has
//! arrived at that rank. Every trigger is local to one host (a rank's start, or a chunk
//! received by the host that sends the next one), so a partitioned run needs no message
//! between partitions. `plan.rs` holds the validated job, `schema.rs` the scenario keys,
//! `build.rs` placement and flows, `ideal.rs` the analytic times, `world.rs` the run side
//! and `output.rs` the `collectives` and `jobs` tables.

pub mod build;
pub mod graph;
pub mod ideal;
pub(crate) mod output;
pub mod plan;
pub mod schema;
pub mod workload;
pub(crate) mod world;

pub use plan::{CollKind, CollPlan, JobPlan, Op};
