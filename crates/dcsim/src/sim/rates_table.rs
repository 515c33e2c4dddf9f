//! The rates table, the longest of a long run (10^7 rows at the default
//! `stats.max_rows`): made whole by `Simulation::finish`, or handed over still packed by
//! `Simulation::finish_rates_packed` (12 bytes a row for 100 ms of k = 16, where the
//! columns take 24) to a reader that unpacks it when, and as far as, it is read.

use crate::net::capped_log::CappedLog;
use crate::net::rate_rows::RateRows;
use crate::results::{Column, Table};
use crate::units::Rate;

/// The table's columns, in order.
pub const COLUMNS: [&str; 3] = ["time_ps", "flow_id", "rate_gbps"];

/// The rates table's rows, ordered and cut to the row limit, still packed.
#[derive(Debug)]
pub struct PackedRates(RateRows);

impl PackedRates {
    /// The log ordered and cut (`CappedLog::finish`), its rows held in memory.
    pub(super) fn of(mut log: CappedLog<RateRows>) -> Self {
        log.finish();
        PackedRates(log.take_rows().held())
    }

    pub fn len(&self) -> usize {
        crate::net::capped_log::Rows::len(&self.0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows `start..end` (clamped to the table) as a table of their own.
    pub fn slice(&self, start: usize, end: usize) -> Table {
        let end = end.min(self.len());
        let (time, flow, rate) = self.0.columns_of(start.min(end)..end);
        table(time, flow, rate)
    }

    /// The whole table, the packed rows freed as they are unpacked (`RateRows::into_columns`).
    pub fn into_table(self) -> Table {
        let (time, flow, rate) = self.0.into_columns();
        table(time, flow, rate)
    }
}

/// The rates converted in place, from bit/s to Gb/s.
fn table(time: Vec<u64>, flow: Vec<u64>, rate: Vec<u64>) -> Table {
    let mut t = Table::default();
    t.push(COLUMNS[0], Column::U64(time));
    t.push(COLUMNS[1], Column::U64(flow));
    t.push(COLUMNS[2], Column::F64(rate.into_iter().map(|r| Rate(r).as_gbps_f64()).collect()));
    t
}

#[cfg(test)]
mod tests {
    use crate::results::{Column, Table};
    use crate::sim::Simulation;

    /// An incast under DCQCN on a star (hosts h1.. to h0, `size` each): its rates change
    /// often.
    fn incast(duration: &str, senders: usize, size: &str) -> String {
        let from: Vec<String> = (1..=senders).map(|i| format!("\"h{i}\"")).collect();
        format!(
            "[simulation]\nduration = \"{duration}\"\n[topology]\ntype = \"star\"\nhosts = {}\nrate = \"40Gbps\"\ndelay = \"1us\"\n\
             [host.cc]\ntype = \"dcqcn\"\n[switch.ecn]\nmode = \"red\"\n\
             [[traffic]]\ntype = \"incast\"\nreceiver = \"h0\"\nsenders = [{}]\nsize = \"{size}\"\n",
            senders + 1,
            from.join(", ")
        )
    }

    /// The world of `text` with `sets`, run to its end.
    fn ran(text: &str, sets: &[String]) -> Simulation {
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), sets).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        while s.run_until(s.end()) {}
        s
    }

    /// The table's rows as (time, flow, rate bits).
    fn rows(t: &Table) -> Vec<(u64, u64, u64)> {
        let col = |c: &str| match t.get(c).unwrap() {
            Column::U64(v) => v.clone(),
            Column::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
            _ => unreachable!(),
        };
        let (time, flow, rate) = (col("time_ps"), col("flow_id"), col("rate_gbps"));
        (0..time.len()).map(|i| (time[i], flow[i], rate[i])).collect()
    }

