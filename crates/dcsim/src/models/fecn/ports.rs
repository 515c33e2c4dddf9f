//! FECN at the switch ports: every port recomputes its advertised rate once per interval
//! (`FecnTick`), and a probe leaving through a port takes the lower of its rate field and
//! the port's advertised rate.

use crate::event::Event;
use crate::ids::{PktId, PortId};
use crate::sim::Simulation;

impl Simulation {
    /// A probe passes a switch toward egress `out`: it keeps the lowest advertised rate.
    pub(crate) fn stamp_probe(&mut self, out: PortId, id: PktId) {
        if let Some(port) = self.l2.fecn.get(out.idx()) {
            let kbps = (port.advertised().0 / 1000).min(u32::MAX as u64 - 1) as u32;
            self.fx.pool.get_mut(id).lower_probe_rate(kbps);
        }
    }

    /// FECN: every switch port recomputes its advertised rate.
    pub(crate) fn on_fecn_tick(&mut self) {
        let now = self.now_t();
        let Some(p) = self.l2.kind.fecn().cloned() else { return };
        for i in 0..self.fx.ports.len() {
            if self.fx.nodes[self.fx.ports[i].node.idx()].is_host {
                continue;
            }
            let qlen: u64 = (0..8u8).map(|pr| self.fx.egress.queue(PortId(i as u32), pr).bytes).sum();
            let rate = self.fx.ports[i].rate();
            self.l2.fecn[i].on_interval(&p, rate, qlen, p.interval);
        }
        if now + p.interval <= self.end {
            self.fx.q.schedule(now + p.interval, Event::FecnTick);
        }
    }
}
