//! What is counted about a flow for the flows table (never read by the model).

use crate::units::{Rate, SimTime};

/// What is counted about a flow (the flows table); the model never reads it. Grouped by
/// who writes it how often, a cache line each: the destination NIC for every data frame;
/// the destination for marks and bins, and the source's rate limits; the source for
/// every frame sent; completion. A frame touches one line of it at each end.
#[derive(Default)]
#[repr(C, align(64))]
pub(crate) struct FlowStats {
    // Destination, every data frame.
    pub pkts_rx: u64,
    /// Arrival of the last data frame (with `first_arrival`, meaningful once `pkts_rx`
    /// is not 0): the inter-packet gaps add up to `last_arrival - first_arrival`.
    pub last_arrival: SimTime,
    pub lat_sum: u128,
    pub lat_max: u64,
    pub delivered: u64,
    pub last_rx: SimTime,
    pub steady_bytes: u64,
    // Destination, now and then; the source's rate limits.
    pub first_arrival: SimTime,
    pub bin: u64,
    pub bin_bytes: u64,
    pub marked_rx: u64,
    pub cnps_sent: u64,
    pub limited_ps: u64,
    pub limited_since: Option<SimTime>,
    // Source, every frame sent; then fixed at the start.
    pub pkts_sent: u64,
    pub pkts_limited: u64,
    pub retransmits: u64,
    pub cnps_rx: u64,
    /// Feedback frames (QCN, BCN) and FECN probe replies received.
    pub feedback_rx: u64,
    pub min_rate: Rate,
    pub ideal_fct: SimTime,
    pub msgs_done: u32,
    // Completion.
    /// Completion: the last message acknowledged (RoCE), the last packet received (UDP)
    /// or the source stopped.
    pub finish: Option<SimTime>,
    pub msg_lat_sum: u128,
    /// Every completed message's latency (ps), for the per-flow percentiles; one entry
    /// per message, so it grows with completions, never with packets.
    pub msg_lats: Vec<u64>,
}

const _: () = assert!(
    std::mem::offset_of!(FlowStats, first_arrival) == 64
        && std::mem::offset_of!(FlowStats, pkts_sent) == 128
        && std::mem::offset_of!(FlowStats, finish) == 192
);

impl FlowStats {
    /// The sum of the gaps between consecutive data frames' arrivals (ps).
    pub fn ipi_sum(&self) -> u64 {
        if self.pkts_rx == 0 {
            0
        } else {
            (self.last_arrival - self.first_arrival).0
        }
    }
}
