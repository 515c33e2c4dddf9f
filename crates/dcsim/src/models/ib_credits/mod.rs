//! InfiniBand credit-based link-level flow control (infiniband.md 2.1): per (link
//! direction, VL = priority) credits in 64-byte blocks. A transmitter sends a data frame
//! only while it holds credits for it; the receiver returns credits in flow-control
//! packets (FCPs) carrying the cumulative credit limit, so a late FCP is repaired by the
//! next one. `world.rs` wires it into the run.

pub mod world;

use crate::event::owners::Subject;
use crate::event::ModelEvent;
use crate::models::fabric_model::{model_event, EventCtx, FlowInfo};
use crate::net::fabric::Fabric;

/// The credit unit (IBA "block").
pub const BLOCK_BYTES: u64 = 64;
/// Size of a flow-control packet on the wire model (a minimum frame).
pub const FCP_BYTES: u32 = 64;

/// Blocks a frame of `wire` bytes needs.
#[inline(always)]
pub fn blocks(wire: u64) -> u64 {
    wire.div_ceil(BLOCK_BYTES)
}

/// Credit state of every (port, VL), indexed `port * 8 + vl`.
#[derive(Debug, Default)]
pub struct IbCredits {
    pub on: bool,
    /// Blocks of the largest data frame: a VL with fewer credits is blocked.
    pub max_need: u64,
    /// Freed blocks that trigger an FCP.
    pub update: u64,
    /// Period of the FCPs every port sends per VL in use, if any (IBA: at least every
    /// 65,536 symbol times, so that a lost FCP is repaired).
    pub period: Option<crate::units::SimTime>,
    /// Transmitter: blocks sent so far (FCTBS).
    pub sent: Vec<u64>,
    /// Transmitter: cumulative credit limit last received (FCCL).
    pub limit: Vec<u64>,
    /// Receiver: initial credits plus blocks freed from the input buffer so far.
    pub granted: Vec<u64>,
    /// Receiver: `granted` carried by the last FCP sent.
    pub reported: Vec<u64>,
}

impl IbCredits {
    /// `buffer`: the receiver's input buffer per VL (bytes); `update`: bytes freed that
    /// make the receiver send an FCP; `max_wire`: largest data frame on the wire.
    pub fn new(on: bool, n_ports: usize, buffer: u64, update: u64, max_wire: u64) -> Self {
        if !on {
            return IbCredits::default();
        }
        let init = buffer / BLOCK_BYTES;
        IbCredits {
            on,
            max_need: blocks(max_wire),
            update: blocks(update).max(1),
            period: None,
            sent: vec![0; n_ports * 8],
            limit: vec![init; n_ports * 8],
            granted: vec![init; n_ports * 8],
            reported: vec![init; n_ports * 8],
        }
    }

    /// Credits the transmitter of `ci` holds.
    #[inline]
    pub fn credits(&self, ci: usize) -> u64 {
        self.limit[ci].saturating_sub(self.sent[ci])
    }
}

/// No table or summary of its own; nothing to merge.
impl crate::models::fabric_model::FabricModel for IbCredits {
    /// The periodic FCPs are one event for every port.
    fn new(ctx: &mut crate::models::fabric_model::BuildCtx) -> Self {
        let pfc = &ctx.plan.fabric.pfc;
        let on = pfc.mode == crate::plan::FlowControl::IbCredits;
        let mut ib = IbCredits::new(on, ctx.ports.len(), pfc.ib_buffer, pfc.ib_update, ctx.max_wire as u64);
        ib.period = pfc.ib_period.filter(|_| ib.on);
        if let Some(t) = ib.period.filter(|&t| t <= ctx.plan.duration) {
            ctx.q.schedule(t, model_event::<Self>(IB_TICK, 0, 0, 0));
        }
        ib
    }

    const EVENTS: &'static [(u8, Subject)] = &[(IB_TICK, Subject::None)];

    fn owns_frame(kind: crate::net::packet::PktKind) -> bool {
        kind == crate::net::packet::PktKind::IbFcp
    }

    fn on_frame(&mut self, fx: &mut Fabric, p: crate::ids::PortId, id: crate::ids::PktId, _held: u8) {
        self.on_fcp(fx, p, id);
    }

    /// The periodic FCPs: every port, every VL in use, in order, each FCP's transmitter
    /// kicked before the next is built (the event's `a`: the next (port, VL), flat).
    fn on_event<F: Fn(crate::ids::FlowId) -> FlowInfo>(&mut self, fx: &mut Fabric, ev: ModelEvent, cx: &EventCtx<F>) -> Option<ModelEvent> {
        let n = fx.ports.len() * 8;
        let mut i = ev.a() as usize;
        while i < n && cx.used_prios & (1 << (i % 8)) == 0 {
            i += 1;
        }
        if i < n {
            self.on_tick(fx, crate::ids::PortId((i / 8) as u32), (i % 8) as u8);
            return Some(ModelEvent::new(ev.model, ev.kind, 0, i as u32 + 1, 0));
        }
        let next = fx.now() + self.period.expect("scheduled only with a period");
        if next <= cx.end {
            fx.q.schedule(next, model_event::<Self>(IB_TICK, 0, 0, 0));
        }
        None
    }

    fn not_node_local(plan: &crate::plan::Plan) -> Option<&'static str> {
        (plan.fabric.pfc.mode == crate::plan::FlowControl::IbCredits).then_some("switch.pfc.mode = \"ib_credits\"")
    }

    fn wants_data_started(&self) -> bool {
        self.on
    }

    /// The transmitter spends the frame's credits.
    fn data_started(&mut self, fx: &mut Fabric, p: crate::ids::PortId, vl: u8, wire: u64) {
        self.on_send(fx, p, vl, wire);
    }

    fn wants_input_freed(&self) -> bool {
        self.on
    }

    /// The receiver grants the frame's blocks back.
    fn input_freed(&mut self, fx: &mut Fabric, p: crate::ids::PortId, vl: u8, wire: u64) {
        self.on_free(fx, p, vl, wire);
    }

    fn wants_data_lost(&self) -> bool {
        self.on
    }

    fn data_lost(&mut self, _fx: &mut Fabric, p: crate::ids::PortId, vl: u8, wire: u64) {
        self.on_lost(p, vl, wire);
    }

    /// Credits need no XOFF: a sender cannot overrun the input buffer.
    fn replaces_xoff(&self) -> bool {
        self.on
    }
}

/// The event of the periodic FCPs (its tie-key number).
const IB_TICK: u8 = 18;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_up() {
        assert_eq!(blocks(64), 1);
        assert_eq!(blocks(65), 2);
        assert_eq!(blocks(2048 + 58 + 20), 34);
    }

    #[test]
    fn initial_credits_are_the_buffer() {
        let c = IbCredits::new(true, 2, 65536, 4096, 2126);
        assert_eq!(c.credits(3), 1024);
        assert_eq!(c.max_need, 34);
        assert_eq!(c.update, 64);
        assert!(!IbCredits::new(false, 2, 65536, 4096, 2126).on);
    }
}
