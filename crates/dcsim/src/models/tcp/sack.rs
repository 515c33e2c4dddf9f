//! Per-segment flags kept by TCP on both ends: the sender's SACK scoreboard (which
//! outstanding segments the receiver reported, which were resent) and the receiver's
//! out-of-order record. Segments are numbered as the flow's packets are (one MSS each,
//! the last of a message may be short), so a flag is one byte per segment in a ring that
//! starts at the left edge of the window. The ring grows (doubling) only when the window
//! outgrows it, so once a flow has reached its largest window nothing is allocated.

use std::collections::VecDeque;

/// One byte of flags per sequence number from `base` on.
#[derive(Clone, Debug)]
pub struct SeqFlags {
    base: u32,
    head: usize,
    /// Length a power of two; slots beyond the window are zero.
    buf: Vec<u8>,
}

impl SeqFlags {
    pub fn new(cap: usize) -> Self {
        SeqFlags { base: 0, head: 0, buf: vec![0; cap.next_power_of_two().max(16)] }
    }

    pub fn base(&self) -> u32 {
        self.base
    }

    #[inline]
    fn slot(&self, seq: u32) -> usize {
        (self.head + (seq - self.base) as usize) & (self.buf.len() - 1)
    }

    #[inline]
    pub fn get(&self, seq: u32) -> u8 {
        if seq < self.base || (seq - self.base) as usize >= self.buf.len() {
            return 0;
        }
        self.buf[self.slot(seq)]
    }

    /// Sets `bits` on `seq` (at or beyond `base`).
    #[inline]
    pub fn set(&mut self, seq: u32, bits: u8) {
        debug_assert!(seq >= self.base);
        let need = (seq - self.base) as usize + 1;
        if need > self.buf.len() {
            self.grow(need);
        }
        let i = self.slot(seq);
        self.buf[i] |= bits;
    }

    /// Clears `bits` on `seq` (inside the window).
    #[inline]
    pub fn clear_bits(&mut self, seq: u32, bits: u8) {
        if seq >= self.base && ((seq - self.base) as usize) < self.buf.len() {
            let i = self.slot(seq);
            self.buf[i] &= !bits;
        }
    }

    /// Moves the left edge to `to`, clearing what it passes.
    pub fn advance(&mut self, to: u32) {
        if to <= self.base {
            return;
        }
        let n = (to - self.base) as usize;
        if n >= self.buf.len() {
            self.buf.fill(0);
            self.head = 0;
        } else {
            let mask = self.buf.len() - 1;
            for k in 0..n {
                self.buf[(self.head + k) & mask] = 0;
            }
            self.head = (self.head + n) & mask;
        }
        self.base = to;
    }

    /// Forgets every flag (the base stays).
    pub fn clear(&mut self) {
        self.buf.fill(0);
        self.head = 0;
    }

    fn grow(&mut self, need: usize) {
        let len = need.next_power_of_two();
        let mut v = vec![0u8; len];
        let mask = self.buf.len() - 1;
        for (k, x) in v.iter_mut().enumerate().take(self.buf.len()) {
            *x = self.buf[(self.head + k) & mask];
        }
        self.buf = v;
        self.head = 0;
    }
}

const SACKED: u8 = 1;
const RESENT: u8 = 2;

/// The sender's scoreboard over the outstanding segments `[snd_una, snd_nxt)` (RFC 6675).
///
/// Loss inference: a segment not SACKed below the highest SACKed one is taken as lost
/// once recovery has started (the forward-acknowledgement rule). It is exact here because
/// a flow follows one path (per-flow ECMP) and the fabric does not reorder, so a hole
/// below SACKed data is a drop, never a late segment.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    flags: SeqFlags,
    /// SACKed segments at or above `snd_una`.
    pub sacked: u32,
    /// One past the highest SACKed segment (`snd_una` if none).
    pub high_end: u32,
    /// Resent segments neither SACKed nor cumulatively acknowledged yet.
    pub resent_out: u32,
    /// Resent copies found lost (counted).
    pub lost_resent: u64,
    /// Holes below this were resent already (where `next_hole` resumes its scan).
    scan: u32,
    /// Resent segments in the order they were resent, each with the next new segment at
    /// that time: a SACK of that segment or above means the resent copy was dropped
    /// (the path is FIFO), and the hole is resent again (lost-retransmission detection,
    /// as RACK does by time, RFC 8985). Grows to the largest count resent per window.
    resent_order: VecDeque<(u32, u32)>,
}

impl Scoreboard {
    pub fn new() -> Self {
        Scoreboard {
            flags: SeqFlags::new(64),
            sacked: 0,
            high_end: 0,
            resent_out: 0,
            lost_resent: 0,
            scan: 0,
            resent_order: VecDeque::with_capacity(16),
        }
    }

    /// The receiver holds `seq` (a SACK block). Returns whether that is news.
    pub fn sack(&mut self, seq: u32) -> bool {
        if seq < self.flags.base() {
            return false;
        }
        let f = self.flags.get(seq);
        if f & SACKED != 0 {
            return false;
        }
        if f & RESENT != 0 {
            self.resent_out -= 1;
        }
        self.flags.set(seq, SACKED);
        self.sacked += 1;
        self.high_end = self.high_end.max(seq + 1);
        // Resent copies sent before `seq` was first sent and still missing are lost.
        while let Some(&(h, mark)) = self.resent_order.front() {
            if mark > seq {
                break;
            }
            self.resent_order.pop_front();
            if h >= self.flags.base() && self.flags.get(h) == RESENT {
                self.flags.clear_bits(h, RESENT);
                self.resent_out -= 1;
                self.scan = self.scan.min(h);
                self.lost_resent += 1;
            }
        }
        true
    }

