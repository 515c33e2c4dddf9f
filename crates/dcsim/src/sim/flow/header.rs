//! What every frame of a flow says about it: fixed for the run (but for a storage queue
//! pair's message size).

use std::num::NonZeroU64;

use crate::ids::NodeId;
use crate::units::{Rate, SimTime};

/// The fixed description of a flow. Switches may read it: it is what the headers of the
/// flow's frames carry (addresses, class), stored once per flow instead of per packet.
/// One cache line each: every packet sent, received and acknowledged reads it, and with
/// thousands of flows active at once it is a miss that should not be two.
#[repr(align(64))]
pub(crate) struct FlowHeader {
    pub src: NodeId,
    pub dst: NodeId,
    pub prio: u8,
    /// Index of the `[[traffic]]` entry that produced it.
    pub group: u32,
    pub start: SimTime,
    /// Payload bytes per message (u64::MAX: long-lived).
    pub size: u64,
    /// Packets per message (u32::MAX: long-lived); packets are numbered across messages.
    pub npkts: u32,
    pub last_payload: u32,
    /// UDP: constant bit rate, no ACKs, no retransmission.
    pub udp: bool,
    /// Its priority is not protected by PFC/PAUSE.
    pub lossy: bool,
    /// Its data frames carry an INT header (HPCC): switches stamp it, the receiver ACKs
    /// every packet and echoes the stack.
    pub int: bool,
    /// TCP: index of its sender and receiver state in `tcp_tx` / `tcp_rx` (`NO_TCP`:
    /// another transport).
    pub tcp: u32,
    /// UET: index of its state in `uet_tx` / `uet_rx` (`NO_UET`: another transport).
    pub uet: u32,
    /// Storage: the I/O slot the queue pair belongs to (`NO_IO`: none). Its messages'
    /// size (`size`, `npkts`, `last_payload`) changes per I/O (`sim/storage.rs`).
    pub io: u32,
    /// A job's queue pair (`collectives/world.rs`; `NO_COLL`: none): its chunks are
    /// posted as their dependencies are met, and their arrivals are counted.
    pub coll: u32,
}

const _: () = assert!(std::mem::size_of::<FlowHeader>() == 64);

/// `FlowHeader::tcp` of a flow that is not TCP.
pub(crate) const NO_TCP: u32 = u32::MAX;
/// `FlowHeader::uet` of a flow that is not UET.
pub(crate) const NO_UET: u32 = u32::MAX;

/// What creating a flow's records at its start takes: per flow its static description,
/// the congestion controls' plans and the fabric's base RTT (a reaction point's input).
pub(crate) struct FlowMaking {
    pub init: super::PerFlow<FlowInit>,
    pub cc_plans: Vec<crate::models::CcPlan>,
    pub base_rtt: SimTime,
}

/// The static description of a flow that is not in its header: what its queue pair,
/// reaction point and statistics row are made of when it starts.
#[derive(Clone, Copy)]
pub(crate) struct FlowInit {
    /// The traffic entry's `rate` (never 0: validated), in 8 bytes (`rate()`).
    pub rate: Option<NonZeroU64>,
    pub messages: u32,
    /// Index in `FlowMaking::cc_plans` (`EAGER`: the sender was made at build time and
    /// lives for the whole run).
    pub cc: u32,
    /// Its FCT alone in the empty fabric (the flows table's `ideal_fct_ps`).
    pub ideal_fct: SimTime,
}

// 24 B: every partition holds one for every flow of the run.
const _: () = assert!(std::mem::size_of::<FlowInit>() == 24);

impl FlowInit {
    pub fn rate(&self) -> Option<Rate> {
        self.rate.map(|r| Rate(r.get()))
    }
}

/// `FlowInit::cc` of a flow whose records (sender, receiver, statistics) are all made at
/// build time, in every partition: one with state outside the queue pair that events may
/// still reach after it finishes (TCP, UET, storage, jobs, software limiter, stop time,
/// a fabric model's frames (`FabricModel::eager_senders`), windowed or traced congestion
/// control, UDP, an external algorithm) or in a run with fast-forward.
pub(crate) const EAGER: u32 = u32::MAX;
