//! Scenario keys of flow control, `[switch.pfc]` and its `[switch.pfc.watchdog]`, and the
//! checks of their values; `check` holds the checks against the switch buffer.

use serde::Deserialize;

use super::params::{FlowControl, Headroom, PauseMode, PfcPlan, WatchdogAction, WatchdogPlan};
use crate::error::{Error, Result};
use crate::keys::kind::{self, Bound, Kind};
use crate::keys::{at, KeyCtx, Keys, SizeStr, TimeStr};
use crate::plan::{BufferPlan, Plan};
use crate::units::SimTime;

crate::params! {
    /// `[switch.pfc]`: flow control (pfc.md).
    pub struct PfcKeys => PfcPlan {
        build_more: build_more,
        check_more: check_more,
    }
    /// `"pfc"`: 802.1Qbb per priority; `"pause"`: 802.3x, the whole link; `"off"`: no flow control (lossy); `"ib_credits"`: InfiniBand credits on every priority (ib_credits.md)
    mode: Mode, ANY;
    /// `"xon_xoff"`, `"timer"` or `"infinite"` (the table of modes in pfc.md)
    pause_mode: kind::Enum<PauseMode>, ANY;
    /// the lossless priorities under `mode = "pfc"` (under `"pause"` and `"ib_credits"` every priority is); a list with `mode = "off"` is an error
    lossless: kind::Priorities, ANY;
    /// pause time carried by an XOFF in `xon_xoff` and `infinite` modes
    xoff_quanta: kind::Count16, in_cc(1.0, 65535.0);
    /// pause time of an XOFF in `timer` mode
    pause_time: kind::Time, POSITIVE;
    /// refresh an outstanding XOFF after this fraction of its duration while still congested
    refresh_fraction: kind::Fraction, in_oc(0.0, 1.0);
    /// the peer's reaction time in quanta (802.3 Annex 31B); enters the `formula` headroom only
    reaction_quanta: kind::Count, ANY;
    /// `"formula"` (pfc.md 1.6), `"hpcc"` (3 x one-way link BDP) or a size per (port, class)
    headroom: by_hand(String, "`\"formula\"`, `\"hpcc\"` or size", "`\"formula\"`", "a size > 0");
    /// per-end PHY/MAC delay of the headroom formula; only with `headroom = "formula"`
    phy_delay: by_hand(TimeStr, "time", "`\"0us\"`", "");
    /// XOFF threshold per (port, class); static buffer only, at most the port buffer
    xoff: kind::Opt<kind::Cells>, ANY, shown "port buffer / lossless classes - headroom";
    /// XON threshold; static buffer only, below `xoff`
    xon: kind::Opt<kind::Cells>, ANY, shown "`xoff` - `resume_offset`";
    /// hysteresis between XOFF and XON; below `xoff` when `xoff` is given without `xon`
    resume_offset: kind::Cells, ANY;
    /// period of the PFC deadlock detector (deadlock.md)
    deadlock_check: kind::TimeOrOff, ANY;
    /// end the run at the first deadlock found
    deadlock_stop: kind::Bool, ANY;
    /// `[switch.pfc.watchdog]`: pause-storm detection and recovery (below, and deadlock.md)
    watchdog: by_hand(WatchdogKeys, "table", "off", "");
    /// `ib_credits`: the receiver's input buffer per (port, VL), the initial credits; at least one largest frame
    ib_buffer: kind::Size, ANY;
    /// `ib_credits`: bytes freed from an input buffer that make the receiver send an FCP; at most `ib_buffer` less one largest frame plus 64 B
    ib_update: kind::Size, POSITIVE;
    /// `ib_credits` only: every port also sends an FCP per VL in use at this period
    ib_period: kind::TimeOrOff, ANY;
}

crate::params! {
    /// `[switch.pfc.watchdog]`: the switches' PFC watchdog (SONiC `pfcwd`).
    pub struct WatchdogKeys => WatchdogPlan {
        sets: ["default" => WatchdogPlan::after(SimTime::us(100))],
        base: watchdog_base,
    }
    /// a lossless egress queue paused this long while holding frames is in a pause storm
    detection_time => detection: kind::Time, POSITIVE, shown "required";
    /// a storm ends when no pause has arrived for the queue for this long
    restoration_time => restoration: kind::Time, POSITIVE, shown "`detection_time`";
    /// period of the switches' look at their queues
    poll_interval => poll: kind::Time, POSITIVE, shown "`detection_time` / 4";
    /// `"drop"`: a queue in a storm drops what it holds and what is routed to it; `"forward"`: it sends regardless of pauses
    action: kind::Enum<WatchdogAction>, ANY;
}

impl WatchdogPlan {
    /// The defaults around a detection time: restoration after as long, polls four
    /// times per detection time.
    pub fn after(detection: SimTime) -> WatchdogPlan {
        WatchdogPlan { action: WatchdogAction::Drop, detection, restoration: detection, poll: SimTime((detection.0 / 4).max(1)) }
    }
}

