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


def test_the_check_compares_the_fast_forwarded_run_with_the_exact_one():
    check = dcsim.check_fast_forward(RING, overrides=["traffic[0].iterations=24", "simulation.duration=20ms"])
    assert check.ok, check.problems
    assert check.compared == "iterations" and len(check.errors) == 24
    assert list(check.errors.columns) == ["job", "iteration", "exact_ps", "ff_ps", "error"]
    assert 0 < check.worst_error <= check.tolerance == 0.01
    assert check.skipped_fraction > 0 and check.events_ratio > 2
    # The job's queue pairs finish with it in both runs, with the same bytes.
    assert check.flows_finished == 32 and check.bytes_differ == []


def test_completions_are_matched_on_their_keys_and_unfinished_ones_left_out():
    import pandas as pd

    from dcsim.ff_check import compare_completions

    exact = pd.DataFrame({"flow_id": [0, 1, 2, 3], "fct_ps": [100, 200, -1, 400]})
    ff = pd.DataFrame({"flow_id": [3, 2, 1, 0], "fct_ps": [404, 300, -1, 101]})
    m = compare_completions(exact, ff, ["flow_id"], "fct_ps")
    assert list(m["flow_id"]) == [0, 3]
    assert list(m["error"].round(6)) == [0.01, 0.01]


def _failing_check():
    import pandas as pd

    from dcsim.ff_check import FastForwardCheck

    errors = pd.DataFrame({"job": ["dp"], "iteration": [7], "exact_ps": [1_000_000], "ff_ps": [1_020_000], "error": [0.02]})
    return FastForwardCheck(
        name="x", compared="iterations", tolerance=0.01, errors=errors, worst_error=0.02, worst_error_ps=20_000.0,
        last_error=0.02, error_estimate_ps=5_000.0, skipped_fraction=0.5, not_skipped_because=None, flows_finished=2,
        bytes_differ=[1], flows_unfinished=3, worst_bytes_error=0.03, worst_bytes_flow=5, events_exact=100, events_ff=10,
        wall_exact_s=1.0, wall_ff_s=0.1, summary={},
    )  # fmt: skip


def test_a_check_beyond_its_bounds_names_each_problem():
    check = _failing_check()
    assert not check.ok
    tol, est, unfinished, nbytes = check.problems
    assert tol.startswith("completion times: job dp, iteration 7 off by +2.000% (+20000 ps), more than the tolerance 0.01"), tol
    assert "more than the estimate 5000 ps" in est and "1 flows finished in both runs with different bytes" in nbytes
    assert unfinished == "bytes delivered: flow 5, unfinished in both runs, off by 3.000%, more than the tolerance 0.01"


def test_the_check_command_exits_1_when_fast_forward_is_off(monkeypatch, capsys):
    from dcsim import cli, ff_check

    monkeypatch.setattr(ff_check, "check_fast_forward", lambda *a, **k: _failing_check())
    assert cli.main(["check-fast-forward", str(RING), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("error: fast-forward: ") == 4, err


def test_the_check_command_takes_fast_forward_settings_alone(cli):
    # The tolerance without `fast_forward = true`: the check turns it on for one run only.
    sets = ["traffic[0].iterations=24", "simulation.duration=20ms", "simulation.fast_forward_tolerance=0.02"]
    p = cli("check-fast-forward", RING, *[a for s in sets for a in ("--set", s)], "--quiet")
    assert p.returncode == 0, p.stderr
    assert "iterations: 24 completions compared" in p.stdout and "tolerance 0.02" in p.stdout, p.stdout
    assert p.stdout.rstrip().endswith("within the tolerance and the error estimate"), p.stdout


def test_long_lived_flows_are_checked_by_their_bytes():
    # Nothing finishes: the flows' bytes by the end, credited at their measured rates,
    # are what the check compares.
    sets = ["simulation.duration=6ms", "simulation.fast_forward_interval=200us", "simulation.fast_forward_tolerance=0.05"]
    check = dcsim.check_fast_forward(ROOT / "scenarios" / "lb_permutation_k8.toml", overrides=sets + ["simulation.fast_forward_window=2"])
    assert len(check.errors) == 0 and check.flows_finished == 0 and check.flows_unfinished == 128
    assert check.skipped_fraction > 0.3 and 0 < check.worst_bytes_error <= check.tolerance, check.lines()
    assert check.ok, check.problems
