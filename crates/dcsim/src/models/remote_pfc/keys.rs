//! Scenario keys of remote PFC, `[switch.remote_pfc]`, and the checks of the values that
//! do not depend on the rest of the plan.

use super::params::RemotePfcPlan;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx, SizeStr};

crate::params! {
    /// `[switch.remote_pfc]`
    pub struct RemotePfcKeys => RemotePfcPlan {
        build_more: build_more,
        check_more: check_more,
    }
    /// off unless asked for; a run without it has no `remote_pfc` table and unchanged outputs
    enabled: kind::Bool, ANY;
    /// seed 001 ("remote PFC threshold = 2 * kmax"); must be >= the port's ECN Kmin
    threshold: kind::Opt<kind::Size>, POSITIVE, shown "2 x Kmax of the port's ECN marker (1.5 MB with Kmax 750 KB)";
    /// the pause drains the queue to where ECN stops marking (remote-pfc.md 8.4); below `threshold`
    target: kind::Opt<kind::Size>, ANY, shown "Kmin of the port's ECN marker";
    /// one base RTT of a small fabric: one message per source per RTT and queue
    min_gap: kind::Time, ANY;
    /// the shortest pause asked for, in quanta; at most `max_quanta`
    min_quanta: kind::Count, at_least(1.0);
    /// the longest pause asked for, in quanta: what a PFC frame can carry
    max_quanta: kind::Count, in_cc(1.0, 65535.0);
    /// a minimum Ethernet frame, as the 802.1Qau feedback frames
    message_size: by_hand(SizeStr, "size", "`\"64B\"`", "64..=1500 B");
}

fn build_more(k: &RemotePfcKeys, p: &mut RemotePfcPlan, path: &str, _: &KeyCtx) -> Result<()> {
    if let Some(v) = &k.message_size {
        let key = at(path, "message_size");
        p.message_bytes = u32::try_from(v.bytes(&key)?).map_err(|_| Error::scenario(&key, "must be at most 1500 B"))?;
    }
    Ok(())
}

fn check_more(p: &RemotePfcPlan, path: &str, _: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    if p.min_quanta > p.max_quanta {
        return Err(Error::scenario(k("min_quanta"), format!("must be in 1..=max_quanta ({}) (got {})", p.max_quanta, p.min_quanta)));
    }
    if !(64..=1500).contains(&p.message_bytes) {
        return Err(Error::scenario(k("message_size"), format!("must be in 64..=1500 B (got {} B)", p.message_bytes)));
    }
    if let (Some(t), Some(g)) = (p.threshold, p.target) {
        if g >= t {
            return Err(Error::scenario(k("target"), format!("must be below threshold ({g} B >= {t} B)")));
        }
    }
    Ok(())
}
