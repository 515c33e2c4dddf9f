//! Scenario keys of NetworkCC: the switch side (`[switch.network_cc]`) and the reaction
//! point (`type = "network_cc"` in `[host.cc]` or a traffic entry's `cc`), with the
//! checks of their parameters, and against the plan (`check_plan`: which switches and
//! priorities may run it against the fabric's lossless classes).

use super::rp::{NetworkCcParams, Reaction};
use super::{NetworkCcPlan, SnRule, SnTrigger};
use crate::error::{Error, Result};
use crate::keys::{at, at_most_line_rate, kind, Check, KeyCtx, Keys};
use crate::models::dcqcn::DcqcnKeys;
use crate::plan::{NodeKind, Plan};

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

crate::params! {
    /// `[switch.network_cc]`: the congestion points (switch-originated notifications with rate).
    pub struct NetworkCcSwitchKeys => NetworkCcPlan {
        build_more: switch_names,
        check_more: switch_check_more,
    }
    /// the switches that send notifications (names)
    switches: by_hand(Vec<String>, "list of switch names", "every switch", "");
    /// the priorities whose egress queues send them; not empty; a lossy priority (not protected by `switch.pfc`) needs `rule` given
    priorities: kind::Priorities, ANY;
    /// `"rcp"`: the notification carries the port's RCP rate; `"cnp"`: no rate, the sender treats it as a CNP (Fast CNP)
    rule: kind::Opt<kind::Enum<SnRule>>, ANY, shown "`\"rcp\"`";
    /// T_sn: a data frame that finds the queue above it triggers a notification; > 0
    threshold: kind::Opt<kind::Size>, ANY, shown "the port's ECN Kmin";
    /// `"queue"`: a frame that finds the queue above `threshold`; `"rate"`: that, and any frame while the port's RCP rate is below its line rate (needs `rule = "rcp"`)
    trigger: kind::Enum<SnTrigger>, ANY;
    /// at most one notification per flow per port per interval
    interval: kind::Time, ANY;
    /// notification frame size (78 B CNP + 20 B option), 64..=1500 B
    size => frame: kind::Size32, ANY;
    /// RCP gain of the spare capacity
    alpha => rcp.alpha: kind::Fraction, in_oc(0.0, 1.0);
    /// RCP gain of the queue
    beta => rcp.beta: kind::Real, at_least(0.0);
    /// RCP's d and update interval
    rtt => rcp.rtt: kind::Opt<kind::Time>, POSITIVE, shown "the largest base RTT of the run's flows";
    /// the lowest rate RCP advertises; at most the smallest host link rate
    rate_min => rcp.rate_min: kind::Rate, POSITIVE;
}

/// The switches named resolved against the topology (`ctx.nodes`).
fn switch_names(k: &NetworkCcSwitchKeys, p: &mut NetworkCcPlan, path: &str, ctx: &KeyCtx) -> Result<()> {
    if let Some(list) = &k.switches {
        let at = at(path, "switches");
        p.nodes = Some(
            list.iter()
                .enumerate()
                .map(|(i, name)| ctx.node(name, Some(NodeKind::Switch), &format!("{at}[{i}]")))
                .collect::<Result<_>>()?,
        );
    }
    Ok(())
}

fn switch_check_more(p: &NetworkCcPlan, path: &str, ctx: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    if p.priorities == 0 {
        return Err(Error::scenario(k("priorities"), "is empty: list the priorities whose queues send notifications"));
    }
    if !(64..=1500).contains(&p.frame) {
        return Err(Error::scenario(k("size"), format!("must be 64..=1500 bytes (got {})", p.frame)));
    }
    if p.trigger == SnTrigger::Rate && p.rule() != SnRule::Rcp {
        return Err(Error::scenario(
            k("trigger"),
            "\"rate\" notifies while the port's RCP rate is below its line rate: it needs rule = \"rcp\"",
        ));
    }
    if p.threshold == Some(0) {
        return Err(Error::scenario(k("threshold"), "must be > 0 (a notification for every frame is not a congestion signal)"));
    }
    at_most_line_rate(p.rcp.rate_min, &k("rate_min"), ctx)
}

/// `[switch.network_cc]`: its parameters, its switches, its priorities against the
/// lossless classes, and every `type = "network_cc"` flow on a priority it serves.
pub(crate) fn check_plan(p: &Plan) -> Result<()> {
    let path = "switch.network_cc";
    if let Some(n) = &p.fabric.netcc {
        for (i, &node) in n.nodes.iter().flatten().enumerate() {
            if p.nodes.get(node as usize).is_none_or(|x| x.kind != NodeKind::Switch) {
                return Err(Error::scenario(format!("{path}.switches[{i}]"), format!("node {node} is not a switch")));
            }
        }
        for prio in (0..8u8).filter(|q| n.priorities & (1 << q) != 0) {
            if !p.is_lossless(prio) && n.rule.is_none() {
                return Err(Error::scenario(
                    format!("{path}.priorities"),
                    format!(
                        "priority {prio} is lossy (not protected by switch.pfc): the default rule is specified for lossless classes; name a rule (switch.network_cc.rule = \"rcp\" or \"cnp\") to run NetworkCC on a lossy priority"
                    ),
                ));
            }
        }
    }
    for f in &p.flows {
        if !matches!(p.ccs.get(f.cc as usize), Some(crate::models::CcPlan::NetworkCc(_))) {
            continue;
        }
        let served = p.fabric.netcc.as_ref().is_some_and(|n| n.priorities & (1 << f.priority) != 0);
        if !served {
            let at = if f.cc == 0 { "host.cc".to_string() } else { format!("traffic[{}].cc", f.group) };
            return Err(Error::scenario(
                at,
                format!(
                    "type = \"network_cc\" takes its rate from switch notifications, but no switch sends them for priority {} (add it to [switch.network_cc] priorities)",
                    f.priority
                ),
            ));
        }
    }
    Ok(())
}
