//! BBR v1 (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00;
//! constants as in Linux tcp_bbr.c) on the sending NIC: a model of the path from two
//! estimates, the bottleneck bandwidth BtlBw (the largest delivery rate of the last 10
//! round trips, `rate.rs`) and the round-trip propagation time RTprop (the smallest RTT
//! of the last 10 s). The sender paces at pacing_gain x BtlBw and keeps at most
//! cwnd_gain x BtlBw x RTprop (+ a quantization allowance) in flight. Four modes:
//! Startup (gain 2/ln 2 until BtlBw has not grown by 25 % for three rounds), Drain (the
//! inverse gain until the inflight falls to one BDP), ProbeBW (the eight-phase gain cycle
//! 5/4, 3/4, 1 x 6, one phase per RTprop, starting at a random phase other than 3/4) and
//! ProbeRTT (every 10 s without a new RTprop: at most 4 segments in flight for 200 ms and
//! a round trip). Losses: packet conservation for the first round of fast recovery, one
//! segment after a timeout, the window before the loss restored when recovery ends. ECN
//! is ignored (v1). No switch side. ../shared/models/modern-cc.md, tcp-and-scheduling.md.
//!
//! Rate samples taken while the application had nothing more to send (the transport
//! reports it: `on_app_limited`) enter the BtlBw filter only if they raise it, refresh
//! the current maximum otherwise (Linux's filter does not expire without new samples),
//! and never end Startup: a request/response flow stays in Startup, unpaced below its
//! best estimate. Not modelled: the restart-from-idle pacing rule; TSO-sized send quanta
//! (the simulator sends one segment at a time); ECN (v1 ignores it).

mod keys;
pub mod rate;
#[cfg(test)]
mod tests;

pub use keys::BbrKeys;

use crate::models::{Ack, CcCtx, CongestionControl, Loss, LossKind, NicSpec};
use crate::units::{Rate, SimTime};
use rate::{MaxFilter, RateSampler};

