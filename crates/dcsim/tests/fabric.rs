//! Acceptance scenarios of the PFC fabric (issue: foundation), built in code so that each
//! setting under test is explicit. Shipped scenario files are exercised by the Python
//! suite; `seed_scenario_file_matches_published_goodput` runs the seed file here too.

mod common;
use common::*;
use dcsim::plan::*;
use dcsim::results::Column;
use dcsim::{sim, SimTime};

/// Payload goodput ceiling of a link: payload / (payload + 82 B of RoCEv2 wire overhead).
fn ceiling_gbps(link_gbps: f64, mtu: u32) -> f64 {
    link_gbps * mtu as f64 / (mtu + 82) as f64
}

fn within(x: f64, target: f64, tol: f64) -> bool {
    (x - target).abs() <= tol * target
}

fn drops(r: &dcsim::Results) -> u64 {
    r.summary["counters"]["drops_total"].as_u64().unwrap()
}

#[test]
fn parking_lot_pfc_gives_the_published_unfair_shares() {
    let r = sim::run(&parking_lot(SimTime::ms(10))).unwrap();
    let g = col_f64(&r, "flows", "goodput_steady_gbps");
    // Seed 000, Table II "NO RCM": A = B = C = 6.3, D = 18.9 Gb/s (within 3 %).
    for (i, &x) in g.iter().enumerate() {
        let target = if i < 3 { 6.3 } else { 18.9 };
        assert!(within(x, target, 0.03), "flow {i}: {x} Gb/s vs {target}");
    }
    assert_eq!(drops(&r), 0);
    // The receiver's link is saturated: the four shares add up to its goodput ceiling.
    let total: f64 = g.iter().sum();
    assert!(total >= 0.995 * ceiling_gbps(40.0, 2048), "total {total}");
}

#[test]
fn parking_lot_with_per_flow_arbitration_is_fair() {
    let mut plan = parking_lot(SimTime::ms(10));
    plan.switch.arbitration = Arbitration::PerFlow;
    let r = sim::run(&plan).unwrap();
    let g = col_f64(&r, "flows", "goodput_steady_gbps");
    let fair = ceiling_gbps(40.0, 2048) / 4.0;
    for &x in g {
        assert!(within(x, fair, 0.03), "{g:?} vs {fair}");
    }
    assert_eq!(drops(&r), 0);
}

#[test]
fn lossy_fabric_drops_and_counts_by_reason_pfc_does_not() {
    let mut plan = parking_lot(SimTime::ms(5));
    plan.switch.buffer = BufferPlan::Static { port_buffer: 100_000 };
    plan.fabric.pfc.mode = FlowControl::None;
    let lossy = sim::run(&plan).unwrap();
    assert!(drops(&lossy) > 0);
    assert_eq!(lossy.summary["counters"]["drops"]["buffer_full"], drops(&lossy));
    assert!(lossy.summary["counters"]["retransmitted_packets"].as_u64().unwrap() > 0, "go-back-N recovers");

    plan.fabric.pfc.mode = FlowControl::Pfc;
    let lossless = sim::run(&plan).unwrap();
    assert_eq!(drops(&lossless), 0);
    assert!(lossless.summary["counters"]["pfc_xoff_sent"].as_u64().unwrap() > 0);
}

#[test]
fn incast_64_to_1_at_100g_is_lossless_and_keeps_the_receiver_busy() {
    let mut plan = incast(64, 100, 1000, None, SimTime::ms(3));
    plan.stats.steady_start = SimTime::ms(1);
    let r = sim::run(&plan).unwrap();
    assert_eq!(drops(&r), 0);
    assert!(r.table("pfc_events").unwrap().rows() > 0, "pause events are logged");
    let total: f64 = col_f64(&r, "flows", "goodput_steady_gbps").iter().sum();
    let ceiling = ceiling_gbps(100.0, plan.host.mtu);
    println!("TMP pfc rows {} total {total} ceiling {ceiling}", r.table("pfc_events").unwrap().rows());
    assert!(total >= 0.95 * ceiling, "receiver goodput {total} Gb/s vs ceiling {ceiling}");
}

