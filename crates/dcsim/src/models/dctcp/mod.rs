//! DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) in its window form, on the sending
//! NIC: the fraction of ECN-marked bytes per window of data drives the estimate alpha,
//! and an ECN echo cuts the window by alpha / 2, at most once per window. Otherwise the
//! window grows as in NewReno (slow start, then one MSS per RTT). The switch side is ECN
//! step marking at K (`[switch.ecn] mode = "step"`, `models/ecn/`); the receiver echoes
//! CE in every ACK (`host.ack_every = 1`, the default). A NAK (go-back-N after a loss)
//! halves the window; on a TCP flow the transport reports losses through `on_loss`
//! (halve at a fast retransmit, one segment after a timeout) and the window is held
//! during its fast recovery. ../shared/models/modern-cc.md 10.3. The NIC rate form
//! (`type = "dctcp_rate"`) is `rate.rs`.

mod keys;
pub mod rate;
pub use keys::DctcpKeys;
pub use rate::{DctcpRate, DctcpRateKeys};

use crate::models::{Ack, CcCtx, CongestionControl, Loss, LossKind, NicSpec};
use crate::units::Rate;

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpParams {
    /// Weight g of a window's marked fraction in alpha (RFC 8257: 1/16).
    pub g: f64,
    /// alpha at the start (ns-3 `DctcpAlphaOnInit`: 1).
    pub alpha_init: f64,
    /// Initial window in MSS (RFC 6928: 10).
    pub init_cwnd: u32,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams { g: 1.0 / 16.0, alpha_init: 1.0, init_cwnd: 10 }
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    p: DctcpParams,
    line_rate: Rate,
    mss: f64,
    /// Congestion window and slow-start threshold (bytes).
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: f64,
    pub(crate) alpha: f64,
    /// Bytes acknowledged, and of them ECN-echoed, in the current observation window.
    acked: u64,
    marked: u64,
    /// The observation window ends when the cumulative ACK passes this sequence number.
    window_end: Option<u32>,
    /// In CWR (window already cut for this window of data) until the ACK passes this.
    cwr_end: Option<u32>,
}

impl Dctcp {
    /// The smallest window: two segments (RFC 5681).
    fn min_cwnd(&self) -> f64 {
        2.0 * self.mss
    }

    fn cut(&mut self, factor: f64, snd_nxt: u32) {
        self.ssthresh = (self.cwnd * factor).max(self.min_cwnd());
        self.cwnd = self.ssthresh;
        self.cwr_end = Some(snd_nxt);
    }
}

