//! BCN congestion point (../shared/models/bcn-fecn.md 6.2).
//!
//! The queue is sampled once per `sample_bytes` of arriving frames (once per
//! `oversample_bytes` while the queue is above `Qsc`): the byte-count form of the
//! spec's per-frame sampling probability (2 % of 1500-B frames = one per 75,000 B, 10 %
//! = one per 15,000 B). At a sample
//!
//! ```text
//! Qoff   = Qeq - q                  clamped to [-Qeq, +Qeq]
//! Qdelta = q - q_at_last_sample     (= arrivals - departures) clamped to [-2Qeq, +2Qeq]
//! Fb     = Qoff - W * Qdelta        = -((q - Qeq) + W * Qdelta)
//! ```
//!
//! with `q`, `Qeq` and hence `Fb` in 64-byte units (`ceil(bytes / 64)`), so that
//! `|Fb| <= Fb_max = Qeq (1 + 2W)` (1875 with the seed-002 values). The message:
//! BCN00 when enabled and `q > Qsc`; else the maximum negative feedback `-Fb_max`
//! (BCNMAX, when enabled) once `q >= 2 Qeq`; else `Fb` if negative; else `Fb` if positive
//! and this point controls the frame's rate regulator; else nothing.

use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct BcnCpParams {
    /// Equilibrium queue Qeq (bytes).
    pub q_eq: u64,
    /// Severe-congestion threshold Qsc (bytes): over-sampling, and BCN00 if enabled.
    pub q_sc: u64,
    /// Weight W of the queue change.
    pub w: f64,
    /// Bytes of arriving frames between samples (queue at or below Qsc).
    pub sample_bytes: u64,
    /// Bytes of arriving frames between samples while the queue is above Qsc.
    pub oversample_bytes: u64,
    /// BCNMAX: report -Fb_max once the queue reaches 2 Qeq.
    pub bcn_max: bool,
    /// BCN00: send "stop" instead of feedback while the queue is above Qsc.
    pub bcn00: bool,
    /// The unit of queue quantities and Fb (bytes).
    pub unit: u64,
}

impl Default for BcnCpParams {
    /// Seed 002: Qeq = 16 x 1500 B, Qsc = 80 x 1500 B, W = 2, sampling 2 % (75,000 B),
    /// over-sampling 10 % (15,000 B) above Qsc, BCNMAX on, BCN00 off, 64-B units.
    fn default() -> Self {
        BcnCpParams {
            q_eq: 24_000,
            q_sc: 120_000,
            w: 2.0,
            sample_bytes: 75_000,
            oversample_bytes: 15_000,
            bcn_max: true,
            bcn00: false,
            unit: 64,
        }
    }
}

impl BcnCpParams {
    /// `bytes` in feedback units, rounded up.
    #[inline]
    pub fn units(&self, bytes: u64) -> i64 {
        bytes.div_ceil(self.unit.max(1)) as i64
    }

    /// The largest feedback magnitude, Qeq (1 + 2W), in units.
    pub fn fb_max(&self) -> i32 {
        (self.units(self.q_eq) as f64 * (1.0 + 2.0 * self.w)).round() as i32
    }

    /// The BCNMAX threshold Q_bcnmax = 2 Qeq (bytes).
    pub fn q_bcnmax(&self) -> u64 {
        2 * self.q_eq
    }
}

/// What a BCN congestion point tells a source.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BcnSignal {
    /// Feedback in 64-byte units (negative: slow down).
    Fb(i32),
    /// BCN00: stop (go to the minimum rate).
    Stop,
}

#[derive(Clone, Debug, Default)]
pub struct BcnCp {
    /// Queue (bytes) at the previous sample.
    pub(crate) qlen_old: u64,
    /// Bytes of frames arrived since the previous sample.
    pub(crate) since_sample: u64,
}

impl BcnCp {
    /// The feedback of a sample with the queue at `qlen` bytes (previous sample at
    /// `qlen_old`), in units, before the choice of message.
    pub fn feedback(p: &BcnCpParams, qlen: u64, qlen_old: u64) -> i32 {
        let qeq = p.units(p.q_eq);
        let q = p.units(qlen);
        let qoff = (qeq - q).clamp(-qeq, qeq);
        let qdelta = (q - p.units(qlen_old)).clamp(-2 * qeq, 2 * qeq);
        (qoff as f64 - p.w * qdelta as f64).round() as i32
    }

