//! The records of one flow, split by owner: what every frame of the flow says about it
//! (`FlowHeader`, header.rs), the sending queue pair (`Sender`, sender.rs, written only by
//! the source NIC), the receiver (`Receiver`, receiver.rs, written only by the
//! destination NIC) and what is counted about it (`FlowStats`, stats.rs, never read by
//! the model). The sender's records live in slots (slots.rs) from the flow's start to
//! its finish.

mod header;
mod receiver;
mod sender;
mod slots;
mod stats;

pub(crate) use header::{FlowHeader, NO_TCP, NO_UET};
pub(crate) use receiver::Receiver;
pub(crate) use sender::{CcTimers, QpState, Sender, SenderInit, EAGER};
pub(crate) use slots::FlowSlots;
pub(crate) use stats::FlowStats;
