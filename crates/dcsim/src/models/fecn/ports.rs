//! FECN at the switch ports: every port recomputes its advertised rate once per interval
//! (`FECN_TICK`), and a probe leaving through a port takes the lower of its rate field and
//! the port's advertised rate.

use crate::ids::{PktId, PortId};
use crate::net::fabric::Fabric;
use crate::units::SimTime;

/// The event of the periodic rate computation (its tie-key number).
pub(crate) const FECN_TICK: u8 = 12;

impl crate::models::l2cm::L2State {
    /// A probe passes a switch toward egress `out`: it keeps the lowest advertised rate.
    pub fn stamp_probe(&self, fx: &mut Fabric, out: PortId, id: PktId) {
        if let Some(port) = self.fecn.get(out.idx()) {
            let kbps = (port.advertised().0 / 1000).min(u32::MAX as u64 - 1) as u32;
            fx.pool.get_mut(id).lower_probe_rate(kbps);
        }
    }

    /// FECN: every switch port recomputes its advertised rate.
    pub fn on_fecn_tick(&mut self, fx: &mut Fabric, end: SimTime) {
        let now = fx.now();
        let Some(p) = self.kind.fecn().cloned() else { return };
        for i in 0..fx.ports.len() {
            if fx.nodes[fx.ports[i].node.idx()].is_host {
                continue;
            }
            let qlen: u64 = fx.slots.prios().map(|pr| fx.egress.queue(PortId(i as u32), pr).bytes).sum();
            let rate = fx.ports[i].rate();
            self.fecn[i].on_interval(&p, rate, qlen, p.interval);
        }
        if now + p.interval <= end {
            fx.q.schedule(now + p.interval, crate::models::fabric_model::model_event::<Self>(FECN_TICK, 0, 0, 0));
        }
    }
}
