//! The retransmission timeout of RFC 6298: smoothed RTT and its variation from the RTT
//! samples, RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)) capped at max_rto, doubled at
//! each expiry (exponential backoff) until a new sample arrives. Integer picoseconds.

use crate::units::SimTime;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    pub srtt: Option<SimTime>,
    pub rttvar: SimTime,
    min: SimTime,
    max: SimTime,
    initial: SimTime,
    granularity: SimTime,
    /// Expiries since the last sample (the RTO is doubled this many times).
    backoff: u32,
}

impl RtoEstimator {
    pub fn new(initial: SimTime, min: SimTime, max: SimTime, granularity: SimTime) -> Self {
        RtoEstimator { srtt: None, rttvar: SimTime::ZERO, min, max, initial, granularity, backoff: 0 }
    }

    /// Takes one RTT sample (RFC 6298 2.2 and 2.3; alpha = 1/8, beta = 1/4).
    pub fn sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(s) => {
                let diff = s.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(SimTime((7 * s.0 + r.0) / 8));
            }
        }
        self.backoff = 0;
    }

    /// The timer expired: back off (RFC 6298 5.5).
    pub fn expired(&mut self) {
        self.backoff = (self.backoff + 1).min(32);
    }

    /// The current timeout.
    pub fn rto(&self) -> SimTime {
        let base = match self.srtt {
            None => self.initial,
            Some(s) => SimTime(s.0 + self.granularity.0.max(4 * self.rttvar.0)).max(self.min),
        };
        SimTime(base.0.saturating_mul(1u64 << self.backoff.min(20))).min(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_estimates_and_backoff() {
        let us = SimTime::us;
        let mut e = RtoEstimator::new(SimTime::ms(10), us(200), SimTime::ms(100), us(1));
        assert_eq!(e.rto(), SimTime::ms(10), "initial RTO before any sample");
        e.sample(us(100));
        // SRTT 100, RTTVAR 50: 100 + 4*50 = 300 us.
        assert_eq!(e.rto(), us(300));
        e.sample(us(180));
        // RTTVAR = 3/4*50 + 1/4*80 = 57.5; SRTT = 7/8*100 + 1/8*180 = 110.
        assert_eq!(e.srtt, Some(us(110)));
        assert_eq!(e.rttvar, SimTime(57_500_000));
        assert_eq!(e.rto(), SimTime(110_000_000 + 230_000_000));
        e.sample(us(110));
        e.sample(us(110));
        for _ in 0..20 {
            e.sample(us(110));
        }
        assert_eq!(e.rto(), us(200), "min RTO");
        e.expired();
        assert_eq!(e.rto(), us(400));
        e.expired();
        assert_eq!(e.rto(), us(800));
        for _ in 0..10 {
            e.expired();
        }
        assert_eq!(e.rto(), SimTime::ms(100), "max RTO");
        e.sample(us(110));
        assert_eq!(e.rto(), us(200), "a new sample ends the backoff");
    }
}
