//! HPCC (Li et al., SIGCOMM 2019): congestion control from in-band network telemetry, in
//! the HPCC simulator's form (`CC_MODE 3`, ../shared/models/modern-cc.md 10.1).
//!
//! Switch side (`int.rs`): every switch egress port pushes (time, transmitted bytes,
//! queue length, line rate) onto the INT stack of each data frame it starts sending; the
//! receiver ACKs every packet and echoes the stack.
//!
//! NIC side (here), on every ACK, with `T` the fabric's base RTT and `L` the hop records
//! of the previous ACK:
//!
//! ```text
//! per hop i:  u_i = txRate_i / B_i + min(qlen_i, L_i.qlen) / (B_i T),
//!             txRate_i = (tx_bytes_i - L_i.tx_bytes) / (ts_i - L_i.ts)
//! u = max_i u_i, tau = ts - L.ts of that hop (at most T)
//! U = (1 - tau/T) U + (tau/T) u                      (every ACK)
//! U >= eta or incStage >= maxStage:  R = Rc / (U/eta) + R_AI,  stage' = 0
//! otherwise:                         R = Rc + R_AI,            stage' = stage + 1
//! R clamped to [R_min, line rate]; pacing rate R, window W = R T (the line-rate BDP
//! scaled by R / line rate)
//! ```
//!
//! Once per RTT (the ACK passes the sequence sent at the last such update) the new rate
//! also becomes the reference `Rc` and the stage is kept; on the other ACKs ("fast
//! react") only the pacing rate and window follow. The first ACK only records `L`. The
//! paper states the law on windows: `W = Wc / (U/eta) + W_AI`; with `W = R T` the two are
//! the same law, and `W_AI = R_AI T`.

pub mod int;
mod keys;
pub use keys::HpccKeys;

use crate::models::{Ack, CcCtx, CongestionControl, NicSpec};
use crate::net::packet::{IntHop, MAX_INT_HOPS};
use crate::units::{Rate, SimTime};

/// The additive step: a rate, or the paper's window step (bytes per `T`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum HpccAi {
    /// `R_AI`.
    Rate(Rate),
    /// `W_AI` bytes: `R_AI = W_AI / T`.
    Window(u64),
}

/// Resolved parameters (defaults: the HPCC simulator's, modern-cc.md 10.1).
#[derive(Clone, Debug, PartialEq)]
pub struct HpccParams {
    /// Target utilisation.
    pub eta: f64,
    /// Additive increases in a row before a multiplicative step is forced.
    pub max_stage: u32,
    /// The additive step; `None`: 10 Mb/s per 25 Gb/s of line rate (the simulator's
    /// experiment scripts: 40 Mb/s at 100 Gb/s).
    pub ai: Option<HpccAi>,
    pub rate_min: Rate,
    /// `T`; `None`: the largest base RTT among the run's flows (`NicSpec::base_rtt`).
    pub base_rtt: Option<SimTime>,
    /// Limit bytes in flight to `W = R T` (besides pacing at `R`).
    pub window: bool,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams { eta: 0.95, max_stage: 5, ai: None, rate_min: Rate::mbps(100), base_rtt: None, window: true }
    }
}

#[derive(Clone, Debug)]
pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    line: f64,
    ai: f64,
    r_min: f64,
    /// `T` in picoseconds.
    t: f64,
    /// Line-rate BDP in bytes (`line x T`), or 0 without a window.
    bdp: f64,
    /// Pacing rate (bit/s).
    pub(crate) rate: f64,
    /// Reference rate `Rc`, updated once per RTT.
    pub(crate) cur_rate: f64,
    /// EWMA of the bottleneck utilisation.
    pub(crate) u: f64,
    pub(crate) inc_stage: u32,
    /// The sequence an ACK must pass for the next per-RTT update (`None`: no ACK yet).
    last_update: Option<u32>,
    /// The hop records of the previous ACK.
    hops: [IntHop; MAX_INT_HOPS],
    n_hops: usize,
}