impl CongestionControl for Dctcp {
    type Params = DctcpParams;
    fn from_params(p: &DctcpParams, nic: &NicSpec) -> Self {
        let mss = nic.mss as f64;
        Dctcp {
            p: p.clone(),
            line_rate: nic.line_rate,
            mss,
            cwnd: p.init_cwnd as f64 * mss,
            ssthresh: f64::INFINITY,
            alpha: p.alpha_init,
            acked: 0,
            marked: 0,
            window_end: None,
            cwr_end: None,
        }
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn window(&self) -> Option<u64> {
        Some(self.cwnd as u64)
    }
    fn rate(&self) -> Rate {
        self.line_rate
    }

    /// A loss on a TCP flow: the standard TCP response (RFC 8257 3.5): halve at a fast
    /// retransmit, one segment after a timeout.
    fn on_loss(&mut self, _: &mut CcCtx, loss: &Loss) {
        self.cut(0.5, loss.snd_nxt);
        if loss.kind == LossKind::Timeout {
            self.cwnd = self.mss;
        }
    }

    fn on_ack(&mut self, _: &mut CcCtx, ack: &Ack<'_>) {
        // alpha: the marked fraction of each window of data.
        self.acked += ack.newly_acked;
        if ack.ece {
            self.marked += ack.newly_acked;
        }
        match self.window_end {
            None => self.window_end = Some(ack.snd_nxt),
            Some(end) if ack.acked_to > end => {
                let f = if self.acked > 0 { self.marked as f64 / self.acked as f64 } else { 0.0 };
                self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * f;
                self.acked = 0;
                self.marked = 0;
                self.window_end = Some(ack.snd_nxt);
            }
            Some(_) => {}
        }
        if self.cwr_end.is_some_and(|end| ack.acked_to > end) {
            self.cwr_end = None;
        }
        if ack.nak {
            if self.cwr_end.is_none() {
                self.cut(0.5, ack.snd_nxt);
            }
            return;
        }
        if ack.ece {
            if self.cwr_end.is_none() {
                let alpha = self.alpha;
                self.cut(1.0 - alpha / 2.0, ack.snd_nxt);
            }
            return;
        }
        if self.cwr_end.is_some() || ack.recovery || ack.newly_acked == 0 {
            return;
        }
        let acked = ack.newly_acked as f64;
        if self.cwnd < self.ssthresh {
            self.cwnd += acked.min(self.mss); // slow start (RFC 3465, L = 1 MSS)
        } else {
            self.cwnd += self.mss * acked / self.cwnd; // congestion avoidance
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    const MSS: u32 = 1000;

    fn dctcp() -> Dctcp {
        Dctcp::from_params(
            &DctcpParams::default(),
            &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1082, mss: MSS, base_rtt: SimTime::us(10) },
        )
    }
    fn ack(to: u32, nxt: u32, ece: bool) -> Ack<'static> {
        Ack { newly_acked: MSS as u64, acked_to: to, snd_nxt: nxt, rtt: SimTime::us(100), ece, nak: false, int: &[], recovery: false }
    }

    #[test]
    fn slow_start_then_one_mss_per_window() {
        let mut d = dctcp();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        assert_eq!(d.window(), Some(10_000));
        for k in 1..=5 {
            d.on_ack(&mut x, &ack(k, 10 + k, false));
        }
        assert_eq!(d.cwnd, 15_000.0, "slow start: one MSS per MSS acknowledged");
        d.ssthresh = 15_000.0;
        for k in 6..=20 {
            d.on_ack(&mut x, &ack(k, 20 + k, false));
        }
        // Congestion avoidance: 15 ACKs of one MSS on a 15-MSS window add about one MSS.
        assert!((d.cwnd - 16_000.0).abs() < 100.0, "cwnd {}", d.cwnd);
    }

    #[test]
    fn alpha_follows_the_marked_fraction_and_cuts_once_per_window() {
        let mut d = dctcp();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        d.alpha = 0.0;
        // First ACK opens the observation window [.., 10).
        d.on_ack(&mut x, &ack(1, 10, false));
        // Half of the next window's bytes are marked: the first echo cuts cwnd by alpha/2
        // (alpha still 0: no cut in size, but CWR starts), later echoes do not cut again.
        for k in 2..=10 {
            d.on_ack(&mut x, &ack(k, 20, k % 2 == 0));
        }
        let cw = d.cwnd;
        d.on_ack(&mut x, &ack(11, 21, true)); // passes window_end = 10: alpha updates
                                              // RFC 8257 counts the ACK that closes the window in it: 6 of the 11 MSS acked
                                              // since the window opened (ACKs 2, 4, 6, 8, 10 and 11) were marked.
        let f = 6.0 / 11.0;
        assert!((d.alpha - f / 16.0).abs() < 1e-12, "alpha {}", d.alpha);
        assert_eq!(d.cwnd, cw, "still in CWR for the window that was cut");
        // Past the CWR window (snd_nxt was 20 at the cut), a new echo cuts by alpha / 2.
        d.on_ack(&mut x, &ack(21, 30, true));
        assert!((d.cwnd - cw * (1.0 - d.alpha / 2.0)).abs() < 1e-6, "cwnd {} from {cw}", d.cwnd);
    }

    #[test]
    fn a_nak_halves_and_the_window_never_falls_below_two_segments() {
        let mut d = dctcp();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        d.on_ack(&mut x, &Ack { nak: true, newly_acked: 0, ..ack(0, 0, false) });
        assert_eq!(d.cwnd, 5_000.0);
        for k in 0..10 {
            d.cwr_end = None;
            d.on_ack(&mut x, &Ack { nak: true, newly_acked: 0, ..ack(k, k, false) });
        }
        assert_eq!(d.cwnd, 2_000.0);
    }
}
