"""dcsim compare: several scenario files over seeds as one sweep, the file as the
category; and the choice of traffic groups (--groups) in plots and sweep columns."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import dcsim  # noqa: E402
from dcsim import cli, sweeps  # noqa: E402

BASE = """
[simulation]
duration = "300us"
[topology]
type = "star"
hosts = 5
rate = "40Gbps"
delay = "1us"
[switch.ecn]
mode = "red"
kmin = "5KB"
kmax = "50KB"
pmax = 0.2
[host.cc]
type = "{cc}"
[[traffic]]
type = "incast"
name = "burst"
receiver = "h0"
senders = ["h1", "h2", "h3"]
size = "100KB"
[[traffic]]
type = "incast"
name = "side"
receiver = "h4"
senders = ["h1", "h2"]
size = "20KB"
"""


def _files(tmp_path):
    out = []
    for cc in ("dcqcn", "none"):
        f = tmp_path / f"{cc}.toml"
        f.write_text(BASE.replace("{cc}", cc))
        out.append(f)
    return out


def test_compare_runs_each_file_over_seeds_into_the_store(tmp_path, capsys):
    files = _files(tmp_path)
    store = tmp_path / "st"
    argv = ["compare", *map(str, files), "--seeds", "2", "--store", str(store), "--jobs", "2", "--out", str(tmp_path / "c.csv")]
    assert cli.main(argv) == 0, capsys.readouterr().err
    runs = dcsim.open_store(store).runs()
    assert len(runs) == 4 and (runs["error"] == "").all()
    assert sorted(set(runs["variant"])) == ["dcqcn", "none"]
    assert sorted(set(runs["simulation.seed"].astype(int))) == [1, 2]
    # Each point ran its own file (the run id starts with the scenario's name, the stem).
    assert all(str(r.run_id).startswith(str(r.variant)) for r in runs.itertuples())
    by = runs.groupby("variant")["slowdown_p99_burst"].mean()
    assert by["dcqcn"] != by["none"]
    csv = pd.read_csv(tmp_path / "c.csv", keep_default_na=False)
    assert list(csv.columns[:2]) == ["variant", "simulation.seed"]
    # Resumable: a second run reuses every point.
    assert cli.main(argv) == 0
    assert "4 of 4 points taken from the earlier run" in capsys.readouterr().err
    # The report draws the files as categories.
    out = tmp_path / "r.html"
    assert cli.main(["report", str(store), "--out", str(out)]) == 0
    assert "variant (2 values)" in out.read_text()


def test_compare_api_and_groups_pooled(tmp_path):
    files = _files(tmp_path)
    df = dcsim.compare(files, seeds=[5], jobs=1, groups={"both": ["burst", "side"]})
    assert list(df["variant"]) == ["dcqcn", "none"] and list(df["simulation.seed"]) == [5, 5]
    assert "slowdown_p99_both" in df.columns and "slowdown_p99_burst" not in df.columns
    assert (df["flows_both"] == 5).all()


def test_compare_errors(tmp_path, capsys):
    files = _files(tmp_path)
    with pytest.raises(dcsim.ArgumentError, match="two categories are named 'dcqcn'"):
        sweeps.scenario_files([files[0], files[0]])
    assert cli.main(["compare", str(files[0]), "--seeds", "x"]) == 2
    assert "--seeds" in capsys.readouterr().err
    assert cli.main(["compare", str(files[0]), "--grid", "simulation.seed=1,2"]) == 2
    assert "give the seeds with --seeds" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text(BASE.replace("{cc}", "nope"))
    assert cli.main(["compare", str(files[0]), str(bad)]) == 1
    assert "host.cc" in capsys.readouterr().err  # a bad file fails before any point runs


def test_plot_fct_groups_choose_and_pool(tmp_path, capsys):
    f = _files(tmp_path)[0]
    run = tmp_path / "run"
    assert cli.main(["run", str(f), "--out", str(run), "--quiet"]) == 0
    labels = {}
    for spec in ("burst", "all", "both=burst+side", None):
        out = tmp_path / f"{spec}.png"
        argv = ["plot", "fct", str(run), "--out", str(out), "--percentiles", "99"]
        assert cli.main(argv + (["--groups", spec] if spec else [])) == 0, capsys.readouterr().err
        assert out.stat().st_size > 0
    from dcsim import plot
    from dcsim.results import load_run

    res = load_run(run)
    for spec in ("burst", "all", "both=burst+side", None):
        t = plot.fct_table(res, [99], None, cli.parse_groups(spec))
        labels[spec] = sorted(set(t["group_name"]))
    assert labels == {"burst": ["burst"], "all": ["all"], "both=burst+side": ["both"], None: ["burst", "side"]}
    assert cli.main(["plot", "fct", str(run), "--groups", "nope", "--out", str(tmp_path / "x.png")]) == 1
    assert "no traffic group named 'nope'" in capsys.readouterr().err


def test_compare_one_file_with_variants_prints_the_table(tmp_path, capsys):
    f = tmp_path / "schemes.toml"
    f.write_text(BASE.replace("{cc}", "none") + '[variants.dcqcn]\n"host.cc" = { type = "dcqcn" }\n[variants.none]\n')
    assert cli.main(["compare", str(f), "--seeds", "1,2", "--jobs", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["variant", "points", "goodput_total_gbps", "slowdown_p50_burst"]
    assert [ln.split()[0] for ln in out[2:4]] == ["dcqcn", "none"] and out[2].split()[1] == "2"
    assert "mean over the seeds" in out[-1]
    # A run of one variant: as the sweep ran it.
    run = tmp_path / "run"
    assert cli.main(["run", str(f), "--variant", "dcqcn", "--out", str(run), "--quiet"]) == 0
    assert 'type = "dcqcn"' in (run / "scenario.toml").read_text()
    assert cli.main(["run", str(f), "--variant", "hpcc", "--out", str(tmp_path / "r2"), "--quiet"]) == 1
    assert "--variant: no [variants.hpcc]" in capsys.readouterr().err
