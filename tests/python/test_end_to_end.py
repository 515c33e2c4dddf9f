"""End-to-end tests through the engine on the seed parking-lot scenario (or
``$DCSIM_TEST_SCENARIO``)."""

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dcsim
from conftest import REPO, interruptible, signal_state


def _scenario_file() -> Path:
    env = os.environ.get("DCSIM_TEST_SCENARIO")
    if env:
        return Path(env)
    return REPO / "scenarios" / "seed000_parking_lot_pfc.toml"


@pytest.fixture
def scenario_file():
    return _scenario_file()


def test_run_returns_dataframes(scenario_file):
    res = dcsim.run(scenario_file)
    for name in ("flows", "ports", "nodes", "links"):
        assert name in res.names
    assert len(res.nodes) > 0 and len(res.flows) > 0
    assert "goodput_steady_gbps" in res.flows.columns
    for name in ("pfc_events", "samples", "goodput"):
        res.table(name)  # present or empty, never an error
    s = res.summary
    assert s["scenario_hash"] and "seed" in s and "version" in s


def test_run_is_deterministic(scenario_file):
    a = dcsim.run(scenario_file)
    b = dcsim.run(scenario_file)
    assert a.flows.equals(b.flows)


def test_scenario_round_trip_gives_same_plan(scenario_file, tmp_path):
    sc = dcsim.load(scenario_file)
    saved = dcsim.Scenario.from_dict(sc.to_dict(), base_dir=scenario_file.parent)
    assert saved.validate().name == sc.name
    assert saved.duration_ps == sc.duration_ps


def test_validate_ok(cli, scenario_file):
    p = cli("validate", scenario_file)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ok: ") and "nodes" in p.stdout and "flows" in p.stdout
    # The memory estimate, against the limit.
    assert "\nmemory: about " in p.stdout and "GiB for " in p.stdout and "the limit is 16.00 GiB" in p.stdout
    # The event estimate beside it, naming its terms.
    assert "\nevents: about " in p.stdout and "frames of traffic[0]" in p.stdout and "the limit is 2e+09" in p.stdout


def test_validate_event_limit_and_its_flag(cli, scenario_file):
    p = cli("validate", scenario_file, "--max-events", "10")
    assert p.returncode == 1 and p.stderr.startswith("error: ") and "events" in p.stderr and "simulation.max_events" in p.stderr
    assert "Traceback" not in p.stderr
    p = cli("validate", scenario_file, "--set", "stats.sample_interval=1ps", "--max-events", "1e15")
    assert p.returncode == 0, p.stderr
    assert "the limit is 1e+15" in p.stdout
    p = cli("validate", scenario_file, "--max-events", "zero")
    assert p.returncode == 2


def test_validate_malformed_names_field(cli, scenario_file, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("bogus_field_xyz = 1\n" + scenario_file.read_text())
    p = cli("validate", bad)
    assert p.returncode == 1
    assert p.stderr.startswith("error: ") and "bogus_field_xyz" in p.stderr
    assert "Traceback" not in p.stderr


def test_validate_bad_override(cli, scenario_file):
    p = cli("validate", scenario_file, "--set", "duration=fast")
    assert p.returncode == 1
    assert "duration" in p.stderr and "Traceback" not in p.stderr


def test_cli_run_writes_parquet_and_summary(cli, scenario_file, tmp_path):
    out = tmp_path / "out"
    p = cli("run", scenario_file, "--out", out)
    assert p.returncode == 0, p.stderr
    assert (out / "flows.parquet").exists() and (out / "summary.json").exists()
    assert (out / "scenario.toml").exists()
    assert json.loads((out / "summary.json").read_text())["scenario_hash"]
    assert "PFC frames" in p.stdout and str(out) in p.stdout


def test_cli_run_csv_quiet(cli, scenario_file, tmp_path):
    out = tmp_path / "csv"
    p = cli("run", scenario_file, "--out", out, "--csv", "--quiet")
    assert p.returncode == 0, p.stderr
    assert (out / "flows.csv").exists() and p.stdout == ""


def _communicate_or_fail(proc):
    """The output of a run told to stop; fails with its signal masks if it goes on."""
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        state = signal_state(proc.pid)
        proc.kill()
        proc.communicate()
        pytest.fail(f"the run went on 30 s after the signal ({state})")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_a_long_run(scenario_file, tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dcsim",
            "run",
            str(scenario_file),
            "--set",
            "simulation.duration=100s",
            "--max-events",
            "1e15",
            "--out",
            str(tmp_path / "out"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    # Interrupt once the simulation is running (its progress bar is drawn), not at a
    # fixed time: on a loaded machine the imports alone can take seconds.
    ready, _, _ = select.select([proc.stderr], [], [], 120)
    first = proc.stderr.read(1) if ready else ""
    assert first and proc.poll() is None, f"the 100 s run ended early: {proc.communicate()}"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = _communicate_or_fail(proc)
    err = first + err
    assert proc.returncode == 130
    assert time.monotonic() - t0 < 5
    assert "Traceback" not in err
    # Nothing written: no output directory, no half-written file.
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_stops_a_long_run_and_writes_nothing(scenario_file, tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dcsim",
            "run",
            str(scenario_file),
            "--set",
            "simulation.duration=100s",
            "--max-events",
            "1e15",
            "--out",
            str(tmp_path / "out"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    time.sleep(2.0)
    assert proc.poll() is None, f"the 100 s run ended early: {proc.communicate()}"
    proc.send_signal(signal.SIGTERM)
    _, err = _communicate_or_fail(proc)
    assert proc.returncode == 143, err
    assert "terminated" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_cli_run_never_mixes_outputs(cli, scenario_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.csv").write_text("x\n")
    p = cli("run", scenario_file, "--out", out, "--quiet")
    assert p.returncode == 1
    assert f"error: {out}: output directory exists and is not empty (use --overwrite" in p.stderr
    assert sorted(f.name for f in out.iterdir()) == ["stale.csv"]
    p = cli("run", scenario_file, "--out", out, "--quiet", "--overwrite")
    assert p.returncode == 0, p.stderr
    names = sorted(f.name for f in out.iterdir())
    assert "stale.csv" not in names and "summary.json" in names
    # Written under a temporary name and renamed: nothing else is left beside it.
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out"]
    # An empty directory is fine without --overwrite.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("run", scenario_file, "--out", empty, "--quiet").returncode == 0
