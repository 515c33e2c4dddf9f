//! Closed-loop storage I/O (`[[traffic]] type = "storage"`, seed 004's scenes) and its
//! KPIs per interval (the `io` table: the features a scene classifier reads).
//!
//! Each outstanding I/O of a client is a slot with two queue pairs: client to server
//! (`fwd`) and server to client (`rev`). An I/O is a read (a request on `fwd`, then the
//! block on `rev`) or a write (the block on `fwd`, then a completion on `rev`); a leg is
//! one message of the queue pair, posted when the previous leg has been delivered (the
//! server answers when the request has arrived; the client completes the I/O when the
//! answer has arrived and issues the next one). A queue pair's next message restarts its
//! packet numbering, so a message may have any size: by then the previous message was
//! acknowledged, so both ends agree that nothing of it is outstanding (storage runs on
//! lossless priorities, checked when the scenario is built). If the last ACK of a
//! queue pair's previous leg is still on its way, the new leg waits for it.

use super::Simulation;
use crate::ids::FlowId;
use crate::plan::Plan;
use crate::results::{Column, Table};
use crate::rng::{keyed, stream_key, unit};
use crate::units::SimTime;

/// `FlowHeader::io` of a flow that is not a storage queue pair.
pub(crate) const NO_IO: u32 = u32::MAX;

struct Workload {
    read_fraction: f64,
    block_min: u64,
    /// Block sizes are `block_min << k`, k in 0..steps.
    steps: u32,
    request_bytes: u64,
    /// No I/O is issued from this time on.
    stop: SimTime,
}

struct Slot {
    workload: u32,
    client: u32,
    fwd: FlowId,
    rev: FlowId,
    issued: SimTime,
    read: bool,
    block: u64,
    /// I/Os issued so far (the key of the next I/O's draws).
    n: u64,
    /// A leg is in flight on fwd / rev (posted, not yet acknowledged).
    open: [bool; 2],
    /// A leg waiting for its queue pair's previous leg to be acknowledged.
    pending: Option<(FlowId, u64)>,
}

/// Per client: completed I/Os; and the latencies of those completed from
/// `stats.steady_start` on (the start-up transient left out).
#[derive(Default)]
struct ClientStats {
    node: u32,
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    lat_sum: u128,
    lats: Vec<u64>,
}

/// One interval's KPIs (the `io` table's row): what the scene classifier sees.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IoKpi {
    /// End of the interval.
    pub time: SimTime,
    pub interval: SimTime,
    pub ios: u64,
    pub iops: f64,
    pub latency_mean_ps: f64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub ecn_marked: u64,
    pub cnps_sent: u64,
    /// Time priorities of all ports spent paused, summed.
    pub paused_ps: u64,
    /// Switch egress queues (priorities in use) at the interval's end.
    pub queue_mean_bytes: f64,
    pub queue_max_bytes: u64,
}

pub(crate) struct Storage {
    workloads: Vec<Workload>,
    slots: Vec<Slot>,
    clients: Vec<ClientStats>,
    key: u64,
    interval: Option<SimTime>,
    /// Since the last KPI row: I/Os, latency sum, bytes; and the totals at the last row.
    iv_ios: u64,
    iv_lat: u128,
    iv_read: u64,
    iv_write: u64,
    last_marks: u64,
    last_cnps: u64,
    last_paused: u64,
    rows: Vec<IoKpi>,
    rows_dropped: u64,
}

