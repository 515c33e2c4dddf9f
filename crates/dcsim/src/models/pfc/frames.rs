//! PFC / PAUSE in the world: sending XOFF/XON from a congested ingress port, refreshing
//! XOFF while the congestion lasts, and a transmitter obeying received pauses (the frame
//! in flight always completes; the pause applies from the next scheduling decision).

use crate::event::Event;
use crate::ids::{PktId, PortId};
use crate::models::pfc::headroom::{quanta_to_time, time_to_quanta, PFC_FRAME_BYTES};
use crate::net::packet::Packet;
use crate::net::stats::PfcEvent;
use crate::plan::{FlowControl, PauseMode};
use crate::sim::Simulation;
use crate::units::SimTime;

impl Simulation {
    /// Queues a PFC frame (or 802.3x PAUSE) out of `port` for `class`.
    pub(crate) fn send_pfc(&mut self, port: PortId, class: u8, xoff: bool) {
        let now = self.now_t();
        let rate = self.fx.ports[port.idx()].rate();
        let quanta = if !xoff {
            // An XON must not end a remote-PFC pause this switch sent the host behind
            // `port` (models/remote_pfc/tor.rs): it becomes a pause for what is left.
            if self.rpfc.on {
                self.rpfc.tor.remaining(port.idx(), class, now, rate).unwrap_or(0)
            } else {
                0
            }
        } else {
            match self.pfc.pause_mode {
                PauseMode::XonXoff | PauseMode::Infinite => self.pfc.xoff_quanta as u32,
                PauseMode::Timer => time_to_quanta(self.pfc.pause_time, rate),
            }
        };
        let mask = if self.pfc.mode == FlowControl::Pause { 0xFF } else { 1u8 << class };
        let id = self.fx.pool.alloc(Packet::pfc(mask, quanta, PFC_FRAME_BYTES));
        let ci = port.idx() * 8 + class as usize;
        self.fx.mmu.set_xoff_sent(port, class, xoff);
        if xoff {
            self.fx.prio_stats[ci].pfc_xoff_tx += 1;
            if self.pfc.pause_mode != PauseMode::Infinite {
                self.refresh_gen[ci] = self.refresh_gen[ci].wrapping_add(1);
                let dur = quanta_to_time(quanta, rate);
                let after = SimTime((dur.0 as f64 * self.pfc.refresh_fraction) as u64).max(SimTime(1));
                self.fx.q.schedule(now + after, Event::PfcRefresh(port, class, self.refresh_gen[ci]));
            }
        } else {
            self.fx.prio_stats[ci].pfc_xon_tx += 1;
            self.refresh_gen[ci] = self.refresh_gen[ci].wrapping_add(1);
        }
        self.fx.ports[port.idx()].ctrl.push(&mut self.fx.pool, id);
        self.kick(port);
    }

    /// While still congested, re-send XOFF before the upstream pause runs out.
    pub(crate) fn on_pfc_refresh(&mut self, port: PortId, class: u8, gen: u32) {
        let ci = port.idx() * 8 + class as usize;
        if gen != self.refresh_gen[ci] || !self.fx.mmu.xoff_sent(port, class) {
            return;
        }
        let resume = if self.rx.on && self.fx.nodes[self.fx.ports[port.idx()].node.idx()].is_host {
            self.rx_under_xon(port)
        } else {
            self.fx.mmu.under_xon(port, class)
        };
        self.send_pfc(port, class, !resume);
    }

    /// A PFC/PAUSE frame reached port `p`: pause or resume its transmitter.
    pub(crate) fn on_pfc_frame(&mut self, p: PortId, id: PktId) {
        let now = self.now_t();
        let pkt = *self.fx.pool.get(id);
        self.fx.pool.free(id);
        let (mask, quanta) = pkt.pause();
        let log_prio = if mask.count_ones() == 1 { mask.trailing_zeros() as u8 } else { 255 };
        self.log_pfc(now, p, log_prio, if quanta > 0 { 1 } else { 0 });
        let mut resumed = false;
        for prio in 0..8u8 {
            if mask & (1 << prio) == 0 {
                continue;
            }
            let port = &mut self.fx.ports[p.idx()];
            port.pause_gen[prio as usize] = port.pause_gen[prio as usize].wrapping_add(1);
            if quanta > 0 && self.pfc_watchdog.on_pause(p, prio, now) {
                // A queue in a pause storm ignores pauses (the PFC watchdog).
                self.fx.prio_stats[p.idx() * 8 + prio as usize].pfc_xoff_rx += 1;
                continue;
            }
            let port = &mut self.fx.ports[p.idx()];
            if quanta > 0 {
                if port.paused & (1 << prio) == 0 {
                    port.paused |= 1 << prio;
                    port.paused_since[prio as usize] = now;
                }
                if self.pfc.pause_mode != PauseMode::Infinite {
                    let gen = port.pause_gen[prio as usize];
                    let until = now + quanta_to_time(quanta, port.rate());
                    self.fx.q.schedule(until, Event::PauseExpire(p, prio, gen));
                }
                self.fx.prio_stats[p.idx() * 8 + prio as usize].pfc_xoff_rx += 1;
            } else {
                self.fx.prio_stats[p.idx() * 8 + prio as usize].pfc_xon_rx += 1;
                resumed |= self.unpause(p, prio);
            }
        }
        if resumed {
            self.kick(p);
        }
    }

    pub(crate) fn on_pause_expire(&mut self, p: PortId, prio: u8, gen: u32) {
        if self.fx.ports[p.idx()].pause_gen[prio as usize] != gen {
            return;
        }
        if self.unpause(p, prio) {
            self.fx.prio_stats[p.idx() * 8 + prio as usize].pfc_expired += 1;
            let now = self.now_t();
            self.log_pfc(now, p, prio, 2);
            self.kick(p);
        }
    }

    /// Clears the pause of (port, prio); returns whether it was paused.
    pub(crate) fn unpause(&mut self, p: PortId, prio: u8) -> bool {
        let now = self.now_t();
        let port = &mut self.fx.ports[p.idx()];
        if port.paused & (1 << prio) == 0 {
            return false;
        }
        port.paused &= !(1 << prio);
        let since = port.paused_since[prio as usize];
        self.fx.prio_stats[p.idx() * 8 + prio as usize].paused_ps += (now - since).0;
        let node = port.node;
        if self.fx.nodes[node.idx()].is_host {
            self.unpark(node, prio);
        }
        true
    }

    fn log_pfc(&mut self, time: SimTime, p: PortId, prio: u8, kind: u8) {
        self.pfc_log.push(PfcEvent { time, port: p.0, prio, kind });
    }
}
