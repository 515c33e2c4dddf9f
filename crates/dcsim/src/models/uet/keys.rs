//! Scenario keys of `[host.uet]` and the checks of the UET transport's parameters.

use super::UetParams;
use crate::error::{Error, Result};
use crate::keys::{at, kind, KeyCtx};

crate::params! {
    /// `[host.uet]`.
    pub struct UetKeys => UetParams {
        check_more: check_more,
    }
    /// receiver credit congestion control (RCCC): a sender sends only within the credits its receiver grants, after an unsolicited first window
    rccc: kind::Bool, ANY;
    /// RCCC: the receiver grants credits at this fraction of its line rate
    credit_rate: kind::Fraction, in_oc(0.0, 1.0);
    /// RCCC: credit per grant, in packets of `host.mtu`
    credit_packets: kind::Count, at_least(1.0);
    /// RCCC: the most credit a sender holds and asks for at once
    max_credit: kind::Opt<kind::Size>, POSITIVE, shown "1.5 BDP";
    /// RCCC: the credit a sender starts with, before its receiver answers (the unsolicited window)
    unsolicited: kind::Opt<kind::Size>, ANY, shown "max_credit";
    /// the first unacknowledged packet is resent once a packet this many above it is SACKed (none: only a trimmed header's NACK or `host.rto` tell a loss, as in htsim without SLEEK)
    loss_threshold: kind::Opt<kind::Count>, at_least(1.0), shown "none";
}

fn check_more(p: &UetParams, path: &str, _: &KeyCtx) -> Result<()> {
    if let (Some(u), Some(m)) = (p.unsolicited, p.max_credit) {
        if u > m {
            return Err(Error::scenario(at(path, "unsolicited"), format!("must be at most max_credit ({u} B > {m} B)")));
        }
    }
    if p.credit_packets > 1 << 16 {
        return Err(Error::scenario(at(path, "credit_packets"), format!("must be at most 65536 (got {})", p.credit_packets)));
    }
    Ok(())
}
