//! The receiving NIC's state of a flow (written only by the destination NIC).

use crate::units::SimTime;

/// The receiving NIC's state of a flow: one cache line.
#[repr(align(64))]
pub(crate) struct Receiver {
    pub rcv_next: u32,
    /// Selective repeat: packets received above `rcv_next`, one bit per sequence number
    /// modulo the bitmap's size (`host.ooo_window`; empty with go-back-N), and the highest.
    pub ooo: Vec<u64>,
    pub highest: u32,
    pub nak_for: u32,
    pub since_ack: u32,
    /// Arrival of the oldest in-order packet not yet acknowledged (`host.ack_interval`).
    pub ack_oldest: SimTime,
    /// Reorder statistics (the flows table): packets held now and at most; data frames
    /// that arrived above `rcv_next`; and frames that arrived when the receiver already
    /// had them (delivered or held: a retransmission whose original had arrived).
    pub held_now: u32,
    pub held_peak: u32,
    pub ooo_rx: u32,
    pub dup_rx: u32,
}
const _: () = assert!(std::mem::size_of::<Receiver>() == 64);

impl Receiver {
    /// `window`: selective repeat's `host.ooo_window` (a multiple of 64), or 0 for
    /// go-back-N.
    pub fn new(window: u32) -> Self {
        Receiver {
            rcv_next: 0,
            ooo: vec![0; (window / 64) as usize],
            highest: 0,
            nak_for: u32::MAX,
            since_ack: 0,
            ack_oldest: SimTime::ZERO,
            held_now: 0,
            held_peak: 0,
            ooo_rx: 0,
            dup_rx: 0,
        }
    }
    // The bitmaps take `w`, selective repeat's window (`host.ooo_window`, a multiple of
    // 64): the held packets' bits come first, then (trimming, added at the first header)
    // the bits of packets whose trimmed header was NAKed.

    /// Selective repeat: whether packet `seq` is held.
    #[inline]
    pub fn held(&self, seq: u32, w: u32) -> bool {
        let i = seq % w;
        self.ooo[(i / 64) as usize] & (1 << (i % 64)) != 0
    }
    #[inline]
    pub fn set_held(&mut self, seq: u32, on: bool, w: u32) {
        let i = seq % w;
        set_bit(&mut self.ooo[(i / 64) as usize], i % 64, on);
    }
    /// Trimming (selective repeat): whether packet `seq`'s header was answered by a NAK.
    #[inline]
    pub fn trim_nacked(&self, seq: u32, w: u32) -> bool {
        let i = seq % w;
        self.ooo.get(((w + i) / 64) as usize).is_some_and(|x| x & (1 << (i % 64)) != 0)
    }
    pub fn set_trim_nacked(&mut self, seq: u32, on: bool, w: u32) {
        if self.ooo.len() < (2 * w / 64) as usize {
            if !on {
                return;
            }
            self.ooo.resize((2 * w / 64) as usize, 0);
        }
        let i = seq % w;
        set_bit(&mut self.ooo[((w + i) / 64) as usize], i % 64, on);
    }
}

#[inline]
fn set_bit(word: &mut u64, bit: u32, on: bool) {
    if on {
        *word |= 1 << bit;
    } else {
        *word &= !(1 << bit);
    }
}
