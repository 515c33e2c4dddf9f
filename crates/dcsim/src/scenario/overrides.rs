//! `--set path=value` overrides applied to the parsed TOML before typed deserialization.
//! The path is dotted (`switch.pfc.mode`), with `[i]` for array elements
//! (`traffic[0].load`). The value is read as a TOML value if it parses (`7`, `"100Gbps"`,
//! `[1, 2]`, `true`), else taken as a string (`off`, `100Gbps`). Missing intermediate
//! tables are created.

use crate::error::{Error, Result};

#[derive(Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn parse_path(path: &str, whole: &str) -> Result<Vec<Seg>> {
    let bad = |m: String| Error::scenario(format!("--set {whole}"), m);
    let mut segs = Vec::new();
    if path.trim().is_empty() {
        return Err(bad("empty path".into()));
    }
    for part in path.split('.') {
        let part = part.trim();
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() {
            return Err(bad(format!("empty key in path '{path}'")));
        }
        if !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad(format!("bad key '{key}' in path '{path}'")));
        }
        segs.push(Seg::Key(key.to_string()));
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(|| bad(format!("missing ']' in path '{path}'")))?;
            if !rest.starts_with('[') {
                return Err(bad(format!("bad index syntax in path '{path}'")));
            }
            let i: usize = rest[1..close].trim().parse().map_err(|_| bad(format!("bad index '{}' in path '{path}'", &rest[1..close])))?;
            segs.push(Seg::Index(i));
            rest = &rest[close + 1..];
        }
    }
    Ok(segs)
}

/// The value at a dotted path like `traffic[2].cc`, read with the override path syntax.
pub(crate) fn value_at<'a>(root: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    let mut cur = root;
    for seg in parse_path(path, path).ok()? {
        cur = match seg {
            Seg::Key(k) => cur.get(k.as_str())?,
            Seg::Index(i) => cur.get(i)?,
        };
    }
    Some(cur)
}

/// Parses the right-hand side of an override.
pub fn parse_value(s: &str) -> toml::Value {
    let s = s.trim();
    match format!("v = {s}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(s.to_string())),
        Err(_) => toml::Value::String(s.to_string()),
    }
}

/// Splits `path=value` and parses the path.
fn parse_spec(spec: &str) -> Result<(&str, Vec<Seg>, &str)> {
    let (path, value) = spec.split_once('=').ok_or_else(|| Error::scenario(format!("--set {spec}"), "expected path=value"))?;
    let path = path.trim();
    let segs = parse_path(path, path)?;
    Ok((path, segs, value))
}

/// Checks the syntax of one `path=value` override without applying it.
pub fn check_override(spec: &str) -> Result<()> {
    parse_spec(spec).map(|_| ())
}

/// Scenario text parsed as TOML with the overrides applied in order: the document that
/// `load_file` / `load_str` deserialize.
pub fn merge(text: &str, overrides: &[String]) -> Result<toml::Value> {
    let mut value = super::parse_toml(text)?;
    for o in overrides {
        apply_override(&mut value, o)?;
    }
    Ok(value)
}

/// Applies one `path=value` override to `root`.
pub fn apply_override(root: &mut toml::Value, spec: &str) -> Result<()> {
    let (path, segs, value) = parse_spec(spec)?;
    let value = parse_value(value);
    let bad = |m: String| Error::scenario(path, m);
    let mut cur = root;
    let mut walked = String::new();
    for (k, seg) in segs.iter().enumerate() {
        let last = k + 1 == segs.len();
        match seg {
            Seg::Key(key) => {
                let table = match cur {
                    toml::Value::Table(t) => t,
                    other => {
                        return Err(bad(format!("'{walked}' is a {}, not a table", other.type_str())));
                    }
                };
                if !walked.is_empty() {
                    walked.push('.');
                }
                walked.push_str(key);
                if last {
                    table.insert(key.clone(), value);
                    return Ok(());
                }
                let next_is_index = matches!(segs[k + 1], Seg::Index(_));
                if !table.contains_key(key) {
                    if next_is_index {
                        return Err(bad(format!("'{walked}' does not exist, so it cannot be indexed")));
                    }
                    table.insert(key.clone(), toml::Value::Table(toml::Table::new()));
                }
                cur = table.get_mut(key).unwrap();
            }
            Seg::Index(i) => {
                let arr = match cur {
                    toml::Value::Array(a) => a,
                    other => return Err(bad(format!("'{walked}' is a {}, not an array", other.type_str()))),
                };
                let len = arr.len();
                if *i >= len {
                    return Err(bad(format!("index {i} is out of range ('{walked}' has {len} entries)")));
                }
                walked.push_str(&format!("[{i}]"));
                if last {
                    arr[*i] = value;
                    return Ok(());
                }
                cur = &mut arr[*i];
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> toml::Value {
        toml::Value::Table("[simulation]\nseed = 1\n[[traffic]]\ntype = \"flows\"\nflows = []\n".parse::<toml::Table>().unwrap())
    }

    #[test]
    fn values_and_paths() {
        let mut v = doc();
        apply_override(&mut v, "simulation.seed=7").unwrap();
        apply_override(&mut v, "switch.pfc.mode=off").unwrap();
        apply_override(&mut v, "topology.rate=\"100Gbps\"").unwrap();
        apply_override(&mut v, "topology.delay=1us").unwrap();
        apply_override(&mut v, "traffic[0].priority=5").unwrap();
        apply_override(&mut v, "switch.pfc.lossless=[3, 4]").unwrap();
        assert_eq!(v["simulation"]["seed"].as_integer(), Some(7));
        assert_eq!(v["switch"]["pfc"]["mode"].as_str(), Some("off"));
        assert_eq!(v["topology"]["rate"].as_str(), Some("100Gbps"));
        assert_eq!(v["topology"]["delay"].as_str(), Some("1us"));
        assert_eq!(v["traffic"][0]["priority"].as_integer(), Some(5));
        assert_eq!(v["switch"]["pfc"]["lossless"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn bad_paths_name_the_path() {
        let mut v = doc();
        let e = apply_override(&mut v, "simulation.seed.x=1").unwrap_err().to_string();
        assert!(e.starts_with("simulation.seed.x:") && e.contains("not a table"), "{e}");
        let e = apply_override(&mut v, "traffic[3].size=1").unwrap_err().to_string();
        assert!(e.starts_with("traffic[3].size:") && e.contains("out of range"), "{e}");
        let e = apply_override(&mut v, "a..b=1").unwrap_err().to_string();
        assert!(e.contains("a..b"), "{e}");
        assert!(apply_override(&mut v, "noequals").is_err());
    }

    #[test]
    fn merge_and_check() {
        let v = merge("[[traffic]]\nsize = 1\n", &["traffic[0].size=2".into()]).unwrap();
        assert_eq!(v["traffic"][0]["size"].as_integer(), Some(2));
        assert!(merge("x = ", &[]).is_err());
        assert!(merge("a = 1\n", &["traffic[0].size=2".into()]).is_err());
        assert!(check_override("traffic[0].size=1").is_ok());
        assert!(check_override("a..b=1").is_err());
        assert!(check_override("noequals").is_err());
    }
}
