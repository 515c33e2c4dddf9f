//! One cell of the seed 001 remote-PFC tables: the RoCE queue pairs' (traffic[0]) mean
//! message latency (weighted by completed messages) and mean network latency (frame
//! start at the NIC to arrival), traffic[0]'s and the other groups' goodput, the largest
//! switch egress queue, drops on lossless priorities and the remote-PFC totals.
//! `cargo run --release -p dcsim --example seed001_cell -- FILE [--set k=v ...]`
use dcsim::results::Column;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = &args[0];
    let sets: Vec<String> = args[1..].iter().filter(|a| *a != "--set").cloned().collect();
    let plan = dcsim::scenario::load_file(std::path::Path::new(file), &sets).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    let res = dcsim::sim::run(&plan).unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let f = res.table("flows").unwrap();
    let (
        Some(Column::U64(group)),
        Some(Column::U64(done)),
        Some(Column::F64(mlat)),
        Some(Column::U64(rx)),
        Some(Column::F64(lat)),
        Some(Column::F64(gp)),
    ) = (
        f.get("group"),
        f.get("messages_completed"),
        f.get("message_latency_mean_ps"),
        f.get("pkts_received"),
        f.get("latency_mean_ps"),
        f.get("goodput_gbps"),
    )
    else {
        panic!("flows columns")
    };
    let (mut msgs, mut msum, mut pk, mut psum, mut g0, mut g1) = (0u64, 0f64, 0u64, 0f64, 0f64, 0f64);
    for i in 0..group.len() {
        if group[i] == 0 {
            if done[i] > 0 {
                msgs += done[i];
                msum += mlat[i] * done[i] as f64;
            }
            if rx[i] > 0 {
                pk += rx[i];
                psum += lat[i] * rx[i] as f64;
            }
            g0 += gp[i];
        } else {
            g1 += gp[i];
        }
    }
    let p = res.table("ports").unwrap();
    let Some(Column::U64(maxq)) = p.get("max_egress_bytes") else { panic!("ports columns") };
    println!(
        "msg_lat_us {:.2} net_lat_us {:.2} messages {} roce_gbps {:.3} tcp_gbps {:.3} max_egress_KB {:.0} lossless_drops {} remote_pfc {} checks {} events {} wall_s {:.1}",
        msum / msgs as f64 / 1e6,
        psum / pk as f64 / 1e6,
        msgs,
        g0,
        g1,
        *maxq.iter().max().unwrap() as f64 / 1e3,
        res.summary["checks"]["lossless_no_drops"]["lossless_drops"],
        res.summary.get("remote_pfc").map_or("-".to_string(), |v| v.to_string()),
        res.checks_passed(),
        res.summary["events"],
        wall
    );
}
