//! `ib_write_bw` streams with perftest's two rate limiters: the NIC's ("hw", packets
//! paced) and perftest's software limiter ("sw", `run_iter_bw`: bursts of `burst`
//! messages every `burst × message × 8 / rate`, at most `tx_depth` outstanding).

use std::path::Path;

use dcsim::Results;

mod common;
use common::{col_f64 as f64s, col_i64 as i64s, col_u64 as u64s};

/// One stream h1 -> h0 through one switch, 25 Gb/s links, no congestion control.
fn scenario(delay: &str, stream: &str) -> String {
    format!(
        r#"
name = "ib_write_bw"
[simulation]
duration = "50ms"
[host]
mtu = "1024B"
[topology]
type = "star"
hosts = 2
rate = "25Gbps"
delay = "{delay}"
[[traffic]]
type = "ib_write_bw"
senders = ["h1"]
receiver = "h0"
{stream}
[stats]
goodput_interval = "50us"
"#
    )
}

fn run(delay: &str, stream: &str) -> Results {
    let plan = dcsim::scenario::load_str(&scenario(delay, stream), Path::new("."), &[]).unwrap();
    let r = dcsim::sim::run(&plan).unwrap();
    assert!(r.checks_passed(), "{:?}", r.failed_checks());
    r
}

fn err(stream: &str) -> String {
    dcsim::scenario::load_str(&scenario("1us", stream), Path::new("."), &[]).unwrap_err().to_string()
}

/// The stream's goodput per 50 us bin over the whole run (bins without data are 0).
fn bins(r: &Results) -> Vec<f64> {
    let mut v = vec![0.0; 1000];
    let start = u64s(r, "goodput", "time_ps");
    for (s, g) in start.iter().zip(f64s(r, "goodput", "gbps")) {
        v[(*s / 50_000_000) as usize] = *g;
    }
    v
}

#[test]
fn sw_limiter_keeps_the_rate_in_bursts_at_line_rate() {
    // 16 messages of 64 KiB every 16 x 65536 x 8 / 5 Gb/s = 1.6777 ms: bursts at k x gap
    // for k = 0..=29 in 50 ms, each on the wire for about 0.37 ms, so all 480 complete.
    let r = run("1us", "rate = \"5Gbps\"\nrate_limiter = \"sw\"\ntx_depth = 16");
    assert_eq!(u64s(&r, "flows", "messages_completed")[0], 480);
    // Completions are counted, not timed.
    assert!(f64s(&r, "flows", "message_latency_mean_ps")[0].is_nan());
    // Long run: the rate (payload), within the one burst the 50 ms cuts into.
    let gbps = f64s(&r, "flows", "goodput_gbps")[0];
    assert!((gbps - 5.0).abs() < 5.0 * 0.05, "{gbps} Gb/s");
    // Each burst leaves back to back: bins inside a burst carry the link's payload
    // rate (25 x 1024 / 1106 with the default 82 B of headers, 23.15 Gb/s) ...
    let b = bins(&r);
    let full = b.iter().filter(|&&g| g > 22.5).count();
    let busy = b.iter().filter(|&&g| g > 0.0).count();
    let peak = b.iter().cloned().fold(0.0, f64::max);
    // (a bin holds whole packets: at most one more than the rate's share)
    assert!(peak < 23.15 + 1024.0 * 8.0 / 50e3, "peak bin {peak} Gb/s");
    println!("sw: {gbps:.3} Gb/s, {full} full bins, {busy} busy, peak {peak:.3}");
    // ... 30 bursts of ~7.3 bins, the first and last of each partial; most of the
    // 1000 bins are empty.
    assert!((30 * 5..=30 * 8).contains(&full), "{full} full bins");
    assert!(busy <= 30 * 9, "{busy} busy bins");
}

#[test]
fn hw_limiter_paces_the_same_rate_smoothly() {
    let r = run("1us", "rate = \"5Gbps\"");
    let b = bins(&r);
    // The NIC spaces packets at 5 Gb/s of wire: 5 x 1024 / 1106 of payload in every bin.
    let want = 5.0 * 1024.0 / 1106.0;
    for (i, g) in b.iter().enumerate().skip(1) {
        assert!((g - want).abs() < 0.05 * want, "bin {i}: {g} Gb/s");
    }
}

#[test]
fn sw_limiter_waits_for_completions_beyond_tx_depth() {
    // tx_depth 1: each 64 KiB message waits for the previous one's completion (its
    // wire time plus the 4 x 20 us propagation of the round trip): well under the
    // 20 Gb/s asked for, above what two round trips per message would give.
    let r = run("20us", "rate = \"20Gbps\"\nrate_limiter = \"sw\"\ntx_depth = 1");
    let gbps = f64s(&r, "flows", "goodput_gbps")[0];
    let per_msg = 65_536.0 * 8.0 / (gbps * 1e3); // us
    let wire = 64.0 * 1106.0 * 8.0 / 25e3;
    println!("tx_depth 1: {gbps:.3} Gb/s, {per_msg:.1} us per message");
    assert!(per_msg > wire + 80.0 && per_msg < wire + 2.0 * 80.0, "{per_msg} us per message ({gbps} Gb/s)");
    // With the default depth (128 x 64 KiB outstanding) the same stream reaches its rate.
    let r = run("20us", "rate = \"20Gbps\"\nrate_limiter = \"sw\"");
    let gbps = f64s(&r, "flows", "goodput_gbps")[0];
    assert!(gbps > 0.9 * 20.0 * 40.0 / 50.0, "{gbps} Gb/s");
}

