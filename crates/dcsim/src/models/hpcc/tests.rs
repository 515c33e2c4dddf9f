//! Scripted ACK/INT sequences against hand-computed rates. Line 100 Gb/s, T = 10 us
//! (line-rate BDP 125 000 B), eta = 0.95, R_AI = 50 Mb/s unless a test says otherwise.

use super::*;
use crate::units::SimTime;

const US: u64 = 1_000_000;

fn params() -> HpccParams {
    HpccParams { ai: Some(HpccAi::Rate(Rate::mbps(50))), base_rtt: Some(SimTime::us(10)), ..HpccParams::default() }
}
fn hpcc(p: &HpccParams) -> Hpcc {
    Hpcc::from_params(p, &NicSpec { line_rate: Rate::gbps(100), mtu_wire: 1048, mss: 1000, base_rtt: SimTime::us(99) })
}
fn hop(ts_us: f64, tx_bytes: u64, qlen: u64) -> IntHop {
    IntHop { ts: SimTime((ts_us * US as f64) as u64), tx_bytes, qlen, rate: Rate::gbps(100) }
}
fn ack(to: u32, nxt: u32, int: &[IntHop]) -> Ack<'_> {
    Ack { newly_acked: 1000, acked_to: to, snd_nxt: nxt, rtt: SimTime::us(10), ece: false, nak: false, int, recovery: false }
}
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}
fn ctx() -> CcCtx {
    CcCtx::new(SimTime::ZERO, Rate::gbps(100))
}

#[test]
fn starts_at_line_rate_with_a_bdp_window_and_first_ack_only_records() {
    let mut h = hpcc(&params());
    assert!(h.wants_acks() && h.wants_int());
    assert_eq!(h.rate(), Rate::gbps(100));
    assert_eq!(h.window(), Some(125_000));
    h.on_ack(&mut ctx(), &ack(1, 10, &[hop(0.0, 0, 80_000)]));
    assert_eq!(h.rate, 1e11);
    assert_eq!(h.u, 1.0);
    // An ACK without telemetry changes nothing.
    h.on_ack(&mut ctx(), &ack(2, 10, &[]));
    assert_eq!(h.rate, 1e11);
}

#[test]
fn fast_react_then_per_rtt_update_then_additive_increase() {
    let mut h = hpcc(&params());
    let mut x = ctx();
    h.on_ack(&mut x, &ack(1, 10, &[hop(0.0, 0, 0)]));
    // ACK 2 (within the first RTT: fast react). 12 500 B in 1 us = 100 Gb/s: u = 1, and
    // min(qlen) = 0. U = (1 x 9 + 1 x 1) / 10 = 1. R = 100 G / (1 / 0.95) + 50 M.
    h.on_ack(&mut x, &ack(2, 10, &[hop(1.0, 12_500, 25_000)]));
    assert!(close(h.u, 1.0));
    assert!(close(h.rate, 95.05e9), "rate {}", h.rate);
    assert_eq!(h.cur_rate, 1e11, "fast react leaves the reference rate");
    assert_eq!(h.window(), Some((125_000.0 * 0.9505) as u64));
    // ACK 11 passes snd_nxt = 10: a per-RTT update. Link still at 100 Gb/s, min(qlen) =
    // 25 000 B: queue term 25 000 x 8 / (100 G x 10 us) = 0.2, u = 1.2.
    // U = (1 x 9 + 1.2 x 1) / 10 = 1.02; R = 100 G / (1.02 / 0.95) + 50 M.
    h.on_ack(&mut x, &ack(11, 30, &[hop(2.0, 25_000, 50_000)]));
    let r = 1e11 / (1.02 / 0.95) + 5e7;
    assert!(close(h.u, 1.02), "U {}", h.u);
    assert!(close(h.rate, r), "rate {} want {r}", h.rate);
    assert!(close(h.cur_rate, r));
    assert_eq!(h.inc_stage, 0);
    // ACK 12 (fast react), 10 us later (tau clamped to T: U = u). 62 500 B in 10 us =
    // 50 Gb/s, no queue: u = 0.5 < eta: additive, R = Rc + 50 M; stage kept.
    h.on_ack(&mut x, &ack(12, 30, &[hop(12.0, 87_500, 0)]));
    assert!(close(h.u, 0.5), "U {}", h.u);
    assert!(close(h.rate, r + 5e7), "rate {}", h.rate);
    assert!(close(h.cur_rate, r));
    assert_eq!(h.inc_stage, 0);
}

