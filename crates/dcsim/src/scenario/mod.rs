//! Scenario files: TOML -> typed schema (serde, unknown fields rejected) -> validated
//! `Plan`. Topology and traffic builders live beside the schema.
//!
//! Pipeline: parse the text into a `toml::Value`, apply `--set path=value` overrides,
//! deserialize into `schema::Scenario` (errors name the dotted field path), build the
//! topology and traffic (`build`), and check the result (`validate`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::plan::Plan;

pub mod build;
pub mod cdf;
pub mod files;
pub mod limits;
pub mod overrides;
pub mod schema;
pub mod storage;
pub mod topology;
pub mod traffic;
pub mod validate;
pub mod work;

#[cfg(test)]
mod tests;

/// Reads a scenario file, applies `--set path=value` overrides, validates it.
/// Relative file names inside the scenario (topology or traffic files) are resolved
/// against the scenario file's directory, and must stay inside it or the shipped data
/// directory (`files`).
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Plan> {
    load_file_with(path, overrides, &[])
}

/// `load_file` with further directories (`data_roots`) the scenario's files may be in.
pub fn load_file_with(path: &Path, overrides: &[String], data_roots: &[PathBuf]) -> Result<Plan> {
    let text = read_scenario(path)?;
    let base = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "scenario".into());
    load_inner(&text, &FileScope::new(base, data_roots)?, overrides, &stem)
}

/// Reads a scenario file as text (`files::read_text`); the error names the file.
pub fn read_scenario(path: &Path) -> Result<String> {
    read_text(path).map_err(|m| Error::io(path.display().to_string(), m))
}

/// Same as `load_file` for scenario text already in memory; `base_dir` resolves
/// relative file names (and is where they may be, with the shipped data directory).
pub fn load_str(text: &str, base_dir: &Path, overrides: &[String]) -> Result<Plan> {
    load_str_with(text, base_dir, overrides, &[])
}

/// `load_str` with further directories (`data_roots`) the scenario's files may be in.
pub fn load_str_with(text: &str, base_dir: &Path, overrides: &[String], data_roots: &[PathBuf]) -> Result<Plan> {
    load_inner(text, &FileScope::new(base_dir, data_roots)?, overrides, "scenario")
}

fn load_inner(text: &str, files: &FileScope, overrides: &[String], default_name: &str) -> Result<Plan> {
    let spec = schema::deserialize(overrides::merge(text, overrides)?)?;
    let plan = build::build(&spec, files, default_name)?;
    validate::validate_plan(&plan)?;
    Ok(plan)
}

pub use files::{read_text, FileScope, MAX_FILE_BYTES};

/// Parses TOML text; syntax errors name the line and column.
fn parse_toml(text: &str) -> Result<toml::Value> {
    match text.parse::<toml::Table>() {
        Ok(t) => Ok(toml::Value::Table(t)),
        Err(e) => {
            let (line, col) = match e.span() {
                Some(sp) => {
                    let before = &text[..sp.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
                    (line, col)
                }
                None => (0, 0),
            };
            let msg = e.message().trim().replace('\n', "; ");
            Err(Error::scenario(format!("scenario (line {line}, column {col})"), format!("TOML syntax error: {msg}")))
        }
    }
}

/// A stable 64-bit FNV-1a hash (16 hex digits) of the scenario as it runs, for run
/// summaries and run ids: the text with its overrides merged, written canonically (keys
/// sorted, comments and layout dropped), so the same settings hash alike however they
/// are written (`kmax=100KB` or `kmax="100KB"`, a key set twice, a file saved with its
/// overrides merged) and different settings (a seed included) differently. Text or an
/// override that does not parse is hashed as given.
pub fn scenario_hash(text: &str, overrides: &[String]) -> String {
    let mut bytes = Vec::with_capacity(text.len());
    match overrides::merge(text, overrides) {
        Ok(mut v) => {
            // How many threads run it does not change the results, so not the run id.
            if let Some(sim) = v.get_mut("simulation").and_then(|s| s.as_table_mut()) {
                sim.remove("threads");
            }
            canonical(&v, &mut bytes)
        }
        Err(_) => {
            bytes.extend_from_slice(text.as_bytes());
            for o in overrides {
                bytes.push(0);
                bytes.extend_from_slice(o.as_bytes());
            }
        }
    }
    format!("{:016x}", crate::rng::fnv1a64(&bytes))
}

/// An unambiguous encoding of a TOML value, tables by sorted key.
fn canonical(v: &toml::Value, out: &mut Vec<u8>) {
    use std::io::Write;
    use toml::Value::*;
    let _ = match v {
        String(s) => write!(out, "{s:?}"),
        Integer(i) => write!(out, "i{i}"),
        Float(f) => write!(out, "f{:x}", f.to_bits()),
        Boolean(b) => write!(out, "{b}"),
        Datetime(d) => write!(out, "d{d}"),
        Array(a) => {
            out.push(b'[');
            for x in a {
                canonical(x, out);
                out.push(b',');
            }
            out.push(b']');
            Ok(())
        }
        Table(t) => {
            let mut keys: Vec<_> = t.iter().collect();
            keys.sort_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (k, x) in keys {
                let _ = write!(out, "{k:?}=");
                canonical(x, out);
                out.push(b',');
            }
            out.push(b'}');
            Ok(())
        }
    };
}