#[test]
fn sw_limiter_counts_moderated_completions() {
    // 8 KiB messages: perftest signals every 100th (cq_mod 100), so the application
    // sees completions 100 at a time and posts past tx_depth only then.
    let r = run("1us", "rate = \"2Gbps\"\nrate_limiter = \"sw\"\nmessage = \"8192B\"\nsize = \"81920000B\"");
    let done = u64s(&r, "flows", "messages_completed")[0];
    // 2 Gb/s for 50 ms is 1526 messages: 15 moderated steps seen, the run ends before
    // the 16th.
    println!("cq_mod 100: {done} messages");
    assert_eq!(done, 1500);
    let r = run("1us", "rate = \"2Gbps\"\nrate_limiter = \"sw\"\nmessage = \"8192B\"\ncq_mod = 1\nsize = \"81920000B\"");
    assert!(u64s(&r, "flows", "messages_completed")[0] > 1500);
}

#[test]
fn sw_limiter_finishes_a_finite_stream() {
    // 40 messages posted as bursts of 16 (every 1.68 ms): the last burst holds 8.
    let r = run("1us", "rate = \"5Gbps\"\nrate_limiter = \"sw\"\ntx_depth = 16\nsize = \"2621440B\"");
    assert_eq!(u64s(&r, "flows", "messages_completed")[0], 40);
    let fct = i64s(&r, "flows", "fct_ps")[0] as f64 / 1e9; // ms
                                                           // The third burst is posted at 2 x 1.678 ms and takes ~0.19 ms on the wire.
    println!("finite: fct {fct} ms");
    assert!(fct > 3.356 && fct < 3.6, "{fct} ms");
}

#[test]
fn bad_rate_limiter_settings_name_the_field() {
    let cases = [
        ("rate = \"5Gbps\"\nrate_limiter = \"fast\"", "traffic[0].rate_limiter"),
        ("rate_limiter = \"sw\"", "traffic[0].rate"),
        ("rate = \"5Gbps\"\ntx_depth = 16", "traffic[0].tx_depth"),
        ("rate = \"5Gbps\"\nmessage = \"8KB\"", "traffic[0].message"),
        ("rate = \"5Gbps\"\nrate_limiter = \"sw\"\ntx_depth = 0", "traffic[0].tx_depth"),
        ("rate = \"5Gbps\"\nrate_limiter = \"sw\"\nburst = 0", "traffic[0].burst"),
        ("rate = \"5Gbps\"\nrate_limiter = \"sw\"\nmessage = \"16MiB\"", "traffic[0].message"),
        ("rate = \"5Gbps\"\nrate_limiter = \"sw\"\ntx_depth = 8\ncq_mod = 9", "traffic[0].cq_mod"),
        ("rate = \"5Gbps\"\nrate_limiter = \"sw\"\nsize = \"100000B\"", "traffic[0].size"),
    ];
    for (stream, field) in cases {
        let e = err(stream);
        assert!(e.starts_with(field), "{stream:?}: {e}");
    }
}

#[test]
fn plans_built_in_code_are_checked_too() {
    let mut plan = dcsim::scenario::load_str(&scenario("1us", "rate = \"5Gbps\"\nrate_limiter = \"sw\""), Path::new("."), &[]).unwrap();
    assert!(dcsim::scenario::validate::validate_plan(&plan).is_ok());
    let good = *plan.flows[0].sw_limit.clone().unwrap();
    for bad in [
        dcsim::plan::SwLimit { cq_mod: 0, ..good },
        dcsim::plan::SwLimit { cq_mod: good.tx_depth + 1, ..good },
        dcsim::plan::SwLimit { burst: 0, ..good },
        dcsim::plan::SwLimit { message: 0, ..good },
        dcsim::plan::SwLimit { rate: dcsim::Rate(0), ..good },
    ] {
        plan.flows[0].sw_limit = Some(Box::new(bad));
        let e = dcsim::scenario::validate::validate_plan(&plan).unwrap_err().to_string();
        assert!(e.starts_with("traffic[0].flows[0].sw_limit."), "{bad:?}: {e}");
    }
    plan.flows[0].sw_limit = Some(Box::new(good));
    plan.flows[0].transport = dcsim::plan::Transport::Udp;
    assert!(dcsim::scenario::validate::validate_plan(&plan).is_err());
}
