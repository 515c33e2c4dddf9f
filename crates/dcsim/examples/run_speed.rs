//! Speed of one scenario file over simulated time: every `step` of simulated time, the
//! wall time, link packet-hops and ns per hop of that interval, and packets in flight.
//! At the end, the digest of the results (`Results::digest`): a run with
//! `simulation.threads=N` among the overrides prints the same digest as one thread.
//! `cargo run --release -p dcsim --example run_speed -- scenario.toml [step] [key=value ...]`
//! Each line also shows the process's resident memory (Linux; `-` elsewhere).
//! With `DCSIM_TIME_ORDER` set, every event is served in time order instead of in rounds
//! node by node (`Simulation::set_node_rounds`): the same results, for comparing engines.
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: run_speed scenario.toml [step] [key=value ...]");
    let step = args.next().map(|s| dcsim::units::parse_time(&s).unwrap_or_else(|e| panic!("{}", e.0)));
    let sets: Vec<String> = args.collect();
    let plan = dcsim::scenario::load_file(std::path::Path::new(&path), &sets).unwrap_or_else(|e| panic!("{e}"));
    let t0 = Instant::now();
    let mut sim = dcsim::Simulation::new(&plan).expect("a validated plan builds");
    if std::env::var_os("DCSIM_TIME_ORDER").is_some() {
        sim.set_node_rounds(false);
    }
    println!("built in {:.2} s, resident {}", t0.elapsed().as_secs_f64(), rss());
    let end = sim.end();
    let step = step.unwrap_or(end);
    let (mut t, mut last_wall, mut last_hops) = (dcsim::SimTime(0), Instant::now(), 0u64);
    let start = last_wall;
    while t < end {
        t = dcsim::SimTime((t.0 + step.0).min(end.0));
        if !sim.run_until(t) && t < end {
            println!("stopped early at {} ps", sim.now().0);
            break;
        }
        let (wall, hops) = (last_wall.elapsed().as_secs_f64(), sim.packet_hops());
        println!(
            "to {:>8.3} ms: wall {:7.2} s  hops {:>10}  {:6.0} ns/hop  in flight {}  resident {}",
            t.0 as f64 / 1e9,
            wall,
            hops - last_hops,
            wall * 1e9 / (hops - last_hops).max(1) as f64,
            sim.packets_in_flight(),
            rss()
        );
        (last_wall, last_hops) = (Instant::now(), hops);
    }
    let wall = start.elapsed().as_secs_f64();
    println!(
        "total: wall {:.2} s  events {}  hops {}  {:.0} ns/hop  peak packets {}  resident {}",
        wall,
        sim.events(),
        sim.packet_hops(),
        wall * 1e9 / sim.packet_hops().max(1) as f64,
        sim.peak_packets(),
        rss()
    );
    let res = sim.finish();
    // The tables' sizes: what the results hold in memory at the end.
    let bytes = |c: &dcsim::results::Column| match c {
        dcsim::results::Column::Str(v) => v.heap_bytes(),
        c => 8 * c.len(),
    };
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let mut total = 0;
    let rows: Vec<String> = res
        .tables
        .iter()
        .filter(|(_, t)| t.rows() > 0)
        .map(|(n, t)| {
            let b: usize = t.columns.iter().map(|(_, c)| bytes(c)).sum();
            total += b;
            format!("{n} {} x {} ({:.1} MiB)", t.rows(), t.columns.len(), mib(b))
        })
        .collect();
    println!("rows: {}; {:.1} MiB in all", rows.join(", "), mib(total));
    println!("resident after finish {}", rss());
    println!("digest {:016x}", res.digest());
}

/// The process's resident memory now, from `/proc/self/statm` (pages of 4 KiB).
fn rss() -> String {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or("-".into(), |pages| format!("{:.1} MiB", (pages * 4096) as f64 / (1 << 20) as f64))
}
