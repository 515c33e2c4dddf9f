//! FECN / E-FECN switch side: per output port an advertised rate, recomputed every
//! interval from the measured load and the queue (../shared/models/bcn-fecn.md 7.2, 7.4).
//!
//! Every interval T (with `bits` received for the port in it and the queue at `q`):
//!
//! ```text
//! f     = QueueControl(q)        a Qeq / ((a-1) q + Qeq)               q <= Qeq
//!                                max(c, b Qeq / ((b-1) q + Qeq))       q >  Qeq
//! rho   = bits / (T C_i f)
//! r_i   = min(C_i, r_{i-1} / rho)                   (rho = 0: C_i if q < 1 else r_{i-1})
//! r_i   = (1 - e) r_{i-1} + e r_i                   exponential averaging, e = 0.5
//! r_i   = min(r_i, r_{i-1})          if q > Qeq     limited rate increase
//!         min(r_i, r_{i-1} + C0/N0)  otherwise
//! r_i   = min(r_i, C_i)                             capacity adjustment
//! ```
//!
//! before the port has seen traffic the advertised rate stays C0 / N0; once initialised,
//! an interval without traffic advertises C0 / N0 again. The measured capacity C_i
//! (bits sent / busy time when busy more than half the interval, else C0) is the
//! `capacity` the caller passes: a simulated link serialises at its nominal rate, so
//! bits sent / busy time is that rate whenever the port sent anything.
//!
//! E-FECN: when the queue exceeds Qsc the caller reports it (`on_severe`) and the
//! advertised rate is forced to R_min until the next interval's computation, which
//! starts from it (r_{i-1} = R_min).

