//! The queue pairs' rate changes (time ps, flow, rate bit/s): the longest log of a long
//! run, a row per rate update of every queue pair (10^7 rows at the default
//! `stats.max_rows`). Each row is packed into as few 32-bit words as the run's latest
//! time, highest flow id and fastest link need: 12 bytes for 100 ms of 374,302 flows at
//! 100 Gb/s, where three columns took 20.

use super::capped_log::Rows;
use super::column_sort::{sort_rows, Columns};
use crate::units::{Rate, SimTime};

/// Bits of each field of a row, time above flow above rate, so that rows compare as
/// packed integers in (time, flow) order once the rate's bits are shifted out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    rate: u32,
    flow: u32,
    time: u32,
    /// 32-bit words per row.
    words: usize,
}

impl Layout {
    /// A row of at most 128 bits: the time gets what the flow and rate leave, which is
    /// any time a scenario may give (`MAX_TIME`, 62 bits) at any rate a link may have
    /// (`MAX_RATE`, 43 bits) with up to 8 million flows.
    fn new(last_time: u64, flows: usize, fastest: Rate) -> Self {
        let bits = |x: u64| (64 - x.leading_zeros()).max(1);
        let (rate, flow) = (bits(fastest.0), bits(flows.saturating_sub(1) as u64));
        let time = bits(last_time).min(128 - rate - flow);
        Layout { rate, flow, time, words: (rate + flow + time).div_ceil(32) as usize }
    }

    /// Rows at or after this time cannot be held (`None`: any time can); the log
    /// refuses them like those past the row limit (`Rows::first_unheld`).
    fn time_limit(&self) -> Option<u64> {
        (self.time < 64).then(|| 1u64 << self.time)
    }
}

/// The rows, `Layout::words` 32-bit words each, the row's low bits first.
#[derive(Debug)]
pub struct RateRows {
    words: Vec<u32>,
    layout: Layout,
}

impl RateRows {
    /// A log for rows up to time `last_time`, flow ids below `flows` and rates up to
    /// `fastest`.
    pub fn new(last_time: SimTime, flows: usize, fastest: Rate) -> Self {
        RateRows { words: Vec::new(), layout: Layout::new(last_time.0, flows, fastest) }
    }

    #[inline]
    fn packed(&self, i: usize) -> u128 {
        let w = self.layout.words;
        self.words[i * w..(i + 1) * w].iter().rev().fold(0u128, |v, &x| v << 32 | x as u128)
    }

    #[inline]
    fn unpack(&self, v: u128) -> (u64, u32, u64) {
        let l = &self.layout;
        let field = |at: u32, bits: u32| ((v >> at) & ((1u128 << bits) - 1)) as u64;
        (field(l.rate + l.flow, l.time), field(l.rate, l.flow) as u32, field(0, l.rate))
    }

    /// The rows as the table's three columns (time ps, flow, rate bit/s). Taken from the
    /// last row back, the packed rows freed as they are read: the columns and the rows are
    /// never held whole at once.
    pub fn into_columns(mut self) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let n = Rows::len(&self);
        let (mut time, mut flow, mut rate) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
        const CHUNK: usize = 1 << 20;
        let mut end = n;
        while end > 0 {
            let start = end.saturating_sub(CHUNK);
            for i in start..end {
                let (t, f, r) = self.unpack(self.packed(i));
                (time[i], flow[i], rate[i]) = (t, f as u64, r);
            }
            self.words.truncate(start * self.layout.words);
            self.words.shrink_to_fit();
            end = start;
        }
        (time, flow, rate)
    }
}

/// An empty log, as a log's rows are left once taken.
impl Default for RateRows {
    fn default() -> Self {
        RateRows::new(SimTime(0), 0, Rate(0))
    }
}

impl Rows for RateRows {
    type Row = (SimTime, u32, Rate);
    type Key = (u64, u32);
    fn len(&self) -> usize {
        self.words.len() / self.layout.words
    }
    #[inline]
    fn push(&mut self, (t, f, r): Self::Row) {
        let l = &self.layout;
        debug_assert!(
            self.layout.time_limit().is_none_or(|m| t.0 < m) && (f as u64) >> l.flow == 0 && r.0.checked_shr(l.rate).unwrap_or(0) == 0,
            "a rate row outside its log's layout: {t:?} {f} {r:?} {l:?}"
        );
        let v = (t.0 as u128) << (l.rate + l.flow) | (f as u128) << l.rate | r.0 as u128;
        self.words.extend((0..l.words).map(|k| (v >> (32 * k)) as u32));
    }
    #[inline]
    fn key_of(row: &Self::Row) -> Self::Key {
        (row.0 .0, row.1)
    }
    fn key(&self, i: usize) -> Self::Key {
        let (t, f, _) = self.unpack(self.packed(i));
        (t, f)
    }
    /// Sorted when the log outgrows its limit and at the end, after a parallel run's
    /// merge: in place (`column_sort`), by the packed (time, flow).
    fn sort(&mut self) {
        let rate_bits = self.layout.rate;
        sort_rows(self, |r, i| r.packed(i) >> rate_bits);
    }
    fn truncate(&mut self, n: usize) {
        self.words.truncate(n * self.layout.words);
    }
    /// Moves the other rows here in their order, a chunk at a time from the front, the
    /// other's room given back after each: a long run's rows are not held twice (100 ms
    /// of k = 16: the merge peaked there, 58 MiB above the rows it started with).
    fn append(&mut self, mut other: Self) {
        debug_assert_eq!(self.layout, other.layout, "partitions of one run pack their rows alike");
        const CHUNK: usize = 1 << 20;
        while !other.words.is_empty() {
            let n = CHUNK.min(other.words.len());
            self.words.extend(other.words.drain(..n));
            other.words.shrink_to_fit();
        }
    }
    fn first_unheld(&self) -> Option<Self::Key> {
        self.layout.time_limit().map(|t| (t, 0))
    }
}

