//! `fixed_rate` (docs/models/fixed_rate.md): a queue pair paced at a constant rate
//! delivers that rate's share of payload, whatever the fabric says, and never more than
//! the line rate.

mod common;
use common::col_f64;

fn goodput(rate: &str) -> f64 {
    let text = format!(
        r#"
name = "fixed_rate_test"
[simulation]
duration = "2ms"
[host]
mtu = "1000B"
[topology]
type = "star"
hosts = 2
rate = "100Gbps"
delay = "1us"
[host.cc]
type = "fixed_rate"
rate = "{rate}"
[switch.pfc]
mode = "pfc"
[[traffic]]
type = "flows"
flows = [{{ src = "h0", dst = "h1", size = "inf", start = "0us" }}]

[stats]
steady_start = "500us"
"#
    );
    let plan = dcsim::scenario::load_str(&text, std::path::Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"));
    let r = dcsim::sim::run(&plan).unwrap();
    col_f64(&r, "flows", "goodput_steady_gbps")[0]
}

#[test]
fn a_fixed_rate_is_delivered_and_capped_at_the_line_rate() {
    // The pacing rate is of frames on the wire: 1000 B of payload in 1000 + 62 + 20 B.
    let payload = 1000.0 / 1082.0;
    let ten = goodput("10Gbps");
    assert!((ten / (10.0 * payload) - 1.0).abs() < 0.01, "{ten} Gb/s at 10 Gb/s");
    let over = goodput("400Gbps");
    let line = goodput("100Gbps");
    assert!((over - line).abs() < 1e-9 && line < 100.0 * payload * 1.001, "{over} / {line} Gb/s");
}
