//! The TCP sender's transport state beside the queue pair's (`snd_una`, the next new
//! segment and the message bounds live in the world's `Sender`): the SACK scoreboard,
//! loss recovery (RFC 6675 with the NewReno `recover` guard of RFC 6582), the RFC 6298
//! timer, the ECN CWR flag, and what is counted about them. Pure logic, no world: the
//! glue in `world.rs` calls it.

use super::rto::RtoEstimator;
use super::sack::Scoreboard;
use super::TcpParams;
use crate::units::SimTime;

#[derive(Clone, Debug)]
pub struct TcpSender {
    pub board: Scoreboard,
    pub rto: RtoEstimator,
    /// One past the highest segment ever sent (after a timeout the sender goes back
    /// below it; what it sends there again are retransmissions).
    pub snd_max: u32,
    /// In fast recovery until the cumulative ACK reaches `recover`.
    pub recovery: bool,
    pub recover: u32,
    /// Resend the first hole at once when recovery starts, whatever the window says
    /// (RFC 6675 5, step 4.3).
    pub force_resend: bool,
    /// Set CWR on the next new data segment (the window was cut for an ECN echo).
    pub cwr_pending: bool,
    /// The retransmission timer expires at this time (`None`: stopped); whether an
    /// `Rto` event is pending for it (one per flow, re-armed lazily when it fires early).
    pub deadline: Option<SimTime>,
    pub timer_pending: bool,
    /// When the pending `Rto` event fires.
    pub timer_at: SimTime,
    dupthresh: u32,
    /// Counted (the `tcp` table).
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub rtt_sum: u128,
    pub rtt_n: u64,
    pub rtt_max: u64,
}

/// What one ACK did to the sender's transport state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckOutcome {
    /// Fast recovery started with this ACK (tell the congestion control).
    pub enter_recovery: bool,
}

impl TcpSender {
    pub fn new(p: &TcpParams) -> Self {
        TcpSender {
            board: Scoreboard::new(),
            rto: RtoEstimator::new(p.initial_rto, p.min_rto, p.max_rto, p.granularity),
            snd_max: 0,
            recovery: false,
            recover: 0,
            force_resend: false,
            cwr_pending: false,
            deadline: None,
            timer_pending: false,
            timer_at: SimTime::ZERO,
            dupthresh: p.dupthresh,
            timeouts: 0,
            fast_recoveries: 0,
            rtt_sum: 0,
            rtt_n: 0,
            rtt_max: 0,
        }
    }

    /// The segment to send next, if the window (`cwnd` bytes, `None`: none) allows one:
    /// `(seq, resend)`. In recovery the lowest hole not resent yet comes first (RFC 6675
    /// NextSeg rule 1), then new data below `limit` (the end of the posted messages).
    pub fn next_segment(&mut self, snd_nxt: u32, limit: u32, cwnd: Option<u64>, mss: u64) -> Option<(u32, bool)> {
        let pipe = self.board.pipe(snd_nxt, self.recovery) as u64;
        let open = self.force_resend || pipe == 0 || cwnd.is_none_or(|w| (pipe + 1) * mss <= w);
        if !open {
            return None;
        }
        if self.recovery {
            if let Some(h) = self.board.next_hole() {
                return Some((h, true));
            }
        }
        (snd_nxt < limit).then_some((snd_nxt, false))
    }

    /// Segment `seq` was handed to the wire (`snd_nxt`: the next new segment).
    pub fn sent(&mut self, seq: u32, resend: bool, snd_nxt: u32) {
        if resend {
            self.board.resent(seq, snd_nxt);
            self.force_resend = false;
        } else {
            self.snd_max = self.snd_max.max(seq + 1);
        }
    }

    /// An ACK: cumulative `cum` (the old left edge is the scoreboard's), the segment it
    /// SACKs if any; `snd_nxt` is the next new segment.
    pub fn on_ack(&mut self, cum: u32, sack: Option<u32>, snd_nxt: u32) -> AckOutcome {
        if let Some(s) = sack.filter(|&s| s >= cum && s < snd_nxt) {
            self.board.sack(s);
        }
        self.board.ack_to(cum);
        if self.recovery && cum >= self.recover {
            self.recovery = false; // a full ACK ends recovery (RFC 6582)
            self.force_resend = false;
        }
        let mut out = AckOutcome { enter_recovery: false };
        if !self.recovery && self.board.sacked >= self.dupthresh && cum >= self.recover {
            // DupThresh segments SACKed above a hole: fast retransmit (RFC 6675 5).
            self.recovery = true;
            self.recover = snd_nxt;
            self.force_resend = true;
            self.fast_recoveries += 1;
            out.enter_recovery = true;
        }
        out
    }

