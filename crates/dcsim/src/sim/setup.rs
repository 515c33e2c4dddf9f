//! What the build decides once from the plan and the models for the handlers to read:
//! which optional paths a run takes, and a few derived constants.

use crate::units::SimTime;

pub(crate) struct Setup {
    /// Priorities some flow or some model's frames use (bit per priority): the rows of
    /// the ports table. The state of a (port, priority) may cover more
    /// (`Fabric::slots`).
    pub used_prios: u8,
    /// A frame of a lossy priority that would take a switch egress queue above this many
    /// bytes goes to the models' `overflow` hooks, else is dropped (`switch.egress_limit`,
    /// or a model's lower `egress_limit`).
    pub egress_limit: Option<u64>,
    /// A switch's processing delay before a frame joins its egress queue.
    pub processing_delay: SimTime,
    /// Some model acts on each data frame a switch queues (ECN marking or detection,
    /// 802.1Qau congestion points, remote PFC, NetworkCC): one test per frame for all.
    pub enqueue_hooks: bool,
    /// Some model acts on each frame leaving a switch egress (ECN marking at dequeue).
    pub dequeue_hooks: bool,
    /// Which hooks on a frame's way through a switch some model acts on (routing, control
    /// frames, drops before the buffer, offered load, frames without room).
    pub switch_hooks: crate::models::fabric_model::SwitchHooks,
    /// Which hooks on a data frame's sender some model acts on (what its frames carry,
    /// a queue of packets to resend).
    pub sender_hooks: crate::models::fabric_model::SenderHooks,
    /// Which host and port hooks some model acts on (frames reaching hosts, data frames
    /// started, freed and lost, marked packets; whether switches send XOFF).
    pub port_hooks: crate::models::fabric_model::PortHooks,
    /// RoCE senders arm their retransmission timer on lossless priorities too (a run
    /// with link failures loses frames there).
    pub rto_lossless: bool,
    /// Prefetch the per-port records of the events due soon too (large fabrics:
    /// `prefetch.rs`), not only their frames.
    pub prefetch_ports: bool,
    /// Transmitters with nothing queued behind a frame schedule no `TxDone` (`tx_busy`);
    /// off with link failures, whose down ports are flushed when a frame ends.
    pub quiet_tx: bool,
    /// Quiet timer expiries are held back (`CongestionControl::quiet_timer`); off, every
    /// expiry is an event (the same results, more events).
    pub hold_quiet: bool,
    /// Key of the random draws handed to congestion-control hooks (with flow and hook).
    pub cc_key: u64,
    /// The scenario's name and seed (the summary's).
    pub name: String,
    pub seed: u64,
    /// Service-rate changes: (port, new rate), scheduled as `PortRate(index)`.
    pub rate_schedule: Vec<(crate::ids::PortId, crate::units::Rate)>,
}
