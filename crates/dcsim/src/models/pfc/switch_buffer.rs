//! The switch buffer a run starts with: each switch port's headroom, its XOFF and XON
//! (static buffer) and its dynamic-threshold shift (shared buffer), from `[switch.buffer]`
//! and PFC's parameters (pfc.md 1.4-1.6). The accounting itself is `net/mmu.rs`'s.

use crate::error::{try_vec, Result};
use crate::models::pfc::headroom::headroom_charged;
use crate::net::mmu::{Mmu, Model, PortBuffer};
use crate::net::port::{Node, Port};
use crate::plan::{BufferPlan, Plan};
use crate::units::Rate;

/// The MMU of the fabric whose `nodes` and `ports` are built; `max_wire` is the largest
/// data frame on the wire.
pub fn mmu(plan: &Plan, nodes: &[Node], ports: &[Port], max_wire: u32, slots: crate::net::prio_slots::PrioSlots) -> Result<Mmu> {
    let pfc = &plan.fabric.pfc;
    let is_host = |p: &Port| nodes[p.node.idx()].is_host;
    let host_rate = ports.iter().filter(|p| is_host(p)).map(|p| p.rate()).min().unwrap_or(Rate(1));
    let mut switch_of = vec![u32::MAX; nodes.len()];
    let mut n_sw = 0u32;
    for (i, nd) in nodes.iter().enumerate() {
        if !nd.is_host {
            switch_of[i] = n_sw;
            n_sw += 1;
        }
    }
    let mut port_buf = try_vec(ports.len(), "ports")?;
    for p in ports {
        if is_host(p) {
            port_buf.push(None);
            continue;
        }
        let headroom = headroom_charged(&pfc.headroom, p.rate(), p.delay, max_wire, pfc.reaction_quanta, plan.switch.cell);
        let (xoff, xon) = match plan.switch.buffer {
            BufferPlan::Static { port_buffer } => pfc.static_thresholds(port_buffer, headroom),
            BufferPlan::Shared { .. } => (0, 0),
        };
        let shift = match plan.switch.buffer {
            BufferPlan::Shared { alpha_shift, .. } => {
                // alpha doubles for each factor of two the port is faster than the NICs.
                let mut s = alpha_shift as i32;
                let mut r = host_rate.0.max(1);
                while r * 2 <= p.rate().0 && s > 0 {
                    r *= 2;
                    s -= 1;
                }
                s as u8
            }
            BufferPlan::Static { .. } => 0,
        };
        port_buf.push(Some(PortBuffer { switch: switch_of[p.node.idx()], headroom, xoff, xon, shift }));
    }
    let (model, totals) = match plan.switch.buffer {
        BufferPlan::Static { port_buffer } => (Model::Static { port_buffer }, vec![0; n_sw as usize]),
        BufferPlan::Shared { total, reserve, .. } => (Model::Shared { reserve }, vec![total; n_sw as usize]),
    };
    Ok(Mmu::with_cells(model, pfc.resume_offset, &port_buf, &totals, pfc.classes(), plan.switch.cell.map_or(0, u64::from), slots))
}
