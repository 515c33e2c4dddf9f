//! The resolved remote-PFC parameters (remote-pfc.md 8.4) and their defaults.

use crate::units::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct RemotePfcPlan {
    /// Off by default: no switch checks the threshold and no message exists.
    pub enabled: bool,
    /// Queue length (bytes) above which a lossless egress queue sends messages; `None`:
    /// 2 x Kmax of the port's ECN marker (seed 001: "remote PFC threshold = 2 * kmax").
    pub threshold: Option<u64>,
    /// Queue length (bytes) the pause lets the queue drain to; `None`: Kmin of the
    /// port's ECN marker.
    pub target: Option<u64>,
    /// At most one message per (congested queue, source host) per this time.
    pub min_gap: SimTime,
    /// Bounds of the pause duration, in pause quanta (512 bit times) of the congested port.
    pub min_quanta: u32,
    pub max_quanta: u32,
    /// Size of the message frame on the wire (without preamble and gap).
    pub message_bytes: u32,
}

impl Default for RemotePfcPlan {
    fn default() -> Self {
        RemotePfcPlan {
            enabled: false,
            threshold: None,
            target: None,
            min_gap: SimTime::us(10),
            min_quanta: 1,
            max_quanta: 65535,
            message_bytes: 64,
        }
    }
}
