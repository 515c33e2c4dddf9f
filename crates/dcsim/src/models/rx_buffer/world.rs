//! The receive buffer in the run: frames queue at the NIC, are processed at its rate,
//! and the NIC pauses its switch when it falls behind.

use std::collections::VecDeque;

use super::{keys, Nic, NicStats, RxBuffers};
use crate::event::EventQueue;
use crate::ids::{PktId, PortId};
use crate::models::fabric_model::model_event;
use crate::net::fabric::{After, Fabric};
use crate::net::mmu::DropReason;
use crate::plan::Plan;
use crate::units::{Rate, SimTime};

/// The events (their tie-key numbers): NIC `a` finished processing the frame at the
/// head of its receive buffer; processing-rate change `a` takes effect.
pub(crate) const RX_DONE: u8 = 16;
pub(crate) const RX_RATE: u8 = 17;

impl RxBuffers {
    /// The plan's receive buffers; `port_of(host)` is the host's port. Schedules the rate
    /// changes.
    pub fn new(plan: &Plan, q: &mut EventQueue, port_of: impl Fn(u32) -> PortId) -> RxBuffers {
        let Some(rx) = &plan.fabric.rx else { return RxBuffers::default() };
        let mut slot = vec![u32::MAX; plan.nodes.len()];
        let mut nics = Vec::with_capacity(rx.hosts.len());
        for &h in &rx.hosts {
            let link = keys::host_link(plan, h).expect("validated: one link to a switch");
            let (xoff, xon) = keys::thresholds(rx, plan, link);
            slot[h as usize] = nics.len() as u32;
            nics.push(Nic {
                port: port_of(h),
                fifo: VecDeque::new(),
                used: 0,
                rate: rx.rate.unwrap_or(plan.links[link].rate),
                busy: false,
                xoff,
                xon,
                pausing: false,
                paused_since: SimTime::ZERO,
                stats: NicStats::default(),
            });
        }
        let mut changes = Vec::with_capacity(rx.changes.len());
        for (k, c) in rx.changes.iter().enumerate() {
            changes.push((slot[c.host as usize], c.rate));
            if c.at <= plan.duration {
                q.schedule(c.at, model_event::<Self>(RX_RATE, 0, k as u32, 0));
            }
        }
        RxBuffers {
            on: true,
            size: rx.size,
            xoff_fixed: rx.xoff.is_some(),
            slot,
            nics,
            changes,
            pause_classes: plan.fabric.pfc.pause_classes(),
        }
    }
}

impl RxBuffers {
    /// A frame's last bit reached host port `p`: into the NIC's receive buffer (true), or
    /// (a NIC without one) not taken (false: the transport has it now). A frame that
    /// finds the buffer full is counted at the port and lost (`After::Drop`); one queued
    /// may make the NIC pause its switch (`After::Pause`).
    pub fn arrive(&mut self, fx: &mut Fabric, p: PortId, id: PktId) -> bool {
        let node = fx.ports[p.idx()].node.idx();
        let Some(k) = self.nic_of_node(node) else { return false };
        let frame = fx.pool.get(id).frame as u64;
        let size = self.size;
        let nic = &mut self.nics[k];
        if nic.used + frame > size {
            nic.stats.drops += 1;
            let prio = fx.pool.get(id).prio;
            fx.prio_stats[fx.slots.at(p.idx(), prio)].drops[DropReason::BufferFull as usize] += 1;
            fx.after.push(After::Drop(id));
            return true;
        }
        nic.fifo.push_back(id);
        nic.used += frame;
        nic.stats.max_used = nic.stats.max_used.max(nic.used);
        let (over, pausing) = (nic.used >= nic.xoff, nic.pausing);
        if !nic.busy {
            self.start(fx, k);
        }
        if over && !pausing {
            let port = self.set_pausing(fx.now(), k, true);
            self.pause_switch(fx, port, true);
        }
        true
    }

    /// Asks for XOFF (or XON) for every class the NIC's pause covers, out of its port
    /// `port` to its switch.
    fn pause_switch(&self, fx: &mut Fabric, port: PortId, xoff: bool) {
        for c in 0..8u8 {
            if self.pause_classes & (1 << c) != 0 && fx.mmu.xoff_sent(port, c) != xoff {
                fx.after.push(After::Pause(port, c, xoff));
            }
        }
    }

    /// Starts processing the frame at the head of NIC `k`'s buffer, if it may.
    fn start(&mut self, fx: &mut Fabric, k: usize) {
        let nic = &mut self.nics[k];
        let Some(&id) = nic.fifo.front() else { return };
        if nic.busy || nic.rate == Rate(0) {
            return;
        }
        nic.busy = true;
        let t = nic.rate.tx_time(fx.pool.get(id).frame as u64);
        let at = fx.now() + t;
        fx.q.schedule(at, model_event::<Self>(RX_DONE, 0, k as u32, 0));
    }

    /// NIC `k` finished processing its head frame: XON if it drained, then the frame to
    /// the transport (`After::Deliver`).
    pub(super) fn done(&mut self, fx: &mut Fabric, k: u32) {
        let k = k as usize;
        let nic = &mut self.nics[k];
        nic.busy = false;
        let id = nic.fifo.pop_front().expect("a frame is in service");
        let frame = fx.pool.get(id).frame as u64;
        nic.used -= frame;
        nic.stats.frames += 1;
        let (p, under) = (nic.port, nic.pausing && nic.used <= nic.xon);
        if under {
            self.set_pausing(fx.now(), k, false);
        }
        self.start(fx, k);
        if under {
            self.pause_switch(fx, p, false);
        }
        fx.after.push(After::Deliver(p, id));
    }

    /// Rate change `k` takes effect (a frame in service finishes at the old rate).
    pub fn on_rate(&mut self, fx: &mut Fabric, k: u32) {
        let (nic, rate) = self.changes[k as usize];
        self.nics[nic as usize].rate = rate;
        self.start(fx, nic as usize);
    }

    /// NIC `k` starts (`xoff`) or stops pausing its switch; returns its port.
    fn set_pausing(&mut self, now: SimTime, k: usize, xoff: bool) -> PortId {
        let nic = &mut self.nics[k];
        if xoff {
            nic.pausing = true;
            nic.paused_since = now;
            nic.stats.pauses += 1;
        } else {
            nic.pausing = false;
            nic.stats.paused_ps += (now - nic.paused_since).0;
        }
        nic.port
    }

    /// Whether the NIC behind host port `p` has drained to its XON threshold (a refresh
    /// of its XOFF asks); the NIC's own state follows.
    pub fn under_xon(&mut self, fx: &Fabric, p: PortId) -> bool {
        let node = fx.ports[p.idx()].node.idx();
        let Some(k) = self.nic_of_node(node) else { return true };
        let nic = &mut self.nics[k];
        let under = nic.used <= nic.xon;
        if under && nic.pausing {
            nic.pausing = false;
            nic.stats.paused_ps += (fx.now() - nic.paused_since).0;
        }
        under
    }

    /// Closes the NICs' open pause intervals at the end of the run.
    pub fn finish(&mut self, end: SimTime) {
        for nic in &mut self.nics {
            if nic.pausing {
                nic.stats.paused_ps += (end - nic.paused_since).0;
                nic.pausing = false;
            }
        }
    }
}
