//! A model that exists to show, and to test, how a model is added (ARCHITECTURE.md, "How
//! to add a model"): this folder and one line in `models/mod.rs`, nothing else. It is
//! compiled only in the unit tests. The algorithm: every CNP halves the rate (down to a
//! floor); after `recover` without a CNP the rate goes back to the line rate.

use crate::keys::kind;
use crate::models::{CcCtx, CongestionControl, TimerKind};
use crate::units::{Rate, SimTime};

/// Resolved parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct HalvingParams {
    pub recover: SimTime,
}

impl Default for HalvingParams {
    fn default() -> Self {
        HalvingParams { recover: SimTime::us(100) }
    }
}

crate::params! {
    /// `type = "example_halving"` keys.
    pub struct HalvingKeys => HalvingParams {}
    /// time without a CNP after which the rate returns to line rate
    recover: kind::Time, POSITIVE;
}

const TIMER_RECOVER: TimerKind = 0;

#[derive(Clone, Debug)]
pub struct Halving {
    p: HalvingParams,
    line: Rate,
    rate: Rate,
}

impl CongestionControl for Halving {
    type Params = HalvingParams;
    fn from_params(p: &HalvingParams, nic: &crate::models::NicSpec) -> Self {
        Halving { p: p.clone(), line: nic.line_rate, rate: nic.line_rate }
    }
    fn on_cnp(&mut self, ctx: &mut CcCtx) {
        self.rate = Rate((self.rate.0 / 2).max(self.line.0 / 64));
        ctx.restart_timer(TIMER_RECOVER, self.p.recover);
    }
    fn on_timer(&mut self, _: &mut CcCtx, _: TimerKind) {
        self.rate = self.line;
    }
    fn rate(&self) -> Rate {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::results::Column;

    const INCAST: &str = r#"
[simulation]
duration = "2ms"
[topology]
type = "star"
hosts = 3
rate = "25Gbps"
delay = "1us"
[switch.ecn]
mode = "red"
kmin = "10KB"
kmax = "40KB"
pmax = 0.5
[host.cc]
type = "example_halving"
recover = "50us"
[[traffic]]
type = "incast"
sender_count = 2
receiver = "h0"
size = "inf"
"#;

    #[test]
    fn an_added_model_loads_runs_and_reacts() {
        let plan = crate::scenario::load_str(INCAST, Path::new("."), &[]).expect("the example model's scenario loads");
        assert_eq!(plan.ccs[0].type_name(), "example_halving");
        let res = crate::sim::run(&plan).unwrap();
        let flows = res.table("flows").unwrap();
        let Some(Column::U64(cnps)) = flows.get("cnps_received") else { panic!("no cnps_received column") };
        let Some(Column::F64(min_rate)) = flows.get("min_rate_gbps") else { panic!("no min_rate_gbps column") };
        assert!(cnps.iter().all(|&n| n > 0), "every sender got CNPs: {cnps:?}");
        assert!(min_rate.iter().all(|&r| r <= 12.5), "every sender halved its rate: {min_rate:?}");
        // Its keys are checked like every model's.
        let e = crate::scenario::load_str(INCAST, Path::new("."), &["host.cc.recover=\"0us\"".into()]).unwrap_err();
        assert!(e.to_string().contains("host.cc.recover: must be > 0"), "{e}");
        let e = crate::scenario::load_str(INCAST, Path::new("."), &["host.cc.g=0.5".into()]).unwrap_err();
        assert!(e.to_string().contains("host.cc.g: only for type = \"dcqcn\""), "{e}");
    }
}
