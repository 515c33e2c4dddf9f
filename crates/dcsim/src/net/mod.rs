//! The packet model: packets, ports and their queues, the switch buffer (MMU) with PFC,
//! routing, host NICs with queue pairs, and the statistics they keep.

pub mod bcn;
pub mod congestion;
pub mod ecn;
pub mod fecn;
pub mod mmu;
pub mod packet;
pub mod pfc;
pub mod qcn;
pub mod queue;
pub mod routing;
pub mod stats;
