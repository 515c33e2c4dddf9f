"""dcsim tune SCENARIO: Optuna over the settings of one's own scenario, each trial a
point in the store, resumable; the shipped example beats its defaults."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import dcsim
from dcsim import cli
from dcsim.sweeps import Options
from dcsim.tuning import optimize

pytest.importorskip("optuna")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scenarios" / "tune_ecn_leaf_spine.toml"
PARAMS = ["switch.ecn.kmin=5KB:400KB", "switch.ecn.pmax=0.01:1"]


def test_params_and_objectives_parse():
    p = optimize.parse_param("switch.ecn.kmin=5KB:400KB")
    assert (p.low, p.high, p.kind, p.log) == (5000.0, 400000.0, "size", True)
    assert p.override(p.text(12345.0)) == 'switch.ecn.kmin="12345B"' and p.value("12345B") == 12345.0
    assert optimize.parse_param("host.cc.increase_period=10us:50us").kind == "time"
    q = optimize.parse_param("switch.ecn.pmax=0.1:0.5")
    assert (q.kind, q.log, q.override(q.text(0.123456))) == ("float", False, "switch.ecn.pmax=0.1235")
    assert optimize.parse_param("x.n=1:4").kind == "int"
    for bad in ("x=1", "x=2:1", "x=1KB:1us", "x=0:10:log", "=1:2"):
        with pytest.raises(dcsim.ArgumentError, match="--param"):
            optimize.parse_param(bad)
    o = optimize.parse_objective("0.7*small_p99+0.3*pause")
    assert o.terms == (("small_flow_slowdown_p99", "min", 0.7), ("pause_fraction_mean", "min", 0.3)) and o.direction == "min"
    # A mix is relative to the defaults: the defaults score the sum of the weights.
    base = {"small_flow_slowdown_p99": 10.0, "pause_fraction_mean": 0.02}
    assert o.score(base, base) == pytest.approx(1.0)
    assert o.score({"small_flow_slowdown_p99": 5.0, "pause_fraction_mean": 0.02}, base) == pytest.approx(0.65)
    assert optimize.parse_objective("goodput").direction == "max"
    assert optimize.parse_objective("max:slowdown_p99_incast").terms == (("slowdown_p99_incast", "max", 1.0),)
    with pytest.raises(dcsim.ArgumentError, match="--objective"):
        optimize.parse_objective("x*small_p99")


def test_the_shipped_example_beats_its_defaults_and_resumes(tmp_path):
    params = [optimize.parse_param(p) for p in PARAMS]
    obj = [optimize.parse_objective("0.5*small_p99+0.5*pause")]
    store = tmp_path / "store"
    said = []
    r = optimize.tune(EXAMPLE, params, obj, trials=6, store=store, opts=Options(jobs=2), log=said.append)
    best = r.best()[0]
    assert best["objective_0"] < 0.9  # the defaults score 1.0
    assert best["small_flow_slowdown_p99"] < r.default["small_flow_slowdown_p99"]
    assert best["pause_fraction_mean"] < r.default["pause_fraction_mean"]
    assert len(dcsim.open_store(store).runs()) == 7  # the defaults and six trials
    text = optimize.report(r, "dcsim tune ...")
    for part in ("## Best settings against the defaults", "## Trade-off front", "## Sensitivity", "`switch.ecn.pmax`"):
        assert part in text
    assert r.front() and all(t in r.trials for t in r.front())
    # Resumed: the six trials come from the store, two more run.
    said.clear()
    r2 = optimize.tune(EXAMPLE, params, obj, trials=8, store=store, opts=Options(jobs=2), log=said.append)
    assert "6 trials taken from the store" in said and len(r2.trials) == 8
    assert [t["switch.ecn.kmin"] for t in r2.trials[:6]] == [t["switch.ecn.kmin"] for t in r.trials]
    assert len(dcsim.open_store(store).runs()) == 9
    assert all(not math.isnan(t["objective_0"]) for t in r2.trials)


def test_cli_report_and_errors(tmp_path, capsys):
    out = tmp_path / "t"
    argv = ["tune", str(EXAMPLE), *(x for p in PARAMS for x in ("--param", p)), "--objective", "small_p99", "--objective", "pause"]
    assert cli.main(argv + ["--trials", "3", "--jobs", "2", "--out", str(out), "--quiet"]) == 0
    assert (out / "tune.md").is_file() and (out / "trials.csv").is_file() and (out / "store" / "runs").is_dir()
    assert "## Trade-off front" in capsys.readouterr().out
    assert cli.main(["tune", str(EXAMPLE), "--param", "switch.ecn.kmin=5KB", "--objective", "pause"]) == 2
    assert "--param" in capsys.readouterr().err
    rc = cli.main(["tune", str(EXAMPLE), "--param", PARAMS[0], "--objective", "nope", "--trials", "1", "--out", str(tmp_path / "u")])
    assert rc == 1 and "no metric 'nope'" in capsys.readouterr().err
    assert cli.main(["tune", "train", "--param", PARAMS[0]]) == 2
