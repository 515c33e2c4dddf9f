//! Columnar results of a run: named tables of typed columns plus a JSON summary.
//! The Python layer turns each table into a DataFrame; the CLI writes them to files.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Vec<String>),
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
