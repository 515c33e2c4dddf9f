//! Packet trimming (NDP, Handley et al. 2017; the Ultra Ethernet transport's trimming):
//! a switch that would drop a data frame of a trimming priority (its egress queue at
//! `switch.egress_limit` or at `threshold`, or the buffer refusing it) cuts it to its
//! header and queues the header at `header_priority`; the receiver answers a header
//! with a NAK naming that packet (`sim/header_nak.rs`). This state holds the parameters,
//! the counters (per (port, priority) and per flow), which flows' frames may be cut, and
//! each sender's queue of packets to resend that a NAK named while another resend was
//! pending. The switch's cut is the `overflow` hook (`switch.rs`).

pub mod keys;
mod sender;
mod switch;

use std::collections::VecDeque;

use crate::ids::{FlowId, NodeId};
use crate::models::fabric_model::{BuildCtx, Enqueued, FabricModel, Fate, FlowEnds, Overflow, Tables};
use crate::net::fabric::Fabric;
use crate::net::packet::PktKind;
use crate::plan::Transport;
use crate::results::Column;

/// The run-time state; inert (`on` false, no arrays) without `[fabric.trimming]`.
#[derive(Default)]
pub struct Trimming {
    pub on: bool,
    header_prio: u8,
    header_bytes: u32,
    /// The priorities that trim, one bit each.
    mask: u8,
    /// Per flow: whether its frames may be cut (RoCE and UET: TCP's receiver has no NAK,
    /// and UDP no one to tell).
    flow_trims: Vec<bool>,
    /// Trim above this many queued bytes (`u64::MAX`: only where a drop would happen).
    threshold: u64,
    /// `switch.egress_limit` (`u64::MAX`: none): above it, a frame not trimmed is dropped.
    egress_limit: u64,
    /// Per (port, priority): data frames trimmed at that egress, headers queued at it,
    /// headers dropped at it.
    trimmed: Vec<u64>,
    headers: Vec<u64>,
    headers_dropped: Vec<u64>,
    /// Per flow: its frames trimmed (at any switch), and its packets resent on a NAK
    /// that answered a header.
    flow_trimmed: Vec<u64>,
    flow_resent: Vec<u64>,
    /// Per flow (selective repeat): packets named by NAKs while a resend was pending.
    resends: Vec<VecDeque<u32>>,
}

