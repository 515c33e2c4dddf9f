//! `[fabric.trimming]`: the keys, their defaults and their checks; `check` holds the
//! checks against the rest of the plan (PFC, the MTU).

use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx};
use crate::plan::Plan;

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TrimmingParams {
    pub enabled: bool,
    /// Checked to be a priority (0..=7).
    pub header_priority: u32,
    pub header_bytes: u64,
    pub threshold: Option<u64>,
    /// `None`: every lossy priority.
    pub priorities: Option<Vec<i64>>,
}

impl Default for TrimmingParams {
    /// Headers of 64 B, as NDP's and htsim's, at the highest priority (first under the
    /// default strict scheduler); trimming where a frame would be dropped.
    fn default() -> Self {
        TrimmingParams { enabled: true, header_priority: 7, header_bytes: 64, threshold: None, priorities: None }
    }
}

crate::params! {
    /// `[fabric.trimming]`.
    pub struct TrimmingKeys => TrimmingParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// the table turns trimming on; `false` leaves it off
    enabled: kind::Bool, ANY;
    /// the priority trimmed headers are queued at (7: first under the default strict scheduler), 0..=7
    header_priority: kind::Count, ANY;
    /// a trimmed header's frame size; at most `host.mtu`
    header => header_bytes: kind::Size, POSITIVE;
    /// also trim a frame that would take its egress queue above this (below `switch.egress_limit`); none: trim only where a frame would be dropped
    threshold: kind::Opt<kind::Size>, POSITIVE, shown "none";
    /// the priorities whose RoCE data frames are trimmed; a lossless priority (`switch.pfc`) is an error
    priorities: by_hand(Vec<i64>, "list of int", "every lossy priority", "0..=7 each");
}

fn build_more(k: &TrimmingKeys, p: &mut TrimmingParams, _: &str, _: &KeyCtx) -> Result<()> {
    p.priorities = k.priorities.clone();
    Ok(())
}

fn check_more(p: &TrimmingParams, path: &str, _: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    if !(0..=7).contains(&p.header_priority) {
        return Err(Error::scenario(k("header_priority"), format!("no such priority: must be in 0..=7 (got {})", p.header_priority)));
    }
    if let Some(ps) = &p.priorities {
        if let Some(x) = ps.iter().find(|x| !(0..=7).contains(*x)) {
            return Err(Error::scenario(k("priorities"), format!("no such priority: must be in 0..=7 (got {x})")));
        }
    }
    Ok(())
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
    let how = p.lossless_key();
    if let Some(ps) = &t.priorities {
        if let Some(q) = ps.iter().find(|&&q| p.is_lossless(q as u8)) {
            return Err(Error::scenario(
                format!("{P}.priorities"),
                format!("priority {q} is lossless ({how}): its queues pause the sender and never drop, so there is nothing to trim"),
            ));
        }
    } else if t.mask(|q| p.is_lossless(q)) == 0 {
        return Err(Error::scenario(
            format!("{P}.priorities"),
            format!("every priority is lossless ({how}): there is nothing to trim; turn flow control off or give lossy priorities"),
        ));
    }
    Ok(())
}
