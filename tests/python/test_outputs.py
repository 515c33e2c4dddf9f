"""Run directories are written whole or not at all: an unusable --out is refused before
the simulation, an earlier run is never mixed with a new one, an IO error names the file,
and a run killed at any moment leaves no directory that looks complete but is not."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dcsim
from conftest import REPO, run_cli

SCENARIO = REPO / "scenarios" / "seed000_parking_lot_pfc.toml"
LONG = ["--set", "simulation.duration=100s", "--max-events", "1e15"]
SHORT = ["simulation.duration=1ms", "stats.steady_start=0.5ms"]


def test_empty_out_is_refused(tmp_path):
    p = run_cli("run", SCENARIO, "--out", "", "--quiet", cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.startswith("error: --out must not be empty"), p.stderr
    assert list(tmp_path.iterdir()) == []
    for bad in (".", ".."):
        p = run_cli("run", SCENARIO, "--out", bad, "--quiet", *LONG, cwd=tmp_path, timeout=60)
        assert p.returncode == 1 and "does not name a directory that can be replaced" in p.stderr, p.stderr


@pytest.mark.parametrize("where", ["under_a_file", "in_proc"])
def test_unwritable_out_is_found_before_the_run(tmp_path, where):
    (tmp_path / "file.txt").write_text("x")
    out = tmp_path / "file.txt" / "run" if where == "under_a_file" else Path("/proc/dcsim-no-such-dir/run")
    t0 = time.monotonic()
    p = run_cli("run", SCENARIO, "--out", out, "--quiet", *LONG, timeout=120)  # 100 s if it ran
    assert p.returncode == 1, p.stderr
    assert time.monotonic() - t0 < 60
    assert p.stderr.startswith("error: ") and str(out.parent) in p.stderr and "Traceback" not in p.stderr, p.stderr
    # An existing file as the output directory.
    p = run_cli("run", SCENARIO, "--out", tmp_path / "file.txt", "--quiet", *LONG, timeout=120)
    assert p.returncode == 1 and f"{tmp_path / 'file.txt'}: exists and is not a directory" in p.stderr, p.stderr


def test_overwrite_clears_the_earlier_run(tmp_path):
    out = tmp_path / "out"
    sets = [a for s in SHORT for a in ("--set", s)]
    assert run_cli("run", SCENARIO, "--out", out, "--quiet", *sets).returncode == 0
    assert (out / "flows.parquet").exists()
    p = run_cli("run", SCENARIO, "--out", out, "--quiet", "--csv", *sets)
    assert p.returncode == 1 and "output directory exists and is not empty" in p.stderr
    assert (out / "flows.parquet").exists() and not (out / "flows.csv").exists()
    p = run_cli("run", SCENARIO, "--out", out, "--quiet", "--csv", "--overwrite", *sets)
    assert p.returncode == 0, p.stderr
    names = {f.name for f in out.iterdir()}
    assert "flows.csv" in names and not any(n.endswith(".parquet") for n in names)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out"]


def test_results_write_refuses_an_earlier_run_unless_overwrite(tmp_path):
    res = dcsim.run(SCENARIO, overrides=SHORT)
    res.write(tmp_path / "a")
    with pytest.raises(dcsim.OutputError, match="output directory exists and is not empty"):
        res.write(tmp_path / "a", fmt="csv")
    written = res.write(tmp_path / "a", fmt="csv", overwrite=True)
    assert all(p.parent == tmp_path / "a" and p.exists() for p in written.values())
    assert not list((tmp_path / "a").glob("*.parquet"))
    assert sorted(f.name for f in tmp_path.iterdir()) == ["a"]


_FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # writes past the limit fail with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
from dcsim.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_an_io_error_while_writing_names_the_file(tmp_path):
    """A file-size limit stands in for a full disk: the write fails part way."""
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, "run", str(SCENARIO), "--out", str(out), "--quiet", "--set", "simulation.duration=3ms"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1, p.stderr
    line = p.stderr.strip()
    assert line.startswith(f"error: {tmp_path}/.out.partial-") and "Traceback" not in line, line
    name = line.split(": ")[1]
    assert Path(name).suffix in (".parquet", ".json", ".toml"), line
    assert "file too large" in line, line
    assert list(tmp_path.iterdir()) == []  # nothing that looks like a run, nothing left over


def _complete(d: Path, names) -> bool:
    return (d / "summary.json").exists() and {f.name for f in d.iterdir()} == names and dcsim.load_run(d) is not None


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_run_killed_at_any_moment_leaves_no_directory_that_looks_complete(tmp_path):
    args = ["run", str(SCENARIO), "--quiet", "--set", "simulation.duration=5ms", "--set", "stats.steady_start=1ms"]
    ref = tmp_path / "ref"
    t0 = time.monotonic()
    p = run_cli(*args, "--out", ref)
    total = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    names = {f.name for f in ref.iterdir()}
    outcomes = {"complete": 0, "absent": 0}
    for i, (frac, sig) in enumerate(
        (f, s) for f in (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0) for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
    ):
        d = tmp_path / f"k{i}"
        d.mkdir()
        proc = subprocess.Popen(
            [sys.executable, "-m", "dcsim", *args, "--out", str(d / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        time.sleep(frac * total)
        proc.send_signal(sig)
        proc.communicate(timeout=120)
        out = d / "out"
        if out.exists():
            assert _complete(out, names), (frac, sig, sorted(f.name for f in out.iterdir()))
            outcomes["complete"] += 1
        else:
            outcomes["absent"] += 1
        # Whatever else is left is the hidden staging directory of a killed process.
        for f in d.iterdir():
            if f.name != "out":
                assert f.name.startswith(".out.partial-") and sig == signal.SIGKILL, (frac, sig, f.name)
    assert outcomes["absent"] > 0, outcomes