/// With static watermarks the charge of a paused ingress queue never exceeds XOFF plus
/// its headroom, and once PFC is active it does not fall below XON by more than what
/// drains during the XON round trip (bounded by one headroom). The egress link stays busy.
#[test]
fn incast_2_to_1_ingress_stays_between_the_watermarks() {
    let mut plan = incast(2, 40, 500, None, SimTime::ms(3));
    plan.switch.buffer = BufferPlan::Static { port_buffer: 200_000 };
    plan.fabric.pfc.xoff = Some(60_000);
    plan.fabric.pfc.xon = Some(40_000);
    plan.stats.steady_start = SimTime::ms(1);
    let r = sim::run(&plan).unwrap();
    assert_eq!(drops(&r), 0);
    let t = r.table("ports").unwrap();
    let (maxi, mini, xoff_tx) =
        (col_u64(&r, "ports", "max_ingress_bytes"), col_u64(&r, "ports", "min_ingress_after_xoff"), col_u64(&r, "ports", "pfc_xoff_sent"));
    let (hr, xoff, xon) = (col_u64(&r, "ports", "headroom_bytes"), col_u64(&r, "ports", "xoff_bytes"), col_u64(&r, "ports", "xon_bytes"));
    let mut checked = 0;
    for i in 0..t.rows() {
        if xoff_tx[i] == 0 {
            continue;
        }
        checked += 1;
        assert!(maxi[i] <= xoff[i] + hr[i], "max {} > xoff {} + headroom {}", maxi[i], xoff[i], hr[i]);
        assert!(maxi[i] >= xoff[i], "the queue reached XOFF");
        assert!(mini[i] + hr[i] >= xon[i], "min {} below xon {} - headroom {}", mini[i], xon[i], hr[i]);
        eprintln!("ingress port {i}: xon {} xoff {} headroom {} observed [{}, {}]", xon[i], xoff[i], hr[i], mini[i], maxi[i]);
    }
    assert_eq!(checked, 2, "both sender-facing ports paused their senders");
    let total: f64 = col_f64(&r, "flows", "goodput_steady_gbps").iter().sum();
    assert!(total >= 0.99 * ceiling_gbps(40.0, plan.host.mtu), "{total}");
}

/// The headroom formula is sufficient: with XOFF placed so that only the computed
/// headroom is left, long links and large frames still never drop.
#[test]
fn computed_headroom_is_enough_on_long_links() {
    let mut plan = incast(8, 100, 10_000, None, SimTime::ms(2));
    plan.host.mtu = 4096;
    plan.switch.buffer = BufferPlan::Static { port_buffer: 400_000 };
    let r = sim::run(&plan).unwrap();
    assert_eq!(drops(&r), 0);
    let maxi = col_u64(&r, "ports", "max_ingress_bytes");
    let (hr, xoff) = (col_u64(&r, "ports", "headroom_bytes"), col_u64(&r, "ports", "xoff_bytes"));
    assert!(maxi.iter().zip(xoff).any(|(m, x)| m > x), "some queue used its headroom");
    for i in 0..maxi.len() {
        assert!(maxi[i] <= xoff[i] + hr[i] || hr[i] == 0);
    }
}

/// Too little headroom is visible: drops are counted as headroom_exceeded, not hidden.
#[test]
fn too_little_headroom_drops_and_says_why() {
    let mut plan = incast(8, 100, 10_000, None, SimTime::ms(1));
    plan.switch.buffer = BufferPlan::Static { port_buffer: 400_000 };
    plan.fabric.pfc.headroom = Headroom::Fixed(5_000);
    let r = sim::run(&plan).unwrap();
    assert!(r.summary["counters"]["drops"]["headroom_exceeded"].as_u64().unwrap() > 0);
}

#[test]
fn pause_8023x_stops_the_whole_link_and_is_lossless() {
    let mut plan = incast(4, 40, 500, None, SimTime::ms(2));
    plan.fabric.pfc.mode = FlowControl::Pause;
    plan.flows[0].priority = 1; // different priorities, one PAUSE class
    let r = sim::run(&plan).unwrap();
    assert_eq!(drops(&r), 0);
    assert!(r.summary["counters"]["pfc_xoff_sent"].as_u64().unwrap() > 0);
}

