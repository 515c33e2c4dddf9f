//! The queue pairs' rate changes (time ps, flow, rate bit/s): the longest log of a long
//! run, a row per rate update of every queue pair (10^7 rows at the default
//! `stats.max_rows`). Each row is packed into as few 32-bit words as the run's latest
//! time, highest flow id and fastest link need: 12 bytes for 100 ms of 374,302 flows at
//! 100 Gb/s, where three columns took 20. Past `SPILL_WORDS` the rows go to a temporary
//! file as they come (`net/spill.rs`), and come back when they are sorted, once the
//! world is freed: 10^7 rows are 114.5 MiB the run would otherwise hold to its end.

use super::capped_log::Rows;
use super::column_sort::{sort_rows, Columns};
use super::spill::Spill;
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

/// Words held in memory before they are written to the log's file (8 MiB).
const SPILL_WORDS: usize = 1 << 21;

/// The rows, `Layout::words` 32-bit words each, the row's low bits first: those in
/// `spilled` (the first), then those in `words`.
#[derive(Debug)]
pub struct RateRows {
    words: Vec<u32>,
    layout: Layout,
    spilled: Option<Spill>,
    /// `words` goes to the file when it holds this many (`usize::MAX`: never, for a log
    /// whose file could not be made or written, or that is being sorted).
    spill_at: usize,
    /// The latest time pushed.
    latest: u64,
}

impl RateRows {
    /// A log for rows up to time `last_time`, flow ids below `flows` and rates up to
    /// `fastest`.
    pub fn new(last_time: SimTime, flows: usize, fastest: Rate) -> Self {
        #[cfg(not(test))]
        let spill_at = SPILL_WORDS;
        #[cfg(test)]
        let spill_at = tests::SPILL_AT.load(std::sync::atomic::Ordering::Relaxed);
        RateRows { words: Vec::new(), layout: Layout::new(last_time.0, flows, fastest), spilled: None, spill_at, latest: 0 }
    }

    /// The latest time of a row pushed (0 for none).
    pub fn latest(&self) -> u64 {
        self.latest
    }

    /// Writes the rows held in memory to the file (made on first use). Where it cannot
    /// be made or written, the log keeps its rows in memory from then on: the results
    /// are the same, only the memory differs.
    fn spill(&mut self) {
        if self.words.is_empty() {
            return;
        }
        if self.spilled.is_none() {
            self.spilled = Spill::new();
        }
        match self.spilled.as_mut().map(|f| f.write(&self.words)) {
            Some(Ok(())) => self.words.clear(),
            // `load` leaves the log in memory for good.
            Some(Err(_)) => self.load(),
            None => self.spill_at = usize::MAX,
        }
    }

    /// A log that writes its rows out past `words` words (tests: files of a few rows).
    #[cfg(test)]
    fn spilling_at(mut self, words: usize) -> Self {
        self.spill_at = words;
        self
    }

    /// Every row back in memory, in order, the file dropped; later rows stay there.
    ///
    /// # Panics
    /// If the file written cannot be read back (an error of the system, not of the run).
    fn load(&mut self) {
        self.spill_at = usize::MAX;
        let Some(mut file) = self.spilled.take() else { return };
        let mut all = Vec::with_capacity(file.len() + self.words.len());
        if let Err(e) = file.read_into(&mut all) {
            panic!("the rates log could not read back its temporary file: {e}");
        }
        all.extend_from_slice(&self.words);
        self.words = all;
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

    /// The log with every row in memory and no room to spare (one sorted and cut by
    /// `CappedLog::finish`, to be read a slice at a time: `columns_of`).
    pub(crate) fn held(mut self) -> Self {
        self.load();
        self.words.shrink_to_fit();
        self
    }

    /// Rows `rows` as the table's three columns (time ps, flow, rate bit/s), the rows
    /// kept. Only for a log held in memory (`held`).
    pub fn columns_of(&self, rows: std::ops::Range<usize>) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        assert!(self.spilled.is_none(), "a rates log read by slices is held in memory");
        let n = rows.len();
        let (mut time, mut flow, mut rate) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
        self.unpack_into(rows.start, &mut time, &mut flow, &mut rate);
        (time, flow, rate)
    }

