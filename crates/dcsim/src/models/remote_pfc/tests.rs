//! The ToR's handling of remote-PFC messages and the congestion point's duration and
//! rate limit, on their own (the world-level tests are in tests/remote_pfc.rs).

use super::cp::CpState;
use super::params::RemotePfcPlan;
use super::tor::TorState;
use crate::models::pfc::headroom::quanta_to_time;
use crate::units::{Rate, SimTime};

const R25: Rate = Rate(25_000_000_000);

#[test]
fn first_message_becomes_a_pause_of_the_duration_rounded_up_to_quanta() {
    let mut tor = TorState::new(4, 2);
    // One quantum at 25 Gb/s is 512 bits = 20.48 ns: 1 us is 48.8 quanta, so 49.
    let q = tor.on_message(2, 3, SimTime::us(5), SimTime::us(1), R25).unwrap();
    assert_eq!(q, 49);
    assert_eq!(tor.granted_ps[2], quanta_to_time(49, R25).0);
    assert_eq!(tor.remaining(2, 3, SimTime::us(5), R25), Some(49));
    // Other priorities and ports are not paused.
    assert_eq!(tor.remaining(2, 4, SimTime::us(5), R25), None);
    assert_eq!(tor.remaining(1, 3, SimTime::us(5), R25), None);
}

#[test]
fn only_a_message_that_extends_the_running_pause_sends_a_frame() {
    let mut tor = TorState::new(1, 1);
    let t0 = SimTime::us(10);
    let q0 = tor.on_message(0, 3, t0, SimTime::us(100), R25).unwrap();
    let end0 = t0 + quanta_to_time(q0, R25);
    // Shorter, ending before the running pause: absorbed.
    assert_eq!(tor.on_message(0, 3, t0 + SimTime::us(20), SimTime::us(50), R25), None);
    let granted = tor.granted_ps[0];
    // Longer: a new frame, and only the extension is counted as granted time.
    let t1 = t0 + SimTime::us(50);
    let q1 = tor.on_message(0, 3, t1, SimTime::us(100), R25).unwrap();
    let end1 = t1 + quanta_to_time(q1, R25);
    assert!(end1 > end0);
    assert_eq!(tor.granted_ps[0], granted + (end1 - end0).0);
    // After it ran out, nothing remains, and a new message starts a new pause.
    assert_eq!(tor.remaining(0, 3, end1, R25), None);
    assert!(tor.on_message(0, 3, end1 + SimTime::us(1), SimTime::us(1), R25).is_some());
}

#[test]
fn a_pause_longer_than_a_frame_can_carry_is_capped_at_65535_quanta() {
    let mut tor = TorState::new(1, 1);
    let q = tor.on_message(0, 0, SimTime::ZERO, SimTime::ms(50), R25).unwrap();
    assert_eq!(q, 65535);
    // At a slower host link the same duration is fewer quanta.
    let mut tor = TorState::new(1, 1);
    assert_eq!(tor.on_message(0, 0, SimTime::ZERO, SimTime::us(1), Rate::gbps(10)).unwrap(), 20);
}

#[test]
fn the_congestion_point_asks_for_the_drain_time_to_its_target_within_bounds() {
    let p = RemotePfcPlan { min_quanta: 10, max_quanta: 1000, ..Default::default() };
    let cp = CpState::new(&p, vec![1_500_000], vec![7_000], 1);
    // 1.5 MB - 7 KB at 25 Gb/s: 477.76 us, above 1000 quanta (20.48 us): capped.
    assert_eq!(cp.duration(0, 1_500_000, R25), quanta_to_time(1000, R25));
    // 7 KB + 25 KB: 8 us, inside the bounds.
    assert_eq!(cp.duration(0, 32_000, R25), SimTime::us(8));
    // At or under the target: the minimum.
    assert_eq!(cp.duration(0, 5_000, R25), quanta_to_time(10, R25));
}

#[test]
fn one_message_per_queue_and_source_per_gap() {
    let p = RemotePfcPlan { min_gap: SimTime::us(10), ..Default::default() };
    let mut cp = CpState::new(&p, vec![0], vec![0], 1);
    assert!(cp.due(3, 7, SimTime::us(1)));
    assert!(!cp.due(3, 7, SimTime::us(10)));
    // Another source, or another queue, is not held back.
    assert!(cp.due(3, 8, SimTime::us(10)));
    assert!(cp.due(4, 7, SimTime::us(10)));
    assert!(cp.due(3, 7, SimTime::us(11)));
}