impl Storage {
    /// The storage workloads of `plan`, and the slot of each flow (`NO_IO`: none).
    pub fn new(plan: &Plan) -> Option<(Storage, Vec<u32>)> {
        if plan.storage.is_empty() {
            return None;
        }
        let mut io_of = vec![NO_IO; plan.flows.len()];
        let (mut slots, mut clients) = (Vec::new(), Vec::<ClientStats>::new());
        let mut workloads = Vec::new();
        for (w, sp) in plan.storage.iter().enumerate() {
            workloads.push(Workload {
                read_fraction: sp.read_fraction,
                block_min: sp.block_min,
                steps: (sp.block_max / sp.block_min).ilog2() + 1,
                request_bytes: sp.request_bytes,
                stop: sp.stop,
            });
            for k in 0..sp.slots {
                let fwd = sp.first_flow + 2 * k;
                let node = plan.flows[fwd as usize].src;
                let client = match clients.iter().position(|c| c.node == node) {
                    Some(i) => i,
                    None => {
                        clients.push(ClientStats { node, ..Default::default() });
                        clients.len() - 1
                    }
                };
                io_of[fwd as usize] = slots.len() as u32;
                io_of[fwd as usize + 1] = slots.len() as u32;
                slots.push(Slot {
                    workload: w as u32,
                    client: client as u32,
                    fwd: FlowId(fwd),
                    rev: FlowId(fwd + 1),
                    issued: plan.flows[fwd as usize].start,
                    read: false,
                    block: 0,
                    n: 0,
                    open: [false; 2],
                    pending: None,
                });
            }
        }
        let s = Storage {
            workloads,
            slots,
            clients,
            key: stream_key(plan.seed, "storage"),
            interval: plan.stats.io_interval.filter(|iv| iv.0 > 0),
            iv_ios: 0,
            iv_lat: 0,
            iv_read: 0,
            iv_write: 0,
            last_marks: 0,
            last_cnps: 0,
            last_paused: 0,
            rows: Vec::new(),
            rows_dropped: 0,
        };
        Some((s, io_of))
    }

    /// When the first KPI row is due (`SimTime::MAX`: never).
    pub fn first_row(&self, end: SimTime) -> SimTime {
        self.interval.filter(|iv| *iv <= end).unwrap_or(SimTime::MAX)
    }
}

impl Simulation {
    fn io(&self) -> &Storage {
        self.storage.as_deref().expect("a storage flow implies storage state")
    }
    fn io_mut(&mut self) -> &mut Storage {
        self.storage.as_deref_mut().expect("a storage flow implies storage state")
    }

    /// Issues the first I/O of every slot (at build time; the queue pairs start at
    /// their flows' start).
    pub(crate) fn storage_start(&mut self) {
        for k in 0..self.storage.as_ref().map_or(0, |s| s.slots.len()) {
            let at = self.io().slots[k].issued;
            self.issue_io(k, at);
        }
    }

    /// Draws slot `k`'s next I/O (read or write, block size; keyed by slot and I/O
    /// number) and posts its first leg.
    fn issue_io(&mut self, k: usize, now: SimTime) {
        let st = self.io_mut();
        let key = st.key;
        let slot = &st.slots[k];
        let w = &st.workloads[slot.workload as usize];
        let read = unit(keyed(key, &[k as u64, slot.n, 0])) < w.read_fraction;
        let step = keyed(key, &[k as u64, slot.n, 1]) % w.steps as u64;
        let block = w.block_min << step;
        let first = if read { w.request_bytes } else { block };
        let slot = &mut st.slots[k];
        slot.n += 1;
        slot.issued = now;
        slot.read = read;
        slot.block = block;
        let fwd = slot.fwd;
        self.post_leg(k, fwd, first, now);
    }

    /// Posts a message of `bytes` on queue pair `f` of slot `k`, or leaves it pending
    /// until the queue pair's previous message is acknowledged.
    fn post_leg(&mut self, k: usize, f: FlowId, bytes: u64, now: SimTime) {
        let dir = (self.io().slots[k].rev == f) as usize;
        let slot = &mut self.io_mut().slots[k];
        if slot.open[dir] {
            slot.pending = Some((f, bytes));
            return;
        }
        slot.open[dir] = true;
        let mtu = self.host.mtu as u64;
        let np = bytes.div_ceil(mtu);
        let h = &mut self.flows[f.idx()];
        h.size = bytes;
        h.npkts = np as u32;
        h.last_payload = (bytes - (np - 1) * mtu) as u32;
        let s = &mut self.senders[f.idx()];
        s.next_seq = 0;
        s.snd_una = 0;
        s.rto_mark = 0;
        s.recover = 0;
        s.msg_limit = np as u32;
        s.msg_start = now;
        s.next_tx = crate::models::nic_timing::first_send(now, s.next_tx, self.host.timing.doorbell);
        let r = &mut self.receivers[f.idx()];
        r.rcv_next = 0;
        r.nak_for = u32::MAX;
        r.since_ack = 0;
        r.highest = 0;
        self.activate(f);
    }

