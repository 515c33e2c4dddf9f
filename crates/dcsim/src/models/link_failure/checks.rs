//! The checks of `switch.link_failures`.

use crate::error::{Error, Result};
use crate::plan::{NodeKind, Plan};
use crate::units::MAX_TIME;

/// `switch.link_failures`: each names two switches that share a link, `up` (if given)
/// comes after `down`, two failures of one link do not overlap, and `switch.convergence`
/// is given.
pub(crate) fn check_plan(p: &Plan) -> Result<()> {
    let fails = &p.fabric.link_faults.failures;
    if fails.is_empty() {
        return Ok(());
    }
    match p.fabric.link_faults.convergence {
        None => {
            return Err(Error::scenario(
                "switch.convergence",
                "required when switch.link_failures is given (the time until routes avoid a failed link)",
            ))
        }
        Some(c) if c > MAX_TIME => return Err(Error::scenario("switch.convergence", format!("must be at most {MAX_TIME}"))),
        Some(_) => {}
    }
    let n = p.nodes.len() as u32;
    for (k, f) in fails.iter().enumerate() {
        let at = format!("switch.link_failures[{k}]");
        for (key, v) in [("a", f.a), ("b", f.b)] {
            if v >= n {
                return Err(Error::scenario(format!("{at}.{key}"), format!("node index {v} does not exist")));
            }
            if p.nodes[v as usize].kind != NodeKind::Switch {
                return Err(Error::scenario(
                    format!("{at}.{key}"),
                    format!("'{}' is not a switch (only links between switches can fail)", p.nodes[v as usize].name),
                ));
            }
        }
        if !p.links.iter().any(|l| (l.a == f.a && l.b == f.b) || (l.a == f.b && l.b == f.a)) {
            let (a, b) = (&p.nodes[f.a as usize].name, &p.nodes[f.b as usize].name);
            return Err(Error::scenario(format!("{at}.b"), format!("no link between '{a}' and '{b}'")));
        }
        if f.down > MAX_TIME {
            return Err(Error::scenario(format!("{at}.down"), format!("must be at most {MAX_TIME}")));
        }
        if let Some(up) = f.up {
            if up <= f.down {
                return Err(Error::scenario(format!("{at}.up"), format!("must be after down ({} <= {})", up, f.down)));
            }
            if up > MAX_TIME {
                return Err(Error::scenario(format!("{at}.up"), format!("must be at most {MAX_TIME}")));
            }
        }
        let same = |g: &super::LinkFailure| (g.a == f.a && g.b == f.b) || (g.a == f.b && g.b == f.a);
        for (j, g) in fails.iter().enumerate().take(k) {
            let overlap = same(g) && g.up.is_none_or(|u| f.down < u) && f.up.is_none_or(|u| g.down < u);
            if overlap {
                return Err(Error::scenario(format!("{at}.down"), format!("the link is already down then (switch.link_failures[{j}])")));
            }
        }
    }
    Ok(())
}
