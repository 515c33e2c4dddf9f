//! The conservative parallel engine (`simulation.threads` > 1).
//!
//! The fabric is partitioned (`partition.rs`); each partition is a whole fabric built from
//! the plan (flows' working state made only where their hosts are: `sim/flow/slots.rs`)
//! that runs only its own nodes' events (a frame's arrival is the receiving
//! port's, a queue pair's timers its source host's, a receiver's its destination's).
//! Partitions run in rounds, each on its own thread: they agree on the earliest pending
//! event t and all process their events before t + lookahead, the shortest delay of a
//! link between partitions, which no frame sent in the round can beat. Frames sent to
//! another partition's port wait in the sender's outbox and are posted, packet and
//! headers copied, at the end of the round. Simultaneous events are served in an order
//! that depends on the events alone (`event/mod.rs`), and every random draw on the events'
//! own keys, so each partition serves its events exactly as one world would: the results
//! are identical to one thread's. At the end the partitions are merged (`merge.rs`).
//!
//! A model's whole-fabric check (PFC deadlock detection: `FabricModel::on_check`) reads
//! pauses and queues across the fabric: rounds end at its times, and it runs on all
//! partitions at once between rounds.

mod barrier;
mod merge;
mod partition;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use barrier::SpinBarrier;

use super::Simulation;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::ids::{PktId, PortId};
use crate::models::fabric_model::Worlds;
use crate::net::packet::{IntStack, Packet, FLAG_INT};
use crate::plan::Plan;
use crate::units::SimTime;

/// What each partition of a parallel run holds of it (all empty on one thread).
#[derive(Default)]
pub(crate) struct Partition {
    /// On the first partition, the others.
    pub par: Option<Box<Parallel>>,
    /// Which nodes this partition owns (empty: all).
    pub owned: Vec<bool>,
    /// The frames sent this round to a port of another partition (when they arrive,
    /// where).
    pub outbox: Post,
}

pub(crate) struct Parallel {
    /// Partitions 1.. (partition 0 is the world that holds this).
    pub others: Vec<Simulation>,
    /// The partition of each node.
    pub part: Vec<u16>,
    /// How far a partition may run ahead of the earliest pending event.
    pub lookahead: SimTime,
}

/// A frame posted to another partition: when and where it arrives; its INT stack, if it
/// carries one, is `Post::ints[int]`.
#[derive(Copy, Clone)]
pub(crate) struct Mail {
    at: SimTime,
    port: PortId,
    pkt: Packet,
    int: u32,
    tag: Option<u32>,
}

/// `Mail::int` of a frame without INT.
const NO_INT: u32 = u32::MAX;

/// Set, the parallel engine prints its partitions when it splits the fabric, and each
/// partition's work and barrier waits after every `run_until` (a diagnostic of load
/// balance; off, nothing is timed).
const DEBUG_VAR: &str = "DCSIM_PAR_DEBUG";

fn debug() -> bool {
    std::env::var_os(DEBUG_VAR).is_some()
}

/// One partition's wall time in a `run_until`: working (its events and its outbox) and
/// waiting at the barriers.
struct Timing {
    on: bool,
    work: Duration,
    wait: Duration,
    rounds: u64,
}

impl Timing {
    fn new() -> Self {
        Timing { on: debug(), work: Duration::ZERO, wait: Duration::ZERO, rounds: 0 }
    }

    /// Runs `f`, adding its wall time to the waits (`wait`) or to the work.
    #[inline]
    fn time<R>(&mut self, wait: bool, f: impl FnOnce() -> R) -> R {
        if !self.on {
            return f();
        }
        let t = Instant::now();
        let r = f();
        *(if wait { &mut self.wait } else { &mut self.work }) += t.elapsed();
        r
    }

    fn report(&self, me: usize, stop: SimTime) {
        if self.on {
            let (work, wait) = (self.work.as_secs_f64(), self.wait.as_secs_f64());
            eprintln!("partition {me} to {stop}: worked {work:.2} s, waited {wait:.2} s, {} rounds", self.rounds);
        }
    }
}

