//! The resolved ECN marking and congestion-detection settings of a run (ecn.md).

use crate::units::{Rate, SimTime};

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMode {
    Off,
    /// Instantaneous RED-ECN (WRED with ECN): p = Pmax (q - Kmin)/(Kmax - Kmin), 1 above Kmax.
    Red,
    /// DCTCP step: mark when q > Kmin.
    Step,
    /// Classic RED on the averaged queue (EWMA weight wq, gentle).
    RedAvg,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkPoint {
    Enqueue,
    Dequeue,
}

/// ECN thresholds for ports of one link rate.
#[derive(Clone, Debug, PartialEq)]
pub struct EcnSpeedPlan {
    pub rate: Rate,
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

/// ECN marking at switch egress queues (ecn.md).
#[derive(Clone, Debug, PartialEq)]
pub struct EcnPlan {
    pub mode: EcnMode,
    /// Thresholds (bytes); `None` scales the HPCC simulator's defaults with the port rate:
    /// Kmin = 100 KB x C / 25 Gb/s, Kmax = 400 KB x C / 25 Gb/s.
    pub kmin: Option<u64>,
    pub kmax: Option<u64>,
    pub pmax: f64,
    /// EWMA weight of `RedAvg`.
    pub wq: f64,
    pub mark_point: MarkPoint,
    /// Priorities whose queues mark (bit per priority).
    pub priorities: u8,
    /// Per-link-rate thresholds; a port whose rate matches uses them.
    pub by_speed: Vec<EcnSpeedPlan>,
}

/// The congestion-detection rule of switches.
#[derive(Clone, Debug, PartialEq)]
pub enum Detection {
    /// The ECN marker above decides packet by packet; `root_only` skips queues whose
    /// port is paused by PFC (infiniband.md 2.2, ecn_mark_scope).
    Ecn { root_only: bool },
    /// Seed 000 rule 1a (InfiniBand): an egress queue above `threshold` is congested: a
    /// victim if PFC paused it for a large share of its congested time, the root
    /// otherwise (models/rcm/detection.rs). Marks at roots, and at victims too if `mark_victims`.
    Rcm1a { threshold: u64, mark_victims: bool },
    /// Seed 000 rule 1b: the output is requested by more traffic than its capacity (the
    /// link rates of the inputs with packets waiting for it, now or within the last
    /// `window`, add up to more than its rate) and the packets waiting for it exceed
    /// `threshold`.
    Rcm1b { threshold: u64, window: SimTime },
}

impl Default for EcnPlan {
    fn default() -> Self {
        EcnPlan {
            mode: EcnMode::Off,
            kmin: None,
            kmax: None,
            pmax: 0.2,
            wq: 0.002,
            mark_point: MarkPoint::Dequeue,
            priorities: 0xFF,
            by_speed: Vec::new(),
        }
    }
}
