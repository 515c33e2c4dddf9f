"""Schemes as a dimension: [variants.NAME] run over seeds by one sweep, into the store
with the variant as a column, and drawn as categories."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import dcsim  # noqa: E402
from dcsim import (  # noqa: E402
    cli,  # noqa: E402
    report,
    sweeps,
)

SCHEMES = """
[simulation]
duration = "300us"
[topology]
type = "star"
hosts = 4
rate = "40Gbps"
delay = "1us"
[switch.ecn]
mode = "red"
kmin = "5KB"
kmax = "50KB"
pmax = 0.2
[[traffic]]
type = "incast"
name = "burst"
receiver = "h0"
senders = ["h1", "h2", "h3"]
size = "100KB"
[variants.dcqcn]
"host.cc" = { type = "dcqcn" }
[variants.none]
"host.cc" = { type = "none" }
[variants.small_kmax.switch.ecn]
kmax = "20KB"
"""


def test_variants_are_override_lists(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SCHEMES)
    v = sweeps.variants_of(f)
    assert v == {"dcqcn": ['host.cc={ type = "dcqcn" }'], "none": ['host.cc={ type = "none" }'], "small_kmax": ['switch.ecn.kmax="20KB"']}
    assert sweeps.choose_variants(f, None) == ["dcqcn", "none", "small_kmax"]
    with pytest.raises(dcsim.ArgumentError, match="no variant 'hpcc'"):
        sweeps.choose_variants(f, "dcqcn,hpcc")
    dcsim.load(f)  # a plain run ignores them


def test_sweep_over_variants_and_seeds_into_the_store(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(SCHEMES)
    store = tmp_path / "st"
    argv = ["sweep", str(f), "--variants", "dcqcn,none", "--grid", "simulation.seed=1,2", "--store", str(store), "--jobs", "2"]
    assert cli.main(argv + ["--out", str(tmp_path / "o.csv")]) == 0, capsys.readouterr().err
    runs = dcsim.open_store(store).runs()
    assert sorted(set(runs["variant"])) == ["dcqcn", "none"] and len(runs) == 4
    assert (runs["error"] == "").all()
    # The schemes differ: DCQCN reacts to the marks, "none" does not.
    by = runs.groupby("variant")["cnps"].sum()
    assert by["dcqcn"] > 0


def test_invalid_points_are_found_before_any_runs(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(SCHEMES)
    rc = cli.main(["sweep", str(f), "--grid", "switch.ecn.kmax=1KB,50KB", "--out", str(tmp_path / "o.csv"), "--jobs", "1"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "1 of 2 points do not validate" in err and "switch.ecn.kmax=1KB" in err
    df = pd.read_csv(tmp_path / "o.csv", keep_default_na=False)
    assert list(df["switch.ecn.kmax_si"]) == [1000.0, 50000.0]  # SI numbers beside the text


def _lines(ax):
    """Lines joining two or more points (error-bar caps and markers alone are not)."""
    return [ln for ln in ax.lines if len(ln.get_xdata()) > 1 and ln.get_linestyle() not in ("None", "none", "")]


def test_a_categorical_setting_is_bars_not_a_line_through_categories():
    rows = []
    for v, base in (("dcqcn", 3.0), ("hpcc", 1.5), ("dctcp", 2.0)):
        for seed in (1, 2, 3):
            rows.append({"variant": v, "simulation.seed": seed, "slowdown_p99_burst": base + 0.1 * seed})
    ok = pd.DataFrame(rows)
    fig, ax = report._figure()
    report.sweep_axes(ax, ok, "slowdown_p99_burst", "variant", ["simulation.seed"])
    # The old drawing joined the three schemes by one line per seed (a zigzag).
    assert _lines(ax) == []
    bars = [p for p in ax.patches if p.get_height() > 0]
    assert len(bars) == 3
    assert [round(b.get_height(), 6) for b in bars] == [3.2, 1.7, 2.2]  # mean over the seeds
    assert [t.get_text() for t in ax.get_xticklabels()] == ["dcqcn", "hpcc", "dctcp"]


def test_a_numeric_setting_is_one_line_per_scheme():
    rows = []
    for v in ("dcqcn", "hpcc"):
        for k in ("20KB", "200KB", "1600KB"):
            for seed in (1, 2):
                rows.append({"variant": v, "switch.ecn.kmax": k, "simulation.seed": seed, "m": len(k) + seed})
    ok = pd.DataFrame(rows)
    fig, ax = report._figure()
    n = report.sweep_axes(ax, ok, "m", "switch.ecn.kmax", ["variant", "simulation.seed"])
    assert n == 2 and len(_lines(ax)) == 2
    for ln in _lines(ax):
        assert list(ln.get_xdata()) == pytest.approx([0.02, 0.2, 1.6])  # MB: 200KB before 1600KB
    assert ax.get_xlabel() == "switch.ecn.kmax (MB)"


def test_rerunning_replaces_the_failed_rows_of_a_point_and_the_report_lists_failures(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SCHEMES)
    store = tmp_path / "st"
    argv = ["sweep", str(f), "--grid", "switch.ecn.kmax=1KB,50KB", "--store", str(store), "--jobs", "1", "--out", str(tmp_path / "a.csv")]
    assert cli.main(argv) == 1
    runs = dcsim.open_store(store).runs()
    assert len(runs) == 2 and (runs["error"] != "").sum() == 1
    out = tmp_path / "r.html"
    assert cli.main(["report", str(store), "--out", str(out)]) == 0
    page = out.read_text()
    assert 'id="failures"' in page and "Failed points" in page and "kmax" in page
    # The scenario fixed (a lower kmin): the point runs, and its failed row is gone.
    f.write_text(SCHEMES.replace('kmin = "5KB"', 'kmin = "500B"'))
    assert cli.main(argv[:-2] + ["--out", str(tmp_path / "b.csv")]) == 0
    runs = dcsim.open_store(store).runs()
    point = runs[runs["switch.ecn.kmax"] == "1KB"]
    assert len(point) == 1 and point["error"].iloc[0] == ""
