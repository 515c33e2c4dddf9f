//! The end of a parallel run: the first partition takes from each other partition what
//! that one ran (its ports, the queue pairs of its hosts made at build, the receivers of
//! flows to its hosts) and adds up what all of them counted (statistics rows: moved where
//! the first partition has none), so that the result tables are built from one world as
//! after a one-thread run. (Queue pairs made at a flow's start stay where they ran: no
//! table reads them.) Its egress queues take the other partitions'
//! counters only (their frames stay in the other pools); the frames still in flight are
//! copied into its pool for the conservation check. Each fabric model merges its own
//! state (`FabricModel::merge`).

use std::mem::swap;

use super::Simulation;
use crate::ids::PortId;
use crate::sim::{FlowSlots, RxStats, TxStats};

impl Simulation {
    pub(in crate::sim) fn merge_partitions(&mut self) {
        let peak = self.peak_packets();
        let par = self.part.par.take().expect("a parallel run");
        let part = &par.part;
        for (k, mut o) in par.others.into_iter().enumerate() {
            let me = (k + 1) as u16;
            // Its frames still in flight, copied for the conservation check; then what
            // the merge does not read of this partition is freed before its flow records
            // are taken, which is where the merge of a long run peaked (100 ms of k = 16:
            // about 45 MB of flow headers, flows' descriptions and frames).
            o.fx.pool.for_each_live(|p| {
                self.fx.pool.alloc(*p);
            });
            (o.fx.pool, o.flows, o.make.init, o.make.cc_plans) = Default::default();
            for p in 0..self.fx.ports.len() {
                if part[self.fx.ports[p].node.idx()] != me {
                    continue;
                }
                swap(&mut self.fx.ports[p], &mut o.fx.ports[p]);
                let r = self.fx.slots.of_port(p);
                self.fx.prio_stats[r.clone()].copy_from_slice(&o.fx.prio_stats[r.clone()]);
                self.fx.egress.adopt_counters(&o.fx.egress, PortId(p as u32));
                self.fx.mmu.adopt_port(&o.fx.mmu, p);
            }
            for f in 0..self.flows.len() {
                let (src, dst, tcp) = (self.flows[f].src, self.flows[f].dst, self.flows[f].tcp as usize);
                let uet = self.flows[f].uet as usize;
                if uet != crate::sim::NO_UET as usize {
                    if part[src.idx()] == me {
                        swap(&mut self.tp.uet_tx[uet], &mut o.tp.uet_tx[uet]);
                    }
                    if part[dst.idx()] == me {
                        swap(&mut self.tp.uet_rx[uet], &mut o.tp.uet_rx[uet]);
                    }
                }
                if part[src.idx()] == me {
                    self.senders.adopt(&mut o.senders, f);
                    self.ccs.adopt(&mut o.ccs, f);
                    self.cc_timers.adopt(&mut o.cc_timers, f);
                    if tcp != crate::sim::NO_TCP as usize {
                        swap(&mut self.tp.tcp_tx[tcp], &mut o.tp.tcp_tx[tcp]);
                    }
                }
                if part[dst.idx()] == me && tcp != crate::sim::NO_TCP as usize {
                    swap(&mut self.tp.tcp_rx[tcp], &mut o.tp.tcp_rx[tcp]);
                }
                self.rec.drops_by_flow[f] += o.rec.drops_by_flow[f];
            }
            // The receivers of flows to its hosts and every statistics row, moved as
            // they are freed: the merge of a long run never holds two partitions'
            // records at once. Then the rest of them, before the logs are appended.
            std::mem::take(&mut o.receivers).drain(|f, r| {
                if part[self.flows[f].dst.idx()] == me {
                    if self.receivers.has(f) {
                        self.receivers[f] = r;
                    } else {
                        self.receivers.insert(f, r);
                    }
                }
            });
            absorb_rows(&mut self.tx_stats, std::mem::take(&mut o.tx_stats), TxStats::absorb);
            absorb_rows(&mut self.rx_stats, std::mem::take(&mut o.rx_stats), RxStats::absorb);
            (o.senders, o.ccs, o.cc_timers) = Default::default();
            self.rec.latency.absorb(&o.rec.latency);
            self.rec.msg_latency.absorb(&o.rec.msg_latency);
            self.rec.msg_lats.append(std::mem::take(&mut o.rec.msg_lats));
            self.models.merge(&mut o.models, &self.fx, &|n| part[n.idx()] == me);
            self.rec.samples.append(&mut o.rec.samples);
            self.rec.samples_dropped += o.rec.samples_dropped;
            self.rec.goodput.absorb(&mut o.rec.goodput);
            self.rec.rate_log.absorb(&mut o.rec.rate_log);
            self.rec.cc_trace.absorb(&mut o.rec.cc_trace);
            for (a, b) in self.rec.class_bins.iter_mut().zip(&o.rec.class_bins) {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
            }
            self.rec.class_dropped += o.rec.class_dropped;
            if let (Some(a), Some(b)) = (self.jobs.as_deref_mut(), o.jobs.as_deref()) {
                a.absorb(b, |h| part[h as usize] == me);
            }
            self.hops += o.hops;
            // Raw: its ports, moved here above, are in this world's `quiet_ahead`.
            self.fx.q.add_processed(o.fx.q.processed());
            if self.watchdog.stalled.is_none() {
                self.watchdog.stalled = o.watchdog.stalled;
            }
        }
        self.fx.pool.set_peak(peak);
    }
}

