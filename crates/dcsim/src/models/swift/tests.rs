//! Swift driven with scripted ACK sequences, each step against hand-computed values.

use super::*;

const US: u64 = 1_000_000; // ps

fn nic() -> NicSpec {
    NicSpec { line_rate: Rate::gbps(100), mtu_wire: 1086, mss: 1000, base_rtt: SimTime::us(10) }
}
fn swift(p: SwiftParams) -> Swift {
    Swift::from_params(&p, &nic())
}
fn ack(rtt_us: f64, newly: u64) -> Ack<'static> {
    Ack {
        newly_acked: newly,
        acked_to: 0,
        snd_nxt: 0,
        rtt: SimTime((rtt_us * US as f64) as u64),
        ece: false,
        nak: false,
        int: &[],
        recovery: false,
    }
}
fn at(us: u64) -> CcCtx {
    CcCtx::new(SimTime(us * US), Rate::gbps(100))
}

#[test]
fn defaults_and_flow_scaled_target() {
    let s = swift(SwiftParams::default());
    // Initial window: one BDP, 100 Gb/s x 10 us / 1000 B = 125 packets.
    assert_eq!(s.cwnd(), 125.0);
    assert_eq!(s.window(), Some(125_000));
    // hop_scale = 20 us / 6.55 = 3.053435 us; at cwnd >= fs_max_cwnd = 100 no flow scaling.
    assert_eq!(s.p.hop_scale, SimTime(3_053_435));
    assert_eq!(s.fabric_target(), 23_053_435.0);
    // At fs_min_cwnd = 0.1 packets the flow-scaling term is its full range, 5 x 20 us.
    let mut small = swift(SwiftParams { init_cwnd: Some(0.1), ..SwiftParams::default() });
    assert!((small.fabric_target() - (23_053_435.0 + 100e6)).abs() < 1.0);
    // Below 0.1 it is clamped to the range.
    small.fabric.cwnd = 0.02;
    assert!((small.fabric_target() - (23_053_435.0 + 100e6)).abs() < 1.0);
}

#[test]
fn increase_decrease_once_per_rtt_and_mdf_bound() {
    let mut s = swift(SwiftParams { init_cwnd: Some(100.0), ..SwiftParams::default() });
    // Delay 10 us < target 23.05 us: + ai x 1 packet / cwnd.
    s.on_ack(&mut at(0), &ack(10.0, 1000));
    assert_eq!(s.cwnd(), 100.0 + 1.0 / 100.0);
    // Delay 43.053435 us: 20 us over target -> x (1 - 0.8 x 20 / 43.053435).
    s.on_ack(&mut at(1), &ack(43.053435, 1000));
    let w1 = 100.01 * (1.0 - 0.8 * 20e6 / 43_053_435.0);
    assert!((s.cwnd() - w1).abs() < 1e-9, "{} vs {w1}", s.cwnd());
    // 2 us later, delay still high: no second decrease within an RTT (43 us).
    s.on_ack(&mut at(3), &ack(100.0, 1000));
    assert!((s.cwnd() - w1).abs() < 1e-9);
    // 200 us later, delay 200 us: 1 - 0.8 (200 - target) / 200 < 0.5, so x (1 - max_mdf).
    let target = s.fabric_target();
    assert!(1.0 - 0.8 * (200e6 - target) / 200e6 < 0.5);
    s.on_ack(&mut at(201), &ack(200.0, 1000));
    assert!((s.cwnd() - w1 * 0.5).abs() < 1e-9);
    assert_eq!(s.rate(), Rate::gbps(100)); // a window of >= 1 packet: line rate
}

#[test]
fn below_one_packet_paces_and_grows_by_whole_acks() {
    let mut s = swift(SwiftParams { init_cwnd: Some(0.5), ..SwiftParams::default() });
    // 0.5 packets per 10 us RTT: 0.5 x 1086 B x 8 / 10 us = 434.4 Mb/s.
    // (f64 arithmetic lands a hair below and the rate is rounded down to whole bit/s.)
    assert!((s.rate().0 as i64 - 434_400_000).abs() <= 1, "{:?}", s.rate());
    assert_eq!(s.window(), Some(500));
    // Low delay below one packet: + ai x acked (not / cwnd).
    s.on_ack(&mut at(0), &ack(10.0, 1000));
    assert_eq!(s.cwnd(), 1.5);
}

#[test]
fn naks_and_timeouts() {
    let mut s = swift(SwiftParams { init_cwnd: Some(64.0), ..SwiftParams::default() });
    let nak = Ack { nak: true, ..ack(10.0, 0) };
    s.on_ack(&mut at(0), &nak);
    assert_eq!(s.cwnd(), 32.0);
    s.on_ack(&mut at(1), &nak); // within the RTT: held
    assert_eq!(s.cwnd(), 32.0);
    let to = Loss { kind: LossKind::Timeout, flight: 0, snd_nxt: 0 };
    let mut t = 100;
    for n in 1..5 {
        s.on_loss(&mut at(t), &to);
        assert_eq!(s.cwnd(), 32.0 / f64::powi(2.0, n), "timeout {n}");
        t += 100;
    }
    // The fifth timeout in a row: down to min_cwnd.
    s.on_loss(&mut at(t), &to);
    assert_eq!(s.cwnd(), 0.01);
    assert_eq!(s.window(), Some(10));
}

/// A loss episode is one cut: the NAKs that follow until the cumulative ACK passes what
/// had been sent at the first hold the window, however many round trips they span.
#[test]
fn one_cut_per_loss_episode() {
    let mut s = swift(SwiftParams { init_cwnd: Some(64.0), ..SwiftParams::default() });
    let nak = |to: u32| Ack { nak: true, acked_to: to, snd_nxt: 100, ..ack(10.0, 0) };
    s.on_ack(&mut at(0), &nak(0));
    assert_eq!(s.cwnd(), 32.0);
    for (t, to) in [(100, 10), (200, 50), (300, 99)] {
        s.on_ack(&mut at(t), &nak(to)); // RTTs later, the same episode: held
        assert_eq!(s.cwnd(), 32.0, "at {t} us");
    }
    s.on_ack(&mut at(400), &nak(100)); // the episode is over: a new loss
    assert_eq!(s.cwnd(), 16.0);
}

#[test]
fn endpoint_window_has_its_own_target() {
    let mut s = swift(SwiftParams { init_cwnd: Some(50.0), host_target: Some(SimTime::us(5)), ..SwiftParams::default() });
    // Fabric delay 10 us (< 23.05 us target): fabric grows; host delay 8 us > 5 us:
    // endpoint window 1000 x max(1 - 0.8 x 3 / 8, 0.5) = 700.
    s.on_delays(SimTime::ZERO, 10e6, 8e6, 1.0);
    assert_eq!(s.fabric.cwnd, 50.0 + 1.0 / 50.0);
    assert!((s.host.cwnd - 700.0).abs() < 1e-9);
    assert_eq!(s.cwnd(), 50.0 + 1.0 / 50.0);
    // Host delay 40 us: bounded by max_mdf: 700 x 0.5 = 350 (after an RTT).
    s.on_delays(SimTime::us(100), 10e6, 40e6, 1.0);
    assert!((s.host.cwnd - 350.0).abs() < 1e-9);
    // A host target below the fabric window: the endpoint window limits.
    for i in 0..10 {
        s.on_delays(SimTime::us(200 + 100 * i), 10e6, 40e6, 1.0);
    }
    assert!(s.host.cwnd < s.fabric.cwnd);
    assert_eq!(s.cwnd(), s.host.cwnd);
}
