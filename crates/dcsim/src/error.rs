//! The one error type of the engine. Every scenario error names the field path.
//!
//! An error is one line: values from the input are quoted with Rust's `{:?}` escaping
//! where they are echoed, and the constructors escape any control character or line
//! separator (`\n`, U+2028, ...) left in the path or the message.

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
        Error::Scenario { path: one_line(path.into()), msg: one_line(msg.into()) }
    }
    pub fn io(path: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Io { path: one_line(path.into()), msg: one_line(msg.into()) }
    }
}

/// Whether a character would break a one-line message (or hide in it).
fn breaks_line(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character and line or paragraph separator escaped as Rust
/// would (`\n`, `\u{2028}`); unchanged (and not copied) when it has none.
pub fn one_line(s: String) -> String {
    if !s.chars().any(breaks_line) {
        return s;
    }
    s.chars().map(|c| if breaks_line(c) { c.escape_debug().to_string() } else { c.to_string() }).collect()
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_one_line() {
        let e = Error::scenario("topology.hosts[0]\n", "no host named 'a\u{2028}b\r\nc'").to_string();
        assert_eq!(e, "topology.hosts[0]\\n: no host named 'a\\u{2028}b\\r\\nc'");
        assert_eq!(one_line("plain 'x' \"y\" µs".into()), "plain 'x' \"y\" µs");
    }
}
