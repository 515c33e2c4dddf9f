//! The run side of jobs: each rank steps through its iteration (compute as a timer, its
//! part of each collective), chunks are posted on their queue pairs as their
//! dependencies are met, and each chunk that arrives is counted by its receiving rank
//! and posts the chunk it feeds. Every state change is one host's: a rank's timer and
//! its records are its host's, a queue pair's posting its source's (the chunks it waits
//! for arrive at that host), so partitions run jobs without messages between them.
//! Nothing here allocates after the world is built.

use super::graph::{self, Graph, NONE};
use super::plan::{JobPlan, Op};
use crate::error::Result;
use crate::event::Event;
use crate::ids::FlowId;
use crate::plan::Plan;
use crate::sim::Simulation;
use crate::units::SimTime;

/// `FlowHeader::coll` of a flow that is not a job's queue pair.
pub(crate) const NO_COLL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    NotStarted,
    Ready,
    Compute,
    Coll(u16),
    IterEnd,
    Finished,
}

#[derive(Clone, Copy, Debug)]
struct RankRt {
    job: u32,
    rank: u32,
    pc: u32,
    it: u32,
    wait: Wait,
}

pub(crate) struct JobRt {
    pub plan: JobPlan,
    pub graph: Graph,
    /// Per chunk: arrivals of the chunks it waits for, all iterations together (a chunk's
    /// inputs of iteration i + 1 cannot arrive before those of iteration i: each needs
    /// ranks that finished iteration i).
    recv_sat: Vec<u32>,
    /// Per queue pair: the next chunk to post and to receive, as (iteration, index).
    post: Vec<(u32, u32)>,
    rcv: Vec<(u32, u32)>,
    /// Per (rank, collective): iterations in which the rank has started it.
    started: Vec<u32>,
    /// Per (rank, collective, iteration): chunks received, start and end of the rank's
    /// part (`SimTime::MAX`: not yet).
    pub got: Vec<u32>,
    pub coll_start: Vec<SimTime>,
    pub coll_done: Vec<SimTime>,
    /// Per (rank, iteration): start and end.
    pub iter_start: Vec<SimTime>,
    pub iter_end: Vec<SimTime>,
    /// Iterations the job runs: the plan's, less those fast-forward skipped.
    pub iters: u32,
    /// Fast-forward's skips: (first iteration after it, iterations skipped, period,
    /// mean iteration time over the window that found the job steady).
    pub skips: Vec<(u32, u32, SimTime, SimTime)>,
}

impl JobRt {
    fn n(&self) -> usize {
        self.plan.ranks.len()
    }
    fn nc(&self) -> usize {
        self.plan.colls.len()
    }
    /// Index of (rank, collective, iteration).
    pub fn rci(&self, r: usize, c: usize, it: usize) -> usize {
        (r * self.nc() + c) * self.plan.iterations as usize + it
    }
    /// Index of (rank, iteration).
    pub fn ri(&self, r: usize, it: usize) -> usize {
        r * self.plan.iterations as usize + it
    }

    /// Fast-forward skipped `n` iterations of `period` before iteration `at`, the lowest
    /// under way, while the world moved `by` (`n` periods, or near it when another job
    /// set the skip): the job runs `n` fewer, and what the iterations from `at` on
    /// recorded before the skip moves as the world did (`sim/fast_forward/jobs.rs`).
    pub fn skip(&mut self, at: u32, n: u32, period: SimTime, by: SimTime, window: u32) {
        self.iters -= n;
        let its = at.saturating_sub(window)..at;
        let span = |it: u32| {
            let end = (0..self.n()).map(|r| self.iter_end[self.ri(r, it as usize)]).max().unwrap_or_default();
            let start = (0..self.n()).map(|r| self.iter_start[self.ri(r, it as usize)]).min().unwrap_or_default();
            (end - start).0
        };
        let dur = SimTime(its.clone().map(span).sum::<u64>() / its.len().max(1) as u64);
        self.skips.push((at, n, period, dur));
        let bump = |t: &mut SimTime| *t = t.later(by);
        // Ranks may be an iteration apart: every record of `at` or later is before the
        // skip (none is `SimTime::MAX` yet after it).
        for it in at as usize..self.plan.iterations as usize {
            for r in 0..self.n() {
                for c in 0..self.nc() {
                    let i = self.rci(r, c, it);
                    bump(&mut self.coll_start[i]);
                    bump(&mut self.coll_done[i]);
                }
                let i = self.ri(r, it);
                bump(&mut self.iter_start[i]);
                bump(&mut self.iter_end[i]);
            }
        }
    }

