//! Every model of flow control and congestion management, one folder each, holding its
//! parameters, its switch side, its NIC side, its scenario keys and its tests:
//!
//! | folder        | switch side                          | NIC side                       |
//! |---------------|--------------------------------------|--------------------------------|
//! | `pfc/`        | PFC / PAUSE frames, headroom         | pausing the transmitter        |
//! | `ecn/`        | ECN marking, congestion detection    | CNP generation (RoCEv2 NP)     |
//! | `rcm/`        | detection rules 1a / 1b              | linear inter-packet delay      |
//! | `dcqcn/`      | (ECN marking)                        | DCQCN reaction point           |
//! | `dctcp/`      | (ECN step marking)                   | DCTCP window / NIC rate form   |
//! | `timely/`     |                                      | TIMELY, RTT gradient           |
//! | `swift/`      |                                      | Swift fabric/endpoint windows  |
//! | `hpcc/`       | INT hop records at egress            | HPCC window/rate from INT      |
//! | `tcp/`        | (drop-tail, ECN marking)             | TCP sender/receiver, SACK, RTO |
//! | `newreno/`    |                                      | NewReno window                 |
//! | `cubic/`      |                                      | CUBIC window                   |
//! | `bbr/`        |                                      | BBR v1 pacing rate and window  |
//! | `qcn/`        | QCN congestion point                 | QCN reaction point             |
//! | `bcn/`        | BCN congestion point                 | BCN rate regulator             |
//! | `fecn/`       | FECN / E-FECN rate allocation        | FECN source, probes            |
//! | `network_cc/` | RCP rate, notifications with rate    | explicit rate, DCQCN recovery  |
//! | `nscc/`       | (ECN marking)                        | UET NSCC window, ECN and delay |
//! | `fixed_rate/` |                                      | line rate, constant rate       |
//! | `remote_pfc/` | threshold check, message; ToR pause  | (standard PFC, as `pfc/`)      |
//! | `rx_buffer/`  | (pauses from the NIC, as `pfc/`)     | receive buffer, slow receiver  |
//! | `trimming/`   | cut to header instead of a drop      | (NAK per header: `sim/`)       |
//! | `external/`   |                                      | hooks written in Python        |
//!
//! The contract between a sender and the network is `reaction.rs` (the hooks a reaction
//! point gets, `Feedback`) and the frames that carry it (`net/packet.rs`); `l2cm.rs`
//! sends and delivers the 802.1Qau family's feedback frames. A switch never reads or
//! writes a sender's state: what it learns about a sender travels in the sender's frames.
//!
//! The two lists below are the only places that name every algorithm: each line
//! generates the plan variant, the run-time variant with its static dispatch, the
//! `type = "..."` scenario table, its error paths and its checks. A new algorithm is one
//! folder (its type implementing `CongestionControl`, its keys implementing `Keys`, its
//! parameters `Check`) and one line here.
//!
//! The third list, `fabric_models!`, names the switch- and link-side models (and the
//! NIC-side mechanisms that act on frames rather than rates): each line is a field of
//! the world's `FabricModels`, and the model's `FabricModel` impl (in its folder) gives
//! its tables, its summary and its parallel merge.

pub mod bbr;
pub mod bcn;
pub mod cubic;
pub mod dcqcn;
pub mod dctcp;
pub mod ecn;
#[cfg(test)]
mod every_nth;
#[cfg(test)]
mod example;
pub mod external;
pub(crate) mod fabric_model;
pub mod fecn;
pub mod fixed_rate;
pub mod hpcc;
pub mod ib_credits;
pub mod l2cm;
pub mod link_failure;
pub mod load_balancing;
pub mod network_cc;
pub mod newreno;
pub mod nic_timing;
pub mod nscc;
pub mod param_tables;
pub mod pfc;
pub mod qcn;
pub mod rcm;
mod reaction;
pub mod remote_pfc;
pub mod rx_buffer;
pub mod swift;
pub mod tcp;
pub mod timely;
pub mod trimming;
pub mod uet;
pub mod window_cap;
#[macro_use]
mod registry;

pub use reaction::{Ack, CcCtx, CongestionControl, Feedback, Loss, LossKind, NicSpec, TimerKind};

