//! CUBIC (RFC 9438, formerly RFC 8312) on the sending NIC: after a congestion event the
//! window follows W_cubic(t) = C (t - K)^3 + W_max from the start of the congestion
//! avoidance epoch, with K = cbrt((W_max - cwnd_epoch) / C), aiming per ACK at
//! W_cubic(t + RTT) (bounded to [cwnd, 1.5 cwnd]), and never below the Reno-friendly
//! estimate W_est (alpha = 3 (1 - beta) / (1 + beta) per window, 1 once W_est reaches
//! W_max). A congestion event (fast retransmit, or an ECN echo at most once per window)
//! sets W_max (lowered by fast convergence when the window had not regained the last
//! W_max), ssthresh = cwnd = max(beta cwnd, 2 MSS); a timeout also drops cwnd to one MSS.
//! Slow start as NewReno; no HyStart. Windows are in segments inside the formulas, bytes
//! outside; time in seconds. RTT is the algorithm's own smoothed RTT (1/8 gain) of the
//! ACKs' samples. No switch side. ../shared/models/tcp-and-scheduling.md 11.2.

mod keys;
pub use keys::CubicKeys;

use crate::models::{Ack, CcCtx, CongestionControl, Loss, LossKind, NicSpec};
use crate::units::{Rate, SimTime};

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct CubicParams {
    /// C (segments / s^3; RFC 9438: 0.4).
    pub c: f64,
    /// beta_cubic (RFC 9438: 0.7).
    pub beta: f64,
    pub fast_convergence: bool,
    /// Initial window in MSS (RFC 6928: 10).
    pub init_cwnd: u32,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c: 0.4, beta: 0.7, fast_convergence: true, init_cwnd: 10 }
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    line_rate: Rate,
    mss: f64,
    /// Congestion window and slow-start threshold (bytes).
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: f64,
    /// Window before the last reduction (segments; 0: no congestion event yet).
    pub(crate) w_max: f64,
    /// Start of the current congestion-avoidance epoch (None: starts at the next ACK in
    /// congestion avoidance), its K (s) and the Reno-friendly estimate (segments).
    pub(crate) t_epoch: Option<SimTime>,
    pub(crate) k: f64,
    pub(crate) w_est: f64,
    /// Smoothed RTT (s).
    pub(crate) srtt: Option<f64>,
    cwr_end: Option<u32>,
}

impl Cubic {
    /// W_cubic(t) in segments, t in seconds since the epoch started.
    pub(crate) fn w_cubic(&self, t: f64) -> f64 {
        self.p.c * (t - self.k).powi(3) + self.w_max
    }

    fn congestion_event(&mut self, snd_nxt: u32) {
        let w = self.cwnd / self.mss;
        self.w_max = if self.p.fast_convergence && w < self.w_max { w * (1.0 + self.p.beta) / 2.0 } else { w };
        self.ssthresh = (self.cwnd * self.p.beta).max(2.0 * self.mss);
        self.cwnd = self.ssthresh;
        self.t_epoch = None;
        self.cwr_end = Some(snd_nxt);
    }

    fn avoid(&mut self, now: SimTime, acked: f64) {
        let w = self.cwnd / self.mss;
        let t_epoch = match self.t_epoch {
            Some(t) => t,
            None => {
                // A new epoch (RFC 9438 4.2): K from W_max and the window now.
                if self.w_max < w {
                    self.w_max = w;
                }
                self.k = ((self.w_max - w) / self.p.c).cbrt();
                self.w_est = w;
                self.t_epoch = Some(now);
                now
            }
        };
        let rtt = self.srtt.unwrap_or(0.0);
        let t = (now - t_epoch).0 as f64 * 1e-12;
        let segs = acked / self.mss;
        // Reno-friendly region (RFC 9438 4.3).
        let b = self.p.beta;
        let alpha = if self.w_est >= self.w_max { 1.0 } else { 3.0 * (1.0 - b) / (1.0 + b) };
        self.w_est += alpha * segs / w;
        if self.w_cubic(t) < self.w_est {
            self.cwnd = self.w_est * self.mss;
            return;
        }
        // Concave / convex region (RFC 9438 4.4, 4.5).
        let target = self.w_cubic(t + rtt).clamp(w, 1.5 * w);
        self.cwnd += (target - w) / w * segs * self.mss;
    }
}