    /// The iteration number the output gives internal iteration `it`: later by the
    /// iterations skipped before it.
    pub fn shown(&self, it: u32) -> u32 {
        it + self.skips.iter().filter(|s| s.0 <= it).map(|s| s.1).sum::<u32>()
    }
}

pub(crate) struct Jobs {
    pub jobs: Vec<JobRt>,
    /// Per rank of every job (`Event::Rank` indexes it).
    ranks: Vec<RankRt>,
    /// Per job's queue pair (`FlowHeader::coll` indexes it): job and queue pair.
    qp: Vec<(u32, u32)>,
}

impl Jobs {
    /// Job `j`'s lowest and highest iteration under way over its ranks (equal to its
    /// iteration count once every rank has finished).
    pub fn progress(&self, j: usize) -> (u32, u32) {
        let its = self.ranks.iter().filter(|r| r.job as usize == j).map(|r| r.it);
        (its.clone().min().unwrap_or(0), its.max().unwrap_or(0))
    }

    /// The jobs of `plan`, the `coll` index of each flow, and the host of each rank (the
    /// owner of its events).
    pub fn new(plan: &Plan) -> Result<Option<(Jobs, Vec<u32>)>> {
        if plan.jobs.is_empty() {
            return Ok(None);
        }
        let mut coll_of = vec![NO_COLL; plan.flows.len()];
        let (mut jobs, mut ranks, mut qp) = (Vec::new(), Vec::new(), Vec::new());
        for (j, jp) in plan.jobs.iter().enumerate() {
            let g = graph::build(jp, plan.host.mtu as u64, &format!("traffic[{}]", jp.group))?;
            debug_assert_eq!(g.qps.len() as u32, jp.flows);
            for q in 0..g.qps.len() {
                coll_of[jp.first_flow as usize + q] = qp.len() as u32;
                qp.push((j as u32, q as u32));
            }
            let (n, nc, iters) = (jp.ranks.len(), jp.colls.len(), jp.iterations as usize);
            for r in 0..n {
                ranks.push(RankRt { job: j as u32, rank: r as u32, pc: 0, it: 0, wait: Wait::NotStarted });
            }
            jobs.push(JobRt {
                recv_sat: vec![0; g.chunks.len()],
                post: vec![(0, 0); g.qps.len()],
                rcv: vec![(0, 0); g.qps.len()],
                started: vec![0; n * nc],
                got: vec![0; n * nc * iters],
                coll_start: vec![SimTime::MAX; n * nc * iters],
                coll_done: vec![SimTime::MAX; n * nc * iters],
                iter_start: vec![SimTime::MAX; n * iters],
                iter_end: vec![SimTime::MAX; n * iters],
                iters: jp.iterations,
                skips: Vec::new(),
                plan: jp.clone(),
                graph: g,
            });
        }
        Ok(Some((Jobs { jobs, ranks, qp }, coll_of)))
    }

    /// The host node of each rank, in `Event::Rank` order.
    pub fn rank_hosts(&self) -> Vec<u32> {
        self.ranks.iter().map(|r| self.jobs[r.job as usize].plan.ranks[r.rank as usize]).collect()
    }

    /// Takes from `o` (another partition's jobs) the records of the ranks whose host it
    /// ran (`mine`).
    pub fn absorb(&mut self, o: &Jobs, mine: impl Fn(u32) -> bool) {
        for (a, b) in self.jobs.iter_mut().zip(&o.jobs) {
            let (nc, iters) = (a.nc(), a.plan.iterations as usize);
            for r in 0..a.n() {
                if !mine(a.plan.ranks[r]) {
                    continue;
                }
                let rc = r * nc * iters..(r + 1) * nc * iters;
                a.got[rc.clone()].copy_from_slice(&b.got[rc.clone()]);
                a.coll_start[rc.clone()].copy_from_slice(&b.coll_start[rc.clone()]);
                a.coll_done[rc.clone()].copy_from_slice(&b.coll_done[rc]);
                let ri = r * iters..(r + 1) * iters;
                a.iter_start[ri.clone()].copy_from_slice(&b.iter_start[ri.clone()]);
                a.iter_end[ri.clone()].copy_from_slice(&b.iter_end[ri]);
            }
        }
    }
}

