//! A fabric model that exists to show, and to test, how one is added (ARCHITECTURE.md,
//! "How to add a fabric model"): this folder and one line in the `fabric_models!` list
//! of `models/mod.rs`, nothing else. It is compiled only in the unit tests. What it
//! does: `[fabric.every_nth] n = N` marks (ECN CE) every Nth data frame queued at a
//! switch egress, counted over the whole fabric; the summary says how many it marked.

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::ids::{FlowId, NodeId};
use crate::keys::{at, Check, KeyCtx, Keys};
use crate::models::fabric_model::{BuildCtx, Enqueued, FabricModel};
use crate::net::fabric::Fabric;
use crate::net::packet::{PktKind, FLAG_CE};
use crate::plan::{NodeKind, Plan};

/// `[fabric.every_nth]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EveryNthKeys {
    /// Mark every nth data frame (default 4).
    pub n: Option<i64>,
}

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct EveryNthParams {
    pub n: i64,
}

impl Keys for EveryNthKeys {
    type Out = EveryNthParams;
    fn build(&self, _: &str, _: &KeyCtx) -> Result<EveryNthParams> {
        Ok(EveryNthParams { n: self.n.unwrap_or(4) })
    }
}

impl Check for EveryNthParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if self.n < 1 {
            return Err(Error::scenario(at(path, "n"), format!("must be >= 1 (got {})", self.n)));
        }
        Ok(())
    }
}

/// The run-time state: off (`n == 0`) unless the scenario has the table.
pub struct EveryNth {
    n: u64,
    seen: u64,
    marked: u64,
}

impl FabricModel for EveryNth {
    fn new(ctx: &mut BuildCtx) -> Self {
        EveryNth { n: ctx.plan.fabric.every_nth.as_ref().map_or(0, |p| p.n as u64), seen: 0, marked: 0 }
    }

    fn wants_enqueued(&self) -> bool {
        self.n > 0
    }

    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, fx: &mut Fabric, e: &Enqueued, _src: &S) {
        if self.n == 0 || e.pkt.kind != PktKind::Data {
            return;
        }
        self.seen += 1;
        if self.seen.is_multiple_of(self.n) {
            fx.pool.get_mut(e.id).flags |= FLAG_CE;
            self.marked += 1;
        }
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if self.n > 0 {
            summary["every_nth"] = serde_json::json!({ "marked": self.marked });
        }
    }

    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {
        self.marked += other.marked;
    }

    /// Against the rest of the plan (its own values are `Check`ed before): it marks at
    /// switches, so the topology must have one.
    fn check_plan(plan: &Plan, _ctx: &KeyCtx) -> Result<()> {
        if plan.fabric.every_nth.is_some() && !plan.nodes.iter().any(|n| n.kind == NodeKind::Switch) {
            return Err(Error::scenario("fabric.every_nth", "the topology has no switch to mark at"));
        }
        Ok(())
    }

    fn warnings(plan: &Plan, out: &mut Vec<String>) {
        if plan.fabric.every_nth.as_ref().is_some_and(|p| p.n == 1) {
            out.push("fabric.every_nth.n: 1 marks every data frame".to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::results::Column;

    /// One flow of 100 full frames through one switch: the switch queues each once.
    const ONE_FLOW: &str = r#"
[simulation]
duration = "1ms"
[topology]
type = "star"
hosts = 2
rate = "25Gbps"
delay = "1us"
[fabric.every_nth]
n = 4
[[traffic]]
type = "flows"
flows = [{ src = "h1", dst = "h0", size = "100KB" }]
"#;

    #[test]
    fn an_added_fabric_model_loads_runs_and_marks() {
        let plan = crate::scenario::load_str(ONE_FLOW, Path::new("."), &[]).expect("the example model's scenario loads");
        let packets = plan.flows[0].size.unwrap().div_ceil(plan.host.mtu as u64);
        let res = crate::sim::run(&plan).unwrap();
        let flows = res.table("flows").unwrap();
        let Some(Column::U64(marked)) = flows.get("marked_received") else { panic!("no marked_received column") };
        assert_eq!(marked[0], packets / 4, "every 4th of {packets} frames is marked");
        assert_eq!(res.summary["every_nth"]["marked"], packets / 4);
        // Off without its table: nothing is marked, and the summary has no section.
        let res =
            crate::sim::run(&crate::scenario::load_str(&ONE_FLOW.replace("[fabric.every_nth]\nn = 4\n", ""), Path::new("."), &[]).unwrap())
                .unwrap();
        assert!(res.summary.get("every_nth").is_none());
        // Its keys are checked like every model's, with their paths.
        let e = crate::scenario::load_str(ONE_FLOW, Path::new("."), &["fabric.every_nth.n=0".into()]).unwrap_err();
        assert!(e.to_string().contains("fabric.every_nth.n: must be >= 1 (got 0)"), "{e}");
        let e = crate::scenario::load_str(ONE_FLOW, Path::new("."), &["fabric.every_nth.m=1".into()]).unwrap_err();
        assert!(e.to_string().contains("fabric.every_nth") && e.to_string().contains("unknown field"), "{e}");
        // Its plan check and its warning are called from the list.
        let mut p = plan.clone();
        p.nodes.iter_mut().for_each(|n| n.kind = crate::plan::NodeKind::Host);
        let e = crate::models::FabricModels::check_plan(&p, &crate::keys::KeyCtx::NONE).unwrap_err();
        assert_eq!(e.to_string(), "fabric.every_nth: the topology has no switch to mark at");
        assert!(crate::scenario::validate::warnings(&plan).is_empty());
        let one = crate::scenario::load_str(ONE_FLOW, Path::new("."), &["fabric.every_nth.n=1".into()]).unwrap();
        assert_eq!(crate::scenario::validate::warnings(&one), vec!["fabric.every_nth.n: 1 marks every data frame".to_string()]);
    }
}