/// The frames one partition posts to another in a round (and, in a partition's
/// `outbox`, the frames it sent to any other this round). Its vectors keep their
/// capacity from round to round: a round allocates nothing.
#[derive(Default)]
pub(crate) struct Post {
    frames: Vec<Mail>,
    ints: Vec<IntStack>,
}

/// Splits a freshly built world into `plan.threads` partitions.
pub(super) fn split(sim: &mut Simulation, plan: &Plan) -> Result<()> {
    let parts = plan.threads as usize;
    let (part, lookahead) = partition::partition(plan, parts);
    let lookahead = match lookahead {
        Some(l) if l.0 > 0 => l,
        Some(_) => {
            return Err(Error::scenario(
                "simulation.threads",
                "a link between two partitions has no delay, so no partition can run ahead of another; use threads = 1",
            ))
        }
        None => SimTime::MAX, // one partition holds every link
    };
    let mut others = Vec::with_capacity(parts - 1);
    for _ in 1..parts {
        let mut o = super::build::build(plan)?;
        // Built alike, fixed from now on: one copy for all.
        (o.flows, o.make.init) = (sim.flows.share(), sim.make.init.share());
        others.push(o);
    }
    for (i, s) in std::iter::once(&mut *sim).chain(others.iter_mut()).enumerate() {
        s.part.owned = part.iter().map(|&p| p as usize == i).collect();
        for p in 0..s.fx.ports.len() {
            let (node, peer) = (s.fx.ports[p].node, s.fx.ports[p].peer);
            s.fx.ports[p].remote = part[node.idx()] != part[s.fx.ports[peer.idx()].node.idx()];
        }
        let (owners, owned) = (&s.owners, &s.part.owned);
        s.fx.q.retain(|ev| owned[owners.of(ev) as usize]);
        // (The models' checks over the whole fabric, the deadlock detector's, run between
        // rounds over all partitions, on the first partition's models: `periodic_due`.)
    }
    if debug() {
        let counts: Vec<usize> = (0..parts).map(|i| part.iter().filter(|&&p| p as usize == i).count()).collect();
        eprintln!("partitions {counts:?} lookahead {lookahead:?}");
    }
    sim.part.par = Some(Box::new(Parallel { others, part, lookahead }));
    Ok(())
}

/// What the partitions share during `run_parallel`.
struct Shared {
    barrier: SpinBarrier,
    /// Per partition: the time of its earliest pending event (u64::MAX: none).
    next: Vec<AtomicU64>,
    /// Mail from partition i to j at `i * n + j`.
    mail: Vec<Mutex<Post>>,
    /// The models' next check over the whole fabric (the first partition's).
    check_next: AtomicU64,
    /// A partition's clock stopped advancing (set during a round, read after it).
    stalled: AtomicBool,
    /// A deadlock stopped the run (set by the check between rounds, read after it).
    halt: AtomicBool,
    /// Per partition: the rows its rates log holds, all before the round about to start.
    rate_rows: Vec<AtomicU64>,
}

impl Simulation {
    /// `run_until` of a parallel run, on its first partition.
    pub(super) fn run_parallel(&mut self, t: SimTime) -> bool {
        let stop = t.min(self.end);
        if self.watchdog.stalled.is_some() || self.models.stopped() {
            return false;
        }
        let mut par = self.part.par.take().expect("a parallel run");
        let n = par.others.len() + 1;
        let shared = Shared {
            barrier: SpinBarrier::new(n),
            next: (0..n).map(|_| AtomicU64::new(0)).collect(),
            mail: (0..n * n).map(|_| Mutex::new(Post::default())).collect(),
            check_next: AtomicU64::new(self.models.next_check().0),
            stalled: AtomicBool::new(false),
            halt: AtomicBool::new(false),
            rate_rows: (0..n).map(|_| AtomicU64::new(0)).collect(),
        };
        // Rounds served node by node are aligned to multiples of their length (no
        // longer than the lookahead): a window is one of them, whole.
        let (part, window) = (&par.part, Window { lookahead: par.lookahead, rounds: self.fx.q.round_len() });
        {
            let sims: Vec<Mutex<&mut Simulation>> = std::iter::once(&mut *self).chain(par.others.iter_mut()).map(Mutex::new).collect();
            std::thread::scope(|scope| {
                for i in 1..n {
                    let (sims, shared) = (&sims, &shared);
                    scope.spawn(move || rounds(i, sims, shared, part, window, stop));
                }
                rounds(0, &sims, &shared, part, window, stop);
            });
        }
        let halted = shared.halt.load(Ordering::Relaxed) || shared.stalled.load(Ordering::Relaxed);
        let pending = !self.fx.q.is_empty() || par.others.iter().any(|s| !s.fx.q.is_empty());
        self.part.par = Some(par);
        !halted && stop < self.end && pending
    }

