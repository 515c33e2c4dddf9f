//! `type = "dctcp_rate"`: DCTCP as a NIC would run it (the HPCC simulator's `CC_MODE 8`,
//! ../shared/models/modern-cc.md 10.3 "Rate form"): the same alpha estimate as the window
//! form, but the reaction is on the pacing rate and it starts at line rate (no slow start).
//! Sequence numbers are packets here (bytes in the HPCC simulator), so a batch is the
//! packets outstanding when it started, plus one:
//!
//! ```text
//! per ACK: ecn += ECE
//! ACK past last_update:  first: batch = snd_nxt + 1
//!                        else:  alpha = (1 - g) alpha + g min(1, ecn / batch);
//!                               batch = snd_nxt - acked_to + 1
//!                        last_update = snd_nxt; ecn = 0; new batch
//! CWR and ACK past high_seq: OPEN
//! ECE and OPEN:  rate = max(R_min, rate (1 - alpha / 2)); CWR; high_seq = snd_nxt
//! OPEN and new batch: rate = min(C, rate + R_AI)
//! ```
//!
//! The HPCC study runs it with a window (`HAS_WIN 1, VAR_WIN 1`): `window = "bdp"` caps
//! the bytes in flight, scaled by rate / line rate when `var_window` is on.

use crate::error::Result;
use crate::keys::{at, at_most_line_rate, kind, KeyCtx};
use crate::models::window_cap::{self, WindowCap};
use crate::models::{Ack, CcCtx, CongestionControl, NicSpec};
use crate::units::Rate;

/// Resolved parameters (defaults: the HPCC study's run script).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpRateParams {
    /// Weight of a batch's marked fraction in alpha (1/16).
    pub g: f64,
    pub alpha_init: f64,
    /// Additive increase per batch without marks (615 Mb/s: one 1 KB MTU per 13 us).
    pub rate_ai: Rate,
    pub rate_min: Rate,
    /// A cap on the bytes in flight (`None`: rate only).
    pub window: Option<WindowCap>,
    /// Scale the window by rate / line rate (`VAR_WIN`).
    pub var_window: bool,
}

