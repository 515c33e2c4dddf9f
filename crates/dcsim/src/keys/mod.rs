//! What every model's scenario keys are made of: physical quantities written with their
//! unit ("40Gbps", "1.5us", "32MiB"), the `Keys` trait that turns a model's TOML table
//! into its resolved parameters (parsing units, applying defaults and checking every
//! value in one place), the helpers that name the field of an error, and `params!`
//! (`declare.rs`, `kind.rs`), which declares a model's keys once.

mod declare;
pub mod kind;

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::plan::{NodeKind, NodePlan};
use crate::units::{parse_bytes, parse_rate, parse_time, Rate, SimTime};

/// What a model's keys may depend on besides themselves.
#[derive(Copy, Clone, Debug)]
pub struct KeyCtx<'a> {
    /// The smallest host link rate (`None`: the topology has no hosts): the base of
    /// rate defaults and the upper bound of minimum rates.
    pub line_rate: Option<Rate>,
    /// The switch buffer's cell (`switch.cell`, bytes): switch sizes may be written in
    /// cells (`kind::Cells`).
    pub cell: Option<u64>,
    /// The topology's nodes, for keys that name them (empty: none known).
    pub nodes: &'a [NodePlan],
}

impl KeyCtx<'_> {
    /// No hosts known, no cell.
    pub const NONE: KeyCtx<'static> = KeyCtx { line_rate: None, cell: None, nodes: &[] };

    /// The index of the node named `name`, of kind `kind` if given; the error names `path`.
    pub fn node(&self, name: &str, kind: Option<NodeKind>, path: &str) -> Result<u32> {
        let k = self.nodes.iter().position(|n| n.name == name);
        match (k, kind) {
            (None, Some(NodeKind::Switch)) => Err(Error::scenario(path, format!("no switch named '{name}'"))),
            (None, _) => Err(Error::scenario(path, format!("no node named '{name}'"))),
            (Some(k), Some(want)) if self.nodes[k].kind != want => {
                Err(Error::scenario(path, format!("'{name}' is not a {}", if want == NodeKind::Host { "host" } else { "switch" })))
            }
            (Some(k), _) => Ok(k as u32),
        }
    }
}

/// A model's TOML table (deserialized with unknown keys refused) and how it resolves.
pub trait Keys {
    type Out;
    /// Parses units and applies defaults (the values are checked by `Check`); errors
    /// name `path.<key>`.
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<Self::Out>;
}

/// The checks of a model's resolved parameters, whoever built them (a scenario file or
/// a `Plan` written in Rust): `scenario::validate` runs them on every plan.
pub trait Check {
    /// Errors name `path.<key>` of the value at fault.
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()>;
}

/// Keys declared with `params!`: the rows of the model's Parameters table.
pub trait Declared {
    fn table() -> kind::Table;
}

impl Check for () {
    fn check(&self, _: &str, _: &KeyCtx) -> Result<()> {
        Ok(())
    }
}

/// The keys of a model without keys of its own (one set by another model's keys, as a
/// mode of it): naming its `[fabric.<name>]` table is an error that says so.
#[derive(Clone, Debug, Default)]
pub struct NoSection;

impl<'de> serde::Deserialize<'de> for NoSection {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> std::result::Result<Self, D::Error> {
        Err(serde::de::Error::custom("this model has no [fabric] table: its keys are in [switch] or [host] (docs/scenarios.md)"))
    }
}

impl Keys for NoSection {
    type Out = ();
    fn build(&self, _: &str, _: &KeyCtx) -> Result<()> {
        Ok(())
    }
}

/// A table that may be absent: `None` resolves to `None`.
impl<K: Keys> Keys for Option<K> {
    type Out = Option<K::Out>;
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<Self::Out> {
        self.as_ref().map(|k| k.build(path, ctx)).transpose()
    }
}

