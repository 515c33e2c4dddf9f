//! Scenario keys of `type = "cubic"` and the checks of its parameters.

use serde::Deserialize;

use super::CubicParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, Check, KeyCtx, Keys};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicKeys {
    /// Scaling constant C in segments / s^3 (default 0.4).
    pub c: Option<f64>,
    /// Multiplicative decrease factor beta (default 0.7).
    pub beta: Option<f64>,
    /// Fast convergence (default true).
    pub fast_convergence: Option<bool>,
    /// Initial window in MSS (default 10).
    pub init_cwnd: Option<i64>,
}

impl Keys for CubicKeys {
    type Out = CubicParams;
    fn build(&self, path: &str, _: &KeyCtx) -> Result<CubicParams> {
        let mut p = CubicParams::default();
        if let Some(v) = self.c {
            p.c = v;
        }
        if let Some(v) = self.beta {
            p.beta = v;
        }
        if let Some(v) = self.fast_convergence {
            p.fast_convergence = v;
        }
        if let Some(v) = self.init_cwnd {
            p.init_cwnd = count_at_least(v, 1, &at(path, "init_cwnd"))?;
        }
        Ok(p)
    }
}

impl Check for CubicParams {
    fn check(&self, path: &str, _: &KeyCtx) -> Result<()> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(Error::scenario(at(path, "c"), format!("must be > 0 (got {})", self.c)));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(Error::scenario(at(path, "beta"), format!("must be in (0, 1) (got {})", self.beta)));
        }
        if self.init_cwnd == 0 {
            return Err(Error::scenario(at(path, "init_cwnd"), "must be >= 1"));
        }
        Ok(())
    }
}
