//! NSCC, the Ultra Ethernet transport's network-signal-based congestion control (UEC 1.0
//! specification, congestion management; the UEC htsim model's `uec.cpp` is the public
//! reference implementation). A window of bytes in flight, driven per ACK by two
//! signals: the ECN echo and the queueing delay (RTT minus base RTT) against a target.
//!
//! ```text
//! per ACK of `acked` bytes with delay d:
//!   quick adapt (once per base_rtt + target): after a loss, or d > qa_threshold, when
//!     less than max_cwnd / 2^qa_gate was acknowledged in the last period:
//!     cwnd = achieved bytes, then the marks of what was in flight are ignored
//!   no ECN, d >= target: fair increase          inc += fi acked
//!   no ECN, d <  target: proportional increase  inc += alpha acked (target - d)
//!                        (d < 1 us for a whole window: fast increase cwnd += fi_scale acked)
//!   ECN,    d >= target: multiplicative decrease, at most once per base RTT:
//!                        cwnd *= max(1 - gamma (avg - target) / avg, 1 - max_md)
//!   ECN,    d <  target: nothing (the marks are another path's: UET changes entropy)
//!   every adjust_bytes acknowledged or adjust_period: cwnd += inc / cwnd (and + eta
//!   once per adjust_period)
//! NAK (a loss): quick adapt is triggered; if it does not act, cwnd -= one packet.
//! cwnd in [min_cwnd, max_cwnd]; max_cwnd = 1.5 BDP over the base RTT, which is lowered
//! to the smallest RTT the flow measures.
//! ```
//!
//! `avg` is an EWMA of the delay (gain `delay_ewma`); a delay above target on an
//! unmarked ACK enters it as base_rtt / 4 (the queue that made it is not the flow's).
//! The gains scale with the fabric as the specification's reference (100 Gb/s, 12 us):
//! a = BDP / (100 Gb/s x 12 us), b = target / 12 us; fi = 5 MSS a, alpha = 4 MSS a b /
//! target, eta = 0.15 MSS a, fi_scale = 0.25 a. Nothing here assumes in-order delivery:
//! each ACK's RTT comes from the send time its data frame carried, and acknowledged
//! bytes are counted as they come, whatever their order. docs/models/uet.md.

mod keys;
pub use keys::NsccKeys;

use crate::models::{Ack, CcCtx, CongestionControl, NicSpec};
use crate::units::{Rate, SimTime};

/// The specification's reference fabric for the gains' scaling: 100 Gb/s, 12 us.
pub const REF_RATE_BPS: f64 = 100e9;
pub const REF_RTT_PS: f64 = 12e6;

/// Resolved parameters. `None`: derived from the NIC and the fabric (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct NsccParams {
    /// Target queueing delay (default: the base RTT).
    pub target: Option<SimTime>,
    /// Initial base RTT (default: the fabric's largest base RTT, `NicSpec::base_rtt`).
    pub base_rtt: Option<SimTime>,
    /// Multiplicative-decrease gain (0.8) and its largest cut per decrease (0.5).
    pub gamma: f64,
    pub max_md: f64,
    /// Fair increase (bytes), proportional gain (bytes per ps of delay below target),
    /// per-period increase (bytes), fast-increase scale (defaults scaled from the
    /// reference, module docs).
    pub fi: Option<f64>,
    pub alpha: Option<f64>,
    pub eta: Option<f64>,
    pub fi_scale: Option<f64>,
    /// Below this delay for a whole window of ACKs, the window grows fast (1 us).
    pub fast_increase_delay: SimTime,
    /// Quick adapt on, its gate (acts when less than max_cwnd / 2^qa_gate was
    /// acknowledged in a period; 3) and delay threshold (default 4 x target).
    pub quick_adapt: bool,
    pub qa_gate: u32,
    pub qa_threshold: Option<SimTime>,
    /// Gain of the delay EWMA (0.0125).
    pub delay_ewma: f64,
    /// Apply the accumulated increase every adjust_bytes acknowledged (default 8
    /// packets) or adjust_period (default the base RTT).
    pub adjust_bytes: Option<u64>,
    pub adjust_period: Option<SimTime>,
    /// Window bounds and start, bytes (defaults: one packet, 1.5 BDP, max_cwnd).
    pub min_cwnd: Option<u64>,
    pub max_cwnd: Option<u64>,
    pub init_cwnd: Option<u64>,
    /// React to NAKs as losses (the UET transport NACKs trimmed or lost packets).
    pub nak_is_loss: bool,
}

