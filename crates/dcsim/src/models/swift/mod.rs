//! Swift (Kumar et al., SIGCOMM 2020): delay-based window control at the sending NIC,
//! as in ../shared/models/modern-cc.md 10.4 (the CSG-HTSIM form of the paper's rules).
//! Two windows, each with its own delay target, and the flow sends within the smaller:
//!
//! * fabric window: fabric delay (RTT minus endpoint delay) against
//!   `base_target + hops h + fs_delay(cwnd)` (flow-scaled: small windows get more slack);
//! * endpoint window: endpoint delay against `host_target` (off unless set).
//!
//! ```text
//! per ACK, per window:  delay < target: cwnd += ai num_acked / cwnd  (cwnd >= 1 packet)
//!                                       cwnd += ai num_acked          (cwnd < 1 packet)
//!                       else, at most once per RTT:
//!                           cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf)
//! NAK / fast retransmit: cwnd *= 1 - max_mdf (once per RTT), once per loss episode:
//!                        NAKs until the cumulative ACK passes what was sent at the
//!                        first one hold the window
//! timeout: retransmits += 1; >= 5 in a row: cwnd = min_cwnd; else as a fast retransmit
//! cwnd clamped to [min_cwnd, max_cwnd]; below one packet the sender paces at
//! cwnd packets per RTT.
//! ```
//!
//! The engine's receivers ACK at once, so the endpoint delay an ACK reports is 0 in dcsim
//! (`Ack` carries no receiver-side delay): the endpoint window then only grows, and the
//! fabric window sees the whole RTT. The per-flow hop count is the `hops` key (the engine
//! does not hand algorithms their path length). No switch side: Swift needs no marking.

mod keys;
pub use keys::SwiftKeys;

use crate::models::{Ack, CcCtx, CongestionControl, Loss, LossKind, NicSpec};
use crate::units::{Rate, SimTime};

/// Resolved parameters (defaults: CSG-HTSIM's, modern-cc.md 10.4).
#[derive(Clone, Debug, PartialEq)]
pub struct SwiftParams {
    pub base_target: SimTime,
    /// Target added per hop (default base_target / 6.55).
    pub hop_scale: SimTime,
    /// Switches on the flow's path.
    pub hops: u32,
    /// Additive increase, packets per RTT.
    pub ai: f64,
    pub beta: f64,
    pub max_mdf: f64,
    /// Flow scaling: the extra target ranges over [0, fs_range] for windows between
    /// fs_max_cwnd and fs_min_cwnd packets.
    pub fs_range: SimTime,
    pub fs_min_cwnd: f64,
    pub fs_max_cwnd: f64,
    /// Window bounds, packets.
    pub min_cwnd: f64,
    pub max_cwnd: f64,
    /// Endpoint delay target (`None`: no endpoint window).
    pub host_target: Option<SimTime>,
    /// Timeouts in a row after which the window drops to min_cwnd.
    pub retx_reset: u32,
    /// Initial window, packets (`None`: one line-rate BDP over the fabric's base RTT).
    pub init_cwnd: Option<f64>,
}

impl Default for SwiftParams {
    fn default() -> Self {
        let base = SimTime::us(20);
        SwiftParams {
            base_target: base,
            hop_scale: SimTime((base.0 as f64 / 6.55) as u64),
            hops: 1,
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            fs_range: SimTime(5 * base.0),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            min_cwnd: 0.01,
            max_cwnd: 1000.0,
            host_target: None,
            retx_reset: 5,
            init_cwnd: None,
        }
    }
}

/// One of Swift's two windows (packets) and the time of its last decrease.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    pub(crate) cwnd: f64,
    last_decrease: Option<SimTime>,
}

#[derive(Clone, Debug)]
pub struct Swift {
    p: SwiftParams,
    line: Rate,
    mss: f64,
    mtu_wire: f64,
    fs_alpha: f64,
    fs_beta: f64,
    pub(crate) fabric: Window,
    pub(crate) host: Window,
    /// The latest RTT sample (ps): the "once per RTT" of decreases and the pacing period.
    pub(crate) rtt: f64,
    pub(crate) retransmits: u32,
    /// In a loss episode (a NAK's fast recovery): the sequence the cumulative ACK must
    /// reach to end it (`snd_nxt` at the NAK that began it).
    recover_to: Option<u32>,
}

impl Swift {
    /// The fabric target for the current window (ps): base + hops h + flow scaling.
    pub fn fabric_target(&self) -> f64 {
        let p = &self.p;
        let fs = (self.fs_alpha / self.fabric.cwnd.sqrt() + self.fs_beta).clamp(0.0, p.fs_range.0 as f64);
        p.base_target.0 as f64 + p.hops as f64 * p.hop_scale.0 as f64 + fs
    }

    /// The window the flow sends within (packets).
    pub fn cwnd(&self) -> f64 {
        self.fabric.cwnd.min(self.host.cwnd)
    }

    fn can_decrease(&self, w: &Window, now: SimTime) -> bool {
        w.last_decrease.is_none_or(|t| (now.0 - t.0) as f64 >= self.rtt)
    }

