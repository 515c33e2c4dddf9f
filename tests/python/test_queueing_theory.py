"""The switch's egress queues against queueing theory (docs/models/queues.md): Poisson
arrivals of frames into one port make an M/G/1 queue, whose mean wait is the
Pollaczek-Khinchine formula; two priorities under strict priority follow Cobham's
formula; round robin over flows is processor sharing. The beds and the formulas are
those of the page's generated tables."""

from __future__ import annotations

import pytest

from dcsim.docgen import queueing


def test_the_formulas():
    # Pollaczek-Khinchine with deterministic service, and Cobham's two classes by hand.
    assert queueing.cobham({3: 0.5}) == pytest.approx({3: 0.5})
    assert queueing.cobham({3: 0.8}) == pytest.approx({3: 2.0})
    assert queueing.cobham({4: 0.3, 3: 0.4}) == pytest.approx({4: 0.35 / 0.7, 3: 0.35 / (0.7 * 0.3)})


def test_mixed_sizes_raise_the_wait_by_the_second_moment():
    # Payloads uniform over 64..1000 B: E[S^2] / E[S]^2 = 1 + var / mean^2 of the wire
    # sizes 146..1082 B, so the wait is that factor above equal frames' at the same load.
    n = 1082 - 146 + 1
    factor = 1 + (n * n - 1) / 12 / ((146 + 1082) / 2) ** 2
    assert queueing.cobham({3: 0.5}, queueing.MIXED)[3] == pytest.approx(0.5 * factor)


# 100,000 arrivals: seeds 1-3 spread by 1-3 % around theory at these loads.
@pytest.mark.parametrize(
    "loads, sizes",
    [({3: 0.5}, (1000, 1000)), ({3: 0.8}, (1000, 1000)), ({4: 0.3, 3: 0.4}, (1000, 1000)), ({3: 0.8}, (64, 1000))],
    ids=["md1-0.5", "md1-0.8", "strict-0.3+0.4", "mg1-0.8"],
)
def test_mean_wait_matches_theory(loads, sizes):
    got, want = queueing.md1_waits(loads, sizes), queueing.cobham(loads, sizes)
    for p in loads:
        assert got[p] == pytest.approx(want[p], rel=0.05), f"priority {p}: wait {got[p]:.3f} S, theory {want[p]:.3f} S"


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_round_robin_over_flows_is_processor_sharing(rho):
    x = queueing.ps_point(rho, "per_flow")
    assert x["all"] == pytest.approx(1 / (1 - rho), rel=0.05), x
    # Insensitive to the flow size up to frame granularity.
    assert x["small"] < 1.15 * x["large"], x


def test_one_fifo_makes_small_flows_wait_behind_large_ones():
    x = queueing.ps_point(0.8, "fifo")
    assert x["all"] == pytest.approx(5.0, rel=0.05), x
    assert x["small"] > 3 * x["large"], x


def test_queue_samples_obey_littles_law():
    # Both sides come from one run: only the 1 us sampling separates them.
    sampled, little = queueing.md1_little({3: 0.8}, queueing.MIXED)
    assert sampled == pytest.approx(little, rel=0.02)
