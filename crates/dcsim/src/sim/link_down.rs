//! What the world does for link failures (`models/link_failure`): a failed port's
//! pauses end and its queues are emptied (buffer released, PFC frames sent as that
//! frees space), and frames the model finds lost are dropped against their flows.

use super::Simulation;
use crate::ids::{PktId, PortId};
use crate::models::link_failure::LinkFaults;
use crate::net::packet::PktKind;

impl Simulation {
    /// Step `k` of the link failures is due.
    pub(crate) fn on_link_step(&mut self, k: u32) {
        let mark = self.fx.after.len();
        let down = self.models.link_faults.on_step(&mut self.fx, k);
        self.run_after(mark);
        for p in down.into_iter().flatten() {
            self.port_down(p);
        }
    }

    /// Port `p`'s link fails: its pauses are forgotten (the link's PFC state is gone),
    /// its control frames and queued data frames are dropped.
    fn port_down(&mut self, p: PortId) {
        self.fx.ports[p.idx()].down = true;
        for prio in 0..8u8 {
            let port = &mut self.fx.ports[p.idx()];
            port.pause_gen[prio as usize] = port.pause_gen[prio as usize].wrapping_add(1);
            self.unpause(p, prio);
        }
        self.models.link_faults.flush_control(&mut self.fx, p);
        for prio in 0..8u8 {
            while self.fx.egress.queue(p, prio).pkts > 0 {
                let item = self.dequeue_egress(p, prio);
                self.release_ingress(self.ingress_of(p, &item), prio, item.frame as u64);
                self.models.link_faults.dropped_at_down_port += 1;
                self.lose_data(item.id);
            }
        }
    }

    /// Whether a frame must not be sent out of `out`: its link is down or there is no route.
    #[inline]
    pub(crate) fn link_unusable(&self, out: PortId) -> bool {
        LinkFaults::unusable(&self.fx, out)
    }

    /// A frame routed to an unusable port (`link_unusable`) is dropped.
    #[cold]
    pub(crate) fn drop_at_unusable(&mut self, out: PortId, id: PktId) {
        if self.models.link_faults.drop_at_unusable(&mut self.fx, out, id) {
            self.lose_data(id);
        }
    }

    #[cold]
    pub(crate) fn flush_down_port(&mut self, p: PortId) {
        self.models.link_faults.flush_control(&mut self.fx, p);
    }

    /// Whether the frame `id` arriving at port `p` was lost on the wire of a failed link;
    /// if so it is dropped (a data frame through the models' `data_lost`: IB credits count
    /// its blocks as returned).
    #[inline]
    pub(crate) fn lost_on_wire(&mut self, p: PortId, id: PktId) -> bool {
        if !self.models.link_faults.lost_on_wire(&self.fx, p, id) {
            return false;
        }
        if self.fx.pool.get(id).kind == PktKind::Data {
            if self.setup.port_hooks.data_lost {
                let k = *self.fx.pool.get(id);
                self.data_lost(p, k.prio, k.frame as u64 + self.fx.preamble as u64);
            }
            self.lose_data(id);
        } else {
            self.fx.pool.free(id);
        }
        true
    }

    /// A frame of a data queue lost to a link failure: a data frame is counted against
    /// its flow (an ACK queued with data, `host.ack_queue = "data"`, is not).
    fn lose_data(&mut self, id: PktId) {
        let pkt = *self.fx.pool.get(id);
        if self.count_drop(&pkt) {
            self.models.link_faults.lost(pkt.flow);
        }
        self.fx.pool.free(id);
    }
}
