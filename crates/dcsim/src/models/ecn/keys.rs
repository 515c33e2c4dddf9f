//! Scenario keys of ECN marking, `[switch.ecn]`, and of the notification point,
//! `[host.cnp]`, with the checks of their values.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use super::cnp::CnpPlan;
use super::params::{EcnMode, EcnPlan, EcnSpeedPlan, MarkPoint};
use crate::error::{Error, Result};
use crate::keys::kind;
use crate::keys::{at, KeyCtx, RateStr, SizeStr, TimeStr};
use crate::units::SimTime;

crate::params! {
    /// `[switch.ecn]`: ECN marking at switch egress queues (ecn.md).
    pub struct EcnKeys => EcnPlan {
        build_more: build_more,
        check_more: check_more,
    }
    /// `"red"`: instantaneous RED-ECN, p = pmax (q - kmin) / (kmax - kmin), 1 above kmax; `"step"`: mark when q > kmin (DCTCP); `"red_avg"`: classic (gentle) RED on the EWMA of the queue; `"off"` marks nothing
    mode: kind::Enum<EcnMode>, ANY;
    /// lower threshold (step: K); at most `kmax`
    kmin: kind::Opt<kind::Cells>, ANY, shown "100 KB x port rate / 25 Gb/s";
    /// upper threshold; `red` and `red_avg` need `kmin` and `kmax` together or neither, `step` only `kmin`
    kmax: kind::Opt<kind::Cells>, ANY, shown "400 KB x port rate / 25 Gb/s";
    /// marking probability at kmax
    pmax: kind::Fraction, in_cc(0.0, 1.0);
    /// EWMA weight of `red_avg`
    wq: kind::Fraction, in_oc(0.0, 1.0);
    /// where `red` and `step` compare the queue with the thresholds (`red_avg`: always at enqueue)
    mark_point: kind::Enum<MarkPoint>, ANY;
    /// the priorities whose queues mark
    priorities: kind::Priorities, ANY, shown "all";
    /// thresholds for ports of exactly that rate, each rate once: `{rate, kmin, kmax, pmax}`; `kmax` may be left out with `step`, `pmax` defaults to the section's
    by_speed: by_hand(Vec<EcnSpeedKeys>, "list of tables", "none", "kmin <= kmax, pmax in [0, 1]");
}

/// One `switch.ecn.by_speed` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnSpeedKeys {
    pub rate: RateStr,
    pub kmin: SizeStr,
    /// Required unless mode = "step".
    pub kmax: Option<SizeStr>,
    /// Default: the section's `pmax`.
    pub pmax: Option<f64>,
}

fn build_more(k: &EcnKeys, p: &mut EcnPlan, path: &str, ctx: &KeyCtx) -> Result<()> {
    for (i, e) in k.by_speed.iter().flatten().enumerate() {
        let at = |key: &str| format!("{path}.by_speed[{i}].{key}");
        let rate = e.rate.rate(&at("rate"))?;
        let kmin = e.kmin.bytes_or_cells(&at("kmin"), ctx.cell)?;
        let kmax = match &e.kmax {
            Some(v) => v.bytes_or_cells(&at("kmax"), ctx.cell)?,
            // Step marking only uses kmin.
            None if p.mode == EcnMode::Step => kmin,
            None => return Err(Error::scenario(at("kmax"), format!("missing; needed unless {path}.mode = \"step\""))),
        };
        p.by_speed.push(EcnSpeedPlan { rate, kmin, kmax, pmax: e.pmax.unwrap_or(p.pmax) });
    }
    Ok(())
}

fn check_k(kmin: u64, kmax: u64, path: &str) -> Result<()> {
    if kmin > kmax {
        return Err(Error::scenario(at(path, "kmin"), format!("must be <= kmax ({kmin} B > {kmax} B)")));
    }
    Ok(())
}

fn check_pmax(pmax: f64, path: &str) -> Result<()> {
    if !(0.0..=1.0).contains(&pmax) {
        return Err(Error::scenario(at(path, "pmax"), format!("must be in [0, 1] (got {pmax})")));
    }
    Ok(())
}

