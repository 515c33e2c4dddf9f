//! What a declared parameter is (`params!`): its kind (how its scenario key is written,
//! parsed and shown), its bounds (checked on the resolved value, shown in the docs), and
//! the row of its model's Parameters table.

use std::fmt::Debug;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use super::{KeyCtx, RateStr, SizeStr, TimeStr};
use crate::error::{Error, Result};
use crate::units::{self, SimTime};

/// A kind of parameter: the key as written (`Key`), the resolved value (`Out`), the unit
/// shown in the docs, and the number its bounds are checked on.
pub trait Kind {
    type Key: DeserializeOwned + Clone + Debug;
    type Out;
    /// The type column of the Parameters table.
    const UNIT: &'static str;
    /// The resolved value of a key; errors name `path`. Counts take their lower bound
    /// from `bound` (a negative count cannot be resolved at all).
    fn parse(key: &Self::Key, bound: &Bound, path: &str) -> Result<Self::Out>;
    /// `parse` where the value depends on the scenario's context (a size in cells of
    /// `switch.cell`); the generated build calls this one.
    fn parse_in(key: &Self::Key, bound: &Bound, path: &str, ctx: &KeyCtx) -> Result<Self::Out> {
        let _ = ctx;
        Self::parse(key, bound, path)
    }
    /// The value as a scenario would write it (the docs' default column).
    fn show(v: &Self::Out) -> String;
    /// The number the bounds are checked on (`None`: nothing to check).
    fn num(v: &Self::Out) -> Option<f64>;
    /// The value in the docs' default column (Markdown).
    fn cell(v: &Self::Out) -> String {
        format!("`{}`", Self::show(v))
    }
    /// Whether an error shows the value (`(got 0.5)`); times, sizes and rates do not.
    const GOT: bool = true;
}

/// A duration (`"1.5us"`).
pub struct Time;
/// A size in bytes (`"32MiB"`).
pub struct Size;
/// A rate (`"40Gbps"`; zero is refused when parsed).
pub struct Rate;
/// A whole number (`u32`).
pub struct Count;
/// A real number.
pub struct Real;
/// A real number that is a fraction or a gain.
pub struct Fraction;
/// `true` or `false`.
pub struct Bool;
/// One of an enum's snake_case names.
pub struct Enum<E>(PhantomData<E>);
/// Any string (what it means is checked by the model).
pub struct Str;
/// An optional value: the key sets `Some`; the default may be `None`.
pub struct Opt<K>(PhantomData<K>);
/// A size in bytes that fits in 32 bits (a frame size).
pub struct Size32;
/// A switch buffer size or threshold: a size, or whole cells of `switch.cell`
/// (`"97cells"`).
pub struct Cells;
/// A duration, or `"off"` (`None`); zero is refused (write `"off"`).
pub struct TimeOrOff;
/// A whole number that fits in 16 bits (`u16`), such as pause quanta.
pub struct Count16;
/// A list of priorities 0..=7, resolved to a mask (bit p: priority p).
pub struct Priorities;