    /// A frame of `frame` bytes arrived; `qlen` is the queue after adding it; `controls`
    /// says whether this congestion point is the one that last slowed the frame's rate
    /// regulator (positive feedback goes only to those). Returns the message to send to
    /// the frame's source.
    pub fn on_arrival(&mut self, p: &BcnCpParams, frame: u32, qlen: u64, controls: bool, _rng: &mut Rng) -> Option<BcnSignal> {
        self.since_sample += frame as u64;
        let severe = qlen > p.q_sc;
        let every = if severe { p.oversample_bytes } else { p.sample_bytes };
        if self.since_sample < every {
            return None;
        }
        self.since_sample = 0;
        let fb = Self::feedback(p, qlen, self.qlen_old);
        self.qlen_old = qlen;
        if p.bcn00 && severe {
            Some(BcnSignal::Stop)
        } else if p.bcn_max && qlen >= p.q_bcnmax() {
            Some(BcnSignal::Fb(-p.fb_max()))
        } else if fb < 0 || (fb > 0 && controls) {
            Some(BcnSignal::Fb(fb))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> Rng {
        Rng::stream(1, "bcn")
    }

    /// Feeds `n` frames of 1500 B with the queue at `qlen`; returns the messages.
    fn feed(cp: &mut BcnCp, p: &BcnCpParams, n: usize, qlen: u64, controls: bool) -> Vec<(usize, BcnSignal)> {
        let mut r = rng();
        (0..n).filter_map(|i| cp.on_arrival(p, 1500, qlen, controls, &mut r).map(|s| (i, s))).collect()
    }

    #[test]
    fn defaults_are_seed_002() {
        let p = BcnCpParams::default();
        assert_eq!(p.units(p.q_eq), 375); // 24,000 / 64 = 375 exactly
        assert_eq!(p.units(p.q_sc), 1875); // 120,000 / 64 = 1875
        assert_eq!(p.fb_max(), 1875); // 375 (1 + 2*2)
        assert_eq!(p.q_bcnmax(), 48_000);
        assert_eq!(p.units(1500), 24); // ceil(23.4375)
        assert_eq!(p.units(1), 1);
    }

    #[test]
    fn feedback_in_64_byte_units() {
        let p = BcnCpParams::default();
        // q = 36,000 B = 562.5 -> 563 units; Qoff = 375 - 563 = -188; Qdelta = 563 - 375 = 188
        // (previous sample at 24,000 B = 375 units); Fb = -188 - 2*188 = -564.
        assert_eq!(BcnCp::feedback(&p, 36_000, 24_000), -564);
        // Steady at 1.5 Qeq = 36,000 B: Qdelta = 0, Fb = Qoff = -188 (spec: about -187.5).
        assert_eq!(BcnCp::feedback(&p, 36_000, 36_000), -188);
        // Steady at Qeq/2 = 12,000 B = 187.5 -> 188 units: Fb = 375 - 188 = +187.
        assert_eq!(BcnCp::feedback(&p, 12_000, 12_000), 187);
        // Empty and draining from 2 Qeq: Qoff = +375, Qdelta = 0 - 750 = -750; Fb = 375 + 1500 = 1875.
        assert_eq!(BcnCp::feedback(&p, 0, 48_000), 1875);
        // Clamps: q = 10 Qeq -> Qoff = -3375 clamped to -375; Qdelta = 3750 clamped to 750;
        // Fb = -375 - 1500 = -1875 = -Fb_max.
        assert_eq!(BcnCp::feedback(&p, 240_000, 0), -1875);
        // At the set point, no change: Fb = 0.
        assert_eq!(BcnCp::feedback(&p, 24_000, 24_000), 0);
    }

    #[test]
    fn sampling_every_75000_bytes() {
        let p = BcnCpParams::default();
        let mut cp = BcnCp::default();
        // Queue steady at 36,000 B (between Qeq and 2 Qeq, below Qsc): one sample per
        // 75,000 B = 50 frames of 1500 B, i.e. frames 49, 99, 149 (0-based).
        let m = feed(&mut cp, &p, 150, 36_000, false);
        let idx: Vec<usize> = m.iter().map(|x| x.0).collect();
        assert_eq!(idx, vec![49, 99, 149]);
        // First sample: previous queue 0 -> Qdelta = 563 (within the clamp of 750);
        // Fb = -188 - 2*563 = -1314. Later samples: Qdelta = 0, Fb = Qoff = -188.
        assert_eq!(m[0].1, BcnSignal::Fb(-1314));
        assert_eq!(m[1].1, BcnSignal::Fb(-188));
        assert_eq!(m[2].1, BcnSignal::Fb(-188));
    }

    #[test]
    fn oversampling_above_qsc() {
        let p = BcnCpParams { bcn_max: false, ..BcnCpParams::default() };
        let mut cp = BcnCp::default();
        // Above Qsc (121,500 B > 120,000 B): one sample per 15,000 B = 10 frames.
        let m = feed(&mut cp, &p, 30, 121_500, false);
        let idx: Vec<usize> = m.iter().map(|x| x.0).collect();
        assert_eq!(idx, vec![9, 19, 29]);
        // At exactly Qsc (not above) the normal interval applies: first sample at frame 49.
        let mut cp = BcnCp::default();
        let m = feed(&mut cp, &p, 50, 120_000, false);
        assert_eq!(m.iter().map(|x| x.0).collect::<Vec<_>>(), vec![49]);
        // Switching into over-sampling mid-count: 5 frames low, then above Qsc the count
        // already stands at 7,500 B, so the sample comes after 5 more frames (15,000 B).
        let mut cp = BcnCp::default();
        assert!(feed(&mut cp, &p, 5, 30_000, false).is_empty());
        let m = feed(&mut cp, &p, 10, 121_500, false);
        assert_eq!(m.iter().map(|x| x.0).collect::<Vec<_>>(), vec![4]);
    }

    #[test]
    fn bcnmax_at_two_qeq() {
        let p = BcnCpParams::default();
        // Just below 2 Qeq (47,999 B), steady: Fb = 375 - 750 = -375 (ceil(47,999/64) = 750).
        let mut cp = BcnCp { qlen_old: 47_999, since_sample: 74_999 };
        assert_eq!(cp.on_arrival(&p, 1, 47_999, false, &mut rng()), Some(BcnSignal::Fb(-375)));
        // At 2 Qeq = 48,000 B: BCNMAX, -Fb_max = -1875, whatever Qdelta.
        let mut cp = BcnCp { qlen_old: 48_000, since_sample: 74_999 };
        assert_eq!(cp.on_arrival(&p, 1, 48_000, false, &mut rng()), Some(BcnSignal::Fb(-1875)));
        // With BCNMAX off the formula applies: Qoff = -375, Qdelta = 0 -> -375.
        let p_off = BcnCpParams { bcn_max: false, ..p };
        let mut cp = BcnCp { qlen_old: 48_000, since_sample: 74_999 };
        assert_eq!(cp.on_arrival(&p_off, 1, 48_000, false, &mut rng()), Some(BcnSignal::Fb(-375)));
    }

    #[test]
    fn positive_feedback_only_when_controlling() {
        let p = BcnCpParams::default();
        // Queue steady at 12,000 B: Fb = +187 (see feedback_in_64_byte_units).
        let mut cp = BcnCp { qlen_old: 12_000, since_sample: 73_500 };
        assert_eq!(cp.on_arrival(&p, 1500, 12_000, false, &mut rng()), None);
        // The sample was taken (counter reset): the next one is 75,000 B later.
        assert_eq!(cp.since_sample, 0);
        let mut cp = BcnCp { qlen_old: 12_000, since_sample: 73_500 };
        assert_eq!(cp.on_arrival(&p, 1500, 12_000, true, &mut rng()), Some(BcnSignal::Fb(187)));
        // Fb = 0 (steady at Qeq): no message even to a controlled regulator.
        let mut cp = BcnCp { qlen_old: 24_000, since_sample: 73_500 };
        assert_eq!(cp.on_arrival(&p, 1500, 24_000, true, &mut rng()), None);
        // Negative feedback goes to everyone: steady at 30,000 B = 469 units, Fb = -94.
        let mut cp = BcnCp { qlen_old: 30_000, since_sample: 73_500 };
        assert_eq!(cp.on_arrival(&p, 1500, 30_000, false, &mut rng()), Some(BcnSignal::Fb(-94)));
    }

    #[test]
    fn bcn00_above_qsc() {
        let p = BcnCpParams { bcn00: true, ..BcnCpParams::default() };
        // Above Qsc: every over-sampled message is BCN00.
        let mut cp = BcnCp::default();
        let m = feed(&mut cp, &p, 20, 121_500, false);
        assert_eq!(m, vec![(9, BcnSignal::Stop), (19, BcnSignal::Stop)]);
        // At Qsc (not above): BCNMAX (120,000 >= 48,000), at the normal interval.
        let mut cp = BcnCp { qlen_old: 120_000, since_sample: 73_500 };
        assert_eq!(cp.on_arrival(&p, 1500, 120_000, false, &mut rng()), Some(BcnSignal::Fb(-1875)));
        // BCN00 off (the seed-002 BCN default): above Qsc it is BCNMAX.
        let p = BcnCpParams::default();
        let mut cp = BcnCp::default();
        let m = feed(&mut cp, &p, 10, 121_500, false);
        assert_eq!(m, vec![(9, BcnSignal::Fb(-1875))]);
    }
}
