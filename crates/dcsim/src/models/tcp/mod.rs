//! TCP as a byte stream cut into MSS segments (`transport = "tcp"`): the sender with its
//! SACK scoreboard, RFC 6675 loss recovery and RFC 6298 retransmission timer
//! (`sender.rs`, `sack.rs`, `rto.rs`), the receiver with cumulative ACKs, one SACK block,
//! optional delayed ACKs and the ECN echo (`receiver.rs`); the host NIC drives them
//! (`sim/tcp.rs`: what it does with a TCP flow's frames and timers). The window
//! policy is the flow's congestion control (`newreno/`, `cubic/`, `dctcp/`, `bbr/`), told about
//! ACKs (`on_ack`) and losses (`on_loss`); the transport owns the recovery mechanics.
//! There is no switch side of its own: TCP runs on a lossy priority (drop-tail in the
//! MMU) with ECN marking where configured. ../shared/models/tcp-and-scheduling.md 11.1.
//!
//! Segments are numbered like the packets of a RoCE flow (messages of `size` bytes cut
//! at the MSS = `host.mtu`, numbered across messages), so sequence numbers count
//! segments, not bytes; byte counts (`newly_acked`, `flight`) are exact.

mod keys;
pub mod receiver;
pub mod rto;
pub mod sack;
pub mod sender;

pub use keys::TcpKeys;

use crate::units::SimTime;

/// Resolved `[host.tcp]` parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    /// Lower bound of the RTO (RFC 6298: 1 s; datacenter setting here: 1 ms).
    pub min_rto: SimTime,
    /// RTO before the first RTT sample (RFC 6298: 1 s; datacenter setting here: 10 ms).
    pub initial_rto: SimTime,
    /// Upper bound of the RTO (RFC 6298: at least 60 s).
    pub max_rto: SimTime,
    /// Clock granularity G of the RTO formula.
    pub granularity: SimTime,
    /// Delayed ACKs: one ACK per this many in-order segments (1: every segment, off).
    pub delayed_ack: u32,
    /// Delayed ACKs: the longest an ACK is held.
    pub delayed_ack_timeout: SimTime,
    /// SACKed segments above a hole that start fast retransmit (DupThresh).
    pub dupthresh: u32,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            min_rto: SimTime::ms(1),
            initial_rto: SimTime::ms(10),
            max_rto: SimTime::ms(60_000),
            granularity: SimTime::us(1),
            delayed_ack: 1,
            delayed_ack_timeout: SimTime::ms(200),
            dupthresh: 3,
        }
    }
}
