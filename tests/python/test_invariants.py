"""Invariants every run must satisfy, checked on small random fabrics, traffic, CC and
PFC settings (Hypothesis): bytes conserved, no drop on a lossless priority with the
computed headroom, no flow faster than a lower bound of its FCT, the same results for
the same seed, for 1, 2 and 4 threads, and for a run stopped early against a run of
that length (the frames each has moved).

CI runs ``DCSIM_INVARIANT_CASES`` (default 60) examples per property; more, e.g.
``DCSIM_INVARIANT_CASES=1000 python -m pytest tests/python/test_invariants.py``."""

from __future__ import annotations

import math
import os

import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import dcsim  # noqa: E402

CASES = int(os.environ.get("DCSIM_INVARIANT_CASES", "60"))
SETTINGS = settings(max_examples=CASES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

RATES = {"10Gbps": 10e9, "25Gbps": 25e9, "40Gbps": 40e9, "100Gbps": 100e9}
DELAYS = {"500ns": 500_000, "1us": 1_000_000, "2us": 2_000_000}
# Columns that say what a flow did (not the run id).
FLOW_COLS = ["flow_id", "bytes_delivered", "pkts_sent", "pkts_received", "retransmits", "finish_ps", "fct_ps", "marked_received"]


@st.composite
def scenarios(draw):
    rate = draw(st.sampled_from(sorted(RATES)))
    delay = draw(st.sampled_from(sorted(DELAYS)))
    if draw(st.booleans()):
        hosts = draw(st.integers(3, 6))
        topo = f'type = "star"\nhosts = {hosts}\nrate = "{rate}"\ndelay = "{delay}"'
    else:
        leaves, per = draw(st.integers(2, 3)), draw(st.integers(1, 3))
        spines = draw(st.integers(1, 2))
        hosts = leaves * per
        topo = (
            f'type = "leaf_spine"\nleaves = {leaves}\nspines = {spines}\nhosts_per_leaf = {per}\n'
            f'host_rate = "{rate}"\nfabric_rate = "{rate}"\ndelay = "{delay}"'
        )
    assume(hosts >= 2)
    size = draw(st.integers(1, 120_000))
    if draw(st.booleans()):
        senders = draw(st.integers(1, hosts - 1))
        traffic = f'type = "incast"\nreceiver = "h0"\nsender_count = {senders}\nsize = "{size}B"'
    else:
        traffic = f'type = "permutation"\nsize = "{size}B"'
    cc = draw(st.sampled_from(["none", "dcqcn", "hpcc", "timely"]))
    pfc = draw(st.sampled_from(["pfc", "off"]))
    buffer = draw(st.sampled_from(["512KiB", "2MiB", "8MiB"]))
    mtu = draw(st.sampled_from([512, 1000, 1024, 1500]))
    seed = draw(st.integers(1, 1000))
    ecn = '[switch.ecn]\nmode = "red"\nkmin = "5KB"\nkmax = "50KB"\npmax = 0.1\n' if cc == "dcqcn" else ""
    text = f"""
[simulation]
duration = "{draw(st.sampled_from(["60us", "100us", "150us"]))}"
seed = {seed}
[host]
mtu = "{mtu}B"
[host.cc]
type = "{cc}"
[topology]
{topo}
[switch.buffer]
type = "shared"
size = "{buffer}"
[switch.pfc]
mode = "{pfc}"
{ecn}
[[traffic]]
{traffic}
"""
    return {"text": text, "rate": RATES[rate], "delay_ps": DELAYS[delay], "mtu": mtu, "pfc": pfc}


def load(case, *overrides):
    try:
        return dcsim.loads(case["text"], overrides=list(overrides))
    except dcsim.ScenarioError as e:
        # A draw the validation refuses (a buffer below the headroom): not a case.
        assume(False)
        raise AssertionError(e) from None  # pragma: no cover


def flows(res):
    return res.flows[FLOW_COLS].reset_index(drop=True)


@SETTINGS
@given(scenarios())
def test_bytes_are_conserved(case):
    res = dcsim.run(load(case))
    c = res.summary["checks"]["conservation"]
    assert c["ok"], c
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"], c
    f = res.flows
    # The tables agree with the check, and no flow delivers more than its size.
    assert int(f["pkts_received"].sum()) <= c["sent"]
    assert (f["bytes_delivered"] <= f["size_bytes"]).all(), f[["size_bytes", "bytes_delivered"]]
    finished = f["finish_ps"] > 0
    assert (f.loc[finished, "bytes_delivered"] == f.loc[finished, "size_bytes"]).all()


@SETTINGS
@given(scenarios())
def test_no_drop_on_a_lossless_priority(case):
    assume(case["pfc"] == "pfc")
    res = dcsim.run(load(case))
    assert res.summary["checks"]["lossless_no_drops"]["ok"], res.summary["checks"]["lossless_no_drops"]
    drops = [c for c in res.ports.columns if c.startswith("drops_")]
    assert int(res.ports[drops].sum().sum()) == 0, res.ports[drops].sum()
    assert res.summary["checks"]["conservation"]["dropped"] == 0


@SETTINGS
@given(scenarios())
def test_no_flow_is_faster_than_its_lower_bound(case):
    # The bound is computed here from what must cross the wire: every payload byte at
    # the sender's line rate, one propagation delay per link of the shortest path (two:
    # host to switch to host), and each packet's header. (ideal_fct is not used: it is
    # not a lower bound for a flow whose last packet is short, a known defect.)
    res = dcsim.run(load(case))
    f = res.flows[res.flows["finish_ps"] > 0]
    assume(len(f) > 0)
    for _, r in f.iterrows():
        size = int(r["size_bytes"])
        pkts = math.ceil(size / case["mtu"])
        wire_bits = (size + pkts * 40) * 8  # 40 B: less than any header the engine adds
        bound = wire_bits * 1e12 / case["rate"] + 2 * case["delay_ps"]
        assert r["fct_ps"] >= math.floor(bound), (r["flow_id"], r["fct_ps"], bound)


@SETTINGS
@given(scenarios())
def test_the_same_seed_gives_the_same_results(case):
    sc = load(case)
    a, b = dcsim.run(sc), dcsim.run(sc)
    pd.testing.assert_frame_equal(flows(a), flows(b))
    pd.testing.assert_frame_equal(a.ports, b.ports)
    assert a.summary["events"] == b.summary["events"] and a.summary["counters"] == b.summary["counters"]


@SETTINGS
@given(scenarios())
def test_one_two_and_four_threads_agree(case):
    runs = [dcsim.run(load(case, f"simulation.threads={t}")) for t in (1, 2, 4)]
    for r in runs[1:]:
        pd.testing.assert_frame_equal(flows(runs[0]), flows(r))
        assert r.summary["counters"] == runs[0].summary["counters"]


@SETTINGS
@given(scenarios(), st.sampled_from([0.25, 0.5, 0.75]))
def test_a_run_stopped_early_equals_a_run_of_that_length(case, part):
    # A run of the full length stopped at `cut` (the Stepper) has moved every frame a
    # run of length `cut` has moved, and no other.
    sc = load(case)
    cut = int(sc.duration_ps * part)
    stepped = dcsim.Stepper(sc)._native
    stepped.run_until(cut)
    assert stepped.now_ps == cut
    short = dcsim.run(load(case, f"simulation.duration={cut}ps"))
    assert stepped.link_packet_hops == short.summary["counters"]["link_packet_hops"]
