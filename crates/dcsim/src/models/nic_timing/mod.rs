//! The NIC's own delays (docs/models/dcqcn.md, "NIC timing"): the time from a doorbell to
//! the first byte of a new message on the wire (`host.doorbell`: the MMIO write, the WQE
//! fetch and the payload's first DMA read over PCIe), the notification point's CNP
//! generation delay (`host.cnp.delay`: from the CE-marked packet to the CNP in the NIC's
//! send queue) and ACK coalescing by time (`host.ack_interval`, beside `host.ack_every`).
//! All are zero by default: the NIC as the engine modelled it before. The world applies
//! them (`sim/host.rs`, `models/ecn/cnp.rs`); the rules are here, as pure functions.

use crate::units::SimTime;

/// The NIC's timing settings, resolved (`[host]` keys; the CNP delay is `CnpPlan::delay`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicTiming {
    /// Doorbell to first byte on the wire, per posted message; zero: at once.
    pub doorbell: SimTime,
    /// An ACK is due once this long has passed since the oldest packet not yet
    /// acknowledged arrived (checked as packets arrive); zero: by count only.
    pub ack_interval: SimTime,
}

/// The earliest time a message posted at `now` may put its first packet on the wire, for
/// a queue pair whose pacing would allow it at `next_tx`.
#[inline]
pub fn first_send(now: SimTime, next_tx: SimTime, doorbell: SimTime) -> SimTime {
    if doorbell.0 == 0 {
        next_tx
    } else {
        next_tx.max(now + doorbell)
    }
}

/// Whether a receiver owes an ACK now: `since_ack` in-order packets not yet acknowledged
/// (this one included), `every` the count that triggers one, `oldest` the arrival time of
/// the oldest of them.
#[inline]
pub fn ack_due(since_ack: u32, every: u32, oldest: SimTime, now: SimTime, interval: SimTime) -> bool {
    since_ack >= every || (interval.0 != 0 && now - oldest >= interval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doorbell_delays_the_first_send_unless_pacing_holds_it_longer() {
        let us = SimTime::us;
        assert_eq!(first_send(us(10), SimTime::ZERO, SimTime::ZERO), SimTime::ZERO);
        assert_eq!(first_send(us(10), SimTime::ZERO, us(2)), us(12));
        assert_eq!(first_send(us(10), us(15), us(2)), us(15));
    }

    #[test]
    fn an_ack_is_due_by_count_or_by_age() {
        let us = SimTime::us;
        assert!(!ack_due(3, 4, us(0), us(100), SimTime::ZERO));
        assert!(ack_due(4, 4, us(0), us(0), SimTime::ZERO));
        assert!(!ack_due(1, 4, us(9), us(10), us(2)));
        assert!(ack_due(1, 4, us(8), us(10), us(2)));
    }
}