    /// Rows from `first` on, unpacked into the columns' slices (as many rows as they hold).
    fn unpack_into(&self, first: usize, time: &mut [u64], flow: &mut [u64], rate: &mut [u64]) {
        for (k, ((t, f), r)) in time.iter_mut().zip(flow.iter_mut()).zip(rate.iter_mut()).enumerate() {
            let (tv, fv, rv) = self.unpack(self.packed(first + k));
            (*t, *f, *r) = (tv, fv as u64, rv);
        }
    }

    /// The rows as the table's three columns (time ps, flow, rate bit/s). Taken from the
    /// last row back, the packed rows freed as they are read, a chunk at a time: the
    /// columns and the rows are never held whole at once, and once the columns are, at
    /// most a chunk of rows is (768 KiB at 12 bytes a row).
    pub fn into_columns(mut self) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        self.load();
        let n = Rows::len(&self);
        let (mut time, mut flow, mut rate) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
        const CHUNK: usize = 1 << 16;
        let mut end = n;
        while end > 0 {
            let start = end.saturating_sub(CHUNK);
            self.unpack_into(start, &mut time[start..end], &mut flow[start..end], &mut rate[start..end]);
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
        (self.spilled.as_ref().map_or(0, Spill::len) + self.words.len()) / self.layout.words
    }
    #[inline]
    fn push(&mut self, (t, f, r): Self::Row) {
        let l = &self.layout;
        debug_assert!(
            self.layout.time_limit().is_none_or(|m| t.0 < m) && (f as u64) >> l.flow == 0 && r.0.checked_shr(l.rate).unwrap_or(0) == 0,
            "a rate row outside its log's layout: {t:?} {f} {r:?} {l:?}"
        );
        let v = (t.0 as u128) << (l.rate + l.flow) | (f as u128) << l.rate | r.0 as u128;
        self.latest = self.latest.max(t.0);
        self.words.extend((0..l.words).map(|k| (v >> (32 * k)) as u32));
        if self.words.len() >= self.spill_at {
            self.spill();
        }
    }
    #[inline]
    fn key_of(row: &Self::Row) -> Self::Key {
        (row.0 .0, row.1)
    }
    /// (Read only once the log has been sorted, which brings its rows back.)
    fn key(&self, i: usize) -> Self::Key {
        debug_assert!(self.spilled.is_none(), "a row read from a log whose rows are in its file");
        let (t, f, _) = self.unpack(self.packed(i));
        (t, f)
    }
    /// Sorted when the log outgrows its limit and at the end, after a parallel run's
    /// merge: in place (`column_sort`), by the packed (time, flow).
    fn sort(&mut self) {
        self.load();
        let rate_bits = self.layout.rate;
        sort_rows(self, |r, i| r.packed(i) >> rate_bits);
    }
    fn truncate(&mut self, n: usize) {
        self.load();
        self.words.truncate(n * self.layout.words);
    }
    /// Moves the other rows here in their order, a chunk at a time from the front, the
    /// other's room given back after each: a long run's rows are not held twice (100 ms
    /// of k = 16: the merge peaked there, 58 MiB above the rows it started with).
    /// With files: this log's rows in memory go to its file, and the other's file's
    /// rows are copied after them.
    fn append(&mut self, mut other: Self) {
        debug_assert_eq!(self.layout, other.layout, "partitions of one run pack their rows alike");
        const CHUNK: usize = 1 << 20;
        self.latest = self.latest.max(other.latest);
        if let Some(t) = other.spilled.take() {
            if self.spill_at != usize::MAX {
                self.spill();
            }
            let mut theirs = Some(t);
            if self.words.is_empty() {
                match self.spilled.as_mut() {
                    None => self.spilled = theirs.take(),
                    Some(mine) => {
                        if theirs.as_mut().is_some_and(|t| mine.append_from(t).is_ok()) {
                            theirs = None;
                        }
                    }
                }
            }
            if let Some(t) = theirs {
                // A file that could not be made or written: every row in memory.
                self.load();
                other.spilled = Some(t);
                other.load();
            }
        }
        while !other.words.is_empty() {
            let n = CHUNK.min(other.words.len());
            self.words.extend(other.words.drain(..n));
            other.words.shrink_to_fit();
            if self.words.len() >= self.spill_at {
                self.spill();
            }
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
pub(crate) mod tests {
    use super::*;
    use crate::net::capped_log::CappedLog;

    /// Where the logs made by tests write their rows out: a test may lower it to have a
    /// whole run's log go through files (results are the same whatever it is, so the
    /// tests running beside it are unaffected).
    pub(crate) static SPILL_AT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(SPILL_WORDS);

    type Row = (SimTime, u32, Rate);

    /// Rows of even flows to `a`, of odd ones to `b`: two partitions' logs.
    fn push_split(rows: &[Row], a: &mut CappedLog<RateRows>, b: &mut CappedLog<RateRows>) {
        for &r in rows {
            if r.1 % 2 == 0 {
                a.push(r)
            } else {
                b.push(r)
            }
        }
    }

    /// A finished log's rows, as its table has them.
    fn table(log: &mut CappedLog<RateRows>) -> Vec<Row> {
        let (t, f, r) = log.take_rows().into_columns();
        (0..t.len()).map(|i| (SimTime(t[i]), f[i] as u32, Rate(r[i]))).collect()
    }

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
        // Rows in memory, and in files of a few rows, or of some, made as they come.
        for spill_at in [usize::MAX, 5, 600] {
            let log = |max| CappedLog::of(RateRows::new(SimTime(1100), 20, Rate(3000)).spilling_at(spill_at), max);
            for max in [0u64, 1, 10, 500, 2999, 5000] {
                let mut want = rows.clone();
                want.sort_by_key(|r| (r.0, r.1));
                want.truncate(max as usize);
                let (mut a, mut b) = (log(max), log(max));
                push_split(&rows, &mut a, &mut b);
                let pushed = a.len() + b.len();
                assert!(spill_at == usize::MAX || max < 1000 || a.rows().spilled.is_some(), "rows written out");
                a.absorb(&mut b);
                assert_eq!(a.len(), pushed, "spill_at {spill_at} max {max}: every row counted, in its file or not");
                let counted = (a.kept(), a.not_kept());
                a.finish();
                assert_eq!(counted, (a.len(), a.dropped()));
                assert_eq!(table(&mut a), want, "spill_at {spill_at} max {max}");
                assert_eq!(a.dropped(), rows.len() as u64 - want.len() as u64);
            }
        }
    }

    /// A log whose file can no longer be written (a full disk) brings back what it wrote,
    /// keeps its rows in memory and gives the same rows, also when another partition's
    /// file is appended to it.
    #[test]
    fn a_log_whose_file_fails_keeps_its_rows() {
        let rows: Vec<(SimTime, u32, Rate)> = (0..400u64).map(|i| (SimTime((i * 7919) % 300), (i % 20) as u32, Rate(i))).collect();
        let mut want = rows.clone();
        want.sort_by_key(|r| (r.0, r.1));
        // Where each log's disk fills up (in words): a few writes of 6 words go through
        // first; the last case fills the first log's disk when the other's file is
        // appended to it.
        for (full_a, full_b) in [(20, usize::MAX), (usize::MAX, 20), (700, usize::MAX)] {
            let new = |full: usize| {
                let mut r = RateRows::new(SimTime(1100), 20, Rate(3000)).spilling_at(6);
                r.spilled = Some(Spill::full_at(full));
                CappedLog::of(r, 1000)
            };
            let (mut a, mut b) = (new(full_a), new(full_b));
            push_split(&rows, &mut a, &mut b);
            for (log, full) in [(&a, full_a), (&b, full_b)] {
                let in_memory = log.rows().spilled.is_none() && log.rows().spill_at == usize::MAX;
                assert_eq!(in_memory, full < 600, "back in memory for good once its disk is full");
            }
            a.absorb(&mut b);
            assert_eq!(a.len(), rows.len());
            a.finish();
            assert_eq!(table(&mut a), want, "disks full at {full_a} and {full_b} words");
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
        let new = || RateRows::new(SimTime::ms(10), 1000, Rate::gbps(100)).spilling_at(usize::MAX);
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
