//! Scenario keys of `[host.rx_buffer]` and their checks against the resolved plan.

use serde::Deserialize;

use super::{RateChange, RxBufferPlan};
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx, RateStr, TimeStr};
use crate::models::pfc::headroom::headroom_bytes;
use crate::plan::{FlowControl, NodeKind, Plan};
use crate::units::{parse_rate, MAX_TIME};

const PATH: &str = "host.rx_buffer";
/// Default receive buffer: the order of a 100G RDMA NIC's per-port receive buffer.
pub const DEFAULT_SIZE: u64 = 256 * 1024;

impl Default for RxBufferPlan {
    /// Every host's NIC with a `DEFAULT_SIZE` buffer drained at its link rate, the
    /// thresholds from the link's PFC headroom.
    fn default() -> Self {
        RxBufferPlan { size: DEFAULT_SIZE, rate: None, xoff: None, xon: None, hosts: Vec::new(), changes: Vec::new() }
    }
}

crate::params! {
    /// `[host.rx_buffer]`: NIC receive buffers drained at a processing rate (slow receivers).
    pub struct RxBufferKeys => RxBufferPlan {
        build_more: resolve_names,
    }
    /// the receive buffer of each NIC; at least two frames, and (with PFC or PAUSE and the default `xoff`) the link's PFC headroom plus two frames; with `ib_credits` at least `switch.pfc.ib_buffer`
    size: kind::Size, ANY;
    /// processing rate (frame bytes per second the host drains)
    rate: kind::Opt<kind::Rate>, POSITIVE, shown "the host's link rate";
    /// the NIC sends XOFF when it holds this much; between one frame and `size`
    xoff: kind::Opt<kind::Size>, ANY, shown "`size` - the link's PFC headroom";
    /// the NIC sends XON when it has drained to this; below `xoff`
    xon: kind::Opt<kind::Size>, ANY, shown "`xoff` - `switch.pfc.resume_offset`";
    /// the NICs that have the buffer; each host must have one link, to a switch
    hosts: by_hand(Vec<String>, "list of host names", "every host", "");
    /// `[{host, at, rate}, ...]`: from `at` the NIC of `host` (one of `hosts`) processes at `rate`; `"0bps"` stops it draining
    rate_changes: by_hand(Vec<RateChangeKeys>, "list of tables", "none", "");
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateChangeKeys {
    pub host: String,
    pub at: TimeStr,
    /// The new processing rate; "0bps" stops the host draining its NIC.
    pub rate: RateStr,
}

/// The host names resolved against the topology (`ctx.nodes`); `check` does the rest.
fn resolve_names(k: &RxBufferKeys, p: &mut RxBufferPlan, path: &str, ctx: &KeyCtx) -> Result<()> {
    let host = |name: &str, path: String| ctx.node(name, Some(NodeKind::Host), &path);
    p.hosts = match &k.hosts {
        None => (0..ctx.nodes.len() as u32).filter(|&h| ctx.nodes[h as usize].kind == NodeKind::Host).collect(),
        Some(v) if v.is_empty() => return Err(Error::scenario(at(path, "hosts"), "is empty (leave it out for every host)")),
        Some(v) => v.iter().enumerate().map(|(i, n)| host(n, format!("{path}.hosts[{i}]"))).collect::<Result<Vec<_>>>()?,
    };
    for (i, c) in k.rate_changes.iter().flatten().enumerate() {
        let at = format!("{path}.rate_changes[{i}]");
        let h = host(&c.host, format!("{at}.host"))?;
        if !p.hosts.contains(&h) {
            return Err(Error::scenario(format!("{at}.host"), format!("'{}' has no receive buffer ({path}.hosts)", c.host)));
        }
        let rate = parse_rate(&c.rate.0).map_err(|e| Error::scenario(format!("{at}.rate"), e.0))?;
        p.changes.push(RateChange { host: h, at: c.at.time(&format!("{at}.at"))?, rate });
    }
    Ok(())
}

/// The (XOFF, XON) thresholds of the NIC on `link` (its one link to a switch), by the
/// rule of a switch port's (`PfcPlan::thresholds`) with the NIC's own headroom.
pub fn thresholds(rx: &RxBufferPlan, plan: &Plan, link: usize) -> (u64, u64) {
    plan.fabric.pfc.thresholds(rx.size, headroom(plan, link), rx.xoff, rx.xon)
}

/// What can still arrive after the NIC decides to pause (pfc.md 1.6, as for a switch port).
fn headroom(plan: &Plan, link: usize) -> u64 {
    let pfc = &plan.fabric.pfc;
    let l = &plan.links[link];
    headroom_bytes(&pfc.headroom, l.rate, l.delay, plan.max_wire(), pfc.reaction_quanta)
}

/// The host's one link, which must lead to a switch.
pub fn host_link(plan: &Plan, host: u32) -> Option<usize> {
    let mut it = plan.links.iter().enumerate().filter(|(_, l)| l.a == host || l.b == host);
    match (it.next(), it.next()) {
        (Some((k, l)), None) => {
            let other = if l.a == host { l.b } else { l.a };
            (plan.nodes[other as usize].kind == NodeKind::Switch).then_some(k)
        }
        _ => None,
    }
}

/// Checks `[host.rx_buffer]` against the resolved plan (topology, flow control).
pub fn check(plan: &Plan) -> Result<()> {
    let Some(rx) = &plan.fabric.rx else { return Ok(()) };
    let pfc = &plan.fabric.pfc;
    let max_wire = plan.max_wire() as u64;
    if rx.size < 2 * max_wire {
        return Err(Error::scenario(at(PATH, "size"), format!("{} B cannot hold two frames of {max_wire} B", rx.size)));
    }
    if pfc.mode == FlowControl::IbCredits && rx.size < pfc.ib_buffer {
        return Err(Error::scenario(
            at(PATH, "size"),
            format!("{} B is smaller than the credits the NIC advertises per VL (switch.pfc.ib_buffer = {} B)", rx.size, pfc.ib_buffer),
        ));
    }
    for (i, &h) in rx.hosts.iter().enumerate() {
        let name = &plan.nodes[h as usize].name;
        let Some(link) = host_link(plan, h) else {
            return Err(Error::scenario(format!("{PATH}.hosts[{i}]"), format!("'{name}' must have one link, to a switch")));
        };
        let (xoff, xon) = thresholds(rx, plan, link);
        if matches!(pfc.mode, FlowControl::Pfc | FlowControl::Pause) {
            let need = headroom(plan, link);
            if rx.xoff.is_none() && rx.size < need + 2 * max_wire {
                return Err(Error::scenario(
                    at(PATH, "size"),
                    format!(
                        "{} B is too small: {name}'s {} link needs {need} B of PFC headroom above XOFF \
                         (size at least {} B, or set xoff)",
                        rx.size,
                        plan.links[link].rate,
                        need + 2 * max_wire
                    ),
                ));
            }
        }
        if xoff > rx.size || xoff < max_wire {
            return Err(Error::scenario(
                at(PATH, "xoff"),
                format!("{xoff} B must be between one frame ({max_wire} B) and size ({} B)", rx.size),
            ));
        }
        if xon >= xoff {
            return Err(Error::scenario(at(PATH, "xon"), format!("{xon} B must be below xoff ({xoff} B)")));
        }
    }
    for (i, c) in rx.changes.iter().enumerate() {
        if c.at > MAX_TIME {
            return Err(Error::scenario(format!("{PATH}.rate_changes[{i}].at"), format!("must be at most {MAX_TIME}")));
        }
    }
    Ok(())
}
