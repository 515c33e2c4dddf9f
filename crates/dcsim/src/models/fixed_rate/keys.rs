//! Scenario keys of `type = "none"` and `type = "fixed_rate"`.

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx, Keys};
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

/// `type = "fixed_rate"`'s parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FixedRateParams {
    pub rate: Rate,
}

crate::params! {
    /// `type = "fixed_rate"`.
    pub struct FixedRateKeys => FixedRateParams {
        base: base,
    }
    /// the constant pacing rate, capped at the NIC's line rate
    rate: kind::Rate, POSITIVE, shown "required";
}

fn base(k: &FixedRateKeys, path: &str, _: &KeyCtx) -> Result<FixedRateParams> {
    match k.rate {
        Some(_) => Ok(FixedRateParams::default()),
        None => Err(Error::scenario(at(path, "rate"), "missing; type = \"fixed_rate\" needs a rate")),
    }
}
