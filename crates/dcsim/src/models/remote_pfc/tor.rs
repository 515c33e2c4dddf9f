//! The source's top-of-rack switch in remote PFC: a switch whose next hop toward a
//! message's destination is that host consumes the message and sends the host an
//! ordinary PFC frame for the message's priority, with the duration in quanta at the
//! host link's rate (capped at 65535), unless the host is already paused at least that
//! long (only extensions are sent; remote-pfc.md 8.3). Every other switch forwards the
//! message in its control queue, like any control frame.

use crate::ids::{NodeId, PktId, PortId};
use crate::models::pfc::headroom::{quanta_to_time, time_to_quanta, PFC_FRAME_BYTES};
use crate::net::fabric::Fabric;
use crate::net::packet::Packet;
use crate::units::{Rate, SimTime};

#[derive(Default)]
pub(crate) struct TorState {
    /// Per (host-facing port x 8 + priority): until when the remote pause it sent lasts.
    until: Vec<SimTime>,
    /// Per port: remote-pause time granted to the host behind it (overlaps counted once).
    pub granted_ps: Vec<u64>,
    /// Per node: messages it consumed as the source's ToR, and PFC frames it sent for them.
    pub consumed: Vec<u64>,
    pub pauses: Vec<u64>,
}

impl TorState {
    pub fn new(n_ports: usize, n_nodes: usize) -> Self {
        TorState {
            until: vec![SimTime::ZERO; n_ports * 8],
            granted_ps: vec![0; n_ports],
            consumed: vec![0; n_nodes],
            pauses: vec![0; n_nodes],
        }
    }

    /// Fast-forward moved the world `by` later.
    pub fn shift_times(&mut self, by: SimTime) {
        self.until.iter_mut().for_each(|t| *t = t.later(by));
    }

    /// A message asks to pause (port `port`, `prio`), a link of `rate`, for `dur` from
    /// `now`. Returns the quanta of the PFC frame to send, or `None` when the pause
    /// already running lasts at least as long.
    pub fn on_message(&mut self, port: usize, prio: u8, now: SimTime, dur: SimTime, rate: Rate) -> Option<u32> {
        let quanta = time_to_quanta(dur, rate);
        let end = now + quanta_to_time(quanta, rate);
        let until = &mut self.until[port * 8 + prio as usize];
        if end <= *until {
            return None;
        }
        self.granted_ps[port] += (end - (*until).max(now)).0;
        *until = end;
        Some(quanta)
    }

    /// The quanta left of a remote pause of (`port`, `prio`) at `now`, if one runs: a
    /// hop-by-hop XON on that port must not end it early.
    pub fn remaining(&self, port: usize, prio: u8, now: SimTime, rate: Rate) -> Option<u32> {
        let until = *self.until.get(port * 8 + prio as usize)?;
        (until > now).then(|| time_to_quanta(until - now, rate))
    }
}

impl super::RemotePfc {
    /// Remote-PFC message `id` at switch `node`, whose route toward the message's
    /// destination leaves through `out`: reflected into a pause if `out` leads to the
    /// host, else forwarded.
    pub fn forward(&mut self, fx: &mut Fabric, node: NodeId, out: PortId, id: PktId) {
        let peer = fx.ports[out.idx()].peer;
        if !fx.nodes[fx.ports[peer.idx()].node.idx()].is_host {
            let pool = &mut fx.pool;
            fx.ports[out.idx()].ctrl.push(pool, id);
            fx.kick(out);
            return;
        }
        let (prio, dur) = fx.pool.get(id).remote_pause();
        fx.pool.free(id);
        let now = fx.now();
        let rate = fx.ports[out.idx()].rate();
        self.tor.consumed[node.idx()] += 1;
        let class = if self.pause_all { 0 } else { prio };
        let Some(quanta) = self.tor.on_message(out.idx(), class, now, dur, rate) else { return };
        self.tor.pauses[node.idx()] += 1;
        let mask = if self.pause_all { 0xFF } else { 1u8 << class };
        let pfc = fx.pool.alloc(Packet::pfc(mask, quanta, PFC_FRAME_BYTES));
        let pool = &mut fx.pool;
        fx.ports[out.idx()].ctrl.push(pool, pfc);
        fx.kick(out);
    }
}
