//! Prefetching for the events due soon: asking for what an event names a few events
//! before it runs lets its misses overlap the work in between. A frame that waited in a
//! queue is cold on any fabric; the per-port records (port, scheduling state) miss only
//! on large ones (the ports of a k = 16 fat tree outgrow L2), and on a small fabric their
//! hint is pure cost, so they are prefetched only from `MIN_PORTS` ports. Prefetches
//! never change what the simulation does.

use super::Simulation;
use crate::event::Event;
use crate::prefetch::prefetch;

/// How many events ahead the loop looks (measured on the k = 16 WebSearch benchmark:
/// 2 and 10 were slower than 5).
pub(crate) const AHEAD: usize = 5;

/// Fabrics with fewer ports prefetch frames only (the k = 8 fat tree, 768 ports, runs
/// faster so; the k = 16 one, 6,144 ports, 1.3 x faster with the ports too).
pub(crate) const MIN_PORTS: usize = 2048;

impl Simulation {
    /// Prefetches the records event `ev` names: an arrival's frame, and on a large fabric
    /// its port (a transmitter's port and scheduling state); a flow's sender record for
    /// its pacing wake-up and its congestion control's timers.
    #[inline(always)]
    pub(crate) fn prefetch_for(&self, ev: Event) {
        match ev {
            Event::Arrive(p, id) | Event::Forward(p, id) => {
                self.fx.pool.prefetch(id);
                if !self.setup.prefetch_ports {
                    return;
                }
                if let Some(port) = self.fx.ports.get(p.idx()) {
                    prefetch(port);
                }
            }
            Event::TxDone(p) if self.setup.prefetch_ports => {
                if let Some(port) = self.fx.ports.get(p.idx()) {
                    prefetch(port);
                }
                self.fx.egress.prefetch_port(p);
            }
            // A paced queue pair's wake-up and a congestion-control timer read the flow's
            // records: with thousands of flows active at once, misses.
            Event::QpWake(f) => {
                if let (Some(s), Some(h)) = (self.senders.get(f.idx()), self.flows.get(f.idx())) {
                    prefetch(s);
                    prefetch(h);
                }
            }
            Event::CcTimer(f, ..) => {
                if let (Some(t), Some(s)) = (self.cc_timers.get(f.idx()), self.senders.get(f.idx())) {
                    prefetch(t);
                    prefetch(s);
                }
            }
            _ => {}
        }
    }
}