    /// The retransmission timer expired with `[una, ..)` outstanding: forget the SACK
    /// information, leave recovery, back the timer off; the world goes back to `una`.
    pub fn on_timeout(&mut self, una: u32) {
        self.board.reset(una);
        self.recovery = false;
        self.force_resend = false;
        self.recover = self.snd_max; // no fast retransmit for what was sent before (RFC 6582)
        self.rto.expired();
        self.timeouts += 1;
    }

    /// An RTT sample (from the send time the ACK echoes).
    pub fn rtt_sample(&mut self, r: SimTime) {
        self.rto.sample(r);
        self.rtt_sum += r.0 as u128;
        self.rtt_n += 1;
        self.rtt_max = self.rtt_max.max(r.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_sacks_start_recovery_holes_go_first_and_a_full_ack_ends_it() {
        let mut s = TcpSender::new(&TcpParams::default());
        // 10 segments sent; the window is 10 MSS.
        for q in 0..10 {
            assert_eq!(s.next_segment(q, 100, Some(10_000), 1000), Some((q, false)));
            s.sent(q, false, q + 1);
        }
        assert_eq!(s.next_segment(10, 100, Some(10_000), 1000), None, "window full");
        // Segment 2 is lost: ACK 1, 2, then three duplicates SACKing 3, 4, 5.
        assert!(!s.on_ack(1, None, 10).enter_recovery);
        assert!(!s.on_ack(2, None, 10).enter_recovery);
        assert!(!s.on_ack(2, Some(3), 10).enter_recovery);
        // Each SACKed segment frees a segment of pipe (as limited transmit would).
        assert_eq!(s.board.pipe(10, false), 7);
        assert!(!s.on_ack(2, Some(4), 10).enter_recovery);
        assert!(s.on_ack(2, Some(5), 10).enter_recovery);
        assert!(s.recovery);
        assert_eq!(s.recover, 10);
        // The hole is resent first, even though pipe is at the window.
        assert_eq!(s.next_segment(10, 100, Some(4_000), 1000), Some((2, true)));
        s.sent(2, true, 10);
        // pipe = 8 outstanding - 3 SACKed - 1 lost + 1 resent = 5 > 4: wait.
        assert_eq!(s.next_segment(10, 100, Some(4_000), 1000), None);
        // More SACKs shrink pipe: new data goes out.
        s.on_ack(2, Some(6), 10);
        s.on_ack(2, Some(7), 10);
        assert_eq!(s.board.pipe(10, true), 3);
        assert_eq!(s.next_segment(10, 100, Some(4_000), 1000), Some((10, false)));
        s.sent(10, false, 11);
        // The resent 2 arrives: cumulative ACK to 8 (3..7 were held), not yet recover.
        s.on_ack(8, None, 11);
        assert!(s.recovery, "partial ACK");
        s.on_ack(10, None, 11);
        assert!(!s.recovery, "full ACK");
        assert_eq!((s.fast_recoveries, s.board.sacked, s.board.resent_out), (1, 0, 0));
    }

    #[test]
    fn a_timeout_resets_the_scoreboard_and_guards_against_a_second_fast_retransmit() {
        let mut s = TcpSender::new(&TcpParams::default());
        for q in 0..10 {
            s.sent(q, false, q + 1);
        }
        s.on_ack(0, Some(5), 10);
        s.on_timeout(0);
        assert_eq!((s.timeouts, s.board.sacked, s.recover), (1, 0, 10));
        // Going back: duplicates SACKed below recover do not start fast recovery.
        for q in 1..=4 {
            assert!(!s.on_ack(0, Some(q), 5).enter_recovery);
        }
        assert_eq!(s.rto.rto(), SimTime::ms(20), "backed off once from the initial 10 ms");
    }
}
