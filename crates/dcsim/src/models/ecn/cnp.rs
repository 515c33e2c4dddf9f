//! The RoCEv2 notification point (receiving NIC): CE-marked packets are answered with
//! CNPs, at most one per queue pair per `cnp.interval` (a mark inside the window yields
//! one CNP at its end, dcqcn.md 4.3 variant A) and at most one per `cnp.nic_gap` from the
//! NIC. The CNP is a real frame to the sender; its reaction point is the flow's `Cc`.
//! With `cnp.delay` (models/nic_timing) it reaches the NIC's send queue that much later.

use crate::event::Event;
use crate::ids::{FlowId, PortId};
use crate::net::packet::Packet;
use crate::sim::Simulation;
use crate::units::SimTime;

impl Simulation {
    /// The receiver of flow `f` got a CE-marked data packet.
    pub(crate) fn on_marked(&mut self, f: FlowId) {
        let now = self.now_t();
        let iv = self.host.cnp.interval;
        self.flow_stats[f.idx()].marked_rx += 1;
        let flow = &mut self.receivers[f.idx()];
        if iv.0 == 0 || flow.last_cnp.is_none_or(|t| now - t >= iv) {
            self.send_cnp(f);
        } else {
            flow.marked_since_cnp += 1;
            let at = flow.last_cnp.unwrap() + iv;
            self.defer_cnp(f, at);
        }
    }

    fn defer_cnp(&mut self, f: FlowId, at: SimTime) {
        let flow = &mut self.receivers[f.idx()];
        if !flow.cnp_pending {
            flow.cnp_pending = true;
            self.fx.q.schedule(at, Event::CnpDeferred(f));
        }
    }

    pub(crate) fn on_cnp_deferred(&mut self, f: FlowId) {
        let now = self.now_t();
        let iv = self.host.cnp.interval;
        let flow = &mut self.receivers[f.idx()];
        flow.cnp_pending = false;
        if flow.marked_since_cnp == 0 {
            return;
        }
        match flow.last_cnp {
            Some(t) if now - t < iv => {
                let at = t + iv;
                self.defer_cnp(f, at);
            }
            _ => self.send_cnp(f),
        }
    }

    /// Sends a CNP for flow `f` from its receiver, unless the NIC's CNP rate limit holds
    /// it back (then it goes out as soon as the NIC may send one).
    fn send_cnp(&mut self, f: FlowId) {
        let now = self.now_t();
        let dst = self.flows[f.idx()].dst;
        let next = self.nic_next_cnp[dst.idx()];
        if now < next {
            self.receivers[f.idx()].marked_since_cnp += 1;
            self.defer_cnp(f, next);
            return;
        }
        self.nic_next_cnp[dst.idx()] = now + self.host.cnp.nic_gap;
        let flow = &mut self.receivers[f.idx()];
        flow.last_cnp = Some(now);
        flow.marked_since_cnp = 0;
        self.flow_stats[f.idx()].cnps_sent += 1;
        let delay = self.host.timing.cnp_delay;
        if delay.0 != 0 {
            // The NIC takes `delay` to build it (host.cnp.delay): the rate limits above
            // count from the decision, the frame leaves later.
            self.fx.q.schedule(now + delay, Event::CnpOut(f));
            return;
        }
        self.cnp_out(f);
    }

    /// Queues a CNP for flow `f` at its receiver's NIC, ahead of data.
    pub(crate) fn cnp_out(&mut self, f: FlowId) {
        let (src, dst, prio) = {
            let fl = &self.flows[f.idx()];
            (fl.src, fl.dst, fl.prio)
        };
        let cnp = &self.host.cnp;
        let id = self.fx.pool.alloc(Packet::cnp(f, src, cnp.bytes, cnp.priority.unwrap_or(prio), cnp.priority.is_none()));
        // The NIC sends CNPs ahead of data, whatever their priority on the fabric.
        let p = PortId(self.fx.nodes[dst.idx()].ports.start);
        self.fx.ports[p.idx()].ctrl.push(&mut self.fx.pool, id);
        self.host_try_send(p);
    }
}
