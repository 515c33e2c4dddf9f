//! The receive buffer in the run: frames queue at the NIC, are processed at its rate,
//! and the NIC pauses its switch when it falls behind.

use std::collections::VecDeque;

use super::{keys, Nic, NicStats, RxBuffers};
use crate::event::{Event, EventQueue};
use crate::ids::{PktId, PortId};
use crate::net::mmu::DropReason;
use crate::plan::{FlowControl, Plan};
use crate::sim::Simulation;
use crate::units::{Rate, SimTime};

impl RxBuffers {
    /// The plan's receive buffers; `port_of(host)` is the host's port. Schedules the rate
    /// changes.
    pub fn new(plan: &Plan, q: &mut EventQueue, port_of: impl Fn(u32) -> PortId) -> RxBuffers {
        let Some(rx) = &plan.host.rx_buffer else { return RxBuffers::default() };
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
                q.schedule(c.at, Event::RxRate(k as u32));
            }
        }
        RxBuffers { on: true, size: rx.size, xoff_fixed: rx.xoff.is_some(), slot, nics, changes }
    }
}

impl Simulation {
    /// A frame's last bit reached host port `p`: into the NIC's receive buffer, or (a NIC
    /// without one) straight to the transport.
    pub(crate) fn rx_arrive(&mut self, p: PortId, id: PktId) {
        let node = self.fx.ports[p.idx()].node.idx();
        let Some(k) = self.rx.nic_of_node(node) else { return self.nic_consume(p, id) };
        let frame = self.fx.pool.get(id).frame as u64;
        let size = self.rx.size;
        let nic = &mut self.rx.nics[k];
        if nic.used + frame > size {
            nic.stats.drops += 1;
            let pkt = *self.fx.pool.get(id);
            self.fx.prio_stats[p.idx() * 8 + pkt.prio as usize].drops[DropReason::BufferFull as usize] += 1;
            self.count_drop(&pkt);
            self.fx.pool.free(id);
            return;
        }
        nic.fifo.push_back(id);
        nic.used += frame;
        nic.stats.max_used = nic.stats.max_used.max(nic.used);
        let (over, pausing) = (nic.used >= nic.xoff, nic.pausing);
        if !nic.busy {
            self.rx_start(k);
        }
        if over && !pausing {
            self.rx_pause(k, true);
        }
    }

    /// Starts processing the frame at the head of NIC `k`'s buffer, if it may.
    fn rx_start(&mut self, k: usize) {
        let nic = &mut self.rx.nics[k];
        let Some(&id) = nic.fifo.front() else { return };
        if nic.busy || nic.rate == Rate(0) {
            return;
        }
        nic.busy = true;
        let t = nic.rate.tx_time(self.fx.pool.get(id).frame as u64);
        let at = self.now_t() + t;
        self.fx.q.schedule(at, Event::RxDone(k as u32));
    }

    /// NIC `k` finished processing its head frame: the transport gets it.
    pub(crate) fn on_rx_done(&mut self, k: u32) {
        let k = k as usize;
        let nic = &mut self.rx.nics[k];
        nic.busy = false;
        let id = nic.fifo.pop_front().expect("a frame is in service");
        let frame = self.fx.pool.get(id).frame as u64;
        nic.used -= frame;
        nic.stats.frames += 1;
        let (p, under) = (nic.port, nic.pausing && nic.used <= nic.xon);
        if under {
            self.rx_pause(k, false);
        }
        self.rx_start(k);
        self.nic_consume(p, id);
    }

    /// Rate change `k` takes effect (a frame in service finishes at the old rate).
    pub(crate) fn on_rx_rate(&mut self, k: u32) {
        let (nic, rate) = self.rx.changes[k as usize];
        self.rx.nics[nic as usize].rate = rate;
        self.rx_start(nic as usize);
    }

    /// Sends XOFF (or XON) for every lossless class from NIC `k` to its switch.
    fn rx_pause(&mut self, k: usize, xoff: bool) {
        let now = self.now_t();
        let nic = &mut self.rx.nics[k];
        if xoff {
            nic.pausing = true;
            nic.paused_since = now;
            nic.stats.pauses += 1;
        } else {
            nic.pausing = false;
            nic.stats.paused_ps += (now - nic.paused_since).0;
        }
        let port = nic.port;
        let classes = match self.pfc.plan.mode {
            FlowControl::Pfc => self.pfc.plan.lossless,
            FlowControl::Pause => 1, // one PAUSE frame stops every priority
            FlowControl::None | FlowControl::IbCredits => return,
        };
        for c in 0..8u8 {
            if classes & (1 << c) != 0 && self.fx.mmu.xoff_sent(port, c) != xoff {
                self.send_pfc(port, c, xoff);
            }
        }
    }

    /// Whether the NIC behind host port `p` has drained to its XON threshold (a refresh
    /// of its XOFF asks); the NIC's own state follows.
    pub(crate) fn rx_under_xon(&mut self, p: PortId) -> bool {
        let node = self.fx.ports[p.idx()].node.idx();
        let Some(k) = self.rx.nic_of_node(node) else { return true };
        let nic = &self.rx.nics[k];
        let under = nic.used <= nic.xon;
        if under && nic.pausing {
            let now = self.now_t();
            let nic = &mut self.rx.nics[k];
            nic.pausing = false;
            nic.stats.paused_ps += (now - nic.paused_since).0;
        }
        under
    }

    /// Closes the NICs' open pause intervals at the end of the run.
    pub(crate) fn rx_finish(&mut self, end: SimTime) {
        for nic in &mut self.rx.nics {
            if nic.pausing {
                nic.stats.paused_ps += (end - nic.paused_since).0;
                nic.pausing = false;
            }
        }
    }
}
