//! UET's checks of a plan and its warnings, and its place in the fabric-model list
//! (`Uet`: no state of its own there; the NIC side is `sim/uet.rs`).

use crate::models::fabric_model::{BuildCtx, FabricModel};

/// The transport in the `fabric_models!` list: its checks and warnings, nothing at run time.
pub(crate) struct Uet;

impl FabricModel for Uet {
    fn new(_ctx: &mut BuildCtx) -> Self {
        Uet
    }

    fn check_plan(plan: &crate::plan::Plan, _: &crate::keys::KeyCtx) -> crate::Result<()> {
        check_plan(plan)
    }

    fn warnings(plan: &crate::plan::Plan, out: &mut Vec<String>) {
        warnings(plan, out)
    }

    fn param_tables(out: &mut crate::models::fabric_model::ParamTables) {
        out.push(("uet.md", "nscc", <crate::models::nscc::NsccKeys as crate::keys::Declared>::table()));
        out.push(("uet.md", "uet", <super::UetKeys as crate::keys::Declared>::table()));
    }
}

/// The plan's checks of UET beyond `[host.uet]`'s keys: RCCC's pull target rides in the
/// frame tag that BCN and FECN use for their own.
fn check_plan(plan: &crate::plan::Plan) -> crate::Result<()> {
    if plan.fabric.uet.rccc && !matches!(plan.switch.l2cm, crate::models::L2Cm::None) {
        return Err(crate::Error::scenario(
            "host.uet.rccc",
            "RCCC's pull target rides in the data frames' tag, which [switch.l2cm] (BCN, FECN) uses: not both in one run",
        ));
    }
    Ok(())
}

/// What a valid plan runs that it may not mean: UET flows whose entropy no switch
/// sprays by (every switch hashes per flow, `ecmp`, on a fabric with a choice of paths),
/// UET flows on a lossy priority that is not trimmed (a lost packet waits for the
/// retransmission timer: UET NAKs no gap), and `[host.uet] rccc` without UET flows;
/// first, NSCC with ACKs held for several packets (`nscc_ack_every`).
fn warnings(plan: &crate::plan::Plan, out: &mut Vec<String>) {
    use crate::models::load_balancing::Mode;
    nscc_ack_every(plan, out);
    let Some(first) = plan.flows.iter().find(|f| f.transport == crate::plan::Transport::Uet) else {
        if plan.fabric.uet.rccc {
            out.push("host.uet.rccc: no traffic entry has transport = \"uet\"; RCCC changes nothing".to_string());
        }
        return;
    };
    let trimmed = plan.fabric.trimming.as_ref().filter(|t| t.enabled).map_or(0, |t| t.mask(|q| plan.is_lossless(q)));
    let untrimmed = |f: &&crate::plan::FlowPlan| {
        f.transport == crate::plan::Transport::Uet && !plan.is_lossless(f.priority) && trimmed & (1 << f.priority) == 0
    };
    if let Some(f) = plan.flows.iter().find(untrimmed).filter(|_| plan.fabric.uet.loss_threshold.is_none()) {
        out.push(format!(
            "traffic[{}].priority: UET flows on lossy priority {} without [fabric.trimming]: UET NAKs no gap, so a packet the fabric drops waits for host.rto ({}) unless host.uet.loss_threshold is set",
            f.group, f.priority, plan.host.rto
        ));
    }
    let per_flow = plan.fabric.load_balancing.as_ref().is_none_or(|p| p.mode == Mode::Ecmp && p.rules.iter().all(|r| r.mode == Mode::Ecmp));
    if per_flow {
        let routing = crate::models::load_balancing::routing_of(plan);
        let choice = plan
            .nodes
            .iter()
            .enumerate()
            .any(|(k, n)| n.kind == crate::plan::NodeKind::Switch && routing.multipath(crate::ids::NodeId(k as u32)));
        if choice {
            out.push(format!(
                "fabric.load_balancing.mode: transport = \"uet\" (traffic[{}]) puts an entropy value on each packet, but every switch hashes per flow (ecmp), so each flow keeps one path; set mode = \"entropy\" to spray it",
                first.group
            ));
        }
    }
}

/// NSCC (UET's congestion control, used with any transport) with ACKs held for several
/// packets: a window-limited sender whose window is below `ack_every` packets waits for
/// the retransmission timer, the receiver holding its ACK for packets that cannot come.
fn nscc_ack_every(p: &crate::plan::Plan, out: &mut Vec<String>) {
    if p.host.ack_every > 1 && p.ccs.iter().any(|c| matches!(c, crate::models::CcPlan::Nscc(_))) {
        out.push(format!(
            "host.ack_every: {} with NSCC: a window below {} packets stalls until the retransmission timer (the receiver holds its ACK); use 1",
            p.host.ack_every, p.host.ack_every
        ));
    }
}
