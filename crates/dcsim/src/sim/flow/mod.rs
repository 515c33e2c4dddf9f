//! The records of one flow, split by owner: what every frame of the flow says about it
//! (`FlowHeader`, header.rs), the sending queue pair (`Sender`, sender.rs, written only by
//! the source NIC), the receiver (`Receiver`, receiver.rs, written only by the
//! destination NIC) and what is counted about it (`FlowStats`, stats.rs, never read by
//! the model). Those of most flows live in slots (slots.rs): the sender's from the
//! flow's start to its finish, the receiver and the statistics from the flow's start or
//! first arrival, each in the partition whose host it is.

mod header;
mod receiver;
mod sender;
mod shared;
mod slots;
mod stats;

pub(crate) use header::{FlowHeader, FlowInit, FlowMaking, EAGER, NO_TCP, NO_UET};
pub(crate) use receiver::Receiver;
pub(crate) use sender::{CcTimers, QpState, Sender};
pub(crate) use shared::PerFlow;
pub(crate) use slots::FlowSlots;
pub(crate) use stats::{FlowStats, MsgLats};
