//! `host.ack_queue`: RoCE ACKs cross switches in the control class (default) or in their
//! flow's priority behind its data (the HPCC study's simulator).

mod common;
use common::*;
use dcsim::plan::*;
use dcsim::results::Column;
use dcsim::{sim, SimTime};

/// C and D send to A without end, so the switch port toward A holds a standing queue
/// (PFC pauses C and D to keep it within 300 KB per ingress port); A sends 100 KB to B,
/// whose ACKs cross that port.
fn ack_crosses_congested_port(acks_in_data: bool) -> Plan {
    let mut p = Plan::new("ack_queue", SimTime::us(400));
    let s = switch(&mut p, "S");
    let hs: Vec<u32> = ["A", "B", "C", "D"].iter().map(|n| host(&mut p, n)).collect();
    for &h in &hs {
        link(&mut p, h, s, 100, 1000);
    }
    flow(&mut p, hs[0], hs[1], Some(100_000), SimTime::us(100));
    flow(&mut p, hs[2], hs[0], None, SimTime::ZERO);
    flow(&mut p, hs[3], hs[0], None, SimTime::ZERO);
    p.host.acks_in_data = acks_in_data;
    p.switch.buffer = BufferPlan::Static { port_buffer: 300_000 };
    p
}

/// The largest MMU charge of the switch's ingress port from B (which sends only ACKs).
fn charged_from_b(r: &dcsim::Results) -> u64 {
    let (node, port) = (col_u64(r, "ports", "node_id"), col_u64(r, "ports", "port"));
    let max_in = col_u64(r, "ports", "max_ingress_bytes");
    (0..node.len()).filter(|&i| node[i] == 0 && port[i] == 1).map(|i| max_in[i]).max().unwrap()
}

fn fct_and_ideal(r: &dcsim::Results) -> (i64, i64) {
    let t = r.table("flows").unwrap();
    let (Some(Column::I64(fct)), Some(Column::I64(ideal))) = (t.get("fct_ps"), t.get("ideal_fct_ps")) else { panic!("flows table") };
    (fct[0], ideal[0])
}

#[test]
fn data_class_acks_wait_behind_queued_data_control_acks_do_not() {
    let ctrl = sim::run(&ack_crosses_congested_port(false)).unwrap();
    let data = sim::run(&ack_crosses_congested_port(true)).unwrap();
    for r in [&ctrl, &data] {
        assert_eq!(r.summary["counters"]["drops_total"], 0, "lossless: no drop");
        assert_eq!(r.summary["checks"]["ok"], true, "{}", r.summary["checks"]);
    }
    // The queue toward A by the time the short flow starts (PFC holds it about there):
    // the same run stopped then.
    let mut before = ack_crosses_congested_port(true);
    before.duration = SimTime::us(100);
    let before = sim::run(&before).unwrap();
    let max_q = *col_u64(&before, "ports", "max_egress_bytes").iter().max().unwrap();
    let queue_ps = max_q as f64 * 8.0 / 100e9 * 1e12;
    assert!(max_q > 200_000, "a standing queue: {max_q} B");
    let (fc, ideal) = fct_and_ideal(&ctrl);
    let (fd, _) = fct_and_ideal(&data);
    // Control class: the way back has no queue, so the flow takes about its ideal time.
    assert!((fc as f64) < 1.2 * ideal as f64, "control ACKs: FCT {fc} ps, ideal {ideal} ps");
    // Data class: the last ACK waits behind the standing queue toward A.
    assert!((fd - fc) as f64 > 0.5 * queue_ps, "data ACKs: FCT {fd} ps vs {fc} ps, queue {queue_ps} ps");
    // PFC held the senders: no drop above, thanks to XOFF.
    assert!(data.summary["counters"]["pfc_xoff_sent"].as_u64().unwrap() > 0);
    // Data-class ACKs take buffer at the switch (charged to B's ingress port), control
    // ones do not.
    assert_eq!(charged_from_b(&ctrl), 0);
    assert!(charged_from_b(&data) >= 66, "{}", charged_from_b(&data));
}
