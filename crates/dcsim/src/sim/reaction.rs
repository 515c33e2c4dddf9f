//! The engine side of every reaction point: runs a hook of the flow's congestion control
//! (`models::Cc`) and applies what it asked for (timers, a new pacing rate, a FECN probe).
//! The algorithms themselves live in `models/`; they never see the world.

use super::{QpState, Sender, Simulation};
use crate::event::Event;
use crate::ids::FlowId;
use crate::models::{Cc, CcCtx};
use crate::net::packet::{Feedback, Packet};
use crate::rng::{keyed, unit};
use crate::units::{Rate, SimTime};

impl Simulation {
    /// A CNP for flow `f` reached its sender.
    pub(crate) fn on_cnp_received(&mut self, f: FlowId) {
        self.tx_stats[f.idx()].cnps_rx += 1;
        if self.senders.get(f.idx()).is_none_or(|s| s.done) {
            return;
        }
        self.cc_hook(f, |cc, ctx| cc.on_cnp(ctx));
    }

    /// A feedback frame (QCN CNM, BCN, BCN00) reached the source host.
    pub(crate) fn on_feedback_frame(&mut self, pkt: &Packet) {
        self.feedback_to(pkt.flow, pkt.feedback_of());
    }

    /// Feedback for flow `f`'s reaction point: a feedback frame's, or a rate a fabric
    /// model brings back (`After::Feedback`: a FECN probe's).
    pub(crate) fn feedback_to(&mut self, f: FlowId, fb: Feedback) {
        if self.senders.get(f.idx()).is_none_or(|s| s.done) {
            return; // the source has stopped: nothing to regulate
        }
        self.tx_stats[f.idx()].feedback_rx += 1;
        self.cc_hook(f, |cc, ctx| cc.on_feedback(ctx, fb));
    }

    pub(crate) fn on_cc_timer(&mut self, f: FlowId, kind: u8, gen: u32) {
        // (A retired sender's timers were all cancelled when it finished.)
        if self.cc_timers.get(f.idx()).is_none_or(|t| t.gen[kind as usize] != gen) {
            return;
        }
        self.cc_hook(f, |cc, ctx| cc.on_timer(ctx, kind));
    }

    /// Runs one hook of the flow's congestion control, then applies what it asked for:
    /// timers to (re)start or cancel, and a new rate. The quiet expiries that fell due
    /// before it run first.
    pub(crate) fn cc_hook(&mut self, f: FlowId, hook: impl FnOnce(&mut Cc, &mut CcCtx)) {
        if self.senders[f.idx()].cc_quiet {
            self.run_quiet_timers(f);
        }
        let mut ctx = self.hook_ctx(f, self.now_t());
        let cc = &mut self.ccs[f.idx()];
        let old = cc.rate();
        hook(cc, &mut ctx);
        self.apply_timers(f, &ctx);
        let probe = ctx.send_probe;
        let new = self.ccs[f.idx()].rate();
        if new != old {
            self.set_rate(f, new);
        }
        if self.senders[f.idx()].traced {
            self.trace_cc(f);
        }
        if probe {
            self.send_probe(f);
        }
    }

    /// The context of flow `f`'s next hook, run at `at`, with that hook's own random draw.
    #[inline]
    fn hook_ctx(&mut self, f: FlowId, at: SimTime) -> CcCtx {
        let flow = &mut self.senders[f.idx()];
        let mut ctx = CcCtx::new(at, flow.line_rate);
        flow.cc_draws += 1;
        ctx.uniform = unit(keyed(self.setup.cc_key, &[f.0 as u64, flow.cc_draws as u64]));
        ctx
    }

