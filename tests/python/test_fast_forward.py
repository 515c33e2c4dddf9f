"""``simulation.fast_forward`` from the command line and the Python API: what was
skipped is printed and in the summary, the skipped iterations are marked in the jobs
table, and a run that cannot skip says why (docs/fast_forward.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcsim

ROOT = Path(__file__).resolve().parents[2]
RING = ROOT / "scenarios" / "ai_ring_allreduce.toml"
LONG = ["traffic[0].iterations=16", "simulation.duration=12ms"]


def test_the_cli_says_what_was_skipped(cli, tmp_path):
    sets = [a for s in LONG + ["simulation.fast_forward=true", "simulation.fast_forward_window=2"] for a in ("--set", s)]
    p = cli("run", RING, *sets, "--out", tmp_path / "ff", "--quiet")
    assert p.returncode == 0, p.stderr
    p = cli("run", RING, *sets, "--out", tmp_path / "ff2")
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith("fast-forward:"))
    assert line.startswith("fast-forward: skipped ") and "iterations" in line and "error estimate" in line, line
    res = dcsim.load_run(tmp_path / "ff2")
    jobs = res.table("jobs")
    ff = res.summary["fast_forward"]
    assert len(jobs) == 16 and int(jobs["fast_forwarded"].sum()) == ff["iterations_skipped"] > 0
    assert list(jobs["iteration"]) == list(range(16))


def test_a_run_that_cannot_skip_says_why():
    res = dcsim.run(ROOT / "scenarios" / "leaf_spine_websearch.toml", overrides=["simulation.duration=3ms", "simulation.fast_forward=true"])
    ff = res.summary["fast_forward"]
    assert ff["skipped_ps"] == 0 and ff["not_skipped_because"] == "no steady phase was found"
    res = dcsim.run(ROOT / "scenarios" / "seed004_cca_reno.toml", overrides=["simulation.fast_forward=true"])
    assert "is not RoCE or UDP" in res.summary["fast_forward"]["not_skipped_because"]


@pytest.mark.parametrize(
    "sets, key",
    [
        (["simulation.fast_forward_window=3"], "simulation.fast_forward_window"),
        (["simulation.fast_forward=true", "simulation.fast_forward_tolerance=2"], "simulation.fast_forward_tolerance"),
        (["simulation.fast_forward=true", "simulation.threads=2"], "simulation.threads"),
    ],
)
def test_bad_settings_name_the_field(sets, key):
    with pytest.raises(dcsim.ScenarioError, match=key.replace(".", r"\.")):
        dcsim.load(RING, overrides=sets)
