//! The Ultra Ethernet transport (`transport = "uet"`): a RoCE-style queue pair that
//! always repairs losses packet by packet (selective repeat), acknowledges every packet
//! it holds out of order (a SACK), NAKs only a trimmed header (no gap NAKs: a sprayed
//! flow's gaps are reordering), puts an entropy value on each data frame (switches in
//! `entropy` mode spray by it) and, with `[host.uet] rccc = true`, sends only within the
//! credits its receiver grants (RCCC). Its congestion control is the flow's reaction
//! point (NSCC by default). The NIC drives this state in `sim/uet.rs`;
//! docs/models/uet.md.
//!
//! Units: credits are counted in bytes of frames (payload and header), and carried in
//! 256-byte quanta (`QUANTUM`), cumulative, so that a lost or reordered credit frame or
//! pull target is made good by the next one.

mod checks;
mod keys;

pub(crate) use checks::Uet;
pub use keys::UetKeys;

use crate::ids::FlowId;
use crate::units::{Rate, SimTime};
use std::collections::VecDeque;

/// Bytes per credit quantum (the unit of pull targets and grants).
pub const QUANTUM: u64 = 256;

/// Resolved `[host.uet]` parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct UetParams {
    /// Receiver credit congestion control (RCCC) on.
    pub rccc: bool,
    /// The receiver grants credits at this fraction of its line rate.
    pub credit_rate: f64,
    /// Credit per grant, in packets of `host.mtu` payload (quantized down).
    pub credit_packets: u32,
    /// The most credit a sender holds, and the most it asks for at once (`None`: 1.5
    /// BDP of the fabric's largest base RTT at the sender's line rate).
    pub max_credit: Option<u64>,
    /// Credit a sender starts with before its receiver has answered (`None`:
    /// `max_credit`): the unsolicited window.
    pub unsolicited: Option<u64>,
    /// The first unacknowledged packet is taken for lost (and resent) once a packet this
    /// many above it is SACKed (`None`: only a trimmed header's NACK or the timer tell).
    pub loss_threshold: Option<u32>,
}

impl Default for UetParams {
    fn default() -> Self {
        UetParams { rccc: false, credit_rate: 0.99, credit_packets: 4, max_credit: None, unsolicited: None, loss_threshold: None }
    }
}

/// UET flows without a congestion control of their own (no `cc` in their entry, no
/// `[host.cc]`) run NSCC with its defaults: UET's sender-side congestion control.
pub fn default_cc(plan: &mut crate::plan::Plan, host_cc_given: bool, ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
    use crate::keys::Keys;
    let uses_host = |f: &crate::plan::FlowPlan| f.transport == crate::plan::Transport::Uet && f.cc == 0;
    if host_cc_given || !plan.flows.iter().any(uses_host) {
        return Ok(());
    }
    let k = plan.ccs.len() as u32;
    plan.ccs.push(crate::models::CcPlan::Nscc(crate::models::nscc::NsccKeys::default().build("host.cc", ctx)?));
    for f in plan.flows.iter_mut().filter(|f| uses_host(f)) {
        f.cc = k;
    }
    Ok(())
}

/// A sender's selective-ACK scoreboard: which packets above the cumulative ACK the
/// receiver has reported holding, as a ring of bits over the out-of-order window.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    bits: Vec<u64>,
    /// Packets marked.
    pub count: u32,
}

impl Scoreboard {
    pub fn new(window: u32) -> Scoreboard {
        Scoreboard { bits: vec![0; (window as usize).div_ceil(64).max(1)], count: 0 }
    }
    #[inline]
    fn slot(&self, seq: u32) -> (usize, u64) {
        let n = self.bits.len() as u32 * 64;
        let i = seq % n;
        ((i / 64) as usize, 1u64 << (i % 64))
    }
    pub fn has(&self, seq: u32) -> bool {
        let (w, b) = self.slot(seq);
        self.bits[w] & b != 0
    }
    /// Marks `seq`; false if it was marked already.
    pub fn mark(&mut self, seq: u32) -> bool {
        let (w, b) = self.slot(seq);
        if self.bits[w] & b != 0 {
            return false;
        }
        self.bits[w] |= b;
        self.count += 1;
        true
    }
    /// Clears `seq` (the cumulative ACK passed it); true if it was marked.
    pub fn clear(&mut self, seq: u32) -> bool {
        let (w, b) = self.slot(seq);
        if self.bits[w] & b == 0 {
            return false;
        }
        self.bits[w] &= !b;
        self.count -= 1;
        true
    }
    /// The window in packets it can hold.
    pub fn window(&self) -> u32 {
        self.bits.len() as u32 * 64
    }
}