/// The sum of `a` and `b`, element by element, into `a`.
fn add(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

impl FabricModel for Trimming {
    fn new(ctx: &mut BuildCtx) -> Self {
        let Some(p) = ctx.plan.fabric.trimming.as_ref().filter(|p| p.enabled) else { return Trimming::default() };
        let (np, nf) = (ctx.ports.len() * 8, ctx.plan.flows.len());
        let pfc = &ctx.plan.fabric.pfc;
        Trimming {
            on: true,
            header_prio: p.header_priority as u8,
            header_bytes: p.header_bytes as u32,
            mask: p.mask(|q| pfc.is_lossless(q)),
            flow_trims: ctx.plan.flows.iter().map(|f| !matches!(f.transport, Transport::Tcp | Transport::Udp)).collect(),
            threshold: p.threshold.unwrap_or(u64::MAX),
            egress_limit: ctx.plan.switch.egress_limit.unwrap_or(u64::MAX),
            trimmed: vec![0; np],
            headers: vec![0; np],
            headers_dropped: vec![0; np],
            flow_trimmed: vec![0; nf],
            flow_resent: vec![0; nf],
            resends: vec![VecDeque::new(); nf],
        }
    }

    fn wants_enqueued(&self) -> bool {
        self.on
    }

    fn enqueued<S: Fn(FlowId) -> NodeId>(&mut self, _fx: &mut Fabric, e: &Enqueued, _src: &S) {
        if e.pkt.kind == PktKind::Trimmed {
            self.headers[e.out.idx() * 8 + e.prio as usize] += 1;
        }
    }

    fn wants_overflow(&self) -> bool {
        self.on
    }

    fn overflow(&mut self, fx: &mut Fabric, o: &Overflow) -> Option<Fate> {
        self.on.then(|| self.on_overflow(fx, o))
    }

    /// A `threshold` below the egress limit: frames above it come to `overflow`.
    fn egress_limit(&self) -> Option<u64> {
        self.on.then_some(self.threshold)
    }

    /// Headers travel at their own priority.
    fn frame_prios(plan: &crate::plan::Plan) -> u8 {
        plan.fabric.trimming.as_ref().filter(|t| t.enabled).map_or(0, |t| 1 << t.header_priority)
    }

    fn eager_senders(plan: &crate::plan::Plan) -> bool {
        plan.fabric.trimming.as_ref().is_some_and(|t| t.enabled)
    }

    fn wants_resends(&self) -> bool {
        self.on
    }

    fn queue_resend(&mut self, f: FlowId, seq: u32) -> bool {
        self.on && {
            self.push_resend(f, seq);
            true
        }
    }

    fn next_resend(&mut self, f: FlowId, snd_una: u32) -> Option<u32> {
        if self.on {
            self.pop_resend(f, snd_una)
        } else {
            None
        }
    }

    #[inline]
    fn resends_pending(&self, f: FlowId) -> u32 {
        self.pending(f) as u32
    }

    fn header_nak_answered(&mut self, f: FlowId, n: u64) {
        self.flow_resent[f.idx()] += n;
    }

    /// Columns added to the `ports` and `flows` tables (only in runs with trimming, so
    /// other runs' tables are unchanged).
    fn tables(&self, _fx: &Fabric, _ends: FlowEnds, out: &mut Tables) {
        if !self.on {
            return;
        }
        for (name, t) in out.iter_mut() {
            if name == "ports" {
                let (Some(Column::U64(port)), Some(Column::U64(prio))) = (t.get("port_id"), t.get("priority")) else { continue };
                let ix: Vec<usize> = port.iter().zip(prio).map(|(&p, &q)| (p * 8 + q) as usize).collect();
                for (col, v) in
                    [("trimmed", &self.trimmed), ("headers_forwarded", &self.headers), ("headers_dropped", &self.headers_dropped)]
                {
                    t.push(col, Column::U64(ix.iter().map(|&i| v[i]).collect()));
                }
            } else if name == "flows" {
                let Some(Column::U64(ids)) = t.get("flow_id") else { continue };
                let ids: Vec<usize> = ids.iter().map(|&f| f as usize).collect();
                t.push("pkts_trimmed", Column::U64(ids.iter().map(|&f| self.flow_trimmed[f]).collect()));
                t.push("resent_after_trim", Column::U64(ids.iter().map(|&f| self.flow_resent[f]).collect()));
            }
        }
    }

    fn summary(&self, _fx: &Fabric, summary: &mut serde_json::Value) {
        if self.on {
            let sum = |v: &[u64]| v.iter().sum::<u64>();
            summary["trimming"] = serde_json::json!({
                "trimmed": sum(&self.trimmed),
                "headers_forwarded": sum(&self.headers),
                "headers_dropped": sum(&self.headers_dropped),
                "resent_after_trim": sum(&self.flow_resent),
            });
        }
    }

    /// Every counter is written by one partition only (a port's by its switch, a flow's
    /// trims by the switches on its path, its resends by its source): the sums are the
    /// one-thread counts.
    fn merge(&mut self, other: &mut Self, _fx: &Fabric, _theirs: &dyn Fn(NodeId) -> bool) {
        add(&mut self.trimmed, &other.trimmed);
        add(&mut self.headers, &other.headers);
        add(&mut self.headers_dropped, &other.headers_dropped);
        add(&mut self.flow_trimmed, &other.flow_trimmed);
        add(&mut self.flow_resent, &other.flow_resent);
    }

    fn check_plan(plan: &crate::plan::Plan, _ctx: &crate::keys::KeyCtx) -> crate::Result<()> {
        keys::check(plan)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("trimming.md", "trimming", <keys::TrimmingKeys as crate::keys::Declared>::table()));
    }
}
