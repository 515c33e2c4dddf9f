//! The Parameters tables of `docs/models/*.md` and of the scenario-keys reference
//! (`docs/scenarios.md`), from the models' `params!` declarations:
//! `cargo run -p dcsim --example params -- --write` rewrites the blocks between
//! `<!-- parameters: NAME -->` and `<!-- end of parameters -->`, and
//! `tests/param_tables.rs` fails when a page differs from its declaration.

use crate::keys::kind::Table;
use crate::keys::Declared;
use crate::models::{bbr, cubic, dcqcn, dctcp, fixed_rate, hpcc, newreno, rcm, swift, tcp, timely, FabricModels};

/// (page under `docs/models/`, block name, table) of every declared model: the reaction
/// points that no fabric model's page holds, then each fabric model's tables
/// (`FabricModel::param_tables`, in the `fabric_models!` list's order).
pub fn tables() -> Vec<(&'static str, &'static str, Table)> {
    let mut out = vec![
        ("dcqcn.md", "dcqcn", dcqcn::DcqcnKeys::table()),
        ("dctcp.md", "dctcp", dctcp::DctcpKeys::table()),
        ("dctcp.md", "dctcp_rate", dctcp::DctcpRateKeys::table()),
        ("timely.md", "timely", timely::TimelyKeys::table()),
        ("swift.md", "swift", swift::SwiftKeys::table()),
        ("hpcc.md", "hpcc", hpcc::HpccKeys::table()),
        ("fixed_rate.md", "fixed_rate", fixed_rate::FixedRateKeys::table()),
        ("rcm.md", "rcm_linear", rcm::RcmLinearKeys::table()),
        ("tcp.md", "tcp", tcp::TcpKeys::table()),
        ("tcp.md", "newreno", newreno::NewRenoKeys::table()),
        ("tcp.md", "cubic", cubic::CubicKeys::table()),
        ("tcp.md", "bbr", bbr::BbrKeys::table()),
    ];
    FabricModels::param_tables(&mut out);
    out
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
