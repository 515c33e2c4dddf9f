//! The pause storms' key, `pause_storms` in `[host]`, and what it resolves into
//! (`Plan::fabric.pause_storms`).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::keys::{Check, KeyCtx, Keys, TimeStr};
use crate::units::SimTime;

/// The key of `[host]` that is the pause storms'.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseStormKeys {
    /// NICs that keep sending PFC pauses: `[{ host, priority, start, stop }, ...]`.
    pub pause_storms: Option<Vec<PauseStormSpec>>,
}

/// From `start` (until `stop`) the NIC of `host` keeps pausing `priority` at its switch.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseStormSpec {
    pub host: String,
    pub priority: i64,
    pub start: TimeStr,
    pub stop: Option<TimeStr>,
}

/// From `start` (until `stop`, if given) host `host` sends XOFF for `priority` to its
/// switch over and over, as a NIC whose receive buffer stays full does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PauseStorm {
    pub host: u32,
    pub priority: u8,
    pub start: SimTime,
    pub stop: Option<SimTime>,
}

/// The run's storms (`Plan::fabric.pause_storms`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PauseStormPlan {
    pub storms: Vec<PauseStorm>,
}

impl Keys for PauseStormKeys {
    type Out = PauseStormPlan;
    /// Names resolved against the topology (checked with the plan: `checks.rs`).
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<PauseStormPlan> {
        let mut storms = Vec::new();
        for (i, st) in self.pause_storms.iter().flatten().enumerate() {
            let p = format!("{path}.pause_storms[{i}]");
            let host = ctx.node(&st.host, None, &format!("{p}.host"))?;
            if !(0..8).contains(&st.priority) {
                return Err(Error::scenario(format!("{p}.priority"), format!("must be 0..7 (got {})", st.priority)));
            }
            let stop = st.stop.as_ref().map(|t| t.time(&format!("{p}.stop"))).transpose()?;
            storms.push(PauseStorm { host, priority: st.priority as u8, start: st.start.time(&format!("{p}.start"))?, stop });
        }
        Ok(PauseStormPlan { storms })
    }
}

/// Checked against the topology and PFC by `checks.rs` (`FabricModel::check_plan`).
impl Check for PauseStormPlan {
    fn check(&self, _: &str, _: &KeyCtx) -> Result<()> {
        Ok(())
    }
}
