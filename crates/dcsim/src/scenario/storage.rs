//! `[[traffic]] type = "storage"`: the storage workload profiles of seed 004's ECN
//! tuning study (IETF 106, draft-zhuang-tsvwg-ai-ecn-for-dcn, "Experiments in storage
//! network") and the builder that turns an entry into queue pairs and a `StoragePlan`.

use crate::error::{Error, Result};
use crate::plan::{FlowPlan, Plan, StoragePlan, Transport};
use crate::scenario::schema::{SizeStr, StorageSpec, TrafficCommon};
use crate::scenario::traffic::HostIndex;
use crate::units::SimTime;

/// One row of the seed's table: read share, block-size range, outstanding I/Os.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    pub read_fraction: f64,
    pub block_min: u64,
    pub block_max: u64,
    pub concurrency: u32,
}

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

/// The seed's profiles. Where the table gives two read:write ratios ("7:3/5:5") the
/// second is its own profile (`_5_5`, ...). The table gives outstanding I/Os (8-256)
/// for OLTP data only; OLTP uses 32 (inside that range) and the others 16, which
/// `concurrency` overrides.
pub const PROFILES: &[Profile] = &[
    Profile { name: "oltp_data", read_fraction: 0.7, block_min: 8 * K, block_max: 64 * K, concurrency: 32 },
    Profile { name: "oltp_data_5_5", read_fraction: 0.5, block_min: 8 * K, block_max: 64 * K, concurrency: 32 },
    Profile { name: "oltp_log", read_fraction: 0.0, block_min: 512, block_max: 64 * K, concurrency: 16 },
    Profile { name: "olap", read_fraction: 0.9, block_min: 256 * K, block_max: 4 * M, concurrency: 16 },
    Profile { name: "olap_5_5", read_fraction: 0.5, block_min: 256 * K, block_max: 4 * M, concurrency: 16 },
    Profile { name: "vdi_power_on", read_fraction: 0.9, block_min: 8 * K, block_max: 16 * K, concurrency: 16 },
    Profile { name: "vdi_normal", read_fraction: 0.2, block_min: K, block_max: 64 * K, concurrency: 16 },
    Profile { name: "exchange", read_fraction: 0.6, block_min: 32 * K, block_max: 512 * K, concurrency: 16 },
    Profile { name: "exchange_3_7", read_fraction: 0.3, block_min: 32 * K, block_max: 512 * K, concurrency: 16 },
    Profile { name: "web_file_server", read_fraction: 0.9, block_min: 4 * K, block_max: 64 * K, concurrency: 16 },
    Profile { name: "web_server_log", read_fraction: 0.0, block_min: 8 * K, block_max: 8 * K, concurrency: 16 },
    Profile { name: "video_distribution", read_fraction: 0.2, block_min: 64 * K, block_max: 64 * K, concurrency: 16 },
    Profile { name: "backup", read_fraction: 0.2, block_min: 16 * K, block_max: 64 * K, concurrency: 16 },
    Profile { name: "backup_4_6", read_fraction: 0.4, block_min: 16 * K, block_max: 64 * K, concurrency: 16 },
    Profile { name: "vod", read_fraction: 1.0, block_min: 256 * K, block_max: 4 * M, concurrency: 16 },
];

/// The profile named `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

fn hosts_or_count(idx: &HostIndex, names: &Option<Vec<String>>, count: Option<u32>, p: &str, key: &str, pool: &[u32]) -> Result<Vec<u32>> {
    match (names, count) {
        (Some(_), Some(_)) => Err(Error::scenario(format!("{p}.{key}_count"), format!("give either {key}s or {key}_count, not both"))),
        (None, None) => Err(Error::scenario(format!("{p}.{key}s"), format!("missing: give {key}s or {key}_count"))),
        (Some(list), None) if list.is_empty() => Err(Error::scenario(format!("{p}.{key}s"), "is empty")),
        (Some(list), None) => idx.hosts(Some(list), &format!("{p}.{key}s")),
        (None, Some(n)) if n == 0 || n as usize > pool.len() => {
            Err(Error::scenario(format!("{p}.{key}_count"), format!("must be 1..={} (the hosts available), got {n}", pool.len())))
        }
        (None, Some(n)) => Ok(if key == "client" { pool[..n as usize].to_vec() } else { pool[pool.len() - n as usize..].to_vec() }),
    }
}

