//! DCTCP against the fluid analysis of Alizadeh et al., "Data Center TCP (DCTCP)",
//! SIGCOMM 2010, Section 3.3: N long flows, one bottleneck of capacity C that marks above
//! K (step), round-trip time RTT. In packets:
//!   Q_max = K + N,  A = 1/2 sqrt(2 N (C RTT + K)),  Q_min = Q_max - A,
//! and the link stays fully used while Q_min > 0, i.e. for K above about C RTT / 7.
//! The packet-level queue runs about two packets above the fluid bounds (marks take one
//! RTT to act on a window that grows by one packet per RTT per flow, and the queue is
//! sampled every 5 us): the test allows 3 packets on each bound.

use std::path::Path;

use dcsim::results::{Column, Results};

/// Frame bytes of one packet (1460 B payload + 62 B header) and C x RTT in packets.
const PKT: f64 = 1522.0;
const C_RTT: f64 = 81.0;
const N: f64 = 2.0;

fn run(k_pkts: u64) -> Results {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dctcp_fluid_2flows.toml");
    let plan = dcsim::scenario::load_file(&file, &[format!("switch.ecn.kmin=\"{}B\"", k_pkts * 1522)]).unwrap();
    dcsim::sim::run(&plan).unwrap()
}

/// (min, max) of the busiest switch queue after the steady start, in packets; total
/// steady goodput in Gb/s.
fn bottleneck(r: &Results) -> (f64, f64, f64) {
    let s = r.table("samples").unwrap();
    let (Some(Column::U64(t)), Some(Column::U64(port)), Some(Column::U64(q))) = (s.get("time_ps"), s.get("port_id"), s.get("egress_bytes"))
    else {
        panic!("samples table")
    };
    let busiest = (0..q.len()).max_by_key(|&i| q[i]).map(|i| port[i]).unwrap();
    let v: Vec<u64> = (0..q.len()).filter(|&i| port[i] == busiest && t[i] >= 20_000_000_000).map(|i| q[i]).collect();
    let Some(Column::F64(g)) = r.table("flows").unwrap().get("goodput_steady_gbps") else { panic!() };
    (*v.iter().min().unwrap() as f64 / PKT, *v.iter().max().unwrap() as f64 / PKT, g.iter().sum())
}

#[test]
fn queue_oscillates_within_the_fluid_bounds() {
    let ceiling = 10.0 * 1460.0 / 1542.0;
    for k in [20u64, 40] {
        let (qmin, qmax, goodput) = bottleneck(&run(k));
        let k = k as f64;
        let pred_max = k + N;
        let pred_min = pred_max - 0.5 * (2.0 * N * (C_RTT + k)).sqrt();
        assert!((qmax - pred_max).abs() <= 3.0, "K = {k}: Q_max {qmax:.1} packets, fluid {pred_max:.1}");
        assert!((qmin - pred_min).abs() <= 3.0, "K = {k}: Q_min {qmin:.1} packets, fluid {pred_min:.1}");
        assert!(goodput >= 0.995 * ceiling, "K = {k} > C RTT / 7: link fully used ({goodput:.3} of {ceiling:.3} Gb/s)");
    }
}

#[test]
fn a_small_k_empties_the_queue() {
    // K = 2 packets, far below C RTT / 7 = 11.6: the fluid Q_min is negative.
    let (qmin, _, goodput) = bottleneck(&run(2));
    assert_eq!(qmin, 0.0, "the queue runs empty");
    let ceiling = 10.0 * 1460.0 / 1542.0;
    assert!(goodput < 0.995 * ceiling, "and the link loses throughput: {goodput:.3} of {ceiling:.3} Gb/s");
}
