//! The Parameters tables of `docs/models/*.md` and of the scenario-keys reference
//! (`docs/scenarios.md`), from the models' `params!` declarations:
//! `cargo run -p dcsim --example params -- --write` rewrites the blocks between
//! `<!-- parameters: NAME -->` and `<!-- end of parameters -->`, and
//! `tests/param_tables.rs` fails when a page differs from its declaration.

use crate::keys::kind::Table;
use crate::keys::Declared;
use crate::models::{
    bbr, bcn, cubic, dcqcn, dctcp, ecn, fecn, fixed_rate, hpcc, load_balancing, network_cc, newreno, nscc, pfc, qcn, rcm, remote_pfc,
    rx_buffer, swift, tcp, timely, trimming,
};

/// (page under `docs/models/`, block name, table) of every declared model.
pub fn tables() -> Vec<(&'static str, &'static str, Table)> {
    vec![
        ("dcqcn.md", "dcqcn", dcqcn::DcqcnKeys::table()),
        ("dctcp.md", "dctcp", dctcp::DctcpKeys::table()),
        ("dctcp.md", "dctcp_rate", dctcp::DctcpRateKeys::table()),
        ("timely.md", "timely", timely::TimelyKeys::table()),
        ("swift.md", "swift", swift::SwiftKeys::table()),
        ("hpcc.md", "hpcc", hpcc::HpccKeys::table()),
        ("qcn.md", "qcn", qcn::QcnKeys::table()),
        ("qcn.md", "qcn_cp", qcn::QcnCpKeys::table()),
        ("bcn.md", "bcn", bcn::BcnKeys::table()),
        ("bcn.md", "bcn_cp", bcn::BcnCpKeys::table()),
        ("fecn.md", "fecn", fecn::FecnKeys::table()),
        ("fecn.md", "fecn_switch", fecn::FecnSwitchKeys::table()),
        ("network_cc.md", "network_cc", network_cc::NetworkCcKeys::table()),
        ("network_cc.md", "network_cc_switch", network_cc::NetworkCcSwitchKeys::table()),
        ("rx_buffer.md", "rx_buffer", rx_buffer::keys::RxBufferKeys::table()),
        ("fixed_rate.md", "fixed_rate", fixed_rate::FixedRateKeys::table()),
        ("ecn.md", "ecn", ecn::keys::EcnKeys::table()),
        ("ecn.md", "cnp", ecn::keys::CnpKeys::table()),
        ("pfc.md", "pfc", pfc::keys::PfcKeys::table()),
        ("pfc.md", "buffer_shared", pfc::buffer::SharedBufferKeys::table()),
        ("pfc.md", "buffer_static", pfc::buffer::StaticBufferKeys::table()),
        ("deadlock.md", "pfc_watchdog", pfc::keys::WatchdogKeys::table()),
        ("remote_pfc.md", "remote_pfc", remote_pfc::keys::RemotePfcKeys::table()),
        ("rcm.md", "rcm_linear", rcm::RcmLinearKeys::table()),
        ("tcp.md", "tcp", tcp::TcpKeys::table()),
        ("tcp.md", "newreno", newreno::NewRenoKeys::table()),
        ("tcp.md", "cubic", cubic::CubicKeys::table()),
        ("tcp.md", "bbr", bbr::BbrKeys::table()),
        ("uet.md", "nscc", nscc::NsccKeys::table()),
        ("uet.md", "uet", crate::models::uet::UetKeys::table()),
        ("trimming.md", "trimming", trimming::keys::TrimmingKeys::table()),
        ("load_balancing.md", "load_balancing", load_balancing::LoadBalancingKeys::table()),
    ]
}

/// The scenario-keys reference under `docs/`: every declared table has its block there
/// too, under the heading of its scenario table.
pub const REFERENCE: &str = "scenarios.md";

/// (page under `docs/`, block name, table) of every block the declarations write: each
/// table on its model's page and in the reference.
pub fn pages() -> Vec<(String, &'static str, Table)> {
    tables()
        .into_iter()
        .flat_map(|(page, name, table)| [(format!("models/{page}"), name, table.clone()), (REFERENCE.to_string(), name, table)])
        .collect()
}

/// The marker that opens block `name`.
pub fn begin(name: &str) -> String {
    format!("<!-- parameters: {name} -->")
}

/// The marker that closes a block.
pub const END: &str = "<!-- end of parameters -->";

/// `page` with block `name` holding `table` (`None`: the page has no such block).
pub fn replace(page: &str, name: &str, table: &Table) -> Option<String> {
    let open = begin(name);
    let start = page.find(&open)? + open.len();
    let end = start + page[start..].find(END)?;
    Some(format!("{}\n{}{}", &page[..start], table.markdown(), &page[end..]))
}
