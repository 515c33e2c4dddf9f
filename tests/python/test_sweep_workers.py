"""Sweeps run each point in its own process: a point that dies is a failed row and the
others run; the CSV appears only when every point has its row; running the sweep again
reuses the points already computed."""

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dcsim
from conftest import interruptible, run_cli, signal_state

STAR = """
name = "sweep_star"
[simulation]
duration = "50us"
[topology]
type = "star"
hosts = 4
rate = "10Gbps"
delay = "1us"
[[traffic]]
type = "permutation"
size = "20KB"
"""


@pytest.fixture
def scenario(tmp_path):
    f = tmp_path / "star.toml"
    f.write_text(STAR)
    return f


def rows(path: Path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_point_that_dies_is_recorded_and_the_others_run(scenario, tmp_path):
    out = tmp_path / "sweep.csv"
    # A million hosts do not fit the 200 MiB a point may take here: the point's default
    # memory limit is that room (its address-space limit), and the estimate refuses it.
    p = run_cli("sweep", scenario, "--grid", "topology.hosts=4,1000000,6", "--point-memory", "200MiB", "--out", out, timeout=600)
    assert p.returncode == 1, p.stderr
    assert "1 of 3 points failed" in p.stderr
    r = rows(out)
    assert [x["topology.hosts"] for x in r] == ["4", "1000000", "6"]
    assert r[0]["error"] == "" and r[2]["error"] == ""
    assert r[1]["error"].startswith("topology: this scenario needs about "), r[1]["error"]
    assert "address-space limit (RLIMIT_AS" in r[1]["error"]
    assert int(r[0]["flows_finished"]) == 4 and int(r[2]["flows_finished"]) == 6
    assert not out.with_name("sweep.csv.partial.jsonl").exists()


def test_the_api_runs_points_in_processes_too(scenario):
    df = dcsim.sweep(scenario, {"topology.hosts": [4, 1000000]}, point_memory=200 << 20, jobs=2)
    assert list(df["error"] == "") == [True, False]
    assert "address-space limit" in df["error"][1]


def test_a_point_whose_allocation_fails_records_a_resource_error(tmp_path):
    # A memory limit set above what the point may take: the flows cannot be allocated,
    # an error naming them (ResourceError), and the other points run.
    out = tmp_path / "sweep.csv"
    incast = tmp_path / "incast.toml"
    incast.write_text(
        STAR.replace('type = "permutation"\nsize = "20KB"', 'type = "incast"\nreceiver = "h0"\nsender_count = 3\nsize = "20KB"')
    )
    grid = ["--grid", "traffic[0].flows_per_sender=1,3000000"]
    p = run_cli("sweep", incast, *grid, "--set", "simulation.memory_limit=64GiB", "--point-memory", "200MiB", "--out", out, timeout=600)
    assert p.returncode == 1, p.stderr
    r = rows(out)
    assert r[0]["error"] == "", r[0]["error"]
    assert ": out of memory: could not allocate" in r[1]["error"], r[1]["error"]


def test_a_rerun_reuses_the_points_already_computed(scenario, tmp_path):
    out = tmp_path / "sweep.csv"
    grid = ["--grid", "simulation.seed=1,2,3", "--grid", "traffic[0].size=10KB,20KB"]
    p = run_cli("sweep", scenario, *grid, "--out", out, "--jobs", "2")
    assert p.returncode == 0, p.stderr
    first = out.read_text()
    assert len(rows(out)) == 6 and all(r["scenario_hash"] for r in rows(out))
    p = run_cli("sweep", scenario, *grid, "--out", out)
    assert p.returncode == 0 and "6 of 6 points taken from the earlier run" in p.stderr, p.stderr
    assert out.read_text() == first
    # One more value: only the new points run; the old rows are kept as they were.
    p = run_cli("sweep", scenario, "--grid", "simulation.seed=1,2,3,4", "--grid", "traffic[0].size=10KB,20KB", "--out", out)
    assert p.returncode == 0 and "6 of 8 points taken" in p.stderr, p.stderr
    assert rows(out)[:6] == rows(Path(out))[:6] and len(rows(out)) == 8
    # Other settings (--set) change every point's scenario hash: nothing is reused.
    p = run_cli("sweep", scenario, *grid, "--set", "host.mtu=2048B", "--out", out)
    assert p.returncode == 0 and "taken from the earlier run" not in p.stderr, p.stderr
    # A failed point is tried again.
    bad = ["--grid", "switch.arbitration=per_port,bogus"]
    assert run_cli("sweep", scenario, *bad, "--out", out).returncode == 1
    p = run_cli("sweep", scenario, *bad, "--out", out)
    assert p.returncode == 1 and "1 of 2 points taken" in p.stderr, p.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_killed_sweep_leaves_no_complete_looking_csv_and_resumes(scenario, tmp_path):
    # Enough points that the sweep is still running when the signal lands on a fast machine.
    n = 16
    grid = ["--grid", "simulation.seed=" + ",".join(str(s) for s in range(1, n + 1)), "--set", "simulation.duration=3ms"]
    for i, sig in enumerate((signal.SIGKILL, signal.SIGTERM, signal.SIGINT)):
        out = tmp_path / f"s{i}.csv"
        journal = out.with_name(out.name + ".partial.jsonl")
        # SIGINT at its default disposition, as in a terminal: a shell starts background
        # jobs (and so, at times, this test) with SIGINT ignored, which Python then keeps.
        proc = subprocess.Popen(
            [sys.executable, "-m", "dcsim", "sweep", str(scenario), *grid, "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=interruptible,
        )
        # Kill once two points are journaled.
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_text().count("\n") >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the sweep ended before it could be killed"
        state = signal_state(proc.pid)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode != 0, (sig, state, err.decode()[-400:])
        assert not out.exists(), sig
        done = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
        assert len(done) >= 2 and all(r["error"] == "" for r in done)
        p = run_cli("sweep", scenario, *grid, "--out", out, timeout=600)
        assert p.returncode == 0, p.stderr
        assert f"{len(done)} of {n} points taken from the earlier run" in p.stderr, p.stderr
        assert [r["simulation.seed"] for r in rows(out)] == [str(s) for s in range(1, n + 1)]
        assert not journal.exists()
        assert sorted(f.name for f in tmp_path.iterdir() if f.name.startswith(f"s{i}")) == [out.name]


def test_zip_and_seeded_random_points():
    from dcsim.sweeps import points

    grid = {"a": [1, 2, 3], "b": ["x", "y", "z"]}
    assert list(points(grid, "zip")) == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}]
    r1 = list(points(grid, "random", samples=4, seed=7))
    assert r1 == list(points(grid, "random", samples=4, seed=7))
    assert r1 != list(points(grid, "random", samples=4, seed=8))
    full = list(points(grid))
    assert len({tuple(p.items()) for p in r1}) == 4 and all(p in full for p in r1)
    assert [full.index(p) for p in r1] == sorted(full.index(p) for p in r1)
    assert list(points(grid, "random", samples=9, seed=1)) == full
    with pytest.raises(dcsim.ArgumentError, match="samples: 10 asked of a grid of 9 points"):
        list(points(grid, "random", samples=10))
    with pytest.raises(dcsim.ArgumentError, match="one length"):
        list(points({"a": [1, 2], "b": [1]}, "zip"))


