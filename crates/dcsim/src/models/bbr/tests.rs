//! BBR driven by scripted send/ACK sequences, each step checked against values worked
//! out by hand in the comments (MSS 1000 B, 1250 wire bytes per segment: 10 wire bits per
//! payload byte; a path of RTT R = 100 us whose bottleneck delivers a segment per 10 us,
//! BtlBw = 1e8 B/s, BDP = 10 000 B).

use super::*;
use crate::units::{Rate, SimTime};

const MSS: u64 = 1000;

fn nic() -> NicSpec {
    NicSpec { line_rate: Rate::gbps(10), mtu_wire: 1250, mss: MSS as u32, base_rtt: SimTime::us(100) }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// A sender that sends a segment every `gap` and gets each ACK `rtt` later (ACKs due at
/// a time are handled before that time's send), whatever the window says: a path whose
/// bottleneck sets the spacing.
struct Script {
    b: Bbr,
    x: CcCtx,
    sent: Vec<SimTime>,
    acked: u32,
}

impl Script {
    fn new(p: BbrParams) -> Self {
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(10));
        x.uniform = 0.0;
        Script { b: Bbr::from_params(&p, &nic()), x, sent: Vec::new(), acked: 0 }
    }
    fn ack_one(&mut self, now: SimTime, snd_nxt: u32) {
        let i = self.acked as usize;
        self.x.now = now;
        self.acked += 1;
        let a = Ack {
            newly_acked: MSS,
            acked_to: self.acked,
            snd_nxt,
            rtt: now - self.sent[i],
            ece: false,
            nak: false,
            int: &[],
            recovery: false,
        };
        self.b.on_ack(&mut self.x, &a);
    }
    /// Steps from `from` to `to` (exclusive) every `gap`.
    fn steady(&mut self, from: SimTime, to: SimTime, gap: SimTime, rtt: SimTime) {
        let mut t = from;
        while t < to {
            while (self.acked as usize) < self.sent.len() && self.sent[self.acked as usize] + rtt <= t {
                let n = self.sent.len() as u32;
                self.ack_one(t, n);
            }
            self.x.now = t;
            self.b.on_send(&mut self.x, 1250);
            self.sent.push(t);
            t = t + gap;
        }
    }
}

fn pacing_for(gain: f64, bw: f64) -> Rate {
    Rate((gain * bw * 10.0 * 0.99) as u64)
}

#[test]
fn startup_round_one_by_hand() {
    let mut s = Script::new(BbrParams::default());
    // Ten segments at 0, 10, .., 90 us; the first ACK comes at 100 us.
    s.steady(SimTime::ZERO, SimTime::us(101), SimTime::us(10), SimTime::us(100));
    // ACK 0: 1000 B delivered since the snapshot at 0 over max(0, 100 us): 1e7 B/s;
    // it opens round 1; RTprop 100 us.
    assert_eq!(s.b.round, 1);
    assert!(close(s.b.btl_bw(), 1e7));
    assert_eq!(s.b.min_rtt, Some(SimTime::us(100)));
    // Startup never lowers the pacing rate: it is still the line rate, not 2.885 x 1e8 bits.
    assert_eq!(s.b.pacing, Rate::gbps(10));
    // Delivered (1000) is below the initial window: cwnd grows by the acked 1000 B.
    assert_eq!(s.b.cwnd, 11_000.0);
    // ACKs 1..9 (sent at 10k us, acked at 100 + 10k): all snapshots predate any delivery
    // (delivered 0 at time 0), so sample k is 1000 (k + 1) B over 100 + 10k us; the
    // largest is ACK 9's 10 000 B / 190 us. Still round 1.
    s.steady(SimTime::us(110), SimTime::us(191), SimTime::us(10), SimTime::us(100));
    assert_eq!(s.b.round, 1);
    assert!(close(s.b.btl_bw(), 10_000.0 / 190e-6), "{}", s.b.btl_bw());
    // cwnd: +1000 per ACK while below target (2.885 x bw x 100 us + 3 MSS) or while less
    // than the initial window was delivered; ACK 9 (delivered = 10 000, cwnd 19 000 >
    // target 2.885 x 5263 + 3000 = 18 185) adds nothing.
    let target = HIGH_GAIN * (10_000.0 / 190e-6) * 100e-6 + 3000.0;
    assert!(target < 19_000.0);
    assert_eq!(s.b.cwnd, 19_000.0);
    assert_eq!(s.b.mode, Mode::Startup);
}