#[test]
fn finite_messages_complete_with_sane_fct() {
    let plan = incast(4, 100, 1000, Some(1_000_000), SimTime::ms(5));
    let r = sim::run(&plan).unwrap();
    let t = r.table("flows").unwrap();
    let Some(Column::I64(fct)) = t.get("fct_ps") else { panic!() };
    let Some(Column::I64(ideal)) = t.get("ideal_fct_ps") else { panic!() };
    let slow = col_f64(&r, "flows", "slowdown");
    for i in 0..4 {
        assert!(fct[i] > 0, "flow {i} finished");
        assert!(fct[i] >= ideal[i], "FCT {} below ideal {}", fct[i], ideal[i]);
        // Four equal flows sharing one link: each takes about 4x its ideal.
        assert!((3.0..4.6).contains(&slow[i]), "slowdown {}", slow[i]);
    }
    assert_eq!(r.summary["counters"]["flows_finished"], 4);
}

#[test]
fn a_lone_flow_meets_its_ideal_fct() {
    let plan = incast(1, 100, 1000, Some(100_000), SimTime::ms(1));
    let r = sim::run(&plan).unwrap();
    let slow = col_f64(&r, "flows", "slowdown");
    assert!(slow[0] < 1.0001, "alone in the fabric, slowdown {}", slow[0]);
}

#[test]
fn same_seed_same_results_other_seed_other_paths() {
    let build = |seed| {
        let (mut p, hosts) = fat_tree(4, 100, 1000, SimTime::us(300));
        p.seed = seed;
        permutation(&mut p, &hosts, 7); // the same flows for every seed
        p
    };
    let a = sim::run(&build(1)).unwrap();
    let b = sim::run(&build(1)).unwrap();
    // Debug text compares NaN (slowdown of long-lived flows) as equal to itself.
    assert_eq!(format!("{:?}", a.tables), format!("{:?}", b.tables));
    assert_eq!(a.summary, b.summary);
    let c = sim::run(&build(2)).unwrap();
    assert_ne!(col_u64(&a, "ports", "tx_bytes"), col_u64(&c, "ports", "tx_bytes"), "ECMP paths move with the seed");
}

#[test]
fn symmetric_senders_get_symmetric_service() {
    // Two identical senders into a lossy, tight switch: whoever wins simultaneous
    // arrivals would take all the drops if ties were served in a fixed order.
    let mut plan = incast(2, 40, 1000, None, SimTime::ms(5));
    plan.fabric.pfc.mode = FlowControl::None;
    plan.switch.buffer = BufferPlan::Static { port_buffer: 30_000 };
    plan.switch.egress_limit = Some(20_000);
    plan.stats.steady_start = SimTime::ms(1);
    let r = sim::run(&plan).unwrap();
    let d = col_u64(&r, "ports", "drops_egress_full");
    let node = match r.table("ports").unwrap().get("node").unwrap() {
        Column::Str(v) => v.iter().map(String::from).collect::<Vec<_>>(),
        _ => panic!(),
    };
    let per_sender: Vec<u64> = (0..d.len()).filter(|&i| node[i] == "S0" && d[i] > 0).map(|i| d[i]).collect();
    assert_eq!(per_sender.len(), 2, "{d:?}");
    assert!(within(per_sender[0] as f64, per_sender[1] as f64, 0.1), "drops per sender {per_sender:?}");
}

#[test]
fn seed_scenario_file_matches_published_goodput() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seed000_parking_lot_pfc.toml");
    let plan = dcsim::scenario::load_file(&path, &[]).unwrap();
    let r = sim::run(&plan).unwrap();
    let g = col_f64(&r, "flows", "goodput_steady_gbps");
    for (i, &x) in g.iter().enumerate() {
        let target = if i < 3 { 6.3 } else { 18.9 };
        assert!(within(x, target, 0.03), "flow {i}: {x} Gb/s vs {target}");
    }
    let per_flow = dcsim::scenario::load_file(&path, &["switch.arbitration=\"per_flow\"".to_string()]).unwrap();
    let g = sim::run(&per_flow).unwrap();
    let g = col_f64(&g, "flows", "goodput_steady_gbps");
    for &x in g {
        assert!(within(x, ceiling_gbps(40.0, 2048) / 4.0, 0.03), "{g:?}");
    }
}

