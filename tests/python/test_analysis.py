"""Run analysis (dcsim.analysis) and the sweep rows built from it: aggregate goodput that
respects the fabric's capacity, utilisation, PFC pause time, FCT per group and per size
bin, and the sweep's exit status."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim import analysis
from dcsim.sweeps import metrics

ROOT = Path(__file__).resolve().parents[2]
WEBSEARCH = ROOT / "scenarios/leaf_spine_websearch.toml"


def dcsim_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def sequential():
    """Five 125 KB flows one after the other on one 10 Gb/s link: each runs near the line
    rate over its own lifetime, so the sum of per-flow goodputs is about 5x the link."""
    flows = [{"src": "h1", "dst": "h0", "size": "125KB", "start": f"{200 * i}us"} for i in range(5)]
    sc = dcsim.Scenario.from_dict(
        {
            "simulation": {"duration": "1ms"},
            "topology": {"type": "star", "hosts": 2, "rate": "10Gbps", "delay": "1us"},
            "traffic": [{"type": "flows", "flows": flows}],
        }
    )
    return dcsim.run(sc)


def test_goodput_total_is_the_delivered_aggregate(sequential):
    res = sequential
    assert res.summary["counters"]["flows_finished"] == 5
    assert res.flows["goodput_gbps"].sum() > 30  # what a per-flow sum would report
    row = metrics(res)
    delivered = res.summary["counters"]["payload_bytes_delivered"]
    assert row["goodput_total_gbps"] == pytest.approx(delivered * 8 / 1e-3 / 1e9)
    assert row["goodput_total_gbps"] == pytest.approx(5.0, rel=0.01)  # 5 x 125 KB in 1 ms
    # Both hosts' links: 20 Gb/s of capacity; one receiver, so at most 10 delivered.
    assert row["host_capacity_gbps"] == pytest.approx(20.0)
    assert row["goodput_total_gbps"] <= 10.0
    # No long-lived flow: no per-flow goodput spread, and nothing NaN in the row.
    for k in ("goodput_min_gbps", "goodput_max_gbps", "jain"):
        assert k not in row
    nan = [k for k, v in row.items() if isinstance(v, float) and math.isnan(v)]
    assert nan == [], nan


def test_steady_goodput_counts_only_the_window():
    # One long-lived flow at 10 Gb/s from 0; steady window = the second half.
    sc = dcsim.Scenario.from_dict(
        {
            "simulation": {"duration": "1ms"},
            "topology": {"type": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us"},
            "traffic": [{"type": "flows", "flows": [{"src": "h1", "dst": "h0"}, {"src": "h2", "dst": "h0", "size": "100KB"}]}],
            "stats": {"steady_start": "500us"},
        }
    )
    res = dcsim.run(sc)
    agg = analysis.aggregate(res)
    g = res.goodput
    exact = g[g.time_ps >= 500_000_000]["bytes"].sum() * 8 / 500e-6 / 1e9
    assert agg["goodput_steady_gbps"] == pytest.approx(exact, rel=1e-3)
    assert agg["goodput_steady_gbps"] <= 10.0 and agg["goodput_total_gbps"] <= 10.0
    ll = analysis.long_lived_goodput(res)
    assert ll is not None and ll["flows_long_lived"] == 1  # the 100 KB flow is not in it


def test_utilisation_and_pause_per_switch_on_the_parking_lot():
    res = dcsim.run(ROOT / "scenarios/seed000_parking_lot_pfc.toml", overrides=["simulation.duration=2ms", "stats.steady_start=1ms"])
    u = analysis.link_utilization(res).set_index(["node", "peer"])
    assert len(u) == res.ports.port_id.nunique()
    assert u.loc[("S2", "R"), "kind"] == "down" and u.loc[("S1", "S2"), "kind"] == "fabric"
    assert u.loc[("A", "S1"), "kind"] == "host"
    assert 0.9 < u.loc[("S2", "R"), "utilization"] <= 1.0  # R's link is the bottleneck
    p = analysis.pause_by_switch(res).set_index("node")
    ports = res.ports
    for node in p.index:
        rows = ports[ports.node == node]
        assert p.loc[node, "paused_ps"] == rows.paused_ps.sum()
        assert p.loc[node, "pause_fraction"] == pytest.approx(rows.paused_ps.sum() / (len(rows) * 2e9))
    assert "S1" in p.index  # S1's uplink is paused by S2
    # Every switch, zero or not; hosts apart (only with hosts=True, after the switches).
    switches = set(res.nodes[res.nodes.kind == "switch"].name)
    assert set(p.index) == switches and (p["kind"] == "switch").all()
    assert list(p["paused_ps"]) == sorted(p["paused_ps"], reverse=True)
    with_hosts = analysis.pause_by_switch(res, hosts=True)
    assert list(with_hosts["node"][: len(switches)]) == list(p.index)
    assert (with_hosts["kind"][len(switches) :] == "host").all() and (with_hosts["paused_ps"][len(switches) :] > 0).all()
    assert (analysis.pause_by_port(res)["paused_fraction"] <= 1).all()


def fake(flows: pd.DataFrame):
    return SimpleNamespace(flows=flows, summary={"duration_ps": 10**9})


def test_fct_by_size_equal_count_bins():
    rng = np.random.default_rng(1)
    n = 1000
    size = rng.integers(100, 10**7, n)
    sd = rng.uniform(1, 50, n)
    fct = np.where(np.arange(n) % 10 == 0, -1, 1000)  # every tenth flow unfinished
    flows = pd.DataFrame(
        {
            "flow_id": np.arange(n),
            "group": np.where(np.arange(n) < 600, 0, 1),
            "size_bytes": size,
            "fct_ps": fct,
            "slowdown": np.where(fct < 0, np.nan, sd),
        }
    )
    t = analysis.fct_by_size(fake(flows), percentiles=[50, 99, 99.9])
    assert list(t.columns[-3:]) == ["slowdown_p50", "slowdown_p99", "slowdown_p999"]
    for grp, count in ((0, 600), (1, 400)):
        g = t[t.group == grp]
        assert len(g) == 20 and g.flows.sum() == count and set(g.flows) == {count // 20}
        assert (g.size_lo.to_numpy()[1:] >= g.size_hi.to_numpy()[:-1]).all()
        # The top bin, recomputed by hand.
        mine = flows[flows.group == grp].sort_values("size_bytes").tail(count // 20)
        done = mine[mine.fct_ps >= 0]
        top = g.iloc[-1]
        assert top.finished == len(done)
        assert top.slowdown_p99 == pytest.approx(np.percentile(done.slowdown, 99))
        assert top.size_hi == mine.size_bytes.max()
    pooled = analysis.fct_by_size(fake(flows), bins=4, by_group=False)
    assert list(pooled.group) == [-1] * 4 and list(pooled.flows) == [250] * 4


def test_fct_by_size_fixed_edges_and_long_lived_left_out():
    flows = pd.DataFrame(
        {
            "flow_id": range(6),
            "group": 0,
            "size_bytes": [-1, 10, 100, 1000, 5000, 10**6],
            "fct_ps": [-1, 5, 5, 5, 5, 5],
            "slowdown": [np.nan, 1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )
    t = analysis.fct_by_size(fake(flows), edges=[100, 10_000])
    assert list(t.flows) == [2, 2] and list(t.size_hi) == [100, 10_000]
    assert list(t.slowdown_p50) == [1.5, 3.5]
    with pytest.raises(ValueError):
        analysis.fct_by_size(fake(flows), bins=3, edges=[1])


def test_results_methods_and_groups():
    res = dcsim.run(WEBSEARCH, overrides=["simulation.duration=1500us"])
    by_group = res.fct_by_group()
    assert list(by_group.group) == [0] and by_group.flows[0] == (res.flows.size_bytes >= 0).sum()
    t = res.fct_by_size()
    assert t.flows.sum() == by_group.flows[0] and t.finished.sum() == by_group.finished[0]


def test_websearch_kmax_sweep(tmp_path):
    """The issue's acceptance: a sweep of switch.ecn.kmax on the web-search fabric reports
    aggregate goodput within the hosts' capacity and slowdown per traffic group; a failing
    point (kmax below kmin) makes the exit status non-zero after the other points ran."""
    out = tmp_path / "sweep.csv"
    p = dcsim_cli(
        "sweep",
        WEBSEARCH,
        "--grid",
        "switch.ecn.kmax=10KB,100KB,400KB",
        "--set",
        "switch.ecn.mode=red",
        "--set",
        "switch.ecn.kmin=50KB",
        "--set",
        "simulation.duration=1500us",
        "--out",
        out,
    )
    assert p.returncode == 1, p.stderr
    assert "1 of 3 points failed" in p.stderr
    df = pd.read_csv(out, keep_default_na=False)
    assert list(df["switch.ecn.kmax"]) == ["10KB", "100KB", "400KB"]
    assert "kmax" in df["error"][0] and list(df["error"][1:]) == ["", ""]
    ok = df.iloc[1:]
    cap = 32 * 25.0
    assert (ok["host_capacity_gbps"].astype(float) == cap).all()
    assert (ok["goodput_total_gbps"].astype(float) <= cap).all()
    assert (ok["goodput_total_gbps"].astype(float) > 0).all()
    for col in ("slowdown_p50_cdf_0", "slowdown_p99_cdf_0", "fct_p99_ps_cdf_0", "link_util_max", "pause_fraction_max"):
        assert col in df.columns
    # Per flow-size bin (20 bins of 5 % of the flows): the same numbers as fct_by_size.
    bins = [f"_cdf_0_b{b:02d}" for b in range(20)]
    for k in bins:
        for col in ("size_hi", "finished", "slowdown_p50", "slowdown_p99"):
            assert col + k in df.columns, col + k
    sizes = ok[["size_hi" + k for k in bins]].astype(float).to_numpy()
    assert (np.diff(sizes, axis=1) >= 0).all()  # bins in size order
    assert (sizes == sizes[0]).all()  # same workload at every point: same bins
    res = dcsim.run(
        WEBSEARCH, overrides=["switch.ecn.mode=red", "switch.ecn.kmin=50KB", "simulation.duration=1500us", "switch.ecn.kmax=100KB"]
    )
    t = res.fct_by_size(percentiles=(50, 99))
    row = ok.iloc[0]
    for b in t.itertuples(index=False):
        k = f"_cdf_0_b{b.bin:02d}"
        assert float(row["size_hi" + k]) == b.size_hi and int(row["finished" + k]) == b.finished
        for p in ("p50", "p99"):
            got, want = float(row[f"slowdown_{p}" + k]), getattr(b, f"slowdown_{p}")
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, rel=1e-12)
    assert "jain" not in df.columns and "goodput_min_gbps" not in df.columns
    assert df.columns[-1] == "error"


def test_victims_follow_the_ecmp_routes_the_run_took():
    """Two spines, every leaf pair has two equal-cost paths. The switches hash each flow
    onto one; the victim ranking charges a flow the pauses of the path it took (so two
    flows between the same leaves can differ), and every path is a chain of ports from
    the source's NIC to a port toward the destination."""
    sc = dcsim.Scenario.from_file(WEBSEARCH, overrides=["simulation.duration=300us", "traffic[0].stop=200us", "stats.steady_start=0us"])
    res = dcsim.run(sc)
    paths = sc.plan.flow_paths()
    p = res.ports.drop_duplicates("port_id").set_index("port_id")
    spines = set()
    for fid, src, dst in zip(res.flows["flow_id"], res.flows["src"], res.flows["dst"]):
        hops = [(p.loc[i, "node"], p.loc[i, "peer"]) for i in paths[int(fid)]]
        assert hops[0][0] == src and hops[-1][1] == dst, hops
        assert all(a[1] == b[0] for a, b in zip(hops, hops[1:])), hops
        spines |= {n for n, _ in hops if n.startswith("spine")}
    assert len(spines) == 2, "ECMP spreads the flows over both spines"
    v = res.victims()
    assert len(v) == len(res.flows) and list(v["rank"]) == list(range(1, len(v) + 1))