impl Kind for Time {
    type Key = TimeStr;
    type Out = SimTime;
    const UNIT: &'static str = "time";
    const GOT: bool = false;
    fn parse(key: &TimeStr, _: &Bound, path: &str) -> Result<SimTime> {
        key.time(path)
    }
    fn show(v: &SimTime) -> String {
        quoted(show_scaled(v.0 as f64, &[(1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns"), (1.0, "ps")]))
    }
    fn num(v: &SimTime) -> Option<f64> {
        Some(v.0 as f64)
    }
}

impl Kind for Size {
    type Key = SizeStr;
    type Out = u64;
    const UNIT: &'static str = "size";
    const GOT: bool = false;
    fn parse(key: &SizeStr, _: &Bound, path: &str) -> Result<u64> {
        key.bytes(path)
    }
    fn show(v: &u64) -> String {
        // A whole number of a decimal unit, else of a binary one (3 KiB, not 3.072 KB).
        let whole =
            |units: &[(u64, &str)]| units.iter().find(|&&(s, _)| *v >= s && v.is_multiple_of(s)).map(|&(s, u)| format!("{}{u}", v / s));
        match whole(&[(1_000_000_000, "GB"), (1_000_000, "MB"), (1000, "KB")])
            .or_else(|| whole(&[(1 << 30, "GiB"), (1 << 20, "MiB"), (1024, "KiB")]))
        {
            Some(s) => quoted(s),
            None => quoted(show_scaled(*v as f64, &[(1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1.0, "B")])),
        }
    }
    fn num(v: &u64) -> Option<f64> {
        Some(*v as f64)
    }
}

impl Kind for Rate {
    type Key = RateStr;
    type Out = units::Rate;
    const UNIT: &'static str = "rate";
    const GOT: bool = false;
    fn parse(key: &RateStr, _: &Bound, path: &str) -> Result<units::Rate> {
        key.rate(path)
    }
    fn show(v: &units::Rate) -> String {
        quoted(show_scaled(v.0 as f64, &[(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "Kbps"), (1.0, "bps")]))
    }
    fn num(v: &units::Rate) -> Option<f64> {
        Some(v.0 as f64)
    }
}

impl Kind for Count {
    type Key = i64;
    type Out = u32;
    const UNIT: &'static str = "count";
    fn parse(key: &i64, bound: &Bound, path: &str) -> Result<u32> {
        let min = bound.low().map_or(0, |lo| lo.ceil() as i64).max(0);
        super::count_at_least(*key, min, path)
    }
    fn show(v: &u32) -> String {
        v.to_string()
    }
    fn num(v: &u32) -> Option<f64> {
        Some(*v as f64)
    }
}

/// Kinds whose key is their value, as written; `num` is what their bounds are checked on.
macro_rules! as_written {
    ($($kind:ident: $t:ty, $unit:literal, |$v:ident| $num:expr;)*) => {$(
        impl Kind for $kind {
            type Key = $t;
            type Out = $t;
            const UNIT: &'static str = $unit;
            fn parse(key: &$t, _: &Bound, _: &str) -> Result<$t> {
                Ok(*key)
            }
            fn show(v: &$t) -> String {
                v.to_string()
            }
            fn num($v: &$t) -> Option<f64> {
                $num
            }
        }
    )*};
}

as_written! {
    Real: f64, "number", |v| Some(*v);
    Fraction: f64, "fraction", |v| Some(*v);
    Bool: bool, "bool", |_v| None;
}

impl<E: DeserializeOwned + Clone + Debug> Kind for Enum<E> {
    type Key = E;
    type Out = E;
    const UNIT: &'static str = "enum";
    fn parse(key: &E, _: &Bound, _: &str) -> Result<E> {
        Ok(key.clone())
    }
    fn show(v: &E) -> String {
        format!("\"{}\"", snake_case(&format!("{v:?}")))
    }
    fn num(_: &E) -> Option<f64> {
        None
    }
}

impl Kind for Str {
    type Key = String;
    type Out = String;
    const UNIT: &'static str = "string";
    fn parse(key: &String, _: &Bound, _: &str) -> Result<String> {
        Ok(key.clone())
    }
    fn show(v: &String) -> String {
        format!("\"{v}\"")
    }
    fn num(_: &String) -> Option<f64> {
        None
    }
}

impl Kind for Size32 {
    type Key = SizeStr;
    type Out = u32;
    const UNIT: &'static str = "size";
    const GOT: bool = false;
    fn parse(key: &SizeStr, _: &Bound, path: &str) -> Result<u32> {
        let b = key.bytes(path)?;
        u32::try_from(b).map_err(|_| Error::scenario(path, format!("{b} B is too large")))
    }
    fn show(v: &u32) -> String {
        Size::show(&u64::from(*v))
    }
    fn num(v: &u32) -> Option<f64> {
        Some(*v as f64)
    }
}

impl Kind for Cells {
    type Key = SizeStr;
    type Out = u64;
    const UNIT: &'static str = "size";
    const GOT: bool = false;
    fn parse(key: &SizeStr, bound: &Bound, path: &str) -> Result<u64> {
        Self::parse_in(key, bound, path, &KeyCtx::NONE)
    }
    fn parse_in(key: &SizeStr, _: &Bound, path: &str, ctx: &KeyCtx) -> Result<u64> {
        key.bytes_or_cells(path, ctx.cell)
    }
    fn show(v: &u64) -> String {
        Size::show(v)
    }
    fn num(v: &u64) -> Option<f64> {
        Some(*v as f64)
    }
}

impl Kind for TimeOrOff {
    type Key = TimeStr;
    type Out = Option<SimTime>;
    const UNIT: &'static str = "time or \"off\"";
    const GOT: bool = false;
    fn parse(key: &TimeStr, _: &Bound, path: &str) -> Result<Option<SimTime>> {
        key.time_or_off(path)
    }
    fn show(v: &Option<SimTime>) -> String {
        v.as_ref().map_or_else(|| "\"off\"".to_string(), Time::show)
    }
    fn num(v: &Option<SimTime>) -> Option<f64> {
        v.map(|t| t.0 as f64)
    }
}

impl Kind for Count16 {
    type Key = i64;
    type Out = u16;
    const UNIT: &'static str = "count";
    fn parse(key: &i64, bound: &Bound, path: &str) -> Result<u16> {
        let v = Count::parse(key, bound, path)?;
        u16::try_from(v).map_err(|_| {
            let allowed = if *bound == Bound::Any { "at most 65535".to_string() } else { bound.text() };
            Error::scenario(path, format!("must be {allowed} (got {v})"))
        })
    }
    fn show(v: &u16) -> String {
        v.to_string()
    }
    fn num(v: &u16) -> Option<f64> {
        Some(*v as f64)
    }
}

impl Kind for Priorities {
    type Key = Vec<i64>;
    type Out = u8;
    const UNIT: &'static str = "list of priorities";
    fn parse(key: &Vec<i64>, _: &Bound, path: &str) -> Result<u8> {
        let mut m = 0u8;
        for (i, &p) in key.iter().enumerate() {
            if !(0..=7).contains(&p) {
                return Err(Error::scenario(format!("{path}[{i}]"), format!("priority must be 0..=7 (got {p})")));
            }
            m |= 1 << p;
        }
        Ok(m)
    }
    fn show(v: &u8) -> String {
        let l: Vec<String> = (0..8).filter(|q| v & (1 << q) != 0).map(|q: u8| q.to_string()).collect();
        format!("[{}]", l.join(", "))
    }
    fn num(_: &u8) -> Option<f64> {
        None
    }
}

/// "priority 3" or "priorities 3, 4" of a priority mask.
pub fn priority_list(mask: u8) -> String {
    format!("{} {}", if mask.count_ones() == 1 { "priority" } else { "priorities" }, priority_numbers(mask))
}

/// "3, 4" of a priority mask.
pub fn priority_numbers(mask: u8) -> String {
    (0..8u8).filter(|q| mask & (1 << q) != 0).map(|q| q.to_string()).collect::<Vec<_>>().join(", ")
}

impl<K: Kind> Kind for Opt<K> {
    type Key = K::Key;
    type Out = Option<K::Out>;
    const UNIT: &'static str = K::UNIT;
    const GOT: bool = K::GOT;
    fn parse(key: &K::Key, bound: &Bound, path: &str) -> Result<Option<K::Out>> {
        K::parse(key, bound, path).map(Some)
    }
    fn parse_in(key: &K::Key, bound: &Bound, path: &str, ctx: &KeyCtx) -> Result<Option<K::Out>> {
        K::parse_in(key, bound, path, ctx).map(Some)
    }
    fn show(v: &Option<K::Out>) -> String {
        v.as_ref().map_or_else(|| "none".to_string(), K::show)
    }
    fn cell(v: &Option<K::Out>) -> String {
        v.as_ref().map_or_else(|| "none".to_string(), K::cell)
    }
    fn num(v: &Option<K::Out>) -> Option<f64> {
        v.as_ref().and_then(K::num)
    }
}

fn quoted(s: String) -> String {
    format!("\"{s}\"")
}

/// `v` in the largest unit that writes it with at most three decimals.
fn show_scaled(v: f64, units: &[(f64, &str)]) -> String {
    if v == 0.0 {
        return format!("0{}", units[units.len() - 1].1);
    }
    for &(scale, unit) in units {
        let x = v / scale;
        if x >= 1.0 && ((x * 1000.0).round() - x * 1000.0).abs() < 1e-6 {
            return format!("{}{unit}", (x * 1000.0).round() / 1000.0);
        }
    }
    let (scale, unit) = units[units.len() - 1];
    format!("{}{unit}", v / scale)
}

/// `FooBar` -> `foo_bar` (serde's `rename_all = "snake_case"` of a unit variant).
fn snake_case(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The values a parameter may take, checked on its resolved value.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Bound {
    /// Anything its kind can write.
    Any,
    /// > 0.
    Positive,
    /// >= n (and finite).
    AtLeast(f64),
    /// (lo, hi].
    OpenClosed(f64, f64),
    /// (lo, hi).
    Open(f64, f64),
    /// [lo, hi].
    Closed(f64, f64),
    /// [lo, hi).
    ClosedOpen(f64, f64),
}

pub const ANY: Bound = Bound::Any;
pub const POSITIVE: Bound = Bound::Positive;
pub const fn at_least(n: f64) -> Bound {
    Bound::AtLeast(n)
}
pub const fn in_oc(lo: f64, hi: f64) -> Bound {
    Bound::OpenClosed(lo, hi)
}
pub const fn in_oo(lo: f64, hi: f64) -> Bound {
    Bound::Open(lo, hi)
}
pub const fn in_cc(lo: f64, hi: f64) -> Bound {
    Bound::Closed(lo, hi)
}
pub const fn in_co(lo: f64, hi: f64) -> Bound {
    Bound::ClosedOpen(lo, hi)
}

impl Bound {
    /// The smallest value allowed, if any.
    fn low(&self) -> Option<f64> {
        match *self {
            Bound::Any => None,
            Bound::Positive => Some(f64::MIN_POSITIVE),
            Bound::AtLeast(n) => Some(n),
            Bound::OpenClosed(lo, _) | Bound::Open(lo, _) => Some(lo + f64::MIN_POSITIVE),
            Bound::Closed(lo, _) | Bound::ClosedOpen(lo, _) => Some(lo),
        }
    }

    fn holds(&self, v: f64) -> bool {
        match *self {
            Bound::Any => true,
            Bound::Positive => v > 0.0 && v.is_finite(),
            Bound::AtLeast(n) => v >= n && v.is_finite(),
            Bound::OpenClosed(lo, hi) => v > lo && v <= hi,
            Bound::Open(lo, hi) => v > lo && v < hi,
            Bound::Closed(lo, hi) => v >= lo && v <= hi,
            Bound::ClosedOpen(lo, hi) => v >= lo && v < hi,
        }
    }

    /// The docs' bounds column, and an error's "must be ...".
    pub fn text(&self) -> String {
        match *self {
            Bound::Any => String::new(),
            Bound::Positive => "> 0".into(),
            Bound::AtLeast(n) => format!(">= {n}"),
            Bound::OpenClosed(lo, hi) => format!("in ({lo}, {hi}]"),
            Bound::Open(lo, hi) => format!("in ({lo}, {hi})"),
            Bound::Closed(lo, hi) => format!("in [{lo}, {hi}]"),
            Bound::ClosedOpen(lo, hi) => format!("in [{lo}, {hi})"),
        }
    }

    /// Checks a resolved value; the error names `path`.
    pub fn check<K: Kind>(&self, v: &K::Out, path: &str) -> Result<()> {
        let Some(x) = K::num(v) else { return Ok(()) };
        if self.holds(x) {
            return Ok(());
        }
        let got = if K::GOT { format!(" (got {x})") } else { String::new() };
        Err(Error::scenario(path, format!("must be {}{got}", self.text())))
    }
}

/// One row of a model's Parameters table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The scenario key.
    pub key: &'static str,
    /// The kind (`time`, `size`, `rate`, `count`, `number`, `fraction`, `bool`, `enum`,
    /// `string`, or what a hand-built key says).
    pub unit: &'static str,
    /// The default in each base parameter set (one column per set).
    pub defaults: Vec<String>,
    pub bounds: String,
    pub doc: String,
}

/// A model's declared parameters: its table's default columns and rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// One name per base parameter set (`["default"]` for a model with one).
    pub sets: Vec<&'static str>,
    pub rows: Vec<Row>,
}

impl Table {
    /// The Markdown table of the docs' Parameters section.
    pub fn markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut head = "| Key | Type |".to_string();
        for s in &self.sets {
            head += &if self.sets.len() == 1 { " Default |".to_string() } else { format!(" Default ({s}) |") };
        }
        head += " Bounds | Meaning |\n";
        let mut out = head;
        out += &"|---".repeat(4 + self.sets.len());
        out += "|\n";
        for r in &self.rows {
            out += &format!("| `{}` | {} |", r.key, r.unit);
            for d in &r.defaults {
                out += &format!(" {} |", cell(d));
            }
            out += &format!(" {} | {} |\n", cell(&r.bounds), cell(&r.doc));
        }
        out
    }
}

/// The doc lines of a declaration joined into one cell.
pub fn doc_line(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_show_as_a_scenario_writes_them() {
        assert_eq!(Time::show(&SimTime::us(55)), "\"55us\"");
        assert_eq!(Time::show(&SimTime::ns(1500)), "\"1.5us\"");
        assert_eq!(Time::show(&SimTime::ZERO), "\"0ps\"");
        assert_eq!(Size::show(&10_000_000), "\"10MB\"");
        assert_eq!(Rate::cell(&units::Rate::mbps(40)), "`\"40Mbps\"`");
        assert_eq!(Enum::<crate::models::dcqcn::DcqcnVariant>::show(&crate::models::dcqcn::DcqcnVariant::Mellanox), "\"mellanox\"");
        assert_eq!(Opt::<Time>::show(&None), "none");
    }

    #[test]
    fn bounds_name_the_value() {
        let e = in_oc(0.0, 1.0).check::<Real>(&1.5, "host.cc.g").unwrap_err().to_string();
        assert!(e.contains("host.cc.g") && e.contains("must be in (0, 1] (got 1.5)"), "{e}");
        let e = POSITIVE.check::<Time>(&SimTime::ZERO, "x.t").unwrap_err().to_string();
        assert!(e.ends_with("must be > 0"), "{e}");
        assert!(POSITIVE.check::<Opt<Time>>(&None, "x.t").is_ok());
        let e = Count::parse(&-1, &at_least(1.0), "x.n").unwrap_err().to_string();
        assert!(e.contains("must be >= 1 (got -1)"), "{e}");
    }
}
