//! NSCC driven with scripted ACKs: each quadrant's action, quick adapt, losses and the
//! base RTT, against hand-computed values. The NIC is the specification's reference
//! (100 Gb/s, 12 us base RTT), so the scale factors are 1: fi = 5 MSS, alpha = 4 MSS /
//! 12 us, eta = 0.15 MSS, fi_scale = 0.25, max_cwnd = 1.5 x 150 kB.

use super::*;
use crate::keys::{Check, KeyCtx, Keys};

const US: f64 = 1e6; // ps
const MSS: f64 = 4096.0;

fn nic() -> NicSpec {
    NicSpec { line_rate: Rate::gbps(100), mtu_wire: 4096 + 82, mss: 4096, base_rtt: SimTime::us(12) }
}
fn nscc(p: NsccParams) -> Nscc {
    Nscc::from_params(&p, &nic())
}
fn with_cwnd(c: u64) -> Nscc {
    nscc(NsccParams { init_cwnd: Some(c), ..NsccParams::default() })
}
fn at_us(t: f64) -> SimTime {
    SimTime((t * US) as u64)
}
fn ack(rtt_us: f64, newly: u64, ece: bool) -> Ack<'static> {
    Ack { newly_acked: newly, acked_to: 0, snd_nxt: 10, rtt: SimTime((rtt_us * US) as u64), ece, nak: false, int: &[], recovery: false }
}
fn ctx(t_us: f64) -> CcCtx {
    CcCtx::new(at_us(t_us), Rate::gbps(100))
}

#[test]
fn defaults_scale_with_the_reference_fabric() {
    let n = nscc(NsccParams::default());
    assert_eq!(n.target, 12.0 * US);
    assert_eq!(n.fi, 5.0 * MSS);
    assert!((n.alpha - 4.0 * MSS / (12.0 * US)).abs() < 1e-15);
    assert!((n.eta - 0.15 * MSS).abs() < 1e-9);
    assert_eq!(n.fi_scale, 0.25);
    assert_eq!(n.max_cwnd, 225_000.0);
    assert_eq!(n.cwnd(), 225_000.0, "starts at max_cwnd");
    assert_eq!(n.window(), Some(225_000));
    assert_eq!(n.rate(), Rate::gbps(100));
    // Twice the rate: twice the BDP, so a = 2; a target of 6 us: b = 0.5.
    let fast = NicSpec { line_rate: Rate::gbps(200), ..nic() };
    let n2 = Nscc::from_params(&NsccParams { target: Some(SimTime::us(6)), ..NsccParams::default() }, &fast);
    assert_eq!(n2.fi, 10.0 * MSS);
    assert!((n2.alpha - 4.0 * MSS * 2.0 * 0.5 / (6.0 * US)).abs() < 1e-15);
    assert_eq!(n2.max_cwnd, 450_000.0);
}

#[test]
fn unmarked_high_delay_is_fair_increase() {
    let mut n = with_cwnd(100_000);
    // RTT 27 us: delay 15 us >= target 12 us, no ECN.
    n.on_ack(&mut ctx(1.0), &ack(27.0, 4096, false));
    assert_eq!(n.last, Quadrant::FairIncrease);
    assert_eq!(n.inc, 5.0 * MSS * 4096.0);
    assert_eq!(n.cwnd(), 100_000.0, "applied at the next adjustment");
    // 13 us later (past one adjust period): cwnd += inc / cwnd + eta.
    let inc = n.inc + 5.0 * MSS * 4096.0;
    n.on_ack(&mut ctx(14.0), &ack(27.0, 4096, false));
    assert!((n.cwnd() - (100_000.0 + inc / 100_000.0 + 0.15 * MSS)).abs() < 1e-6, "{}", n.cwnd());
    assert_eq!(n.inc, 0.0);
}

#[test]
fn unmarked_low_delay_is_proportional_increase() {
    let mut n = with_cwnd(100_000);
    // Delay 6 us: inc += alpha x acked x (12 - 6) us = 2 MSS x acked.
    n.on_ack(&mut ctx(1.0), &ack(18.0, 4096, false));
    assert_eq!(n.last, Quadrant::ProportionalIncrease);
    assert!((n.inc - 2.0 * MSS * 4096.0).abs() < 1e-3);
    // Nine packets acknowledged in all (> adjust_bytes = 8 packets): applied.
    n.on_ack(&mut ctx(2.0), &ack(18.0, 8 * 4096, false));
    let inc = 2.0 * MSS * 9.0 * 4096.0;
    assert!((n.cwnd() - (100_000.0 + inc / 100_000.0)).abs() < 1e-6, "{}", n.cwnd());
}