impl CongestionControl for Cubic {
    type Params = CubicParams;
    fn from_params(p: &CubicParams, nic: &NicSpec) -> Self {
        let mss = nic.mss as f64;
        Cubic {
            p: p.clone(),
            line_rate: nic.line_rate,
            mss,
            cwnd: p.init_cwnd as f64 * mss,
            ssthresh: f64::INFINITY,
            w_max: 0.0,
            t_epoch: None,
            k: 0.0,
            w_est: 0.0,
            srtt: None,
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

    fn on_loss(&mut self, _: &mut CcCtx, loss: &Loss) {
        self.congestion_event(loss.snd_nxt);
        if loss.kind == LossKind::Timeout {
            self.cwnd = self.mss; // RFC 9438 4.8: slow start again from one segment
        }
    }

    fn on_ack(&mut self, ctx: &mut CcCtx, ack: &Ack) {
        if ack.newly_acked > 0 {
            let r = ack.rtt.0 as f64 * 1e-12;
            self.srtt = Some(match self.srtt {
                None => r,
                Some(s) => 0.875 * s + 0.125 * r,
            });
        }
        if self.cwr_end.is_some_and(|end| ack.acked_to > end) {
            self.cwr_end = None;
        }
        if ack.nak || ack.ece {
            if self.cwr_end.is_none() {
                self.congestion_event(ack.snd_nxt);
            }
            return;
        }
        if ack.recovery || ack.newly_acked == 0 {
            return;
        }
        let acked = ack.newly_acked as f64;
        if self.cwnd < self.ssthresh {
            self.cwnd += acked.min(self.mss);
        } else {
            self.avoid(ctx.now, acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn cubic() -> Cubic {
        Cubic::from_params(
            &CubicParams::default(),
            &NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1082, mss: MSS, base_rtt: SimTime::us(100) },
        )
    }
    fn ack(to: u32, nxt: u32, rtt_ms: u64) -> Ack<'static> {
        Ack {
            newly_acked: MSS as u64,
            acked_to: to,
            snd_nxt: nxt,
            rtt: SimTime::ms(rtt_ms),
            ece: false,
            nak: false,
            int: &[],
            recovery: false,
        }
    }
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn loss_sets_w_max_k_and_the_cubic_curve_step_by_step() {
        let mut c = cubic();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        // Slow start to 100 segments.
        for k in 1..=90 {
            c.on_ack(&mut x, &ack(k, 200, 100));
        }
        assert_eq!(c.cwnd, 100_000.0);
        assert!(close(c.srtt.unwrap(), 0.1));
        // A fast retransmit at 100 segments: W_max = 100, cwnd = ssthresh = 70.
        c.on_loss(&mut x, &Loss { kind: LossKind::FastRetransmit, flight: 100_000, snd_nxt: 200 });
        assert_eq!((c.w_max, c.cwnd, c.ssthresh), (100.0, 70_000.0, 70_000.0));
        // First ACK in congestion avoidance at t = 1 s starts the epoch:
        // K = cbrt((100 - 70) / 0.4) = cbrt(75) s.
        x.now = SimTime::ms(1000);
        c.on_ack(&mut x, &ack(201, 300, 100));
        let k = 75f64.cbrt();
        assert!(close(c.k, k), "K {}", c.k);
        // W_est = 70 + alpha/70 with alpha = 3 * 0.3 / 1.7; W_cubic(0) = 100 - 0.4 K^3 = 70 < W_est,
        // so the window is the Reno-friendly estimate.
        let alpha = 0.9 / 1.7;
        let w_est = 70.0 + alpha / 70.0;
        assert!(close(c.w_est, w_est));
        assert!(close(c.cwnd, w_est * 1000.0), "cwnd {}", c.cwnd);
        // Two seconds later (t = 2 s, concave region, W_cubic above W_est): the target is
        // W_cubic(t + RTT) = 0.4 (2.1 - K)^3 + 100 and cwnd grows by (target - w) / w.
        x.now = SimTime::ms(3000);
        let w = c.cwnd / 1000.0;
        let w_est2 = c.w_est + alpha / w;
        c.on_ack(&mut x, &ack(202, 300, 100));
        let wc = 0.4 * (2.0 - k).powi(3) + 100.0;
        assert!(wc > w_est2);
        let target = (0.4 * (2.1 - k).powi(3) + 100.0).clamp(w, 1.5 * w);
        assert!(close(c.cwnd, (w + (target - w) / w) * 1000.0), "cwnd {}", c.cwnd);
        // A second loss below the old W_max: fast convergence lowers W_max to w (1 + beta) / 2.
        let w = c.cwnd / 1000.0;
        c.on_loss(&mut x, &Loss { kind: LossKind::FastRetransmit, flight: 80_000, snd_nxt: 300 });
        assert!(close(c.w_max, w * 1.7 / 2.0));
        assert!(close(c.cwnd, w * 0.7 * 1000.0));
        // A timeout: the same reduction of ssthresh, and one segment of window.
        let w = c.cwnd / 1000.0;
        c.on_loss(&mut x, &Loss { kind: LossKind::Timeout, flight: 50_000, snd_nxt: 300 });
        assert!(close(c.ssthresh, w * 0.7 * 1000.0));
        assert_eq!(c.cwnd, 1000.0);
    }

    #[test]
    fn convex_growth_past_w_max_and_ecn_once_per_window() {
        let mut c = cubic();
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        c.on_ack(&mut x, &ack(1, 20, 10));
        c.on_ack(&mut x, &Ack { ece: true, ..ack(2, 20, 10) });
        // cwnd was 11 segments: W_max 11, cwnd 7.7.
        assert_eq!(c.w_max, 11.0);
        assert!(close(c.cwnd, 7700.0));
        c.on_ack(&mut x, &Ack { ece: true, ..ack(3, 21, 10) });
        assert!(close(c.cwnd, 7700.0), "no second cut inside the window");
        // Epoch starts at t = 0; K = cbrt(3.3 / 0.4). Long after K (t = 10 s) the curve is
        // convex: target bounded to 1.5 w.
        c.on_ack(&mut x, &ack(21, 30, 10));
        x.now = SimTime::ms(10_000);
        let w = c.cwnd / 1000.0;
        c.on_ack(&mut x, &ack(22, 30, 10));
        assert!(close(c.cwnd, (w + 0.5) * 1000.0), "cwnd {} w {w}", c.cwnd);
    }
}
