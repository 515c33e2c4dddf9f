//! Trimming at a switch: a data frame it has no room for (`FabricModel::overflow`) is
//! cut to its header, which takes the switch's data path again at the header priority
//! (`After::Receive`), and is dropped there, counted, if that queue is full too.

use super::Trimming;
use crate::ids::{FlowId, PortId};
use crate::models::fabric_model::{Fate, Overflow};
use crate::net::fabric::{After, Fabric};
use crate::net::packet::PktKind;

impl Trimming {
    /// Whether data frames of `prio` are trimmed instead of dropped.
    #[inline]
    pub fn trims(&self, prio: u8) -> bool {
        self.mask & (1 << prio) != 0
    }

    /// A frame the switch has no room for: cut to its header if it is a data frame of a
    /// trimming priority and of a flow whose receiver NAKs headers; else queued after all
    /// if only a trimming `threshold` refused it, or dropped (a header's drop counted).
    pub(super) fn on_overflow(&mut self, fx: &mut Fabric, o: &Overflow) -> Fate {
        if o.pkt.kind == PktKind::Data && self.trims(o.prio) && self.flow_trims[o.pkt.flow.idx()] {
            self.count_trim(o.out, o.prio, o.pkt.flow);
            fx.pool.get_mut(o.id).trim(self.header_bytes, self.header_prio);
            fx.after.push(After::Receive(o.in_port, o.id));
            return Fate::Replaced;
        }
        if o.over_limit.is_some_and(|bytes| bytes <= self.egress_limit) {
            return Fate::Queue;
        }
        if o.pkt.kind == PktKind::Trimmed {
            self.headers_dropped[o.out.idx() * 8 + o.prio as usize] += 1;
        }
        Fate::Drop
    }

    /// A data frame of `flow` was cut to its header at egress (`out`, `prio`).
    fn count_trim(&mut self, out: PortId, prio: u8, flow: FlowId) {
        self.trimmed[out.idx() * 8 + prio as usize] += 1;
        self.flow_trimmed[flow.idx()] += 1;
    }
}
