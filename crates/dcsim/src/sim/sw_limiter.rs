//! perftest's software rate limiter (`ib_write_bw --rate_limit_type=SW`, `run_iter_bw`
//! in perftest_resources.c): the application, not the NIC, keeps the rate. Every `gap =
//! burst × message × 8 / rate` a new burst of `burst` messages may be posted; each is
//! posted as soon as fewer than `tx_depth` messages are outstanding (posted, completion
//! not yet seen). The deadlines are fixed (`due += gap`), so a late burst is followed at
//! once by the next one that is due. The NIC sends what is posted back to back at its
//! own rate: a burst leaves at line rate (or the congestion control's rate).
//!
//! The queue pair's `msg_limit` is the end of what is posted, so the NIC's send path
//! is the ordinary one; this file only moves that limit.

use super::{Sender, Simulation};
use crate::event::Event;
use crate::ids::FlowId;
use crate::plan::SwLimit;
use crate::units::SimTime;

/// `Sender::sw` of a flow without the software limiter.
pub(crate) const NO_SW: u32 = u32::MAX;

pub(crate) struct SwLimiter {
    /// Packets per message.
    pkts: u32,
    tx_depth: u32,
    burst: u32,
    cq_mod: u32,
    gap: SimTime,
    /// Messages to send (0: until the run ends).
    total: u32,
    /// When the next burst may start.
    due: SimTime,
    /// Messages of the current burst not posted yet.
    left: u32,
    posted: u32,
    /// Completions the application has seen (in steps of `cq_mod`).
    completed: u32,
}

impl SwLimiter {
    pub fn new(l: &SwLimit, pkts: u32, size: Option<u64>, start: SimTime) -> Self {
        // Whole picoseconds; the long-run rate is `rate` within 1 ps per gap.
        let gap = (l.burst as u128 * l.message as u128 * 8_000_000_000_000 / l.rate.0 as u128).min(u64::MAX as u128) as u64;
        let total = size.map_or(0, |s| (s / l.message).min(u32::MAX as u64) as u32);
        SwLimiter {
            pkts,
            tx_depth: l.tx_depth,
            burst: l.burst,
            cq_mod: l.cq_mod,
            gap: SimTime(gap.max(1)),
            total,
            due: start,
            left: 0,
            posted: 0,
            completed: 0,
        }
    }
}

/// Flow `f`'s queue pair and its limiter, unless the flow is done.
fn limiter<'a>(
    senders: &'a mut super::FlowSlots<Sender>,
    sw: &'a mut [SwLimiter],
    f: FlowId,
) -> Option<(&'a mut Sender, &'a mut SwLimiter)> {
    let s = &mut senders[f.idx()];
    if s.done {
        return None;
    }
    let l = &mut sw[s.sw as usize];
    Some((s, l))
}

impl Simulation {
    /// Posts what the limiter allows now (a burst that is due, within the outstanding
    /// limit) and arms the next deadline once the current burst is all posted.
    pub(crate) fn sw_post(&mut self, f: FlowId) {
        let now = self.now_t();
        let Some((s, l)) = limiter(&mut self.senders, &mut self.sw, f) else { return };
        let mut posted = 0u32;
        let mut wake = None;
        loop {
            if l.left == 0 {
                if l.total != 0 && l.posted == l.total {
                    break;
                }
                if l.due > now {
                    wake = Some(l.due);
                    break;
                }
                l.due = l.due + l.gap;
                l.left = l.burst;
            }
            let mut n = (l.tx_depth - (l.posted - l.completed)).min(l.left);
            if l.total != 0 {
                n = n.min(l.total - l.posted);
            }
            if n == 0 {
                break; // the outstanding limit: a completion posts the rest
            }
            l.posted += n;
            l.left -= n;
            posted += n;
        }
        let pkts = l.pkts;
        if let Some(t) = wake {
            self.fx.q.schedule(t, Event::SwBurst(f));
        }
        if posted > 0 {
            if s.next_seq >= s.msg_limit {
                // Nothing left to send: the NIC starts on these after the doorbell delay.
                s.next_tx = crate::models::nic_timing::first_send(now, s.next_tx, self.host.timing.doorbell);
            }
            s.msg_limit = s.msg_limit.saturating_add(posted.saturating_mul(pkts));
            self.activate(f);
        }
    }

    /// After an ACK: the messages it completes, as the application sees them (every
    /// `cq_mod`-th is signalled, and the last one); posts more if a burst is waiting.
    pub(crate) fn sw_acked(&mut self, f: FlowId) {
        let now = self.now_t();
        let Some((s, l)) = limiter(&mut self.senders, &mut self.sw, f) else { return };
        let acked = s.snd_una / l.pkts;
        let seen = if l.total != 0 && acked == l.total { acked } else { acked - acked % l.cq_mod };
        if seen <= l.completed {
            return;
        }
        let new = seen - l.completed;
        l.completed = seen;
        s.msgs_done += new;
        self.tx_stats[f.idx()].msgs_done += new;
        if l.total != 0 && seen == l.total {
            return self.sender_done(f, now);
        }
        if l.left > 0 {
            self.sw_post(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    #[test]
    fn gap_is_one_burst_at_the_rate() {
        let l = SwLimit { rate: Rate::gbps(4), message: 65_536, tx_depth: 128, burst: 128, cq_mod: 1 };
        let s = SwLimiter::new(&l, 64, None, SimTime::ZERO);
        // 128 x 65536 B x 8 / 4 Gb/s = 16.777216 ms.
        assert_eq!(s.gap, SimTime(16_777_216_000));
        assert_eq!(s.total, 0);
        let s = SwLimiter::new(&l, 64, Some(10 * 65_536), SimTime::ZERO);
        assert_eq!(s.total, 10);
    }
}