/// Builds entry `g`'s queue pairs (appended to `flows`) and its plan.
pub fn build(
    s: &StorageSpec,
    c: &TrafficCommon,
    plan: &Plan,
    idx: &HostIndex,
    p: &str,
    g: u32,
    flows: &mut Vec<FlowPlan>,
) -> Result<StoragePlan> {
    let prio = super::build::priority(c.priority, 3, &format!("{p}.priority"))?;
    let prof = match &s.profile {
        None => None,
        Some(name) => Some(profile(name).ok_or_else(|| {
            let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            Error::scenario(format!("{p}.profile"), format!("unknown profile '{name}', expected one of {}", names.join(", ")))
        })?),
    };
    let all = idx.all();
    let clients = hosts_or_count(idx, &s.clients, s.client_count, p, "client", &all)?;
    let servers = hosts_or_count(idx, &s.servers, s.server_count, p, "server", &all)?;
    if let Some(i) = servers.iter().position(|h| clients.contains(h)) {
        return Err(Error::scenario(
            format!("{p}.servers[{i}]"),
            format!("host '{}' is also a client", plan.nodes[servers[i] as usize].name),
        ));
    }
    let read_fraction = match (s.read_fraction, prof) {
        (Some(r), _) if !(0.0..=1.0).contains(&r) => {
            return Err(Error::scenario(format!("{p}.read_fraction"), format!("must be in [0, 1] (got {r})")))
        }
        (Some(r), _) => r,
        (None, Some(pr)) => pr.read_fraction,
        (None, None) => return Err(Error::scenario(format!("{p}.read_fraction"), "missing: give a profile or read_fraction")),
    };
    let (block_min, block_max) = match (&s.block_sizes, prof) {
        (Some(v), _) => block_range(v, &format!("{p}.block_sizes"))?,
        (None, Some(pr)) => (pr.block_min, pr.block_max),
        (None, None) => return Err(Error::scenario(format!("{p}.block_sizes"), "missing: give a profile or block_sizes")),
    };
    let concurrency = match (s.concurrency, prof) {
        (Some(0), _) => return Err(Error::scenario(format!("{p}.concurrency"), "must be >= 1")),
        (Some(c), _) => c,
        (None, Some(pr)) => pr.concurrency,
        (None, None) => return Err(Error::scenario(format!("{p}.concurrency"), "missing: give a profile or concurrency")),
    };
    let request_bytes = match &s.request_size {
        Some(v) => v.bytes(&format!("{p}.request_size"))?,
        None => 64,
    };
    if request_bytes == 0 || request_bytes > 1 << 32 {
        return Err(Error::scenario(format!("{p}.request_size"), format!("must be in 1 B..=4 GiB (got {request_bytes} B)")));
    }
    if !lossless(plan, prio) {
        return Err(Error::scenario(
            format!("{p}.priority"),
            format!("storage I/O runs on a lossless priority (RoCE storage needs no loss); priority {prio} is not protected by PFC"),
        ));
    }
    let start = match &c.start {
        Some(t) => t.time(&format!("{p}.start"))?,
        None => SimTime::ZERO,
    };
    let stop = match &s.stop {
        Some(t) => t.time(&format!("{p}.stop"))?,
        None => SimTime::MAX,
    };
    if stop <= start {
        return Err(Error::scenario(format!("{p}.stop"), format!("must be after start ({stop} <= {start})")));
    }
    let slots = clients.len() as u64 * concurrency as u64;
    if slots * 2 > u32::MAX as u64 / 2 {
        return Err(Error::scenario(format!("{p}.concurrency"), format!("{slots} outstanding I/Os are too many")));
    }
    let first_flow = flows.len() as u32;
    let flow = |src: u32, dst: u32| FlowPlan {
        src,
        dst,
        size: Some(request_bytes),
        start,
        priority: prio,
        rate: None,
        group: g,
        cc: 0,
        messages: 1,
        transport: Transport::Roce,
        stop: None,
        sw_limit: None,
    };
    // Slot j of client i talks to server (i * concurrency + j) mod servers: the
    // outstanding I/Os of the clients spread evenly over the servers.
    for (i, &c) in clients.iter().enumerate() {
        for j in 0..concurrency as usize {
            let srv = servers[(i * concurrency as usize + j) % servers.len()];
            flows.push(flow(c, srv));
            flows.push(flow(srv, c));
        }
    }
    Ok(StoragePlan { group: g, read_fraction, block_min, block_max, request_bytes, first_flow, slots: slots as u32, stop })
}

fn lossless(plan: &Plan, prio: u8) -> bool {
    plan.is_lossless(prio)
}

/// `[min, max]` or `[size]`: the sizes `min x 2^k <= max`.
fn block_range(v: &[SizeStr], path: &str) -> Result<(u64, u64)> {
    let (lo, hi) = match v {
        [one] => {
            let b = one.bytes(&format!("{path}[0]"))?;
            (b, b)
        }
        [a, b] => (a.bytes(&format!("{path}[0]"))?, b.bytes(&format!("{path}[1]"))?),
        _ => return Err(Error::scenario(path, format!("give [min, max] or [size] (got {} values)", v.len()))),
    };
    if lo == 0 {
        return Err(Error::scenario(format!("{path}[0]"), "must be > 0"));
    }
    if hi < lo {
        return Err(Error::scenario(format!("{path}[1]"), format!("must be >= the minimum ({hi} < {lo})")));
    }
    if hi > 1 << 32 {
        return Err(Error::scenario(format!("{path}[1]"), "at most 4 GiB"));
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_follow_the_seed_table() {
        assert_eq!(PROFILES.len(), 15);
        let o = profile("oltp_data").unwrap();
        assert_eq!((o.read_fraction, o.block_min, o.block_max), (0.7, 8 * K, 64 * K));
        assert!((8..=256).contains(&o.concurrency));
        assert_eq!(profile("vod").unwrap().read_fraction, 1.0);
        assert_eq!(profile("web_server_log").unwrap().block_max, 8 * K);
        assert!(PROFILES.iter().all(|p| p.block_min <= p.block_max && (0.0..=1.0).contains(&p.read_fraction)));
    }
}