/// Statistics observe; they must not change what they observe. Sampling, goodput bins
/// and the PFC log on or off give the same flows and counters.
#[test]
fn statistics_do_not_perturb_the_run() {
    let run = |on: bool| {
        let mut plan = incast(4, 40, 1000, None, SimTime::ms(2));
        plan.fabric.marking.ecn = EcnPlan { mode: EcnMode::Red, kmin: Some(5_000), kmax: Some(50_000), pmax: 0.1, ..EcnPlan::default() };
        plan.stats.sample_interval = on.then_some(SimTime::ns(700));
        plan.stats.goodput_interval = on.then_some(SimTime::us(3));
        plan.stats.max_pfc_events = if on { 1_000_000 } else { 0 };
        sim::run(&plan).unwrap()
    };
    let (a, b) = (run(true), run(false));
    assert!(a.table("samples").unwrap().rows() > 1000);
    assert_eq!(format!("{:?}", a.table("flows")), format!("{:?}", b.table("flows")));
    assert_eq!(a.summary["counters"], b.summary["counters"]);
}

/// Closed-loop messages: each message is posted when the previous one is acknowledged,
/// so a lone flow's ten messages take ten ideal FCTs, back to back.
#[test]
fn closed_loop_messages_follow_one_another() {
    let mut plan = incast(1, 100, 1000, Some(10_000), SimTime::ms(1));
    plan.flows[0].messages = 10;
    let r = sim::run(&plan).unwrap();
    assert_eq!(col_u64(&r, "flows", "messages_completed"), [10]);
    let t = r.table("flows").unwrap();
    let Some(Column::I64(fct)) = t.get("fct_ps") else { panic!() };
    let Some(Column::I64(ideal)) = t.get("ideal_fct_ps") else { panic!() };
    let ratio = fct[0] as f64 / (10 * ideal[0]) as f64;
    assert!((0.999..1.001).contains(&ratio), "10 messages took {ratio} x 10 ideal FCTs");
    let mean = col_f64(&r, "flows", "message_latency_mean_ps")[0];
    assert!((mean - ideal[0] as f64).abs() < 0.001 * ideal[0] as f64);
    // Until the end of the run: as many as fit.
    plan.flows[0].messages = 0;
    let r = sim::run(&plan).unwrap();
    let n = col_u64(&r, "flows", "messages_completed")[0];
    assert_eq!(n, (SimTime::ms(1).0 / ideal[0] as u64), "{n}");
}

/// UDP constant-bit-rate sources: no ACKs, no retransmission; a lossy bottleneck drops
/// the excess and the receiver gets the link's payload ceiling.
#[test]
fn udp_cbr_sources_are_unacknowledged_and_lossy() {
    let mut plan = incast(2, 10, 500, None, SimTime::ms(2));
    plan.fabric.pfc.mode = FlowControl::None;
    plan.switch.egress_limit = Some(150_000);
    for f in &mut plan.flows {
        f.transport = Transport::Udp;
        f.rate = Some(dcsim::Rate::gbps(8));
    }
    plan.stats.steady_start = SimTime::us(500);
    let r = sim::run(&plan).unwrap();
    assert!(drops(&r) > 0);
    assert_eq!(r.summary["counters"]["retransmitted_packets"], 0);
    let total: f64 = col_f64(&r, "flows", "goodput_steady_gbps").iter().sum();
    assert!(within(total, ceiling_gbps(10.0, plan.host.mtu), 0.01), "{total}");
    let ctrl: u64 = col_u64(&r, "ports", "ctrl_tx_bytes").iter().sum();
    assert_eq!(ctrl, 0, "no ACKs");
}

/// An egress port whose service rate follows a schedule (the QCN step test): a lossless
/// flow's goodput follows it.
#[test]
fn egress_rate_schedule_changes_service_rate() {
    let mut plan = incast(1, 10, 500, None, SimTime::ms(4));
    plan.switch.rate_schedule = vec![RateStep { node: 0, peer: 1, at: SimTime::ms(2), rate: dcsim::Rate::gbps(2) }];
    plan.stats.goodput_interval = Some(SimTime::ms(1));
    let r = sim::run(&plan).unwrap();
    let g = col_f64(&r, "goodput", "gbps");
    assert!(within(g[1], ceiling_gbps(10.0, plan.host.mtu), 0.01), "{g:?}");
    assert!(within(g[3], ceiling_gbps(2.0, plan.host.mtu), 0.01), "{g:?}");
    assert_eq!(drops(&r), 0);
}

