//! The IEEE 802.1Qau family against its seed studies: QCN step test (seed 003) and BCN,
//! FECN, E-FECN (seed 002), run from the shipped scenario files.

mod common;
use common::*;
use dcsim::results::Column;
use dcsim::{sim, SimTime};

fn scenario(name: &str, overrides: &[&str]) -> dcsim::Results {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    sim::run(&dcsim::scenario::load_file(&path, &ov).unwrap()).unwrap()
}

fn strs<'a>(r: &'a dcsim::Results, table: &str, col: &str) -> Vec<&'a str> {
    match r.table(table).unwrap().get(col).unwrap() {
        Column::Str(v) => v.iter().collect(),
        _ => panic!(),
    }
}

/// Time-weighted sum of the sources' rates (Gb/s) per window of `win` up to `end`; a
/// source is at line rate (`line` Gb/s) until its first rate change.
fn source_rate(r: &dcsim::Results, n_flows: usize, line: f64, win: SimTime, end: SimTime) -> Vec<f64> {
    let (t, f, v) = (col_u64(r, "rates", "time_ps"), col_u64(r, "rates", "flow_id"), col_f64(r, "rates", "rate_gbps"));
    let n = (end.0 / win.0) as usize;
    let mut out = vec![0.0; n];
    for flow in 0..n_flows as u64 {
        let mut steps: Vec<(u64, f64)> = vec![(0, line)];
        steps.extend((0..t.len()).filter(|&i| f[i] == flow).map(|i| (t[i], v[i])));
        for (k, &(t0, rate)) in steps.iter().enumerate() {
            let t1 = steps.get(k + 1).map_or(end.0, |s| s.0);
            for (w, slot) in out.iter_mut().enumerate() {
                let (a, b) = (w as u64 * win.0, (w as u64 + 1) * win.0);
                let overlap = t1.min(b).saturating_sub(t0.max(a));
                *slot += rate * overlap as f64 / win.0 as f64;
            }
        }
    }
    out
}

