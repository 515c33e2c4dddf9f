//! The one error type of the engine. Every scenario error names the field path.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: `path` is the dotted field path (`switch.pfc.xon`), `msg` the reason.
    #[error("{path}: {msg}")]
    Scenario { path: String, msg: String },
    /// A file could not be read or written.
    #[error("{path}: {msg}")]
    Io { path: String, msg: String },
}

impl Error {
    pub fn scenario(path: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Scenario { path: path.into(), msg: msg.into() }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