#[test]
fn near_zero_delay_for_a_window_is_fast_increase() {
    // (No periodic adjustment in this test, so that only fast increases move cwnd.)
    let mut n = nscc(NsccParams {
        init_cwnd: Some(40_960),
        adjust_bytes: Some(1 << 40),
        adjust_period: Some(SimTime::ms(1)),
        ..NsccParams::default()
    });
    // Delay 0.5 us < 1 us: counted until a whole window (10 packets) was acknowledged.
    for i in 0..10 {
        n.on_ack(&mut ctx(1.0 + 0.1 * i as f64), &ack(12.5, 4096, false));
    }
    let before = n.cwnd();
    assert_eq!(before, 40_960.0, "proportional increases only, not applied yet");
    // The 11th: past a window; each such ACK now adds fi_scale x acked at once.
    n.on_ack(&mut ctx(2.1), &ack(12.5, 4096, false));
    assert!((n.cwnd() - (before + 0.25 * 4096.0)).abs() < 1e-6);
    n.on_ack(&mut ctx(2.2), &ack(12.5, 4096, false));
    assert!((n.cwnd() - (before + 0.5 * 4096.0)).abs() < 1e-6);
    // A delay above 1 us ends it.
    n.on_ack(&mut ctx(2.3), &ack(14.0, 4096, false));
    let c = n.cwnd();
    n.on_ack(&mut ctx(2.4), &ack(12.5, 4096, false));
    assert_eq!(n.cwnd(), c);
}

#[test]
fn marked_high_delay_is_multiplicative_decrease_once_per_base_rtt() {
    let mut n = with_cwnd(100_000);
    n.avg_delay = 24.0 * US;
    // Before one base RTT has passed since the (initial) last decrease: held.
    n.on_ack(&mut ctx(5.0), &ack(30.0, 4096, true));
    assert_eq!(n.last, Quadrant::MultiplicativeDecrease);
    assert_eq!(n.cwnd(), 100_000.0);
    // At 13 us: x max(1 - 0.8 (avg - 12) / avg, 0.5) with the average the sample moved,
    // then the periodic adjustment (one adjust period since 0) adds eta.
    n.avg_delay = 24.0 * US;
    n.on_ack(&mut ctx(13.0), &ack(30.0, 4096, true));
    let avg = 0.0125 * 18.0 * US + (1.0 - 0.0125) * 24.0 * US;
    let f: f64 = (1.0 - 0.8 * (avg - 12.0 * US) / avg).max(0.5);
    let eta = 0.15 * MSS;
    assert!((n.cwnd() - (100_000.0 * f + eta)).abs() < 1e-6, "{} vs {}", n.cwnd(), 100_000.0 * f);
    // Again within a base RTT: held.
    let c = n.cwnd();
    n.on_ack(&mut ctx(20.0), &ack(30.0, 4096, true));
    assert_eq!(n.cwnd(), c);
    // A huge average: bounded by max_md (halved), and eta again.
    n.avg_delay = 1000.0 * US;
    n.on_ack(&mut ctx(30.0), &ack(30.0, 4096, true));
    assert!((n.cwnd() - (c * 0.5 + eta)).abs() < 1e-6);
}

#[test]
fn marked_low_delay_changes_nothing() {
    let mut n = with_cwnd(100_000);
    n.on_ack(&mut ctx(1.0), &ack(15.0, 4096, true));
    assert_eq!(n.last, Quadrant::NoChange);
    assert_eq!(n.inc, 0.0);
    assert_eq!(n.cwnd(), 100_000.0);
}

#[test]
fn quick_adapt_cuts_to_what_was_delivered() {
    let mut n = with_cwnd(200_000);
    // The first ACK opens the first period (12 + 12 us), acting on nothing.
    n.on_ack(&mut ctx(1.0), &ack(13.0, 4096, false));
    // 3 packets acknowledged in that period (< max_cwnd / 8 = 28125 B) ...
    for t in [5.0, 10.0, 15.0] {
        n.on_ack(&mut ctx(t), &ack(13.0, 4096, false));
    }
    // ... and after its end a delay above 4 x target: cwnd = the 3 + 1 packets delivered.
    let mut a = ack(62.0, 4096, true);
    a.acked_to = 0;
    a.snd_nxt = 20;
    n.on_ack(&mut ctx(26.0), &a);
    assert_eq!(n.cwnd(), 4.0 * 4096.0);
    // The marks of what was in flight (20 packets) are then ignored: no decrease.
    n.avg_delay = 100.0 * US;
    n.on_ack(&mut ctx(40.0), &ack(62.0, 4096, true));
    assert_eq!(n.cwnd(), 4.0 * 4096.0);
    // Off: the quadrant acts instead.
    let mut off = nscc(NsccParams { init_cwnd: Some(200_000), quick_adapt: false, ..NsccParams::default() });
    off.avg_delay = 100.0 * US;
    off.on_ack(&mut ctx(26.0), &a);
    assert!((off.cwnd() - (100_000.0 + 0.15 * MSS)).abs() < 1e-6, "halved, plus eta");
}