impl<C: Check> Check for Option<C> {
    fn check(&self, path: &str, ctx: &KeyCtx) -> Result<()> {
        self.as_ref().map_or(Ok(()), |c| c.check(path, ctx))
    }
}

/// A table whose absence means the parameters' defaults (`Out::default()`, as a `Plan`
/// written in Rust has them), not the keys' defaults applied to an empty table.
#[derive(Clone, Debug, Default)]
pub struct OrDefault<K>(pub Option<K>);

impl<'de, K: Deserialize<'de>> Deserialize<'de> for OrDefault<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        K::deserialize(d).map(|k| OrDefault(Some(k)))
    }
}

impl<K: Keys<Out: Default>> Keys for OrDefault<K> {
    type Out = K::Out;
    fn build(&self, path: &str, ctx: &KeyCtx) -> Result<Self::Out> {
        self.0.as_ref().map_or_else(|| Ok(K::Out::default()), |k| k.build(path, ctx))
    }
}

/// `path.key`.
pub fn at(path: &str, key: &str) -> String {
    format!("{path}.{key}")
}

/// A rate at most the smallest host link rate (when the topology has hosts); the error
/// names `path`.
pub fn at_most_line_rate(r: Rate, path: &str, ctx: &KeyCtx) -> Result<()> {
    match ctx.line_rate {
        Some(lr) if r > lr => Err(Error::scenario(path, format!("must be <= the smallest host link rate ({r} > {lr})"))),
        _ => Ok(()),
    }
}

/// A finite number > 0.
pub fn positive(v: f64, path: &str) -> Result<f64> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(Error::scenario(path, format!("must be > 0 (got {v})")))
    }
}

/// A number in (0, 1) (a gain or a factor).
pub fn open_unit(v: f64, path: &str) -> Result<f64> {
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(Error::scenario(path, format!("must be in (0, 1) (got {v})")))
    }
}

/// A jitter fraction in [0, 1).
pub fn jitter(v: f64, path: &str) -> Result<f64> {
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err(Error::scenario(path, format!("must be in [0, 1) (got {v})")))
    }
}

/// A finite number >= 0.
pub fn non_negative(v: f64, path: &str) -> Result<f64> {
    if v >= 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(Error::scenario(path, format!("must be >= 0 (got {v})")))
    }
}

/// An integer count in `min..=u32::MAX`.
pub fn count_at_least(v: i64, min: i64, path: &str) -> Result<u32> {
    if (min..=u32::MAX as i64).contains(&v) {
        Ok(v as u32)
    } else {
        Err(Error::scenario(path, format!("must be >= {min} (got {v})")))
    }
}

// ---------------------------------------------------------------------------------------
// Unit-carrying strings

