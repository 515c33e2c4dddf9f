"""Sweep acceptance at full size: a 64-point sweep of the DCQCN 2-to-1 scenario (ECN
kmax x kmin, shortened to 1 ms) with one invalid point (kmin above kmax) runs on the
local process pool and on a local Ray cluster with identical rows and tables; killed
and restarted, it runs only the missing points; the invalid point is reported and the
other 63 land."""

import os
import signal
import subprocess
import sys
import time

import pytest

import dcsim
from conftest import REPO, interruptible, run_cli

DCQCN = REPO / "scenarios" / "dcqcn_2to1.toml"
SETS = ["--set", "simulation.duration=1ms", "--set", "stats.steady_start=100us"]
KMAX = ["10KB", "20KB", "40KB", "60KB", "80KB", "100KB", "150KB", "200KB"]
KMIN = ["1KB", "2KB", "3KB", "4KB", "5KB", "6KB", "8KB", "12KB"]  # only 12KB > 10KB is invalid
GRID = ["--grid", "switch.ecn.kmax=" + ",".join(KMAX), "--grid", "switch.ecn.kmin=" + ",".join(KMIN)]
N = len(KMAX) * len(KMIN)


def sweep_cmd(store, *args):
    return [sys.executable, "-m", "dcsim", "sweep", str(DCQCN), *SETS, *GRID, "--jobs", "2", "--store", str(store), *map(str, args)]


@pytest.fixture(scope="module")
def pool_store(tmp_path_factory):
    store = tmp_path_factory.mktemp("pool") / "s"
    p = run_cli(*sweep_cmd(store)[3:], timeout=600)
    assert p.returncode == 1, p.stderr
    assert f"1 of {N} points failed" in p.stderr, p.stderr
    return store


def assert_same_store(a, b):
    sa, sb = dcsim.open_store(a), dcsim.open_store(b)
    ra, rb = sa.runs(), sb.runs()
    assert len(ra) == N
    assert ra.equals(rb)
    assert sa.table_names() == sb.table_names()
    for name in sa.table_names():
        assert sa.table(name).equals(sb.table(name)), name


def test_the_invalid_point_is_reported_and_the_others_land(pool_store):
    st = dcsim.open_store(pool_store)
    r = st.runs()
    assert len(r) == N
    bad = r[r["error"] != ""]
    assert list(zip(bad["switch.ecn.kmax"], bad["switch.ecn.kmin"])) == [("10KB", "12KB")]
    assert "switch.ecn.kmin: must be <= kmax" in bad["error"].iloc[0], bad["error"].iloc[0]
    ok = r[r["error"] == ""]
    assert len(ok) == N - 1 and ok["run_id"].nunique() == N - 1
    assert ok["ecn_marked"].nunique() > 1, "the settings change the results"
    assert set(st.table("flows")["run_id"]) == set(ok["run_id"])
    assert set(st.table("ports")["run_id"]) == set(ok["run_id"])


def ray_processes():
    """Pids of Ray's daemons and workers on this machine."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if any(k in cmd for k in (b"raylet", b"gcs_server", b"ray::", b"ray/_private", b"default_worker.py")):
            found.add(int(pid))
    return found


def test_ray_stores_the_rows_and_tables_of_the_pool(pool_store, tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'dcsim[ray]'): the Ray backend is not tested")
    before = ray_processes()
    store = tmp_path / "ray"
    p = run_cli(*sweep_cmd(store, "--backend", "ray")[3:], timeout=600)
    assert p.returncode == 1, p.stderr
    assert f"1 of {N} points failed" in p.stderr, p.stderr
    assert_same_store(pool_store, store)
    # The local Ray the sweep started is shut down with it.
    deadline = time.monotonic() + 30
    while ray_processes() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not ray_processes() - before, "Ray processes were left behind"


def test_a_killed_sweep_resumes_with_the_missing_points_only(pool_store, tmp_path):
    store = tmp_path / "s"
    env = dict(os.environ)
    proc = subprocess.Popen(sweep_cmd(store), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, preexec_fn=interruptible)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and len(list((store / "runs").glob("*.parquet"))) < N // 4:
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = dcsim.open_store(store).runs()
    assert N // 4 <= len(before) < N, "the sweep was not killed in the middle"
    done = int((before["error"] == "").sum())
    p = run_cli(*sweep_cmd(store)[3:], timeout=600)
    assert p.returncode == 1, p.stderr
    # Only the missing points ran (and the failed one, tried again).
    assert f"{done} of {N} points taken from the earlier run" in p.stderr, p.stderr
    assert_same_store(pool_store, store)
    assert not list(store.rglob(".*tmp*")), "a temporary file was left behind"