impl Columns for RateRows {
    type Row = u128;
    fn len(&self) -> usize {
        Rows::len(self)
    }
    fn row(&self, i: usize) -> u128 {
        self.packed(i)
    }
    fn set(&mut self, i: usize, v: u128) {
        let w = self.layout.words;
        for (k, x) in self.words[i * w..(i + 1) * w].iter_mut().enumerate() {
            *x = (v >> (32 * k)) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::capped_log::CappedLog;

    /// The log keeps what a log of rows keeps: the first `max` rows by (time, flow),
    /// ties in the order they came, also when two partitions' logs are merged.
    #[test]
    fn rate_rows_keep_the_first_rows_by_time_and_flow() {
        let mut x = 7u64;
        let mut next = || crate::rng::splitmix64(&mut x) >> 33;
        // Nearly in time order, with ties and late rows, rates telling rows apart.
        let rows: Vec<(SimTime, u32, Rate)> = (0..3000u64)
            .map(|i| (SimTime(i / 3 + if next() % 10 == 0 { 0 } else { next() % 40 }), (next() % 20) as u32, Rate(i)))
            .collect();
        let log = |max| CappedLog::of(RateRows::new(SimTime(1100), 20, Rate(3000)), max);
        for max in [0u64, 1, 10, 500, 2999, 5000] {
            let mut want = rows.clone();
            want.sort_by_key(|r| (r.0, r.1));
            want.truncate(max as usize);
            let (mut a, mut b) = (log(max), log(max));
            for &r in &rows {
                if r.1 % 2 == 0 {
                    a.push(r)
                } else {
                    b.push(r)
                }
            }
            a.absorb(&mut b);
            a.finish();
            let (t, f, r) = a.take_rows().into_columns();
            let got: Vec<_> = (0..t.len()).map(|i| (SimTime(t[i]), f[i] as u32, Rate(r[i]))).collect();
            assert_eq!(got, want, "max {max}");
            assert_eq!(a.dropped(), rows.len() as u64 - want.len() as u64);
        }
    }

    /// Each field keeps its largest value, in the fewest words: a 100 ms run of 374,302
    /// flows at 100 Gb/s in three, the widest fields in four.
    #[test]
    fn rows_pack_their_largest_values_in_the_fewest_words() {
        for (last, flows, fastest, words) in [
            (SimTime::ms(100), 374_302usize, Rate::gbps(100), 3),
            (SimTime(1), 1, Rate(1), 1),
            (SimTime(u64::MAX), 1 << 32, Rate(u64::MAX), 4),
            (SimTime(u64::MAX), 2, Rate::gbps(1600), 4),
        ] {
            let mut rows = RateRows::new(last, flows, fastest);
            assert_eq!(rows.layout.words, words, "{last:?} {flows} {fastest:?}");
            let t = rows.first_unheld().map_or(last.0, |(m, _)| last.0.min(m - 1));
            let top = ((flows - 1) as u32, fastest);
            rows.push((SimTime(t), top.0, top.1));
            rows.push((SimTime(0), 0, Rate(0)));
            let (time, flow, rate) = rows.into_columns();
            assert_eq!((time, flow, rate), (vec![t, 0], vec![top.0 as u64, 0], vec![fastest.0, 0]));
        }
        // The widest fields leave the time 32 bits: later rows are refused, and counted.
        let rows = RateRows::new(SimTime(u64::MAX), 1 << 32, Rate(u64::MAX));
        assert_eq!(rows.first_unheld(), Some((1 << 32, 0)));
        let mut log = CappedLog::of(rows, 10);
        log.push((SimTime((1 << 32) - 1), 1, Rate(5)));
        log.push((SimTime(1 << 32), 1, Rate(5)));
        log.finish();
        assert_eq!((log.len(), log.dropped()), (1, 1));
    }

    /// Decoding frees the packed rows chunk by chunk and keeps every row in place.
    #[test]
    fn columns_come_out_in_order_across_chunks() {
        let n = (1 << 20) + 5;
        let mut rows = RateRows::new(SimTime::ms(10), 1000, Rate::gbps(100));
        for i in 0..n as u64 {
            rows.push((SimTime(i * 7), (i % 1000) as u32, Rate(i * 3)));
        }
        let (t, f, r) = rows.into_columns();
        assert!((0..n).all(|i| t[i] == i as u64 * 7 && f[i] == i as u64 % 1000 && r[i] == i as u64 * 3));
    }

    /// Appending moves the other rows over several chunks and keeps them in their order
    /// after this log's.
    #[test]
    fn appended_rows_keep_their_order_across_chunks() {
        let new = || RateRows::new(SimTime::ms(10), 1000, Rate::gbps(100));
        let row = |i: u64| (SimTime(i * 7), (i % 1000) as u32, Rate(i * 3));
        let (n, m) = (5u64, (1 << 20) + 11);
        let (mut a, mut b) = (new(), new());
        (0..n).for_each(|i| a.push(row(i)));
        (n..n + m).for_each(|i| b.push(row(i)));
        assert!(b.words.len() > 2 * (1 << 20));
        a.append(b);
        let (t, f, r) = a.into_columns();
        assert_eq!(t.len() as u64, n + m);
        assert!((0..n + m).all(|i| (SimTime(t[i as usize]), f[i as usize] as u32, Rate(r[i as usize])) == row(i)));
    }
}