macro_rules! unit_string {
    ($name:ident, $what:literal, $example:literal) => {
        #[doc = concat!("A ", $what, " written with its unit, e.g. `\"", $example, "\"`.")]
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name(pub String);

        impl $name {
            pub fn new(s: &str) -> Self {
                $name(s.to_string())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, concat!("a ", $what, " string with a unit, e.g. \"", $example, "\""))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<$name, E> {
                        Ok($name(v.to_string()))
                    }
                    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<$name, E> {
                        Ok($name(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<$name, E> {
                        Err(E::custom(format!(concat!("the number {} needs a unit, e.g. \"", $example, "\""), v)))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<$name, E> {
                        Err(E::custom(format!(concat!("the number {} needs a unit, e.g. \"", $example, "\""), v)))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<$name, E> {
                        Err(E::custom(format!(concat!("the number {} needs a unit, e.g. \"", $example, "\""), v)))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

unit_string!(RateStr, "rate", "40Gbps");
unit_string!(TimeStr, "duration", "1.5us");
unit_string!(SizeStr, "size", "32MiB");

impl RateStr {
    /// Parses the rate; zero is refused.
    pub fn rate(&self, path: &str) -> Result<Rate> {
        let r = parse_rate(&self.0).map_err(|e| Error::scenario(path, e.0))?;
        if r.0 == 0 {
            return Err(Error::scenario(path, format!("must be > 0 (got '{}')", self.0)));
        }
        Ok(r)
    }
}

impl TimeStr {
    pub fn time(&self, path: &str) -> Result<SimTime> {
        parse_time(&self.0).map_err(|e| Error::scenario(path, e.0))
    }
    /// `"off"` is `None`.
    pub fn time_or_off(&self, path: &str) -> Result<Option<SimTime>> {
        if self.0.trim().eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        let t = self.time(path)?;
        if t == SimTime::ZERO {
            return Err(Error::scenario(path, "must be > 0 (write \"off\" to disable)"));
        }
        Ok(Some(t))
    }
}

impl SizeStr {
    pub fn bytes(&self, path: &str) -> Result<u64> {
        parse_bytes(&self.0).map_err(|e| Error::scenario(path, e.0))
    }
    /// A switch buffer size or threshold: a size, or a whole number of cells
    /// (`"97cells"`, `"1 cell"`) of the switch's `cell` bytes, as vendors write them.
    pub fn bytes_or_cells(&self, path: &str, cell: Option<u64>) -> Result<u64> {
        let s = self.0.trim();
        let Some(n) = s.strip_suffix("cells").or_else(|| s.strip_suffix("cell")) else { return self.bytes(path) };
        let Some(cell) = cell else {
            return Err(Error::scenario(path, format!("{s:?} is in cells: set switch.cell (the cell size) first")));
        };
        let n: u64 = n.trim().parse().map_err(|_| Error::scenario(path, format!("{s:?}: a whole number of cells, like \"100cells\"")))?;
        n.checked_mul(cell).ok_or_else(|| Error::scenario(path, format!("{s:?} is too large")))
    }
    /// `"inf"` is `None` (a long-lived flow); otherwise a size > 0.
    pub fn size_or_inf(&self, path: &str) -> Result<Option<u64>> {
        let s = self.0.trim();
        if s.eq_ignore_ascii_case("inf") || s.eq_ignore_ascii_case("infinite") {
            return Ok(None);
        }
        let b = self.bytes(path)?;
        if b == 0 {
            return Err(Error::scenario(path, "must be > 0 (write \"inf\" for a long-lived flow)"));
        }
        Ok(Some(b))
    }
}

pub(crate) fn clean_msg(m: &str) -> String {
    suggest(m.replace('`', "'").trim())
}

/// For serde's "unknown field 'k', expected one of 'a', 'b', ...": the closest expected
/// key when it is a likely misspelling, as "unknown field 'k' (did you mean 'a'?), ...".
fn suggest(msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("unknown field '") else { return msg.to_string() };
    let Some((key, tail)) = rest.split_once('\'') else { return msg.to_string() };
    let list = tail.strip_prefix(", expected one of ").or_else(|| tail.strip_prefix(", expected "));
    let Some(list) = list else { return msg.to_string() };
    let best = list
        .split(", ")
        .map(|k| k.trim_matches('\''))
        .map(|k| (edit_distance(key, k), k))
        .filter(|&(d, k)| d <= (key.chars().count().max(k.chars().count()) / 3).max(1))
        .min_by_key(|&(d, _)| d);
    match best {
        Some((_, k)) => format!("unknown field '{key}' (did you mean '{k}'?){tail}"),
        None => msg.to_string(),
    }
}

/// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

pub(crate) fn join(prefix: &str, rest: &str) -> String {
    if rest.is_empty() || rest == "." {
        prefix.to_string()
    } else if prefix.is_empty() {
        rest.to_string()
    } else if rest.starts_with('[') {
        format!("{prefix}{rest}")
    } else {
        format!("{prefix}.{rest}")
    }
}

/// Deserializes `v` as `T`; errors carry `prefix` joined with the path inside `v`.
pub fn de_at<T: for<'de> Deserialize<'de>>(v: toml::Value, prefix: &str) -> std::result::Result<T, (String, String)> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let mut path = e.path().to_string();
        let full = e.inner().to_string();
        let msg = clean_msg(full.lines().next().unwrap_or(""));
        // For an unknown key, the path ends with the key itself: name its table instead.
        if let Some(rest) = msg.strip_prefix("unknown field '") {
            let key = rest.split('\'').next().unwrap_or("");
            if path == key {
                path = String::new();
            } else if let Some(parent) = path.strip_suffix(&format!(".{key}")) {
                path = parent.to_string();
            }
        }
        (join(prefix, &path), msg)
    })
}

/// The keys of struct `T`'s table, as serde reads them (for a model's keys that sit in a
/// table it shares, such as `[switch]`): asked of `T`'s `Deserialize` itself, so that
/// they are declared once. Empty for a type that is not a struct.
pub fn fields_of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    use serde::de::value::Error as E;
    /// Answers `deserialize_struct` with an error, keeping the field names it is given.
    struct Fields<'c>(&'c std::cell::Cell<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for Fields<'_> {
        type Error = E;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, E> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, E> {
            v.visit_some(self)
        }
        fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> std::result::Result<V::Value, E> {
            v.visit_newtype_struct(self)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, E> {
            self.0.set(fields);
            Err(de::Error::custom("fields taken"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            unit unit_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let cell = std::cell::Cell::new(&[][..]);
    let _ = T::deserialize(Fields(&cell));
    cell.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table with a default of its own: `n = 2` when the table is given empty.
    #[derive(Clone, Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Two {
        n: Option<u32>,
        #[allow(dead_code)]
        other: Option<String>,
    }

    impl Keys for Two {
        type Out = u32;
        fn build(&self, _: &str, _: &KeyCtx) -> Result<u32> {
            Ok(self.n.unwrap_or(2))
        }
    }

    #[test]
    fn an_absent_table_is_none_or_the_parameters_default() {
        let ctx = KeyCtx::NONE;
        assert_eq!(None::<Two>.build("x", &ctx).unwrap(), None);
        assert_eq!(Some(Two::default()).build("x", &ctx).unwrap(), Some(2));
        // Absent: `Out::default()` (0), not the keys' default for an empty table (2).
        assert_eq!(OrDefault::<Two>::default().build("x", &ctx).unwrap(), 0);
        let given: OrDefault<Two> = de_at(toml::Value::Table(Default::default()), "x").unwrap();
        assert_eq!(given.build("x", &ctx).unwrap(), 2);
    }

    #[test]
    fn fields_of_names_a_structs_keys_through_option_and_or_default() {
        assert_eq!(fields_of::<Two>(), &["n", "other"]);
        assert_eq!(fields_of::<Option<Two>>(), &["n", "other"]);
        assert_eq!(fields_of::<OrDefault<Two>>(), &["n", "other"]);
        assert!(fields_of::<NoSection>().is_empty());
        assert!(fields_of::<u32>().is_empty());
    }

    #[test]
    fn node_names_resolve_with_their_kind() {
        let nodes = [NodePlan { name: "h0".into(), kind: NodeKind::Host }, NodePlan { name: "s0".into(), kind: NodeKind::Switch }];
        let ctx = KeyCtx { nodes: &nodes, ..KeyCtx::NONE };
        assert_eq!(ctx.node("s0", Some(NodeKind::Switch), "p").unwrap(), 1);
        assert_eq!(ctx.node("h0", None, "p").unwrap(), 0);
        assert_eq!(ctx.node("h0", Some(NodeKind::Switch), "p").unwrap_err().to_string(), "p: 'h0' is not a switch");
        assert_eq!(ctx.node("x", Some(NodeKind::Switch), "p").unwrap_err().to_string(), "p: no switch named 'x'");
        assert_eq!(ctx.node("x", None, "p").unwrap_err().to_string(), "p: no node named 'x'");
    }
}