/// The sending side of a UET flow.
#[derive(Clone, Debug)]
pub struct UetTx {
    pub sack: Scoreboard,
    /// RCCC: credit in bytes (may go below zero by the last packet sent).
    pub credit: i64,
    /// RCCC: the cumulative grant received, in quanta.
    pub pull: u32,
    /// RCCC: still spending the unsolicited window (until the receiver first answers).
    pub speculating: bool,
    /// RCCC: one packet may go without credit (after a retransmission timeout, as a
    /// request to send: its pull target tells the receiver what is wanted).
    pub rts: bool,
    pub max_credit: i64,
    /// Counted for the summary: SACKs that acknowledged a packet, packets sent as a
    /// request to send, bytes sent on the unsolicited window.
    pub sacks: u64,
    pub requests: u64,
    pub unsolicited_bytes: u64,
    /// The highest packet SACKed, and the first unacknowledged packet last taken for
    /// lost by `loss_threshold` (`u32::MAX`: none), so that a hole is resent once.
    pub highest_sack: u32,
    pub lost_mark: u32,
    /// Packets resent by `loss_threshold`.
    pub sack_resends: u64,
}

impl UetTx {
    pub fn new(p: &UetParams, window: u32, max_credit: u64, unsolicited: u64) -> UetTx {
        UetTx {
            sack: Scoreboard::new(window),
            credit: if p.rccc { unsolicited as i64 } else { 0 },
            pull: 0,
            speculating: p.rccc,
            // Without an unsolicited window the first packet goes as a request to send.
            rts: p.rccc && unsolicited == 0,
            max_credit: max_credit as i64,
            sacks: 0,
            requests: 0,
            unsolicited_bytes: 0,
            highest_sack: 0,
            lost_mark: u32::MAX,
            sack_resends: 0,
        }
    }

    /// The receiver answered (ACK, NAK or credit): the unsolicited window ends, and what
    /// is left of it is given up (the receiver's grants take over).
    pub fn stop_speculating(&mut self) {
        if self.speculating {
            self.speculating = false;
            self.credit = self.credit.min(0);
        }
    }

    /// `loss_threshold`: whether the hole at `snd_una` is now taken for lost (a packet
    /// `threshold` or more above it SACKed, and not taken for lost before).
    pub fn hole_lost(&mut self, snd_una: u32, threshold: u32) -> bool {
        if self.highest_sack < snd_una.saturating_add(threshold) || self.lost_mark == snd_una || self.sack.has(snd_una) {
            return false;
        }
        self.lost_mark = snd_una;
        self.sack_resends += 1;
        true
    }

    /// A message was posted: without credit, its first packet goes as a request to send
    /// (the receiver learns of it only from a pull target).
    pub fn posted(&mut self) {
        if self.credit <= 0 {
            self.rts = true;
        }
    }

    /// A grant of cumulative `pull` quanta arrived; true if it added credit.
    pub fn granted(&mut self, pull: u32) -> bool {
        if pull <= self.pull {
            return false;
        }
        self.credit = (self.credit + ((pull - self.pull) as u64 * QUANTUM) as i64).min(self.max_credit);
        self.pull = pull;
        true
    }

    /// The pull target a data frame carries: the cumulative grant the sender wants,
    /// `pull` plus the bytes it still has to send (`backlog`, at most `cap`) beyond its
    /// credit, in quanta rounded up. While it still holds its unsolicited window it
    /// asks for at least one packet (`mtu`) while it has data.
    pub fn pull_target(&self, backlog: u64, cap: u64, mtu: u64) -> u32 {
        let mut want = backlog.min(cap) as i64 - self.credit;
        if self.speculating && want < mtu as i64 && backlog > 0 {
            want = mtu as i64;
        }
        let want = want.max(0) as u64;
        self.pull.saturating_add(want.div_ceil(QUANTUM).min(u32::MAX as u64) as u32)
    }
}

/// RCCC: the sender may send a packet now (it holds credit, or one request to send).
#[inline]
pub fn may_send(t: &UetTx) -> bool {
    t.credit > 0 || t.rts
}

/// The receiving side of a UET flow (RCCC): the highest pull target seen and the
/// cumulative grant sent.
#[derive(Clone, Debug)]
pub struct UetRx {
    pub flow: FlowId,
    pub target: u32,
    pub granted: u32,
    /// In its NIC's credit queue.
    pub queued: bool,
    /// Credit frames sent (for the summary).
    pub grants: u64,
}

/// A receiving NIC's credit pacer: the flows that want credit, served in turn, one grant
/// each, spaced so that the grants add up to `credit_rate` of the line rate.
#[derive(Clone, Debug)]
pub struct CreditPacer {
    /// Indices into the receivers' UET records (`FlowHeader::uet`).
    pub queue: VecDeque<u32>,
    /// A grant event is pending.
    pub armed: bool,
    /// The next grant may not go before this time.
    pub free_at: SimTime,
    /// Time per quantum granted.
    pub per_quantum: SimTime,
}