    /// The rates table, built after the world is freed, takes its place after goodput as
    /// before, and the summary counts its rows (a parallel run's too).
    #[test]
    fn the_rates_table_keeps_its_place_and_its_row_count() {
        let text = incast("200us", 3, "200KB");
        for threads in ["1", "2"] {
            let r = ran(&text, &[format!("simulation.threads={threads}")]).finish();
            let names: Vec<&str> = r.tables.iter().map(|(n, _)| n.as_str()).collect();
            let at = names.iter().position(|&n| n == "rates").expect("a rates table");
            assert_eq!(names[at - 1], "goodput", "{names:?}");
            let rows = r.tables[at].1.rows();
            assert!(rows > 0, "DCQCN under incast changes rates");
            assert_eq!(r.summary["outputs"]["rows"]["rates"], serde_json::json!(rows), "threads {threads}");
        }
    }

    /// A rates log written to files as it grows (here every two rows) gives the same
    /// results as one held in memory, on one thread and two, cut by the row limit or
    /// not.
    #[test]
    fn a_rates_log_in_files_gives_the_same_results() {
        use crate::net::rate_rows::tests::SPILL_AT;
        use std::sync::atomic::Ordering;
        let text = incast("2ms", 4, "2MB");
        let run = |sets: &[String]| ran(&text, sets).finish();
        for threads in ["1", "2"] {
            let mut all = Vec::new();
            for max_rows in ["10000000", "40"] {
                let sets = [format!("simulation.threads={threads}"), format!("stats.max_rows={max_rows}")];
                let held = SPILL_AT.load(Ordering::Relaxed);
                let in_memory = run(&sets);
                SPILL_AT.store(6, Ordering::Relaxed);
                let in_files = run(&sets);
                SPILL_AT.store(held, Ordering::Relaxed);
                assert_eq!(in_files.digest(), in_memory.digest(), "threads {threads}, max_rows {max_rows}");
                // The log cut at 40 rows keeps the first 40 of the whole log, however it
                // refused the later ones while the run went.
                let kept = rows(in_memory.table("rates").unwrap());
                if all.is_empty() {
                    assert!(kept.len() >= 100, "threads {threads}: {} rows, enough to go through files", kept.len());
                    all = kept;
                } else {
                    assert_eq!(kept, all[..40], "threads {threads}");
                    let not_kept = in_memory.summary["outputs"]["rate_changes_not_kept"].as_u64().unwrap();
                    assert_eq!(not_kept as usize, all.len() - 40, "threads {threads}");
                }
            }
        }
    }

    /// Read by slices (of uneven lengths, the last past the end) or whole, the packed
    /// table is the one `finish` makes, on one thread and two, cut by the row limit or not.
    #[test]
    fn the_packed_table_read_by_slices_is_the_finished_table() {
        let text = incast("1ms", 4, "1MB");
        for threads in ["1", "2"] {
            for max_rows in ["10000000", "40"] {
                let sets = [format!("simulation.threads={threads}"), format!("stats.max_rows={max_rows}")];
                let whole = ran(&text, &sets).finish();
                let (res, at, packed) = ran(&text, &sets).finish_rates_packed();
                assert_eq!(whole.tables[at].0, "rates");
                assert_eq!(res.tables.len() + 1, whole.tables.len(), "every other table is there");
                let expected = rows(&whole.tables[at].1);
                let n = packed.len();
                assert!(n > 40 || max_rows == "40", "{n} rows");
                assert_eq!(n, expected.len());
                let mut by_slices = Vec::new();
                let mut start = 0;
                for step in [5, 35, 65].iter().cycle() {
                    if start >= n {
                        break;
                    }
                    by_slices.extend(rows(&packed.slice(start, start + step)));
                    start += step;
                }
                assert_eq!(by_slices, expected, "threads {threads}, max_rows {max_rows}");
                assert_eq!(packed.slice(n, n + 10).rows(), 0);
                assert_eq!(packed.into_table(), whole.tables[at].1);
            }
        }
    }
}
