import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import dcsim
from dcsim.results import TABLES, Results, column_to_array


def raw_synthetic():
    n = 3
    return {
        "tables": {
            "flows": {
                "flow": np.array([0, 1, 2**64 - 1], dtype=np.uint64),
                "delta": np.array([-5, 0, 7], dtype=np.int64),
                "goodput_steady_gbps": np.array([1.5, float("nan"), 40.0]),
                "src": ["h0", "h1", "h2"],
            },
            "ports": {"port": np.array([], dtype=np.uint64), "name": []},
            "custom": {"x": np.arange(n, dtype=np.float64)},
        },
        "summary": json.dumps({"name": "syn", "seed": 9, "nested": {"a": [1, 2]}}),
        "events": 1234,
        "wall_s": 0.5,
    }


def test_columns_from_arrays():
    res = Results(raw_synthetic())
    f = res.flows
    assert list(f.columns) == ["flow", "delta", "goodput_steady_gbps", "src"]
    assert f["flow"].dtype == np.uint64 and f["flow"].iloc[2] == 2**64 - 1
    assert f["delta"].dtype == np.int64 and list(f["delta"]) == [-5, 0, 7]
    assert f["goodput_steady_gbps"].dtype == np.float64 and np.isnan(f["goodput_steady_gbps"].iloc[1])
    assert list(f["src"]) == ["h0", "h1", "h2"]
    # The frame owns writable data.
    f.loc[0, "delta"] = 11
    assert res.events == 1234 and res.wall_s == 0.5


def test_frames_share_the_engines_arrays(example_raw):
    """A table's DataFrame holds the engine's arrays themselves, not a copy: a long
    run's tables are in memory once (pandas copies a dict of arrays unless told not to)."""
    raw = example_raw["tables"]["flows"]
    res = Results(example_raw)
    f = res.flows
    numeric = [c for c, v in raw.items() if isinstance(v, np.ndarray) and len(v)]
    assert numeric
    for c in numeric:
        assert np.shares_memory(f[c].to_numpy(), raw[c]), c
    # Still writable, as a frame of one's own.
    f.loc[0, "fct_ps"] = 7
    assert f["fct_ps"].iloc[0] == 7


