//! The link failures' keys, `link_failures` and `convergence` in `[switch]`, and what
//! they resolve into (`Plan::fabric.link_faults`).

use serde::Deserialize;

use crate::error::Result;
use crate::keys::{Check, KeyCtx, Keys, TimeStr};
use crate::units::SimTime;

/// The keys of `[switch]` that are the link failures'.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFailureKeys {
    /// Links between switches that fail: `[{ a, b, down, up }, ...]` (`up` optional).
    pub link_failures: Option<Vec<LinkFailureSpec>>,
    /// Routing convergence delay after a link goes down or up (required with
    /// `link_failures`).
    pub convergence: Option<TimeStr>,
}

/// The link between switches `a` and `b` goes down at `down` (and up at `up`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFailureSpec {
    pub a: String,
    pub b: String,
    pub down: TimeStr,
    pub up: Option<TimeStr>,
}

/// The run's link failures (`Plan::fabric.link_faults`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkFailurePlan {
    /// Links between switches that go down (and optionally up again) during the run.
    pub failures: Vec<LinkFailure>,
    /// Time from a link going down or up until every switch's routes reflect it
    /// (`None`: not given; required when there are link failures).
    pub convergence: Option<SimTime>,
}

/// The link between switches `a` and `b` (node indices) goes down at `down` and, if
/// `up` is given, comes back at `up`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkFailure {
    pub a: u32,
    pub b: u32,
    pub down: SimTime,
    pub up: Option<SimTime>,
}

impl Keys for LinkFailureKeys {
    type Out = LinkFailurePlan;
    /// Names resolved against the topology (checked with the plan by `checks.rs`).
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<LinkFailurePlan> {
        let mut failures = Vec::new();
        for (i, f) in self.link_failures.iter().flatten().enumerate() {
            let p = format!("{path}.link_failures[{i}]");
            let find = |name: &str, key: &str| ctx.node(name, None, &format!("{p}.{key}"));
            let up = f.up.as_ref().map(|t| t.time(&format!("{p}.up"))).transpose()?;
            failures.push(LinkFailure { a: find(&f.a, "a")?, b: find(&f.b, "b")?, down: f.down.time(&format!("{p}.down"))?, up });
        }
        let convergence = self.convergence.as_ref().map(|t| t.time(&format!("{path}.convergence"))).transpose()?;
        Ok(LinkFailurePlan { failures, convergence })
    }
}

/// Checked against the links by `checks.rs` (`FabricModel::check_plan`).
impl Check for LinkFailurePlan {
    fn check(&self, _: &str, _: &KeyCtx) -> Result<()> {
        Ok(())
    }
}