NAMED = """
[simulation]
duration = "3ms"
[topology]
type = "star"
hosts = 5
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "permutation"
name = "background"
size = "50KB"
[[traffic]]
type = "incast"
name = "burst"
receiver = "h0"
senders = ["h1", "h2", "h3"]
size = "20KB"
start = "100us"
period = "1ms"
count = 3
"""


def test_named_periodic_traffic_by_name_and_pooled():
    res = dcsim.run(dcsim.loads(NAMED))
    f = res.flows
    assert res.summary["group_names"] == ["background", "burst"]
    assert list(f.columns).index("group_name") == list(f.columns).index("group") + 1
    burst = f[f["group_name"] == "burst"]
    assert len(burst) == 9 and (burst["group"] == 1).all()  # three bursts, one group
    by = res.fct_by_group()
    assert list(by["group_name"]) == ["background", "burst"]
    pooled = res.fct_by_group(groups={"everything": ["background", "burst"]})
    assert list(pooled["group_name"]) == ["everything"] and int(pooled["flows"][0]) == len(f)
    assert list(res.fct_by_group(groups=["burst"])["flows"]) == [9]
    assert list(res.fct_by_size(bins=2, groups="all")["group_name"]) == ["all", "all"]
    with pytest.raises(dcsim.ArgumentError, match="no traffic group named 'nope'"):
        res.fct_by_group(groups=["nope"])
    from dcsim.sweeps import metrics

    m = metrics(res, size_bins=2)
    assert "slowdown_p99_burst" in m and "slowdown_p99_background" in m and "size_hi_burst_b1" in m
    assert "slowdown_p99_all" in metrics(res, size_bins=2, groups="all")
