//! The TCP receiver: in-order delivery with out-of-order segments held (one flag per
//! segment), a cumulative ACK carrying one SACK block (the segment that triggered it,
//! the first block of RFC 2018), ACKs sent at once for out-of-order segments, duplicates
//! and segments that fill a hole, and otherwise every segment or, with delayed ACKs,
//! every `delayed_ack` segments or at the timeout (RFC 5681 4.2; an ACK is also sent at
//! once for the last segment of a message, as for a pushed segment). The ECN echo is
//! RFC 3168's (ECE on every ACK from a CE mark until a CWR segment) or, for DCTCP, the
//! CE bit of the segments each ACK covers (RFC 8257 3.2: a change of CE state sends the
//! held ACK at once). Pure logic, no world.
//!
//! Since ACKs travel in the control class (never dropped) and every out-of-order
//! arrival is ACKed at once with its own SACK block, the sender learns every segment the
//! receiver holds; more SACK blocks per ACK would add nothing here.

use std::ops::Range;

use super::sack::SeqFlags;
use crate::units::SimTime;

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    /// Segments held beyond the next expected one.
    ooo: SeqFlags,
    held: u32,
    /// In-order segments not yet acknowledged (delayed ACK) and the send time the held
    /// ACK will echo (that of the earliest of them, RFC 7323 4.3).
    pub unacked: u32,
    pub echo: SimTime,
    /// RFC 3168: echo ECE until a CWR segment arrives. DCTCP: the CE state of the last
    /// segment.
    dctcp: bool,
    pub ece: bool,
    /// Delayed-ACK timer generation (stale `DelAck` events are ignored).
    pub delack_gen: u32,
    pub delack_armed: bool,
}

/// What the receiver does for one arriving segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Segments delivered in order by this arrival.
    pub delivered: Range<u32>,
    /// DCTCP: an ACK for the held segments (up to `delivered.start`) with the previous
    /// CE state and the send time it echoes, sent first.
    pub flush: Option<(bool, SimTime)>,
    /// Send an ACK now (cumulative, `sack`, `ece`); otherwise hold it (start the
    /// delayed-ACK timer if it is not running).
    pub ack_now: bool,
    pub sack: Option<u32>,
    pub ece: bool,
}

impl TcpReceiver {
    pub fn new(dctcp_echo: bool) -> Self {
        TcpReceiver {
            ooo: SeqFlags::new(16),
            held: 0,
            unacked: 0,
            echo: SimTime::ZERO,
            dctcp: dctcp_echo,
            ece: false,
            delack_gen: 0,
            delack_armed: false,
        }
    }

