//! The fabric: packets, egress queues and their schedulers, the switch buffer (MMU) with
//! its PFC thresholds, routing, and the counters they keep. Models of flow control and
//! congestion management are in `models/`.

pub mod capped_log;
pub(crate) mod column_sort;
pub mod fabric;
pub mod mmu;
pub mod packet;
pub mod pcap;
pub mod port;
pub mod prio_slots;
pub mod queue;
pub mod rate_rows;
pub mod routing;
pub mod spill;
pub mod stats;
pub mod up_down;
