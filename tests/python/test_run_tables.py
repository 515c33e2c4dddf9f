"""Run directories as data: every table carries the run id, times are in one unit family
(picoseconds) everywhere, and samples and pfc_events name their node and peer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcsim

ROOT = Path(__file__).resolve().parents[2]
SEED000 = ROOT / "scenarios/seed000_parking_lot_pfc.toml"
SHORT = ["simulation.duration=1ms", "stats.steady_start=0.5ms"]


@pytest.fixture(scope="module")
def res():
    return dcsim.run(SEED000, overrides=SHORT)


def test_every_table_carries_the_run_id(res):
    rid = res.summary["run_id"]
    assert rid.startswith("seed000_parking_lot_pfc-") and len(rid) == len("seed000_parking_lot_pfc-") + 12
    for name in res.names:
        t = res.table(name)
        assert t.columns[0] == "run_id", name
        assert (t["run_id"] == rid).all() and list(t["run_id"].cat.categories) == [rid], name
    # Same scenario and overrides: same id; another override: another id.
    assert dcsim.run(SEED000, overrides=SHORT).summary["run_id"] == rid
    other = dcsim.run(SEED000, overrides=SHORT + ["simulation.seed=2"])
    assert other.summary["run_id"] != rid
    both = pd.concat([res.flows, other.flows])
    assert both.groupby("run_id", observed=True).size().tolist() == [len(res.flows)] * 2


def test_times_are_picoseconds_everywhere(res):
    for name in res.names:
        cols = list(res.table(name).columns)
        assert not [c for c in cols if c.endswith(("_ns", "_us", "_ms", "_s"))], (name, cols)
    assert "latency_ps" in res.summary and "latency_ns" not in res.summary
    f = res.flows
    # A packet's one-way delay is at least its serialization on two 40 Gb/s links.
    assert (f["latency_mean_ps"] >= 2 * 2130 * 8 / 40e9 * 1e12).all()
    assert (f["latency_max_ps"] >= f["latency_mean_ps"]).all() and f["latency_max_ps"].dtype == np.uint64
    lat = res.summary["latency_ps"]
    assert isinstance(lat["p50"], int) and lat["p50"] <= lat["p99"] <= lat["max"]
    g = res.fct_by_group()
    assert all(c.endswith("_ps") for c in g.columns if c.startswith("fct_"))


def test_samples_and_pfc_events_name_node_and_peer(res):
    ports = res.ports.drop_duplicates("port_id").set_index("port_id")
    for name in ("samples", "pfc_events"):
        t = res.table(name)
        assert len(t), name
        assert list(t.columns[t.columns.get_loc("port_id") :][:3]) == ["port_id", "node", "peer"], name
        want = ports.loc[t["port_id"].to_numpy()]
        assert (t["node"].astype(str).to_numpy() == want["node"].astype(str).to_numpy()).all(), name
        assert (t["peer"].astype(str).to_numpy() == want["peer"].astype(str).to_numpy()).all(), name
    # The parking lot's hot queue S1 -> S2 is found by names alone.
    s = res.samples
    assert s[(s["node"] == "S1") & (s["peer"] == "S2")]["egress_bytes"].max() > 0
    # A pause is received by the transmitter that the peer's full buffer stops.
    p = res.pfc_events
    assert set(p.loc[p["event"] == "pause", "peer"].astype(str)) <= {"S1", "S2"}


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_load_run_keeps_the_added_columns(res, tmp_path, fmt):
    res.write(tmp_path, fmt=fmt)
    back = dcsim.load_run(tmp_path)
    for name in res.names:
        a, b = res.table(name), back.table(name)
        assert list(a.columns) == list(b.columns), name
        for col in ("run_id", "node", "peer"):
            if col in a.columns and isinstance(a[col].dtype, pd.CategoricalDtype):
                assert a[col].dtype == b[col].dtype and a[col].equals(b[col]), (name, col)