fn watchdog_base(k: &WatchdogKeys, path: &str, _: &KeyCtx) -> Result<WatchdogPlan> {
    let key = at(path, "detection_time");
    match &k.detection_time {
        Some(t) => Ok(WatchdogPlan::after(t.time(&key)?)),
        None => Err(Error::scenario(key, "missing: the watchdog needs the time that makes a pause a storm")),
    }
}

/// `mode` as written: `"off"` is `FlowControl::None`.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeKey {
    Pfc,
    Pause,
    Off,
    IbCredits,
}

/// The kind of `mode`.
pub struct Mode;

impl Kind for Mode {
    type Key = ModeKey;
    type Out = FlowControl;
    const UNIT: &'static str = "enum";
    fn parse(key: &ModeKey, _: &Bound, _: &str) -> Result<FlowControl> {
        Ok(match key {
            ModeKey::Pfc => FlowControl::Pfc,
            ModeKey::Pause => FlowControl::Pause,
            ModeKey::Off => FlowControl::None,
            ModeKey::IbCredits => FlowControl::IbCredits,
        })
    }
    fn show(v: &FlowControl) -> String {
        let s = match v {
            FlowControl::Pfc => "pfc",
            FlowControl::Pause => "pause",
            FlowControl::None => "off",
            FlowControl::IbCredits => "ib_credits",
        };
        format!("\"{s}\"")
    }
    fn num(_: &FlowControl) -> Option<f64> {
        None
    }
}

fn build_more(k: &PfcKeys, p: &mut PfcPlan, path: &str, ctx: &KeyCtx) -> Result<()> {
    // A lossless list that no pause protects: the run would drop on those priorities and
    // say nothing (a fabric meant lossless, run lossy).
    if k.lossless.is_some() && p.mode == FlowControl::None && p.lossless != 0 {
        return Err(Error::scenario(
            at(path, "lossless"),
            format!(
                "lists {} as lossless, but {path}.mode = \"off\" pauses nothing (full buffers drop): set mode = \"pfc\", or remove lossless for a lossy fabric",
                kind::priority_list(p.lossless)
            ),
        ));
    }
    let phy_delay = k.phy_delay.as_ref().map(|t| t.time(&at(path, "phy_delay"))).transpose()?;
    p.headroom = match k.headroom.as_deref().unwrap_or("formula").trim() {
        "formula" => Headroom::Formula { phy_delay: phy_delay.unwrap_or(SimTime::ZERO) },
        other => {
            let h = if other == "hpcc" {
                Headroom::Hpcc
            } else {
                let b = SizeStr::new(other).bytes_or_cells(&at(path, "headroom"), ctx.cell).map_err(|e| match e {
                    Error::Scenario { path, msg } => {
                        Error::scenario(path, format!("expected \"formula\", \"hpcc\" or a size like \"40KB\": {msg}"))
                    }
                    e => e,
                })?;
                Headroom::Fixed(b)
            };
            if phy_delay.is_some() {
                return Err(Error::scenario(at(path, "phy_delay"), "only applies with headroom = \"formula\""));
            }
            h
        }
    };
    if let Some(w) = &k.watchdog {
        p.watchdog = Some(w.build(&at(path, "watchdog"), ctx)?);
    }
    Ok(())
}

fn check_more(p: &PfcPlan, path: &str, ctx: &KeyCtx) -> Result<()> {
    let k = |key: &str| at(path, key);
    use crate::keys::Check;
    if let Headroom::Fixed(0) = p.headroom {
        return Err(Error::scenario(k("headroom"), "must be > 0"));
    }
    if let (Some(xon), Some(xoff)) = (p.xon, p.xoff) {
        if xon >= xoff {
            return Err(Error::scenario(k("xon"), format!("must be below xoff (xon {xon} B >= xoff {xoff} B)")));
        }
    }
    if let (None, Some(xoff)) = (p.xon, p.xoff) {
        if p.resume_offset >= xoff {
            return Err(Error::scenario(k("resume_offset"), format!("must be below xoff ({} B >= {xoff} B)", p.resume_offset)));
        }
    }
    if let Some(w) = &p.watchdog {
        w.check(&k("watchdog"), ctx)?;
    }
    if p.ib_period.is_some() && p.mode != FlowControl::IbCredits {
        return Err(Error::scenario(k("ib_period"), "applies to mode = \"ib_credits\" only"));
    }
    Ok(())
}

/// `[switch.pfc]` against the switch buffer: explicit thresholds need a static buffer
/// and fit in its port buffer.
pub fn check(plan: &Plan) -> Result<()> {
    let pfc = &plan.fabric.pfc;
    match plan.switch.buffer {
        BufferPlan::Static { port_buffer } => {
            if let Some(xoff) = pfc.xoff.filter(|&x| x > port_buffer) {
                return Err(Error::scenario("switch.pfc.xoff", format!("exceeds the port buffer ({xoff} B > {port_buffer} B)")));
            }
        }
        BufferPlan::Shared { .. } => {
            for (key, v) in [("xoff", pfc.xoff), ("xon", pfc.xon)] {
                if v.is_some() {
                    return Err(Error::scenario(
                        format!("switch.pfc.{key}"),
                        "only applies to a static buffer (switch.buffer.type = \"static\")",
                    ));
                }
            }
        }
    }
    Ok(())
}
