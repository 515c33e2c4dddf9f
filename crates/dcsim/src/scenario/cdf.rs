//! Flow-size distributions (CDF files) and sampling from them.
//!
//! Two readings are supported (see shared/data/workloads/README.md):
//! * `Interpolated`: sizes are linearly interpolated between the CDF points (HPCC
//!   `traffic_gen.py`, ns-2 `EmpiricalRandomVariable`); a draw below the first point's
//!   probability returns the first size.
//! * `Step`: value x_i has probability F_i - F_(i-1) (Homa).
//!
//! File formats: 2 columns `size cdf`, or 3 columns `size ignored cdf` (ns-2 / PIAS);
//! an optional first line holding a single number (Homa's mean) is skipped. The cdf
//! column is a fraction or a percentage (detected from the last value unless given).

use crate::rng::Rng;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CdfReading {
    Interpolated,
    Step,
}

/// A parsed CDF: sizes (bytes, after the unit multiplier) and cumulative fractions.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    pub sizes: Vec<f64>,
    pub cdf: Vec<f64>,
    /// The mean from a Homa-style header line, if the file had one (file units).
    pub header_mean: Option<f64>,
}

/// Parses CDF text. `percent`: `None` detects from the last value (> 1.5 -> percent).
/// `size_unit` multiplies every size. Errors are plain reasons with the line number (the
/// caller adds the path); they never quote the file's content.
pub fn parse_cdf(text: &str, size_unit: f64, percent: Option<bool>) -> Result<Cdf, String> {
    let mut sizes = Vec::new();
    let mut cdf = Vec::new();
    let mut header_mean = None;
    let mut first = true;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let ln = i + 1;
        let cols: Vec<f64> = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .enumerate()
            .map(|(k, s)| s.parse::<f64>().map_err(|_| format!("line {ln}: column {} is not a number", k + 1)))
            .collect::<Result<_, _>>()?;
        let was_first = first;
        first = false;
        let (x, f) = match cols.len() {
            1 if was_first => {
                header_mean = Some(cols[0]);
                continue;
            }
            2 => (cols[0], cols[1]),
            3 => (cols[0], cols[2]),
            n => return Err(format!("line {ln}: expected 2 or 3 columns, got {n}")),
        };
        if !x.is_finite() || x < 0.0 || !f.is_finite() || f < 0.0 {
            return Err(format!("line {ln}: sizes and probabilities must be non-negative"));
        }
        if let (Some(&px), Some(&pf)) = (sizes.last(), cdf.last()) {
            if x < px {
                return Err(format!("line {ln}: the size is smaller than the line before's (sizes must not decrease)"));
            }
            if f < pf {
                return Err(format!("line {ln}: the cdf value is smaller than the line before's (the cdf must not decrease)"));
            }
        }
        sizes.push(x * size_unit);
        cdf.push(f);
    }
    let last = *cdf.last().ok_or_else(|| "no CDF points".to_string())?;
    let pct = percent.unwrap_or(last > 1.5);
    if pct {
        for f in cdf.iter_mut() {
            *f /= 100.0;
        }
    }
    let last = *cdf.last().unwrap();
    if (last - 1.0).abs() > 1e-6 {
        return Err(format!("the last cdf value must be {}", if pct { "100 (percent)" } else { "1" }));
    }
    *cdf.last_mut().unwrap() = 1.0;
    Ok(Cdf { sizes, cdf, header_mean })
}

impl Cdf {
    /// Analytic mean size (bytes) under the given reading.
    pub fn mean(&self, reading: CdfReading) -> f64 {
        let mut m = 0.0;
        match reading {
            CdfReading::Interpolated => {
                m += self.sizes[0] * self.cdf[0];
                for i in 1..self.sizes.len() {
                    m += 0.5 * (self.sizes[i - 1] + self.sizes[i]) * (self.cdf[i] - self.cdf[i - 1]);
                }
            }
            CdfReading::Step => {
                let mut prev = 0.0;
                for i in 0..self.sizes.len() {
                    m += self.sizes[i] * (self.cdf[i] - prev);
                    prev = self.cdf[i];
                }
            }
        }
        m
    }

