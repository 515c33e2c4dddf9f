//! Scenario files: TOML -> typed schema (serde, unknown fields rejected) -> validated
//! `Plan`. Topology and traffic builders live beside the schema.
//!
//! Pipeline: parse the text into a `toml::Value`, apply `--set path=value` overrides,
//! deserialize into `schema::Scenario` (errors name the dotted field path), build the
//! topology and traffic (`build`), and check the result (`validate`).

use std::path::Path;

use crate::error::{Error, Result};
use crate::plan::Plan;

pub mod build;
pub mod cdf;
pub mod limits;
pub mod overrides;
pub mod schema;
pub mod topology;
pub mod traffic;
pub mod validate;

#[cfg(test)]
mod tests;

/// Reads a scenario file, applies `--set path=value` overrides, validates it.
/// Relative file names inside the scenario (topology or traffic files) are resolved
/// against the scenario file's directory.
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Plan> {
    let text = read_text(path).map_err(|m| Error::io(path.display().to_string(), m))?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "scenario".into());
    load_inner(&text, base, overrides, &stem)
}

/// Same as `load_file` for scenario text already in memory; `base_dir` resolves
/// relative file names.
pub fn load_str(text: &str, base_dir: &Path, overrides: &[String]) -> Result<Plan> {
    load_inner(text, base_dir, overrides, "scenario")
}

fn load_inner(text: &str, base_dir: &Path, overrides: &[String], default_name: &str) -> Result<Plan> {
    let spec = schema::deserialize(overrides::merge(text, overrides)?)?;
    let plan = build::build(&spec, base_dir, default_name)?;
    validate::validate_plan(&plan)?;
    Ok(plan)
}

/// The largest file a scenario or a file it references (topology, flows, CDF) may be.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Reads a text file that a scenario is or references, as the data it claims to be: a
/// regular file (not a directory, a device, a pipe or a socket) of at most
/// `MAX_FILE_BYTES`, in UTF-8 without NUL bytes. The error is the reason; the file is
/// named by its resolved path (absolute, `.` and `..` removed), so that a relative name
/// resolved against the scenario's directory shows where it was looked for.
pub fn read_text(path: &Path) -> std::result::Result<String, String> {
    use std::io::Read;
    let shown = format!("'{}'", resolved(path).display().to_string().escape_debug());
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{shown} is a directory, not a file"));
    }
    if !meta.is_file() {
        return Err(format!("{shown} is not a regular file (a device, a pipe or a socket?)"));
    }
    let too_big = || format!("{shown} is larger than {} MiB, the most a scenario file or a file it names may be", MAX_FILE_BYTES >> 20);
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    if let Some(i) = bytes.iter().position(|&b| b == 0) {
        return Err(format!("{shown} is a binary file, not text (NUL byte at offset {i})"));
    }
    String::from_utf8(bytes).map_err(|e| format!("{shown} is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

/// `path` made absolute against the working directory, with `.` and `..` removed
/// lexically (the file need not exist, so symbolic links are not followed).
pub fn resolved(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = std::path::PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

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

/// A stable 64-bit FNV-1a hash (16 hex digits) of the scenario text and its overrides,
/// for run summaries.
pub fn scenario_hash(text: &str, overrides: &[String]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for o in overrides {
        bytes.push(0);
        bytes.extend_from_slice(o.as_bytes());
    }
    format!("{:016x}", crate::rng::fnv1a64(&bytes))
}