impl Default for DctcpRateParams {
    fn default() -> Self {
        DctcpRateParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            rate_ai: Rate::mbps(615),
            rate_min: Rate::mbps(100),
            window: None,
            var_window: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct DctcpRate {
    p: DctcpRateParams,
    line: f64,
    pub(crate) rate: f64,
    pub(crate) alpha: f64,
    /// ECN echoes in the current batch and its size in packets.
    pub(crate) ecn: u32,
    pub(crate) batch: u32,
    last_update: Option<u32>,
    /// In CWR until the cumulative ACK passes this sequence number.
    high_seq: Option<u32>,
    /// The window cap at line rate (bytes).
    win: Option<u64>,
}

impl CongestionControl for DctcpRate {
    type Params = DctcpRateParams;
    fn from_params(p: &DctcpRateParams, nic: &NicSpec) -> Self {
        let line = nic.line_rate.0 as f64;
        DctcpRate {
            p: p.clone(),
            line,
            rate: line,
            alpha: p.alpha_init,
            ecn: 0,
            batch: 0,
            last_update: None,
            high_seq: None,
            win: p.window.map(|w| w.bytes(nic)),
        }
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn rate(&self) -> Rate {
        Rate((self.rate as u64).max(1))
    }
    fn window(&self) -> Option<u64> {
        window_cap::at_rate(self.win, self.p.var_window, self.rate, self.line)
    }

    fn on_ack(&mut self, _: &mut CcCtx, ack: &Ack<'_>) {
        if ack.ece {
            self.ecn += 1;
        }
        let mut new_batch = false;
        match self.last_update {
            None => {
                self.batch = ack.snd_nxt + 1;
                self.last_update = Some(ack.snd_nxt);
                new_batch = true;
            }
            Some(last) if ack.acked_to > last => {
                let f = (self.ecn as f64 / self.batch as f64).min(1.0);
                self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * f;
                self.batch = ack.snd_nxt.saturating_sub(ack.acked_to) + 1;
                self.last_update = Some(ack.snd_nxt);
                self.ecn = 0;
                new_batch = true;
            }
            Some(_) => {}
        }
        if self.high_seq.is_some_and(|h| ack.acked_to > h) {
            self.high_seq = None;
        }
        if ack.ece && self.high_seq.is_none() {
            self.rate = (self.rate * (1.0 - self.alpha / 2.0)).max(self.p.rate_min.0 as f64);
            self.high_seq = Some(ack.snd_nxt);
        }
        if self.high_seq.is_none() && new_batch {
            self.rate = (self.rate + self.p.rate_ai.0 as f64).min(self.line);
        }
    }
}

crate::params! {
    /// `type = "dctcp_rate"`.
    pub struct DctcpRateKeys => DctcpRateParams {
        check_more: check_more,
    }
    /// weight of a batch's marked fraction in alpha
    g: kind::Fraction, in_oc(0.0, 1.0);
    /// alpha at the start
    alpha_init: kind::Fraction, in_cc(0.0, 1.0);
    /// additive increase per batch without marks (the HPCC study's run script: one 1 KB MTU per 13 us)
    rate_ai: kind::Rate, POSITIVE;
    /// floor of the rate (the HPCC simulator's minimum rate); at most the smallest host link rate
    rate_min: kind::Rate, POSITIVE;
    /// "+win": `"bdp"` (line rate x the run's largest base RTT) or a size; bytes in flight allowed besides pacing
    window: kind::Opt<window_cap::Window>, POSITIVE;
    /// the window follows the rate: window x rate / line rate (`VAR_WIN 1`)
    var_window: kind::Bool, ANY;
}

fn check_more(p: &DctcpRateParams, path: &str, ctx: &KeyCtx) -> Result<()> {
    at_most_line_rate(p.rate_min, &at(path, "rate_min"), ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    fn nic() -> NicSpec {
        NicSpec { line_rate: Rate::gbps(100), mtu_wire: 1086, mss: 1000, base_rtt: SimTime::us(8) }
    }
    fn ack(to: u32, nxt: u32, ece: bool) -> Ack<'static> {
        Ack { newly_acked: 1000, acked_to: to, snd_nxt: nxt, rtt: SimTime::us(10), ece, nak: false, int: &[], recovery: false }
    }

    /// A scripted ACK sequence, each step against values worked out by hand.
    #[test]
    fn batches_alpha_and_cuts_by_hand() {
        let mut d = DctcpRate::from_params(&DctcpRateParams::default(), &nic());
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(100));
        // First ACK (acked 1, 10 sent): batch = 11, no alpha update; a new batch in OPEN
        // adds R_AI, capped at C.
        d.on_ack(&mut x, &ack(1, 10, false));
        assert_eq!((d.batch, d.alpha, d.rate), (11, 1.0, 100e9));
        // Marked ACK inside the batch: cut with alpha = 1: 100G -> 50G, enter CWR until 12.
        d.on_ack(&mut x, &ack(2, 12, true));
        assert_eq!(d.rate, 50e9);
        assert_eq!(d.ecn, 1);
        // Another mark inside CWR: no cut.
        d.on_ack(&mut x, &ack(3, 12, true));
        assert_eq!((d.rate, d.ecn), (50e9, 2));
        // ACK 11 passes last_update 10: alpha = 15/16 + 1/16 * 2/11; batch = 20 - 11 + 1 = 10.
        // Still in CWR (11 <= 12): no increase.
        d.on_ack(&mut x, &ack(11, 20, false));
        let a1 = 15.0 / 16.0 + (2.0 / 11.0) / 16.0;
        assert_eq!(d.alpha, a1);
        assert_eq!((d.batch, d.ecn, d.rate), (10, 0, 50e9));
        // ACK 13 passes high_seq 12: OPEN again, but no new batch (13 <= 20): no increase.
        d.on_ack(&mut x, &ack(13, 21, false));
        assert_eq!(d.rate, 50e9);
        // ACK 21 passes 20: alpha = (15/16) a1, new batch, OPEN: + 615 Mb/s.
        d.on_ack(&mut x, &ack(21, 30, false));
        assert_eq!(d.alpha, (15.0 / 16.0) * a1);
        assert_eq!(d.rate, 50e9 + 615e6);
        // A mark in OPEN: rate (1 - alpha / 2).
        d.on_ack(&mut x, &ack(22, 30, true));
        let r = (50e9 + 615e6) * (1.0 - (15.0 / 16.0) * a1 / 2.0);
        assert_eq!(d.rate, r);
        assert_eq!(d.rate(), Rate(r as u64));
    }

    #[test]
    fn floor_and_window() {
        let p = DctcpRateParams { rate_min: Rate::gbps(40), window: Some(WindowCap::Bdp), ..DctcpRateParams::default() };
        let mut d = DctcpRate::from_params(&p, &nic());
        let mut x = CcCtx::new(SimTime::ZERO, Rate::gbps(100));
        // BDP = 100 Gb/s x 8 us = 100 KB at line rate.
        assert_eq!(d.window(), Some(100_000));
        d.on_ack(&mut x, &ack(1, 5, true)); // first ACK, marked: cut to 50G
        assert_eq!(d.rate, 50e9);
        assert_eq!(d.window(), Some(50_000)); // var_window: scaled by rate / C
        d.on_ack(&mut x, &ack(6, 9, true)); // past high_seq 5, marked: 50G x (1 - a/2) < 40G floor
        assert_eq!(d.rate, 40e9);
        let fixed = DctcpRate::from_params(&DctcpRateParams { var_window: false, ..p }, &nic());
        assert_eq!(fixed.window(), Some(100_000));
    }
}
