//! Credits in the world: a transmitter spends credits as it starts a data frame and blocks
//! the VL (its `paused` bit, so hosts park and switches skip it as under a pause) when it
//! holds less than one largest frame; the receiver counts blocks freed as data frames
//! leave its input buffer and sends an FCP from the control FIFO every `update` blocks.

use crate::sim::Simulation;
use crate::ids::{PktId, PortId};
use crate::net::packet::Packet;
use crate::models::ib_credits::{blocks, FCP_BYTES};

impl Simulation {
    /// A data frame of `wire` bytes and VL `vl` starts on port `p`: spend its credits.
    pub(crate) fn ib_on_send(&mut self, p: PortId, vl: u8, wire: u64) {
        let ci = p.idx() * 8 + vl as usize;
        self.ib.sent[ci] += blocks(wire);
        if self.ib.credits(ci) < self.ib.max_need {
            let now = self.now_t();
            let port = &mut self.ports[p.idx()];
            if port.paused & (1 << vl) == 0 {
                port.paused |= 1 << vl;
                port.paused_since[vl as usize] = now;
            }
        }
    }

    /// A data frame of `wire` bytes and VL `vl` left the input buffer of port `p`.
    pub(crate) fn ib_on_free(&mut self, p: PortId, vl: u8, wire: u64) {
        let ci = p.idx() * 8 + vl as usize;
        self.ib.granted[ci] += blocks(wire);
        if self.ib.granted[ci] - self.ib.reported[ci] >= self.ib.update {
            self.ib.reported[ci] = self.ib.granted[ci];
            let id = self.pool.alloc(Packet::fcp(vl, self.ib.granted[ci], FCP_BYTES));
            self.prio_stats[ci].pfc_xon_tx += 1;
            self.ports[p.idx()].ctrl.push(&mut self.pool, id);
            self.kick(p);
        }
    }

    /// An FCP reached port `p`: take its credit limit, unblock the VL if it now may send.
    pub(crate) fn on_fcp(&mut self, p: PortId, id: PktId) {
        let (vl, limit) = self.pool.get(id).fcp_of();
        self.pool.free(id);
        let ci = p.idx() * 8 + vl as usize;
        self.prio_stats[ci].pfc_xon_rx += 1;
        // Cumulative: an older FCP overtaken by a newer one changes nothing.
        self.ib.limit[ci] = self.ib.limit[ci].max(limit);
        if self.ib.credits(ci) >= self.ib.max_need && self.unpause(p, vl) {
            self.kick(p);
        }
    }
}
