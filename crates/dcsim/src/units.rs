//! Physical units: integer picosecond time, bit/s rates, byte sizes, and their
//! parsing from the strings scenario files use ("40Gbps", "1.5us", "32MiB").

use std::fmt;

/// Simulated time in picoseconds. Integer so that runs are bit-reproducible.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);

    /// Visits of a period `self` within `span` (at least one when the span is not empty),
    /// for the event estimate (`scenario/work.rs`).
    pub fn periods_in(self, span: SimTime) -> u64 {
        if span.0 == 0 {
            return 0;
        }
        span.0 / self.0.max(1) + 1
    }

    pub const MAX: SimTime = SimTime(u64::MAX);
    pub const fn ps(v: u64) -> Self {
        SimTime(v)
    }
    pub const fn ns(v: u64) -> Self {
        SimTime(v * 1_000)
    }
    pub const fn us(v: u64) -> Self {
        SimTime(v * 1_000_000)
    }
    pub const fn ms(v: u64) -> Self {
        SimTime(v * 1_000_000_000)
    }
    /// This point in time `by` later, `MAX` (never) staying `MAX`: fast-forward's resume
    /// moves the times the world holds (`sim/fast_forward`).
    #[inline]
    pub fn later(self, by: SimTime) -> SimTime {
        if self == SimTime::MAX {
            self
        } else {
            self + by
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
}

impl std::ops::Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0 + o.0)
    }
}
impl std::ops::Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps >= 1_000_000_000 {
            write!(f, "{}ms", ps as f64 / 1e9)
        } else if ps >= 1_000_000 {
            write!(f, "{}us", ps as f64 / 1e6)
        } else if ps >= 1_000 {
            write!(f, "{}ns", ps as f64 / 1e3)
        } else {
            write!(f, "{}ps", ps)
        }
    }
}

/// The largest rate a link, a pacing rate or a model parameter may have: one byte per
/// picosecond. Serialization times are whole picoseconds, so at a higher rate a small
/// frame would take no time at all and the clock could stop advancing.
pub const MAX_RATE: Rate = Rate(8_000_000_000_000);

/// The largest time a scenario may give (2^62 ps, about 53 days): the engine adds a
/// time, a serialization time and a link delay to the clock without overflowing.
pub const MAX_TIME: SimTime = SimTime(1 << 62);

/// A point in time or none, in 8 bytes (an `Option<SimTime>` takes 16): `u64::MAX`, a
/// time no event has, is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct When(u64);

impl Default for When {
    fn default() -> Self {
        When(u64::MAX)
    }
}

impl When {
    #[inline]
    pub fn get(self) -> Option<SimTime> {
        (self.0 != u64::MAX).then_some(SimTime(self.0))
    }
    #[inline]
    pub fn set(&mut self, t: SimTime) {
        debug_assert!(t != SimTime::MAX);
        self.0 = t.0;
    }
    #[inline]
    pub fn take(&mut self) -> Option<SimTime> {
        std::mem::take(self).get()
    }
    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != u64::MAX
    }
    #[inline]
    pub fn is_none(self) -> bool {
        self.0 == u64::MAX
    }
    /// This one if set, else `o`.
    pub fn or(self, o: When) -> When {
        if self.is_some() {
            self
        } else {
            o
        }
    }
}

/// A bit rate in bit/s.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn bps(v: u64) -> Self {
        Rate(v)
    }
    pub const fn mbps(v: u64) -> Self {
        Rate(v * 1_000_000)
    }
    pub const fn gbps(v: u64) -> Self {
        Rate(v * 1_000_000_000)
    }
    pub fn as_gbps_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }

    /// Time to serialize `bytes` at this rate, rounded down to the picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> SimTime {
        if bytes <= 2_000_000 {
            SimTime(bytes * 8_000_000_000_000 / self.0) // fits in u64
        } else {
            SimTime((bytes as u128 * 8_000_000_000_000 / self.0 as u128) as u64)
        }
    }
}

