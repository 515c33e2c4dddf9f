//! The resolved PFC / PAUSE settings of a run (pfc.md).

use crate::units::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowControl {
    /// Per-priority pause (IEEE 802.1Qbb) on the lossless priorities.
    Pfc,
    /// Link-level PAUSE (IEEE 802.3x): one class that stops every priority.
    Pause,
    /// No flow control: the fabric is lossy and full buffers drop.
    None,
    /// InfiniBand credit-based flow control on every priority (models/ib_credits).
    IbCredits,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseMode {
    /// XOFF carries `xoff_quanta`; refreshed before expiry while congested; explicit XON.
    XonXoff,
    /// XOFF carries a short `pause_time`, re-sent every half period while congested.
    Timer,
    /// Any XOFF pauses until XON (the HPCC simulator's behaviour).
    Infinite,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Headroom {
    /// 3 x one-way link BDP (the HPCC simulator's rule).
    Hpcc,
    /// pfc.md 1.6: MTU_R + 84 + 2*C*d/8 + 2*D_phy*C/8 + 64*Q_react + MTU_S.
    Formula { phy_delay: SimTime },
    /// A configured number of bytes per (port, priority).
    Fixed(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct PfcPlan {
    pub mode: FlowControl,
    pub pause_mode: PauseMode,
    /// Bit p set: priority p is lossless (paused by PFC).
    pub lossless: u8,
    pub xoff_quanta: u16,
    /// Pause time of TIMER mode.
    pub pause_time: SimTime,
    /// Refresh an XOFF after this fraction of its duration while still congested.
    pub refresh_fraction: f64,
    /// Quanta a port keeps sending after it receives a pause (802.3 Annex 31B reaction).
    pub reaction_quanta: u32,
    pub headroom: Headroom,
    /// Static buffer only: XOFF threshold in ingress bytes per (port, priority);
    /// `None` computes it as the per-priority share of `port_buffer` minus headroom.
    pub xoff: Option<u64>,
    /// Static buffer only: XON threshold; `None` is `xoff - resume_offset`.
    pub xon: Option<u64>,
    /// Hysteresis between XOFF and XON (bytes).
    pub resume_offset: u64,
    /// Period of the deadlock detector (`deadlock.rs`); `None` turns it off.
    pub deadlock_check: Option<SimTime>,
    /// End the run at the first deadlock detected.
    pub deadlock_stop: bool,
    /// The PFC watchdog of the switches (`watchdog.rs`), if on.
    pub watchdog: Option<WatchdogPlan>,
    /// IB credits: the receiver's input buffer per (port, VL), bytes (initial credits).
    pub ib_buffer: u64,
    /// IB credits: bytes freed from an input buffer that make the receiver send an FCP.
    pub ib_update: u64,
    /// IB credits: period of the FCPs every port sends per VL in use (`None`: only
    /// `ib_update`-driven ones).
    pub ib_period: Option<SimTime>,
}

impl PfcPlan {
    /// Whether frames of `prio` are protected from loss: by PFC on the lossless
    /// priorities, by PAUSE or credits on all, by nothing without flow control. The one
    /// definition every model and check uses.
    #[inline]
    pub fn is_lossless(&self, prio: u8) -> bool {
        match self.mode {
            FlowControl::Pfc => self.lossless & (1 << prio) != 0,
            FlowControl::Pause | FlowControl::IbCredits => true,
            FlowControl::None => false,
        }
    }

    /// The key that makes priorities lossless under this plan, for messages.
    pub fn lossless_key(&self) -> &'static str {
        if self.mode == FlowControl::Pfc {
            "switch.pfc.lossless"
        } else {
            "switch.pfc.mode"
        }
    }

    /// MMU accounting classes: one under PAUSE (it stops the whole link), one per
    /// lossless priority otherwise (at least one).
    pub fn classes(&self) -> u64 {
        match self.mode {
            FlowControl::Pause => 1,
            _ => self.lossless.count_ones().max(1) as u64,
        }
    }

    /// The (XOFF, XON) thresholds of a (port, class) of a static buffer of `port_buffer`
    /// bytes per port, with `headroom` bytes of headroom: the class's share less the
    /// headroom (the whole share without flow control), unless the scenario gives them;
    /// XON `resume_offset` below XOFF. The one computation the world and the checks use.
    pub fn static_thresholds(&self, port_buffer: u64, headroom: u64) -> (u64, u64) {
        let headroom = if self.mode == FlowControl::None { 0 } else { headroom };
        self.thresholds(port_buffer / self.classes(), headroom, self.xoff, self.xon)
    }

    /// The (XOFF, XON) rule of a buffer of `space` bytes that pauses its sender (a static
    /// switch buffer's class share, a NIC's receive buffer): XOFF `headroom` below the
    /// space and XON `resume_offset` below XOFF, unless given.
    pub fn thresholds(&self, space: u64, headroom: u64, xoff: Option<u64>, xon: Option<u64>) -> (u64, u64) {
        let xoff = xoff.unwrap_or(space.saturating_sub(headroom));
        (xoff, xon.unwrap_or(xoff.saturating_sub(self.resume_offset)))
    }

    /// The classes a pause for every lossless class covers, as a mask: the lossless
    /// priorities under PFC, class 0 under PAUSE (one frame stops the link), none
    /// without pause frames (off, or InfiniBand credits).
    pub fn pause_classes(&self) -> u8 {
        match self.mode {
            FlowControl::Pfc => self.lossless,
            FlowControl::Pause => 1,
            FlowControl::None | FlowControl::IbCredits => 0,
        }
    }
}

/// What a queue in a pause storm does with its frames (SONiC `pfcwd` actions).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WatchdogAction {
    /// Drop the frames it holds and every frame routed to it.
    Drop,
    /// Send them regardless of pauses (the queue ignores pauses, nothing is dropped).
    Forward,
}

/// PFC watchdog settings (SONiC-style).
#[derive(Clone, Debug, PartialEq)]
pub struct WatchdogPlan {
    /// What a queue in a storm does with its frames.
    pub action: WatchdogAction,
    /// A queue paused this long while holding frames is in a pause storm.
    pub detection: SimTime,
    /// A storm ends when no pause has arrived for the queue for this long.
    pub restoration: SimTime,
    /// How often the switches look at their queues.
    pub poll: SimTime,
}

impl Default for PfcPlan {
    fn default() -> Self {
        PfcPlan {
            mode: FlowControl::Pfc,
            pause_mode: PauseMode::XonXoff,
            lossless: 1 << 3,
            xoff_quanta: 65535,
            pause_time: SimTime::us(5),
            refresh_fraction: 0.5,
            reaction_quanta: 0,
            headroom: Headroom::Formula { phy_delay: SimTime::ZERO },
            xoff: None,
            xon: None,
            resume_offset: 3 * 1024,
            deadlock_check: Some(SimTime::us(100)),
            deadlock_stop: false,
            watchdog: None,
            ib_buffer: 64 * 1024,
            ib_update: 4 * 1024,
            ib_period: None,
        }
    }
}