    /// The last packet of a leg reached its receiver: the server answers, or the
    /// client completes the I/O and issues the next.
    pub(crate) fn io_delivered(&mut self, f: FlowId) {
        let now = self.now_t();
        let k = self.flows[f.idx()].io as usize;
        let steady = self.stats_cfg.steady_start;
        let st = self.io_mut();
        let slot = &st.slots[k];
        if f == slot.fwd {
            let bytes = if slot.read { slot.block } else { st.workloads[slot.workload as usize].request_bytes };
            let rev = slot.rev;
            return self.post_leg(k, rev, bytes, now);
        }
        let lat = (now - slot.issued).0;
        let (read, block) = (slot.read, slot.block);
        let c = &mut st.clients[slot.client as usize];
        if read {
            c.reads += 1;
            c.read_bytes += block;
            st.iv_read += block;
        } else {
            c.writes += 1;
            c.write_bytes += block;
            st.iv_write += block;
        }
        if now >= steady {
            c.lat_sum += lat as u128;
            c.lats.push(lat);
        }
        st.iv_ios += 1;
        st.iv_lat += lat as u128;
        if now < st.workloads[st.slots[k].workload as usize].stop {
            self.issue_io(k, now);
        }
    }

    /// Queue pair `f`'s message is fully acknowledged: post the leg waiting for it.
    pub(crate) fn io_acked(&mut self, f: FlowId) {
        let now = self.now_t();
        let k = self.flows[f.idx()].io as usize;
        let slot = &mut self.io_mut().slots[k];
        let dir = (slot.rev == f) as usize;
        slot.open[dir] = false;
        if let Some((g, bytes)) = slot.pending.filter(|(g, _)| *g == f) {
            slot.pending = None;
            self.post_leg(k, g, bytes, now);
        }
    }

    /// Records the KPI row of the interval ending at `io_next`, and moves `io_next` on.
    pub(crate) fn take_io_kpi(&mut self) {
        let now = self.rec.io_next;
        let iv = self.io().interval.expect("KPI rows are due only with an interval");
        self.rec.io_next = if now + iv <= self.end { now + iv } else { SimTime::MAX };
        let marks: u64 = self.fx.prio_stats.iter().map(|c| c.ecn_marked).sum();
        let cnps: u64 = self.rx_stats.iter().map(|f| f.cnps_sent).sum();
        let mut paused = 0u64;
        let (mut qsum, mut qmax, mut nq) = (0u64, 0u64, 0u64);
        for (p, port) in self.fx.ports.iter().enumerate() {
            for prio in self.fx.slots.prios() {
                paused += self.fx.prio_stats[self.fx.slots.at(p, prio)].paused_ps;
                if port.paused & (1 << prio) != 0 {
                    paused += (now - port.paused_since[prio as usize]).0;
                }
            }
            if self.fx.nodes[port.node.idx()].is_host {
                continue;
            }
            for prio in (0..8u8).filter(|q| self.setup.used_prios & (1 << q) != 0) {
                let b = self.fx.egress.queue(crate::ids::PortId(p as u32), prio).bytes;
                qsum += b;
                qmax = qmax.max(b);
                nq += 1;
            }
        }
        let max_rows = self.stats_cfg.max_rows;
        let st = self.io_mut();
        let row = IoKpi {
            time: now,
            interval: iv,
            ios: st.iv_ios,
            iops: st.iv_ios as f64 / iv.as_secs_f64(),
            latency_mean_ps: if st.iv_ios > 0 { st.iv_lat as f64 / st.iv_ios as f64 } else { f64::NAN },
            read_bytes: st.iv_read,
            write_bytes: st.iv_write,
            ecn_marked: marks - st.last_marks,
            cnps_sent: cnps - st.last_cnps,
            paused_ps: paused - st.last_paused,
            queue_mean_bytes: if nq > 0 { qsum as f64 / nq as f64 } else { 0.0 },
            queue_max_bytes: qmax,
        };
        (st.iv_ios, st.iv_lat, st.iv_read, st.iv_write) = (0, 0, 0, 0);
        (st.last_marks, st.last_cnps, st.last_paused) = (marks, cnps, paused);
        if (st.rows.len() as u64) < max_rows {
            st.rows.push(row);
        } else {
            // The latest row stays available to a stepping caller.
            st.rows_dropped += 1;
            if let Some(last) = st.rows.last_mut() {
                *last = row;
            }
        }
    }

