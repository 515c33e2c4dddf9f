//! Sorting a log held as columns in place: the permutation is taken in 4-byte positions
//! and applied by its cycles, so that sorting n rows needs 4 B and a bit per row, not a
//! copy of the columns (the rates log of a long run holds 10^7 rows).

/// A log held as columns: row `i` read and written whole.
pub(crate) trait Columns {
    type Row: Copy;
    fn len(&self) -> usize;
    fn row(&self, i: usize) -> Self::Row;
    fn set(&mut self, i: usize, row: Self::Row);
}

/// Orders the rows by `key`, ties in the order they came (a stable sort).
pub(crate) fn sort_rows<C: Columns, K: Ord>(c: &mut C, key: impl Fn(&C, usize) -> K) {
    let n = c.len();
    if (1..n).all(|i| key(c, i - 1) <= key(c, i)) {
        return; // the common case: rows come in time order
    }
    match u32::try_from(n) {
        Ok(_) => sort_by::<u32, C, K>(c, n, key),
        Err(_) => sort_by::<usize, C, K>(c, n, key),
    }
}

/// A row position in the permutation: `u32` for any log that fits.
trait Pos: Copy + Ord {
    fn from_usize(i: usize) -> Self;
    fn ix(self) -> usize;
}
impl Pos for u32 {
    fn from_usize(i: usize) -> u32 {
        i as u32
    }
    fn ix(self) -> usize {
        self as usize
    }
}
impl Pos for usize {
    fn from_usize(i: usize) -> usize {
        i
    }
    fn ix(self) -> usize {
        self
    }
}

/// The position breaks ties, so an unstable sort, which needs no buffer, is stable.
fn sort_by<P: Pos, C: Columns, K: Ord>(c: &mut C, n: usize, key: impl Fn(&C, usize) -> K) {
    let mut ix: Vec<P> = (0..n).map(P::from_usize).collect();
    ix.sort_unstable_by_key(|&i| (key(c, i.ix()), i));
    // Row j takes row ix[j]: each cycle of the permutation is walked once, its first row
    // held aside.
    let mut done = vec![0u64; n.div_ceil(64)];
    for start in 0..n {
        if done[start / 64] >> (start % 64) & 1 == 1 {
            continue;
        }
        let held = c.row(start);
        let mut j = start;
        loop {
            done[j / 64] |= 1 << (j % 64);
            let k = ix[j].ix();
            if k == start {
                c.set(j, held);
                break;
            }
            c.set(j, c.row(k));
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two(Vec<u64>, Vec<u32>);
    impl Columns for Two {
        type Row = (u64, u32);
        fn len(&self) -> usize {
            self.0.len()
        }
        fn row(&self, i: usize) -> (u64, u32) {
            (self.0[i], self.1[i])
        }
        fn set(&mut self, i: usize, (a, b): (u64, u32)) {
            (self.0[i], self.1[i]) = (a, b);
        }
    }

    /// Both position widths give the stable sort of the rows (ties keep their order:
    /// the second column numbers the rows as they came).
    #[test]
    fn sorts_columns_stably_with_either_position_width() {
        let mut x = 7u64;
        let keys: Vec<u64> = (0..1000).map(|_| crate::rng::splitmix64(&mut x) >> 58).collect();
        let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..).collect();
        want.sort_by_key(|r| r.0);
        for wide in [false, true] {
            let mut c = Two(keys.clone(), (0..1000).collect());
            if wide {
                sort_by::<usize, _, _>(&mut c, 1000, |c, i| c.0[i]);
            } else {
                sort_rows(&mut c, |c, i| c.0[i]);
            }
            assert_eq!((0..1000).map(|i| c.row(i)).collect::<Vec<_>>(), want, "wide = {wide}");
        }
    }
}