/// Moves another partition's statistics rows here as they are freed, adding each to this
/// partition's row of its flow if there is one (`EAGER` flows have rows in every
/// partition).
fn absorb_rows<T>(mine: &mut FlowSlots<T>, theirs: FlowSlots<T>, add: fn(&mut T, &T)) {
    theirs.drain(|f, st| {
        if mine.has(f) {
            add(&mut mine[f], &st);
        } else {
            mine.insert(f, st);
        }
    });
}

// Adding what another partition counted about a flow. Each field is written by one end
// of the flow only, so the other partition's value is the initial one: a sum, the set
// option, the extreme, or the later arrivals give the value one world has.
impl TxStats {
    fn absorb(&mut self, o: &TxStats) {
        self.finish = self.finish.or(o.finish);
        self.msgs_done += o.msgs_done;
        self.pkts_sent += o.pkts_sent;
        self.retransmits += o.retransmits;
        self.cnps_rx += o.cnps_rx;
        self.min_rate = self.min_rate.min(o.min_rate);
        self.limited_since = self.limited_since.or(o.limited_since);
        self.limited_ps += o.limited_ps;
        self.pkts_limited += o.pkts_limited;
        self.feedback_rx += o.feedback_rx;
    }
}

impl RxStats {
    fn absorb(&mut self, o: &RxStats) {
        self.finish = self.finish.or(o.finish);
        self.msgs_done += o.msgs_done;
        self.delivered += o.delivered;
        self.steady_bytes += o.steady_bytes;
        self.last_rx = self.last_rx.max(o.last_rx);
        self.lat_sum += o.lat_sum;
        self.lat_max = self.lat_max.max(o.lat_max);
        if o.pkts_rx > 0 {
            (self.first_arrival, self.last_arrival) = (o.first_arrival, o.last_arrival);
        }
        self.pkts_rx += o.pkts_rx;
        self.bin = self.bin.max(o.bin);
        self.bin_bytes += o.bin_bytes;
        self.marked_rx += o.marked_rx;
        self.cnps_sent += o.cnps_sent;
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::Simulation;

    /// Each end of a flow counts in its own partition: the source's row only where the
    /// source is, the destination's (with the receiver) only where the destination is, so
    /// a flow between two partitions holds one row of each, not two whole rows; merged,
    /// every flow has both.
    #[test]
    fn each_end_keeps_its_row_in_its_own_partition() {
        let text = "[simulation]\nduration = \"200us\"\nthreads = 2\n[topology]\ntype = \"fat_tree\"\nk = 4\nhost_rate = \"10Gbps\"\n\
                    fabric_rate = \"10Gbps\"\ndelay = \"1us\"\n[[traffic]]\ntype = \"permutation\"\nsize = \"20KB\"\n";
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        while s.run_until(s.end()) {}
        let par = s.part.par.as_ref().unwrap();
        let worlds = [&s, &par.others[0]];
        let mut across = 0;
        for f in 0..s.flows.len() {
            let (src, dst) = (par.part[s.flows[f].src.idx()] as usize, par.part[s.flows[f].dst.idx()] as usize);
            across += (src != dst) as usize;
            for (k, w) in worlds.iter().enumerate() {
                assert_eq!(w.tx_stats.has(f), k == src, "flow {f}: source row in partition {k}");
                let receiver = w.receivers.has(f) || w.receivers.retired(f);
                assert_eq!(w.rx_stats.has(f) && receiver, k == dst, "flow {f}: destination rows in partition {k}");
            }
        }
        assert!(across > 0, "no flow between the two partitions");
        let res = s.finish();
        let fct = res.table("flows").unwrap().get("fct_ps").unwrap();
        assert!(matches!(fct, crate::results::Column::I64(v) if v.iter().all(|&t| t > 0)), "{fct:?}");
    }
}