    /// One window's reaction to a delay sample against its target.
    fn react(&mut self, fabric: bool, now: SimTime, delay: f64, target: f64, acked: f64) {
        let (ai, beta, mdf) = (self.p.ai, self.p.beta, self.p.max_mdf);
        let can = self.can_decrease(if fabric { &self.fabric } else { &self.host }, now);
        let (lo, hi) = (self.p.min_cwnd, self.p.max_cwnd);
        let w = if fabric { &mut self.fabric } else { &mut self.host };
        if delay < target {
            w.cwnd += if w.cwnd >= 1.0 { ai * acked / w.cwnd } else { ai * acked };
        } else if can {
            w.cwnd *= (1.0 - beta * (delay - target) / delay).max(1.0 - mdf);
            w.last_decrease = Some(now);
        }
        w.cwnd = w.cwnd.clamp(lo, hi);
    }

    /// Both windows on an ACK of `acked` packets with these delays (ps).
    pub fn on_delays(&mut self, now: SimTime, fabric_delay: f64, host_delay: f64, acked: f64) {
        let target = self.fabric_target();
        self.react(true, now, fabric_delay, target, acked);
        if let Some(t) = self.p.host_target {
            self.react(false, now, host_delay, t.0 as f64, acked);
        }
    }

    /// A multiplicative decrease by max_mdf on both windows (once per RTT each).
    fn cut(&mut self, now: SimTime) {
        let (lo, hi, f) = (self.p.min_cwnd, self.p.max_cwnd, 1.0 - self.p.max_mdf);
        for fabric in [true, false] {
            let can = self.can_decrease(if fabric { &self.fabric } else { &self.host }, now);
            let w = if fabric { &mut self.fabric } else { &mut self.host };
            if can {
                w.cwnd = (w.cwnd * f).clamp(lo, hi);
                w.last_decrease = Some(now);
            }
        }
    }

    fn timeout(&mut self, now: SimTime) {
        self.retransmits += 1;
        if self.retransmits >= self.p.retx_reset {
            self.fabric.cwnd = self.p.min_cwnd;
            self.fabric.last_decrease = Some(now);
        } else {
            self.cut(now);
        }
    }
}

impl CongestionControl for Swift {
    type Params = SwiftParams;
    fn from_params(p: &SwiftParams, nic: &NicSpec) -> Self {
        let mss = nic.mss as f64;
        let bdp = nic.line_rate.0 as f64 * nic.base_rtt.0 as f64 / 8e12 / mss;
        let init = p.init_cwnd.unwrap_or(bdp).clamp(p.min_cwnd, p.max_cwnd);
        let fs_alpha = p.fs_range.0 as f64 / (1.0 / p.fs_min_cwnd.sqrt() - 1.0 / p.fs_max_cwnd.sqrt());
        Swift {
            p: p.clone(),
            line: nic.line_rate,
            mss,
            mtu_wire: nic.mtu_wire as f64,
            fs_alpha,
            fs_beta: -fs_alpha / p.fs_max_cwnd.sqrt(),
            fabric: Window { cwnd: init, last_decrease: None },
            host: Window { cwnd: p.max_cwnd, last_decrease: None },
            rtt: nic.base_rtt.0 as f64,
            retransmits: 0,
            recover_to: None,
        }
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn window(&self) -> Option<u64> {
        Some(((self.cwnd() * self.mss) as u64).max(1))
    }
    /// Line rate with a window of a packet or more; below, cwnd packets per RTT.
    fn shift_times(&mut self, by: SimTime) {
        for w in [&mut self.fabric, &mut self.host] {
            w.last_decrease = w.last_decrease.map(|t| t + by);
        }
    }
    fn rate(&self) -> Rate {
        let c = self.cwnd();
        if c >= 1.0 {
            return self.line;
        }
        let bps = c * self.mtu_wire * 8.0 / (self.rtt / 1e12);
        Rate((bps as u64).clamp(1, self.line.0))
    }

    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) {
        if ack.rtt.0 > 0 {
            self.rtt = ack.rtt.0 as f64;
        }
        if self.recover_to.is_some_and(|r| ack.acked_to >= r) {
            self.recover_to = None;
        }
        if ack.nak {
            // A loss episode is one fast recovery: a selective-repeat receiver NAKs the
            // holes of a lossy window one after another (the next once the one before is
            // filled), and those NAKs hold the window.
            if self.recover_to.is_none() {
                self.recover_to = Some(ack.snd_nxt);
                self.cut(ctx.now);
            }
            return;
        }
        if ack.newly_acked > 0 {
            self.retransmits = 0;
        }
        if ack.recovery {
            return;
        }
        // dcsim's receivers answer at once: no endpoint delay (see the module docs).
        self.on_delays(ctx.now, self.rtt, 0.0, ack.newly_acked as f64 / self.mss);
    }

    fn on_loss(&mut self, ctx: &mut CcCtx, loss: &Loss) {
        match loss.kind {
            LossKind::FastRetransmit => self.cut(ctx.now),
            LossKind::Timeout => self.timeout(ctx.now),
        }
    }
}

#[cfg(test)]
mod tests;
