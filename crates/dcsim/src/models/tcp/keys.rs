//! Scenario keys of `[host.tcp]` and the checks of the TCP transport's parameters.

use serde::Deserialize;

use super::TcpParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys, TimeStr};

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpKeys {
    pub min_rto: Option<TimeStr>,
    pub initial_rto: Option<TimeStr>,
    pub max_rto: Option<TimeStr>,
    /// Delayed ACKs on or off (default off).
    pub delayed_ack: Option<bool>,
    /// Segments per ACK when delayed ACKs are on (default 2).
    pub delayed_ack_count: Option<i64>,
    /// The longest an ACK is held (default 200ms).
    pub delayed_ack_timeout: Option<TimeStr>,
    /// Duplicate ACKs / SACKed segments that start fast retransmit (default 3).
    pub dupthresh: Option<i64>,
}

impl Keys for TcpKeys {
    type Out = TcpParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<TcpParams> {
        let mut p = TcpParams::default();
        if let Some(v) = &self.min_rto {
            p.min_rto = v.time(&at(path, "min_rto"))?;
        }
        if let Some(v) = &self.initial_rto {
            p.initial_rto = v.time(&at(path, "initial_rto"))?;
        }
        if let Some(v) = &self.max_rto {
            p.max_rto = v.time(&at(path, "max_rto"))?;
        }
        if self.delayed_ack == Some(true) {
            p.delayed_ack = 2;
        }
        if let Some(v) = self.delayed_ack_count {
            let n = count_at_least(v, 1, &at(path, "delayed_ack_count"))?;
            if self.delayed_ack != Some(true) {
                return Err(Error::scenario(at(path, "delayed_ack_count"), "needs delayed_ack = true"));
            }
            p.delayed_ack = n;
        }
        if let Some(v) = &self.delayed_ack_timeout {
            p.delayed_ack_timeout = v.time(&at(path, "delayed_ack_timeout"))?;
        }
        if let Some(v) = self.dupthresh {
            p.dupthresh = count_at_least(v, 1, &at(path, "dupthresh"))?;
        }
        Ok(p)
    }
}

impl Check for TcpParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        let pos = |v: crate::units::SimTime, k: &str| {
            if v.0 == 0 {
                Err(Error::scenario(at(path, k), "must be > 0"))
            } else {
                Ok(())
            }
        };
        pos(self.min_rto, "min_rto")?;
        pos(self.initial_rto, "initial_rto")?;
        pos(self.delayed_ack_timeout, "delayed_ack_timeout")?;
        if self.max_rto < self.min_rto {
            return Err(Error::scenario(at(path, "max_rto"), format!("must be >= min_rto ({} < {})", self.max_rto, self.min_rto)));
        }
        if self.delayed_ack == 0 {
            return Err(Error::scenario(at(path, "delayed_ack_count"), "must be >= 1"));
        }
        if self.dupthresh == 0 {
            return Err(Error::scenario(at(path, "dupthresh"), "must be >= 1"));
        }
        Ok(())
    }
}
