//! What every fabric model of the `fabric_models!` list (`models/mod.rs`) gives the
//! world beside its hooks: its result tables, its part of `summary.json`, and how a
//! parallel run's partitions of it become one. Every method has a default that does
//! nothing, so a model states only what it has.

use crate::ids::NodeId;
use crate::net::fabric::Fabric;
use crate::results::Table;

/// The result tables of a run, in the order they are made.
pub(crate) type Tables = Vec<(String, Table)>;

pub(crate) trait FabricModel {
    /// Appends the model's result tables. `fx` is the fabric at the end of the run.
    fn tables(&self, _fx: &Fabric, _out: &mut Tables) {}

    /// Adds the model's part of `summary.json`: a top-level section, or keys inside
    /// `counters` or `outputs` (the summary already has both).
    fn summary(&self, _fx: &Fabric, _summary: &mut serde_json::Value) {}

    /// The end of a parallel run: takes from `other`, the same model in another
    /// partition, what that partition ran; `theirs(node)` says whether a node was its.
    fn merge(&mut self, _other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {}
}
