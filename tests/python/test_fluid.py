"""The max-min fluid ideal against hand-computed cases."""

import pandas as pd
import pytest

from dcsim.errors import ArgumentError
from dcsim.fluid import max_min_fluid

# 8 Gb/s: one byte per ns, so a flow's finish time in ns equals its bytes at full rate.
RATE = 8e9
NS = 1000


def flows(rows):
    return pd.DataFrame(rows, columns=["src", "dst", "size_bytes", "start_ps"])


def test_one_flow_runs_at_line_rate():
    out = max_min_fluid(flows([("a", "b", 1_000_000, 5 * NS)]), RATE)
    assert out["fluid_finish_ps"].tolist() == [(5 + 1_000_000) * NS]


def test_two_senders_share_a_receiver_downlink():
    out = max_min_fluid(flows([("a", "c", 1000, 0), ("b", "c", 1000, 0)]), RATE)
    assert out["fluid_finish_ps"].tolist() == [2000 * NS, 2000 * NS]


def test_rate_left_over_goes_to_the_unconstrained_flow():
    # Three flows into c get 1/3 each; d's flow shares a's uplink with a's 1/3 and takes
    # the 2/3 left: 2000 B at 2/3 B/ns finishes at 3000 ns.
    rows = [("a", "c", 10**6, 0), ("b", "c", 10**6, 0), ("e", "c", 10**6, 0), ("a", "d", 2000, 0)]
    out = max_min_fluid(flows(rows), RATE)
    assert out["fluid_finish_ps"].iloc[3] == 3000 * NS


def test_a_late_flow_halves_the_rate_and_delivered_bytes_stop_at_until():
    # 1000 B from 0 alone until 500 ns (500 B left), then two flows share c at 1/2 B/ns:
    # the first finishes at 1500 ns; the second has 500 B by then, alone afterwards.
    rows = [("a", "c", 1000, 0), ("b", "c", 10**6, 500 * NS)]
    out = max_min_fluid(flows(rows), RATE, until_ps=2000 * NS)
    assert out["fluid_finish_ps"].tolist() == [1500 * NS, -1]
    assert out["fluid_delivered_bytes"].tolist() == pytest.approx([1000, 500 + 500])


def test_bad_input_names_the_column_and_the_rate():
    with pytest.raises(ArgumentError, match="start_ps"):
        max_min_fluid(pd.DataFrame({"src": ["a"], "dst": ["b"], "size_bytes": [1]}), RATE)
    with pytest.raises(ArgumentError, match="rate_bps"):
        max_min_fluid(flows([("a", "b", 1, 0)]), 0)
