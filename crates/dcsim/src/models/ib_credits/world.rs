//! Credits in the world: a transmitter spends credits as it starts a data frame and blocks
//! the VL (its `paused` bit, so hosts park and switches skip it as under a pause) when it
//! holds less than one largest frame; the receiver counts blocks freed as data frames
//! leave its input buffer and sends an FCP from the control FIFO every `update` blocks.

use crate::ids::{PktId, PortId};
use crate::models::ib_credits::{blocks, IbCredits, FCP_BYTES};
use crate::net::fabric::Fabric;
use crate::net::packet::Packet;

impl IbCredits {
    /// A data frame of `wire` bytes and VL `vl` starts on port `p`: spend its credits.
    pub fn on_send(&mut self, fx: &mut Fabric, p: PortId, vl: u8, wire: u64) {
        let ci = p.idx() * 8 + vl as usize;
        self.sent[ci] += blocks(wire);
        if self.credits(ci) < self.max_need {
            let now = fx.now();
            let port = &mut fx.ports[p.idx()];
            if port.paused & (1 << vl) == 0 {
                port.paused |= 1 << vl;
                port.paused_since[vl as usize] = now;
            }
        }
    }

    /// A data frame of `wire` bytes and VL `vl` left the input buffer of port `p`.
    pub fn on_free(&mut self, fx: &mut Fabric, p: PortId, vl: u8, wire: u64) {
        let ci = p.idx() * 8 + vl as usize;
        self.granted[ci] += blocks(wire);
        if self.granted[ci] - self.reported[ci] >= self.update {
            self.send_fcp(fx, p, vl);
        }
    }

    /// Port `p` sends an FCP with its cumulative limit for `vl`.
    fn send_fcp(&mut self, fx: &mut Fabric, p: PortId, vl: u8) {
        let ci = p.idx() * 8 + vl as usize;
        self.reported[ci] = self.granted[ci];
        let id = fx.pool.alloc(Packet::fcp(vl, self.granted[ci], FCP_BYTES));
        fx.prio_stats[fx.slots.at(p.idx(), vl)].pfc_xon_tx += 1;
        let pool = &mut fx.pool;
        fx.ports[p.idx()].ctrl.push(pool, id);
        fx.kick(p);
    }

    /// A data frame for port `p`'s input buffer was lost on the wire: its blocks count as
    /// returned, as IBA's receiver does when the transmitter's block count (FCTBS) shows
    /// blocks that never arrived. The sender learns it from the next FCP (with a dead
    /// link, from the periodic ones after it is back up).
    pub fn on_lost(&mut self, p: PortId, vl: u8, wire: u64) {
        self.granted[p.idx() * 8 + vl as usize] += blocks(wire);
    }

    /// The periodic FCP of port `p` for VL `vl`: its cumulative limit again, which repairs
    /// an FCP lost on the wire (a link failure). Sent for every port and VL in use, each
    /// FCP's transmitter kicked before the next is built (`IB_TICK`).
    pub fn on_tick(&mut self, fx: &mut Fabric, p: PortId, vl: u8) {
        self.send_fcp(fx, p, vl);
    }

    /// An FCP reached port `p`: take its credit limit, unblock the VL if it now may send.
    pub fn on_fcp(&mut self, fx: &mut Fabric, p: PortId, id: PktId) {
        let (vl, limit) = fx.pool.get(id).fcp_of();
        fx.pool.free(id);
        let ci = p.idx() * 8 + vl as usize;
        fx.prio_stats[fx.slots.at(p.idx(), vl)].pfc_xon_rx += 1;
        // Cumulative: an older FCP overtaken by a newer one changes nothing.
        self.limit[ci] = self.limit[ci].max(limit);
        if self.credits(ci) >= self.max_need && fx.unpause(p, vl) {
            fx.kick(p);
        }
    }
}
