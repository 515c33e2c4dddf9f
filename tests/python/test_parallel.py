"""``simulation.threads``: the Python API gets the same tables, summary and run id from a
parallel run as from one thread (the engine's memory figures aside)."""

from pathlib import Path

import pytest

import dcsim

ROOT = Path(__file__).resolve().parents[2]
FILE = str(ROOT / "scenarios" / "leaf_spine_websearch.toml")
SETS = ["simulation.duration=600us", "stats.steady_start=100us", "stats.sample_interval=25us", "stats.goodput_interval=50us"]


def test_two_threads_give_the_tables_of_one():
    one = dcsim.run(FILE, overrides=SETS, progress=False)
    two = dcsim.run(FILE, overrides=SETS + ["simulation.threads=2"], progress=False)
    assert one.summary["run_id"] == two.summary["run_id"]
    assert one.summary["counters"] == two.summary["counters"]
    for name in ("flows", "ports", "samples", "goodput"):
        assert len(one.table(name)) > 0, name
    for name in ("flows", "ports", "samples", "goodput", "pfc_events", "congestion", "rates"):
        assert one.table(name).equals(two.table(name)), name


def test_unsupported_features_name_the_setting():
    with pytest.raises(dcsim.ScenarioError, match=r"simulation\.threads.*switch\.l2cm.*fecn"):
        dcsim.load(str(ROOT / "scenarios" / "seed002_fecn.toml"), overrides=["simulation.threads=2"])
