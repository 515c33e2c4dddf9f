//! The files a scenario names (`topology.file`, `traffic[i].file` of CSV and CDF
//! entries): where they may be, and how they are read.
//!
//! A scenario is input from whoever wrote it, so the files it names must stay inside
//! what the user chose to share with it: the scenario's own directory, the data roots
//! passed explicitly (`--data-root DIR`, `data_roots=[...]`), and the `data/` directory
//! of the dcsim source tree (the shipped scenarios name `../data/...`). Where a name
//! leads once symbolic links are resolved decides, before anything is opened; a name
//! that cannot be resolved outside the roots is reported as outside, not as missing, so
//! errors do not tell which files exist elsewhere. What is read must be a regular
//! file of at most `MAX_FILE_BYTES`, UTF-8 text without NUL bytes. Errors name the
//! resolved file and give reasons; they never quote what the file holds.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The largest file a scenario or a file it references (topology, flows, CDF) may be.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The `data/` directory of the source tree this engine was built from, if it is there.
pub fn shipped_data_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    std::fs::canonicalize(d).ok().filter(|d| d.is_dir())
}

/// A directory file references may point into, in two forms: lexical (absolute, `..`
/// removed, for the check before any file is touched) and canonical (symlinks resolved).
#[derive(Clone, Debug)]
struct Root {
    lexical: PathBuf,
    canonical: Option<PathBuf>,
}

/// Where a scenario's file references resolve (`base`) and may point (`roots`).
#[derive(Clone, Debug)]
pub struct FileScope {
    base: PathBuf,
    roots: Vec<Root>,
}

/// `p` made absolute against the working directory, with `.` and `..` removed without
/// asking the file system.
fn lexical(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")).join(p) };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A path as shown in messages: quoted, control characters escaped.
pub fn shown(p: &Path) -> String {
    format!("'{}'", p.display().to_string().escape_debug())
}

impl FileScope {
    /// The scope of a scenario whose relative file names resolve against `base_dir`,
    /// with the extra `data_roots` (each must be an existing directory) and the shipped
    /// data directory.
    pub fn new(base_dir: &Path, data_roots: &[PathBuf]) -> Result<Self> {
        let mut roots = vec![Root { lexical: lexical(base_dir), canonical: std::fs::canonicalize(base_dir).ok() }];
        for (i, r) in data_roots.iter().enumerate() {
            let what = format!("data_roots[{i}]");
            let canon = std::fs::canonicalize(r).map_err(|e| Error::scenario(&what, format!("{}: {}", shown(r), io_reason(&e))))?;
            if !canon.is_dir() {
                return Err(Error::scenario(what, format!("{} is not a directory", shown(r))));
            }
            roots.push(Root { lexical: lexical(r), canonical: Some(canon) });
        }
        if let Some(d) = shipped_data_dir() {
            roots.push(Root { lexical: lexical(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")), canonical: Some(d) });
        }
        Ok(FileScope { base: base_dir.to_path_buf(), roots })
    }

    /// Reads the file a scenario field (`origin`, e.g. `traffic[0].file`) names. Returns
    /// the resolved path (for messages about the content) and the text.
    pub fn read(&self, file: &str, origin: &str) -> Result<(PathBuf, String)> {
        let named = Path::new(file);
        let joined = if named.is_absolute() { named.to_path_buf() } else { self.base.join(named) };
        let lex = lexical(&joined);
        let outside = || {
            Error::scenario(
                origin,
                format!(
                    "{} is outside the scenario's directory and the data roots (pass --data-root DIR, \
                     or data_roots=[...] in Python, to allow another directory)",
                    shown(&lex)
                ),
            )
        };
        let lexically_inside =
            self.roots.iter().any(|r| lex.starts_with(&r.lexical) || r.canonical.as_ref().is_some_and(|c| lex.starts_with(c)));
        // Where the name leads once symbolic links are resolved decides; nothing is
        // opened before. A name that cannot be resolved is "outside" unless it is
        // lexically inside, so the errors do not tell which files exist elsewhere.
        let canon = match std::fs::canonicalize(&joined) {
            Ok(c) => c,
            Err(_) if !lexically_inside => return Err(outside()),
            Err(e) => return Err(Error::scenario(origin, format!("{} cannot be read: {}", shown(&lex), io_reason(&e)))),
        };
        if !self.roots.iter().any(|r| r.canonical.as_ref().is_some_and(|c| canon.starts_with(c))) {
            if !lexically_inside {
                return Err(outside());
            }
            return Err(Error::scenario(
                origin,
                format!(
                    "{} leads (through a symbolic link) to {}, outside the scenario's directory and the data \
                     roots (pass --data-root DIR, or data_roots=[...] in Python, to allow it)",
                    shown(&lex),
                    shown(&canon)
                ),
            ));
        }
        let text = read_text(&canon).map_err(|m| Error::scenario(origin, format!("{} {m}", shown(&canon))))?;
        Ok((canon, text))
    }
}

/// An error about the content of `file`, read for the scenario field `origin`: the
/// message names the file before the reason (`'x.csv', line 3: ...`).
pub fn in_file(err: Error, file: &Path) -> Error {
    match err {
        Error::Scenario { path, msg } => Error::scenario(path, format!("{}, {msg}", shown(file))),
        other => other,
    }
}

pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// Reads a text file that a scenario is or references, as the data it claims to be: a
/// regular file (not a directory, a device, a pipe or a socket) of at most
/// `MAX_FILE_BYTES`, in UTF-8 without NUL bytes. The error is the reason, a phrase to
/// follow the file's name ("is a directory, not a file").
pub fn read_text(path: &Path) -> std::result::Result<String, String> {
    use std::io::Read;
    let too_big = || format!("is larger than {} MiB, the most a scenario file or a file it names may be", MAX_FILE_BYTES >> 20);
    let check = |meta: &std::fs::Metadata| {
        if meta.is_dir() {
            return Err("is a directory, not a file".to_string());
        }
        if !meta.is_file() {
            return Err("is not a regular file (a device, a pipe or a socket?)".to_string());
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(too_big());
        }
        Ok(())
    };
    let io = |e: std::io::Error| format!("cannot be read: {}", io_reason(&e));
    // Checked before opening (opening a pipe would wait for a writer) and again on the
    // opened file (the name may have been replaced in between).
    check(&std::fs::metadata(path).map_err(io)?)?;
    let f = std::fs::File::open(path).map_err(io)?;
    check(&f.metadata().map_err(io)?)?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    if let Some(i) = bytes.iter().position(|&b| b == 0) {
        return Err(format!("is a binary file, not text (NUL byte at offset {i})"));
    }
    String::from_utf8(bytes).map_err(|e| format!("is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
        assert_eq!(lexical(Path::new("/a/../../..")), PathBuf::from("/"));
        assert!(lexical(Path::new("x")).is_absolute());
    }
}
