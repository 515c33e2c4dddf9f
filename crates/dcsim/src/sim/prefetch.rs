//! Prefetching for the events due soon. On a large fabric the per-port records and the
//! frames miss the cache on most hops (the ports of a k = 16 fat tree alone outgrow L2);
//! asking for what an event names a few events before it runs lets those misses overlap
//! the work in between. On a small fabric everything is cached and the hint is pure cost,
//! so it is on only from `MIN_PORTS` ports. Prefetches never change what the simulation
//! does.

use super::Simulation;
use crate::event::Event;
use crate::prefetch::prefetch;

/// How many events ahead the loop looks (measured on the k = 16 WebSearch benchmark:
/// 2 and 10 were slower than 5).
pub(crate) const AHEAD: usize = 5;

/// Fabrics with fewer ports run without prefetching (the k = 8 fat tree, 768 ports, runs
/// faster without; the k = 16 one, 6,144 ports, 1.3 x faster with it).
pub(crate) const MIN_PORTS: usize = 2048;

impl Simulation {
    /// Prefetches the records event `ev` names: its port and, for an arrival, the frame.
    #[inline(always)]
    pub(crate) fn prefetch_for(&self, ev: Event) {
        match ev {
            Event::Arrive(p, id) | Event::Forward(p, id) => {
                self.pool.prefetch(id);
                if let Some(port) = self.ports.get(p.idx()) {
                    prefetch(port);
                }
            }
            Event::TxDone(p) => {
                if let Some(port) = self.ports.get(p.idx()) {
                    prefetch(port);
                }
                self.egress.prefetch_port(p);
            }
            _ => {}
        }
    }
}