    /// The cumulative ACK moved from the left edge to `una`.
    pub fn ack_to(&mut self, una: u32) {
        let base = self.flags.base();
        if una <= base {
            return;
        }
        // Only flagged segments need a look; the ring holds at most what was flagged.
        let mut s = base;
        let last = una.min(self.high_end.max(self.scan));
        while s < last {
            let f = self.flags.get(s);
            if f & SACKED != 0 {
                self.sacked -= 1;
            } else if f & RESENT != 0 {
                self.resent_out -= 1;
            }
            s += 1;
        }
        self.flags.advance(una);
        self.high_end = self.high_end.max(una);
        self.scan = self.scan.max(una);
    }

    /// Holes (segments not SACKed) below the highest SACKed segment.
    pub fn holes(&self) -> u32 {
        self.high_end - self.flags.base() - self.sacked_below_high()
    }

    fn sacked_below_high(&self) -> u32 {
        self.sacked
    }

    /// The lowest hole below the highest SACKed segment not resent yet (RFC 6675 NextSeg
    /// rule 1).
    pub fn next_hole(&mut self) -> Option<u32> {
        let mut s = self.scan.max(self.flags.base());
        while s < self.high_end {
            if self.flags.get(s) == 0 {
                self.scan = s;
                return Some(s);
            }
            s += 1;
        }
        self.scan = s;
        None
    }

    /// `seq` (a hole) was resent while `snd_nxt` was the next new segment.
    pub fn resent(&mut self, seq: u32, snd_nxt: u32) {
        self.resent_order.push_back((seq, snd_nxt));
        self.flags.set(seq, RESENT);
        self.resent_out += 1;
        self.scan = self.scan.max(seq + 1);
    }

    /// Forgets all SACK information (after a retransmission timeout).
    pub fn reset(&mut self, una: u32) {
        self.flags.clear();
        self.flags.advance(una);
        self.sacked = 0;
        self.high_end = una;
        self.resent_out = 0;
        self.scan = una;
        self.resent_order.clear();
    }

    /// Segments in flight (RFC 6675 `pipe`) with `snd_nxt`; `lost_holes`: count the holes
    /// below the highest SACK as lost (in recovery).
    pub fn pipe(&self, snd_nxt: u32, lost_holes: bool) -> u32 {
        let out = snd_nxt - self.flags.base();
        let lost = if lost_holes { self.holes() } else { 0 };
        out - self.sacked - lost + self.resent_out
    }
}

impl Default for Scoreboard {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_grows_and_clears_what_the_edge_passes() {
        let mut f = SeqFlags::new(16);
        f.set(3, 1);
        f.set(40, 2);
        assert_eq!((f.get(3), f.get(40), f.get(4)), (1, 2, 0));
        f.advance(10);
        assert_eq!((f.get(3), f.get(40)), (0, 2));
        f.advance(100);
        assert_eq!(f.get(40), 0);
        f.set(120, 1);
        assert_eq!(f.get(120), 1);
    }

    #[test]
    fn scoreboard_pipe_holes_and_next_hole() {
        let mut b = Scoreboard::new();
        // Segments 0..10 sent; 2 and 3 lost; 4..=6 SACKed.
        for s in 4..=6 {
            assert!(b.sack(s));
        }
        assert!(!b.sack(5));
        b.ack_to(2);
        assert_eq!((b.sacked, b.high_end, b.holes()), (3, 7, 2));
        assert_eq!(b.pipe(10, false), 8 - 3);
        assert_eq!(b.pipe(10, true), 8 - 3 - 2);
        assert_eq!(b.next_hole(), Some(2));
        b.resent(2, 10);
        assert_eq!(b.next_hole(), Some(3));
        b.resent(3, 10);
        assert_eq!(b.next_hole(), None);
        assert_eq!(b.pipe(10, true), 8 - 3 - 2 + 2);
        // The resent 2 arrives: the cumulative ACK goes to 3.
        b.ack_to(3);
        assert_eq!((b.resent_out, b.sacked), (1, 3));
        b.ack_to(10);
        assert_eq!((b.resent_out, b.sacked, b.holes()), (0, 0, 0));
        assert_eq!(b.pipe(10, true), 0);
    }

    #[test]
    fn a_sack_of_data_sent_after_a_resend_shows_the_resent_copy_lost() {
        let mut b = Scoreboard::new();
        // 0..10 sent, 2 lost, 3..=5 SACKed; 2 resent while 10 is next; 10 and 11 go out.
        for s in 3..=5 {
            b.sack(s);
        }
        b.ack_to(2);
        assert_eq!(b.next_hole(), Some(2));
        b.resent(2, 10);
        assert_eq!(b.next_hole(), None);
        b.sack(9);
        assert_eq!((b.resent_out, b.lost_resent), (1, 0), "9 was sent before the resend");
        b.sack(10);
        assert_eq!((b.resent_out, b.lost_resent), (0, 1), "10 was sent after it: the copy is lost");
        assert_eq!(b.next_hole(), Some(2), "resent again");
    }
}