use crate::units::{Rate, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct FecnSwitchParams {
    /// Queue-control parameter a (over-allocation below Qeq: f(0) = a).
    pub a: f64,
    /// Queue-control parameter b (drain above Qeq).
    pub b: f64,
    /// Floor c of the queue-control function.
    pub c: f64,
    /// Measurement interval T.
    pub interval: SimTime,
    /// Equilibrium queue Qeq (bytes).
    pub q_eq: u64,
    /// Severe-congestion threshold Qsc (bytes; E-FECN).
    pub q_sc: u64,
    /// E-FECN: the rate advertised under severe congestion.
    pub r_min: Rate,
    /// E-FECN on.
    pub efecn: bool,
    /// N0: initial rate C0 / N0 and the limited rate increase C0 / N0.
    pub n0: f64,
    /// Weight e of the exponential averaging.
    pub ewma: f64,
}

impl Default for FecnSwitchParams {
    /// Seed 002 FECN: a = 1.1, b = 1.002, c = 0.1, T = 1 ms, Qeq = 16 x 1500 B,
    /// Qsc = 80 x 1500 B, R_min = 500 Mb/s, N0 = 1, e = 0.5, E-FECN off.
    fn default() -> Self {
        FecnSwitchParams {
            a: 1.1,
            b: 1.002,
            c: 0.1,
            interval: SimTime::ms(1),
            q_eq: 24_000,
            q_sc: 120_000,
            r_min: Rate::mbps(500),
            efecn: false,
            n0: 1.0,
            ewma: 0.5,
        }
    }
}

impl FecnSwitchParams {
    /// Seed 002 E-FECN: the FECN defaults with E-FECN on.
    pub fn efecn() -> Self {
        FecnSwitchParams { efecn: true, ..FecnSwitchParams::default() }
    }

    /// The queue-control function f(q) (q in bytes).
    pub fn queue_control(&self, q: u64) -> f64 {
        let (q, qeq) = (q as f64, self.q_eq as f64);
        if q <= qeq {
            self.a * qeq / ((self.a - 1.0) * q + qeq)
        } else {
            (self.b * qeq / ((self.b - 1.0) * q + qeq)).max(self.c)
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct FecnPort {
    /// The advertised rate: r_i of the last computation (r_{i-1} of the next), bit/s.
    pub(crate) advertised: f64,
    /// The one before (r_{i-2} of the next computation).
    pub(crate) prev: f64,
    /// Nominal capacity C0 (bit/s).
    pub(crate) c0: f64,
    /// Capacity C_i of the last interval (bit/s).
    pub(crate) c_i: f64,
    /// The port has seen traffic (Port_Initialized).
    pub(crate) initialized: bool,
    /// Wire bytes (frame + preamble/IFG) received for this output in the current interval.
    pub(crate) bytes: u64,
}

impl FecnPort {
    pub fn new(p: &FecnSwitchParams, capacity: Rate) -> Self {
        let c0 = capacity.0 as f64;
        let r0 = c0 / p.n0;
        FecnPort { advertised: r0, prev: r0, c0, c_i: c0, initialized: false, bytes: 0 }
    }

    /// A data frame of `bytes` on the wire (frame + preamble/IFG) arrived for this output.
    pub fn on_arrival(&mut self, bytes: u32) {
        self.bytes += bytes as u64;
    }

    /// End of a measurement interval of length `interval` with the queue at `qlen`.
    pub fn on_interval(&mut self, p: &FecnSwitchParams, capacity: Rate, qlen: u64, interval: SimTime) {
        if self.initialized {
            self.c_i = capacity.0 as f64;
            if self.bytes > 0 {
                self.allocate(p, qlen, interval);
            } else {
                self.shift(self.c0 / p.n0);
            }
        } else if self.bytes > 0 {
            self.initialized = true;
            self.c_i = capacity.0 as f64;
            self.allocate(p, qlen, interval);
        }
        self.bytes = 0;
    }

    /// RateAllocation() of 7.2.
    fn allocate(&mut self, p: &FecnSwitchParams, qlen: u64, interval: SimTime) {
        let r1 = self.advertised;
        let f = p.queue_control(qlen);
        let bits = self.bytes as f64 * 8.0;
        // T C_i in bits: (bit/s x ps) / 1e12.
        let rho = bits / (self.c_i * interval.0 as f64 / 1e12 * f);
        let mut r = if rho == 0.0 {
            if qlen < 1 {
                self.c_i
            } else {
                r1
            }
        } else {
            self.c_i.min(r1 / rho)
        };
        // ExponentialAveraging.
        r = (1.0 - p.ewma) * r1 + p.ewma * r;
        // LimitRateIncrease.
        r = if qlen > p.q_eq { r.min(r1) } else { r.min(r1 + self.c0 / p.n0) };
        // VariableCapacityAdjustment.
        r = r.min(self.c_i);
        self.shift(r);
    }

    #[inline]
    fn shift(&mut self, r: f64) {
        self.prev = self.advertised;
        self.advertised = r;
    }

    /// E-FECN: severe congestion (queue above Qsc): advertise the minimum rate.
    pub fn on_severe(&mut self, p: &FecnSwitchParams) {
        if p.efecn {
            self.advertised = p.r_min.0 as f64;
        }
    }

    /// The rate this port advertises to probes.
    pub fn advertised(&self) -> Rate {
        Rate(self.advertised as u64)
    }

    /// The advertised rate as f64 (bit/s), unrounded.
    pub fn advertised_f64(&self) -> f64 {
        self.advertised
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime::ms(1);
    const QEQ: u64 = 24_000;

    fn close(a: f64, b: f64) -> bool {
        ((a - b) / b).abs() <= 1e-12
    }

    /// `n` sources each sending at `rate` bit/s for one 1-ms interval: n rate / 8000 bytes.
    fn load(port: &mut FecnPort, n: u64, rate: f64) {
        let bytes = (n as f64 * rate * 1e-3 / 8.0).round() as u64;
        let mut left = bytes;
        while left > 0 {
            let b = left.min(1_000_000);
            port.on_arrival(b as u32);
            left -= b;
        }
    }

    #[test]
    fn queue_control_function() {
        let p = FecnSwitchParams::default();
        // f(0) = a Qeq / Qeq = a = 1.1.
        assert!(close(p.queue_control(0), 1.1));
        // f(Qeq/2) = 1.1 / (0.1 * 0.5 + 1) = 1.1 / 1.05 = 1.047619...
        assert!(close(p.queue_control(QEQ / 2), 1.1 / 1.05));
        // f(Qeq) = 1.1 / (0.1 + 1) = 1 (continuous at the set point).
        assert!(close(p.queue_control(QEQ), 1.0));
        // f(2 Qeq) = 1.002 / (0.002 * 2 + 1) = 1.002 / 1.004 = 0.998008...
        assert!(close(p.queue_control(2 * QEQ), 1.002 / 1.004));
        assert!((p.queue_control(2 * QEQ) - 0.998).abs() < 1e-4);
        // f(4 Qeq) = 1.002 / (0.002 * 4 + 1) = 1.002 / 1.008 = 0.994048...
        // f(5 Qeq = Qsc) = 1.002 / (0.002 * 5 + 1) = 1.002 / 1.010 = 0.992079...
        // (the spec's example value 0.994 for 5 Qeq is the formula's value at 4 Qeq).
        assert!(close(p.queue_control(4 * QEQ), 1.002 / 1.008));
        assert!(close(p.queue_control(5 * QEQ), 1.002 / 1.010));
        // Floor c = 0.1: 1.002 / (0.002 * 5000 + 1) = 0.0911 < 0.1.
        assert_eq!(p.queue_control(5000 * QEQ), 0.1);
        // Strictly decreasing around Qeq.
        assert!(p.queue_control(QEQ - 64) > 1.0 && p.queue_control(QEQ + 64) < 1.0);
    }

    #[test]
    fn converges_to_capacity_over_n() {
        // 4 sources, C = 10 Gb/s, queue at Qeq (f = 1): the target is C/4 = 2.5 Gb/s.
        let p = FecnSwitchParams::default();
        let c = Rate::gbps(10);
        let mut port = FecnPort::new(&p, c);
        assert_eq!(port.advertised(), Rate::gbps(10)); // C0 / N0, N0 = 1
                                                       // Each interval every source sends at the advertised rate r_{i-1}, so
                                                       // rho = 4 r_{i-1} / C, r_{i-1}/rho = C/4 = 2.5e9, and r_i = (r_{i-1} + 2.5e9) / 2.
        let expect = [6.25e9, 4.375e9, 3.4375e9, 2.96875e9, 2.734375e9];
        for &e in &expect {
            let r = port.advertised_f64();
            load(&mut port, 4, r);
            port.on_interval(&p, c, QEQ, T);
            assert!(close(port.advertised_f64(), e), "{} vs {e}", port.advertised_f64());
        }
        // With an empty queue f = 1.1: target 1.1 C / 4 = 2.75e9; from 10e9: 6.375e9.
        let mut port = FecnPort::new(&p, c);
        load(&mut port, 4, 10e9);
        port.on_interval(&p, c, 0, T);
        assert!(close(port.advertised_f64(), 6.375e9));
    }

    #[test]
    fn uninitialised_and_idle_ports_advertise_c0_over_n0() {
        let p = FecnSwitchParams { n0: 4.0, ..FecnSwitchParams::default() };
        let c = Rate::gbps(10);
        let mut port = FecnPort::new(&p, c);
        assert_eq!(port.advertised(), Rate::mbps(2500));
        port.on_interval(&p, c, 0, T); // no traffic yet: unchanged, not initialised
        assert_eq!(port.advertised(), Rate::mbps(2500));
        assert!(!port.initialized);
        // One source at 2.5 Gb/s, empty queue: rho = 2.5e6 / (1e7 * 1.1) = 0.22727;
        // r = min(10e9, 2.5e9 / 0.22727 = 11e9) = 10e9; averaged (2.5e9 + 10e9)/2 = 6.25e9;
        // limited increase: min(6.25e9, 2.5e9 + C0/N0 = 5e9) = 5e9.
        load(&mut port, 1, 2.5e9);
        port.on_interval(&p, c, 0, T);
        assert!(close(port.advertised_f64(), 5e9));
        // An idle interval after that: back to C0 / N0 = 2.5e9.
        port.on_interval(&p, c, 0, T);
        assert_eq!(port.advertised(), Rate::mbps(2500));
    }

    #[test]
    fn no_increase_above_qeq() {
        let p = FecnSwitchParams::default();
        let c = Rate::gbps(10);
        let mut port = FecnPort::new(&p, c);
        load(&mut port, 4, 10e9);
        port.on_interval(&p, c, QEQ, T); // 6.25e9 (as in converges_to_capacity_over_n)
                                         // One source at 6.25e9, queue 2 Qeq: f = 0.998008, rho = 6.25e6 / 9.98008e6 = 0.62625;
                                         // r = 9.98008e9, averaged 8.11504e9, but q > Qeq: min(., r_{i-1}) = 6.25e9.
        load(&mut port, 1, 6.25e9);
        port.on_interval(&p, c, 2 * QEQ, T);
        assert!(close(port.advertised_f64(), 6.25e9));
        // The same at q = Qeq: rho = 0.625, r = min(10e9, 10e9) = 10e9, averaged 8.125e9.
        load(&mut port, 1, 6.25e9);
        port.on_interval(&p, c, QEQ, T);
        assert!(close(port.advertised_f64(), 8.125e9));
    }

    #[test]
    fn capacity_adjustment_clips() {
        // Measured capacity 5 Gb/s: 5e6 bits in, q = Qeq: rho = 1, r = min(5e9, 10e9) = 5e9;
        // averaged (10e9 + 5e9)/2 = 7.5e9; clipped to C_i = 5e9.
        let p = FecnSwitchParams::default();
        let mut port = FecnPort::new(&p, Rate::gbps(10));
        load(&mut port, 1, 5e9);
        port.on_interval(&p, Rate::gbps(5), QEQ, T);
        assert!(close(port.advertised_f64(), 5e9));
    }

    #[test]
    fn efecn_severe_forces_r_min() {
        let c = Rate::gbps(10);
        // Plain FECN ignores it.
        let p = FecnSwitchParams::default();
        let mut port = FecnPort::new(&p, c);
        port.on_severe(&p);
        assert_eq!(port.advertised(), Rate::gbps(10));
        // E-FECN: advertised 500 Mb/s at once.
        let p = FecnSwitchParams::efecn();
        let mut port = FecnPort::new(&p, c);
        port.on_severe(&p);
        assert_eq!(port.advertised(), Rate::mbps(500));
        // Next interval starts from it: 4 sources at 500 Mb/s, q = Qeq: rho = 0.2,
        // r = min(10e9, 0.5e9 / 0.2 = 2.5e9); averaged (0.5e9 + 2.5e9)/2 = 1.5e9.
        load(&mut port, 4, 0.5e9);
        port.on_interval(&p, c, QEQ, T);
        assert!(close(port.advertised_f64(), 1.5e9));
    }
}