/// Switch processing delay adds to every hop, and the ideal FCT accounts for it.
#[test]
fn processing_delay_adds_per_switch() {
    let base = sim::run(&incast(1, 10, 500, Some(10_000), SimTime::ms(1))).unwrap();
    let mut plan = incast(1, 10, 500, Some(10_000), SimTime::ms(1));
    plan.switch.processing_delay = SimTime::us(1);
    let slow = sim::run(&plan).unwrap();
    let fct = |r: &dcsim::Results| match r.table("flows").unwrap().get("fct_ps").unwrap() {
        Column::I64(v) => v[0],
        _ => panic!(),
    };
    assert_eq!(fct(&slow) - fct(&base), 2 * SimTime::us(1).0 as i64, "data and ACK each wait 1 us at the switch");
    assert!(col_f64(&slow, "flows", "slowdown")[0] < 1.0001);
}

#[test]
fn selective_repeat_resends_fewer_packets_than_go_back_n() {
    // The parking lot on a lossy fabric (no PFC, 100 KB per port), each source paced at
    // 11 Gb/s: 44 Gb/s into R's 40 Gb/s link, so R's port drops about one packet in ten
    // once its buffer is full; finite flows that lose packets there.
    let mut plan = parking_lot(SimTime::ms(10));
    plan.switch.buffer = BufferPlan::Static { port_buffer: 100_000 };
    plan.fabric.pfc.mode = FlowControl::None;
    for f in plan.flows.iter_mut() {
        f.size = Some(2_000_000);
        f.rate = Some(dcsim::Rate::gbps(11));
    }
    let retx = |r: &dcsim::Results| r.summary["counters"]["retransmitted_packets"].as_u64().unwrap();
    let gbn = sim::run(&plan).unwrap();
    plan.host.selective_repeat = true;
    let sr = sim::run(&plan).unwrap();
    for r in [&gbn, &sr] {
        let Some(Column::I64(fct)) = r.table("flows").unwrap().get("fct_ps") else { panic!() };
        eprintln!("fct {fct:?} delivered {:?} retx {} drops {}", col_u64(r, "flows", "bytes_delivered"), retx(r), drops(r));
    }
    assert!(drops(&gbn) > 0 && drops(&sr) > 0);
    // Every flow completes either way, each byte delivered once.
    for r in [&gbn, &sr] {
        let Some(Column::I64(fct)) = r.table("flows").unwrap().get("fct_ps") else { panic!() };
        assert!(fct.iter().all(|&t| t > 0), "{fct:?}");
        assert_eq!(r.summary["counters"]["flows_finished"], 4);
    }
    // Go-back-N resends everything after each hole; selective repeat only the holes.
    assert!(retx(&sr) > 0);
    assert!(retx(&sr) * 2 < retx(&gbn), "selective {} vs go-back-N {}", retx(&sr), retx(&gbn));
    eprintln!("retransmitted: go-back-N {}, selective {}; drops {} / {}", retx(&gbn), retx(&sr), drops(&gbn), drops(&sr));
}

/// `ideal_fct_ps` is the FCT of a flow alone in the empty fabric, exactly, for the frames
/// it sends: a lone flow on a path whose slowest link is neither first nor last, with a
/// short last frame or not, acknowledged or UDP, finishes at its ideal to the picosecond,
/// and its slowdown (not clamped) is 1. A short last frame crosses the hops after the
/// bottleneck faster than a full one; an ideal that charged it as full came out up to
/// (hops after the bottleneck) x (its missing bytes' time) above the FCT.
#[test]
fn a_lone_flow_finishes_at_its_ideal_fct() {
    for transport in [Transport::Roce, Transport::Udp] {
        for size in [1u64, 500, 1024, 1025, 2 * 1024 + 100, 5 * 1024, 7 * 1024 + 1] {
            let mut p = Plan::new("line", SimTime::ms(1));
            let h = host(&mut p, "H");
            let (s1, s2) = (switch(&mut p, "S1"), switch(&mut p, "S2"));
            let r = host(&mut p, "R");
            link(&mut p, h, s1, 40, 300);
            link(&mut p, s1, s2, 10, 500);
            link(&mut p, s2, r, 25, 200);
            flow(&mut p, h, r, Some(size), SimTime::us(1));
            p.flows[0].transport = transport;
            p.switch.processing_delay = SimTime::ns(150);
            let res = sim::run(&p).unwrap();
            let (fct, ideal) = (col_i64(&res, "flows", "fct_ps")[0], col_i64(&res, "flows", "ideal_fct_ps")[0]);
            assert_eq!(fct, ideal, "{transport:?} {size} B: FCT {fct} ps, ideal {ideal} ps");
            assert_eq!(col_f64(&res, "flows", "slowdown")[0], 1.0);
        }
    }
}
