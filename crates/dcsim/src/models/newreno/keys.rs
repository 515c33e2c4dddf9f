//! Scenario keys of `type = "newreno"` and the checks of its parameters.

use serde::Deserialize;

use super::NewRenoParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRenoKeys {
    /// Initial window in MSS (default 10, RFC 6928).
    pub init_cwnd: Option<i64>,
}

impl Keys for NewRenoKeys {
    type Out = NewRenoParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<NewRenoParams> {
        let mut p = NewRenoParams::default();
        if let Some(v) = self.init_cwnd {
            p.init_cwnd = count_at_least(v, 1, &at(path, "init_cwnd"))?;
        }
        Ok(p)
    }
}

impl Check for NewRenoParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if self.init_cwnd == 0 {
            return Err(Error::scenario(at(path, "init_cwnd"), "must be >= 1"));
        }
        Ok(())
    }
}
