//! PFC / PAUSE on the fabric: sending XOFF/XON from a congested ingress port, refreshing
//! XOFF while the congestion lasts, and a transmitter obeying received pauses (the frame
//! in flight always completes; the pause applies from the next scheduling decision).
//! The hooks take the fabric and this model's state only; what the world must do after
//! them (a transmitter's next frame, a NIC's parked queue pairs) is asked for through
//! `Fabric::kick` and `After::Unpark`.

use super::{FlowControl, PauseMode, PfcPlan};
use crate::ids::{PktId, PortId};
use crate::models::fabric_model::model_event;
use crate::models::pfc::headroom::{quanta_to_time, time_to_quanta, PFC_FRAME_BYTES};
use crate::net::capped_log::CappedLog;
use crate::net::fabric::{After, Fabric};
use crate::net::packet::Packet;
use crate::net::stats::PfcEvent;
use crate::units::SimTime;

/// PFC's events (their tie-key numbers; `a`: the port, `c`: the priority or class, `b`:
/// the generation): a received pause ran out, an ingress's XOFF is due for a refresh.
pub(super) const PAUSE_EXPIRE: u8 = 2;
pub(super) const PFC_REFRESH: u8 = 3;

/// PFC's state in a run: its parameters, the generation of each ingress (port, class)'s
/// XOFF refreshes (whether an XOFF is outstanding is the buffer's, `Mmu::xoff_sent`) and
/// the PFC event log.
pub struct Pfc {
    pub plan: PfcPlan,
    pub refresh_gen: Vec<u32>,
    pub log: CappedLog<Vec<PfcEvent>>,
}

impl Pfc {
    /// `queues`: the number of (port, priority in use) slots (`PrioSlots::len`).
    pub fn new(plan: &PfcPlan, queues: usize, max_events: u64) -> Self {
        Pfc { plan: plan.clone(), refresh_gen: vec![0; queues], log: CappedLog::new(max_events) }
    }

    /// MMU accounting class of a priority: itself under PFC, one class under PAUSE.
    #[inline]
    pub fn class(&self, prio: u8) -> u8 {
        if self.plan.mode == FlowControl::Pause {
            0
        } else {
            prio
        }
    }

    /// Queues a PFC frame (or 802.3x PAUSE) out of `port` for `class`. An XON carries
    /// `xon_quanta` instead of zero (a remote-PFC pause still running for the host behind
    /// the port, `models/remote_pfc/tor.rs`).
    pub fn send(&mut self, fx: &mut Fabric, port: PortId, class: u8, xoff: bool, xon_quanta: u32) {
        let now = fx.now();
        let rate = fx.ports[port.idx()].rate();
        let quanta = if !xoff {
            xon_quanta
        } else {
            match self.plan.pause_mode {
                PauseMode::XonXoff | PauseMode::Infinite => self.plan.xoff_quanta as u32,
                PauseMode::Timer => time_to_quanta(self.plan.pause_time, rate),
            }
        };
        let mask = if self.plan.mode == FlowControl::Pause { 0xFF } else { 1u8 << class };
        let id = fx.pool.alloc(Packet::pfc(mask, quanta, PFC_FRAME_BYTES));
        let ci = fx.slots.at(port.idx(), class);
        fx.mmu.set_xoff_sent(port, class, xoff);
        if xoff {
            fx.prio_stats[ci].pfc_xoff_tx += 1;
            if self.plan.pause_mode != PauseMode::Infinite {
                self.refresh_gen[ci] = self.refresh_gen[ci].wrapping_add(1);
                let dur = quanta_to_time(quanta, rate);
                let after = SimTime((dur.0 as f64 * self.plan.refresh_fraction) as u64).max(SimTime(1));
                fx.q.schedule(now + after, model_event::<Self>(PFC_REFRESH, class, port.0, self.refresh_gen[ci]));
            }
        } else {
            fx.prio_stats[ci].pfc_xon_tx += 1;
            self.refresh_gen[ci] = self.refresh_gen[ci].wrapping_add(1);
        }
        let fx_pool = &mut fx.pool;
        fx.ports[port.idx()].ctrl.push(fx_pool, id);
        fx.kick(port);
    }

    /// While the ingress (port, class) is still congested, re-send XOFF before the
    /// upstream pause runs out: if the refresh is still due (its generation is current
    /// and its XOFF outstanding), the world re-sends XOFF, or XON if the ingress is back
    /// under its threshold (`After::Refresh`).
    pub(super) fn on_refresh(&self, fx: &mut Fabric, port: PortId, class: u8, gen: u32) {
        if gen == self.refresh_gen[fx.slots.at(port.idx(), class)] && fx.mmu.xoff_sent(port, class) {
            fx.after.push(After::Refresh(port, class));
        }
    }

    /// A PFC/PAUSE frame reached port `p`: pause or resume its transmitter. A queue in a
    /// pause storm (the switches' PFC watchdog) ignores pauses: `held`.
    pub(super) fn on_pause_frame(&mut self, fx: &mut Fabric, p: PortId, id: PktId, held: u8) {
        let now = fx.now();
        let pkt = *fx.pool.get(id);
        fx.pool.free(id);
        let (mask, quanta) = pkt.pause();
        let log_prio = if mask.count_ones() == 1 { mask.trailing_zeros() as u8 } else { 255 };
        self.log.push(PfcEvent { time: now, port: p.0, prio: log_prio, kind: if quanta > 0 { 1 } else { 0 } });
        let mut resumed = false;
        for prio in 0..8u8 {
            if mask & (1 << prio) == 0 {
                continue;
            }
            let port = &mut fx.ports[p.idx()];
            port.pause_gen[prio as usize] = port.pause_gen[prio as usize].wrapping_add(1);
            if quanta > 0 && held & (1 << prio) != 0 {
                fx.prio_stats[fx.slots.at(p.idx(), prio)].pfc_xoff_rx += 1;
                continue;
            }
            let port = &mut fx.ports[p.idx()];
            if quanta > 0 {
                if port.paused & (1 << prio) == 0 {
                    port.paused |= 1 << prio;
                    port.paused_since[prio as usize] = now;
                }
                if self.plan.pause_mode != PauseMode::Infinite {
                    let gen = port.pause_gen[prio as usize];
                    let until = now + quanta_to_time(quanta, port.rate());
                    fx.q.schedule(until, model_event::<Self>(PAUSE_EXPIRE, prio, p.0, gen));
                }
                fx.prio_stats[fx.slots.at(p.idx(), prio)].pfc_xoff_rx += 1;
            } else {
                fx.prio_stats[fx.slots.at(p.idx(), prio)].pfc_xon_rx += 1;
                resumed |= fx.unpause(p, prio);
            }
        }
        if resumed {
            fx.kick(p);
        }
    }

    /// A received pause on (p, prio) ran out, unless a later frame renewed or ended it.
    pub(super) fn on_expire(&mut self, fx: &mut Fabric, p: PortId, prio: u8, gen: u32) {
        if fx.ports[p.idx()].pause_gen[prio as usize] != gen {
            return;
        }
        if fx.unpause(p, prio) {
            fx.prio_stats[fx.slots.at(p.idx(), prio)].pfc_expired += 1;
            let now = fx.now();
            self.log.push(PfcEvent { time: now, port: p.0, prio, kind: 2 });
            fx.kick(p);
        }
    }
}
