//! Columnar results of a run: named tables of typed columns plus a JSON summary.
//! The Python layer turns each table into a DataFrame; the CLI writes them to files.

use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Strings),
}

/// A column of text held as one code per row into its distinct values: the text of a
/// table is node names, kinds and roles, a few hundred values over up to millions of
/// rows (the flows table of 100 ms of k = 16: 374,302 rows of two host names, 40 MiB
/// as one `String` each, 3 MiB as codes). It compares and prints (so hashes, see
/// `Results::digest`) as the list of its values.
#[derive(Clone, Default)]
pub struct Strings {
    codes: Vec<u32>,
    values: Vec<String>,
}

impl Strings {
    /// Rows given as codes into `values` (e.g. node ids into the nodes' names).
    ///
    /// # Panics
    /// If a code is not an index of `values` (an engine bug).
    pub fn from_codes(codes: Vec<u32>, values: Vec<String>) -> Self {
        assert!(codes.iter().all(|&c| (c as usize) < values.len()), "a code without its value");
        Strings { codes, values }
    }
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    /// Row `i`'s text.
    pub fn get(&self, i: usize) -> Option<&str> {
        self.codes.get(i).map(|&c| self.values[c as usize].as_str())
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.codes.iter().map(|&c| self.values[c as usize].as_str())
    }
    /// Each row's code into `values()`.
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }
    /// The distinct values (some may be unused).
    pub fn values(&self) -> &[String] {
        &self.values
    }
    /// The bytes it holds (a `String` as its 24 bytes and its text).
    pub fn heap_bytes(&self) -> usize {
        4 * self.codes.capacity() + self.values.iter().map(|s| 24 + s.capacity()).sum::<usize>()
    }
}

impl std::ops::Index<usize> for Strings {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        &self.values[self.codes[i] as usize]
    }
}

/// Each distinct value once, in order of first appearance.
impl<S: AsRef<str> + Into<String>> FromIterator<S> for Strings {
    fn from_iter<I: IntoIterator<Item = S>>(rows: I) -> Self {
        let mut seen: HashMap<String, u32> = HashMap::new();
        let mut out = Strings::default();
        for s in rows {
            let code = match seen.get(s.as_ref()) {
                Some(&c) => c,
                None => {
                    let c = out.values.len() as u32;
                    let s: String = s.into();
                    seen.insert(s.clone(), c);
                    out.values.push(s);
                    c
                }
            };
            out.codes.push(code);
        }
        out
    }
}

impl From<Vec<String>> for Strings {
    fn from(v: Vec<String>) -> Self {
        v.into_iter().collect()
    }
}

/// As a list of its values: the digest of a table does not depend on how its text is
/// held.
impl std::fmt::Debug for Strings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Strings {
    fn eq(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().eq(o.iter())
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Strings {
    fn eq(&self, o: &[S]) -> bool {
        self.len() == o.len() && self.iter().eq(o.iter().map(|s| s.as_ref()))
    }
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, col: Column) {
        self.columns.push((name.to_string(), col));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Everything a run produces. Table names: `flows`, `ports`, `pfc_events`, `samples`,
/// `goodput`, `nodes`, `links` (documented column by column in docs/outputs.md).
#[derive(Clone, Debug, Default)]
pub struct Results {
    pub tables: Vec<(String, Table)>,
    pub summary: serde_json::Value,
}

impl Results {
    /// A stable 64-bit digest (FNV-1a) of every table and the summary but its `memory`
    /// part (what the engine held, which depends on `simulation.threads`) and its event
    /// count (the engine's work, which a faster engine lowers): two runs with
    /// the same digest produced the same results bit for bit (`f64` values are hashed
    /// through their exact `Debug` form).
    pub fn digest(&self) -> u64 {
        let mut summary = self.summary.clone();
        if let Some(m) = summary.as_object_mut() {
            // What the engine did to get the results, not the results: an engine that
            // needs fewer events (or less memory) for the same run has the same digest.
            m.remove("memory");
            m.remove("events");
            // Where a capture was written and how much of it: an output, not a result.
            m.remove("pcap");
            // What a check covered, in words: a description of the input, not a result.
            if let Some(c) = m.get_mut("checks").and_then(|c| c.get_mut("lossless_no_drops")).and_then(|c| c.as_object_mut()) {
                c.remove("checked");
            }
        }
        // Tables in name order: the order the engine emits them in is not a result.
        let mut tables: Vec<&(String, Table)> = self.tables.iter().collect();
        tables.sort_by(|a, b| a.0.cmp(&b.0));
        // Hashed as it is written: the text of a long run's tables is larger than its
        // results, and a digest must not double the peak memory it is measured with.
        use std::fmt::Write as _;
        let mut h = Fnv1a(0xcbf2_9ce4_8422_2325);
        write!(h, "{:?}\n{}", tables, summary).expect("hashing cannot fail");
        h.0
    }

    /// Whether every invariant checked by the run held (`summary["checks"]["ok"]`).
    pub fn checks_passed(&self) -> bool {
        self.summary["checks"]["ok"] == serde_json::Value::Bool(true)
    }

    /// The failures listed by the run's checks, one line each (empty when they passed).
    pub fn failed_checks(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(m) = self.summary["checks"].as_object() {
            for (name, c) in m {
                if c["ok"] == serde_json::Value::Bool(false) {
                    match c["failures"].as_array() {
                        Some(list) => out.extend(list.iter().map(|f| format!("{name}: {}", f.as_str().unwrap_or("?")))),
                        None => out.push(format!("{name}: failed")),
                    }
                }
            }
        }
        out
    }

    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

/// FNV-1a over what is written to it (the same value as `rng::fnv1a64` of the text).
struct Fnv1a(u64);

impl std::fmt::Write for Fnv1a {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for &b in s.as_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text held as codes prints, compares and so hashes as the list of its rows.
    #[test]
    fn strings_are_their_rows() {
        let rows = ["h0", "h1", "h0", "s\"0", "h1"];
        let held: Strings = rows.into_iter().collect();
        assert_eq!(held.values().len(), 3);
        assert_eq!(held.codes(), &[0, 1, 0, 2, 1]);
        assert_eq!((held.len(), &held[3], held.get(4), held.get(5)), (5, "s\"0", Some("h1"), None));
        assert_eq!(format!("{held:?}"), format!("{:?}", rows.map(String::from).to_vec()));
        let by_node = Strings::from_codes(vec![2, 0, 2, 1, 0], vec!["h0".into(), "s\"0".into(), "h1".into(), "unused".into()]);
        assert_ne!(by_node.codes(), held.codes());
        assert!(by_node != held);
        let by_node = Strings::from_codes(vec![0, 2, 0, 1, 2], vec!["h0".into(), "s\"0".into(), "h1".into(), "unused".into()]);
        assert!(by_node == held && held == rows[..]);
        let t = |c: Strings| Results {
            tables: vec![("t".into(), Table { columns: vec![("c".into(), Column::Str(c))] })],
            ..Default::default()
        };
        assert_eq!(t(by_node).digest(), t(held).digest());
    }
}
