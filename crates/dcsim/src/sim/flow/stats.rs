//! What is counted about a flow for the flows table (never read by the model).

use crate::ids::FlowId;
use crate::net::column_sort::{sort_rows, Columns};
use crate::units::{Rate, SimTime, When};

/// What the destination counts about a flow (the flows table; the model never reads
/// it): a row in the destination's partition, made at the flow's first arrival there.
/// Its first cache line is written for every data frame, its second now and then.
/// With `TxStats`, the source's, each partition of a parallel run holds the rows of its
/// own hosts' ends only.
#[derive(Default)]
#[repr(C, align(64))]
pub(crate) struct RxStats {
    // Every data frame.
    pub pkts_rx: u64,
    /// Arrival of the last data frame (with `first_arrival`, meaningful once `pkts_rx`
    /// is not 0): the inter-packet gaps add up to `last_arrival - first_arrival`.
    pub last_arrival: SimTime,
    pub lat_sum: u128,
    pub lat_max: u64,
    pub delivered: u64,
    pub last_rx: SimTime,
    pub steady_bytes: u64,
    // Now and then.
    pub first_arrival: SimTime,
    pub bin: u64,
    pub bin_bytes: u64,
    pub marked_rx: u64,
    pub cnps_sent: u64,
    /// A UDP flow's completion: its last packet received (unless its source stopped
    /// first, `TxStats::finish`).
    pub finish: When,
    pub msgs_done: u32,
}

const _: () = assert!(std::mem::offset_of!(RxStats, first_arrival) == 64 && std::mem::size_of::<RxStats>() == 128);

/// What the source counts about a flow (the flows table; the model never reads it): a
/// row in the source's partition, made when the flow starts. `pkts_sent` and
/// `pkts_limited` are written for every frame sent.
#[derive(Default)]
pub(crate) struct TxStats {
    pub pkts_sent: u64,
    pub pkts_limited: u64,
    pub retransmits: u64,
    pub cnps_rx: u64,
    /// Feedback frames (QCN, BCN) and FECN probe replies received.
    pub feedback_rx: u64,
    pub min_rate: Rate,
    pub limited_ps: u64,
    pub limited_since: When,
    /// Completion: the last message acknowledged (RoCE) or the source stopped.
    pub finish: When,
    pub msgs_done: u32,
}

const _: () = assert!(std::mem::size_of::<TxStats>() == 80);

/// A flow's completion from its two rows: the earlier end's (one world sets only one;
/// the partitions of a parallel run may each see theirs).
pub(crate) fn finish_of(tx: Option<&TxStats>, rx: Option<&RxStats>) -> Option<SimTime> {
    match (tx.and_then(|t| t.finish.get()), rx.and_then(|r| r.finish.get())) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Every completed message's latency (ps) with its flow, for the flows table's
/// per-flow mean and percentiles: a row per message, so it grows with completions,
/// never with packets.
#[derive(Default)]
pub(crate) struct MsgLats {
    flow: Vec<u32>,
    lat: Vec<u64>,
}

impl MsgLats {
    #[inline]
    pub fn push(&mut self, f: FlowId, lat: u64) {
        self.flow.push(f.0);
        self.lat.push(lat);
    }

    /// Moves another partition's rows here (a parallel run's merge).
    pub fn append(&mut self, mut o: MsgLats) {
        self.flow.append(&mut o.flow);
        self.lat.append(&mut o.lat);
    }

    /// Orders the rows by flow, then latency (the end of the run).
    pub fn sort(&mut self) {
        sort_rows(self, |m, i| (m.flow[i], m.lat[i]));
    }

    /// Each of `flows` flows' message latencies, in ascending order once sorted.
    pub fn by_flow(&self, flows: usize) -> Vec<&[u64]> {
        let mut out = Vec::with_capacity(flows);
        let mut at = 0;
        for f in 0..flows as u32 {
            let from = at;
            while at < self.flow.len() && self.flow[at] == f {
                at += 1;
            }
            out.push(&self.lat[from..at]);
        }
        out
    }
}

impl Columns for MsgLats {
    type Row = (u32, u64);
    fn len(&self) -> usize {
        self.flow.len()
    }
    fn row(&self, i: usize) -> Self::Row {
        (self.flow[i], self.lat[i])
    }
    fn set(&mut self, i: usize, row: Self::Row) {
        (self.flow[i], self.lat[i]) = row;
    }
}
impl RxStats {
    /// The sum of the gaps between consecutive data frames' arrivals (ps).
    pub fn ipi_sum(&self) -> u64 {
        if self.pkts_rx == 0 {
            0
        } else {
            (self.last_arrival - self.first_arrival).0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_is_an_optional_time() {
        let mut w = When::default();
        assert!(w.is_none() && w.get().is_none() && w.take().is_none());
        w.set(SimTime::ZERO);
        assert_eq!(w.get(), Some(SimTime::ZERO));
        assert_eq!(When::default().or(w), w);
        assert_eq!(w.take(), Some(SimTime::ZERO));
        assert!(w.is_none());
    }

    /// Each flow's latencies, in ascending order, whatever order the rows came in (a
    /// parallel run appends its partitions' rows); a flow without a message has none.
    #[test]
    fn message_latencies_are_grouped_by_flow() {
        let mut m = MsgLats::default();
        for (f, lat) in [(2, 30), (0, 5), (2, 10), (3, 7)] {
            m.push(FlowId(f), lat);
        }
        let mut o = MsgLats::default();
        o.push(FlowId(0), 1);
        m.append(o);
        m.sort();
        let want: [&[u64]; 5] = [&[1, 5], &[], &[10, 30], &[7], &[]];
        assert_eq!(m.by_flow(5), want);
    }
}
