//! QCN congestion point (IEEE 802.1Qau; ../shared/models/qcn.md 5.2).
//!
//! Sampling happens at enqueue (LINUX-QCN), on the queue after the frame was added:
//!
//! ```text
//! Fb   = (Q_EQ - qlen) - w (qlen - qlen_old),  clamped to [-Q_EQ (2w+1), 0]
//! qntz = min(floor(-Fb * 64 / (Q_EQ (2w+1))), 63)
//! time_to_mark -= frame
//! if time_to_mark < 0:  CNM(qntz) if qntz > 0;  qlen_old = qlen;
//!                       time_to_mark = MARK_TABLE[qntz >> 3] * U(1 - jitter, 1 + jitter)
//! ```
//!
//! The first sample comes after one base interval (150 KB, no jitter): `time_to_mark` is
//! set to it on the first arrival.

use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct QcnCpParams {
    /// Equilibrium queue Q_EQ (bytes).
    pub q_eq: u64,
    /// Weight w of the queue derivative.
    pub w: f64,
    /// Uniform jitter of the sampling interval, +-jitter (0.15 = "30 % randomness").
    pub jitter: f64,
}

impl Default for QcnCpParams {
    /// Seed 003 (1 Gb/s NetFPGA): Q_EQ = 33 KB, W = 2, 30 % randomness on the sampling interval.
    fn default() -> Self {
        QcnCpParams { q_eq: 33_000, w: 2.0, jitter: 0.15 }
    }
}

/// Bytes between samples by `qntz >> 3` (qcn.md 5.2, PCN-QCN): about 1 % ... 8 % of
/// 1500-byte frames.
pub const MARK_TABLE: [u64; 8] = [150_000, 75_000, 50_000, 37_500, 30_000, 25_000, 21_500, 18_500];

/// The sampling interval (bytes, before jitter) after a sample with feedback `qntz`.
#[inline]
pub fn mark_interval(qntz: u8) -> u64 {
    MARK_TABLE[(qntz.min(63) >> 3) as usize]
}

/// The 6-bit quantized |Fb| (0..=63) for a queue of `qlen` bytes that was `qlen_old` at
/// the previous sample. 0 when Fb >= 0 (and when |Fb| is below one quantum).
pub fn quantize(p: &QcnCpParams, qlen: u64, qlen_old: u64) -> u8 {
    let q_eq = p.q_eq as f64;
    let (q, q_old) = (qlen as f64, qlen_old as f64);
    let fb_max = q_eq * (2.0 * p.w + 1.0);
    let fb = ((q_eq - q) - p.w * (q - q_old)).clamp(-fb_max, 0.0);
    if fb_max <= 0.0 {
        return 0;
    }
    ((-fb * 64.0 / fb_max).floor() as u64).min(63) as u8
}

#[derive(Clone, Debug, Default)]
pub struct QcnCp {
    /// Queue (bytes) at the previous sample.
    pub(crate) qlen_old: u64,
    /// Bytes until the next sample (the sample is taken when this goes below 0).
    pub(crate) time_to_mark: i64,
    /// `time_to_mark` has been set (on the first arrival).
    pub(crate) started: bool,
}

impl QcnCp {
    /// A frame of `frame` bytes arrived; `qlen` is the queue after adding it. Returns the
    /// quantized feedback (1..=63) of a CNM to send to the frame's source, if any.
    pub fn on_arrival(&mut self, p: &QcnCpParams, frame: u32, qlen: u64, rng: &mut Rng) -> Option<u8> {
        if !self.started {
            self.started = true;
            self.time_to_mark = MARK_TABLE[0] as i64;
        }
        self.time_to_mark -= frame as i64;
        if self.time_to_mark >= 0 {
            return None;
        }
        let qntz = quantize(p, qlen, self.qlen_old);
        self.qlen_old = qlen;
        let factor = if p.jitter > 0.0 { 1.0 + p.jitter * (2.0 * rng.next_f64() - 1.0) } else { 1.0 };
        self.time_to_mark = (mark_interval(qntz) as f64 * factor).round() as i64;
        (qntz > 0).then_some(qntz)
    }