def test_empty_and_missing_tables():
    res = Results(raw_synthetic())
    assert len(res.ports) == 0 and list(res.ports.columns) == ["port", "name"]
    assert res.goodput.empty  # standard table not produced
    assert res.table("custom")["x"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(KeyError, match="nope"):
        res.table("nope")
    assert res.names == ["flows", "ports", "custom"]
    assert res["flows"] is res.flows  # cached
    assert "flows=3" in repr(res)


def test_summary():
    res = Results(raw_synthetic())
    assert res.summary == {"name": "syn", "seed": 9, "nested": {"a": [1, 2]}}


def test_bad_column():
    with pytest.raises(TypeError):
        column_to_array(("u8", b"\0" * 8))
    with pytest.raises(TypeError):
        column_to_array(3)


def test_native_exporter_format(example_raw):
    assert set(example_raw) == {"tables", "summary"}
    flows = example_raw["tables"]["flows"]
    for name, dtype, values in [
        ("flow", np.uint64, [0, 1]),
        ("fct_ps", np.int64, [-1, 123456789]),
        ("goodput_steady_gbps", np.float64, [19.5]),
    ]:
        col = flows[name]
        assert isinstance(col, np.ndarray) and col.dtype == dtype and col.ndim == 1, name
        assert col.tolist()[: len(values)] == values
    assert np.isnan(flows["goodput_steady_gbps"][1])
    assert flows["src"] == ["h0", "h1"]
    # Text columns are lists of `str`, one object per distinct value (8 bytes a row).
    assert flows["dst"] == ["h2", "h2"] and flows["dst"][0] is flows["dst"][1]
    assert example_raw["tables"]["pfc_events"] == {}
    assert json.loads(example_raw["summary"])["pfc_frames"] == 3
    res = Results(example_raw)
    assert res.flows["fct_ps"].tolist() == [-1, 123456789]
    assert res.pfc_events.empty


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_write(tmp_path, example_raw, fmt):
    sc = dcsim.Scenario.from_dict({"name": "example"}).set("seed", 2)
    res = Results(example_raw, scenario=sc)
    written = res.write(tmp_path / "out", fmt=fmt)
    assert set(written) == {"flows", "nodes", "pfc_events", "summary", "scenario"}
    for name in ("flows", "nodes", "pfc_events"):
        assert written[name].name == f"{name}.{fmt}" and written[name].exists()
    if fmt == "parquet":
        t = pq.read_table(written["flows"]).to_pandas()
    else:
        t = pd.read_csv(written["flows"])
    assert t["fct_ps"].tolist() == [-1, 123456789]
    assert t["src"].tolist() == ["h0", "h1"]
    assert json.loads(written["summary"].read_text())["name"] == "example"
    assert "seed = 2" in written["scenario"].read_text()


def test_write_rejects_unknown_format(tmp_path, example_raw):
    with pytest.raises(ValueError, match="parquet"):
        Results(example_raw).write(tmp_path, fmt="xlsx")


def test_table_names_constant():
    assert TABLES == ("flows", "ports", "pfc_events", "samples", "goodput", "nodes", "links")


def test_write_keeps_unmergeable_scenario_text(tmp_path, example_raw):
    sc = dcsim.Scenario("not toml at all", overrides=["a=1"])
    written = Results(example_raw, scenario=sc).write(tmp_path)
    assert written["scenario"].read_text() == "# --set a=1\nnot toml at all"


def test_wall_clock_chunks_do_not_change_the_summary():
    """A run is served in chunks sized by the wall clock; rounds node by node are never
    cut by a chunk, so what depends on the serving order within a round (the packet
    pool's peak in summary.json) does not depend on the machine's load."""
    from pathlib import Path

    from dcsim import _native

    path = Path(__file__).resolve().parents[2] / "scenarios" / "hpcc_fat_tree_hadoop_hpcc.toml"
    plan = dcsim.Scenario.from_file(path, overrides=['simulation.duration="200us"', "simulation.seed=7", "traffic[0].load=0.25"]).validate()
    runs = [_native.run(plan, chunk_ps=c) for c in (None, 77_777, 333_333, 1_234_567)]
    summaries = [r["summary"] if isinstance(r["summary"], dict) else json.loads(r["summary"]) for r in runs]
    assert len({s["memory"]["peak_packets"] for s in summaries}) == 1, [s["memory"] for s in summaries]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_rates_arrive_packed_and_are_written_a_slice_at_a_time(tmp_path, monkeypatch, fmt):
    """The rates table arrives packed: it is unpacked when read, and written a slice at
    a time to the same file its DataFrame makes (here slices of 7 rows)."""
    import dcsim.results as results_mod

    text = (
        '[simulation]\nduration = "1ms"\n[topology]\ntype = "star"\nhosts = 5\nrate = "40Gbps"\ndelay = "1us"\n'
        '[host.cc]\ntype = "dcqcn"\n[switch.ecn]\nmode = "red"\n'
        '[[traffic]]\ntype = "incast"\nreceiver = "h0"\nsenders = ["h1", "h2", "h3", "h4"]\nsize = "1MB"\n'
    )
    sc = dcsim.Scenario(text)
    streamed, whole = dcsim.run(sc), dcsim.run(sc)
    packed = streamed._raw_tables["rates"]
    assert type(packed).__name__ == "PackedTable" and len(packed) > 20
    assert f"rates={len(packed)}" in repr(streamed)
    assert packed.columns == ["time_ps", "flow_id", "rate_gbps"]
    monkeypatch.setattr(results_mod, "_WRITE_ROWS", 7)
    a = streamed.write(tmp_path / "a", fmt=fmt)
    assert type(streamed._raw_tables["rates"]).__name__ == "PackedTable", "written, not unpacked"
    df = whole.rates  # unpacked whole, then written from its DataFrame
    assert isinstance(whole._raw_tables["rates"], dict)
    assert list(df.columns) == ["run_id", "time_ps", "flow_id", "rate_gbps"] and len(df) == len(packed)
    b = whole.write(tmp_path / "b", fmt=fmt)
    if fmt == "csv":
        assert a["rates"].read_bytes() == b["rates"].read_bytes()
    else:
        assert pq.ParquetFile(a["rates"]).metadata.num_row_groups == -(-len(df) // 7)
        assert pq.read_table(a["rates"]).to_pandas().equals(pq.read_table(b["rates"]).to_pandas())
        assert pd.read_parquet(a["rates"]).equals(df)
    assert streamed.rates.equals(df)
    assert streamed.equals(whole)
