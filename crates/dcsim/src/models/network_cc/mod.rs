//! NetworkCC: switch-originated notifications with rate information
//! (../shared/models/explicit-rate.md 9.3, 9.4; seed 004). A switch egress queue above
//! its threshold sends a CNP-like frame (`PktKind::SwitchCnp`) itself to the source of
//! the data frame that found it so, carrying the rate the port computed for the flow by
//! the RCP rule (`rcp.rs`); the frame travels the fabric in the control class like any
//! other feedback frame. The sender's reaction point (`rp.rs`, `type = "network_cc"`)
//! takes the rate and recovers with DCQCN's increase rules when notifications stop.
//!
//! | file        | side   | what                                                      |
//! |-------------|--------|-----------------------------------------------------------|
//! | `rcp.rs`    | switch | the RCP fair-share rate of one egress queue               |
//! | `switch.rs` | switch | per-queue state, the trigger, the notification frame      |
//! | `rp.rs`     | NIC    | reaction point: explicit rate, then DCQCN recovery        |
//! | `keys.rs`   | both   | `[switch.network_cc]`, `type = "network_cc"`, checks     |

mod keys;
pub mod rcp;
pub mod rp;
pub(crate) mod switch;

pub use keys::{NetworkCcKeys, NetworkCcSwitchKeys};
pub use rcp::{Rcp, RcpParams};
pub use rp::{NetworkCc, NetworkCcParams};

use crate::units::{Rate, SimTime};

/// What a congestion point puts in its notification.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnRule {
    /// The RCP fair-share rate of the port (explicit-rate.md 9.4), the default.
    Rcp,
    /// No rate: the sender treats the notification like a CNP (Fast CNP, 9.2).
    Cnp,
}

/// Which data frames make a congestion point send a notification (`trigger`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnTrigger {
    /// A frame that finds the queue above T_sn (explicit-rate.md 9.3), the default.
    Queue,
    /// That, and any frame while the port's RCP rate is below its line rate: every flow
    /// through a port that limits it hears the port's rate once per interval, as RCP
    /// stamps every packet (9.4), and stops hearing it when the port no longer limits.
    Rate,
}

/// `[switch.network_cc]`, resolved (`SwitchPlan::network_cc`).
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkCcPlan {
    /// Switches (node indices) that send notifications; `None`: every switch.
    pub nodes: Option<Vec<u32>>,
    /// Priorities whose egress queues send notifications (bit per priority).
    pub priorities: u8,
    /// The rule; `None` when the scenario did not name one (then RCP, and it must not
    /// run on a lossy priority: see `Check`).
    pub rule: Option<SnRule>,
    /// T_sn: a data frame that leaves the queue above this (bytes) triggers a
    /// notification; `None`: the port's ECN Kmin.
    pub threshold: Option<u64>,
    pub trigger: SnTrigger,
    /// sn_min_interval: at most one notification per flow per port per interval.
    pub interval: SimTime,
    /// Frame size of a notification (78 B CNP + 20 B option).
    pub frame: u32,
    pub rcp: RcpParams,
}

impl NetworkCcPlan {
    pub fn rule(&self) -> SnRule {
        self.rule.unwrap_or(SnRule::Rcp)
    }
}

impl Default for NetworkCcPlan {
    fn default() -> Self {
        NetworkCcPlan {
            nodes: None,
            priorities: 1 << 3,
            rule: None,
            threshold: None,
            trigger: SnTrigger::Queue,
            interval: SimTime::us(50),
            frame: 98,
            rcp: RcpParams::default(),
        }
    }
}

/// The lowest rate RCP advertises by default (explicit-rate.md 9.4).
pub const RCP_RATE_MIN: Rate = Rate(1_000_000);
