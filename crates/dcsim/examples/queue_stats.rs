//! Bottleneck statistics of a run: the largest switch egress queue's min / mean / max
//! (after `stats.steady_start`, from the queue samples) and the flows' total steady
//! goodput. `cargo run --release -p dcsim --example queue_stats -- FILE [--set k=v ...]`
use dcsim::results::Column;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = &args[0];
    let sets: Vec<String> = args[1..].iter().filter(|a| *a != "--set").cloned().collect();
    let plan = dcsim::scenario::load_file(std::path::Path::new(file), &sets).unwrap();
    let steady = plan.stats.steady_start.0;
    let res = dcsim::sim::run(&plan).unwrap();
    let s = res.table("samples").unwrap();
    let (Some(Column::U64(t)), Some(Column::U64(port)), Some(Column::U64(q))) = (s.get("time_ps"), s.get("port_id"), s.get("egress_bytes"))
    else {
        panic!("samples columns: {:?}", s.columns.iter().map(|c| &c.0).collect::<Vec<_>>())
    };
    let busiest = (0..q.len()).max_by_key(|&i| q[i]).map(|i| port[i]).unwrap();
    let v: Vec<u64> = (0..q.len()).filter(|&i| port[i] == busiest && t[i] >= steady).map(|i| q[i]).collect();
    let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
    let f = res.table("flows").unwrap();
    let Some(Column::F64(g)) = f.get("goodput_steady_gbps") else { panic!() };
    println!(
        "port {busiest}: queue min {} mean {mean:.0} max {} B over {} samples; steady goodput {:.3} Gb/s ({:?})",
        v.iter().min().unwrap(),
        v.iter().max().unwrap(),
        v.len(),
        g.iter().sum::<f64>(),
        g
    );
}