/// A link's rate with its time per byte when that is a whole number of picoseconds (80 at
/// 100 Gb/s, 8 at 1 Tb/s): a frame's serialization time is then a multiplication, where
/// a division cost about 2 % of a large fabric's run. Same times as `Rate::tx_time`.
/// One word, so that it takes no more of a port's first cache line than a `Rate`: the
/// rate in the low `RATE_BITS` bits (`MAX_RATE` fits), the picoseconds per byte above
/// them (rates from 3.8 Mb/s up; 0 where there is no whole number of them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkRate(u64);

const RATE_BITS: u32 = 43;
const _: () = assert!(MAX_RATE.0 < 1 << RATE_BITS);

impl LinkRate {
    /// `rate` must be at most `MAX_RATE` (every parsed rate is).
    pub fn new(rate: Rate) -> Self {
        assert!(rate.0 <= MAX_RATE.0, "link rate {} above the largest, {}", rate.0, MAX_RATE.0);
        let per_byte = 8_000_000_000_000;
        let whole = rate.0 > 0 && per_byte % rate.0 == 0 && per_byte / rate.0 < 1 << (64 - RATE_BITS);
        let byte_ps = if whole { per_byte / rate.0 } else { 0 };
        LinkRate(byte_ps << RATE_BITS | rate.0)
    }
    #[inline]
    pub fn rate(self) -> Rate {
        Rate(self.0 & ((1 << RATE_BITS) - 1))
    }
    /// Time to serialize `bytes` (below 2^32) at this rate, as `Rate::tx_time`.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> SimTime {
        let byte_ps = self.0 >> RATE_BITS;
        if byte_ps != 0 && bytes < 1 << 32 {
            SimTime(bytes * byte_ps)
        } else {
            self.rate().tx_time(bytes)
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Gbps", self.0 as f64 / 1e9)
    }
}

/// Why a unit string did not parse; the caller adds the field path.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError(pub String);

fn split_number(s: &str) -> Result<(f64, &str), UnitError> {
    let s = s.trim();
    let end =
        s.char_indices().find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+')).map(|(i, _)| i).unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    if num.is_empty() {
        return Err(UnitError(format!("{s:?} does not start with a number")));
    }
    let v: f64 = num.parse().map_err(|_| UnitError(format!("{num:?} is not a number")))?;
    if !v.is_finite() {
        return Err(UnitError(format!("{s:?} is not finite")));
    }
    if v < 0.0 {
        return Err(UnitError(format!("{s:?} is negative")));
    }
    Ok((v, unit.trim()))
}

fn scaled(v: f64, mult: f64, what: &str, s: &str) -> Result<u64, UnitError> {
    let x = v * mult;
    if x > u64::MAX as f64 / 2.0 {
        return Err(UnitError(format!("{what} {s:?} is too large")));
    }
    let r = x.round();
    if (x - r).abs() > 1e-6 * x.max(1.0) {
        return Err(UnitError(format!("{what} {s:?} is not a whole number of the base unit")));
    }
    Ok(r as u64)
}

/// Parses a duration: `ps`, `ns`, `us` (or `µs`), `ms`, `s`. A bare number is refused
/// so that a forgotten unit is an error, not a silent nanosecond.
pub fn parse_time(s: &str) -> Result<SimTime, UnitError> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        "" => return Err(UnitError(format!("{s:?} has no unit (use ps, ns, us, ms or s)"))),
        u => return Err(UnitError(format!("unknown time unit {u:?} in {s:?} (use ps, ns, us, ms or s)"))),
    };
    let t = SimTime(scaled(v, mult, "time", s)?);
    if t > MAX_TIME {
        return Err(UnitError(format!("time {s:?} is too large (at most {MAX_TIME})")));
    }
    Ok(t)
}

/// Parses a rate: `bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps` (also written `Gb/s`).
pub fn parse_rate(s: &str) -> Result<Rate, UnitError> {
    let (v, unit) = split_number(s)?;
    let u = unit.replace("b/s", "bps");
    let mult = match u.as_str() {
        "bps" => 1.0,
        "Kbps" | "kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "Tbps" => 1e12,
        "" => return Err(UnitError(format!("{s:?} has no unit (use bps, Kbps, Mbps, Gbps or Tbps)"))),
        _ => return Err(UnitError(format!("unknown rate unit {unit:?} in {s:?} (use bps, Kbps, Mbps, Gbps or Tbps)"))),
    };
    let r = Rate(scaled(v, mult, "rate", s)?);
    if r > MAX_RATE {
        return Err(UnitError(format!(
            "rate {s:?} is above the largest supported rate, 8Tbps (one byte per picosecond: \
             serialization times are whole picoseconds)"
        )));
    }
    Ok(r)
}

