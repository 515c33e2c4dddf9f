//! Always-on counters and bounded logs: per (port, priority) traffic, drops by reason,
//! PFC frames and paused time; a latency histogram; the PFC event log, queue samples
//! and per-flow goodput bins (each capped at a configured number of rows, `capped_log`).

use super::capped_log::LogRow;
use super::column_sort::{sort_rows, Columns};
use crate::units::{Rate, SimTime};

/// Counters of one (port, priority). Control frames count under the priority they
/// concern (PFC) or in the port's `Port::ctrl_bytes` (ACK/NAK).
/// The fields touched per packet (the first five: traffic, the queue's peak, and what the
/// congestion point and ECN marking read or count as a frame leaves) share one cache line.
#[derive(Copy, Clone, Default, Debug)]
#[repr(C, align(64))]
pub struct PrioCounters {
    pub tx_bytes: u64,
    pub tx_pkts: u64,
    /// Largest egress queue seen (bytes); the ingress charges' peaks are the MMU's.
    pub max_egress: u64,
    /// Time this port's transmitter was paused for the priority.
    pub paused_ps: u64,
    /// Data packets this egress queue marked CE.
    pub ecn_marked: u64,
    pub drops: [u64; 4],
    pub pfc_xoff_tx: u64,
    pub pfc_xon_tx: u64,
    pub pfc_xoff_rx: u64,
    pub pfc_xon_rx: u64,
    pub pfc_expired: u64,
    /// PFC watchdog: storms detected and ended on this egress queue, frames it dropped.
    pub pfc_storms: u64,
    pub pfc_storms_restored: u64,
    pub pfc_storm_drops: u64,
}

/// Log-linear histogram: 128 sub-buckets per power of two, so a reported percentile is
/// within 1/128 (0.8 %) of the exact order statistic. Fixed memory, exact count, min,
/// max and mean.
pub struct Histogram {
    buckets: Vec<u64>,
    pub count: u64,
    pub sum: u128,
    pub min: u64,
    pub max: u64,
}

const SUB_BITS: u32 = 7;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { buckets: vec![0; 64 << SUB_BITS], count: 0, sum: 0, min: u64::MAX, max: 0 }
    }
}

impl Histogram {
    #[inline]
    fn bucket(v: u64) -> usize {
        if v < (1 << SUB_BITS) {
            return v as usize;
        }
        let e = 63 - v.leading_zeros() - SUB_BITS; // >= 0
        (((e + 1) << SUB_BITS) | ((v >> e) as u32 & ((1 << SUB_BITS) - 1))) as usize
    }

