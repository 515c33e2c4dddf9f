//! RoCEv2 congestion management at the hosts. Notification point (receiver): CE-marked
//! packets are answered with CNPs, at most one per queue pair per `cnp.interval` (a mark
//! inside the window yields one CNP at its end, dcqcn.md 4.3 variant A) and at most one
//! per `cnp.nic_gap` from the NIC. Reaction point (sender): the flow's congestion control
//! sees CNPs, sends and its timers, and its rate paces the queue pair.

use super::{QpState, Simulation};
use crate::cc::{Cc, CcCtx, CongestionControl};
use crate::event::Event;
use crate::ids::{FlowId, PktId, PortId};
use crate::net::packet::{Packet, PktKind, FLAG_CTRL};
use crate::units::{Rate, SimTime};

impl Simulation {
    /// The receiver of flow `f` got a CE-marked data packet.
    pub(crate) fn on_marked(&mut self, f: FlowId) {
        let now = self.now_t();
        let iv = self.host.cnp.interval;
        let flow = &mut self.flows[f.idx()];
        flow.marked_rx += 1;
        if iv.0 == 0 || flow.last_cnp.is_none_or(|t| now - t >= iv) {
            self.send_cnp(f);
        } else {
            flow.marked_since_cnp += 1;
            let at = flow.last_cnp.unwrap() + iv;
            self.defer_cnp(f, at);
        }
    }

    fn defer_cnp(&mut self, f: FlowId, at: SimTime) {
        let flow = &mut self.flows[f.idx()];
        if !flow.cnp_pending {
            flow.cnp_pending = true;
            self.q.schedule(at, Event::CnpDeferred(f));
        }
    }

    pub(crate) fn on_cnp_deferred(&mut self, f: FlowId) {
        let now = self.now_t();
        let iv = self.host.cnp.interval;
        let flow = &mut self.flows[f.idx()];
        flow.cnp_pending = false;
        if flow.marked_since_cnp == 0 {
            return;
        }
        match flow.last_cnp {
            Some(t) if now - t < iv => {
                let at = t + iv;
                self.defer_cnp(f, at);
            }
            _ => self.send_cnp(f),
        }
    }

    /// Sends a CNP for flow `f` from its receiver, unless the NIC's CNP rate limit holds
    /// it back (then it goes out as soon as the NIC may send one).
    fn send_cnp(&mut self, f: FlowId) {
        let now = self.now_t();
        let (src, dst, prio) = {
            let fl = &self.flows[f.idx()];
            (fl.src, fl.dst, fl.prio)
        };
        let next = self.nic_next_cnp[dst.idx()];
        if now < next {
            self.flows[f.idx()].marked_since_cnp += 1;
            self.defer_cnp(f, next);
            return;
        }
        self.nic_next_cnp[dst.idx()] = now + self.host.cnp.nic_gap;
        let flow = &mut self.flows[f.idx()];
        flow.last_cnp = Some(now);
        flow.marked_since_cnp = 0;
        flow.cnps_sent += 1;
        let cnp = &self.host.cnp;
        let id = self.pool.alloc(Packet {
            flow: f,
            seq: 0,
            dst: src,
            next: PktId::NONE,
            payload: 0,
            frame: cnp.bytes as u16,
            kind: PktKind::Cnp,
            prio: cnp.priority.unwrap_or(prio),
            flags: if cnp.priority.is_none() { FLAG_CTRL } else { 0 },
            sent: now,
        });
        // The NIC sends CNPs ahead of data, whatever their priority on the fabric.
        let p = PortId(self.nodes[dst.idx()].ports.start);
        self.ports[p.idx()].ctrl.push(&mut self.pool, id);
        self.host_try_send(p);
    }

    /// A CNP for flow `f` reached its sender.
    pub(crate) fn on_cnp_received(&mut self, f: FlowId) {
        self.flows[f.idx()].cnps_rx += 1;
        if self.flows[f.idx()].finish.is_some() {
            return;
        }
        self.cc_hook(f, |cc, ctx| cc.on_cnp(ctx));
    }

    pub(crate) fn on_cc_timer(&mut self, f: FlowId, kind: u8, gen: u32) {
        if self.flows[f.idx()].cc_gen[kind as usize] != gen {
            return;
        }
        self.cc_hook(f, |cc, ctx| cc.on_timer(ctx, kind));
    }

    /// Runs one hook of the flow's congestion control, then applies what it asked for:
    /// timers to (re)start or cancel, and a new rate.
    pub(crate) fn cc_hook(&mut self, f: FlowId, hook: impl FnOnce(&mut Cc, &mut CcCtx)) {
        let now = self.now_t();
        let flow = &mut self.flows[f.idx()];
        let mut ctx = CcCtx::new(now, flow.line_rate);
        ctx.uniform = self.cc_rng.next_f64();
        let cc = &mut self.ccs[f.idx()];
        let old = cc.rate();
        hook(cc, &mut ctx);
        for k in 0..4 {
            if ctx.cancelled() & (1 << k) != 0 {
                flow.cc_gen[k] = flow.cc_gen[k].wrapping_add(1);
            }
        }
        for &(k, at) in ctx.requested() {
            let g = &mut flow.cc_gen[k as usize];
            *g = g.wrapping_add(1);
            self.q.schedule(at.max(now), Event::CcTimer(f, k, *g));
        }
        let probe = ctx.send_probe;
        let new = self.ccs[f.idx()].rate();
        if new != old {
            self.set_rate(f, new);
        }
        if probe {
            self.send_probe(f);
        }
    }

    /// Paces flow `f` at `rate` from now on: the next packet may start one packet time
    /// (at the new rate) after the last one started.
    fn set_rate(&mut self, f: FlowId, rate: Rate) {
        let now = self.now_t();
        let preamble = self.preamble;
        let flow = &mut self.flows[f.idx()];
        let rate = rate.max(Rate(1));
        let line = flow.line_rate;
        if rate < line {
            flow.min_rate = flow.min_rate.min(rate);
            if flow.limited_since.is_none() {
                flow.limited_since = Some(now);
            }
        } else if let Some(since) = flow.limited_since.take() {
            flow.limited_ps += (now - since).0;
        }
        flow.pace = (rate < line).then_some(rate);
        let wire = if flow.last_wire > 0 { flow.last_wire } else { self.host.mtu + self.host.header_bytes + preamble };
        let next = if flow.pkts_sent > 0 { flow.last_tx + rate.min(line).tx_time(wire as u64) } else { now };
        let was = flow.next_tx;
        flow.next_tx = next;
        if flow.state == QpState::Waking && next < was {
            self.q.schedule(next.max(now), Event::QpWake(f));
        }
        if (self.rate_log.len() as u64) < self.stats_cfg.max_rows {
            self.rate_log.push((now, f.0, rate.min(line)));
        } else {
            self.rate_log_dropped += 1;
        }
    }
}
