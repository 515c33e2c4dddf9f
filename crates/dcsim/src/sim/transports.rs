//! The state of the transports other than RoCE's queue pairs, per flow of that
//! transport (`FlowHeader::tcp` / `FlowHeader::uet` index it): the sender's side,
//! written only by the source NIC, and the receiver's, only by the destination.

use crate::models::tcp::receiver::TcpReceiver;
use crate::models::tcp::sender::TcpSender;
use crate::models::uet::{CreditPacer, UetParams, UetRx, UetTx};

pub(crate) struct Transports {
    pub tcp_tx: Vec<TcpSender>,
    pub tcp_rx: Vec<TcpReceiver>,
    pub uet_tx: Vec<UetTx>,
    pub uet_rx: Vec<UetRx>,
    /// With RCCC, each host's credit pacer (by node; empty without).
    pub pacers: Vec<CreditPacer>,
    pub uet: UetParams,
}
