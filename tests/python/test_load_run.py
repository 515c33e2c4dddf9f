"""dcsim.load_run: a run directory read back is the Results that wrote it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import dcsim

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
SHORT = ["simulation.duration=600us", "stats.steady_start=300us"]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_load_run_round_trips_every_shipped_scenario(path, tmp_path):
    res = dcsim.run(path, overrides=SHORT)
    res.write(tmp_path)
    back = dcsim.load_run(tmp_path)
    assert back.names == res.names
    for name in res.names:
        pd.testing.assert_frame_equal(back.table(name), res.table(name), check_dtype=True, obj=name)
    assert back.summary == res.summary
    assert back.equals(res)
    assert back.scenario is not None and back.scenario.to_dict() == res.scenario.to_dict()


def test_load_run_from_csv_keeps_values(tmp_path):
    res = dcsim.run(ROOT / "scenarios/seed000_parking_lot_pfc.toml", overrides=SHORT)
    res.write(tmp_path, fmt="csv")
    back = dcsim.load_run(tmp_path)
    for name in res.names:
        a, b = res.table(name), back.table(name)
        assert list(a.columns) == list(b.columns), name
        if len(a):
            pd.testing.assert_frame_equal(b, a, check_dtype=False, obj=name)


def test_equals_sees_a_difference(tmp_path):
    res = dcsim.run(ROOT / "scenarios/seed000_parking_lot_pfc.toml", overrides=SHORT)
    res.write(tmp_path)
    f = tmp_path / "flows.parquet"
    df = pd.read_parquet(f)
    df.loc[0, "bytes_delivered"] += 1
    df.to_parquet(f, index=False)
    assert not dcsim.load_run(tmp_path).equals(res)


def test_load_run_of_a_missing_directory(tmp_path):
    with pytest.raises(dcsim.OutputError, match="not a run directory"):
        dcsim.load_run(tmp_path / "nothing")
