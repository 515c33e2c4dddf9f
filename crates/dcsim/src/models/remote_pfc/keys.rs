//! Scenario keys of remote PFC, `[switch.remote_pfc]`: the checks of the values alone,
//! and against the rest of the plan (`check_plan`).

use super::params::RemotePfcPlan;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx, SizeStr};
use crate::plan::{EcnMode, NodeKind, Plan};

crate::params! {
    /// `[switch.remote_pfc]`
    pub struct RemotePfcKeys => RemotePfcPlan {
        build_more: build_more,
        check_more: check_more,
    }
    /// off unless asked for; a run without it has no `remote_pfc` table and unchanged outputs
    enabled: kind::Bool, ANY;
    /// seed 001 ("remote PFC threshold = 2 * kmax"); must be >= the port's ECN Kmin
    threshold: kind::Opt<kind::Size>, POSITIVE, shown "2 x Kmax of the port's ECN marker (1.5 MB with Kmax 750 KB)";
    /// the pause drains the queue to where ECN stops marking (remote-pfc.md 8.4); below `threshold`
    target: kind::Opt<kind::Size>, ANY, shown "Kmin of the port's ECN marker";
    /// one base RTT of a small fabric: one message per source per RTT and queue
    min_gap: kind::Time, ANY;
    /// the shortest pause asked for, in quanta; at most `max_quanta`
    min_quanta: kind::Count, at_least(1.0);
    /// the longest pause asked for, in quanta: what a PFC frame can carry
    max_quanta: kind::Count, in_cc(1.0, 65535.0);
    /// a minimum Ethernet frame, as the 802.1Qau feedback frames
    message_size: by_hand(SizeStr, "size", "`\"64B\"`", "64..=1500 B");
}

fn build_more(k: &RemotePfcKeys, p: &mut RemotePfcPlan, path: &str, _: &KeyCtx) -> Result<()> {
    if let Some(v) = &k.message_size {
        let key = at(path, "message_size");
        p.message_bytes = u32::try_from(v.bytes(&key)?).map_err(|_| Error::scenario(&key, "must be at most 1500 B"))?;
    }
    Ok(())
}

fn check_more(p: &RemotePfcPlan, path: &str, _: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    if p.min_quanta > p.max_quanta {
        return Err(Error::scenario(k("min_quanta"), format!("must be in 1..=max_quanta ({}) (got {})", p.max_quanta, p.min_quanta)));
    }
    if !(64..=1500).contains(&p.message_bytes) {
        return Err(Error::scenario(k("message_size"), format!("must be in 64..=1500 B (got {} B)", p.message_bytes)));
    }
    if let (Some(t), Some(g)) = (p.threshold, p.target) {
        if g >= t {
            return Err(Error::scenario(k("target"), format!("must be below threshold ({g} B >= {t} B)")));
        }
    }
    Ok(())
}

/// `[switch.remote_pfc]` against the rest of the plan: its own values; flow control on
/// (the ToR answers with a timed PFC pause, so not `pause_mode = "infinite"`); a
/// threshold at or above every switch port's ECN Kmin (remote PFC is the backstop behind
/// ECN, not a replacement of it); a default threshold needs ECN; and every host that
/// sends on a lossless priority hangs off a switch (its ToR, which turns messages into
/// pauses).
pub(crate) fn check_plan(p: &Plan) -> Result<()> {
    const P: &str = "switch.remote_pfc";
    let rp = &p.fabric.rpfc;
    if !rp.enabled {
        return Ok(());
    }
    let pfc = &p.fabric.pfc;
    if !(0..8).any(|q| pfc.is_lossless(q)) {
        return Err(Error::scenario(
            format!("{P}.enabled"),
            "remote PFC pauses lossless priorities, but switch.pfc has none (mode = \"off\" or lossless = [])",
        ));
    }
    if pfc.pause_mode == crate::plan::PauseMode::Infinite {
        return Err(Error::scenario(
            format!("{P}.enabled"),
            "remote PFC sends timed pauses; switch.pfc.pause_mode = \"infinite\" ignores pause durations",
        ));
    }
    let ecn_on = p.fabric.marking.ecn.mode != EcnMode::Off;
    match rp.threshold {
        None if !ecn_on => {
            return Err(Error::scenario(
                format!("{P}.threshold"),
                "missing: its default is 2 x Kmax of the ECN marker, and switch.ecn.mode = \"off\"; give a size",
            ))
        }
        Some(t) if ecn_on => {
            let is_switch = |i: u32| p.nodes[i as usize].kind == NodeKind::Switch;
            for l in p.links.iter().filter(|l| is_switch(l.a) || is_switch(l.b)) {
                let kmin = crate::models::ecn::marker::thresholds_for(&p.fabric.marking.ecn, l.rate).kmin;
                if t < kmin {
                    return Err(Error::scenario(
                        format!("{P}.threshold"),
                        format!(
                            "{t} B is below the ECN Kmin ({kmin} B) of the {} switch ports: remote PFC would act before ECN marks",
                            l.rate
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
    if let Some(g) = rp.target {
        let is_switch = |i: u32| p.nodes[i as usize].kind == NodeKind::Switch;
        for l in p.links.iter().filter(|l| is_switch(l.a) || is_switch(l.b)) {
            let t = rp.threshold.unwrap_or(2 * crate::models::ecn::marker::thresholds_for(&p.fabric.marking.ecn, l.rate).kmax);
            if g >= t {
                return Err(Error::scenario(
                    format!("{P}.target"),
                    format!("must be below the threshold ({g} B >= {t} B on the {} switch ports)", l.rate),
                ));
            }
        }
    }
    let lossless = |prio: u8| pfc.is_lossless(prio);
    // A host's one link leads to its ToR (hosts have exactly one link).
    let mut peer = vec![u32::MAX; p.nodes.len()];
    for l in &p.links {
        peer[l.a as usize] = l.b;
        peer[l.b as usize] = l.a;
    }
    let mut seen = vec![false; p.nodes.len()];
    for f in p.flows.iter().filter(|f| lossless(f.priority)) {
        if std::mem::replace(&mut seen[f.src as usize], true) {
            continue;
        }
        let src = &p.nodes[f.src as usize].name;
        let why = match peer[f.src as usize] {
            u32::MAX => "the host has no link".to_string(),
            n if p.nodes[n as usize].kind == NodeKind::Switch => continue,
            n => format!("its link goes to host '{}', not to a switch", p.nodes[n as usize].name),
        };
        return Err(Error::scenario(P, format!("the ToR of host '{src}' (a source of traffic[{}]) cannot be found: {why}", f.group)));
    }
    Ok(())
}
