//! Scenario keys of `[host.tcp]` and the checks of the TCP transport's parameters.

use super::TcpParams;
use crate::error::{Error, Result};
use crate::keys::{at, count_at_least, kind, KeyCtx};

crate::params! {
    /// `[host.tcp]`.
    pub struct TcpKeys => TcpParams {
        build_more: build_more,
        check_more: check_more,
    }
    /// lower bound of the RTO (RFC 6298: 1 s; Linux 200 ms; a datacenter choice)
    min_rto: kind::Time, POSITIVE;
    /// RTO before the first RTT sample (RFC 6298: 1 s; a datacenter setting here)
    initial_rto: kind::Time, POSITIVE;
    /// upper bound of the RTO (RFC 6298: at least 60 s); >= `min_rto`
    max_rto: kind::Time, ANY;
    /// delayed ACKs on (one ACK per `delayed_ack_count` in-order segments) or off
    delayed_ack: by_hand(bool, "bool", "`false`", "");
    /// segments per ACK when delayed ACKs are on; needs `delayed_ack = true`
    delayed_ack_count: by_hand(i64, "count", "`2`", ">= 1");
    /// the longest an ACK is held (ns-3 default)
    delayed_ack_timeout: kind::Time, POSITIVE;
    /// duplicate ACKs / SACKed segments above a hole that start fast retransmit (DupThresh)
    dupthresh: kind::Count, at_least(1.0);
}

/// `delayed_ack` and `delayed_ack_count` set one field: segments per ACK (1: off).
fn build_more(k: &TcpKeys, p: &mut TcpParams, path: &str, _: &KeyCtx) -> Result<()> {
    if k.delayed_ack == Some(true) {
        p.delayed_ack = 2;
    }
    if let Some(v) = k.delayed_ack_count {
        let n = count_at_least(v, 1, &at(path, "delayed_ack_count"))?;
        if k.delayed_ack != Some(true) {
            return Err(Error::scenario(at(path, "delayed_ack_count"), "needs delayed_ack = true"));
        }
        p.delayed_ack = n;
    }
    Ok(())
}

fn check_more(p: &TcpParams, path: &str, _: &KeyCtx) -> Result<()> {
    if p.max_rto < p.min_rto {
        return Err(Error::scenario(at(path, "max_rto"), format!("must be >= min_rto ({} < {})", p.max_rto, p.min_rto)));
    }
    if p.delayed_ack == 0 {
        return Err(Error::scenario(at(path, "delayed_ack_count"), "must be >= 1"));
    }
    Ok(())
}