/// Thresholds ordered; RED needs both thresholds or neither (the rate-scaled defaults),
/// step marking only kmin; each `by_speed` rate once, with its own checks.
fn check_more(e: &EcnPlan, path: &str, _: &KeyCtx) -> Result<()> {
    let together = "missing; give kmin and kmax together (or neither, for the rate-scaled defaults)";
    match (e.kmin, e.kmax) {
        (Some(kmin), Some(kmax)) => check_k(kmin, kmax, path)?,
        (Some(_), None) if matches!(e.mode, EcnMode::Red | EcnMode::RedAvg) => return Err(Error::scenario(at(path, "kmax"), together)),
        (None, Some(_)) if matches!(e.mode, EcnMode::Red | EcnMode::RedAvg | EcnMode::Step) => {
            return Err(Error::scenario(at(path, "kmin"), together))
        }
        _ => {}
    }
    for (i, b) in e.by_speed.iter().enumerate() {
        let at = format!("{path}.by_speed[{i}]");
        if b.rate.0 == 0 {
            return Err(Error::scenario(format!("{at}.rate"), "must be > 0"));
        }
        if e.by_speed[..i].iter().any(|o| o.rate == b.rate) {
            return Err(Error::scenario(format!("{at}.rate"), format!("{} listed twice", b.rate)));
        }
        check_k(b.kmin, b.kmax, &at)?;
        check_pmax(b.pmax, &at)?;
    }
    Ok(())
}

impl Default for CnpPlan {
    /// One CNP per queue pair per 50 us (the paper's and NICs' default), no NIC limit,
    /// a 78-byte RoCEv2 frame in the control class.
    fn default() -> Self {
        CnpPlan { interval: SimTime::us(50), nic_gap: SimTime::ZERO, bytes: 78, priority: None, delay: SimTime::ZERO }
    }
}

crate::params! {
    /// `[host.cnp]`: how a receiving NIC answers CE-marked packets (dcqcn.md, notification point).
    pub struct CnpKeys => CnpPlan {
        build_more: cnp_build_more,
        check_more: cnp_check_more,
    }
    /// minimum time between CNPs of one queue pair (a mark inside the window yields one CNP at its end); `"0us"` answers every marked packet
    interval: kind::Time, ANY;
    /// minimum time between two CNPs of one NIC (its generation limit); `"0us"`: no limit
    nic_gap: kind::Time, ANY;
    /// CNP generation delay: a CNP reaches the NIC's send queue this long after the marked packet (the limits above count from the mark; nic_timing)
    delay: by_hand(TimeStr, "time", "`\"0us\"`", "");
    /// CNP frame size (RoCEv2: 78 B)
    size: by_hand(SizeStr, "size", "`\"78B\"`", "64..=65535 B");
    /// `"control"`: the control class (never paused, not charged to buffers); an integer: a normal frame of that priority
    priority: by_hand(CnpPriorityKey, "`\"control\"` or priority", "`\"control\"`", "0..=7");
}

fn cnp_build_more(k: &CnpKeys, p: &mut CnpPlan, path: &str, _: &KeyCtx) -> Result<()> {
    if let Some(t) = &k.delay {
        p.delay = t.time(&at(path, "delay"))?;
    }
    if let Some(v) = &k.size {
        let key = at(path, "size");
        let b = v.bytes(&key)?;
        p.bytes = u32::try_from(b).map_err(|_| Error::scenario(&key, format!("{b} is too large")))?;
    }
    match k.priority {
        None | Some(CnpPriorityKey::Control) => {}
        Some(CnpPriorityKey::Priority(v)) if (0..=7).contains(&v) => p.priority = Some(v as u8),
        Some(CnpPriorityKey::Priority(v)) => return Err(Error::scenario(at(path, "priority"), format!("must be 0..=7 (got {v})"))),
    }
    Ok(())
}

fn cnp_check_more(p: &CnpPlan, path: &str, _: &KeyCtx) -> Result<()> {
    if !(64..=65_535).contains(&p.bytes) {
        return Err(Error::scenario(at(path, "size"), format!("must be 64..=65535 B (got {} B)", p.bytes)));
    }
    if let Some(pr) = p.priority.filter(|&pr| pr > 7) {
        return Err(Error::scenario(at(path, "priority"), format!("must be \"control\" or 0..=7 (got {pr})")));
    }
    Ok(())
}

/// The class of CNPs as written: the never-paused control class, or a data priority.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum CnpPriorityKey {
    Control,
    Priority(i64),
}

impl<'de> Deserialize<'de> for CnpPriorityKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CnpPriorityKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "\"control\" or a priority 0..7")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                if v.trim() == "control" {
                    Ok(CnpPriorityKey::Control)
                } else {
                    Err(E::custom(format!("expected \"control\" or a priority 0..7, got '{v}'")))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                Ok(CnpPriorityKey::Priority(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                Ok(CnpPriorityKey::Priority(i64::try_from(v).unwrap_or(i64::MAX)))
            }
        }
        d.deserialize_any(V)
    }
}
