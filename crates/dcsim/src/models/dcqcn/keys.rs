//! Scenario keys of `type = "dcqcn"` (a variant's defaults, then any key given) and the
//! checks of its parameters.

use super::rp::{DcqcnParams, DcqcnVariant};
use crate::error::{Error, Result};
use crate::keys::{at, at_most_line_rate, kind, KeyCtx};
use crate::models::window_cap::{self, Window};
use crate::units::Rate;

crate::params! {
    /// `type = "dcqcn"`: `variant` picks the base set, every other key overrides one value.
    pub struct DcqcnKeys => DcqcnParams {
        sets: ["paper" => DcqcnParams::paper(), "mellanox, 100 Gb/s" => DcqcnParams::mellanox(Rate::gbps(100))],
        base: base,
        check_more: check_more,
    }
    /// the base set
    variant: kind::Enum<DcqcnVariant>, ANY;
    /// alpha gain
    g: kind::Fraction, in_oc(0.0, 1.0);
    /// initial alpha (the Mellanox variant sets alpha = 1 at the first CNP anyway)
    alpha_init: kind::Fraction, in_oc(0.0, 1.0);
    /// paper: alpha timer K; mellanox: alpha_resume_interval
    alpha_period: kind::Time, POSITIVE;
    /// paper: increase timer T_inc; mellanox: rp_timer
    increase_period: kind::Time, POSITIVE;
    /// mellanox: rate_decrease_interval (unused by the paper variant)
    decrease_period: kind::Time, POSITIVE;
    /// paper: byte counter B (wire bytes); `"0B"` disables it
    byte_counter: kind::Size, ANY;
    /// fast-recovery threshold F; >= 1 with the paper variant
    f: kind::Count, at_least(0.0);
    /// additive increase (mellanox: 5 Mb/s x C / 25 Gb/s)
    rate_ai: kind::Rate, POSITIVE;
    /// hyper increase (mellanox: 50 Mb/s x C / 25 Gb/s)
    rate_hai: kind::Rate, POSITIVE;
    /// floor of RC, at most the smallest host link rate (mellanox: min(1 Gb/s, C / 10))
    rate_min: kind::Rate, POSITIVE;
    /// on a decrease, RT = RC always (`true`, as the paper) or only when stage != 0 (mellanox)
    clamp_target_rate: kind::Bool, ANY;
    /// mellanox: RC = RT = factor x RC on the first CNP (unused by the paper variant)
    rate_on_first_cnp: kind::Fraction, in_oc(0.0, 1.0);
    /// "+win" (the HPCC study's DCQCN+win): bytes in flight allowed besides pacing; `"bdp"` = line rate x the run's largest base RTT
    window: kind::Opt<Window>, POSITIVE;
    /// needs `window`; the cap follows RC: window x RC / C, rounded down, at least 1 B (the HPCC study's `VAR_WIN 1`)
    var_window: kind::Bool, ANY;
}

/// The variant's parameter set; the Mellanox set scales with the smallest host link rate.
fn base(k: &DcqcnKeys, _: &str, ctx: &KeyCtx) -> Result<DcqcnParams> {
    Ok(match k.variant.unwrap_or(DcqcnVariant::Paper) {
        DcqcnVariant::Paper => DcqcnParams::paper(),
        DcqcnVariant::Mellanox => match ctx.line_rate {
            Some(r) => DcqcnParams::mellanox(r),
            None => return Err(Error::scenario("topology", "has no hosts")),
        },
    })
}

fn check_more(p: &DcqcnParams, path: &str, ctx: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    window_cap::check_keys(&p.window, p.var_window, k)?;
    if p.variant == DcqcnVariant::Paper && p.f < 1 {
        return Err(Error::scenario(k("f"), "must be >= 1 with variant = \"paper\""));
    }
    at_most_line_rate(p.rate_min, &k("rate_min"), ctx)
}