#[test]
fn max_stage_additive_steps_then_a_multiplicative_one() {
    let mut h = hpcc(&params());
    let mut x = ctx();
    h.cur_rate = 10e9;
    h.rate = 10e9;
    // 5 Gb/s on the link, no queue, every update one T apart: U = u = 0.05.
    let mut tx = 0;
    h.on_ack(&mut x, &ack(1, 2, &[hop(0.0, tx, 0)]));
    let mut expect: f64 = 10e9;
    for k in 0..7u32 {
        tx += 6_250; // 5 Gb/s x 10 us
        let seq = 2 * k + 3;
        h.on_ack(&mut x, &ack(seq, seq + 1, &[hop(10.0 * (k + 1) as f64, tx, 0)]));
        assert!(close(h.u, 0.05), "U {}", h.u);
        if k == 5 {
            // Stage 5 = maxStage: multiplicative although U < eta (capped at line rate).
            expect = (expect / (0.05 / 0.95) + 5e7).min(1e11);
            assert_eq!(h.inc_stage, 0);
        } else {
            expect = (expect + 5e7).min(1e11); // additive, stage + 1
            assert_eq!(h.inc_stage, if k < 5 { k + 1 } else { 1 });
        }
        assert!(close(h.rate, expect), "step {k}: rate {} want {expect}", h.rate);
    }
    assert_eq!(h.rate, 1e11, "capped at the line rate");
}

#[test]
fn most_utilised_hop_decides_and_rate_never_below_minimum() {
    let mut p = params();
    p.rate_min = Rate::gbps(1);
    let mut h = hpcc(&p);
    let mut x = ctx();
    h.on_ack(&mut x, &ack(1, 5, &[hop(0.0, 0, 0), hop(0.5, 0, 1_000_000)]));
    // Hop 1: 100 Gb/s, no queue: u = 1 (tau 2 us). Hop 2: 100 Gb/s and min(qlen) =
    // 1 000 000 B: u = 1 + 8e6 / 1e6 = 9 (tau 1.5 us). U = (1 x 8.5 + 9 x 1.5) / 10 = 2.2.
    h.on_ack(&mut x, &ack(6, 9, &[hop(2.0, 25_000, 0), hop(2.0, 18_750, 1_000_000)]));
    assert!(close(h.u, 2.2), "U {}", h.u);
    let r = 1e11 / (2.2 / 0.95) + 5e7;
    assert!(close(h.rate, r), "rate {} want {r}", h.rate);
    // Hop 2, 10 us later (tau = T: U = u), 100 Gb/s and min(qlen) = 1e6 B again: U = 9.
    h.on_ack(&mut x, &ack(10, 12, &[hop(3.0, 37_500, 0), hop(12.0, 143_750, 100_000_000)]));
    assert!(close(h.u, 9.0), "U {}", h.u);
    let r = r / (9.0 / 0.95) + 5e7;
    assert!(close(h.rate, r), "rate {} want {r}", h.rate);
    // Then min(qlen) = 1e8 B: U = 801, R = Rc / 843 + 50 M is below rate_min: the rate
    // floors at 1 Gb/s and the window at its share of the BDP.
    h.on_ack(&mut x, &ack(13, 15, &[hop(4.0, 50_000, 0), hop(22.0, 268_750, 100_000_000)]));
    assert!(close(h.u, 801.0), "U {}", h.u);
    assert_eq!(h.rate, 1e9);
    assert_eq!(h.window(), Some(1_250));
}

#[test]
fn w_ai_is_a_window_step_per_t_and_defaults_follow_the_nic() {
    let mut p = params();
    p.ai = Some(HpccAi::Window(125)); // 125 B per 10 us = 100 Mb/s
    assert!(close(hpcc(&p).ai, 1e8));
    // Defaults: R_AI = 10 Mb/s per 25 Gb/s; T = the NIC's base RTT (99 us here).
    let d = hpcc(&HpccParams::default());
    assert!(close(d.ai, 4e7));
    assert!(close(d.t, 99.0 * US as f64));
    // Without a window: pacing only.
    p.window = false;
    assert_eq!(hpcc(&p).window(), None);
}

#[test]
fn keys_and_checks() {
    use crate::keys::{Check, KeyCtx, Keys};
    let ctx = KeyCtx { line_rate: Some(Rate::gbps(100)), ..KeyCtx::NONE };
    let keys = |t: &str| -> crate::Result<HpccParams> {
        let k: HpccKeys = toml::from_str(t).map_err(|e| crate::Error::scenario("cc", e.to_string()))?;
        let p = k.build("cc", &ctx)?;
        p.check("cc", &ctx)?;
        Ok(p)
    };
    let p = keys("eta = 0.9\nmax_stage = 0\nw_ai = \"80B\"\nbase_rtt = \"8us\"\nwindow = false").unwrap();
    assert_eq!(
        p,
        HpccParams {
            eta: 0.9,
            max_stage: 0,
            ai: Some(HpccAi::Window(80)),
            base_rtt: Some(SimTime::us(8)),
            window: false,
            ..HpccParams::default()
        }
    );
    let err = |t: &str| keys(t).unwrap_err().to_string();
    assert!(err("eta = 1.5").contains("cc.eta: must be in (0, 1]"));
    assert!(err("rate_ai = \"1Gbps\"\nw_ai = \"1KB\"").contains("cc.w_ai: give either"));
    assert!(err("rate_ai = \"0bps\"").contains("cc.rate_ai: must be > 0"));
    assert!(err("rate_min = \"200Gbps\"").contains("cc.rate_min: must be <="));
    assert!(err("base_rtt = \"0us\"").contains("cc.base_rtt: must be > 0"));
    assert!(err("max_stage = -1").contains("cc.max_stage"));
}