/// 2 / ln 2: the smallest gain that doubles the delivery rate each round in Startup.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
/// The ProbeBW pacing gain cycle.
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Linux paces 1 % below the estimate (`bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.99;
/// BtlBw "still growing": by at least this factor per round...
const FULL_BW_THRESH: f64 = 1.25;
/// ...within this many rounds.
const FULL_BW_ROUNDS: u32 = 3;

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BbrParams {
    /// Initial window in MSS (RFC 6928: 10).
    pub init_cwnd: u32,
    /// cwnd_gain in ProbeBW (2).
    pub cwnd_gain: f64,
    /// Rounds of the BtlBw max filter (10).
    pub bw_rounds: u32,
    /// Window of the RTprop min filter; ProbeRTT when it expires (10 s).
    pub min_rtt_window: SimTime,
    /// Time in ProbeRTT with the inflight at the minimum (200 ms).
    pub probe_rtt_duration: SimTime,
    /// The smallest window, and the window in ProbeRTT, in MSS (4).
    pub min_cwnd: u32,
    /// Added to the target window, in MSS: 3 send quanta (the draft's 3 x send_quantum;
    /// one segment per quantum here, as segments leave one at a time).
    pub quantization: u32,
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams {
            init_cwnd: 10,
            cwnd_gain: 2.0,
            bw_rounds: 10,
            min_rtt_window: SimTime::ms(10_000),
            probe_rtt_duration: SimTime::ms(200),
            min_cwnd: 4,
            quantization: 3,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrParams,
    line_rate: Rate,
    mss: f64,
    /// Wire bits per payload byte (frame + preamble/IFG over payload, times 8).
    wire_bits: f64,
    pub(crate) mode: Mode,
    /// Congestion window (bytes) and the pacing rate.
    pub(crate) cwnd: f64,
    pub(crate) pacing: Rate,
    pub(crate) pacing_gain: f64,
    pub(crate) cwnd_gain: f64,
    pub(crate) rs: RateSampler,
    bw: MaxFilter,
    /// Round trips counted (a round ends when a segment sent after its start is acked).
    pub(crate) round: u64,
    next_round_delivered: u64,
    pub(crate) round_start: bool,
    /// RTprop estimate and when it was last set.
    pub(crate) min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    /// Startup's full-pipe detection.
    pub(crate) full_bw: f64,
    full_bw_count: u32,
    pub(crate) filled_pipe: bool,
    /// ProbeBW phase and when it began.
    pub(crate) cycle_idx: usize,
    cycle_stamp: SimTime,
    /// ProbeRTT: when it may end (set once the inflight is down), and whether a round
    /// has passed since.
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// The window to restore after recovery or ProbeRTT.
    pub(crate) prior_cwnd: f64,
    /// In loss recovery until the cumulative ACK reaches this segment.
    pub(crate) recovery_end: Option<u32>,
    /// First round of fast recovery: send one segment per segment delivered.
    pub(crate) conservation: bool,
}

impl Bbr {
    /// BtlBw in payload bytes per second.
    pub fn btl_bw(&self) -> f64 {
        self.bw.get(self.round)
    }

    /// gain x BtlBw x RTprop in bytes (`None` before the first RTT sample).
    fn bdp(&self, gain: f64) -> Option<f64> {
        self.min_rtt.map(|m| gain * self.btl_bw() * m.as_secs_f64())
    }

    fn target_cwnd(&self, gain: f64) -> f64 {
        match self.bdp(gain) {
            Some(b) if self.btl_bw() > 0.0 => b + self.p.quantization as f64 * self.mss,
            _ => self.p.init_cwnd as f64 * self.mss,
        }
    }

    fn min_cwnd(&self) -> f64 {
        self.p.min_cwnd as f64 * self.mss
    }

    fn save_cwnd(&mut self) {
        self.prior_cwnd =
            if self.recovery_end.is_none() && self.mode != Mode::ProbeRtt { self.cwnd } else { self.prior_cwnd.max(self.cwnd) };
    }

    fn set_pacing(&mut self, gain: f64) {
        let bw = self.btl_bw();
        if bw <= 0.0 {
            return; // no estimate yet: line rate
        }
        let r = Rate(((gain * bw * self.wire_bits * PACING_MARGIN) as u64).clamp(1, self.line_rate.0));
        // Startup never lowers the rate (a sample below the estimate is no news yet).
        if self.filled_pipe || r > self.pacing {
            self.pacing = r;
        }
    }

    fn enter_probe_bw(&mut self, now: SimTime, uniform: f64) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.p.cwnd_gain;
        // A random phase, never the 3/4 one (Linux: CYCLE_LEN - 1 - rand(7), advanced).
        let r = ((uniform * 7.0) as usize).min(6);
        self.cycle_idx = 7 - r;
        self.advance_cycle(now);
    }

    fn advance_cycle(&mut self, now: SimTime) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = now;
        self.pacing_gain = CYCLE[self.cycle_idx];
    }

    fn update_cycle(&mut self, now: SimTime, inflight: f64, lost: bool) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self.min_rtt.is_some_and(|m| now - self.cycle_stamp > m);
        let g = self.pacing_gain;
        let next = if g > 1.0 {
            full_length && (lost || self.bdp(g).is_none_or(|b| inflight >= b))
        } else if g < 1.0 {
            full_length || self.bdp(1.0).is_none_or(|b| inflight <= b)
        } else {
            full_length
        };
        if next {
            self.advance_cycle(now);
        }
    }

    fn check_full_bw(&mut self, app_limited: bool) {
        if self.filled_pipe || !self.round_start || app_limited {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.filled_pipe = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    fn check_drain(&mut self, now: SimTime, inflight: f64, uniform: f64) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && self.bdp(1.0).is_none_or(|b| inflight <= b) {
            self.enter_probe_bw(now, uniform);
        }
    }

    fn update_min_rtt(&mut self, now: SimTime, rtt: Option<SimTime>, inflight: f64, uniform: f64) {
        let expired = now > self.min_rtt_stamp + self.p.min_rtt_window;
        if let Some(r) = rtt {
            if self.min_rtt.is_none_or(|m| r < m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if inflight <= self.min_cwnd() => {
                self.probe_rtt_done = Some(now + self.p.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.rs.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now >= done {
                    self.min_rtt_stamp = now;
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(now, uniform);
                    } else {
                        self.mode = Mode::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
            }
        }
    }

    fn set_cwnd(&mut self, acked: f64, inflight: f64) {
        if acked > 0.0 {
            if self.conservation {
                self.cwnd = self.cwnd.max(inflight + acked);
            } else {
                let target = self.target_cwnd(self.cwnd_gain);
                if self.filled_pipe {
                    self.cwnd = (self.cwnd + acked).min(target);
                } else if self.cwnd < target || (self.rs.delivered as f64) < self.p.init_cwnd as f64 * self.mss {
                    self.cwnd += acked;
                }
                self.cwnd = self.cwnd.max(self.min_cwnd());
            }
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_cwnd());
        }
    }

    fn enter_recovery(&mut self, end: u32, cwnd: f64) {
        self.save_cwnd();
        self.recovery_end = Some(end);
        self.cwnd = cwnd;
        // Packet conservation for one round, counted from now.
        self.conservation = true;
        self.next_round_delivered = self.rs.delivered;
    }
}

impl CongestionControl for Bbr {
    type Params = BbrParams;
    fn from_params(p: &BbrParams, nic: &NicSpec) -> Self {
        let mss = nic.mss as f64;
        Bbr {
            p: p.clone(),
            line_rate: nic.line_rate,
            mss,
            wire_bits: 8.0 * nic.mtu_wire as f64 / mss,
            mode: Mode::Startup,
            cwnd: p.init_cwnd as f64 * mss,
            pacing: nic.line_rate,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            rs: RateSampler::new(nic.mss as u64),
            bw: MaxFilter::new(p.bw_rounds),
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            full_bw: 0.0,
            full_bw_count: 0,
            filled_pipe: false,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            recovery_end: None,
            conservation: false,
        }
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn window(&self) -> Option<u64> {
        Some(self.cwnd as u64)
    }
    fn rate(&self) -> Rate {
        self.pacing
    }

    fn on_send(&mut self, ctx: &mut CcCtx, _wire_bytes: u32) {
        self.rs.on_send(ctx.now);
    }

    fn on_app_limited(&mut self) {
        self.rs.on_app_limited();
    }

    fn on_loss(&mut self, _: &mut CcCtx, loss: &Loss) {
        match loss.kind {
            LossKind::FastRetransmit => {
                let cwnd = (loss.flight as f64).max(self.mss);
                self.enter_recovery(loss.snd_nxt, cwnd);
            }
            LossKind::Timeout => {
                self.save_cwnd();
                self.recovery_end = Some(loss.snd_nxt);
                self.conservation = false;
                self.cwnd = self.mss;
                self.rs.on_timeout();
                // Linux: the full-bandwidth estimate starts over; the next ACK opens a round.
                self.full_bw = 0.0;
                self.next_round_delivered = self.rs.delivered;
            }
        }
    }

    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) {
        let now = ctx.now;
        let inflight = ack.snd_nxt.saturating_sub(ack.acked_to) as f64 * self.mss;
        // Leaving recovery restores the window from before the loss.
        if self.recovery_end.is_some_and(|end| ack.acked_to >= end) {
            self.recovery_end = None;
            self.conservation = false;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        let lost = ack.nak && self.recovery_end.is_none();
        if lost {
            self.enter_recovery(ack.snd_nxt, inflight.max(self.mss));
        }
        // The model: a rate sample, the round count, BtlBw.
        let sent = now - ack.rtt;
        let sample = self.rs.on_ack(now, ack.newly_acked, sent, self.min_rtt);
        self.round_start = false;
        let mut app_limited = false;
        if let Some(s) = sample {
            if s.prior_delivered >= self.next_round_delivered {
                self.next_round_delivered = self.rs.delivered;
                self.round += 1;
                self.round_start = true;
                self.conservation = false;
            }
            if let Some(bw) = s.bw {
                let max = self.btl_bw();
                if !s.app_limited || bw >= max {
                    self.bw.update(self.round, bw);
                } else {
                    self.bw.update(self.round, max);
                }
            }
            app_limited = s.app_limited;
        }
        // Every ACK echoes the send time of a segment that just arrived: an RTT sample.
        let rtt = Some(ack.rtt);
        self.update_cycle(now, inflight, lost);
        self.check_full_bw(app_limited);
        self.check_drain(now, inflight, ctx.uniform);
        self.update_min_rtt(now, rtt, inflight, ctx.uniform);
        // The control: pacing rate and window.
        self.set_pacing(self.pacing_gain);
        let acked = if ack.newly_acked > 0 {
            ack.newly_acked as f64
        } else if !ack.nak {
            self.mss
        } else {
            0.0
        };
        self.set_cwnd(acked, inflight);
    }
}