impl CreditPacer {
    pub fn new(line: Rate, credit_rate: f64) -> CreditPacer {
        // 8 x 256 bits at `credit_rate` of the line rate, in picoseconds.
        let ps = (8.0 * QUANTUM as f64 * 1e12 / (line.0 as f64 * credit_rate)).round() as u64;
        CreditPacer { queue: VecDeque::new(), armed: false, free_at: SimTime::ZERO, per_quantum: SimTime(ps.max(1)) }
    }
}

/// What a receiving NIC does at one grant: the flow served and the cumulative grant to
/// send it (`None`: nobody wants credit).
pub fn grant(p: &mut CreditPacer, rx: &mut [UetRx], per_grant: u32, now: SimTime) -> Option<(FlowId, u32)> {
    let k = p.queue.pop_front()?;
    let r = &mut rx[k as usize];
    let before = r.granted;
    r.granted = r.granted.saturating_add(per_grant).min(r.target).max(before);
    let extra = r.granted - before;
    r.grants += 1;
    if r.target > r.granted {
        p.queue.push_back(k);
    } else {
        r.queued = false;
    }
    // Some time between grants even when one gave little (htsim: 1 KiB's worth).
    p.free_at = now + SimTime(p.per_quantum.0 * extra.max(4) as u64);
    Some((r.flow, r.granted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoreboard_marks_once_and_clears() {
        let mut s = Scoreboard::new(128);
        assert!(s.mark(5));
        assert!(!s.mark(5));
        assert!(s.has(5) && s.count == 1);
        assert!(s.clear(5) && !s.clear(5));
        assert_eq!(s.count, 0);
        assert!(s.mark(5 + 128) && s.has(5)); // a ring over the window
    }

    #[test]
    fn speculation_ends_with_the_first_answer_and_grants_add_credit() {
        let p = UetParams { rccc: true, ..UetParams::default() };
        let mut t = UetTx::new(&p, 64, 10_000, 8_000);
        assert_eq!(t.credit, 8_000);
        t.credit -= 9_000;
        t.stop_speculating();
        assert_eq!(t.credit, -1_000, "a debt stays");
        let mut t = UetTx::new(&p, 64, 10_000, 8_000);
        t.stop_speculating();
        assert_eq!(t.credit, 0, "what is left of the unsolicited window is given up");
        assert!(t.granted(10));
        assert_eq!(t.credit, 2_560);
        assert!(!t.granted(10), "a stale grant adds nothing");
        assert!(t.granted(1000));
        assert_eq!(t.credit, 10_000, "capped at max_credit");
    }

    #[test]
    fn a_hole_is_taken_for_lost_once_past_the_threshold() {
        let mut t = UetTx::new(&UetParams::default(), 64, 0, 0);
        t.highest_sack = 12;
        assert!(!t.hole_lost(10, 3), "12 is only 2 above the hole");
        t.highest_sack = 13;
        assert!(t.hole_lost(10, 3));
        assert!(!t.hole_lost(10, 3), "once per hole");
        t.sack.mark(20);
        t.highest_sack = 30;
        assert!(!t.hole_lost(20, 3), "a SACKed packet is no hole");
        assert!(t.hole_lost(21, 3));
        assert_eq!(t.sack_resends, 2);
    }

    #[test]
    fn pull_target_asks_for_the_backlog_beyond_credit() {
        let p = UetParams { rccc: true, ..UetParams::default() };
        let mut t = UetTx::new(&p, 64, 10_000, 8_000);
        t.stop_speculating();
        t.pull = 100;
        t.credit = 1_000;
        assert_eq!(t.pull_target(5_000, 10_000, 4_000), 100 + 16); // 4000 B = 15.6 quanta
        assert_eq!(t.pull_target(50_000, 10_000, 4_000), 100 + 36); // capped at 10 kB
        assert_eq!(t.pull_target(500, 10_000, 4_000), 100);
    }

    #[test]
    fn grants_go_round_robin_up_to_each_target() {
        let mut p = CreditPacer::new(Rate::gbps(100), 1.0);
        assert_eq!(p.per_quantum, SimTime(20_480));
        let mut rx = vec![
            UetRx { flow: FlowId(0), target: 10, granted: 0, queued: true, grants: 0 },
            UetRx { flow: FlowId(1), target: 3, granted: 0, queued: true, grants: 0 },
        ];
        p.queue.extend([0, 1]);
        assert_eq!(grant(&mut p, &mut rx, 4, SimTime::ZERO), Some((FlowId(0), 4)));
        assert_eq!(grant(&mut p, &mut rx, 4, SimTime::ZERO), Some((FlowId(1), 3)));
        assert!(!rx[1].queued);
        assert_eq!(p.free_at, SimTime(20_480 * 4), "at least four quanta apart");
        assert_eq!(grant(&mut p, &mut rx, 4, SimTime::ZERO), Some((FlowId(0), 8)));
        assert_eq!(grant(&mut p, &mut rx, 4, SimTime::ZERO), Some((FlowId(0), 10)));
        assert_eq!(grant(&mut p, &mut rx, 4, SimTime::ZERO), None);
    }
}
