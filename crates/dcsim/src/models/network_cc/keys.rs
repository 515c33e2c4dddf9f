//! Scenario keys of NetworkCC: the switch side (`[switch.network_cc]`) and the reaction
//! point (`type = "network_cc"` in `[host.cc]` or a traffic entry's `cc`), with the
//! checks of their parameters. Which switches and priorities may run it against the
//! fabric's lossless classes is checked with the plan (`scenario/validate.rs`).

use serde::Deserialize;

use super::rp::{NetworkCcParams, Reaction};
use super::{NetworkCcPlan, SnRule, SnTrigger};
use crate::error::{Error, Result};
use crate::keys::{at, kind, Check, KeyCtx, Keys, RateStr, SizeStr, TimeStr};
use crate::models::dcqcn::DcqcnKeys;

crate::params! {
    /// `type = "network_cc"` reaction point.
    pub struct NetworkCcKeys => NetworkCcParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// how a notified rate sets the current rate: `"lower"` (only down) or `"follow"` (up and down)
    reaction: kind::Enum<Reaction>, ANY;
    /// the DCQCN parameters it recovers with, as the keys of `type = "dcqcn"` (`{ variant = "mellanox", ... }`)
    dcqcn: by_hand(DcqcnKeys, "table", "DCQCN's paper set", "as `type = \"dcqcn\"`");
}

fn build_more(k: &NetworkCcKeys, p: &mut NetworkCcParams, path: &str, ctx: &KeyCtx) -> Result<()> {
    if let Some(d) = &k.dcqcn {
        p.dcqcn = d.build(&at(path, "dcqcn"), ctx)?;
    }
    Ok(())
}

fn check_more(p: &NetworkCcParams, path: &str, ctx: &KeyCtx) -> Result<()> {
    p.dcqcn.check(&at(path, "dcqcn"), ctx)
}

/// `rule` of `[switch.network_cc]`.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SnRuleSpec {
    Rcp,
    Cnp,
}

/// `trigger` of `[switch.network_cc]`.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SnTriggerSpec {
    Queue,
    Rate,
}

/// `[switch.network_cc]`: the congestion points.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkCcSwitchKeys {
    /// Switches that send notifications (default: every switch).
    pub switches: Option<Vec<String>>,
    /// Priorities whose queues send them (default [3]).
    pub priorities: Option<Vec<i64>>,
    /// "rcp" (a rate, the default) or "cnp" (no rate: a CNP equivalent).
    pub rule: Option<SnRuleSpec>,
    /// T_sn (default: the port's ECN Kmin).
    pub threshold: Option<SizeStr>,
    /// "queue" (a frame finds the queue above `threshold`, the default) or "rate" (also
    /// any frame while the port's RCP rate is below its line rate; needs `rule = "rcp"`).
    pub trigger: Option<SnTriggerSpec>,
    /// At most one notification per flow per port per interval (default "50us").
    pub interval: Option<TimeStr>,
    /// Notification frame size (default "98B": 78 B CNP + 20 B option).
    pub size: Option<SizeStr>,
    /// RCP gains (defaults 0.1 and 1.0).
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    /// RCP's d and update interval (default: the largest base RTT of the run's flows).
    pub rtt: Option<TimeStr>,
    /// RCP's lowest rate (default "1Mbps").
    pub rate_min: Option<RateStr>,
}

impl NetworkCcSwitchKeys {
    /// Resolves units and defaults; `switch_index` finds a switch by name (`None`: no
    /// such switch).
    pub fn build(&self, path: &str, switch_index: impl Fn(&str) -> Option<u32>) -> Result<NetworkCcPlan> {
        let k = |key: &str| at(path, key);
        let mut p = NetworkCcPlan::default();
        if let Some(list) = &self.switches {
            let mut nodes = Vec::new();
            for (i, name) in list.iter().enumerate() {
                let n = switch_index(name)
                    .ok_or_else(|| Error::scenario(format!("{}[{i}]", k("switches")), format!("no switch named '{name}'")))?;
                nodes.push(n);
            }
            p.nodes = Some(nodes);
        }
        if let Some(list) = &self.priorities {
            let mut m = 0u8;
            for (i, &v) in list.iter().enumerate() {
                if !(0..=7).contains(&v) {
                    return Err(Error::scenario(format!("{}[{i}]", k("priorities")), format!("priority must be 0..=7 (got {v})")));
                }
                m |= 1 << v;
            }
            p.priorities = m;
        }
        p.rule = self.rule.map(|r| match r {
            SnRuleSpec::Rcp => SnRule::Rcp,
            SnRuleSpec::Cnp => SnRule::Cnp,
        });
        if let Some(v) = &self.threshold {
            p.threshold = Some(v.bytes(&k("threshold"))?);
        }
        if let Some(t) = self.trigger {
            p.trigger = match t {
                SnTriggerSpec::Queue => SnTrigger::Queue,
                SnTriggerSpec::Rate => SnTrigger::Rate,
            };
        }
        if let Some(v) = &self.interval {
            p.interval = v.time(&k("interval"))?;
        }
        if let Some(v) = &self.size {
            p.frame = u32::try_from(v.bytes(&k("size"))?).unwrap_or(u32::MAX);
        }
        if let Some(v) = self.alpha {
            p.rcp.alpha = v;
        }
        if let Some(v) = self.beta {
            p.rcp.beta = v;
        }
        if let Some(v) = &self.rtt {
            p.rcp.rtt = Some(v.time(&k("rtt"))?);
        }
        if let Some(v) = &self.rate_min {
            p.rcp.rate_min = v.rate(&k("rate_min"))?;
        }
        Ok(p)
    }
}

impl Check for NetworkCcPlan {
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()> {
        let k = |key: &str| at(path, key);
        if self.priorities == 0 {
            return Err(Error::scenario(k("priorities"), "is empty: list the priorities whose queues send notifications"));
        }
        if !(64..=1500).contains(&self.frame) {
            return Err(Error::scenario(k("size"), format!("must be 64..=1500 bytes (got {})", self.frame)));
        }
        if self.trigger == SnTrigger::Rate && self.rule() != SnRule::Rcp {
            return Err(Error::scenario(
                k("trigger"),
                "\"rate\" notifies while the port's RCP rate is below its line rate: it needs rule = \"rcp\"",
            ));
        }
        if self.threshold == Some(0) {
            return Err(Error::scenario(k("threshold"), "must be > 0 (a notification for every frame is not a congestion signal)"));
        }
        let r = &self.rcp;
        if !(r.alpha > 0.0 && r.alpha <= 1.0) {
            return Err(Error::scenario(k("alpha"), format!("must be in (0, 1] (got {})", r.alpha)));
        }
        if !(r.beta >= 0.0 && r.beta.is_finite()) {
            return Err(Error::scenario(k("beta"), format!("must be >= 0 (got {})", r.beta)));
        }
        if r.rtt == Some(crate::units::SimTime::ZERO) {
            return Err(Error::scenario(k("rtt"), "must be > 0"));
        }
        if r.rate_min.0 == 0 {
            return Err(Error::scenario(k("rate_min"), "must be > 0"));
        }
        if let Some(lr) = ctx.line_rate {
            if r.rate_min > lr {
                return Err(Error::scenario(k("rate_min"), format!("must be <= the smallest host link rate ({} > {lr})", r.rate_min)));
            }
        }
        Ok(())
    }
}