    /// Size for a uniform draw `u` in [0, 1) (not rounded).
    pub fn quantile(&self, u: f64, reading: CdfReading) -> f64 {
        // first index whose cdf exceeds u
        let i = self.cdf.partition_point(|&f| f <= u).min(self.cdf.len() - 1);
        match reading {
            CdfReading::Step => self.sizes[i],
            CdfReading::Interpolated => {
                if i == 0 {
                    return self.sizes[0];
                }
                let (f0, f1) = (self.cdf[i - 1], self.cdf[i]);
                let (x0, x1) = (self.sizes[i - 1], self.sizes[i]);
                if f1 <= f0 {
                    x1
                } else {
                    x0 + (x1 - x0) * (u - f0) / (f1 - f0)
                }
            }
        }
    }

    /// Draws a size in whole bytes (rounded; 0 becomes 1).
    pub fn sample(&self, rng: &mut Rng, reading: CdfReading) -> u64 {
        let x = self.quantile(rng.next_f64(), reading).round();
        (x as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn load(name: &str, unit: f64) -> Option<Cdf> {
        let p = Path::new("/work/shared/data/workloads").join(name);
        let text = std::fs::read_to_string(&p).ok()?;
        Some(parse_cdf(&text, unit, None).unwrap())
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs()
    }

    #[test]
    fn small_cdf_both_readings() {
        let c = parse_cdf("10 0\n20 50\n40 100\n", 1.0, None).unwrap();
        assert_eq!(c.cdf, vec![0.0, 0.5, 1.0]);
        assert!(close(c.mean(CdfReading::Interpolated), 0.5 * 15.0 + 0.5 * 30.0, 1e-12));
        assert!(close(c.mean(CdfReading::Step), 0.5 * 20.0 + 0.5 * 40.0, 1e-12));
        assert_eq!(c.quantile(0.25, CdfReading::Interpolated), 15.0);
        assert_eq!(c.quantile(0.25, CdfReading::Step), 20.0);
        assert_eq!(c.quantile(0.75, CdfReading::Step), 40.0);
        let h = parse_cdf("25.0\n10 0.5\n20 1\n", 1.0, None).unwrap();
        assert_eq!(h.header_mean, Some(25.0));
        assert!(parse_cdf("10 0\n20 0.9\n", 1.0, None).is_err());
        assert!(parse_cdf("10 0\n5 1\n", 1.0, None).is_err());
        assert!(parse_cdf("10 x\n", 1.0, None).is_err());
    }

    #[test]
    fn analytic_means_match_readme() {
        let cases: &[(&str, f64, CdfReading, f64)] = &[
            ("hpcc_WebSearch_distribution.txt", 1.0, CdfReading::Interpolated, 1_711_250.0),
            ("hpcc_FbHdp_distribution.txt", 1.0, CdfReading::Interpolated, 120_421.0),
            ("hpcc_AliStorage2019.txt", 1.0, CdfReading::Interpolated, 40_870.0),
            ("homa_FacebookKeyValue_Sampled.txt", 1.0, CdfReading::Step, 187.5),
            ("homa_Facebook_HadoopDist_All.txt", 1.0, CdfReading::Step, 127_797.0),
            ("pias_CDF_dctcp.tcl", 1.0, CdfReading::Interpolated, 1_141.0),
        ];
        for &(f, unit, reading, want) in cases {
            let Some(c) = load(f, unit) else {
                eprintln!("skipping {f}: not found");
                continue;
            };
            let m = c.mean(reading);
            // README values are rounded to 4 significant digits for some files.
            assert!(close(m, want, 1e-3), "{f}: mean {m} vs {want}");
        }
    }

    #[test]
    fn sample_means_converge() {
        let cases: &[(&str, CdfReading)] = &[
            ("hpcc_WebSearch_distribution.txt", CdfReading::Interpolated),
            ("homa_Google_SearchRPC.txt", CdfReading::Step),
            ("hpcc_AliStorage2019.txt", CdfReading::Interpolated),
        ];
        for &(f, reading) in cases {
            let Some(c) = load(f, 1.0) else {
                eprintln!("skipping {f}: not found");
                continue;
            };
            let mut rng = Rng::stream(1, f);
            let n = 400_000;
            let s: f64 = (0..n).map(|_| c.sample(&mut rng, reading) as f64).sum::<f64>() / n as f64;
            let m = c.mean(reading);
            assert!(close(s, m, 0.02), "{f}: sample mean {s} vs analytic {m}");
        }
    }
}