    /// Segment `seq` arrived (sent at `sent`, CE-marked, carrying CWR); `rcv_next` is the
    /// next expected segment (advanced here); `per_ack` segments per ACK; `msg_end(n)`:
    /// whether segment `n - 1` ends a message.
    #[allow(clippy::too_many_arguments)] // one argument per header field
    pub fn on_segment(
        &mut self,
        rcv_next: &mut u32,
        seq: u32,
        sent: SimTime,
        ce: bool,
        cwr: bool,
        per_ack: u32,
        msg_end: impl Fn(u32) -> bool,
    ) -> Reply {
        let mut flush = None;
        if self.dctcp {
            if ce != self.ece && self.unacked > 0 {
                flush = Some((self.ece, self.echo));
                self.unacked = 0;
            }
            self.ece = ce;
        } else {
            if cwr {
                self.ece = false;
            }
            if ce {
                self.ece = true;
            }
        }
        let start = *rcv_next;
        let mut reply = Reply { delivered: start..start, flush, ack_now: true, sack: None, ece: self.ece };
        if seq == start {
            let mut n = seq + 1;
            while self.held > 0 && self.ooo.get(n) != 0 {
                n += 1;
                self.held -= 1;
            }
            self.ooo.advance(n);
            let filled = n > seq + 1;
            *rcv_next = n;
            reply.delivered = start..n;
            if self.unacked == 0 {
                self.echo = sent;
            }
            self.unacked += 1;
            reply.ack_now = per_ack <= 1 || filled || self.held > 0 || self.unacked >= per_ack || msg_end(n);
        } else if seq > start {
            if self.ooo.get(seq) == 0 {
                self.ooo.set(seq, 1);
                self.held += 1;
            }
            reply.sack = Some(seq);
            self.echo = sent;
        } else {
            self.echo = sent; // a duplicate: repeat the cumulative ACK at once
        }
        if reply.ack_now {
            self.unacked = 0;
        }
        reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(k: u64) -> SimTime {
        SimTime::us(k)
    }

    #[test]
    fn holds_out_of_order_segments_sacks_them_and_delivers_when_the_hole_fills() {
        let mut r = TcpReceiver::new(false);
        let mut next = 0;
        let no_end = |_| false;
        let a = r.on_segment(&mut next, 0, t(0), false, false, 1, no_end);
        assert_eq!((a.delivered, a.ack_now, a.sack), (0..1, true, None));
        let a = r.on_segment(&mut next, 2, t(2), false, false, 1, no_end);
        assert_eq!((a.delivered, a.ack_now, a.sack), (1..1, true, Some(2)));
        let a = r.on_segment(&mut next, 3, t(3), false, false, 1, no_end);
        assert_eq!(a.sack, Some(3));
        let a = r.on_segment(&mut next, 1, t(4), false, false, 1, no_end);
        assert_eq!((a.delivered, next), (1..4, 4));
        let a = r.on_segment(&mut next, 2, t(5), false, false, 1, no_end);
        assert_eq!((a.delivered, a.ack_now, a.sack), (4..4, true, None), "a duplicate is ACKed at once");
    }

    #[test]
    fn delayed_acks_every_second_segment_and_at_once_after_a_hole() {
        let mut r = TcpReceiver::new(false);
        let mut next = 0;
        let no_end = |_| false;
        assert!(!r.on_segment(&mut next, 0, t(0), false, false, 2, no_end).ack_now);
        assert!(r.on_segment(&mut next, 1, t(1), false, false, 2, no_end).ack_now);
        assert_eq!(r.echo, t(0), "echoes the earliest held segment");
        assert!(!r.on_segment(&mut next, 2, t(2), false, false, 2, no_end).ack_now);
        assert!(r.on_segment(&mut next, 4, t(3), false, false, 2, no_end).ack_now, "out of order: at once");
        assert!(r.on_segment(&mut next, 3, t(4), false, false, 2, no_end).ack_now, "fills the hole: at once");
        assert!(r.on_segment(&mut next, 5, t(5), false, false, 2, |n| n == 6).ack_now, "end of a message");
    }

    #[test]
    fn classic_ece_latches_until_cwr_and_dctcp_echoes_each_state() {
        let mut r = TcpReceiver::new(false);
        let mut next = 0;
        let e = |_| false;
        assert!(r.on_segment(&mut next, 0, t(0), true, false, 1, e).ece);
        assert!(r.on_segment(&mut next, 1, t(1), false, false, 1, e).ece, "latched");
        assert!(!r.on_segment(&mut next, 2, t(2), false, true, 1, e).ece, "CWR clears");
        let mut d = TcpReceiver::new(true);
        let mut next = 0;
        assert!(d.on_segment(&mut next, 0, t(0), true, false, 1, e).ece);
        assert!(!d.on_segment(&mut next, 1, t(1), false, false, 1, e).ece);
        // With delayed ACKs, a change of CE state flushes the held ACK with the old state.
        let a = d.on_segment(&mut next, 2, t(2), false, false, 2, e);
        assert!(!a.ack_now);
        let a = d.on_segment(&mut next, 3, t(3), true, false, 2, e);
        assert_eq!((a.flush, a.ack_now, a.ece), (Some((false, t(2))), false, true));
    }
}
