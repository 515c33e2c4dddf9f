//! Switch forwarding: ingress admission against the MMU (and XOFF), egress enqueue,
//! and the transmitter's choice of the next frame (control first, then the scheduler
//! across priorities; the MMU charge is released and XON checked as a frame leaves).

use super::Simulation;
use crate::ids::{PktId, PortId};
use crate::models::fabric_model::{Enqueued, Fate, Overflow};
use crate::net::mmu::DropReason;
use crate::net::packet::{Packet, PktKind};
use crate::net::queue::Queued;

impl Simulation {
    pub(crate) fn switch_receive(&mut self, in_port: PortId, id: PktId) {
        let node = self.fx.ports[in_port.idx()].node;
        let pkt = *self.fx.pool.get(id);
        let hooks = self.setup.switch_hooks;
        let out = if hooks.route {
            self.models.route(&self.fx, node, &pkt).unwrap_or_else(|| self.fx.routing.route(node, pkt.dst, pkt.flow.0))
        } else {
            self.fx.routing.route(node, pkt.dst, pkt.flow.0)
        };
        if hooks.unusable && self.models.unusable(&self.fx, out) {
            self.input_dropped(in_port, &pkt);
            self.drop_at_unusable(out, id);
            return;
        }
        if pkt.is_control() {
            if hooks.control_forwarded {
                let mark = self.fx.after.len();
                let taken = self.models.control_forwarded(&mut self.fx, node, out, id, &pkt);
                self.run_after(mark);
                if taken {
                    return;
                }
            }
            self.fx.ports[out.idx()].ctrl.push(&mut self.fx.pool, id);
            self.switch_try_send(out);
            return;
        }
        let prio = pkt.prio;
        if hooks.refuses && self.models.refuses(&mut self.fx, out, prio, &pkt) {
            self.input_dropped(in_port, &pkt);
            self.count_drop(&pkt);
            self.fx.pool.free(id);
            return;
        }
        let class = self.class_of(prio);
        let size = pkt.frame as u64;
        if hooks.offered {
            let mark = self.fx.after.len();
            self.models.offered(&mut self.fx, out, &pkt);
            self.run_after(mark);
        }
        let lossless = self.is_lossless(prio);
        if let (Some(limit), false) = (self.setup.egress_limit, lossless) {
            let bytes = self.fx.egress.queue(out, prio).bytes + size;
            if bytes > limit {
                let o = Overflow { in_port, out, prio, id, pkt: &pkt, over_limit: Some(bytes), reason: DropReason::EgressFull };
                if self.overflow(&o) != Fate::Queue {
                    return;
                }
            }
        }
        if let Err(reason) = self.fx.mmu.admit(in_port, class, size, lossless) {
            self.overflow(&Overflow { in_port, out, prio, id, pkt: &pkt, over_limit: None, reason });
            return;
        }
        let local = self.fx.ports[in_port.idx()].local;
        let q_before = self.fx.egress.queue(out, prio).bytes;
        let item = Queued { id, frame: pkt.frame, in_local: local };
        self.fx.egress.enqueue(out, prio, item, pkt.flow);
        if self.setup.enqueue_hooks {
            let e = Enqueued { out, prio, id, pkt: &pkt, in_local: local as u32, q_before, lossless };
            let mark = self.fx.after.len();
            let flows = &self.flows;
            self.models.enqueued(&mut self.fx, &e, &|f| flows[f.idx()].src);
            self.run_after(mark);
        }

        // Under credits no XOFF: the sender cannot overrun the input buffer.
        if lossless && !self.fx.mmu.xoff_sent(in_port, class) && self.fx.mmu.over_xoff(in_port, class) && self.setup.port_hooks.switch_xoff
        {
            self.send_pause(in_port, class, true);
        }
        self.switch_try_send(out);
    }

    /// A data frame found no room (over the egress limit, or refused by the buffer): the
    /// models' `overflow` hooks decide its fate (the first that answers), else it is
    /// dropped. What a model made of it in its place (`Fate::Replaced`) takes the switch's
    /// path again once the frame is counted lost to its flow.
    #[inline(never)]
    fn overflow(&mut self, o: &Overflow) -> Fate {
        let mark = self.fx.after.len();
        let fate = if self.setup.switch_hooks.overflow { self.models.overflow(&mut self.fx, o) } else { None };
        let fate = fate.unwrap_or(Fate::Drop);
        match fate {
            Fate::Queue => {}
            Fate::Drop => self.drop_packet(o.in_port, o.prio, o.id, o.reason),
            Fate::Replaced => {
                self.count_drop(o.pkt);
            }
        }
        self.run_after(mark);
        fate
    }

    pub(crate) fn drop_packet(&mut self, in_port: PortId, prio: u8, id: PktId, reason: DropReason) {
        let pkt = *self.fx.pool.get(id);
        self.input_dropped(in_port, &pkt);
        self.fx.prio_stats[self.fx.slots.at(in_port.idx(), prio)].drops[reason as usize] += 1;
        self.count_drop(&pkt);
        self.fx.pool.free(id);
    }

    /// Counts a lost frame against its flow if it is a data frame (the conservation check
    /// counts data frames; a CNP or ACK queued in a data class is not one). True if it
    /// counted.
    #[inline]
    pub(crate) fn count_drop(&mut self, pkt: &Packet) -> bool {
        let data = pkt.kind == PktKind::Data;
        if data {
            self.rec.drops_by_flow[pkt.flow.idx()] += 1;
        }
        data
    }