impl Simulation {
    fn jobs_mut(&mut self) -> &mut Jobs {
        self.jobs.as_deref_mut().expect("a rank or job flow implies jobs")
    }

    /// Sets up the jobs of `plan` (at build time): flows' `coll`, queue pairs with
    /// nothing posted, and each rank's first step at its job's start.
    pub(crate) fn jobs_init(&mut self, plan: &Plan) -> Result<()> {
        let Some((jobs, coll_of)) = Jobs::new(plan)? else { return Ok(()) };
        for (f, c) in coll_of.into_iter().enumerate().filter(|(_, c)| *c != NO_COLL) {
            self.flows[f].coll = c;
            self.make_eager(crate::ids::FlowId(f as u32));
            self.senders[f].msg_limit = 0;
        }
        for (r, rk) in jobs.ranks.iter().enumerate() {
            self.fx.q.schedule(jobs.jobs[rk.job as usize].plan.start, Event::Rank(r as u32));
        }
        self.jobs = Some(Box::new(jobs));
        Ok(())
    }

    /// `Event::Rank`: a rank's compute is done (or its job starts).
    pub(crate) fn on_rank(&mut self, r: u32) {
        let now = self.now_t();
        let jobs = self.jobs_mut();
        let rk = &mut jobs.ranks[r as usize];
        let start = rk.wait == Wait::NotStarted;
        let (j, rank) = (rk.job as usize, rk.rank as usize);
        rk.wait = Wait::Ready;
        if start {
            let jb = &mut jobs.jobs[j];
            let i = jb.ri(rank, 0);
            jb.iter_start[i] = now;
            // Every rank starts at the job's start: its first iteration's start, once.
            if rank == 0 && self.ff.as_ref().is_some_and(|f| f.watches_job()) {
                self.ff_job_start(j);
            }
        }
        self.rank_run(r);
    }

    /// Runs rank `r`'s steps until it waits (compute, a collective, the iteration's end).
    fn rank_run(&mut self, r: u32) {
        let now = self.now_t();
        let ff = self.ff.as_ref().is_some_and(|f| f.watches_job());
        loop {
            let jobs = self.jobs_mut();
            let rk = jobs.ranks[r as usize];
            let j = rk.job as usize;
            let jb = &mut jobs.jobs[j];
            let (rank, it) = (rk.rank as usize, rk.it as usize);
            if rk.pc as usize == jb.plan.ops.len() {
                if (0..jb.nc()).any(|c| jb.coll_done[jb.rci(rank, c, it)] == SimTime::MAX) {
                    jobs.ranks[r as usize].wait = Wait::IterEnd;
                    return;
                }
                let i = jb.ri(rank, it);
                jb.iter_end[i] = now;
                let all_ended = ff && (0..jb.n()).all(|x| jb.iter_end[jb.ri(x, it)] != SimTime::MAX);
                let iters = jb.iters;
                let rk = &mut jobs.ranks[r as usize];
                rk.it += 1;
                rk.pc = 0;
                if rk.it == iters {
                    rk.wait = Wait::Finished;
                    return;
                }
                let i = jb.ri(rank, it + 1);
                jb.iter_start[i] = now;
                if all_ended {
                    self.ff_iteration_end(j);
                }
                continue;
            }
            let op = jb.plan.ops[rk.pc as usize];
            jobs.ranks[r as usize].pc += 1;
            match op {
                Op::Compute(t) if t.0 > 0 => {
                    jobs.ranks[r as usize].wait = Wait::Compute;
                    self.fx.q.schedule(now + t, Event::Rank(r));
                    return;
                }
                Op::Compute(_) => {}
                Op::Wait(c) => {
                    if !jb.plan.overlap && jb.coll_done[jb.rci(rank, c as usize, it)] == SimTime::MAX {
                        jobs.ranks[r as usize].wait = Wait::Coll(c);
                        return;
                    }
                }
                Op::Coll(c) | Op::Issue(c) => {
                    let i = jb.rci(rank, c as usize, it);
                    let nc = jb.nc();
                    jb.coll_start[i] = now;
                    jb.started[rank * nc + c as usize] += 1;
                    if jb.got[i] == jb.graph.inbound[rank * nc + c as usize] {
                        jb.coll_done[i] = now;
                    }
                    let done = jb.coll_done[i] != SimTime::MAX;
                    let wait = !jb.plan.overlap && !done && matches!(op, Op::Coll(_));
                    let (a, b) = (jb.graph.out_first[rank], jb.graph.out_first[rank + 1]);
                    for k in a..b {
                        let q = self.jobs_mut().jobs[j].graph.out[k as usize];
                        self.coll_post(j, q as usize);
                    }
                    if wait {
                        self.jobs_mut().ranks[r as usize].wait = Wait::Coll(c);
                        return;
                    }
                }
            }
        }
    }

