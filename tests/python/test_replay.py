"""A saved scenario replays the run it was saved from: ``Scenario.save()`` and the
``scenario.toml`` that ``dcsim run`` writes give the same results when run again."""

import json
from pathlib import Path

import pandas as pd
import pytest

import dcsim
from conftest import REPO
from dcsim import _native, _toml

SCENARIOS = sorted((REPO / "scenarios").glob("*.toml"))

# Summary entries that describe the scenario's form (text + overrides), not the run;
# the run id is derived from the form, and every table carries it as a column.
_FORM_KEYS = {"scenario_hash", "overrides", "run_id"}


def _overrides(path: Path) -> list:
    """A short run, a plain key, a table created on the way and an indexed
    ``traffic[0]...`` override fitting the scenario's first traffic entry."""
    traffic = _toml.loads(path.read_text(encoding="utf-8"))["traffic"][0]
    indexed = {
        "flows": 'traffic[0].flows[0].start="1us"',
        "incast": 'traffic[0].start="1us"',
        "cdf": "traffic[0].load=0.25",
        "ib_write_bw": 'traffic[0].start="1us"',
        "permutation": 'traffic[0].start="1us"',
        "storage": 'traffic[0].start="1us"',
        "job": 'traffic[0].start="1us"',
        "collective": 'traffic[0].start="1us"',
    }[traffic["type"]]
    return ['simulation.duration="200us"', 'stats.steady_start="100us"', "simulation.seed=7", indexed]


def _layout(root: Path) -> Path:
    """A directory beside a ``data`` link, so that the scenarios' relative file names
    (``../data/...``) resolve from a file saved in it as from ``scenarios/``."""
    (root / "data").symlink_to(REPO / "data", target_is_directory=True)
    d = root / "scenarios"
    d.mkdir()
    return d


def _summary(res) -> dict:
    return {k: v for k, v in res.summary.items() if k not in _FORM_KEYS}


def assert_same_results(a, b) -> None:
    assert a.names == b.names
    for name in a.names:
        ta, tb = (t.table(name).drop(columns=["run_id"], errors="ignore") for t in (a, b))
        pd.testing.assert_frame_equal(ta, tb, check_exact=True, obj=name)
    assert json.dumps(_summary(a), sort_keys=True) == json.dumps(_summary(b), sort_keys=True)


def _plan_facts(plan) -> tuple:
    return (plan.name, plan.seed, plan.duration_ps, plan.num_nodes, plan.num_hosts, plan.num_switches, plan.num_links, plan.num_flows)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_saved_scenario_replays(path, tmp_path):
    sc = dcsim.Scenario.from_file(path, overrides=_overrides(path))
    first = sc.run()
    assert first.summary["seed"] == 7

    saved = sc.save(_layout(tmp_path) / path.name)
    replay = dcsim.Scenario.from_file(saved)
    assert replay.overrides == []
    assert _plan_facts(replay.plan) == _plan_facts(sc.plan)
    assert_same_results(first, replay.run())

    # Saving is stable: the saved text merges to itself, so a scenario saved again from
    # the replay (and its hash) does not change.
    text = saved.read_text(encoding="utf-8")
    assert _native.apply_overrides(text, []) == text
    again = replay.with_overrides(['simulation.duration="200us"']).save(saved.with_name("again.toml"))
    assert again.read_text(encoding="utf-8") == text
    assert dcsim.load(again).hash == replay.hash


@pytest.mark.parametrize("name", ["seed000_parking_lot_pfc", "leaf_spine_websearch", "dcqcn_2to1"])
def test_cli_output_scenario_replays(name, cli, tmp_path):
    path = REPO / "scenarios" / f"{name}.toml"
    sets = [a for o in _overrides(path) for a in ("--set", o)]
    _layout(tmp_path)
    # The run directories sit where the scenario file did, one level below `data`: the
    # saved scenario.toml keeps the relative file names as written.
    first_dir = tmp_path / "first"
    p = cli("run", path, "--out", first_dir, "--quiet", *sets)
    assert p.returncode == 0, p.stderr

    saved = first_dir / "scenario.toml"
    second_dir = tmp_path / "second"
    p = cli("run", saved, "--out", second_dir, "--quiet")
    assert p.returncode == 0, p.stderr

    tables = sorted(f.name for f in first_dir.glob("*.parquet"))
    assert tables and tables == sorted(f.name for f in second_dir.glob("*.parquet"))
    for t in tables:
        pd.testing.assert_frame_equal(
            *(pd.read_parquet(d / t).drop(columns=["run_id"]) for d in (first_dir, second_dir)), check_exact=True, obj=t
        )

    def summary(d: Path) -> dict:
        s = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        return {k: v for k, v in s.items() if k not in _FORM_KEYS}

    assert summary(first_dir) == summary(second_dir)
    # The replay had no overrides, so it wrote the file it ran as is.
    assert (second_dir / "scenario.toml").read_text() == saved.read_text()
