//! "+win": a fixed cap on the bytes in flight of a rate-based reaction point, as the HPCC
//! study runs DCQCN+win and TIMELY+win (the HPCC simulator's `HAS_WIN 1, VAR_WIN 0`: a
//! window of one line-rate BDP over the fabric's largest base RTT). The sender checks it
//! before each packet, besides pacing at the algorithm's rate.

use crate::error::{Error, Result};
use crate::keys::SizeStr;
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
}
