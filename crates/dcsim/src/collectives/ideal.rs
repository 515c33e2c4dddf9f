//! Analytic times on an ideal fabric: every rank's NIC sends at its payload rate `B`
//! (the line rate times MTU / (MTU + headers + preamble + the ACK frames of as many
//! packets received, per `ack_every`), as the engine frames data),
//! links have no delay and nothing contends. A collective then takes the bytes a rank
//! must send over `B`: nccl-tests' bus-bandwidth factor times `S / B` (ring all-reduce
//! 2(n-1)/n S/B, all-gather, reduce-scatter and all-to-all (n-1)/n S/B, broadcast and
//! send/recv S/B).

use super::plan::{CollPlan, JobPlan, Op};
use crate::units::SimTime;

/// The ideal time of collective `c` over a job of `n` ranks at `payload_bps`: its groups
/// run at the same time on their own ranks, each in the time of one group.
pub fn collective(c: &CollPlan, n: usize, payload_bps: f64) -> f64 {
    c.kind.bus_factor(c.groups.size(n)) * c.bytes as f64 * 8.0 / payload_bps
}

/// One iteration of `job` on the ideal fabric (ps): the ranks run in step; a collective
/// starts when its rank reaches it and the previous collective is done (they share the
/// queue pairs); without overlap the rank waits for it.
pub fn iteration(job: &JobPlan, payload_bps: f64) -> f64 {
    let n = job.ranks.len();
    let (mut t, mut comm_end) = (0.0f64, 0.0f64);
    let mut ends = vec![0.0f64; job.colls.len()];
    for op in &job.ops {
        match *op {
            Op::Compute(c) => t += c.0 as f64,
            Op::Coll(k) | Op::Issue(k) => {
                comm_end = t.max(comm_end) + collective(&job.colls[k as usize], n, payload_bps) * 1e12;
                ends[k as usize] = comm_end;
                if !job.overlap && matches!(op, Op::Coll(_)) {
                    t = comm_end;
                }
            }
            Op::Wait(k) if !job.overlap => t = t.max(ends[k as usize]),
            Op::Wait(_) => {}
        }
    }
    t.max(comm_end)
}

/// `iteration` in whole picoseconds.
pub fn iteration_time(job: &JobPlan, payload_bps: f64) -> SimTime {
    SimTime(iteration(job, payload_bps).round() as u64)
}
