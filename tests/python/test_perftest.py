"""ib_write_lat probes and the perftest-format report."""

import math

import pytest

import dcsim
from dcsim.errors import ArgumentError
from dcsim.perftest import lat_report, lat_rows

SCENARIO = {
    "simulation": {"duration": "2ms"},
    "topology": {"type": "star", "hosts": 3, "rate": "25Gbps", "delay": "1us"},
    "traffic": [
        {"type": "ib_write_lat", "src": "h1", "dst": "h0", "size": "8B", "iters": 100},
        {"type": "ib_write_bw", "senders": ["h2"], "receiver": "h0", "rate": "5Gbps"},
    ],
}


def test_probe_statistics_and_report():
    res = dcsim.run(SCENARIO)
    rows = lat_rows(res)
    assert list(rows["flow_id"]) == [0]
    r = rows.iloc[0]
    assert r["iterations"] == 100 and r["bytes"] == 8
    assert r["t_min_us"] <= r["t_typical_us"] <= r["p99_us"] <= r["p999_us"] <= r["t_max_us"]
    assert r["t_min_us"] <= r["t_avg_us"] <= r["t_max_us"]
    # 100 messages: p99 is the 99th smallest, p99.9 the largest (nearest rank).
    assert r["p999_us"] == r["t_max_us"]
    f = res.flows
    assert f.loc[f["flow_id"] == 0, "messages_completed"].iloc[0] == 100
    # The stream is long-lived and has no completed messages: no latency row, NaN columns.
    assert math.isnan(f.loc[f["flow_id"] == 1, "message_latency_p999_ps"].iloc[0])
    text = lat_report(res)
    lines = text.splitlines()
    assert lines[1].split()[:4] == ["#bytes", "#iterations", "t_min[usec]", "t_max[usec]"]
    assert lines[2].split()[:2] == ["8", "100"]
    assert float(lines[2].split()[2]) == pytest.approx(r["t_min_us"], abs=0.005)
    with pytest.raises(ArgumentError):
        lat_rows(res, flows=[7])


def test_software_limited_stream_counts_messages_without_a_latency_row():
    sc = {**SCENARIO, "traffic": [SCENARIO["traffic"][0], {**SCENARIO["traffic"][1], "rate_limiter": "sw", "tx_depth": 4}]}
    res = dcsim.run(sc)
    f = res.flows
    # 5 Gb/s for 2 ms is 19 messages of 64 KiB, posted 4 at a time every 0.42 ms.
    done = f.loc[f["flow_id"] == 1, "messages_completed"].iloc[0]
    assert 16 <= done <= 20
    assert f.loc[f["flow_id"] == 1, "size_bytes"].iloc[0] == 65536
    assert list(lat_rows(res)["flow_id"]) == [0]
