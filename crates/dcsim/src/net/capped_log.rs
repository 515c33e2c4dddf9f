//! A result log with a row limit (`stats.max_rows`, `stats.max_pfc_events`): it keeps the
//! first `max` rows in the log's own order, whatever order the rows come in.
//!
//! Keeping the first `max` rows *pushed* would make the kept rows depend on the order in
//! which events are served: the rows of one picosecond, and logs whose rows come out of
//! order (a goodput bin is written when the flow's next packet arrives, a congestion
//! interval when it ends), would differ between one world and the partitions of a
//! parallel run. By the log's order instead, each partition keeps the first `max` of its
//! own rows, which include every one of the first `max` overall, and the merge keeps the
//! same rows as one world.

/// A row of a capped log: `key` is its place in the log (ties keep the order in which
/// the rows came; only rows of one flow, port or queue tie, and those come in the same
/// order in every engine).
pub trait LogRow: Copy {
    type Key: Ord;
    fn key(&self) -> Self::Key;
}

/// How a capped log holds its rows: a `Vec` of them, or packed (`RateRows`) for a log long
/// enough that its bytes per row matter.
pub trait Rows: Default {
    type Row;
    type Key: Ord;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn push(&mut self, row: Self::Row);
    fn key_of(row: &Self::Row) -> Self::Key;
    /// The key of row `i`.
    fn key(&self, i: usize) -> Self::Key;
    /// Orders the rows by key, ties in the order they came (a stable sort).
    fn sort(&mut self);
    fn truncate(&mut self, n: usize);
    /// Moves `other`'s rows to the end; `other` is consumed, its buffers freed as soon
    /// as their rows are copied.
    fn append(&mut self, other: Self);
    /// The first key whose rows these cannot hold (`None`: any key), refused from the
    /// start like those past the row limit.
    fn first_unheld(&self) -> Option<Self::Key> {
        None
    }
}

impl<T: LogRow> Rows for Vec<T> {
    type Row = T;
    type Key = T::Key;
    fn len(&self) -> usize {
        self.len()
    }
    #[inline]
    fn push(&mut self, row: T) {
        self.push(row)
    }
    #[inline]
    fn key_of(row: &T) -> T::Key {
        row.key()
    }
    fn key(&self, i: usize) -> T::Key {
        self[i].key()
    }
    fn sort(&mut self) {
        self.sort_by_key(|r| r.key()); // stable
    }
    fn truncate(&mut self, n: usize) {
        self.truncate(n)
    }
    fn append(&mut self, mut other: Self) {
        Vec::append(self, &mut other)
    }
}

pub struct CappedLog<S: Rows> {
    rows: S,
    max: usize,
    /// Rows at or after this key are refused: the first `max` rows are known to come
    /// before it (`refuse_from`).
    closed_from: Option<S::Key>,
    /// Rows seen but not kept.
    dropped: u64,
    /// Once the log has outgrown `max`: `rows[..max]` are sorted and are the first `max`
    /// rows so far, so a row at or after `rows[max - 1]` cannot be among the first.
    trimmed: bool,
}

impl<S: Rows> CappedLog<S> {
    pub fn new(max: u64) -> Self {
        CappedLog::of(S::default(), max)
    }

    /// A log that starts with `rows` (empty rows of a given shape).
    pub fn of(rows: S, max: u64) -> Self {
        let closed_from = rows.first_unheld();
        CappedLog { rows, max: max.min(usize::MAX as u64) as usize, closed_from, dropped: 0, trimmed: false }
    }

    /// Records a row. Rows come nearly in the log's order (most logs by time), so a row past
    /// the limit is nearly always refused on one comparison; one that sorts earlier is kept,
    /// and the log is trimmed again when it has grown by a quarter of its limit.
    #[inline]
    pub fn push(&mut self, row: S::Row) {
        if self.max == 0
            || (self.trimmed && S::key_of(&row) >= self.rows.key(self.max - 1))
            || self.closed_from.as_ref().is_some_and(|k| &S::key_of(&row) >= k)
        {
            self.dropped += 1;
            return;
        }
        self.rows.push(row);
        let room = if self.trimmed { self.max + self.max / 4 } else { self.max };
        if self.rows.len() > room {
            self.trim();
        }
    }

    fn trim(&mut self) {
        self.rows.sort();
        if self.rows.len() > self.max {
            self.dropped += (self.rows.len() - self.max) as u64;
            self.rows.truncate(self.max);
            self.trimmed = true;
        }
    }

    /// Refuses rows at or after `key` from now on: the caller knows that at least `max`
    /// rows before it exist, here or in the other partitions' logs (a parallel run, whose
    /// merge then keeps the same rows as one world while each partition holds fewer).
    pub fn refuse_from(&mut self, key: S::Key) {
        if self.closed_from.as_ref().is_none_or(|k| &key < k) {
            self.closed_from = Some(key);
        }
    }

    /// The row limit.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Moves another log's rows and counts here (a parallel run's merge); `finish` orders
    /// and cuts the union.
    pub fn absorb(&mut self, o: &mut CappedLog<S>) {
        // Taken, so that the other log's buffers are freed now, not with its partition:
        // a long run's rates would otherwise be held twice for the rest of the merge.
        self.rows.append(std::mem::take(&mut o.rows));
        self.dropped += o.dropped;
        self.trimmed = false;
    }

