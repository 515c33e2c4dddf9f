//! What a run records for its outputs beyond the flows' own statistics: latency
//! histograms, queue samples, goodput bins, rate and window traces, per-class bins and
//! the fabric's per-flow drop count. Kept apart from the state the per-packet path
//! works on; `output.rs` turns it into tables and `parallel/merge.rs` adds partitions up.

use crate::net::capped_log::CappedLog;
use crate::net::rate_rows::RateRows;
use crate::net::stats::{GoodputRow, Histogram, Samples};
use crate::plan::Plan;
use crate::units::{Rate, SimTime};

pub(crate) struct Records {
    /// Data frames' one-way latency.
    pub latency: Histogram,
    /// Completion times of messages (post to last ACK).
    pub msg_latency: Histogram,
    /// The same, with their flows (the flows table's per-flow figures).
    pub msg_lats: crate::sim::flow::MsgLats,
    /// Queue samples (`stats.sample_interval`), and those past `stats.max_rows`.
    pub samples: Samples,
    pub samples_dropped: u64,
    pub goodput: CappedLog<Vec<GoodputRow>>,
    /// Rate changes of queue pairs: (time, flow, rate).
    pub rate_log: CappedLog<RateRows>,
    /// `stats.trace_flows`: (time, flow, window bytes or u64::MAX for none, rate), and the
    /// last traced (window, rate) per flow (empty when nothing is traced).
    pub cc_trace: CappedLog<Vec<(SimTime, u32, u64, Rate)>>,
    pub cc_trace_last: Vec<(u64, Rate)>,
    /// `stats.class_interval`: payload bytes delivered in order per bin and priority,
    /// and the bytes past the last bin kept.
    pub class_bins: Vec<[u64; 8]>,
    pub class_dropped: u64,
    /// Data packets of each flow dropped by switches (a fabric-side count, for the
    /// conservation check; switches do not touch the flows' host-side records).
    pub drops_by_flow: Vec<u64>,
    /// When the loop next records the queues (`stats.sample_interval`) and storage's
    /// next KPI row (`SimTime::MAX`: never).
    pub next_sample: SimTime,
    pub io_next: SimTime,
}

impl Records {
    pub fn new(plan: &Plan) -> Self {
        let st = &plan.stats;
        Records {
            latency: Histogram::default(),
            msg_latency: Histogram::default(),
            msg_lats: Default::default(),
            samples: Default::default(),
            samples_dropped: 0,
            goodput: CappedLog::new(st.max_rows),
            rate_log: CappedLog::of(RateRows::new(plan.duration, plan.flows.len(), fastest(plan)), st.max_rows),
            cc_trace: CappedLog::new(st.max_rows),
            cc_trace_last: if st.trace_flows.is_empty() { Vec::new() } else { vec![(u64::MAX - 1, Rate(0)); plan.flows.len()] },
            class_bins: match st.class_interval {
                Some(iv) => vec![[0; 8]; ((plan.duration.0 / iv.0.max(1)) as usize + 1).min((st.max_rows / 8).max(1) as usize)],
                None => Vec::new(),
            },
            class_dropped: 0,
            drops_by_flow: vec![0; plan.flows.len()],
            next_sample: if st.sample_interval.is_some_and(|iv| iv.0 > 0) { SimTime::ZERO } else { SimTime::MAX },
            io_next: SimTime::MAX,
        }
    }
}

/// The fastest rate a queue pair can be paced at: its NIC's line rate, a link's rate.
fn fastest(plan: &Plan) -> Rate {
    plan.links.iter().map(|l| l.rate).chain(plan.switch.rate_schedule.iter().map(|s| s.rate)).max().unwrap_or(Rate(1))
}
