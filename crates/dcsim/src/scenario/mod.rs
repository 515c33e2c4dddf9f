//! Scenario files: TOML -> typed schema (serde, unknown fields rejected) -> validated
//! `Plan`. Topology and traffic builders live beside the schema.

use std::path::Path;

use crate::error::Result;
use crate::plan::Plan;

/// Reads a scenario file, applies `--set path=value` overrides, validates it.
/// Relative file names inside the scenario (topology or traffic files) are resolved
/// against the scenario file's directory.
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Plan> {
    let _ = (path, overrides);
    todo!("scenario layer")
}

/// Same as `load_file` for scenario text already in memory; `base_dir` resolves
/// relative file names.
pub fn load_str(text: &str, base_dir: &Path, overrides: &[String]) -> Result<Plan> {
    let _ = (text, base_dir, overrides);
    todo!("scenario layer")
}
