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

use crate::ids::{PktId, PortId};
use crate::models::pfc::{WatchdogAction, WatchdogPlan};
use crate::sim::Simulation;
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
    /// Per (port, priority): when a pause last arrived for it.
    last_pause: Vec<SimTime>,
}

impl PfcWatchdog {
    pub fn new(plan: Option<WatchdogPlan>, ports: usize) -> Self {
        let on = plan.is_some();
        PfcWatchdog {
            next: plan.as_ref().map_or(SimTime::MAX, |w| w.poll),
            plan,
            storm: if on { vec![0; ports] } else { Vec::new() },
            storms_now: 0,
            last_pause: if on { vec![SimTime::ZERO; ports * 8] } else { Vec::new() },
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

    /// A pause for (port, prio) arrived at `now`; true when the queue is in a storm and
    /// must ignore it.
    pub fn on_pause(&mut self, p: PortId, prio: u8, now: SimTime) -> bool {
        if self.plan.is_none() {
            return false;
        }
        self.last_pause[p.idx() * 8 + prio as usize] = now;
        self.in_storm(p, prio)
    }
}

impl Simulation {
    /// The poll due at `pfc_watchdog.next`: storms start and end.
    pub(crate) fn pfc_watchdog_poll(&mut self) {
        let now = self.pfc_watchdog.next;
        let Some(w) = self.pfc_watchdog.plan.clone() else { return };
        self.pfc_watchdog.next = now + w.poll;
        for p in 0..self.fx.ports.len() {
            let port = &self.fx.ports[p];
            if self.fx.nodes[port.node.idx()].is_host || !self.owns(port.node) {
                continue;
            }
            let pid = PortId(p as u32);
            for c in 0..8u8 {
                if self.pfc.plan.lossless & (1 << c) == 0 {
                    continue;
                }
                let ci = p * 8 + c as usize;
                let storm = self.pfc_watchdog.storm[p] & (1 << c) != 0;
                let port = &self.fx.ports[p];
                if !storm
                    && port.paused & (1 << c) != 0
                    && now - port.paused_since[c as usize] >= w.detection
                    && self.fx.egress.queue(pid, c).pkts > 0
                {
                    self.pfc_watchdog.storm[p] |= 1 << c;
                    self.pfc_watchdog.storms_now += 1;
                    self.fx.prio_stats[ci].pfc_storms += 1;
                    self.unpause(pid, c);
                    while w.action == WatchdogAction::Drop && self.fx.egress.queue(pid, c).pkts > 0 {
                        let item = self.dequeue_egress(pid, c);
                        self.release_ingress(self.ingress_of(pid, &item), c, item.frame as u64);
                        self.storm_drop(pid, c, item.id);
                    }
                } else if storm && now - self.pfc_watchdog.last_pause[ci] >= w.restoration {
                    self.pfc_watchdog.storm[p] &= !(1 << c);
                    self.pfc_watchdog.storms_now -= 1;
                    self.fx.prio_stats[ci].pfc_storms_restored += 1;
                }
            }
            self.kick(pid);
        }
    }

    /// A frame routed to a queue in a storm (or held by it when the storm began) is
    /// dropped and counted against its flow.
    pub(crate) fn storm_drop(&mut self, out: PortId, prio: u8, id: PktId) {
        self.fx.prio_stats[out.idx() * 8 + prio as usize].pfc_storm_drops += 1;
        let pkt = *self.fx.pool.get(id);
        self.count_drop(&pkt);
        self.fx.pool.free(id);
    }
}