    /// Slots with an I/O in progress (a leg posted, in flight or waiting to be posted):
    /// the closed loop keeps every slot busy once its queue pairs have started.
    pub fn ios_in_progress(&self) -> usize {
        self.storage.as_ref().map_or(0, |s| s.slots.iter().filter(|k| k.open.iter().any(|o| *o) || k.pending.is_some()).count())
    }

    /// The KPIs of the last complete interval, if any (a run with storage traffic and
    /// `stats.io_interval` on).
    pub fn io_kpi(&self) -> Option<IoKpi> {
        self.storage.as_ref()?.rows.last().copied()
    }

    /// The `io` table and the summary's `storage` section.
    pub(crate) fn storage_outputs(&self, end: SimTime) -> Option<(Table, serde_json::Value)> {
        let st = self.storage.as_deref()?;
        let r = &st.rows;
        let mut t = Table::default();
        t.push("time_ps", Column::U64(r.iter().map(|x| x.time.0).collect()));
        t.push("ios", Column::U64(r.iter().map(|x| x.ios).collect()));
        t.push("iops", Column::F64(r.iter().map(|x| x.iops).collect()));
        t.push("latency_mean_ps", Column::F64(r.iter().map(|x| x.latency_mean_ps).collect()));
        t.push("read_bytes", Column::U64(r.iter().map(|x| x.read_bytes).collect()));
        t.push("write_bytes", Column::U64(r.iter().map(|x| x.write_bytes).collect()));
        t.push("ecn_marked", Column::U64(r.iter().map(|x| x.ecn_marked).collect()));
        t.push("cnps_sent", Column::U64(r.iter().map(|x| x.cnps_sent).collect()));
        t.push("paused_ps", Column::U64(r.iter().map(|x| x.paused_ps).collect()));
        t.push("queue_mean_bytes", Column::F64(r.iter().map(|x| x.queue_mean_bytes).collect()));
        t.push("queue_max_bytes", Column::U64(r.iter().map(|x| x.queue_max_bytes).collect()));
        // IOPS and latencies over the steady window [steady_start, end].
        let secs = (end - self.stats_cfg.steady_start.min(end)).as_secs_f64();
        let per_client = |c: &ClientStats| {
            let n = c.lats.len() as u64;
            let mut lats = c.lats.clone();
            lats.sort_unstable();
            serde_json::json!({
                "client": self.fx.nodes[c.node as usize].name,
                "ios": c.reads + c.writes,
                "iops": n as f64 / secs,
                "latency_mean_ps": (n > 0).then(|| c.lat_sum as f64 / n as f64),
                "latency_p99_ps": crate::net::stats::nearest_rank(&lats, 0.99),
            })
        };
        let ios: u64 = st.clients.iter().map(|c| c.reads + c.writes).sum();
        let mut all: Vec<u64> = st.clients.iter().flat_map(|c| c.lats.iter().copied()).collect();
        all.sort_unstable();
        let lat_sum: u128 = st.clients.iter().map(|c| c.lat_sum).sum();
        let steady = all.len() as u64;
        let summary = serde_json::json!({
            "what": "I/Os completed: issued by the client to the last byte of the answer received; iops and latencies over those completed in [steady_start, end]",
            "ios": ios,
            "ios_steady": steady,
            "iops": steady as f64 / secs,
            "reads": st.clients.iter().map(|c| c.reads).sum::<u64>(),
            "writes": st.clients.iter().map(|c| c.writes).sum::<u64>(),
            "read_bytes": st.clients.iter().map(|c| c.read_bytes).sum::<u64>(),
            "write_bytes": st.clients.iter().map(|c| c.write_bytes).sum::<u64>(),
            "outstanding": st.slots.len(),
            "latency_mean_ps": (steady > 0).then(|| lat_sum as f64 / steady as f64),
            "latency_p99_ps": crate::net::stats::nearest_rank(&all, 0.99),
            "clients": st.clients.iter().map(per_client).collect::<Vec<_>>(),
            "io_rows_not_kept": st.rows_dropped,
        });
        Some((t, summary))
    }
}
