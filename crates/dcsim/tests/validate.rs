//! Validation is made on the plan alone; the world is built from a validated plan and
//! reports no user errors. These tests check that every plan that passes
//! `validate_plan` builds: the shipped scenarios, buffer sizes around the headroom
//! bound, and small random fabrics.

mod common;

use std::path::Path;

use dcsim::plan::*;
use dcsim::rng::Rng;
use dcsim::scenario::{load_file, validate::validate_plan};
use dcsim::{SimTime, Simulation};

fn builds(plan: &Plan) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Simulation::new(plan).is_ok())).unwrap_or(false)
}

#[test]
fn every_shipped_scenario_that_validates_builds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<_> = ["scenarios", "python/dcsim/benchmarks"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() > 10, "{files:?}");
    for f in &files {
        let plan = load_file(f, &[]).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        validate_plan(&plan).unwrap();
        assert!(builds(&plan), "{}: validated but does not build", f.display());
    }
}

/// Static and shared buffers from far too small to ample, with one and two lossless
/// classes, on links of different delays: whatever validates builds.
#[test]
fn buffer_sizes_around_the_headroom_bound() {
    let mut base = common::parking_lot(SimTime::ms(2));
    base.links[4].delay = SimTime::us(3);
    let (mut ok, mut rejected) = (0, 0);
    for lossless in [0b1000u8, 0b1_1000] {
        for size in (1_000..80_000).step_by(997) {
            for buffer in [BufferPlan::Static { port_buffer: size }, BufferPlan::Shared { total: size * 4, reserve: 1024, alpha_shift: 3 }]
            {
                let mut p = base.clone();
                p.fabric.pfc.lossless = lossless;
                p.switch.buffer = buffer;
                if validate_plan(&p).is_ok() {
                    assert!(builds(&p), "{:?} lossless {lossless:#b}: validated but does not build", p.switch.buffer);
                    ok += 1;
                } else {
                    rejected += 1;
                }
            }
        }
    }
    assert!(ok > 50 && rejected > 50, "ok {ok}, rejected {rejected}");
}

/// Random small graphs of hosts and switches with random flows and rate-schedule steps.
#[test]
fn random_fabrics_that_validate_build() {
    let mut rng = Rng::stream(7, "fabrics");
    let mut ok = 0;
    for case in 0..3000 {
        let mut p = Plan::new("random", SimTime::ms(1));
        let n = 2 + rng.below(7) as u32;
        for i in 0..n {
            let kind = if rng.below(2) == 0 { NodeKind::Host } else { NodeKind::Switch };
            p.nodes.push(NodePlan { name: format!("n{i}"), kind });
        }
        let link = |p: &mut Plan, rng: &mut Rng, a: u32, b: u32| {
            let rate = dcsim::Rate::gbps([10, 40, 100][rng.below(3) as usize]);
            p.links.push(LinkPlan { a, b, rate, delay: SimTime::ns(100 + 400 * rng.below(4)) });
        };
        let switches: Vec<u32> = (0..n).filter(|&i| p.nodes[i as usize].kind == NodeKind::Switch).collect();
        if case % 4 != 0 && !switches.is_empty() {
            // Mostly well-formed: a random tree of switches, each host on one switch, a few
            // extra links (parallel links, cycles, host-host links).
            for (k, &s) in switches.iter().enumerate().skip(1) {
                let t = switches[rng.below(k as u64) as usize];
                link(&mut p, &mut rng, s, t);
            }
            let hosts: Vec<u32> = (0..n).filter(|&i| p.nodes[i as usize].kind == NodeKind::Host).collect();
            for h in hosts {
                let s = switches[rng.below(switches.len() as u64) as usize];
                link(&mut p, &mut rng, h, s);
            }
            for _ in 0..rng.below(3) {
                let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                link(&mut p, &mut rng, a, b);
            }
        } else {
            for _ in 0..rng.below(2 * n as u64 + 1) {
                let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                link(&mut p, &mut rng, a, b);
            }
        }
        for _ in 0..rng.below(4) {
            let (src, dst) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            let size = [None, Some(1), Some(100_000)][rng.below(3) as usize];
            p.flows.push(FlowPlan {
                src,
                dst,
                size,
                start: SimTime::ZERO,
                priority: rng.below(8) as u8,
                rate: None,
                group: 0,
                cc: 0,
                messages: 1,
                transport: Transport::Roce,
                stop: None,
                sw_limit: None,
            });
        }
        if rng.below(4) == 0 {
            let (node, peer) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            p.switch.rate_schedule.push(RateStep { node, peer, at: SimTime::us(10), rate: dcsim::Rate::gbps(1) });
        }
        if rng.below(2) == 0 {
            p.switch.buffer = BufferPlan::Static { port_buffer: 20_000 + 10_000 * rng.below(6) };
        }
        if validate_plan(&p).is_ok() {
            assert!(builds(&p), "case {case}: validated but does not build: {p:?}");
            ok += 1;
        }
    }
    assert!(ok > 100, "only {ok} random plans validated");
}
