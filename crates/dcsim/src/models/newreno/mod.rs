//! TCP NewReno's window policy (RFC 5681, RFC 6582, RFC 3168 for ECN) on the sending
//! NIC: slow start (one MSS per MSS acknowledged), congestion avoidance (one MSS per
//! window, counted in bytes), ssthresh = max(FlightSize / 2, 2 MSS) at a fast retransmit
//! with cwnd = ssthresh (the SACK-based recovery of RFC 6675 sends by `pipe`, so the
//! window is not inflated), a one-segment loss window after a timeout, and an ECN echo
//! treated as a loss without retransmission, at most once per window of data. The
//! recovery mechanics (which segments to resend) are the transport's (`models/tcp/`).
//! On a RoCE flow a NAK counts as a fast retransmit. No switch side (drop-tail or ECN
//! marking in the fabric). ../shared/models/tcp-and-scheduling.md 11.1.

mod keys;
pub use keys::NewRenoKeys;

use crate::models::{Ack, CcCtx, CongestionControl, Loss, LossKind, NicSpec};
use crate::units::Rate;

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct NewRenoParams {
    /// Initial window in MSS (RFC 6928: 10).
    pub init_cwnd: u32,
}

impl Default for NewRenoParams {
    fn default() -> Self {
        NewRenoParams { init_cwnd: 10 }
    }
}

#[derive(Clone, Debug)]
pub struct NewReno {
    line_rate: Rate,
    mss: f64,
    /// Congestion window and slow-start threshold (bytes).
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: f64,
    /// After a reduction, ECN echoes are ignored until the ACK passes this sequence.
    cwr_end: Option<u32>,
}

impl NewReno {
    fn reduce(&mut self, flight: f64, snd_nxt: u32) {
        self.ssthresh = (flight / 2.0).max(2.0 * self.mss);
        self.cwnd = self.ssthresh;
        self.cwr_end = Some(snd_nxt);
    }
}

impl CongestionControl for NewReno {
    type Params = NewRenoParams;
    fn from_params(p: &NewRenoParams, nic: &NicSpec) -> Self {
        let mss = nic.mss as f64;
        NewReno { line_rate: nic.line_rate, mss, cwnd: p.init_cwnd as f64 * mss, ssthresh: f64::INFINITY, cwr_end: None }
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

    fn on_loss(&mut self, _: &mut CcCtx, loss: &Loss) {
        self.reduce(loss.flight as f64, loss.snd_nxt);
        if loss.kind == LossKind::Timeout {
            self.cwnd = self.mss; // the loss window (RFC 5681 3.1)
        }
    }

    fn on_ack(&mut self, _: &mut CcCtx, ack: &Ack) {
        if self.cwr_end.is_some_and(|end| ack.acked_to > end) {
            self.cwr_end = None;
        }
        if ack.nak || ack.ece {
            // A RoCE NAK (a loss) or an ECN echo (RFC 3168 6.1.2: halve, once per window).
            if self.cwr_end.is_none() {
                self.reduce(self.cwnd, ack.snd_nxt);
            }
            return;
        }
        if ack.recovery || ack.newly_acked == 0 {
            return;
        }
        let acked = ack.newly_acked as f64;
        if self.cwnd < self.ssthresh {
            self.cwnd += acked.min(self.mss); // slow start (RFC 5681 eq. 2)
        } else {
            self.cwnd += self.mss * acked / self.cwnd; // congestion avoidance, byte counting
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    const MSS: u32 = 1000;

    fn reno() -> NewReno {
        NewReno::from_params(
            &NewRenoParams::default(),
            &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1082, mss: MSS, base_rtt: SimTime::us(100) },
        )
    }
    fn ack(to: u32, nxt: u32) -> Ack<'static> {
        Ack {
            newly_acked: MSS as u64,
            acked_to: to,
            snd_nxt: nxt,
            rtt: SimTime::us(100),
            ece: false,
            nak: false,
            int: &[],
            recovery: false,
        }
    }

    #[test]
    fn slow_start_avoidance_fast_retransmit_and_timeout_step_by_step() {
        let mut r = reno();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        assert_eq!(r.window(), Some(10_000));
        // Slow start: 10 ACKs of one MSS each double the window.
        for k in 1..=10 {
            r.on_ack(&mut x, &ack(k, 10 + 2 * k));
            assert_eq!(r.cwnd, (10 + k) as f64 * 1000.0);
        }
        // An ACK of two segments (delayed ACK) still adds one MSS (RFC 5681 eq. 2).
        r.on_ack(&mut x, &Ack { newly_acked: 2000, ..ack(12, 32) });
        assert_eq!(r.cwnd, 21_000.0);
        // Fast retransmit with 21 segments outstanding: ssthresh = cwnd = 10 500.
        r.on_loss(&mut x, &Loss { kind: LossKind::FastRetransmit, flight: 21_000, snd_nxt: 33 });
        assert_eq!((r.cwnd, r.ssthresh), (10_500.0, 10_500.0));
        // In recovery the window is held.
        r.on_ack(&mut x, &Ack { recovery: true, ..ack(13, 34) });
        assert_eq!(r.cwnd, 10_500.0);
        // Congestion avoidance: each MSS acknowledged adds MSS*MSS/cwnd.
        r.on_ack(&mut x, &ack(34, 44));
        let w1 = 10_500.0 + 1000.0 * 1000.0 / 10_500.0;
        assert_eq!(r.cwnd, w1);
        r.on_ack(&mut x, &ack(35, 45));
        assert_eq!(r.cwnd, w1 + 1000.0 * 1000.0 / w1);
        // A timeout: ssthresh = FlightSize / 2, cwnd = one MSS, then slow start again.
        r.on_loss(&mut x, &Loss { kind: LossKind::Timeout, flight: 8_000, snd_nxt: 45 });
        assert_eq!((r.cwnd, r.ssthresh), (1000.0, 4000.0));
        r.on_ack(&mut x, &ack(46, 46));
        assert_eq!(r.cwnd, 2000.0);
        // The threshold never falls below two segments.
        r.on_loss(&mut x, &Loss { kind: LossKind::FastRetransmit, flight: 1000, snd_nxt: 47 });
        assert_eq!((r.cwnd, r.ssthresh), (2000.0, 2000.0));
    }

    #[test]
    fn an_ecn_echo_halves_once_per_window() {
        let mut r = reno();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        r.on_ack(&mut x, &Ack { ece: true, ..ack(1, 10) });
        assert_eq!((r.cwnd, r.ssthresh), (5000.0, 5000.0));
        // Echoes for data sent before the cut (up to sequence 10) do not cut again.
        r.on_ack(&mut x, &Ack { ece: true, ..ack(5, 12) });
        r.on_ack(&mut x, &Ack { ece: true, ..ack(10, 12) });
        assert_eq!(r.cwnd, 5000.0);
        // Past it, the next echo halves again.
        r.on_ack(&mut x, &Ack { ece: true, ..ack(11, 14) });
        assert_eq!(r.cwnd, 2500.0);
        // A RoCE NAK counts as a loss.
        r.cwr_end = None;
        r.on_ack(&mut x, &Ack { nak: true, newly_acked: 0, ..ack(11, 14) });
        assert_eq!(r.cwnd, 2000.0);
    }
}