/// Parses a size: `B`, `KB`/`MB`/`GB` (powers of 1000) and `KiB`/`MiB`/`GiB` (powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "" => return Err(UnitError(format!("{s:?} has no unit (use B, KB, KiB, MB, MiB, GB or GiB)"))),
        u => return Err(UnitError(format!("unknown size unit {u:?} in {s:?} (use B, KB, KiB, MB, MiB, GB or GiB)"))),
    };
    scaled(v, mult, "size", s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_rate("40Gbps").unwrap(), Rate::gbps(40));
        assert_eq!(parse_rate("2.5Gb/s").unwrap(), Rate::mbps(2500));
        assert_eq!(parse_time("1.5us").unwrap(), SimTime::ns(1500));
        assert_eq!(parse_time("55us").unwrap(), SimTime::us(55));
        assert_eq!(parse_bytes("32MiB").unwrap(), 32 << 20);
        assert_eq!(parse_bytes("100KB").unwrap(), 100_000);
        assert_eq!(parse_bytes("2048B").unwrap(), 2048);
    }

    #[test]
    fn rejects_bad_units() {
        assert!(parse_rate("40Gbs").is_err());
        assert!(parse_rate("40").is_err());
        assert!(parse_time("-1us").is_err());
        assert!(parse_time("1.5").is_err());
        assert!(parse_time("0.5ps").is_err());
        assert!(parse_bytes("1.5B").is_err());
        assert!(parse_bytes("abc").is_err());
    }

    #[test]
    fn rejects_degenerate_rates_and_times() {
        // 1000 Tb/s would serialize a 64 B frame in 0 ps: the clock would stop.
        let e = parse_rate("1000Tbps").unwrap_err().0;
        assert!(e.contains("8Tbps"), "{e}");
        assert_eq!(parse_rate("8Tbps").unwrap(), MAX_RATE);
        assert!(MAX_RATE.tx_time(1) >= SimTime(1));
        assert!(parse_time("1000000000s").is_err());
        assert!(parse_time("50ms").is_ok());
    }

    #[test]
    fn errors_quote_the_value_on_one_line() {
        for s in ["1G\nbps", "1\u{2028}x", "\u{2028}", "x\ny"] {
            for e in [parse_rate(s).unwrap_err().0, parse_time(s).unwrap_err().0, parse_bytes(s).unwrap_err().0] {
                assert!(!e.contains('\n') && !e.contains('\u{2028}'), "{e}");
            }
        }
    }

    #[test]
    fn serialization_time_is_exact_for_common_rates() {
        // 2130 B on the wire at 40 Gb/s = 426 ns.
        assert_eq!(Rate::gbps(40).tx_time(2130), SimTime::ns(426));
        assert_eq!(Rate::gbps(100).tx_time(84), SimTime::ps(6720));
    }

    /// A link rate's times are the rate's, whole picoseconds per byte or not.
    #[test]
    fn link_rate_times_are_the_rates() {
        for r in [
            Rate::gbps(100),
            Rate::gbps(40),
            Rate::gbps(25),
            Rate::mbps(100),
            Rate::mbps(4),
            Rate::mbps(1),
            Rate(3),
            Rate::gbps(56),
            Rate(999_999_999_937),
            MAX_RATE,
        ] {
            let l = LinkRate::new(r);
            assert_eq!(l.rate(), r);
            for b in [0u64, 1, 64, 84, 1048, 9216, 65_535, 2_000_001, 1 << 33] {
                assert_eq!(l.tx_time(b), r.tx_time(b), "{r:?} {b} B");
            }
        }
        assert_eq!(LinkRate::new(Rate::gbps(100)).0 >> RATE_BITS, 80);
        assert_eq!(LinkRate::new(Rate::gbps(56)).0 >> RATE_BITS, 0);
        assert_eq!(LinkRate::new(Rate::mbps(1)).0 >> RATE_BITS, 0, "8,000,000 ps per byte: more than the bits hold");
    }
}
