//! PFC's checks of a plan: `[switch.buffer]` and `[switch.pfc]` values, the thresholds
//! against the buffer and every switch port's headroom, injected pause storms; and the
//! warning about RoCE on a priority nothing protects.

use crate::error::{Error, Result};
use crate::models::pfc::headroom::headroom_charged;
use crate::plan::{BufferPlan, FlowControl, NodeKind, Plan, Transport};
use crate::units::MAX_TIME;

/// `[switch.buffer]`'s values (`[switch.pfc]`'s are checked by the list), then the
/// buffer against the headroom of every switch port.
pub(crate) fn check_plan(p: &Plan) -> Result<()> {
    super::buffer::check(&p.switch.buffer, "switch.buffer")?;
    super::keys::check(p)?;
    check_buffers(p)
}

/// The switch buffer against the headroom of every switch port (pfc.md 1.6, computed
/// from the port's link as the world computes it). Static buffer without an explicit
/// `xoff`: each lossless class's share of a port's buffer must hold the port's headroom
/// plus a frame (XOFF is placed one headroom below the share). Shared buffer: a switch's
/// reserves and headroom plus a frame must fit in the buffer. The first switch port (in
/// node order, then port order) that fails is named.
fn check_buffers(p: &Plan) -> Result<()> {
    let pfc = &p.fabric.pfc;
    let max_wire = p.max_wire();
    if pfc.mode == FlowControl::IbCredits {
        // Credits come in whole 64-byte blocks; a VL needs one largest frame's worth.
        let frame = (max_wire as u64).div_ceil(64) * 64;
        let buffer = pfc.ib_buffer / 64 * 64;
        if buffer < frame {
            return Err(Error::scenario(
                "switch.pfc.ib_buffer",
                format!("{} B of input buffer per VL is less than one largest frame ({frame} B in 64 B credits)", pfc.ib_buffer),
            ));
        }
        // The receiver must return credits before the sender can be left below a frame
        // with nothing in flight, or the VL would stop for good.
        if pfc.ib_update.div_ceil(64) * 64 > buffer - frame + 64 {
            return Err(Error::scenario(
                "switch.pfc.ib_update",
                format!(
                    "{} B exceeds the input buffer less one largest frame ({} B): credits would never be returned",
                    pfc.ib_update,
                    buffer - frame + 64
                ),
            ));
        }
    }
    let n_classes = pfc.classes();
    let links = p.node_links();
    let switches = || p.nodes.iter().zip(&links).filter(|(nd, _)| nd.kind == NodeKind::Switch);
    let headroom =
        |k: usize| headroom_charged(&pfc.headroom, p.links[k].rate, p.links[k].delay, max_wire, pfc.reaction_quanta, p.switch.cell);
    match p.switch.buffer {
        BufferPlan::Static { port_buffer } => {
            if pfc.xoff.is_some() || pfc.mode == FlowControl::None {
                return Ok(());
            }
            let share = port_buffer / n_classes;
            for (_, ls) in switches() {
                for &k in ls {
                    let headroom = headroom(k);
                    // XOFF, placed one headroom below the share, must leave room for a frame.
                    if pfc.static_thresholds(port_buffer, headroom).0 <= max_wire as u64 {
                        return Err(Error::scenario(
                            "switch.buffer.size",
                            format!(
                                "a static buffer of {port_buffer} B per port leaves {share} B per lossless class, \
                                 not enough for its headroom of {headroom} B plus one frame ({max_wire} B on a {} link)",
                                p.links[k].rate
                            ),
                        ));
                    }
                }
            }
        }
        BufferPlan::Shared { total, reserve, .. } => {
            for (nd, ls) in switches() {
                let fixed: u64 = ls.iter().map(|&k| reserve + headroom(k) * n_classes).sum();
                if fixed + max_wire as u64 >= total {
                    return Err(Error::scenario(
                        "switch.buffer.size",
                        format!("{total} B cannot hold the reserves and headroom of switch '{}' ({fixed} B) plus a frame", nd.name),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `host.pause_storms`: each names a host with one link to a switch, a priority that
/// the switch's flow control pauses, and `stop` (if given) after `start`.
pub(crate) fn check_pause_storms(p: &Plan) -> Result<()> {
    for (k, st) in p.fabric.pause_storms.storms.iter().enumerate() {
        let at = format!("host.pause_storms[{k}]");
        let node = p
            .nodes
            .get(st.host as usize)
            .ok_or_else(|| Error::scenario(format!("{at}.host"), format!("node index {} does not exist", st.host)))?;
        if node.kind != NodeKind::Host {
            return Err(Error::scenario(format!("{at}.host"), format!("'{}' is not a host", node.name)));
        }
        let links: Vec<_> = p.links.iter().filter(|l| l.a == st.host || l.b == st.host).collect();
        let to_switch = links.len() == 1 && {
            let other = if links[0].a == st.host { links[0].b } else { links[0].a };
            p.nodes[other as usize].kind == NodeKind::Switch
        };
        if !to_switch {
            return Err(Error::scenario(format!("{at}.host"), format!("'{}' must have one link, to a switch", node.name)));
        }
        match p.fabric.pfc.mode {
            FlowControl::None => return Err(Error::scenario(format!("{at}.host"), "switch.pfc.mode is off: switches ignore pause frames")),
            _ if !p.fabric.pfc.is_lossless(st.priority) => {
                return Err(Error::scenario(
                    format!("{at}.priority"),
                    format!("priority {} is not lossless (switch.pfc.lossless)", st.priority),
                ))
            }
            _ => {}
        }
        if st.start > MAX_TIME {
            return Err(Error::scenario(format!("{at}.start"), format!("must be at most {MAX_TIME}")));
        }
        if let Some(stop) = st.stop {
            if stop <= st.start {
                return Err(Error::scenario(format!("{at}.stop"), format!("must be after start ({stop} <= {})", st.start)));
            }
            if stop > MAX_TIME {
                return Err(Error::scenario(format!("{at}.stop"), format!("must be at most {MAX_TIME}")));
            }
        }
    }
    Ok(())
}

/// What a plan runs that it may not mean to: RoCE flows on a priority that nothing
/// protects, one line per traffic entry and priority (`traffic[2].priority: ...`). RoCE
/// recovers a drop by going back N packets, so such a run is valid but is no longer the
/// lossless fabric RoCE is designed for. TCP and UDP on a lossy priority are not
/// flagged: they are made for it (and TCP on a lossless one is an error without ECN).
pub(crate) fn warnings(p: &Plan, out: &mut Vec<String>) {
    let mut seen: Vec<(u32, u8)> = Vec::new();
    for f in p.flows.iter().filter(|f| f.transport == Transport::Roce && !p.fabric.pfc.is_lossless(f.priority)) {
        if seen.contains(&(f.group, f.priority)) {
            continue;
        }
        seen.push((f.group, f.priority));
        let pfc = &p.fabric.pfc;
        let why = if pfc.mode == FlowControl::None {
            "switch.pfc.mode = \"off\"".to_string()
        } else if pfc.lossless == 0 {
            "switch.pfc.lossless = []".to_string()
        } else {
            format!("switch.pfc.lossless protects {} only", crate::keys::kind::priority_list(pfc.lossless))
        };
        out.push(format!(
            "traffic[{}].priority: RoCE flows on priority {}, which is lossy ({why}): full buffers drop their frames and go-back-N resends them",
            f.group, f.priority
        ));
    }
}
