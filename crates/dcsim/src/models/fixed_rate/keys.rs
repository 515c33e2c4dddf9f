//! Scenario keys of `type = "none"` and `type = "fixed_rate"`.

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::keys::{at, Check, KeyCtx, Keys, RateStr};
use crate::units::Rate;

/// `type = "none"` takes no keys.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoKeys {}

impl Keys for NoKeys {
    type Out = ();
    fn build(&self, _: &str, _: &KeyCtx) -> Result<()> {
        Ok(())
    }
}

/// `type = "fixed_rate"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedRateKeys {
    /// The constant pacing rate (required).
    pub rate: Option<RateStr>,
}

impl Keys for FixedRateKeys {
    type Out = Rate;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<Rate> {
        match &self.rate {
            Some(r) => r.rate(&at(path, "rate")),
            None => Err(Error::scenario(at(path, "rate"), "missing; type = \"fixed_rate\" needs a rate")),
        }
    }
}

impl Check for Rate {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if self.0 == 0 {
            return Err(Error::scenario(at(path, "rate"), "must be > 0"));
        }
        Ok(())
    }
}
