//! Credits in the world: a transmitter spends credits as it starts a data frame and blocks
//! the VL (its `paused` bit, so hosts park and switches skip it as under a pause) when it
//! holds less than one largest frame; the receiver counts blocks freed as data frames
//! leave its input buffer and sends an FCP from the control FIFO every `update` blocks.

use crate::event::Event;
use crate::ids::{PktId, PortId};
use crate::models::ib_credits::{blocks, FCP_BYTES};
use crate::net::packet::Packet;
use crate::sim::Simulation;

impl Simulation {
    /// A data frame of `wire` bytes and VL `vl` starts on port `p`: spend its credits.
    pub(crate) fn ib_on_send(&mut self, p: PortId, vl: u8, wire: u64) {
        let ci = p.idx() * 8 + vl as usize;
        self.ib.sent[ci] += blocks(wire);
        if self.ib.credits(ci) < self.ib.max_need {
            let now = self.now_t();
            let port = &mut self.fx.ports[p.idx()];
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
            let id = self.fx.pool.alloc(Packet::fcp(vl, self.ib.granted[ci], FCP_BYTES));
            self.fx.prio_stats[ci].pfc_xon_tx += 1;
            self.fx.ports[p.idx()].ctrl.push(&mut self.fx.pool, id);
            self.kick(p);
        }
    }

    /// A switch dropped a frame that had come in through `p` (no route, a dead port, the
    /// PFC watchdog): its input-buffer space is free again, and its credits go back.
    #[inline]
    pub(crate) fn ib_on_dropped(&mut self, p: PortId, pkt: &Packet) {
        if self.ib.on && !pkt.is_control() {
            self.ib_on_free(p, pkt.prio, pkt.frame as u64 + self.fx.preamble as u64);
        }
    }

    /// A data frame for port `p`'s input buffer was lost on the wire: its blocks count as
    /// returned, as IBA's receiver does when the transmitter's block count (FCTBS) shows
    /// blocks that never arrived. The sender learns it from the next FCP (with a dead
    /// link, from the periodic ones after it is back up).
    pub(crate) fn ib_on_lost(&mut self, p: PortId, vl: u8, wire: u64) {
        self.ib.granted[p.idx() * 8 + vl as usize] += blocks(wire);
    }

    /// The periodic FCPs: every port re-sends its cumulative limit for each VL in use,
    /// which repairs an FCP lost on the wire (a link failure).
    pub(crate) fn on_ib_tick(&mut self) {
        let period = self.ib.period.expect("scheduled only with a period");
        for p in 0..self.fx.ports.len() {
            for vl in 0..8u8 {
                if self.used_prios & (1 << vl) == 0 {
                    continue;
                }
                let ci = p * 8 + vl as usize;
                self.ib.reported[ci] = self.ib.granted[ci];
                let id = self.fx.pool.alloc(Packet::fcp(vl, self.ib.granted[ci], FCP_BYTES));
                self.fx.prio_stats[ci].pfc_xon_tx += 1;
                self.fx.ports[p].ctrl.push(&mut self.fx.pool, id);
                self.kick(PortId(p as u32));
            }
        }
        let next = self.now_t() + period;
        if next <= self.end {
            self.fx.q.schedule(next, Event::IbTick);
        }
    }

    /// An FCP reached port `p`: take its credit limit, unblock the VL if it now may send.
    pub(crate) fn on_fcp(&mut self, p: PortId, id: PktId) {
        let (vl, limit) = self.fx.pool.get(id).fcp_of();
        self.fx.pool.free(id);
        let ci = p.idx() * 8 + vl as usize;
        self.fx.prio_stats[ci].pfc_xon_rx += 1;
        // Cumulative: an older FCP overtaken by a newer one changes nothing.
        self.ib.limit[ci] = self.ib.limit[ci].max(limit);
        if self.ib.credits(ci) >= self.ib.max_need && self.unpause(p, vl) {
            self.kick(p);
        }
    }
}
