"""A receiver that stops draining (scenarios/slow_receiver.toml): its pauses spread
upstream, the innocent flows are ranked as victims above the culprit, and the PFC
watchdog contains the spread."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcsim

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios/slow_receiver.toml"
START_PS = 1_000_000_000  # R stops draining at 1 ms


def _run(*overrides: str):
    return dcsim.run(dcsim.Scenario.from_file(SCENARIO, overrides=list(overrides)))


@pytest.fixture(scope="module")
def plain():
    return _run()


@pytest.fixture(scope="module")
def guarded():
    return _run('switch.pfc.watchdog={detection_time="100us"}')


def _paused(res, node, peer):
    p = res.ports
    row = p[(p["node"] == node) & (p["peer"] == peer) & (p["priority"] == 3)]
    return int(row["paused_ps"].sum())


def _goodput(res, src, dst):
    f = res.flows
    return float(f.loc[(f["src"] == src) & (f["dst"] == dst), "bytes_delivered"].sum())


def test_pauses_spread_upstream(plain):
    dur = int(plain.summary["duration_ps"])
    # S2 toward R is paused from 1 ms to the end; then S1 toward S2, one hop upstream.
    assert _paused(plain, "S2", "R") > 0.9 * (dur - START_PS)
    assert _paused(plain, "S1", "S2") > 0.5 * (dur - START_PS)
    # and the senders' NICs behind S1
    for h in ("A", "B", "C"):
        assert _paused(plain, h, "S1") > 0


def test_innocent_flows_are_ranked_above_the_culprit(plain):
    v = plain.victims()
    assert list(zip(v["src"], v["dst"]))[-1] == ("A", "R")
    top = set(zip(v["src"][:2], v["dst"][:2]))
    assert top == {("B", "D"), ("C", "E")}
    assert not v["culprit"][:2].any() and bool(v["culprit"].iloc[-1])
    assert (v["victim_ps"][:2] > 0.5 * (int(plain.summary["duration_ps"]) - START_PS)).all()
    assert list(v["rank"]) == [1, 2, 3]


def test_the_watchdog_contains_the_spread(plain, guarded):
    for src, dst in (("B", "D"), ("C", "E")):
        # without the watchdog the innocent flows stop at 1 ms: about a third of the run
        assert _goodput(plain, src, dst) < 0.45 * _goodput(guarded, src, dst)
        # with it they keep most of their line-rate throughput over the 3 ms
        assert _goodput(guarded, src, dst) > 0.8 * 25e9 / 8 * 3e-3
    assert int(guarded.ports["pfc_storm_drops"].sum()) > 0
    assert _paused(guarded, "S1", "S2") < 0.2 * _paused(plain, "S1", "S2")