#[test]
fn full_pipe_drain_and_probe_bw_by_hand() {
    let mut s = Script::new(BbrParams::default());
    // From round 2 on every sample is 10 segments over one RTT: exactly 1e8 B/s. Rounds
    // start at ACKs 0, 10, 20, ... (100, 200, 300 us ...). Round 2 raises full_bw to 1e8;
    // rounds 3, 4, 5 do not grow it by 25 %: the pipe is full at round 5 (500 us).
    s.steady(SimTime::ZERO, SimTime::us(491), SimTime::us(10), SimTime::us(100));
    assert_eq!((s.b.round, s.b.filled_pipe, s.b.mode), (4, false, Mode::Startup));
    assert!(close(s.b.full_bw, 1e8));
    assert!(close(s.b.btl_bw(), 1e8));
    s.steady(SimTime::us(500), SimTime::us(501), SimTime::us(10), SimTime::us(100));
    assert_eq!((s.b.round, s.b.filled_pipe), (5, true));
    // Drain at once ends: the inflight at an ACK is 9 segments (9000 B <= BDP 10 000),
    // so the same ACK enters ProbeBW. With the random draw 0 the phase is
    // 7 - 0 = 7, advanced to 0: gain 5/4.
    assert_eq!(s.b.mode, Mode::ProbeBw);
    assert_eq!((s.b.cycle_idx, s.b.pacing_gain, s.b.cwnd_gain), (0, 1.25, 2.0));
    assert_eq!(s.b.pacing, pacing_for(1.25, 1e8));
    // cwnd: target 2 x BDP + 3 MSS = 23 000; with the pipe full cwnd = min(cwnd + acked,
    // target): it came from Startup above that, so it is the target now.
    assert_eq!(s.b.cwnd, 23_000.0);
    // The 5/4 phase lasts while the inflight stays below 5/4 BDP (12 500), even past RTprop.
    s.steady(SimTime::us(510), SimTime::us(701), SimTime::us(10), SimTime::us(100));
    assert_eq!(s.b.cycle_idx, 0);
    // An ACK reporting 13 segments in flight (snd_nxt - acked_to) after more than
    // RTprop in the phase: 13 000 >= 12 500, on to 3/4.
    let n = s.sent.len() as u32;
    s.ack_one(SimTime::us(705), s.acked + 14);
    assert_eq!((s.b.cycle_idx, s.b.pacing_gain), (1, 0.75));
    assert_eq!(s.b.pacing, pacing_for(0.75, 1e8));
    // The 3/4 phase ends as soon as the inflight is at most one BDP (n - acked <= 10).
    s.ack_one(SimTime::us(706), n);
    assert_eq!((s.b.cycle_idx, s.b.pacing_gain), (2, 1.0));
    assert_eq!(s.b.pacing, pacing_for(1.0, 1e8));
}

#[test]
fn probe_rtt_after_the_min_rtt_window_by_hand() {
    let p = BbrParams { min_rtt_window: SimTime::us(1000), probe_rtt_duration: SimTime::us(300), ..BbrParams::default() };
    let mut s = Script::new(p);
    // RTprop 100 us is set at 100 us and never undercut (every RTT is 100 us): the filter
    // expires at the first ACK after 1100 us (1110 us), which enters ProbeRTT.
    s.steady(SimTime::ZERO, SimTime::us(1101), SimTime::us(10), SimTime::us(100));
    assert_eq!(s.b.mode, Mode::ProbeBw);
    let before = s.b.cwnd;
    s.steady(SimTime::us(1110), SimTime::us(1111), SimTime::us(10), SimTime::us(100));
    assert_eq!(s.b.mode, Mode::ProbeRtt);
    assert_eq!((s.b.pacing_gain, s.b.cwnd), (1.0, 4000.0));
    assert_eq!(s.b.prior_cwnd, before);
    // The timer starts only once the inflight is down to 4 segments.
    let mut t = 1120;
    let n = s.sent.len() as u32;
    s.ack_one(SimTime::us(t), n);
    assert!(s.b.probe_rtt_done.is_none(), "9 segments still in flight");
    while n - s.acked > 4 {
        t += 10;
        s.ack_one(SimTime::us(t), n);
    }
    assert_eq!(s.b.probe_rtt_done, Some(SimTime::us(t + 300)));
    // It ends after 300 us and a round: ACK the rest, send 4 and ACK them after 300 us.
    while s.acked < n {
        t += 10;
        s.ack_one(SimTime::us(t), n);
    }
    assert_eq!(s.b.mode, Mode::ProbeRtt);
    for k in 0..4 {
        s.x.now = SimTime::us(t + 1 + k);
        s.b.on_send(&mut s.x, 1250);
        s.sent.push(s.x.now);
    }
    let n = s.sent.len() as u32;
    let end = t + 300;
    for k in 0..4 {
        s.ack_one(SimTime::us(end + k), n);
    }
    // A new RTprop stamp, the old window back (the restored window is then capped by the
    // ProbeBW target as usual), and ProbeBW again since the pipe was full.
    assert_eq!(s.b.mode, Mode::ProbeBw);
    assert!(s.b.cwnd >= 4000.0 && s.b.cwnd <= before);
}