    /// Posts on queue pair `q` of job `j` the chunks whose dependencies are met, in order.
    fn coll_post(&mut self, j: usize, q: usize) {
        let jb = &mut self.jobs.as_deref_mut().expect("jobs").jobs[j];
        let g = &jb.graph;
        let (lo, hi) = (g.first[q], g.first[q + 1]);
        let per = g.qp_pkts(q);
        let src = g.qps[q].0 as usize;
        let nc = jb.plan.colls.len();
        let (mut it, mut c) = jb.post[q];
        let mut limit = None;
        while it < jb.iters {
            let k = (lo + c) as usize;
            let ch = g.chunks[k];
            if jb.started[src * nc + ch.coll as usize] <= it || jb.recv_sat[k] < ch.waits as u32 * (it + 1) {
                break;
            }
            limit = Some(it * per + ch.end);
            c += 1;
            if lo + c == hi {
                (it, c) = (it + 1, 0);
            }
        }
        jb.post[q] = (it, c);
        if let Some(l) = limit {
            let f = FlowId(jb.plan.first_flow + q as u32);
            self.senders[f.idx()].msg_limit = l;
            self.activate(f);
        }
    }

    /// A job's queue pair delivered packets in order: the chunks now complete are
    /// counted by the receiving rank and post the chunks they feed.
    pub(crate) fn coll_received(&mut self, f: FlowId) {
        let now = self.now_t();
        let rcv_next = self.receivers[f.idx()].rcv_next;
        let coll = self.flows[f.idx()].coll as usize;
        let (j, q) = self.jobs_mut().qp[coll];
        let (j, q) = (j as usize, q as usize);
        loop {
            let jb = &mut self.jobs_mut().jobs[j];
            let (it, c) = jb.rcv[q];
            if it >= jb.iters {
                return;
            }
            let g = &jb.graph;
            let (lo, hi) = (g.first[q], g.first[q + 1]);
            let k = (lo + c) as usize;
            let ch = g.chunks[k];
            if rcv_next < it * g.qp_pkts(q) + ch.end {
                return;
            }
            jb.rcv[q] = if lo + c + 1 == hi { (it + 1, 0) } else { (it, c + 1) };
            let dst = g.qps[q].1 as usize;
            let nc = jb.nc();
            let i = jb.rci(dst, ch.coll as usize, it as usize);
            jb.got[i] += 1;
            let complete = jb.got[i] == g.inbound[dst * nc + ch.coll as usize] && jb.started[dst * nc + ch.coll as usize] > it;
            for fed in ch.feeds.into_iter().filter(|&x| x != NONE) {
                let jb = &mut self.jobs_mut().jobs[j];
                jb.recv_sat[fed as usize] += 1;
                let fq = jb.graph.qp_of[fed as usize] as usize;
                self.coll_post(j, fq);
            }
            if complete {
                self.rank_coll_done(j, dst, ch.coll, it, now);
            }
        }
    }

    /// Rank `rank` of job `j` has all of collective `c` of iteration `it`.
    fn rank_coll_done(&mut self, j: usize, rank: usize, c: u16, it: u32, now: SimTime) {
        let jobs = self.jobs_mut();
        let jb = &mut jobs.jobs[j];
        let i = jb.rci(rank, c as usize, it as usize);
        jb.coll_done[i] = now;
        // Global rank index: the ranks of earlier jobs come first.
        let r = jobs.jobs[..j].iter().map(|x| x.n()).sum::<usize>() + rank;
        let rk = jobs.ranks[r];
        if rk.it == it && (rk.wait == Wait::Coll(c) || rk.wait == Wait::IterEnd) {
            jobs.ranks[r].wait = Wait::Ready;
            self.rank_run(r as u32);
        }
    }
}