impl Hpcc {
    /// Measures the bottleneck utilisation from `int` against the stored records (and
    /// stores `int`): (max over hops of u_i, tau of that hop), tau in picoseconds.
    fn measure(&mut self, int: &[IntHop]) -> (f64, f64) {
        let (mut u_max, mut tau_max) = (0.0, 0.0);
        for (i, h) in int.iter().enumerate() {
            if i >= self.n_hops {
                break; // no earlier record of this hop
            }
            let prev = &self.hops[i];
            let tau = h.ts.0.saturating_sub(prev.ts.0) as f64;
            if tau <= 0.0 {
                continue;
            }
            let b = h.rate.0 as f64;
            let tx_rate = h.tx_bytes.wrapping_sub(prev.tx_bytes) as f64 * 8.0 / (tau * 1e-12);
            let q = h.qlen.min(prev.qlen) as f64 * 8.0;
            let u = tx_rate / b + q / (b * self.t * 1e-12);
            if u > u_max {
                u_max = u;
                tau_max = tau;
            }
        }
        let n = int.len().min(MAX_INT_HOPS);
        self.hops[..n].copy_from_slice(&int[..n]);
        self.n_hops = n;
        (u_max, tau_max)
    }
}

impl CongestionControl for Hpcc {
    type Params = HpccParams;
    fn from_params(p: &HpccParams, nic: &NicSpec) -> Self {
        let line = nic.line_rate.0 as f64;
        let t = p.base_rtt.unwrap_or(nic.base_rtt).0.max(1) as f64;
        let ai = match p.ai {
            None => line / 2500.0,
            Some(HpccAi::Rate(r)) => r.0 as f64,
            Some(HpccAi::Window(w)) => w as f64 * 8.0 / (t * 1e-12),
        };
        Hpcc {
            eta: p.eta,
            max_stage: p.max_stage,
            line,
            ai,
            r_min: p.rate_min.0 as f64,
            t,
            bdp: if p.window { line * t * 1e-12 / 8.0 } else { 0.0 },
            rate: line,
            cur_rate: line,
            u: 1.0,
            inc_stage: 0,
            last_update: None,
            hops: [IntHop::default(); MAX_INT_HOPS],
            n_hops: 0,
        }
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn wants_int(&self) -> bool {
        true
    }
    fn window(&self) -> Option<u64> {
        (self.bdp > 0.0).then(|| ((self.bdp * self.rate / self.line) as u64).max(1))
    }
    fn shift_times(&mut self, by: SimTime) {
        self.hops[..self.n_hops].iter_mut().for_each(|h| h.ts = h.ts + by);
    }
    fn rate(&self) -> Rate {
        Rate(self.rate as u64)
    }

    fn on_ack(&mut self, _: &mut CcCtx, ack: &Ack<'_>) {
        if ack.int.is_empty() {
            return; // no telemetry: nothing to measure
        }
        let Some(last) = self.last_update else {
            // The first ACK: only records the hops.
            self.measure(ack.int);
            self.last_update = Some(ack.snd_nxt);
            return;
        };
        let per_rtt = ack.acked_to > last;
        let (u, tau) = self.measure(ack.int);
        let tau = tau.min(self.t);
        self.u = (self.u * (self.t - tau) + u * tau) / self.t;
        let c = self.u / self.eta;
        let (new, stage) = if c >= 1.0 || self.inc_stage >= self.max_stage {
            let r = if c > 0.0 { self.cur_rate / c } else { self.line };
            (r + self.ai, 0)
        } else {
            (self.cur_rate + self.ai, self.inc_stage + 1)
        };
        self.rate = new.max(self.r_min).min(self.line);
        if per_rtt {
            self.cur_rate = self.rate;
            self.inc_stage = stage;
            self.last_update = Some(last.max(ack.snd_nxt));
        }
    }
}

#[cfg(test)]
mod tests;
