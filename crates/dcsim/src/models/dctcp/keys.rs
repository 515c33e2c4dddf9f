//! Scenario keys of `type = "dctcp"` and the checks of its parameters.

use serde::Deserialize;

use super::DctcpParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpKeys {
    /// Weight of a window's marked fraction in alpha (default 1/16).
    pub g: Option<f64>,
    /// alpha at the start (default 1).
    pub alpha_init: Option<f64>,
    /// Initial window in MSS (default 10).
    pub init_cwnd: Option<i64>,
}

impl Keys for DctcpKeys {
    type Out = DctcpParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<DctcpParams> {
        let mut p = DctcpParams::default();
        if let Some(v) = self.g {
            p.g = v;
        }
        if let Some(v) = self.alpha_init {
            p.alpha_init = v;
        }
        if let Some(v) = self.init_cwnd {
            p.init_cwnd = count_at_least(v, 1, &at(path, "init_cwnd"))?;
        }
        Ok(p)
    }
}

impl Check for DctcpParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(Error::scenario(at(path, "g"), format!("must be in (0, 1] (got {})", self.g)));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err(Error::scenario(at(path, "alpha_init"), format!("must be in [0, 1] (got {})", self.alpha_init)));
        }
        if self.init_cwnd == 0 {
            return Err(Error::scenario(at(path, "init_cwnd"), "must be >= 1"));
        }
        Ok(())
    }
}