reaction_points! {
    /// PFC only: send at line rate.
    None = "none" => fixed_rate::LineRate, fixed_rate::NoKeys;
    /// A constant pacing rate.
    FixedRate = "fixed_rate" => fixed_rate::FixedRate, fixed_rate::FixedRateKeys;
    /// The seed OMNeT++ study's linear inter-packet-delay scheme.
    RcmLinear = "rcm_linear" => rcm::RcmLinear, rcm::RcmLinearKeys;
    /// DCQCN (paper or Mellanox variant).
    Dcqcn = "dcqcn" => dcqcn::Dcqcn, dcqcn::DcqcnKeys;
    /// IEEE 802.1Qau QCN reaction point.
    Qcn = "qcn" => qcn::Qcn, qcn::QcnKeys;
    /// BCN rate regulator.
    Bcn = "bcn" => bcn::Bcn, bcn::BcnKeys;
    /// FECN source: probes and takes the advertised rate.
    Fecn = "fecn" => fecn::Fecn, fecn::FecnKeys;
    /// DCTCP, window form (RFC 8257).
    Dctcp = "dctcp" => dctcp::Dctcp, dctcp::DctcpKeys;
    /// DCTCP, NIC rate form (HPCC simulator `CC_MODE 8`).
    DctcpRate = "dctcp_rate" => dctcp::DctcpRate, dctcp::DctcpRateKeys;
    /// TIMELY, RTT-gradient rate control (HPCC simulator form).
    Timely = "timely" => timely::Timely, timely::TimelyKeys;
    /// Swift: delay-based window with fabric and endpoint targets.
    Swift = "swift" => swift::Swift, swift::SwiftKeys;
    /// HPCC: rate and window from the INT records switches stamp (HPCC simulator form).
    Hpcc = "hpcc" => hpcc::Hpcc, hpcc::HpccKeys;
    /// E-FECN source: FECN that also reacts to BCN00.
    Efecn = "efecn" => fecn::Fecn, fecn::EfecnKeys;
    /// Written in Python: a `dcsim.CongestionControl` subclass bound by the Python API.
    External = "python" => external::External, external::ExternalKeys;
    /// TCP NewReno window (RFC 5681, RFC 6582).
    NewReno = "newreno" => newreno::NewReno, newreno::NewRenoKeys;
    /// CUBIC window (RFC 9438).
    Cubic = "cubic" => cubic::Cubic, cubic::CubicKeys;
    /// BBR v1: pacing rate and window from the bottleneck bandwidth and RTprop.
    Bbr = "bbr" => bbr::Bbr, bbr::BbrKeys;
    /// NetworkCC: takes the rate switches send it, recovers as DCQCN.
    NetworkCc = "network_cc" => network_cc::NetworkCc, network_cc::NetworkCcKeys;
    /// NSCC: the Ultra Ethernet transport's window from ECN and delay (UEC 1.0).
    Nscc = "nscc" => nscc::Nscc, nscc::NsccKeys;
    /// The worked example of "How to add a model" (unit tests only).
    #[cfg(test)]
    ExampleHalving = "example_halving" => example::Halving, example::HalvingKeys;
}

congestion_points! {
    /// QCN: sampled queues send CNMs with quantized feedback to the sources.
    Qcn = "qcn" => qcn::QcnCpKeys;
    /// BCN: sampled queues send signed feedback (and BCN00) to the sources.
    Bcn = "bcn" => bcn::BcnCpKeys;
    /// FECN: ports advertise a rate that probes collect.
    Fecn = "fecn" => fecn::FecnSwitchKeys;
    /// E-FECN: FECN, plus BCN00 and the minimum rate under severe congestion.
    Efecn = "efecn" => fecn::EfecnSwitchKeys;
}

impl L2Cm {
    /// FECN or E-FECN port parameters, if either runs.
    pub fn fecn(&self) -> Option<&fecn::FecnSwitchParams> {
        match self {
            L2Cm::Fecn(p) | L2Cm::Efecn(p) => Some(p),
            _ => None,
        }
    }
}

fabric_models! {
    /// PFC / 802.3x PAUSE: frames, refresh, pause expiry, the event log (`pfc/frames.rs`).
    pfc: pfc::Pfc = pfc::keys::PfcKeys => "switch.pfc",
    /// ECN marking and congestion detection (`ecn/marking.rs`).
    marking: ecn::marking::Marking = ecn::MarkingKeys => "switch",
    /// RoCEv2 notification points: CNPs for marked packets (`ecn/cnp.rs`).
    cnp: ecn::cnp::NotificationPoints = crate::keys::OrDefault<ecn::keys::CnpKeys> => "host.cnp",
    /// 802.1Qau-family congestion points: QCN, BCN, FECN, E-FECN (`l2cm.rs`).
    l2: l2cm::L2State,
    /// Remote PFC: congestion points and source ToRs (`remote_pfc/`).
    rpfc: remote_pfc::RemotePfc = crate::keys::OrDefault<remote_pfc::keys::RemotePfcKeys> => "switch.remote_pfc",
    /// InfiniBand credit-based link flow control (`ib_credits/`).
    ib: ib_credits::IbCredits,
    /// NetworkCC congestion points (`network_cc/switch.rs`).
    netcc: network_cc::switch::NetCcState = Option<network_cc::NetworkCcSwitchKeys> => "switch.network_cc",
    /// NIC receive buffers (`rx_buffer/`).
    rx: rx_buffer::RxBuffers = Option<rx_buffer::keys::RxBufferKeys> => "host.rx_buffer",
    /// Link failures and routing convergence (`link_failure/`).
    link_faults: link_failure::LinkFaults = link_failure::LinkFailureKeys => "switch",
    /// Injected pause storms (`pfc/storm.rs`).
    pause_storms: pfc::storm::PauseStorms = pfc::PauseStormKeys => "host",
    /// The PFC watchdog (`pfc/watchdog.rs`).
    pfc_watchdog: pfc::watchdog::PfcWatchdog,
    /// Cyclic-pause (deadlock) detection (`pfc/deadlock.rs`).
    deadlocks: pfc::deadlock::DeadlockDetector,
    /// Packet trimming: full queues cut data frames to headers (`trimming/`).
    trimming: trimming::Trimming = Option<trimming::keys::TrimmingKeys>,
    /// Load balancing at switches: spraying, flowlets, adaptive, entropy (`load_balancing/`).
    load_balancing: load_balancing::LoadBalancing = Option<load_balancing::LoadBalancingKeys>,
    /// The Ultra Ethernet transport's checks and warnings (`uet/checks.rs`).
    uet: uet::Uet = crate::keys::OrDefault<uet::UetKeys> => "host.uet",
    /// FECN's probes between a flow's hosts (`fecn/probes.rs`).
    fecn_probes: fecn::probes::FecnProbes,
    /// The worked example of "How to add a fabric model" (unit tests only).
    #[cfg(test)]
    every_nth: every_nth::EveryNth = Option<every_nth::EveryNthKeys>,
}