    /// Smallest value that falls in bucket b.
    fn bucket_low(b: usize) -> u64 {
        let e = (b >> SUB_BITS) as u32;
        let m = (b & ((1 << SUB_BITS) - 1)) as u64;
        if e == 0 {
            m
        } else {
            ((1 << SUB_BITS) | m) << (e - 1)
        }
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.buckets[Self::bucket(v)] += 1;
        self.count += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Value at quantile p (0 <= p < 1), by the rule a[floor(n p)] of metrics.md 12.3,
    /// reported as the low edge of its bucket (clamped to [min, max]).
    pub fn quantile(&self, p: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((self.count as f64 * p).floor() as u64).min(self.count - 1);
        let mut seen = 0;
        for (b, &c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen > rank {
                return Some(Self::bucket_low(b).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// Adds another histogram's values (a parallel run's partitions).
    pub fn absorb(&mut self, o: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            *a += b;
        }
        self.count += o.count;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }
}

/// One row of the PFC event log: a port's transmitter paused or resumed for a priority.
#[derive(Copy, Clone, Debug)]
pub struct PfcEvent {
    pub time: SimTime,
    pub port: u32,
    pub prio: u8,
    /// 1 = XOFF received (pause starts or is refreshed), 0 = XON received, 2 = expired.
    pub kind: u8,
}

/// Column buffers of the queue samples.
#[derive(Default)]
pub struct Samples {
    pub time: Vec<u64>,
    pub port: Vec<u32>,
    pub prio: Vec<u8>,
    pub egress_bytes: Vec<u64>,
    pub ingress_bytes: Vec<u64>,
    pub paused: Vec<u8>,
}

impl Columns for Samples {
    type Row = (u64, u32, u8, u64, u64, u8);
    fn len(&self) -> usize {
        self.time.len()
    }
    fn row(&self, i: usize) -> Self::Row {
        (self.time[i], self.port[i], self.prio[i], self.egress_bytes[i], self.ingress_bytes[i], self.paused[i])
    }
    fn set(&mut self, i: usize, row: Self::Row) {
        (self.time[i], self.port[i], self.prio[i], self.egress_bytes[i], self.ingress_bytes[i], self.paused[i]) = row;
    }
}

impl Samples {
    /// Orders the samples by (time, port, priority) and keeps the first `max`; returns
    /// how many it dropped.
    pub fn sort_and_cut(&mut self, max: usize) -> u64 {
        sort_rows(self, |s, i| (s.time[i], s.port[i], s.prio[i]));
        let n = self.time.len();
        if n <= max {
            return 0;
        }
        self.time.truncate(max);
        self.port.truncate(max);
        self.prio.truncate(max);
        self.egress_bytes.truncate(max);
        self.ingress_bytes.truncate(max);
        self.paused.truncate(max);
        (n - max) as u64
    }

    /// Moves another buffer's rows to the end of this one (a parallel run's merge).
    pub fn append(&mut self, o: &mut Samples) {
        self.time.append(&mut o.time);
        self.port.append(&mut o.port);
        self.prio.append(&mut o.prio);
        self.egress_bytes.append(&mut o.egress_bytes);
        self.ingress_bytes.append(&mut o.ingress_bytes);
        self.paused.append(&mut o.paused);
    }
}

/// One per-flow goodput bin: payload bytes a flow delivered in the bin starting at
/// `bin_start` (ps).
#[derive(Copy, Clone, Debug)]
pub struct GoodputRow {
    pub bin_start: u64,
    pub flow: u32,
    pub bytes: u64,
}

impl LogRow for GoodputRow {
    type Key = (u64, u32);
    fn key(&self) -> (u64, u32) {
        (self.bin_start, self.flow)
    }
}

impl LogRow for PfcEvent {
    type Key = (SimTime, u32, u8, u8);
    fn key(&self) -> Self::Key {
        (self.time, self.port, self.prio, self.kind)
    }
}

/// A traced flow's (time, flow, window bytes or u64::MAX for none, rate).
impl LogRow for (SimTime, u32, u64, Rate) {
    type Key = (SimTime, u32);
    fn key(&self) -> Self::Key {
        (self.0, self.1)
    }
}

/// The `q`-quantile of sorted `v` by nearest rank: the smallest value with at least
/// `q * n` values at or below it (`q = 0`: the minimum); `None` if `v` is empty.
pub(crate) fn nearest_rank(v: &[u64], q: f64) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    let rank = (q * v.len() as f64).ceil() as usize;
    Some(v[rank.clamp(1, v.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(nearest_rank(&[], 0.5), None);
        let v: Vec<u64> = (1..=1000).collect();
        assert_eq!(nearest_rank(&v, 0.0), Some(1));
        assert_eq!(nearest_rank(&v, 0.5), Some(500));
        assert_eq!(nearest_rank(&v, 0.99), Some(990));
        assert_eq!(nearest_rank(&v, 0.999), Some(999));
        assert_eq!(nearest_rank(&v, 1.0), Some(1000));
        // Ten values: p99 and p99.9 are the largest; the median is the 5th.
        let v: Vec<u64> = (1..=10).map(|x| x * 10).collect();
        assert_eq!(nearest_rank(&v, 0.5), Some(50));
        assert_eq!(nearest_rank(&v, 0.99), Some(100));
        assert_eq!(nearest_rank(&v, 0.999), Some(100));
        assert_eq!(nearest_rank(&[7], 0.999), Some(7));
    }

    /// The samples keep the first `max` rows by (time, port, priority), ties in the order
    /// they came.
    #[test]
    fn samples_keep_the_first_rows_by_time_port_and_priority() {
        let mut seed = 3u64;
        let mut s = Samples::default();
        for i in 0..3000u64 {
            let x = crate::rng::splitmix64(&mut seed);
            s.time.push((x >> 33) % 100);
            s.port.push(((x >> 20) % 5) as u32);
            s.prio.push(((x >> 12) % 2) as u8);
            s.egress_bytes.push(i);
            s.ingress_bytes.push(2 * i);
            s.paused.push((i % 2) as u8);
        }
        let mut want: Vec<_> = (0..s.len()).map(|i| s.row(i)).collect();
        want.sort_by_key(|r| (r.0, r.1, r.2));
        want.truncate(1000);
        assert_eq!(s.sort_and_cut(1000), 2000);
        assert_eq!((0..s.len()).map(|i| s.row(i)).collect::<Vec<_>>(), want);
        assert_eq!(s.sort_and_cut(1000), 0);
    }

    #[test]
    fn histogram_quantiles_are_close() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for (p, exact) in [(0.5, 50_001_000u64), (0.99, 99_001_000), (0.999, 99_901_000)] {
            let q = h.quantile(p).unwrap();
            let err = (q as f64 - exact as f64).abs() / exact as f64;
            assert!(err < 1.0 / 128.0, "p{p}: {q} vs {exact}");
        }
        assert_eq!(h.min, 1000);
        assert_eq!(h.max, 100_000_000);
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::default();
        for v in [5, 7, 9] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.0), Some(5));
        assert_eq!(h.quantile(0.5), Some(7));
    }
}
