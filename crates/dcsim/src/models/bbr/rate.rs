//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation), the input of
//! BBR's bottleneck-bandwidth filter, and the windowed max filter over round trips.
//!
//! At each send the sampler keeps a snapshot of what had been delivered by then (and
//! when); an ACK finds the snapshot of the segment that triggered it by that segment's
//! send time (the ACK echoes it: `now - rtt`), and the rate sample is the data delivered
//! since the snapshot over the longer of the send and the ACK intervals. Snapshots are
//! kept in send order and dropped once a later-sent segment is acknowledged, so the
//! queue holds about one window.
//!
//! Delivered data counts each duplicate ACK (a segment that reached the receiver above
//! a hole, SACKed) as one segment, and takes those segments off the cumulative ACK that
//! later covers them, so the count grows as data arrives, not when a hole is repaired.

use std::collections::VecDeque;

use crate::units::SimTime;

#[derive(Copy, Clone, Debug, PartialEq)]
struct Snapshot {
    sent: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    app_limited: bool,
}

/// One rate sample, from the ACK of a segment sent with `prior_delivered` delivered.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateSample {
    /// Payload bytes delivered by the time the acknowledged segment was sent.
    pub prior_delivered: u64,
    /// Delivered bytes over the sample's interval, per second (`None`: the interval was
    /// shorter than the minimum RTT, too short to trust; the draft discards it).
    pub bw: Option<f64>,
    pub interval: SimTime,
    /// The segment was sent while the application had nothing more to send.
    pub app_limited: bool,
}

#[derive(Clone, Debug)]
pub struct RateSampler {
    /// Payload bytes delivered so far, and when the count last grew.
    pub delivered: u64,
    pub delivered_time: SimTime,
    /// Send time of the first segment of the current sending interval.
    first_sent: SimTime,
    snaps: VecDeque<Snapshot>,
    /// Bytes counted from duplicate ACKs that the cumulative ACK has not covered yet.
    sack_credit: u64,
    mss: u64,
    /// App-limited until more than this many bytes are delivered (0: not app-limited).
    app_limited_until: u64,
}

impl RateSampler {
    pub fn new(mss: u64) -> Self {
        RateSampler {
            delivered: 0,
            delivered_time: SimTime::ZERO,
            first_sent: SimTime::ZERO,
            snaps: VecDeque::with_capacity(64),
            sack_credit: 0,
            mss,
            app_limited_until: 0,
        }
    }

    /// A segment leaves at `now`. With nothing in flight the intervals restart here.
    pub fn on_send(&mut self, now: SimTime) {
        if self.snaps.is_empty() {
            self.first_sent = now;
            self.delivered_time = now;
        }
        let app_limited = self.app_limited_until != 0;
        self.snaps.push_back(Snapshot {
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent,
            app_limited,
        });
    }

    /// The application has nothing more to send: the samples of what is sent until the
    /// data now in flight (a segment per snapshot not yet acknowledged) is delivered are
    /// app-limited (draft 3.3).
    pub fn on_app_limited(&mut self) {
        self.app_limited_until = (self.delivered + self.snaps.len() as u64 * self.mss).max(1);
    }

    /// An ACK at `now` acknowledging `newly_acked` bytes cumulatively (0: a duplicate
    /// ACK) for the segment sent at `sent`; `min_rtt` bounds the trusted interval.
    pub fn on_ack(&mut self, now: SimTime, newly_acked: u64, sent: SimTime, min_rtt: Option<SimTime>) -> Option<RateSample> {
        let inc = if newly_acked == 0 {
            self.sack_credit += self.mss;
            self.mss
        } else {
            // Of a cumulative ACK, one segment is new at the receiver; the rest may have
            // been counted already from duplicate ACKs.
            let covered = self.sack_credit.min(newly_acked.saturating_sub(self.mss));
            self.sack_credit -= covered;
            newly_acked - covered
        };
        self.delivered += inc;
        self.delivered_time = now;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        while self.snaps.front().is_some_and(|s| s.sent < sent) {
            self.snaps.pop_front();
        }
        let p = self.snaps.front().filter(|s| s.sent == sent).copied()?;
        self.snaps.pop_front();
        self.first_sent = p.sent;
        let send_elapsed = p.sent - p.first_sent;
        let ack_elapsed = now - p.delivered_time;
        let interval = send_elapsed.max(ack_elapsed);
        let trusted = interval > SimTime::ZERO && min_rtt.is_none_or(|m| interval >= m);
        let bw = trusted.then(|| (self.delivered - p.delivered) as f64 / interval.as_secs_f64());
        Some(RateSample { prior_delivered: p.delivered, bw, interval, app_limited: p.app_limited })
    }