    /// The timer requests of a hook: cancels, restarts (an event, or held back if quiet),
    /// and held-back timers the hook made matter, which become events.
    #[inline]
    fn apply_timers(&mut self, f: FlowId, ctx: &CcCtx) {
        if ctx.requested().is_empty() && ctx.cancelled() == 0 && !self.senders[f.idx()].cc_quiet {
            return; // most ACK hooks: nothing to do, and the timers' record stays cold
        }
        let now = ctx.now;
        let (t, cc) = (&mut self.cc_timers[f.idx()], &self.ccs[f.idx()]);
        for k in 0..4 {
            if ctx.cancelled() & (1 << k) != 0 {
                t.gen[k] = t.gen[k].wrapping_add(1);
                t.quiet[k] = SimTime::MAX;
            }
        }
        for &(k, at) in ctx.requested() {
            let i = k as usize;
            t.gen[i] = t.gen[i].wrapping_add(1);
            t.quiet[i] = at.max(now);
        }
        let mut held = false;
        for k in 0..4 {
            let at = t.quiet[k];
            if at == SimTime::MAX {
                continue;
            }
            if self.setup.hold_quiet && cc.quiet_timer(k as u8) {
                held = true;
            } else {
                t.quiet[k] = SimTime::MAX;
                self.fx.q.schedule(at, Event::CcTimer(f, k as u8, t.gen[k]));
            }
        }
        self.senders[f.idx()].cc_quiet = held;
    }

    /// Runs flow `f`'s held-back quiet expiries that its events would have run by now
    /// (before the event being served), one by one in the events' order, each at its
    /// own time, as its event would have: with its own random draw, restarting its
    /// timer (which stays quiet: `CongestionControl::quiet_timer`).
    #[inline(never)]
    fn run_quiet_timers(&mut self, f: FlowId) {
        let now = self.now_t();
        loop {
            let t = &self.cc_timers[f.idx()];
            if t.quiet.iter().all(|&at| at > now) {
                return;
            }
            let ev = |k: usize| Event::CcTimer(f, k as u8, t.gen[k]);
            let Some(k) = (0..4).filter(|&k| t.quiet[k] <= now).min_by_key(|&k| self.fx.q.rank(t.quiet[k], ev(k))) else { return };
            let at = t.quiet[k];
            if !self.fx.q.passed(at, ev(k)) {
                return;
            }
            let mut ctx = self.hook_ctx(f, at);
            let cc = &mut self.ccs[f.idx()];
            let before = (cc.rate(), cc.window());
            cc.on_timer(&mut ctx, k as u8);
            debug_assert!(before == (cc.rate(), cc.window()) && !ctx.send_probe, "a quiet expiry changed the flow's rate or window");
            self.apply_timers(f, &ctx);
        }
    }

    /// `stats.trace_flows`: a row when the window or the rate of flow `f` changed.
    #[cold]
    fn trace_cc(&mut self, f: FlowId) {
        let cc = &self.ccs[f.idx()];
        let now = (cc.window().unwrap_or(u64::MAX), cc.rate().min(self.senders[f.idx()].line_rate));
        if self.rec.cc_trace_last[f.idx()] == now {
            return;
        }
        self.rec.cc_trace_last[f.idx()] = now;
        self.rec.cc_trace.push((self.now_t(), f.0, now.0, now.1));
    }

    /// Paces flow `f` at its congestion control's `rate` (at most its `rate_cap`) from
    /// now on: the next packet may start one packet time (at the new rate) after the
    /// last one started.
    fn set_rate(&mut self, f: FlowId, rate: Rate) {
        let now = self.now_t();
        let preamble = self.fx.preamble;
        let flow = &mut self.senders[f.idx()];
        let st = &mut self.tx_stats[f.idx()];
        let rate = rate.max(Rate(1));
        let line = flow.line_rate;
        if rate < line {
            st.min_rate = st.min_rate.min(rate);
            if st.limited_since.is_none() {
                st.limited_since.set(now);
            }
        } else if let Some(since) = st.limited_since.take() {
            st.limited_ps += (now - since).0;
        }
        let send = rate.min(flow.rate_cap);
        flow.pace = Sender::encode_pace((send < line).then_some(send));
        let wire = if flow.last_wire > 0 { flow.last_wire } else { self.host.mtu + self.host.header_bytes + preamble };
        let next = if flow.last_wire > 0 { flow.last_tx + send.min(line).tx_time(wire as u64) } else { now };
        let was = flow.next_tx;
        flow.next_tx = next;
        if flow.state == QpState::Waking && next < was {
            self.fx.q.schedule(next.max(now), Event::QpWake(f));
        }
        self.rec.rate_log.push((now, f.0, rate.min(line)));
    }
}