#[test]
fn fast_recovery_conserves_packets_then_restores_the_window() {
    let mut s = Script::new(BbrParams::default());
    s.steady(SimTime::ZERO, SimTime::us(801), SimTime::us(10), SimTime::us(100));
    assert_eq!(s.b.cwnd, 23_000.0);
    let n = s.sent.len() as u32;
    // Fast retransmit with 9000 B outstanding: cwnd = 9000 (the flight), the old 23 000 kept.
    s.b.on_loss(&mut s.x, &Loss { kind: LossKind::FastRetransmit, flight: 9000, snd_nxt: n });
    assert_eq!((s.b.cwnd, s.b.prior_cwnd, s.b.conservation), (9000.0, 23_000.0, true));
    // A duplicate ACK (1000 B SACKed): 81 segments sent (0..800 us), 71 acked (sent up to
    // 700 us), so 10 in flight: conservation, cwnd = max(9000, 10 000 + 1000).
    s.x.now = SimTime::us(805);
    let a = Ack { newly_acked: 0, acked_to: s.acked, snd_nxt: n, rtt: SimTime::us(100), ece: false, nak: false, int: &[], recovery: true };
    assert_eq!((n, s.acked), (81, 71));
    s.b.on_ack(&mut s.x, &a);
    assert_eq!(s.b.cwnd, 11_000.0);
    // The cumulative ACK reaching snd_nxt at the loss ends recovery: the window before it.
    s.x.now = SimTime::us(900);
    let a = Ack { newly_acked: 9000, acked_to: n, snd_nxt: n, rtt: SimTime::us(100), ece: false, nak: false, int: &[], recovery: false };
    s.b.on_ack(&mut s.x, &a);
    assert_eq!((s.b.recovery_end, s.b.conservation), (None, false));
    assert_eq!(s.b.cwnd, 23_000.0);
    // A timeout: one segment; then each ACK adds what it acknowledges (pipe full: up to the target).
    s.b.on_loss(&mut s.x, &Loss { kind: LossKind::Timeout, flight: 5000, snd_nxt: n + 5 });
    assert_eq!((s.b.cwnd, s.b.prior_cwnd), (1000.0, 23_000.0));
    s.x.now = SimTime::us(1000);
    let a = Ack {
        newly_acked: 1000,
        acked_to: n + 1,
        snd_nxt: n + 5,
        rtt: SimTime::us(100),
        ece: false,
        nak: false,
        int: &[],
        recovery: false,
    };
    s.b.on_ack(&mut s.x, &a);
    assert_eq!(s.b.cwnd, 4000.0, "1000 + 1000, raised to the 4-segment minimum");
}

#[test]
fn app_limited_samples_neither_lower_the_estimate_nor_end_startup() {
    let mut s = Script::new(BbrParams::default());
    // Rounds 1-2 as in the full-pipe test: BtlBw 1e8 B/s, full_bw 1e8 at round 2.
    s.steady(SimTime::ZERO, SimTime::us(201), SimTime::us(10), SimTime::us(100));
    assert!(close(s.b.btl_bw(), 1e8));
    // The application runs dry with 10 segments in flight (sent 110..200 us): app-limited
    // until 21 000 + 10 000 B are delivered.
    assert_eq!(s.b.rs.delivered, 11_000);
    s.b.on_app_limited();
    // Then it sends one segment per 40 us: every sample is about a quarter of 1e8.
    let mut t = 210;
    while t < 2000 {
        let due = s.sent.iter().skip(s.acked as usize).filter(|&&x| x + SimTime::us(100) <= SimTime::us(t)).count();
        for _ in 0..due {
            let n = s.sent.len() as u32;
            s.ack_one(SimTime::us(t), n);
        }
        s.b.on_app_limited();
        s.x.now = SimTime::us(t);
        s.b.on_send(&mut s.x, 1250);
        s.sent.push(s.x.now);
        t += 40;
    }
    // Far more than 10 rounds later, the estimate is still 1e8 and the flow in Startup
    // (only rounds with samples not app-limited count towards a full pipe).
    assert!(s.b.round > 12, "round {}", s.b.round);
    assert!(close(s.b.btl_bw(), 1e8), "{}", s.b.btl_bw());
    assert_eq!((s.b.mode, s.b.filled_pipe), (Mode::Startup, false));
}
