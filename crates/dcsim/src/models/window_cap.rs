//! "+win": a cap on the bytes in flight of a rate-based reaction point (`dcqcn`, `timely`,
//! `dctcp_rate`), as in the HPCC simulator (`HAS_WIN 1`: a window of one line-rate BDP over
//! the fabric's largest base RTT, `GLOBAL_T 1`). With `var_window` (`VAR_WIN 1`, what the
//! HPCC study's `run.py` sets for DCQCN+win, TIMELY+win and DCTCP) the cap follows the
//! current rate: `scaled`. The sender checks it before each packet, besides pacing.

use crate::error::{Error, Result};
use crate::keys::{kind, SizeStr};
use crate::models::NicSpec;

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum WindowCap {
    /// The NIC's line rate x the fabric's base RTT (`NicSpec::base_rtt`).
    Bdp,
    /// A fixed number of bytes.
    Bytes(u64),
}

impl WindowCap {
    /// The scenario value: `"bdp"` or a size (`"64KB"`); errors name `path`.
    pub fn parse(s: &str, path: &str) -> Result<WindowCap> {
        if s == "bdp" {
            return Ok(WindowCap::Bdp);
        }
        match SizeStr::new(s).bytes(path) {
            Ok(b) => Ok(WindowCap::Bytes(b)),
            Err(_) => Err(Error::scenario(path, format!("must be \"bdp\" or a size such as \"64KB\" (got \"{s}\")"))),
        }
    }
    /// Checks the value; errors name `path`.
    pub fn check(&self, path: &str) -> Result<()> {
        match self {
            WindowCap::Bytes(0) => Err(Error::scenario(path, "must be > 0")),
            _ => Ok(()),
        }
    }
    /// The cap in bytes for a queue pair on `nic` (at least 1).
    pub fn bytes(&self, nic: &NicSpec) -> u64 {
        match self {
            WindowCap::Bdp => ((nic.line_rate.0 as u128 * nic.base_rtt.0 as u128 / 8_000_000_000_000) as u64).max(1),
            WindowCap::Bytes(b) => (*b).max(1),
        }
    }
}

/// The variable window (`VAR_WIN 1`): the cap `win` at line rate scaled by rate / line
/// rate, rounded down, at least 1 byte (so that one packet may always be in flight).
#[inline]
pub fn scaled(win: u64, rate: f64, line: f64) -> u64 {
    ((win as f64 * rate / line) as u64).max(1)
}

/// A reaction point's cap at its current `rate`: none, `win`, or `win` scaled (`var`).
#[inline]
pub fn at_rate(win: Option<u64>, var: bool, rate: f64, line: f64) -> Option<u64> {
    win.map(|w| if var { scaled(w, rate, line) } else { w })
}

/// The `window` key's kind for `params!`: `"bdp"` or a size.
pub struct Window;

impl kind::Kind for Window {
    type Key = String;
    type Out = WindowCap;
    const UNIT: &'static str = "\"bdp\" or size";
    const GOT: bool = false;
    fn parse(key: &String, _: &kind::Bound, path: &str) -> Result<WindowCap> {
        WindowCap::parse(key, path)
    }
    fn show(v: &WindowCap) -> String {
        match v {
            WindowCap::Bdp => "\"bdp\"".into(),
            WindowCap::Bytes(b) => <kind::Size as kind::Kind>::show(b),
        }
    }
    fn num(v: &WindowCap) -> Option<f64> {
        match v {
            WindowCap::Bdp => None,
            WindowCap::Bytes(b) => Some(*b as f64),
        }
    }
}

/// Checks `window` and `var_window` of an algorithm's keys; `k` names a key.
pub fn check_keys(window: &Option<WindowCap>, var_window: bool, k: impl Fn(&str) -> String) -> Result<()> {
    if let Some(w) = window {
        w.check(&k("window"))?;
    }
    if var_window && window.is_none() {
        return Err(Error::scenario(k("var_window"), "scales the window: set `window` too"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Rate, SimTime};

    #[test]
    fn bdp_is_line_rate_times_base_rtt() {
        let nic = NicSpec { line_rate: Rate::gbps(100), mtu_wire: 1124, mss: 1000, base_rtt: SimTime::us(8) };
        assert_eq!(WindowCap::Bdp.bytes(&nic), 100_000);
        assert_eq!(WindowCap::parse("bdp", "w").unwrap(), WindowCap::Bdp);
        assert_eq!(WindowCap::parse("64KB", "w").unwrap().bytes(&nic), 64_000);
        assert!(WindowCap::parse("wide", "cc.window").unwrap_err().to_string().contains("cc.window: must be \"bdp\" or a size"));
        assert!(WindowCap::Bytes(0).check("cc.window").is_err());
    }

    #[test]
    fn scaled_follows_the_rate_down_to_one_byte() {
        // 52 503 B at 100 Gb/s: 26 251 at 50 (26 251.5 rounded down), 5 250 at 10,
        // 525 at 1 (the HPCC study's DCQCN floor: less than one packet), 1 at 1 Mb/s.
        let line = 100e9;
        assert_eq!(scaled(52_503, line, line), 52_503);
        assert_eq!(scaled(52_503, 50e9, line), 26_251);
        assert_eq!(scaled(52_503, 10e9, line), 5_250);
        assert_eq!(scaled(52_503, 1e9, line), 525);
        assert_eq!(scaled(52_503, 1e6, line), 1);
        assert_eq!(scaled(52_503, 0.0, line), 1);
    }
}