    /// A frame that leaves for a port of another partition, arriving `at`: copied into
    /// the outbox now, while the transmitter has just touched it, and its slot freed.
    pub(crate) fn send_remote(&mut self, at: SimTime, port: PortId, id: PktId) {
        let pkt = *self.fx.pool.get(id);
        let int = if pkt.flags & FLAG_INT != 0 {
            self.part.outbox.ints.push(self.fx.pool.int(id));
            self.part.outbox.ints.len() as u32 - 1
        } else {
            NO_INT
        };
        let tag = self.fx.pool.tag(id);
        self.fx.pool.free(id);
        let frames = &mut self.part.outbox.frames;
        crate::prefetch::prefetch_write(frames.as_ptr().wrapping_add(frames.len() + 4));
        frames.push(Mail { at, port, pkt, int, tag });
    }

    /// Posts the frames sent to other partitions this round, in the order they were sent.
    fn post_outbox(&mut self, me: usize, n: usize, part: &[u16], shared: &Shared) {
        if self.part.outbox.frames.is_empty() {
            return;
        }
        for j in (0..n).filter(|&j| j != me) {
            let mut post = shared.mail[me * n + j].lock().unwrap();
            let post = &mut *post;
            if n == 2 && post.frames.is_empty() {
                // Everything goes to the one other partition: hand the vectors over.
                std::mem::swap(post, &mut self.part.outbox);
                continue;
            }
            for m in self.part.outbox.frames.iter().filter(|m| part[self.fx.ports[m.port.idx()].node.idx()] as usize == j) {
                let int = if m.int == NO_INT {
                    NO_INT
                } else {
                    post.ints.push(self.part.outbox.ints[m.int as usize]);
                    post.ints.len() as u32 - 1
                };
                post.frames.push(Mail { int, ..*m });
            }
        }
        self.part.outbox.frames.clear();
        self.part.outbox.ints.clear();
    }

    /// Schedules the arrivals other partitions posted to this one.
    fn take_mail(&mut self, me: usize, n: usize, shared: &Shared) {
        for i in (0..n).filter(|&i| i != me) {
            let mut post = shared.mail[i * n + me].lock().unwrap();
            let post = &mut *post;
            for m in post.frames.drain(..) {
                debug_assert!(m.at > self.fx.q.now(), "a frame from another partition arrives in this one's past");
                let id = self.fx.pool.alloc(m.pkt);
                if m.int != NO_INT {
                    *self.fx.pool.int_mut(id) = post.ints[m.int as usize];
                }
                if m.tag.is_some() {
                    self.fx.pool.set_tag(id, m.tag);
                }
                self.fx.q.schedule(m.at, Event::Arrive(m.port, id));
            }
            post.ints.clear();
        }
    }
}

/// How far the partitions run from the earliest pending event in one round.
#[derive(Copy, Clone)]
struct Window {
    lookahead: SimTime,
    /// The length of the partitions' rounds served node by node, if they serve so.
    rounds: Option<SimTime>,
}

impl Window {
    /// The last picosecond a round starting at `t` may serve: before t + lookahead, or
    /// the end of the node-by-node round `t` falls in (which ends no later).
    fn last(self, t: u64) -> u64 {
        match self.rounds {
            Some(l) => (t / l.0 + 1).saturating_mul(l.0) - 1,
            None => t.saturating_add(self.lookahead.0 - 1),
        }
    }
}