#[test]
fn a_nak_takes_a_packet_then_quick_adapt_acts() {
    let mut n = with_cwnd(100_000);
    n.on_ack(&mut ctx(1.0), &ack(13.0, 4096, false));
    let nak = Ack { nak: true, ..ack(13.0, 0, false) };
    // Within the period: one packet less.
    n.on_ack(&mut ctx(2.0), &nak);
    assert_eq!(n.cwnd(), 100_000.0 - MSS);
    // The next period's first ACK: quick adapt was triggered and acts (one packet
    // delivered, so the floor of one packet).
    n.on_ack(&mut ctx(30.0), &ack(13.0, 4096, false));
    assert_eq!(n.cwnd(), MSS);
    // Unless NAKs are not losses (a fabric that reorders).
    let mut r = nscc(NsccParams { init_cwnd: Some(100_000), nak_is_loss: false, ..NsccParams::default() });
    r.on_ack(&mut ctx(1.0), &ack(13.0, 4096, false));
    r.on_ack(&mut ctx(2.0), &nak);
    assert!(r.cwnd() >= 100_000.0);
}

#[test]
fn base_rtt_follows_the_smallest_sample() {
    let mut n = nscc(NsccParams::default());
    n.on_ack(&mut ctx(1.0), &ack(8.0, 4096, false));
    assert_eq!(n.base_rtt, 8.0 * US);
    assert!((n.max_cwnd - 1.5 * 100e9 * 8e-6 / 8.0).abs() < 1e-6);
    assert_eq!(n.cwnd(), n.max_cwnd);
    // A given max_cwnd stays.
    let mut m = nscc(NsccParams { max_cwnd: Some(50_000), ..NsccParams::default() });
    m.on_ack(&mut ctx(1.0), &ack(8.0, 4096, false));
    assert_eq!(m.max_cwnd, 50_000.0);
    // Order does not matter: a late ACK of an early packet is one more sample.
    let mut o = nscc(NsccParams::default());
    o.on_ack(&mut ctx(1.0), &Ack { acked_to: 5, snd_nxt: 9, ..ack(12.0, 0, false) });
    o.on_ack(&mut ctx(1.1), &Ack { acked_to: 9, snd_nxt: 9, ..ack(12.0, 4 * 4096, false) });
    assert_eq!(o.last, Quadrant::ProportionalIncrease);
}

#[test]
fn keys_and_checks_name_the_field() {
    let ctx = KeyCtx { line_rate: Some(Rate::gbps(100)), ..KeyCtx::NONE };
    let keys = |t: &str| -> NsccKeys { toml::from_str(t).unwrap() };
    let p = keys("target = \"6us\"\nfi = \"8KiB\"\nalpha = 1000.0\nmax_cwnd = \"200KB\"").build("host.cc", &ctx).unwrap();
    assert_eq!(p.target, Some(SimTime::us(6)));
    assert_eq!(p.fi, Some(8192.0));
    assert_eq!(p.alpha, Some(1000.0 / 1e6));
    assert_eq!(p.max_cwnd, Some(200_000));
    p.check("host.cc", &ctx).unwrap();
    let err = |t: &str| keys(t).build("host.cc", &ctx).and_then(|p| p.check("host.cc", &ctx)).unwrap_err().to_string();
    assert!(err("target = \"0us\"").contains("host.cc.target: must be > 0"));
    assert!(err("max_md = 1.5").contains("host.cc.max_md: must be in (0, 1]"));
    assert!(err("gamma = -1.0").contains("host.cc.gamma: must be >= 0"));
    assert!(err("qa_gate = -1").contains("host.cc.qa_gate"));
    assert!(err("min_cwnd = \"10KB\"\nmax_cwnd = \"5KB\"").contains("host.cc.max_cwnd: must be >= min_cwnd"));
    assert!(err("init_cwnd = \"0B\"").contains("host.cc.init_cwnd: must be > 0"));
    assert!(err("fi = \"fast\"").contains("host.cc.fi"));
    assert!(toml::from_str::<NsccKeys>("tagret = \"6us\"").is_err());
}
