//! Invariants every run checks, from cheap counters kept on by default, and the
//! watchdog that ends a run whose clock stops advancing. The results go in the summary
//! under `"checks"`; `Results::checks_passed` and `Results::failed_checks` read them.
//!
//! * `conservation`: per flow and in total, data packets sent = delivered (arrived at
//!   the destination NIC) + dropped + in flight (alive at the end of the run).
//! * `lossless_no_drops`: no data frame of a lossless priority is dropped when the
//!   headroom is computed by the model (`headroom = "formula"` or `"hpcc"`, no fixed
//!   `xoff`). A drop there is a model error; its port is named.
//! * `counters_non_negative`: no egress queue, MMU charge or shared-pool counter holds
//!   a wrapped (negative) value, and what the MMU charges equals what the egress queues
//!   hold.
//! * `clock_advances`: the run was not stopped by the watchdog.

use serde_json::{json, Value};

use super::Simulation;
use crate::ids::PortId;
use crate::net::packet::PktKind;
use crate::units::SimTime;

/// Counts events at the current picosecond. A valid run has a bounded number of them:
/// every event at one time is caused by a frame, a flow or a timer, and a frame takes
/// at least one picosecond on a link (`units::MAX_RATE`). The bound is generous: far
/// above what any valid run reaches, far below a hang.
pub(crate) struct Watchdog {
    at: SimTime,
    count: u64,
    limit: u64,
    pub stalled: Option<SimTime>,
}

impl Watchdog {
    pub fn new(flows: usize, ports: usize) -> Self {
        Watchdog { at: SimTime::MAX, count: 0, limit: (1 << 24) + 64 * (flows as u64 + ports as u64), stalled: None }
    }

    /// Counts an event at `now`; true (and `stalled` set) when the limit is passed.
    #[inline(always)]
    pub fn same_time(&mut self, now: SimTime) -> bool {
        if now != self.at {
            self.at = now;
            self.count = 0;
            return false;
        }
        self.count += 1;
        if self.count > self.limit {
            self.stalled = Some(now);
            return true;
        }
        false
    }

    #[cfg(test)]
    pub fn with_limit(limit: u64) -> Self {
        Watchdog { at: SimTime::MAX, count: 0, limit, stalled: None }
    }
}

/// At most this many failing items are listed per check.
const MAX_LISTED: usize = 10;

