//! The PFC watchdog that switches ship against pause storms (SONiC's `pfcwd`, actions
//! "drop" and "forward"). Every `poll` a switch looks at its lossless egress queues: one that has been
//! paused for `detection` while holding frames is in a **storm** (a stuck or
//! misbehaving receiver downstream, or a deadlock). Until the storm ends the queue
//! ignores pauses and, with "drop", drops the frames it holds and every frame routed to
//! it, or, with "forward", sends them as if unpaused; either way the buffers behind it
//! drain and the pauses they sent upstream are lifted. The storm ends when no
//! pause has arrived for the queue for `restoration`; the queue is lossless again.
//!
//! Drops by the watchdog are deliberate: they are counted per (port, priority)
//! (`ports.pfc_storm_drops`) and in the flows' losses, not as buffer drops, so the
//! `lossless_no_drops` check still covers the buffer model.

use crate::ids::PortId;
use crate::models::pfc::{WatchdogAction, WatchdogPlan};
use crate::net::fabric::{After, Fabric};
use crate::net::prio_slots::PrioSlots;
use crate::units::SimTime;

/// The watchdog's state (`Simulation::pfc_watchdog`).
pub struct PfcWatchdog {
    pub plan: Option<WatchdogPlan>,
    /// Time of the next poll (`SimTime::MAX`: never).
    pub next: SimTime,
    /// Per port: priorities in a storm, bit per priority.
    pub storm: Vec<u8>,
    /// Queues in a storm now (the per-frame check is skipped while 0).
    pub storms_now: u32,
    /// Per (port, priority in use): when a pause last arrived for it.
    last_pause: Vec<SimTime>,
    slots: PrioSlots,
    /// The lossless priorities (bit per priority): the queues polled.
    lossless: u8,
    /// The time of the poll under way.
    polling: SimTime,
}

impl PfcWatchdog {
    pub fn new(plan: Option<WatchdogPlan>, slots: PrioSlots, ports: usize, lossless: u8) -> Self {
        let on = plan.is_some();
        PfcWatchdog {
            lossless,
            polling: SimTime::ZERO,
            next: plan.as_ref().map_or(SimTime::MAX, |w| w.poll),
            plan,
            storm: if on { vec![0; ports] } else { Vec::new() },
            storms_now: 0,
            last_pause: if on { vec![SimTime::ZERO; slots.len(ports)] } else { Vec::new() },
            slots,
        }
    }

    /// Whether (port, prio) is in a storm.
    #[inline]
    pub fn in_storm(&self, p: PortId, prio: u8) -> bool {
        self.storms_now > 0 && self.storm[p.idx()] & (1 << prio) != 0
    }

    /// Whether frames routed to (port, prio) are dropped: it is in a storm and the action
    /// is "drop" (with "forward" they are queued and sent regardless of pauses).
    #[inline]
    pub fn drops(&self, p: PortId, prio: u8) -> bool {
        self.in_storm(p, prio) && self.plan.as_ref().is_some_and(|w| w.action == WatchdogAction::Drop)
    }

    /// Fast-forward moved the world `by` later: the next poll and the pauses' times.
    pub fn shift_times(&mut self, by: SimTime) {
        self.next = self.next.later(by);
        self.last_pause.iter_mut().for_each(|t| *t = t.later(by));
    }

    /// A pause for (port, prio) arrived at `now`; true when the queue is in a storm and
    /// must ignore it.
    pub fn on_pause(&mut self, p: PortId, prio: u8, now: SimTime) -> bool {
        if self.plan.is_none() {
            return false;
        }
        self.last_pause[self.slots.at(p.idx(), prio)] = now;
        self.in_storm(p, prio)
    }
}

impl PfcWatchdog {
    /// Step `step` of the poll due now: each switch's lossless egress queues in port
    /// order (a queue entering a storm with the "drop" action has what it holds dropped:
    /// `After::StormDrain`), then the port's transmitter picks its next frame. Step
    /// `port * 9 + c` polls class `c` of the port, step `port * 9 + 8` kicks it; each
    /// step sees what the ones before it asked of the world done. `owned`: the nodes this
    /// partition runs (empty: all).
    pub(super) fn poll_step(&mut self, fx: &mut Fabric, step: u32, owned: &[bool]) -> Option<u32> {
        let w = self.plan.clone()?;
        if step == 0 {
            self.polling = self.next;
            self.next = self.polling + w.poll;
        }
        let n = fx.ports.len() * 9;
        let mut i = step as usize;
        while i < n {
            let (p, k) = (i / 9, i % 9);
            let node = fx.ports[p].node;
            if fx.is_host(node) || !(owned.is_empty() || owned[node.idx()]) {
                i = (p + 1) * 9;
                continue;
            }
            let pid = PortId(p as u32);
            if k == 8 {
                fx.kick(pid);
                return Some(i as u32 + 1);
            }
            if self.lossless & (1 << k) == 0 {
                i += 1;
                continue;
            }
            if self.poll_queue(fx, pid, k as u8, self.polling, &w) && w.action == WatchdogAction::Drop {
                fx.after.push(After::StormDrain(pid, k as u8));
            }
            return Some(i as u32 + 1);
        }
        None
    }

    /// The poll at `now` looks at the lossless egress queue (p, c): a queue paused for
    /// `detection` while holding frames enters a storm (its pause is lifted and ignored
    /// from now on; true is returned: with "drop" the caller drops what it holds); a
    /// storm ends when no pause arrived for `restoration`.
    fn poll_queue(&mut self, fx: &mut Fabric, p: PortId, c: u8, now: SimTime, w: &WatchdogPlan) -> bool {
        let (pi, ci) = (p.idx(), self.slots.at(p.idx(), c));
        let storm = self.storm[pi] & (1 << c) != 0;
        let port = &fx.ports[pi];
        if !storm && port.paused & (1 << c) != 0 && now - port.paused_since[c as usize] >= w.detection && fx.egress.queue(p, c).pkts > 0 {
            self.storm[pi] |= 1 << c;
            self.storms_now += 1;
            fx.prio_stats[ci].pfc_storms += 1;
            fx.unpause(p, c);
            return true;
        }
        if storm && now - self.last_pause[ci] >= w.restoration {
            self.storm[pi] &= !(1 << c);
            self.storms_now -= 1;
            fx.prio_stats[ci].pfc_storms_restored += 1;
        }
        false
    }
}
