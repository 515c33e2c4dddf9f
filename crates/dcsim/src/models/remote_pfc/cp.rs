//! The congestion point of remote PFC: a lossless egress queue above its threshold sends
//! a message toward the source host of the data frame that just joined it, at most one
//! per (queue, source) per `min_gap`. The message asks for a pause long enough for the
//! queue to drain to its target at the port's rate (remote-pfc.md 8.2). What the switch
//! knows of the source comes from the frame: its flow's header (source address).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::params::RemotePfcPlan;
use crate::ids::{FlowId, NodeId, PortId};
use crate::models::pfc::headroom::quanta_to_time;
use crate::net::fabric::Fabric;
use crate::net::packet::Packet;
use crate::net::queue::FxHasher;
use crate::units::{Rate, SimTime};

#[derive(Default)]
pub(crate) struct CpState {
    /// Per port: queue length (bytes) above which the queue sends messages.
    pub threshold: Vec<u64>,
    /// Per port: the queue length a pause should let it drain to.
    pub target: Vec<u64>,
    pub min_gap: SimTime,
    pub min_quanta: u32,
    pub max_quanta: u32,
    pub message_bytes: u32,
    /// When each (egress port x 8 + priority, source host) last sent a message.
    last: HashMap<(u32, u32), SimTime, BuildHasherDefault<FxHasher>>,
    /// Per node: messages its queues sent.
    pub sent: Vec<u64>,
}

impl CpState {
    pub fn new(p: &RemotePfcPlan, threshold: Vec<u64>, target: Vec<u64>, n_nodes: usize) -> Self {
        CpState {
            threshold,
            target,
            min_gap: p.min_gap,
            min_quanta: p.min_quanta,
            max_quanta: p.max_quanta,
            message_bytes: p.message_bytes,
            last: HashMap::default(),
            sent: vec![0; n_nodes],
        }
    }

    /// The pause a queue of `qlen` bytes on port `port` (of `rate`) asks for: the time to
    /// drain to its target, within [min_quanta, max_quanta] quanta at the port's rate.
    pub fn duration(&self, port: usize, qlen: u64, rate: Rate) -> SimTime {
        let drain = rate.tx_time(qlen.saturating_sub(self.target[port]));
        drain.clamp(quanta_to_time(self.min_quanta, rate), quanta_to_time(self.max_quanta, rate))
    }

    /// Fast-forward moved the world `by` later.
    pub fn shift_times(&mut self, by: SimTime) {
        self.last.values_mut().for_each(|t| *t = t.later(by));
    }

    /// Whether (queue `ci`, source `src`) may send a message at `now`; if so, records it.
    pub fn due(&mut self, ci: u32, src: u32, now: SimTime) -> bool {
        match self.last.get_mut(&(ci, src)) {
            Some(t) if now - *t < self.min_gap => false,
            Some(t) => {
                *t = now;
                true
            }
            None => {
                self.last.insert((ci, src), now);
                true
            }
        }
    }
}

impl super::RemotePfc {
    /// A data frame of `flow` (from host `src`) joined the lossless egress queue (out,
    /// prio), which now holds `qlen` bytes: above the threshold, a message toward the
    /// source's ToR (at most one per queue and source per `min_gap`).
    #[inline]
    pub fn on_enqueue(&mut self, fx: &mut Fabric, out: PortId, prio: u8, flow: FlowId, src: NodeId, qlen: u64) {
        if qlen <= self.cp.threshold[out.idx()] {
            return;
        }
        let now = fx.now();
        if !self.cp.due((out.idx() * 8 + prio as usize) as u32, src.0, now) {
            return;
        }
        let port = &fx.ports[out.idx()];
        let (node, rate) = (port.node, port.rate());
        let dur = self.cp.duration(out.idx(), qlen, rate);
        self.cp.sent[node.idx()] += 1;
        let id = fx.pool.alloc(Packet::remote_pfc(flow, src, prio, dur, self.cp.message_bytes));
        let toward = fx.routing.route(node, src, flow.0);
        self.forward(fx, node, toward, id);
    }
}