/// Mean egress queue (bytes) of `node` toward `peer` over [from, to).
fn mean_queue(r: &dcsim::Results, node: &str, peer: &str, from: SimTime, to: SimTime) -> f64 {
    let (n, p, pid) = (strs(r, "ports", "node"), strs(r, "ports", "peer"), col_u64(r, "ports", "port_id"));
    let port = pid[(0..n.len()).find(|&i| n[i] == node && p[i] == peer).unwrap()];
    let (t, sp, q) = (col_u64(r, "samples", "time_ps"), col_u64(r, "samples", "port_id"), col_u64(r, "samples", "egress_bytes"));
    let v: Vec<f64> = (0..t.len()).filter(|&k| sp[k] == port && t[k] >= from.0 && t[k] < to.0).map(|k| q[k] as f64).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Per-source goodput (Gb/s) averaged over the 1 ms bins in [from, to).
fn goodput_between(r: &dcsim::Results, n_flows: usize, from: SimTime, to: SimTime) -> Vec<f64> {
    let (f, t, g) = (col_u64(r, "goodput", "flow_id"), col_u64(r, "goodput", "time_ps"), col_f64(r, "goodput", "gbps"));
    let bins = ((to.0 - from.0) / SimTime::ms(1).0) as f64;
    (0..n_flows as u64)
        .map(|fl| (0..f.len()).filter(|&i| f[i] == fl && t[i] >= from.0 && t[i] < to.0).map(|i| g[i]).sum::<f64>() / bins)
        .collect()
}

/// Seed 003, one reaction point: once settled (200 ms after each step) the source rate
/// is within 5 % of the limit in every 10 ms window, the queue sits near Q_EQ = 33 KB
/// in each phase, nothing is dropped.
#[test]
fn qcn_step_one_rp_follows_the_limit() {
    let r = scenario("seed003_qcn_step.toml", &[]);
    check_qcn_step(&r, 1, 0.05, 1.0);
    for (a, b) in [(3.0, 3.7), (6.5, 7.4), (10.0, 11.1)] {
        let q = mean_queue(&r, "SW", "DST", SimTime((a * 1e12) as u64), SimTime((b * 1e12) as u64));
        assert!((25_000.0..45_000.0).contains(&q), "queue {q} B in [{a}, {b}) s, Q_EQ 33 KB");
    }
}

/// Seed 003, eight reaction points (RTT 1 ms): the aggregate follows the limit; one
/// 10 ms window in the 200 Mb/s phase overshoots by 5.5 % (a source's recovery), so the
/// check is 99 % of windows within 5 % and none beyond 10 % (docs/models/qcn.md).
#[test]
fn qcn_step_eight_rps_follow_the_limit() {
    let r = scenario("seed003_qcn_step_8rp.toml", &[]);
    check_qcn_step(&r, 8, 0.10, 0.99);
}

fn check_qcn_step(r: &dcsim::Results, n: usize, worst: f64, share_within_5: f64) {
    assert_eq!(r.summary["counters"]["drops_total"], 0);
    let win = SimTime::ms(10);
    let agg = source_rate(r, n, 1.0, win, SimTime::ms(11_100));
    let (mut within, mut total) = (0, 0);
    for (w, &x) in agg.iter().enumerate() {
        let t = w as f64 * 0.01;
        let settling = [0.0, 3.7, 7.4].iter().any(|&s| t >= s && t < s + 0.2);
        if settling {
            continue;
        }
        let limit = if (3.7..7.4).contains(&t) { 0.2 } else { 0.95 };
        let err = (x - limit).abs() / limit;
        assert!(err <= worst, "window at {t:.2} s: {x:.3} Gb/s vs {limit}");
        within += (err <= 0.05) as usize;
        total += 1;
    }
    assert!(within as f64 >= share_within_5 * total as f64, "{within} of {total} windows within 5 %");
}

/// Seed 002: BCN leaves the sources with visibly different rates; FECN and E-FECN give
/// 2.5 Gb/s each (of 1500-byte frames) while four are active and 5 Gb/s after two stop
/// at 80 ms; FECN has a start-up transient with a full queue and drops, E-FECN neither;
/// all settle the core queue near Qeq = 24,000 B.
#[test]
fn bcn_fecn_efecn_seed002() {
    let share = 1438.0 / 1500.0; // payload share of a 1500-byte frame
    let bcn = scenario("seed002_bcn.toml", &[]);
    let g = goodput_between(&bcn, 4, SimTime::ms(20), SimTime::ms(80));
    let (lo, hi) = g.iter().fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
    assert!(hi > 1.3 * lo, "BCN is unfair: {g:?}");
    let q = mean_queue(&bcn, "CS", "DU", SimTime::ms(30), SimTime::ms(80));
    assert!((12_000.0..36_000.0).contains(&q), "BCN core queue {q}");

    let mut transient = vec![];
    for file in ["seed002_fecn.toml", "seed002_efecn.toml"] {
        let r = scenario(file, &[]);
        for (i, &x) in goodput_between(&r, 4, SimTime::ms(20), SimTime::ms(80)).iter().enumerate() {
            assert!((x - 2.5 * share).abs() <= 0.05 * 2.5 * share, "{file} source {i}: {x}");
        }
        for &x in &goodput_between(&r, 2, SimTime::ms(85), SimTime::ms(100)) {
            assert!((x - 5.0 * share).abs() <= 0.05 * 5.0 * share, "{file} after two stop: {x}");
        }
        let q = mean_queue(&r, "CS", "DU", SimTime::ms(30), SimTime::ms(80));
        assert!((12_000.0..48_000.0).contains(&q), "{file} core queue {q}");
        transient
            .push((mean_queue(&r, "CS", "DU", SimTime::ms(5), SimTime::ms(15)), r.summary["counters"]["drops_total"].as_u64().unwrap()));
    }
    let ((fecn_q, fecn_drops), (efecn_q, efecn_drops)) = (transient[0], transient[1]);
    assert!(fecn_q > 100_000.0 && fecn_drops > 0, "FECN start-up: queue {fecn_q}, drops {fecn_drops}");
    assert!(efecn_q < 0.6 * fecn_q, "E-FECN avoids the transient: {efecn_q} vs {fecn_q}");
    // The seed reports no drops with E-FECN. Here E-FECN drops 0 to 2 frames depending
    // on the seed (seeds 1-8, before and after the tie-break change alike; FECN drops
    // thousands): a frame or two still overflow while the first BCN00s are in flight.
    // Stated in docs/models/fecn.md.
    assert!(efecn_drops <= 5 && efecn_drops * 500 < fecn_drops, "E-FECN drops almost nothing: {efecn_drops} vs FECN {fecn_drops}");
}

/// Seed 002 with preamble and inter-frame gap on the wire (1520 B per 1500 B frame), a
/// 30 KB Qeq and a 600 KB egress limit: the switch must count the offered load in the
/// wire bytes its link rate counts, so that f(q) = 1 (q = Qeq) balances the port. Counted
/// in frame bytes, the load looks 1500/1520 of what it is and the queue settles where
/// f(q) = 1500/1520, about 9 x Qeq (258.6 KB), and E-FECN's sources then run 15-20 %
/// under their share.
#[test]
fn fecn_counts_wire_bytes_with_preamble_on_the_wire() {
    let share = 2.5 * 1438.0 / 1520.0; // goodput of a 2.5 Gb/s share of 1520 B on the wire
    let ov = ["host.preamble_ifg=true", "switch.l2cm.q_eq=\"30000B\"", "switch.egress_limit=\"600000B\"", "simulation.duration=\"60ms\""];
    for ty in ["fecn", "efecn"] {
        let file = format!("seed002_{ty}.toml");
        let r = scenario(&file, &ov);
        let q = mean_queue(&r, "CS", "DU", SimTime::ms(30), SimTime::ms(60));
        let g = goodput_between(&r, 4, SimTime::ms(30), SimTime::ms(60));
        println!(
            "{ty}, preamble on: CS->DU mean 30-60 ms {q:.0} B, goodput {g:.3?} Gb/s (share {share:.3}), drops {}",
            r.summary["counters"]["drops_total"]
        );
        assert!((15_000.0..45_000.0).contains(&q), "{ty}: core queue {q} B, Qeq 30 000 B");
        for (i, &x) in g.iter().enumerate() {
            assert!((x - share).abs() <= 0.05 * share, "{ty} source {i}: {x} Gb/s vs {share}");
        }
    }
}