def test_random_mode_on_the_cli_and_a_builder_callable(scenario, tmp_path):
    out = tmp_path / "r.csv"
    p = run_cli(
        "sweep",
        scenario,
        "--grid",
        "topology.hosts=3,4,5,6",
        "--grid",
        "simulation.seed=1,2",
        "--mode",
        "random",
        "--samples",
        "3",
        "--sample-seed",
        "5",
        "--jobs",
        "2",
        "--out",
        out,
    )
    assert p.returncode == 0, p.stderr
    r = rows(out)
    expect = list(dcsim.sweeps.points({"topology.hosts": [3, 4, 5, 6], "simulation.seed": [1, 2]}, "random", 3, 5))
    assert [(int(x["topology.hosts"]), int(x["simulation.seed"])) for x in r] == [
        (q["topology.hosts"], q["simulation.seed"]) for q in expect
    ]

    def build(params):
        return dcsim.Scenario.from_file(scenario).set("topology.hosts", params["hosts"] * 2)

    df = dcsim.sweep(build, {"hosts": [2, 3]}, jobs=2)
    assert list(df["hosts"]) == [2, 3] and list(df["flows_finished"]) == [4, 6]

    def broken(params):
        return {"hosts": 2}["hots"]

    with pytest.raises(dcsim.ArgumentError, match=r"builder raised KeyError: 'hots' \(point \{'hosts': 2\}\)"):
        dcsim.sweep(broken, {"hosts": [2, 3]})


def test_a_point_over_its_timeout_is_stopped_and_recorded(scenario, tmp_path):
    out = tmp_path / "t.csv"
    p = run_cli(
        "sweep",
        scenario,
        "--grid",
        "traffic[0].size=20KB,100GB",
        "--set",
        "simulation.duration=100s",
        "--max-events",
        "1e15",
        "--point-timeout",
        "2",
        "--jobs",
        "2",
        "--out",
        out,
        timeout=120,
    )
    assert p.returncode == 1, p.stderr
    r = rows(out)
    assert r[0]["error"] == ""
    assert r[1]["error"] == "the point ran longer than --point-timeout 2 s and was stopped"