    /// A retransmission timeout: the receiver's SACKed data is forgotten by the sender.
    pub fn on_timeout(&mut self) {
        self.sack_credit = 0;
    }
}

/// The largest value seen in the last `n` rounds (the current one included).
#[derive(Clone, Debug)]
pub struct MaxFilter {
    /// Per round modulo n: (round, largest value of that round).
    slots: Vec<(u64, f64)>,
}

impl MaxFilter {
    pub fn new(n: u32) -> Self {
        MaxFilter { slots: vec![(u64::MAX, 0.0); n.max(1) as usize] }
    }

    pub fn update(&mut self, round: u64, v: f64) {
        let n = self.slots.len() as u64;
        let s = &mut self.slots[(round % n) as usize];
        if s.0 != round {
            *s = (round, v);
        } else if v > s.1 {
            s.1 = v;
        }
    }

    pub fn get(&self, round: u64) -> f64 {
        let n = self.slots.len() as u64;
        self.slots.iter().filter(|s| s.0 != u64::MAX && s.0 <= round && s.0 + n > round).map(|s| s.1).fold(0.0, f64::max)
    }

    pub fn reset(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = (u64::MAX, 0.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_samples_by_hand() {
        let mut r = RateSampler::new(1000);
        // Four segments at t = 0, 1, 2, 3 us; ACKs at 10, 11, 12, 13 us.
        for t in 0..4 {
            r.on_send(SimTime::us(t));
        }
        // First ACK: delivered 1000 since the snapshot (0 at t = 0), interval
        // max(send 0, ack 10 us) = 10 us: 100 MB/s.
        let s = r.on_ack(SimTime::us(10), 1000, SimTime::us(0), None).unwrap();
        assert_eq!((s.prior_delivered, s.interval), (0, SimTime::us(10)));
        assert!((s.bw.unwrap() - 1e8).abs() < 1e-3);
        // Second: snapshot at 1 us (delivered 0, delivered_time 0, first_sent 0); the
        // first sample moved first_sent to 0 us. 2000 B over max(1, 11) = 11 us.
        let s = r.on_ack(SimTime::us(11), 1000, SimTime::us(1), Some(SimTime::us(10))).unwrap();
        assert!((s.bw.unwrap() - 2000.0 / 11e-6).abs() < 1e-3);
        // A duplicate ACK for segment 3 (segment 2 lost): one segment delivered,
        // 3000 B over max(3 - 0, 13 - 0) us.
        let s = r.on_ack(SimTime::us(13), 0, SimTime::us(3), Some(SimTime::us(10))).unwrap();
        assert_eq!(r.delivered, 3000);
        assert!((s.bw.unwrap() - 3000.0 / 13e-6).abs() < 1e-3);
        // The snapshot of the lost segment 2 was dropped when 3's ACK came.
        assert!(r.on_ack(SimTime::us(14), 0, SimTime::us(2), None).is_none());
        // Repair of the hole (sent at 20 us): the cumulative ACK covers 3000 B, of which
        // 2000 (two duplicate ACKs) were counted: one segment is new.
        r.on_send(SimTime::us(20));
        let s = r.on_ack(SimTime::us(30), 3000, SimTime::us(20), Some(SimTime::us(10))).unwrap();
        assert_eq!(r.delivered, 5000);
        // Snapshot at 20 us: nothing in flight before it, so first_sent = delivered_time
        // = 20 us, delivered 4000: 1000 B over 10 us.
        assert_eq!(s.prior_delivered, 4000);
        assert!((s.bw.unwrap() - 1e8).abs() < 1e-3);
        // An interval below the minimum RTT gives no bandwidth sample.
        r.on_send(SimTime::us(40));
        let s = r.on_ack(SimTime::us(45), 1000, SimTime::us(40), Some(SimTime::us(10))).unwrap();
        assert_eq!(s.bw, None);
    }

    #[test]
    fn max_filter_forgets_after_n_rounds() {
        let mut f = MaxFilter::new(3);
        f.update(0, 5.0);
        f.update(1, 3.0);
        f.update(1, 4.0);
        f.update(2, 1.0);
        assert_eq!(f.get(2), 5.0);
        assert_eq!(f.get(3), 4.0, "round 0 left the window");
        f.update(4, 2.0);
        assert_eq!(f.get(4), 2.0, "rounds 2 and 4 only");
        f.reset();
        assert_eq!(f.get(4), 0.0);
    }
}