    /// Orders the rows and keeps the first `max`: the log as the result tables show it.
    pub fn finish(&mut self) {
        self.trim();
        self.trimmed = false;
    }

    /// The rows `finish` will keep, counted without it: a log whose rows are in a file
    /// (`RateRows`) is finished once the world is freed, its count needed before.
    pub fn kept(&self) -> usize {
        self.rows.len().min(self.max)
    }

    /// The rows `dropped` will count once `finish` has cut the log.
    pub fn not_kept(&self) -> u64 {
        self.dropped + self.rows.len().saturating_sub(self.max) as u64
    }

    pub fn rows(&self) -> &S {
        &self.rows
    }
    /// The rows, leaving the log empty (for a table that takes them as they are).
    pub fn take_rows(&mut self) -> S {
        std::mem::take(&mut self.rows)
    }
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// Rows seen but not kept (after `finish`: all of them past the limit).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (key, arrival number): the arrival number only tells equal keys apart.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct R(u32, u32);
    impl LogRow for R {
        type Key = u32;
        fn key(&self) -> u32 {
            self.0
        }
    }

    fn kept(max: u64, rows: &[R]) -> (Vec<R>, u64) {
        let mut log: CappedLog<Vec<R>> = CappedLog::new(max);
        for &r in rows {
            log.push(r);
        }
        log.finish();
        (log.rows().to_vec(), log.dropped())
    }

    /// The first `max` rows in key order, ties in arrival order: what every engine keeps.
    fn expected(max: usize, rows: &[R]) -> (Vec<R>, u64) {
        let mut v = rows.to_vec();
        v.sort_by_key(|r| r.0);
        let dropped = v.len().saturating_sub(max) as u64;
        v.truncate(max);
        (v, dropped)
    }

    #[test]
    fn keeps_the_first_rows_in_key_order_whatever_order_they_come_in() {
        // A deterministic shuffle with many ties (keys 0..50 over 1000 rows).
        let mut x = 12345u64;
        let rows: Vec<R> = (0..1000).map(|i| R((crate::rng::splitmix64(&mut x) >> 33) as u32 % 50, i)).collect();
        for max in [0, 1, 7, 100, 999, 1000, 5000] {
            assert_eq!(kept(max as u64, &rows), expected(max, &rows), "max {max}");
        }
        // Nearly sorted input (a log by time with late rows) too.
        let mut sorted = rows.clone();
        sorted.sort_by_key(|r| r.0);
        sorted.swap(10, 900);
        assert_eq!(kept(100, &sorted), expected(100, &sorted));
    }

    #[test]
    fn a_split_log_merged_keeps_what_one_log_keeps() {
        // Rows of one key come from one part, in the same order, as in a partitioned run.
        let rows: Vec<R> = (0..600).map(|i| R((i * 7919) % 97, i)).collect();
        let (a, b): (Vec<R>, Vec<R>) = rows.iter().partition(|r| r.0 % 3 == 0);
        for max in [1, 50, 300, 1000] {
            let (mut la, mut lb): (CappedLog<Vec<R>>, CappedLog<Vec<R>>) = (CappedLog::new(max), CappedLog::new(max));
            a.iter().for_each(|&r| la.push(r));
            b.iter().for_each(|&r| lb.push(r));
            la.absorb(&mut lb);
            let counts = (la.kept(), la.not_kept());
            la.finish();
            assert_eq!(counts, (la.len(), la.dropped()), "max {max}: counted before the cut");
            assert_eq!((la.rows().to_vec(), la.dropped()), kept(max, &rows), "max {max}");
        }
    }

    /// Two parts logging in key order (rows of one key from one part), in rounds of 10
    /// keys: once they hold `max` rows between them at a round's start, both refuse rows
    /// from there on, hold fewer, and the merge keeps what one log keeps.
    #[test]
    fn parts_that_refuse_rows_past_the_first_max_merge_the_same() {
        let rows: Vec<R> = (0..600).map(|i| R(i / 3, i)).collect();
        for max in [1, 50, 101, 300, 1000] {
            let (mut la, mut lb): (CappedLog<Vec<R>>, CappedLog<Vec<R>>) = (CappedLog::new(max), CappedLog::new(max));
            for round in 0..20 {
                if (la.len() + lb.len()) as u64 >= max {
                    la.refuse_from(round * 10);
                    lb.refuse_from(round * 10);
                }
                for r in rows.iter().filter(|r| r.0 / 10 == round) {
                    if r.0 % 2 == 0 {
                        la.push(*r)
                    } else {
                        lb.push(*r)
                    }
                }
            }
            // At most a round's rows (30) past the limit between them, not a limit each.
            assert!(la.len() + lb.len() <= max as usize + 30, "max {max}: held {} + {}", la.len(), lb.len());
            la.absorb(&mut lb);
            la.finish();
            assert_eq!((la.rows().to_vec(), la.dropped()), kept(max, &rows), "max {max}");
        }
    }
}
