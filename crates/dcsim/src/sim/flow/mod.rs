//! The records of one flow, split by owner: what every frame of the flow says about it
//! (`FlowHeader`, header.rs), the sending queue pair (`Sender`, sender.rs, written only by
//! the source NIC), the receiver (`Receiver`, receiver.rs, written only by the
//! destination NIC) and what each end counts about it (`TxStats`, `RxStats`, stats.rs,
//! never read by the model). Those of most flows live in slots (slots.rs): the sender's
//! from the flow's start to its finish, the source's statistics from its start, the
//! receiver and the destination's statistics from its first arrival, each in the
//! partition whose host it is.

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
pub(crate) use stats::{finish_of, MsgLats, RxStats, TxStats};
