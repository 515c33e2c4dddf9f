//! A node and its ports: one end of a full-duplex link with its transmitter and pause
//! state. Every model that acts on the fabric reads and writes these.

use std::ops::Range;

use crate::ids::{NodeId, PortId};
use crate::net::packet::PktFifo;
use crate::units::{LinkRate, Rate, SimTime};

pub struct Node {
    pub name: String,
    pub is_host: bool,
    pub ports: Range<u32>,
}

/// A transmitter's state (`Simulation::tx_busy`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Tx {
    Idle,
    /// Sending a frame until `Port::tx_until`; its `TxDone` event is scheduled.
    Busy,
    /// Sending a frame until `Port::tx_until` with nothing queued behind it when it
    /// started, so no `TxDone` was scheduled: it is scheduled if work comes before then.
    BusyQuiet,
}

/// One end of a full-duplex link: a transmitter toward `peer` and its pause state.
/// The fields every hop reads or writes fill its first cache line; the per-priority
/// pause state, touched by PFC frames only, follows on the next lines.
#[repr(C, align(64))]
pub struct Port {
    pub node: NodeId,
    pub peer: PortId,
    /// Index of this port within its node (a switch has at most 65,536 ports).
    pub local: u16,
    /// The port is a host's NIC port (its node's kind, read by every arrival and kick
    /// from the port's own line).
    pub host: bool,
    pub tx: Tx,
    /// Priorities this transmitter may not send (paused by the peer), bit per priority.
    pub paused: u8,
    /// The link is down (`models/link_failure`): nothing is sent, arrivals are lost.
    pub down: bool,
    /// The peer belongs to another partition of a parallel run: frames go to the outbox.
    pub remote: bool,
    pub line: LinkRate,
    pub delay: SimTime,
    /// Control frames (PFC, ACK, NAK): served before any data, never paused.
    pub ctrl: PktFifo,
    /// When the frame being sent ends (`tx` busy).
    pub tx_until: SimTime,
    /// Bytes of control frames (PFC, ACK, NAK, CNP, ...) this transmitter sent: half a
    /// fabric's frames are ACKs, so the count lives in the line each frame touches.
    pub ctrl_bytes: u64,
    /// Wire bytes (frames + preamble/gap) this transmitter put on its link: HPCC's INT
    /// reads it, every frame adds to it, so it lives in the line each frame touches.
    pub wire_bytes: u64,
    /// When the link last came back up (zero: never failed); frames that left before
    /// are lost.
    pub up_at: SimTime,
    pub pause_gen: [u32; 8],
    pub paused_since: [SimTime; 8],
}

const _: () = assert!(std::mem::offset_of!(Port, wire_bytes) == 56);

impl Port {
    /// The link's rate from this end.
    #[inline]
    pub fn rate(&self) -> Rate {
        self.line.rate()
    }
}