fn check(ok: bool, what: &str, failures: Vec<String>, extra: Value) -> Value {
    let mut v = json!({ "ok": ok, "what": what });
    if !failures.is_empty() {
        v["failures"] = json!(failures);
    }
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

impl Simulation {
    /// Runs every check on the world as it is (the end of the run); the summary's
    /// `"checks"` object.
    pub(crate) fn run_checks(&self) -> Value {
        let conservation = self.check_conservation();
        let lossless = self.check_lossless();
        let counters = self.check_counters();
        let clock = match self.watchdog.stalled {
            None => check(true, "the clock advanced: no picosecond had more events than any valid run has", vec![], json!({})),
            Some(t) => check(
                false,
                "the clock advanced: no picosecond had more events than any valid run has",
                vec![format!("model error: the run was stopped at {} ps after {} events at that picosecond", t.0, self.watchdog.limit)],
                json!({}),
            ),
        };
        let ok = [&conservation, &lossless, &counters, &clock].iter().all(|c| c["ok"] == json!(true));
        json!({
            "ok": ok,
            "conservation": conservation,
            "lossless_no_drops": lossless,
            "counters_non_negative": counters,
            "clock_advances": clock,
        })
    }

    fn check_conservation(&self) -> Value {
        let mut in_flight = vec![0u64; self.flows.len()];
        self.fx.pool.for_each_live(|p| {
            if p.kind == PktKind::Data {
                if let Some(c) = in_flight.get_mut(p.flow.idx()) {
                    *c += 1;
                }
            }
        });
        let (mut sent, mut delivered, mut dropped, mut flying) = (0u64, 0u64, 0u64, 0u64);
        let mut failures = Vec::new();
        // By flow id: flows that never started have no record.
        for (f, st) in (0..self.flows.len()).filter_map(|f| Some((f, self.tx_stats.get(f)?))) {
            let d = self.rx_stats.get(f).map_or(0, |r| r.pkts_rx);
            let (s, x, i) = (st.pkts_sent, self.rec.drops_by_flow[f], in_flight[f]);
            sent += s;
            delivered += d;
            dropped += x;
            flying += i;
            if s != d + x + i && failures.len() < MAX_LISTED {
                failures.push(format!("flow {f}: sent {s} != delivered {d} + dropped {x} + in flight {i}"));
            }
        }
        let ok = failures.is_empty() && sent == delivered + dropped + flying;
        if sent != delivered + dropped + flying {
            failures.push(format!("total: sent {sent} != delivered {delivered} + dropped {dropped} + in flight {flying}"));
        }
        check(
            ok,
            "data packets sent = delivered + dropped + in flight, per flow and in total",
            failures,
            json!({ "sent": sent, "delivered": delivered, "dropped": dropped, "in_flight": flying }),
        )
    }

    /// Whether the model guarantees that lossless priorities never drop: PFC or PAUSE
    /// on, headroom computed by the model, XOFF placed by the model (each fabric model
    /// says why not, `FabricModel::lossless_unchecked`).
    fn lossless_guaranteed(&self) -> Result<(), &'static str> {
        self.models.lossless_unchecked().map_or(Ok(()), Err)
    }

    fn check_lossless(&self) -> Value {
        const WHAT: &str = "no data frame of a lossless priority dropped (PFC/PAUSE with the model's headroom)";
        let mut failures = Vec::new();
        let mut drops = 0u64;
        for (i, c) in self.fx.prio_stats.iter().enumerate() {
            let (port, prio) = self.fx.slots.port_prio(i);
            let n: u64 = c.drops.iter().sum();
            if n == 0 || !self.is_lossless(prio) {
                continue;
            }
            if self.models.nic_drops_lossless() && self.fx.nodes[self.fx.ports[port].node.idx()].is_host {
                continue;
            }
            drops += n;
            if failures.len() < MAX_LISTED {
                let p = &self.fx.ports[port];
                let (node, peer) = (&self.fx.nodes[p.node.idx()].name, &self.fx.nodes[self.fx.ports[p.peer.idx()].node.idx()].name);
                failures.push(format!("model error: {n} drops on lossless priority {prio} at port {port} ({node:?} from {peer:?})"));
            }
        }
        let checked = self.lossless_checked();
        match self.lossless_guaranteed() {
            Ok(()) => check(drops == 0, WHAT, failures, json!({ "applies": true, "lossless_drops": drops, "checked": checked })),
            Err(why) => json!({ "ok": true, "what": WHAT, "applies": false, "note": why, "lossless_drops": drops, "checked": checked }),
        }
    }

    /// The priorities whose drops `check_lossless` counts, and those that carry flows
    /// but are lossy (their drops are not its concern), in words.
    fn lossless_checked(&self) -> String {
        let used = self.flows.iter().fold(0u8, |m, f| m | 1 << f.prio);
        let lossy_used = (0..8u8).filter(|&q| used & (1 << q) != 0 && !self.is_lossless(q)).fold(0u8, |m, q| m | 1 << q);
        let mut text = self.models.lossless_text();
        if lossy_used != 0 {
            text += &format!("; flows on lossy priorities [{}] are not covered", crate::keys::kind::priority_numbers(lossy_used));
        }
        text
    }

    fn check_counters(&self) -> Value {
        const HALF: u64 = 1 << 63;
        let mut failures = Vec::new();
        let mut queued = 0u64;
        for p in 0..self.fx.ports.len() {
            for prio in self.fx.slots.prios() {
                let b = self.fx.egress.queue(PortId(p as u32), prio).bytes;
                if b >= HALF && failures.len() < MAX_LISTED {
                    failures.push(format!("egress queue of port {p} priority {prio} is negative ({} B)", b as i64));
                }
                queued = queued.wrapping_add(b);
            }
        }
        let (charged, mmu_bad) = self.fx.mmu.audit();
        for m in mmu_bad.into_iter().take(MAX_LISTED) {
            failures.push(m);
        }
        if failures.is_empty() && charged != queued {
            failures.push(format!("the MMU charges {charged} B but the egress queues hold {queued} B"));
        }
        check(
            failures.is_empty(),
            "no queue or MMU counter negative; the MMU charges what the egress queues hold",
            failures,
            json!({ "queued_bytes": queued, "charged_bytes": charged }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim() -> Simulation {
        let text = r#"
[simulation]
duration = "20us"
[topology]
type = "star"
hosts = 3
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "incast"
receiver = "h0"
senders = ["h1", "h2"]
"#;
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        while s.run_until(s.end()) {}
        s
    }

    #[test]
    fn a_clean_run_passes_every_check() {
        let s = sim();
        let c = s.run_checks();
        assert_eq!(c["ok"], json!(true), "{c}");
        assert_eq!(c["lossless_no_drops"]["applies"], json!(true), "{c}");
        assert!(c["conservation"]["in_flight"].as_u64().unwrap() > 0, "{c}");
        assert_eq!(c["lossless_no_drops"]["checked"], json!("priorities [3] (switch.pfc.lossless)"), "{c}");
        // The check's words are not a result: the digest is that of a summary without them.
        let with = crate::Results { tables: vec![], summary: json!({ "checks": c.clone() }) };
        let mut bare = c.clone();
        bare["lossless_no_drops"].as_object_mut().unwrap().remove("checked");
        assert_eq!(with.digest(), crate::Results { tables: vec![], summary: json!({ "checks": bare }) }.digest());
    }

    #[test]
    fn conservation_counts_each_flow_by_its_id() {
        // Flow 0 starts after the end: it has no records, and flow 1's count is its own.
        let text = "[simulation]\nduration = \"20us\"\n[topology]\ntype = \"star\"\nhosts = 3\nrate = \"40Gbps\"\ndelay = \"1us\"\n\
                    [[traffic]]\ntype = \"incast\"\nreceiver = \"h0\"\nsenders = [\"h1\"]\nstart = \"1ms\"\n\
                    [[traffic]]\ntype = \"incast\"\nreceiver = \"h0\"\nsenders = [\"h2\"]\n";
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        while s.run_until(s.end()) {}
        assert!(!s.tx_stats.has(0) && s.tx_stats.has(1));
        let c = s.run_checks();
        assert_eq!(c["conservation"]["ok"], json!(true), "{c}");
        assert!(c["conservation"]["in_flight"].as_u64().unwrap() > 0, "{c}");
    }

    #[test]
    fn the_lossless_check_names_lossy_priorities_with_flows() {
        let text = "[simulation]\nduration = \"10us\"\n[topology]\ntype = \"star\"\nhosts = 3\nrate = \"40Gbps\"\ndelay = \"1us\"\n\
                    [switch.pfc]\nlossless = [3, 5]\n[[traffic]]\ntype = \"incast\"\nreceiver = \"h0\"\nsenders = [\"h1\", \"h2\"]\npriority = 1\n";
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let c = Simulation::new(&plan).unwrap().run_checks();
        assert_eq!(
            c["lossless_no_drops"]["checked"],
            json!("priorities [3, 5] (switch.pfc.lossless); flows on lossy priorities [1] are not covered"),
            "{c}"
        );
    }

    #[test]
    fn violations_are_reported_with_flow_and_port() {
        let mut s = sim();
        s.tx_stats[1].pkts_sent += 1;
        let p = s.fx.nodes.iter().position(|n| !n.is_host).unwrap();
        let port = s.fx.nodes[p].ports.start as usize;
        s.fx.prio_stats[s.fx.slots.at(port, 3)].drops[0] += 2;
        s.fx.egress.queue_bytes_mut(PortId(port as u32), 3, 5);
        let c = s.run_checks();
        assert_eq!(c["ok"], json!(false));
        let f = |k: &str| c[k]["failures"].to_string();
        assert!(f("conservation").contains("flow 1: sent"), "{c}");
        assert!(f("lossless_no_drops").contains(&format!("2 drops on lossless priority 3 at port {port}")), "{c}");
        assert!(f("counters_non_negative").contains("the MMU charges"), "{c}");
        let r = crate::Results { tables: vec![], summary: json!({ "checks": c }) };
        assert!(!r.checks_passed());
        assert_eq!(r.failed_checks().len(), 4, "{:?}", r.failed_checks());
    }

    #[test]
    fn a_stopped_clock_ends_the_run_and_fails_its_check() {
        let text = "[simulation]\nduration = \"20us\"\n[topology]\ntype = \"star\"\nhosts = 3\nrate = \"40Gbps\"\ndelay = \"1us\"\n\
                    [[traffic]]\ntype = \"incast\"\nreceiver = \"h0\"\nsenders = [\"h1\", \"h2\"]\n";
        let plan = crate::scenario::load_str(text, std::path::Path::new("."), &[]).unwrap();
        let mut s = Simulation::new(&plan).unwrap();
        // Both flows start at 0 ps: with a limit of 0 the second event there trips it.
        s.watchdog = Watchdog::with_limit(0);
        assert!(!s.run_until(s.end()));
        assert_eq!(s.stalled(), Some(SimTime::ZERO));
        assert!(!s.run_until(s.end()), "a stalled run stays stopped");
        let c = s.run_checks();
        assert_eq!(c["clock_advances"]["ok"], json!(false), "{c}");
        assert!(c["clock_advances"]["failures"][0].as_str().unwrap().contains("stopped at 0 ps"), "{c}");
    }

    #[test]
    fn watchdog_trips_only_on_a_stopped_clock() {
        let mut w = Watchdog::with_limit(3);
        for t in 0..100 {
            assert!(!w.same_time(SimTime(t)));
            assert!(!w.same_time(SimTime(t)));
        }
        assert!(!w.same_time(SimTime(7_000)));
        assert!(!w.same_time(SimTime(7_000)));
        assert!(!w.same_time(SimTime(7_000)));
        assert!(!w.same_time(SimTime(7_000)));
        assert!(w.same_time(SimTime(7_000)));
        assert_eq!(w.stalled, Some(SimTime(7_000)));
    }
}
