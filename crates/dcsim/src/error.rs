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
    /// Memory for what the scenario asks for could not be had (an address-space or
    /// cgroup limit below the scenario's memory limit): `what` names what was being
    /// built (`traffic[0]`, `flows`, ...), `msg` how much.
    #[error("{what}: {msg}")]
    Resource { what: String, msg: String },
}

impl Error {
    pub fn scenario(path: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Scenario { path: one_line(path.into()), msg: one_line(msg.into()) }
    }
    pub fn io(path: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Io { path: one_line(path.into()), msg: one_line(msg.into()) }
    }
    pub fn resource(what: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Resource { what: one_line(what.into()), msg: one_line(msg.into()) }
    }
}

/// Reserves room for `n` more items in `v` without aborting on failure: an allocation
/// the process cannot get (an address-space or cgroup limit) is an `Error::Resource`
/// naming `what` is being built, instead of the allocator's abort.
pub fn try_reserve<T>(v: &mut Vec<T>, n: usize, what: &str) -> Result<()> {
    v.try_reserve_exact(n).map_err(|_| {
        let bytes = (n as u128).saturating_mul(std::mem::size_of::<T>() as u128);
        Error::resource(
            what,
            format!(
                "out of memory: could not allocate {n} items ({:.2} GiB); the process has less memory than \
                 simulation.memory_limit allows (an address-space or cgroup limit?)",
                bytes as f64 / (1u64 << 30) as f64
            ),
        )
    })
}

/// A vector with room for `n` items, or an `Error::Resource` (see `try_reserve`).
pub fn try_vec<T>(n: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    try_reserve(&mut v, n, what)?;
    Ok(v)
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

    #[test]
    fn a_failed_reservation_is_an_error_naming_what() {
        let e = try_vec::<u64>(usize::MAX / 4, "flows").unwrap_err().to_string();
        assert!(e.starts_with("flows: out of memory: could not allocate"), "{e}");
        assert_eq!(try_vec::<u64>(10, "flows").unwrap().capacity(), 10);
    }
}
