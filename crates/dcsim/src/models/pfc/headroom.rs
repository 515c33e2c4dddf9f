//! PFC (IEEE 802.1Qbb) and PAUSE (802.3x) frame timing and the headroom a lossless
//! (port, priority) needs (../shared/models/pfc.md 1.2, 1.3, 1.6).

use crate::plan::Headroom;
use crate::units::{Rate, SimTime};

/// PFC and PAUSE frames are minimum-size Ethernet frames.
pub const PFC_FRAME_BYTES: u32 = 64;
/// Preamble + SFD (8 B) and inter-frame gap (12 B).
pub const PREAMBLE_IFG: u32 = 20;

/// Duration of `quanta` pause quanta (512 bit times each) at `rate`.
#[inline]
pub fn quanta_to_time(quanta: u32, rate: Rate) -> SimTime {
    rate.tx_time(quanta as u64 * 64)
}

/// Quanta that last at least `t` at `rate` (for TIMER mode's pause time), capped at 65535.
pub fn time_to_quanta(t: SimTime, rate: Rate) -> u32 {
    let q_ps = rate.tx_time(64).0.max(1);
    t.0.div_ceil(q_ps).clamp(1, 65535) as u32
}

/// Bytes of headroom one lossless (port, priority) needs on a link of `rate` and one-way
/// `delay`, with `max_wire` the largest frame on the wire (preamble and gap included).
///
/// The formula model (pfc.md 1.6) adds up what can still arrive after the XOFF decision:
/// the frame the congested port may be sending (it cannot preempt it), the PFC frame,
/// the data on the wire in both directions (2 x C x d), PHY delays at both ends, the
/// peer's reaction time, and the frame the peer may have started. One more frame is
/// added because XOFF is decided after a whole frame has been admitted, so the frame
/// that crosses the threshold overshoots it by up to its own size.
pub fn headroom_bytes(model: &Headroom, rate: Rate, delay: SimTime, max_wire: u32, reaction_quanta: u32) -> u64 {
    let bytes_in = |t: SimTime| (t.0 as u128 * rate.0 as u128 / 8 / 1_000_000_000_000) as u64;
    match model {
        Headroom::Hpcc => 3 * bytes_in(delay),
        Headroom::Fixed(b) => *b,
        Headroom::Formula { phy_delay } => {
            let mtu = max_wire as u64;
            mtu + (PFC_FRAME_BYTES + PREAMBLE_IFG) as u64
                + 2 * bytes_in(delay)
                + 2 * bytes_in(*phy_delay)
                + 64 * reaction_quanta as u64
                + mtu
                + mtu
        }
    }
}

/// `headroom_bytes` for a switch that stores frames in cells of `cell` bytes: the bytes
/// in flight arrive as frames of at most `max_wire` bytes, each charged whole cells, so
/// the formula's (and the HPCC rule's) bytes become that many frames' cells. A fixed
/// headroom is taken as written.
pub fn headroom_charged(model: &Headroom, rate: Rate, delay: SimTime, max_wire: u32, reaction_quanta: u32, cell: Option<u32>) -> u64 {
    let h = headroom_bytes(model, rate, delay, max_wire, reaction_quanta);
    match (cell, model) {
        (None, _) | (_, Headroom::Fixed(_)) => h,
        (Some(c), _) => {
            let (c, w) = (c as u64, max_wire as u64);
            h.div_ceil(w) * w.div_ceil(c) * c
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_in_cells_counts_whole_cells_per_frame() {
        let f = Headroom::Formula { phy_delay: SimTime::ZERO };
        let h = headroom_bytes(&f, Rate::gbps(100), SimTime::us(1), 1106, 0);
        // 1106 B frames take 6 cells of 208 B (1248 B) each.
        assert_eq!(headroom_charged(&f, Rate::gbps(100), SimTime::us(1), 1106, 0, Some(208)), h.div_ceil(1106) * 1248);
        assert_eq!(headroom_charged(&f, Rate::gbps(100), SimTime::us(1), 1106, 0, None), h);
        assert_eq!(headroom_charged(&Headroom::Fixed(5000), Rate::gbps(100), SimTime::us(1), 1106, 0, Some(208)), 5000);
    }

    #[test]
    fn quantum_is_512_bit_times() {
        assert_eq!(quanta_to_time(1, Rate::gbps(100)), SimTime::ps(5120));
        assert_eq!(quanta_to_time(65535, Rate::gbps(40)), SimTime::ps(838_848_000));
        assert_eq!(time_to_quanta(SimTime::us(5), Rate::gbps(100)), 977);
    }

    #[test]
    fn formula_matches_hand_computation() {
        // 100 Gb/s, 1 us cable, 1582 B frames: 1582*3 + 84 + 2*12500.
        let h = headroom_bytes(&Headroom::Formula { phy_delay: SimTime::ZERO }, Rate::gbps(100), SimTime::us(1), 1582, 0);
        assert_eq!(h, 1582 * 3 + 84 + 25_000);
        assert_eq!(headroom_bytes(&Headroom::Hpcc, Rate::gbps(100), SimTime::us(1), 1582, 0), 37_500);
    }
}
