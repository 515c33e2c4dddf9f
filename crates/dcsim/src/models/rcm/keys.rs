//! Scenario keys of `type = "rcm_linear"` (the reaction point; the switch-side detection
//! rules are keys of `[switch.congestion]`).

use super::linear::{RcmLinearParams, RecoveryRule};
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx};
use crate::units::SimTime;

crate::params! {
    /// `type = "rcm_linear"`.
    pub struct RcmLinearKeys => RcmLinearParams {
        check_more: check_more,
    }
    /// time without a CNP before one recovery step; > 0 when `rule` uses time
    recover_time: kind::Time, ANY;
    /// wire bytes sent without a CNP before one recovery step; > 0 when `rule` uses bytes
    recover_bytes: kind::Size, ANY;
    /// when a step happens: `"time"`, `"bytes"`, `"either"` or `"both"`
    rule: kind::Enum<RecoveryRule>, ANY;
    /// highest level k; CNPs beyond it change nothing
    max_level: kind::Count, at_least(1.0);
    /// `false`: start-to-start spacing (k+1) T, rate C/(k+1); `true`: idle gap (k+1) T, rate C/(k+2) for k >= 1
    gap: kind::Bool, ANY;
}

fn check_more(p: &RcmLinearParams, path: &str, _: &KeyCtx) -> Result<()> {
    let (time, bytes) = match p.rule {
        RecoveryRule::Time => (true, false),
        RecoveryRule::Bytes => (false, true),
        RecoveryRule::Either | RecoveryRule::Both => (true, true),
    };
    let rule = format!("{:?}", p.rule).to_lowercase();
    if time && p.recover_time == SimTime::ZERO {
        return Err(Error::scenario(at(path, "recover_time"), format!("must be > 0 with rule = \"{rule}\"")));
    }
    if bytes && p.recover_bytes == 0 {
        return Err(Error::scenario(at(path, "recover_bytes"), format!("must be > 0 with rule = \"{rule}\"")));
    }
    Ok(())
}
