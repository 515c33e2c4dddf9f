//! `[fabric.trimming]`: the keys, their defaults and their checks; `check` holds the
//! checks against the rest of the plan (PFC, the MTU).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::keys::{at, Check, KeyCtx, Keys, SizeStr};
use crate::plan::{FlowControl, Plan};

/// `[fabric.trimming]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrimmingKeys {
    /// Default true (the table turns trimming on).
    pub enabled: Option<bool>,
    /// The priority trimmed headers are queued at (default 7, the highest: first under
    /// the default strict scheduler).
    pub header_priority: Option<i64>,
    /// A trimmed header's frame size (default 64 B, as NDP's and htsim's headers).
    pub header: Option<SizeStr>,
    /// Trim a frame that would take its egress queue above this many bytes (default:
    /// none; a frame is trimmed where it would be dropped: `switch.egress_limit` or the
    /// buffer's admission).
    pub threshold: Option<SizeStr>,
    /// The priorities whose data frames are trimmed (default: every lossy priority).
    pub priorities: Option<Vec<i64>>,
}

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TrimmingParams {
    pub enabled: bool,
    /// Checked to be a priority (0..=7).
    pub header_priority: i64,
    pub header_bytes: u64,
    pub threshold: Option<u64>,
    /// `None`: every lossy priority.
    pub priorities: Option<Vec<i64>>,
}

impl Keys for TrimmingKeys {
    type Out = TrimmingParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<TrimmingParams> {
        let k = |key: &str| at(path, key);
        Ok(TrimmingParams {
            enabled: self.enabled.unwrap_or(true),
            header_priority: self.header_priority.unwrap_or(7),
            header_bytes: self.header.as_ref().map(|v| v.bytes(&k("header"))).transpose()?.unwrap_or(64),
            threshold: self.threshold.as_ref().map(|v| v.bytes(&k("threshold"))).transpose()?,
            priorities: self.priorities.clone(),
        })
    }
}

impl Check for TrimmingParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        if !(0..=7).contains(&self.header_priority) {
            return Err(Error::scenario(
                k("header_priority"),
                format!("no such priority: must be in 0..=7 (got {})", self.header_priority),
            ));
        }
        if self.header_bytes == 0 {
            return Err(Error::scenario(k("header"), "must be > 0"));
        }
        if self.threshold == Some(0) {
            return Err(Error::scenario(k("threshold"), "must be > 0"));
        }
        if let Some(ps) = &self.priorities {
            if let Some(p) = ps.iter().find(|p| !(0..=7).contains(*p)) {
                return Err(Error::scenario(k("priorities"), format!("no such priority: must be in 0..=7 (got {p})")));
            }
        }
        Ok(())
    }
}

impl TrimmingParams {
    /// The priorities that trim, one bit each, with PFC's lossless set `lossless`.
    pub fn mask(&self, lossless: impl Fn(u8) -> bool) -> u8 {
        match &self.priorities {
            Some(ps) => ps.iter().fold(0, |m, &p| m | 1 << p),
            None => (0..8u8).filter(|&p| !lossless(p)).fold(0, |m, p| m | 1 << p),
        }
    }
}

/// `[fabric.trimming]` against the rest of the plan: a header fits in the MTU, and no
/// trimming priority is lossless (a lossless queue pauses its sender instead of
/// dropping, so it never has a frame to trim).
pub fn check(p: &Plan) -> Result<()> {
    const P: &str = "fabric.trimming";
    let Some(t) = p.fabric.trimming.as_ref().filter(|t| t.enabled) else { return Ok(()) };
    if t.header_bytes > p.host.mtu as u64 {
        return Err(Error::scenario(
            format!("{P}.header"),
            format!("must be at most the MTU (host.mtu = {} B; got {} B)", p.host.mtu, t.header_bytes),
        ));
    }
    let pfc = &p.switch.pfc;
    let how = if pfc.mode == FlowControl::Pfc { "switch.pfc.lossless" } else { "switch.pfc.mode" };
    if let Some(ps) = &t.priorities {
        if let Some(q) = ps.iter().find(|&&q| pfc.is_lossless(q as u8)) {
            return Err(Error::scenario(
                format!("{P}.priorities"),
                format!("priority {q} is lossless ({how}): its queues pause the sender and never drop, so there is nothing to trim"),
            ));
        }
    } else if t.mask(|q| pfc.is_lossless(q)) == 0 {
        return Err(Error::scenario(
            format!("{P}.priorities"),
            format!("every priority is lossless ({how}): there is nothing to trim; turn flow control off or give lossy priorities"),
        ));
    }
    Ok(())
}