impl Default for NsccParams {
    fn default() -> Self {
        NsccParams {
            target: None,
            base_rtt: None,
            gamma: 0.8,
            max_md: 0.5,
            fi: None,
            alpha: None,
            eta: None,
            fi_scale: None,
            fast_increase_delay: SimTime::us(1),
            quick_adapt: true,
            qa_gate: 3,
            qa_threshold: None,
            delay_ewma: 0.0125,
            adjust_bytes: None,
            adjust_period: None,
            min_cwnd: None,
            max_cwnd: None,
            init_cwnd: None,
            nak_is_loss: true,
        }
    }
}

/// Which of the four (ECN, delay) quadrants an ACK fell in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quadrant {
    FairIncrease,
    ProportionalIncrease,
    MultiplicativeDecrease,
    NoChange,
}

impl Quadrant {
    pub fn of(ecn: bool, delay: f64, target: f64) -> Quadrant {
        match (ecn, delay >= target) {
            (false, true) => Quadrant::FairIncrease,
            (false, false) => Quadrant::ProportionalIncrease,
            (true, true) => Quadrant::MultiplicativeDecrease,
            (true, false) => Quadrant::NoChange,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Nscc {
    p: NsccParams,
    line: Rate,
    mss: f64,
    /// Constants resolved from the NIC (ps, bytes, bytes/ps).
    pub(crate) target: f64,
    qa_threshold: f64,
    pub(crate) fi: f64,
    pub(crate) alpha: f64,
    pub(crate) eta: f64,
    pub(crate) fi_scale: f64,
    adjust_bytes: f64,
    adjust_period: f64,
    min_cwnd: f64,
    /// max_cwnd follows the base RTT unless it was given.
    max_fixed: bool,
    pub(crate) max_cwnd: f64,
    /// The configured base RTT (the fabric's), before samples lower it.
    net_rtt: f64,
    /// State.
    pub(crate) base_rtt: f64,
    pub(crate) cwnd: f64,
    pub(crate) avg_delay: f64,
    pub(crate) inc: f64,
    received: f64,
    achieved: f64,
    qa_end: Option<SimTime>,
    trigger_qa: bool,
    to_ignore: f64,
    ignored: f64,
    last_dec: SimTime,
    last_adjust: SimTime,
    fi_count: f64,
    increasing: bool,
    pub(crate) last: Quadrant,
}

impl Nscc {
    fn bdp(&self, rtt: f64) -> f64 {
        self.line.0 as f64 * rtt / 8e12
    }

    fn bound(&mut self) {
        self.cwnd = self.cwnd.clamp(self.min_cwnd, self.max_cwnd);
    }

    /// A new RTT sample: the base RTT is the smallest seen (and max_cwnd 1.5 BDP of it).
    fn sample_base(&mut self, rtt: f64) {
        if rtt > 0.0 && rtt < self.base_rtt {
            self.base_rtt = rtt;
            if !self.max_fixed {
                self.max_cwnd = (1.5 * self.bdp(rtt)).max(self.min_cwnd);
            }
        }
    }

    fn update_avg(&mut self, delay: f64, ecn: bool) {
        let a = self.p.delay_ewma;
        let sample = if !ecn && delay > self.target { 0.25 * self.base_rtt } else { delay };
        self.avg_delay = a * sample + (1.0 - a) * self.avg_delay;
    }

    /// Quick adapt: true when it acted (or the ACK is one whose marks are ignored), so
    /// the quadrant's action is skipped.
    fn quick_adapt(&mut self, now: SimTime, loss: bool, ecn: bool, delay: f64, in_flight: f64) -> bool {
        if !self.p.quick_adapt {
            return false;
        }
        let mut done = false;
        if ecn && self.ignored < self.to_ignore {
            done = true;
        } else if self.qa_end.is_none_or(|end| now > end) {
            let gate = self.max_cwnd / f64::powi(2.0, self.p.qa_gate as i32);
            if self.qa_end.is_some() && (self.trigger_qa || loss || delay > self.qa_threshold) && self.achieved < gate {
                self.cwnd = self.achieved.max(self.min_cwnd);
                self.to_ignore = in_flight;
                self.ignored = 0.0;
                self.trigger_qa = false;
                done = true;
            }
            self.achieved = 0.0;
            self.qa_end = Some(now + SimTime((self.base_rtt + self.target) as u64));
        }
        if done {
            self.inc = 0.0;
            self.received = 0.0;
        }
        done
    }

    /// Fast increase: a whole window of ACKs below `fast_increase_delay`, then every
    /// such ACK adds fi_scale x acked at once. True when it acted.
    fn fast_increase(&mut self, acked: f64, delay: f64) -> bool {
        if delay < self.p.fast_increase_delay.0 as f64 {
            self.fi_count += acked;
            if self.fi_count > self.cwnd || self.increasing {
                self.cwnd += acked * self.fi_scale;
                self.increasing = true;
                return true;
            }
        } else {
            self.fi_count = 0.0;
        }
        self.increasing = false;
        false
    }

    fn multiplicative_decrease(&mut self, now: SimTime) {
        self.increasing = false;
        self.fi_count = 0.0;
        let avg = self.avg_delay;
        if avg > self.target && (now.0 - self.last_dec.0) as f64 > self.base_rtt {
            self.cwnd *= (1.0 - self.p.gamma * (avg - self.target) / avg).max(1.0 - self.p.max_md);
            self.cwnd = self.cwnd.max(self.min_cwnd);
            self.last_dec = now;
        }
    }

    /// The accumulated increase is applied once per adjust_bytes or adjust_period.
    fn fulfill(&mut self, now: SimTime) {
        self.cwnd += self.inc / self.cwnd;
        if (now.0 - self.last_adjust.0) as f64 >= self.adjust_period {
            self.cwnd += self.eta;
            self.last_adjust = now;
        }
        self.inc = 0.0;
        self.received = 0.0;
    }

    /// One ACK's reaction: `delay` (ps) above the base RTT, `ecn` echoed, `acked` bytes
    /// newly acknowledged, `in_flight` bytes outstanding.
    pub fn on_signal(&mut self, now: SimTime, ecn: bool, delay: f64, acked: f64, in_flight: f64) {
        self.achieved += acked;
        self.received += acked;
        self.ignored += acked;
        if self.quick_adapt(now, false, ecn, delay, in_flight) {
            return;
        }
        self.last = Quadrant::of(ecn, delay, self.target);
        match self.last {
            Quadrant::FairIncrease => self.inc += self.fi * acked,
            Quadrant::ProportionalIncrease => {
                if !self.fast_increase(acked, delay) {
                    self.inc += self.alpha * acked * (self.target - delay);
                }
            }
            Quadrant::MultiplicativeDecrease => self.multiplicative_decrease(now),
            Quadrant::NoChange => {}
        }
        self.bound();
        if self.received > self.adjust_bytes || (now.0 - self.last_adjust.0) as f64 > self.adjust_period {
            self.fulfill(now);
        }
        self.bound();
    }

    /// A loss (a NAK): quick adapt is due; if it does not act now, one packet less.
    pub fn on_lost(&mut self, now: SimTime, acked: f64, in_flight: f64) {
        self.achieved += acked;
        self.received += acked;
        self.ignored += acked + self.mss;
        // The loss stands for a full queue: the delay average sees one fabric RTT.
        let d = self.net_rtt;
        self.update_avg(d, true);
        self.trigger_qa = true;
        if !self.quick_adapt(now, true, true, 0.0, in_flight) {
            self.cwnd -= self.mss;
            self.bound();
        }
    }

    /// The window, bytes.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
}

impl CongestionControl for Nscc {
    type Params = NsccParams;
    fn from_params(p: &NsccParams, nic: &NicSpec) -> Self {
        let mss = nic.mss as f64;
        let line = nic.line_rate;
        let base = p.base_rtt.unwrap_or(nic.base_rtt).0.max(1) as f64;
        let target = p.target.map_or(base, |t| t.0 as f64);
        let bdp = line.0 as f64 * base / 8e12;
        let a = bdp / (REF_RATE_BPS * REF_RTT_PS / 8e12);
        let b = target / REF_RTT_PS;
        let min_cwnd = p.min_cwnd.map_or(mss, |v| v as f64);
        let max_cwnd = p.max_cwnd.map_or(1.5 * bdp, |v| v as f64).max(min_cwnd);
        let cwnd = p.init_cwnd.map_or(max_cwnd, |v| v as f64).clamp(min_cwnd, max_cwnd);
        Nscc {
            p: p.clone(),
            line,
            mss,
            target,
            qa_threshold: p.qa_threshold.map_or(4.0 * target, |t| t.0 as f64),
            fi: p.fi.unwrap_or(5.0 * mss * a),
            alpha: p.alpha.unwrap_or(4.0 * mss * a * b / target),
            eta: p.eta.unwrap_or(0.15 * mss * a),
            fi_scale: p.fi_scale.unwrap_or(0.25 * a),
            adjust_bytes: p.adjust_bytes.map_or(8.0 * mss, |v| v as f64),
            adjust_period: p.adjust_period.map_or(base, |t| t.0 as f64),
            min_cwnd,
            max_fixed: p.max_cwnd.is_some(),
            max_cwnd,
            net_rtt: base,
            base_rtt: base,
            cwnd,
            avg_delay: 0.0,
            inc: 0.0,
            received: 0.0,
            achieved: 0.0,
            qa_end: None,
            trigger_qa: false,
            to_ignore: 0.0,
            ignored: 0.0,
            last_dec: SimTime::ZERO,
            last_adjust: SimTime::ZERO,
            fi_count: 0.0,
            increasing: false,
            last: Quadrant::NoChange,
        }
    }
    fn plan_flags(_: &NsccParams) -> Option<(bool, bool, bool)> {
        Some((true, true, false))
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn wants_send(&self) -> bool {
        false
    }
    fn window(&self) -> Option<u64> {
        Some((self.cwnd as u64).max(1))
    }
    /// Window only: the sender goes at line rate within it.
    fn shift_times(&mut self, by: SimTime) {
        self.qa_end = self.qa_end.map(|t| t + by);
        self.last_dec = self.last_dec + by;
        self.last_adjust = self.last_adjust + by;
    }
    fn rate(&self) -> Rate {
        self.line
    }

    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack<'_>) {
        let in_flight = ack.snd_nxt.saturating_sub(ack.acked_to) as f64 * self.mss;
        let acked = ack.newly_acked as f64;
        if ack.nak && self.p.nak_is_loss {
            return self.on_lost(ctx.now, acked, in_flight);
        }
        let rtt = ack.rtt.0 as f64;
        self.sample_base(rtt);
        let delay = if rtt >= self.base_rtt {
            let d = rtt - self.base_rtt;
            self.update_avg(d, ack.ece);
            d
        } else {
            self.avg_delay
        };
        self.on_signal(ctx.now, ack.ece, delay, acked, in_flight);
    }
}

#[cfg(test)]
mod tests;