    pub(crate) fn switch_try_send(&mut self, p: PortId) {
        if self.tx_busy(p) {
            return;
        }
        let port = &mut self.fx.ports[p.idx()];
        if port.down {
            return self.flush_down_port(p);
        }
        if let Some(id) = port.ctrl.pop(&self.fx.pool) {
            let frame = self.fx.pool.get(id).frame as u32;
            let quiet = port.ctrl.is_empty() && self.fx.egress.nonempty(p) & !port.paused == 0;
            self.transmit(p, id, frame, None, quiet);
            return;
        }
        let eligible = self.fx.egress.nonempty(p) & !port.paused;
        let Some(prio) = self.fx.egress.pick(p, eligible) else { return };
        let item = self.dequeue_egress(p, prio);
        let quiet = self.fx.egress.nonempty(p) & !self.fx.ports[p.idx()].paused == 0;
        let (id, in_port, frame) = (item.id, self.ingress_of(p, &item), item.frame);
        let size = frame as u64;
        if self.setup.dequeue_hooks {
            let q_after = self.fx.egress.queue(p, prio).bytes;
            if q_after > 0 {
                if let Some(next) = self.fx.egress.next_up(p, prio) {
                    self.fx.pool.prefetch(next);
                }
            }
            let mark = self.fx.after.len();
            self.models.dequeued(&mut self.fx, p, prio, &item, q_after);
            self.run_after(mark);
        }
        if self.fx.pool.int_on() {
            crate::models::hpcc::int::stamp(&mut self.fx, p, id);
        }
        self.transmit(p, id, frame as u32, Some(prio), quiet);
        // After the transmitter is taken: a frame rerouted back out of the port it came in
        // on (a failed link's detour) releases a charge whose XON must wait for it.
        self.release_ingress(in_port, prio, size);
    }

    /// Takes the next frame of egress (p, prio), recording the queue's peak. A queue
    /// changes by arrivals and departures only, so each of its peaks is followed by a
    /// departure or lasts to the end of the run (where the output takes the queue as it
    /// is): the peak is the largest queue seen before a departure, and the frame's
    /// arrival, a cache miss on a large fabric, need not touch the counters.
    #[inline(always)]
    pub(crate) fn dequeue_egress(&mut self, p: PortId, prio: u8) -> Queued {
        let before = self.fx.egress.queue(p, prio).bytes;
        let st = &mut self.fx.prio_stats[self.fx.slots.at(p.idx(), prio)];
        st.max_egress = st.max_egress.max(before);
        self.fx.egress.dequeue(p, prio)
    }

    /// The port a frame queued at `out` came in through (the same switch's).
    #[inline(always)]
    pub(crate) fn ingress_of(&self, out: PortId, item: &Queued) -> PortId {
        PortId(out.0 - self.fx.ports[out.idx()].local as u32 + item.in_local as u32)
    }

    /// A frame of `prio` that came in through `in_port` leaves the switch: its MMU charge
    /// is released, and XON sent if the ingress is back under its threshold.
    #[inline(always)]
    pub(crate) fn release_ingress(&mut self, in_port: PortId, prio: u8, size: u64) {
        let class = self.class_of(prio);
        self.fx.mmu.release(in_port, class, size);
        if self.setup.port_hooks.input_freed {
            self.input_freed(in_port, prio, size + self.fx.preamble as u64);
        }
        if self.fx.mmu.xoff_sent(in_port, class) && self.fx.mmu.under_xon(in_port, class) {
            self.send_pause(in_port, class, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::units::SimTime;

    /// A frame sent back out of the port it came in on (a failed link's detour) whose
    /// release brings that ingress under XON: the XON waits behind the frame, instead of
    /// starting on the same idle transmitter first and the frame then on a busy one.
    #[test]
    fn a_detoured_frame_keeps_its_transmitter_from_its_own_xon() {
        let text = "[simulation]\nduration = \"20us\"\n[topology]\ntype = \"star\"\nhosts = 2\nrate = \"40Gbps\"\ndelay = \"1us\"\n\
                    [switch.pfc]\nmode = \"pfc\"\n[[traffic]]\ntype = \"flows\"\nflows = [{ src = \"h1\", dst = \"h0\", size = \"1KB\" }]\n";
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        let sw = s.fx.nodes.iter().position(|n| !n.is_host).unwrap();
        let p = PortId(s.fx.nodes[sw].ports.start);
        let (prio, frame) = (3u8, 1048u16);
        assert!(s.is_lossless(prio));
        let class = s.class_of(prio);
        let dst = s.fx.ports[s.fx.ports[p.idx()].peer.idx()].node;
        let id = s.fx.pool.alloc(Packet::data(FlowId(0), dst, 0, 1000, frame as u32, prio, SimTime::ZERO));
        s.fx.mmu.admit(p, class, frame as u64, true).unwrap();
        s.fx.mmu.set_xoff_sent(p, class, true); // the port's ingress had paused its peer
        let in_local = s.fx.ports[p.idx()].local;
        s.fx.egress.enqueue(p, prio, Queued { id, frame, in_local }, FlowId(0));
        s.switch_try_send(p);
        assert!(!s.fx.mmu.xoff_sent(p, class), "the release sends XON");
        assert!(!s.fx.ports[p.idx()].ctrl.is_empty(), "the XON waits for the frame on the wire");
        assert_eq!(s.fx.prio_stats[s.fx.slots.at(p.idx(), prio)].tx_pkts, 1);
    }
}