/// One partition's side of a parallel `run_until(stop)`.
fn rounds(me: usize, sims: &[Mutex<&mut Simulation>], shared: &Shared, part: &[u16], window: Window, stop: SimTime) {
    let n = sims.len();
    let mut timing = Timing::new();
    loop {
        {
            let mut s = sims[me].lock().unwrap();
            s.take_mail(me, n, shared);
            // The models' polls (the PFC watchdog's) send frames too (a restored queue
            // transmits): a round starts no later than the next one, or a frame it sends
            // could reach another partition in that partition's past.
            let next = s.fx.q.next_time().map_or(u64::MAX, |t| t.0).min(s.models.next_poll().0);
            shared.next[me].store(next, Ordering::Relaxed);
            shared.rate_rows[me].store(s.rec.rate_log.len() as u64, Ordering::Relaxed);
        }
        timing.time(true, || shared.barrier.wait());
        let t = shared.next.iter().map(|x| x.load(Ordering::Relaxed)).min().unwrap();
        // Once the partitions' rates logs hold `stats.max_rows` rows between them, all
        // before `t`, no row from `t` on is among the first: each partition refuses them
        // instead of holding up to the limit of its own (the merge keeps the same rows).
        let rate_rows: u64 = shared.rate_rows.iter().map(|x| x.load(Ordering::Relaxed)).sum();
        let check = shared.check_next.load(Ordering::Relaxed);
        if t > stop.0 && check > stop.0 {
            break;
        }
        // Events up to `w`: not past the stop or the next check.
        let w = window.last(t).min(stop.0).min(check);
        timing.time(false, || {
            let mut s = sims[me].lock().unwrap();
            if rate_rows >= s.rec.rate_log.max() as u64 {
                s.rec.rate_log.refuse_from((t, 0));
            }
            s.run_local_until(SimTime(w));
            if s.watchdog.stalled.is_some() {
                shared.stalled.store(true, Ordering::Relaxed);
            }
            s.post_outbox(me, n, part, shared);
        });
        timing.rounds += 1;
        timing.time(true, || shared.barrier.wait());
        // Every partition reads the same `stalled` here (written before the barrier).
        let stalled = shared.stalled.load(Ordering::Relaxed);
        if w == check && !stalled {
            if me == 0 {
                let mut guards: Vec<_> = sims.iter().map(|m| m.lock().unwrap()).collect();
                let (first, rest) = guards.split_first_mut().unwrap();
                let first: &mut Simulation = first;
                let fabrics: Vec<&crate::net::fabric::Fabric> = std::iter::once(&first.fx).chain(rest.iter().map(|g| &g.fx)).collect();
                let stopped = first.models.run_checks(SimTime(check), &Worlds { fabrics: &fabrics, part });
                shared.check_next.store(first.models.next_check().0, Ordering::Relaxed);
                if stopped {
                    // As one world ends such a run: at the check.
                    first.clock = SimTime(check);
                    shared.halt.store(true, Ordering::Relaxed);
                }
            }
            timing.time(true, || shared.barrier.wait());
        }
        if stalled || shared.halt.load(Ordering::Relaxed) {
            timing.report(me, stop);
            return;
        }
    }
    timing.report(me, stop);
    // Nothing left before the stop: samples and the clock up to it.
    sims[me].lock().unwrap().run_local_until(stop);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The load-balance diagnostic adds a call's wall time to the waits or to the work,
    /// and times nothing when it is off.
    #[test]
    fn timing_splits_work_from_waits_and_is_free_when_off() {
        let nap = || std::thread::sleep(Duration::from_millis(2));
        let mut t = Timing { on: true, work: Duration::ZERO, wait: Duration::ZERO, rounds: 0 };
        t.time(true, nap);
        assert!(t.wait >= Duration::from_millis(2) && t.work.is_zero());
        assert_eq!(t.time(false, || 7), 7);
        t.time(false, nap);
        assert!(t.work >= Duration::from_millis(2));
        let mut off = Timing { on: false, ..t };
        let before = (off.work, off.wait);
        off.time(true, nap);
        off.time(false, nap);
        assert_eq!((off.work, off.wait), before);
    }
}