    /// Queue at the previous sample (bytes).
    pub fn qlen_old(&self) -> u64 {
        self.qlen_old
    }
    /// Bytes until the next sample.
    pub fn time_to_mark(&self) -> i64 {
        self.time_to_mark
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p0() -> QcnCpParams {
        QcnCpParams { jitter: 0.0, ..QcnCpParams::default() }
    }

    #[test]
    fn defaults_are_seed_003() {
        assert_eq!(QcnCpParams::default(), QcnCpParams { q_eq: 33_000, w: 2.0, jitter: 0.15 });
    }

    #[test]
    fn fb_and_quantization() {
        // Q_EQ = 33000, w = 2: Fb_max = Q_EQ (2w + 1) = 165000; qntz = floor(-Fb 64 / 165000).
        let p = p0();
        let cases = [
            // At Q_EQ, not moving: Fb = 0 -> 0.
            (33_000, 33_000, 0),
            // Fb = -7000 - 2*7000 = -21000; 21000*64/165000 = 8.145 -> 8.
            (40_000, 33_000, 8),
            // Fb = -17000 - 2*10000 = -37000; 2368000/165000 = 14.35 -> 14.
            (50_000, 40_000, 14),
            // Fb = -27000 - 2*1000 = -29000; 1856000/165000 = 11.25 -> 11.
            (60_000, 59_000, 11),
            // Below Q_EQ but rising: Fb = 3000 - 2*5000 = -7000; 448000/165000 = 2.72 -> 2.
            (30_000, 25_000, 2),
            // Fb = -1000: 64000/165000 = 0.39 -> 0 (below one quantum: no CNM).
            (34_000, 34_000, 0),
            // Fb = -67000 - 2*50000 = -167000, clamped to -165000 -> 64, capped at 63.
            (100_000, 50_000, 63),
            // Fb = -(1e6 - 33000) - 0 -> clamped -> 63.
            (1_000_000, 1_000_000, 63),
            // Fb = 13000 + 2*10000 = 33000 > 0, clamped to 0 -> 0.
            (20_000, 30_000, 0),
            // Empty queue that was at Q_EQ: Fb = 33000 + 66000 > 0 -> 0.
            (0, 33_000, 0),
        ];
        for &(q, old, want) in &cases {
            assert_eq!(quantize(&p, q, old), want, "qlen {q}, qlen_old {old}");
        }
    }

    #[test]
    fn sampling_table() {
        // qntz >> 3 picks the interval: 0-7 150000, 8-15 75000, 16-23 50000, 24-31 37500,
        // 32-39 30000, 40-47 25000, 48-55 21500, 56-63 18500.
        let cases = [
            (0, 150_000),
            (7, 150_000),
            (8, 75_000),
            (15, 75_000),
            (16, 50_000),
            (23, 50_000),
            (24, 37_500),
            (32, 30_000),
            (39, 30_000),
            (40, 25_000),
            (48, 21_500),
            (55, 21_500),
            (56, 18_500),
            (63, 18_500),
        ];
        for &(q, bytes) in &cases {
            assert_eq!(mark_interval(q), bytes, "qntz {q}");
        }
    }

    #[test]
    fn on_arrival_sequence_without_jitter() {
        let p = p0();
        let mut rng = Rng::stream(3, "qcn-cp");
        let mut cp = QcnCp::default();
        // First interval 150000 B: 100 frames of 1500 B bring time_to_mark to exactly 0,
        // which is not < 0: no sample yet, even with a long queue.
        for _ in 0..100 {
            assert_eq!(cp.on_arrival(&p, 1500, 33_000, &mut rng), None);
        }
        assert_eq!(cp.time_to_mark(), 0);
        assert_eq!(cp.qlen_old(), 0);
        // 101st frame: -1500 < 0 -> sample at qlen 40000, qlen_old 0:
        // Fb = -7000 - 2*40000 = -87000; 87000*64/165000 = 33.75 -> 33 -> CNM(33).
        // qlen_old = 40000; next interval MARK_TABLE[33 >> 3 = 4] = 30000.
        assert_eq!(cp.on_arrival(&p, 1500, 40_000, &mut rng), Some(33));
        assert_eq!((cp.qlen_old(), cp.time_to_mark()), (40_000, 30_000));
        // 20 x 1500 = 30000: time_to_mark 0, no sample.
        for _ in 0..20 {
            assert_eq!(cp.on_arrival(&p, 1500, 40_000, &mut rng), None);
        }
        // Next: sample at 41000: Fb = -8000 - 2*1000 = -10000; 640000/165000 = 3.88 -> 3.
        // Interval MARK_TABLE[0] = 150000.
        assert_eq!(cp.on_arrival(&p, 1500, 41_000, &mut rng), Some(3));
        assert_eq!((cp.qlen_old(), cp.time_to_mark()), (41_000, 150_000));
        // 100 frames, then a sample at 30000: Fb = 3000 - 2*(30000 - 41000) = 25000 > 0:
        // no CNM, but qlen_old and the interval are updated (150000).
        for _ in 0..100 {
            assert_eq!(cp.on_arrival(&p, 1500, 30_000, &mut rng), None);
        }
        assert_eq!(cp.on_arrival(&p, 1500, 30_000, &mut rng), None);
        assert_eq!((cp.qlen_old(), cp.time_to_mark()), (30_000, 150_000));
        // One big frame: 150000 - 200000 < 0 -> sample at 200000 vs 30000:
        // Fb = -167000 - 2*170000 -> clamped -> 63; interval MARK_TABLE[7] = 18500.
        assert_eq!(cp.on_arrival(&p, 200_000, 200_000, &mut rng), Some(63));
        assert_eq!((cp.qlen_old(), cp.time_to_mark()), (200_000, 18_500));
    }

    #[test]
    fn sampling_jitter_range() {
        // jitter 0.15: the interval after a sample is uniform in [0.85 T, 1.15 T].
        let p = QcnCpParams::default();
        let mut rng = Rng::stream(3, "qcn-cp-jitter");
        let mut cp = QcnCp::default();
        // qntz 0 (empty queue): T = 150000 -> [127500, 172500].
        let (mut lo, mut hi, mut sum) = (i64::MAX, i64::MIN, 0i64);
        let n = 2000;
        for _ in 0..n {
            // A frame larger than any interval forces a sample on every arrival.
            assert_eq!(cp.on_arrival(&p, 200_000, 0, &mut rng), None);
            let t = cp.time_to_mark();
            assert!((127_500..=172_500).contains(&t), "{t}");
            lo = lo.min(t);
            hi = hi.max(t);
            sum += t;
        }
        assert!(lo < 129_000 && hi > 171_000, "range [{lo}, {hi}] should nearly fill [127500, 172500]");
        let mean = sum as f64 / n as f64;
        assert!((mean - 150_000.0).abs() < 2_000.0, "mean {mean}");
        // qntz 63 (qlen far above Q_EQ): T = 18500 -> [15725, 21275].
        for _ in 0..500 {
            assert!(cp.on_arrival(&p, 200_000, 1_000_000, &mut rng).is_some());
            let t = cp.time_to_mark();
            assert!((15_725..=21_275).contains(&t), "{t}");
        }
        // Same seed, same intervals.
        let (mut a, mut b) = (QcnCp::default(), QcnCp::default());
        let (mut ra, mut rb) = (Rng::stream(7, "x"), Rng::stream(7, "x"));
        for _ in 0..10 {
            a.on_arrival(&p, 200_000, 50_000, &mut ra);
            b.on_arrival(&p, 200_000, 50_000, &mut rb);
            assert_eq!(a.time_to_mark(), b.time_to_mark());
        }
    }
}
