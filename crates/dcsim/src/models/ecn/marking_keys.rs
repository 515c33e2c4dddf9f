//! The keys of `[switch]` that are ECN marking's and congestion detection's: `[switch.ecn]`,
//! `[switch.congestion]` and `[[switch.congestion_override]]`, and what they resolve
//! into (`Plan::fabric.marking`).

use serde::Deserialize;

use super::keys::EcnKeys;
use super::params::{Detection, EcnPlan};
use crate::error::{Error, Result};
use crate::keys::{at, Check, KeyCtx, Keys, SizeStr, TimeStr};
use crate::plan::NodeKind;
use crate::units::SimTime;

/// The keys of `[switch]` that are marking's.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkingKeys {
    /// `[switch.ecn]`: ECN marking at egress queues.
    #[serde(default)]
    pub ecn: EcnKeys,
    /// `[switch.congestion]`: the rule that decides which queues mark.
    #[serde(default)]
    pub congestion: CongestionSpec,
    /// `[[switch.congestion_override]]`: another rule for the switches listed in `nodes`.
    pub congestion_override: Option<Vec<CongestionSpec>>,
}

/// `[switch.congestion]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CongestionSpec {
    /// Only in `[[switch.congestion_override]]`: the switches this entry applies to.
    pub nodes: Option<Vec<String>>,
    /// ecn | rcm_1a | rcm_1b (default ecn).
    pub detection: Option<DetectionSpec>,
    /// ecn only: skip queues whose port is paused by PFC (default false).
    pub root_only: Option<bool>,
    /// rcm_1a / rcm_1b (required for them): queue bytes above which a queue is congested.
    pub threshold: Option<SizeStr>,
    /// rcm_1a only: mark at victims too (default false).
    pub mark_victims: Option<bool>,
    /// rcm_1b only: arrival window (> 0, default "10us").
    pub window: Option<TimeStr>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum DetectionSpec {
    #[serde(rename = "ecn")]
    Ecn,
    #[serde(rename = "rcm_1a")]
    Rcm1a,
    #[serde(rename = "rcm_1b")]
    Rcm1b,
}

/// Marking's parameters (`Plan::fabric.marking`).
#[derive(Clone, Debug, PartialEq)]
pub struct MarkingPlan {
    pub ecn: EcnPlan,
    /// Which rule decides that an egress queue is congested and marks its packets.
    pub detection: Detection,
    /// Switches (node indices) that use another rule than `detection`.
    pub detection_overrides: Vec<(u32, Detection)>,
}

impl Default for MarkingPlan {
    fn default() -> Self {
        MarkingPlan { ecn: EcnPlan::default(), detection: Detection::Ecn { root_only: false }, detection_overrides: Vec::new() }
    }
}

impl Keys for MarkingKeys {
    type Out = MarkingPlan;
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<MarkingPlan> {
        let ecn = self.ecn.build(&at(path, "ecn"), ctx)?;
        let p = at(path, "congestion");
        if self.congestion.nodes.is_some() {
            return Err(Error::scenario(at(&p, "nodes"), format!("only in [[{path}.congestion_override]]")));
        }
        let detection = detection(&self.congestion, &p)?;
        Ok(MarkingPlan { ecn, detection, detection_overrides: overrides(self, path, ctx)? })
    }
}

impl Check for MarkingPlan {
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()> {
        self.ecn.check(&at(path, "ecn"), ctx)?;
        if let Detection::Rcm1b { window: SimTime::ZERO, .. } = self.detection {
            return Err(Error::scenario(at(path, "congestion.window"), "must be > 0"));
        }
        Ok(())
    }
}

/// `[[switch.congestion_override]]` entries resolved to (switch index, rule).
fn overrides(k: &MarkingKeys, path: &str, ctx: &KeyCtx) -> Result<Vec<(u32, Detection)>> {
    let mut out = Vec::new();
    let list = at(path, "congestion_override");
    // A port's rule is a 16-bit index (`marking.rs`, `PortMark`).
    if k.congestion_override.iter().flatten().count() >= u16::MAX as usize {
        return Err(Error::scenario(list, format!("at most {} rules", u16::MAX - 1)));
    }
    for (i, o) in k.congestion_override.iter().flatten().enumerate() {
        let p = format!("{list}[{i}]");
        let Some(nodes) = &o.nodes else {
            return Err(Error::scenario(format!("{p}.nodes"), "missing: list the switches this rule applies to"));
        };
        let d = detection(o, &p)?;
        for (j, name) in nodes.iter().enumerate() {
            let at = format!("{p}.nodes[{j}]");
            let k = ctx.node(name, None, &at).ok().filter(|&k| ctx.nodes[k as usize].kind == NodeKind::Switch);
            let k = k.ok_or_else(|| Error::scenario(at, format!("no switch named '{name}'")))?;
            out.push((k, d.clone()));
        }
    }
    Ok(out)
}

/// A detection rule, its keys checked against its kind.
fn detection(s: &CongestionSpec, path: &str) -> Result<Detection> {
    let kind = s.detection.unwrap_or(DetectionSpec::Ecn);
    if kind != DetectionSpec::Ecn {
        only_for(&s.root_only, path, "root_only", "detection = \"ecn\"")?;
    }
    if kind == DetectionSpec::Ecn {
        only_for(&s.threshold, path, "threshold", "detection = \"rcm_1a\" or \"rcm_1b\"")?;
    }
    if kind != DetectionSpec::Rcm1a {
        only_for(&s.mark_victims, path, "mark_victims", "detection = \"rcm_1a\"")?;
    }
    if kind != DetectionSpec::Rcm1b {
        only_for(&s.window, path, "window", "detection = \"rcm_1b\"")?;
    }
    let threshold = |name: &str| -> Result<u64> {
        match &s.threshold {
            Some(v) => v.bytes(&format!("{path}.threshold")),
            None => Err(Error::scenario(format!("{path}.threshold"), format!("missing; detection = \"{name}\" needs a threshold"))),
        }
    };
    Ok(match kind {
        DetectionSpec::Ecn => Detection::Ecn { root_only: s.root_only.unwrap_or(false) },
        DetectionSpec::Rcm1a => Detection::Rcm1a { threshold: threshold("rcm_1a")?, mark_victims: s.mark_victims.unwrap_or(false) },
        DetectionSpec::Rcm1b => {
            let window = match &s.window {
                Some(v) => v.time(&format!("{path}.window"))?,
                None => SimTime::us(10),
            };
            Detection::Rcm1b { threshold: threshold("rcm_1b")?, window }
        }
    })
}

/// Errors if a key of another rule was given.
fn only_for<T>(v: &Option<T>, path: &str, key: &str, owner: &str) -> Result<()> {
    match v {
        Some(_) => Err(Error::scenario(format!("{path}.{key}"), format!("only for {owner}"))),
        None => Ok(()),
    }
}
