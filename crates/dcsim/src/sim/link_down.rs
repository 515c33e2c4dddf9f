//! What the world does when a model takes a link down (link failures,
//! `models/link_failure`): a failed port's pauses end and its queues are emptied (buffer
//! released, pause frames sent as that frees space), and frames the models find lost
//! are dropped against their flows.

use super::Simulation;
use crate::ids::{PktId, PortId};
use crate::net::packet::PktKind;

impl Simulation {
    /// Port `p`'s link fails (`After::PortDown`): its pauses are forgotten (the link's
    /// flow-control state is gone), its control frames (the models') and its queued
    /// data frames are dropped.
    pub(super) fn port_down(&mut self, p: PortId) {
        self.fx.ports[p.idx()].down = true;
        for prio in 0..8u8 {
            let port = &mut self.fx.ports[p.idx()];
            port.pause_gen[prio as usize] = port.pause_gen[prio as usize].wrapping_add(1);
            self.unpause(p, prio);
        }
        self.models.port_down(&mut self.fx, p);
        for prio in self.fx.slots.prios() {
            while self.fx.egress.queue(p, prio).pkts > 0 {
                let item = self.dequeue_egress(p, prio);
                self.release_ingress(self.ingress_of(p, &item), prio, item.frame as u64);
                self.lose_data(item.id, true);
            }
        }
    }

    /// A frame routed to a port it cannot leave by (`FabricModels::unusable`) is
    /// dropped: the models count it, a data frame is lost against its flow.
    #[cold]
    pub(crate) fn drop_at_unusable(&mut self, out: PortId, id: PktId) {
        if self.models.drop_unusable(&mut self.fx, out, id) {
            self.lose_data(id, false);
        }
    }

    /// A down port's transmitter: what waits in its control queue is dropped.
    #[cold]
    pub(crate) fn flush_down_port(&mut self, p: PortId) {
        self.models.port_down(&mut self.fx, p);
    }

    /// Whether the frame `id` arriving at port `p` was lost on the wire of a failed link;
    /// if so it is dropped (a data frame through the models' `data_lost`: IB credits count
    /// its blocks as returned).
    #[inline]
    pub(crate) fn lost_on_wire(&mut self, p: PortId, id: PktId) -> bool {
        if !self.models.lost_on_wire(&self.fx, p, id) {
            return false;
        }
        if self.fx.pool.get(id).kind == PktKind::Data {
            if self.setup.port_hooks.data_lost {
                let k = *self.fx.pool.get(id);
                self.data_lost(p, k.prio, k.frame as u64 + self.fx.preamble as u64);
            }
            self.lose_data(id, false);
        } else {
            self.fx.pool.free(id);
        }
        true
    }

    /// A frame of a data queue lost to a down link (`queued`: it waited at the port): a
    /// data frame is counted against its flow (an ACK queued with data,
    /// `host.ack_queue = "data"`, is not), and the models told.
    fn lose_data(&mut self, id: PktId, queued: bool) {
        let pkt = *self.fx.pool.get(id);
        let counted = self.count_drop(&pkt);
        self.models.lost_at_down(pkt.flow, counted, queued);
        self.fx.pool.free(id);
    }
}
