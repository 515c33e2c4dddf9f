"""Results store: sweeps and runs land in a DuckDB-over-Parquet store, one row per
point, the same rows whatever the number of workers; a killed sweep resumes with the
missing points only; failed points are recorded; bad input makes no store."""

import signal
import subprocess
import sys
import time

import pytest

import dcsim
from conftest import REPO, run_cli

DCQCN = REPO / "scenarios" / "dcqcn_2to1.toml"
SHORT = ["--set", "simulation.duration=2ms", "--set", "stats.steady_start=500us"]
TINY = ["--set", "simulation.duration=300us", "--set", "stats.steady_start=100us"]
# The web-search workload on a small leaf-spine with DCQCN, short enough for seconds.
WEBSEARCH = REPO / "scenarios" / "leaf_spine_websearch.toml"
WEB_SETS = [
    "--set",
    "simulation.duration=8ms",
    "--set",
    "traffic[0].stop=6ms",
    "--set",
    "stats.steady_start=0us",
    "--set",
    "topology.leaves=2",
    "--set",
    "topology.hosts_per_leaf=4",
    "--set",
    "switch.ecn.mode=red",
    "--set",
    "switch.ecn.kmin=5KB",
    "--set",
    "switch.ecn.pmax=0.01",
    "--set",
    "host.cc.type=dcqcn",
]


def sweep(store, *args, jobs=1, timeout=600):
    return run_cli("sweep", DCQCN, *SHORT, "--jobs", jobs, "--store", store, *args, timeout=timeout)


def test_one_and_two_workers_store_identical_rows(tmp_path):
    grid = ["--grid", "switch.ecn.kmax=50KB,100KB,200KB,400KB"]
    p1 = sweep(tmp_path / "s1", *grid, jobs=1)
    p2 = sweep(tmp_path / "s2", *grid, jobs=2)
    assert p1.returncode == 0, p1.stderr
    assert p2.returncode == 0, p2.stderr
    a, b = dcsim.open_store(tmp_path / "s1"), dcsim.open_store(tmp_path / "s2")
    ra, rb = a.runs(), b.runs()
    assert len(ra) == 4 and (ra["error"] == "").all()
    assert sorted(ra["switch.ecn.kmax"]) == sorted(["50KB", "100KB", "200KB", "400KB"])
    assert ra.equals(rb)
    # A different kmax changes the results (the rows are not all alike).
    assert ra["ecn_marked"].nunique() > 1
    for name in ("flows", "ports"):
        fa, fb = a.table(name), b.table(name)
        assert len(fa) and set(fa["run_id"]) == set(ra["run_id"])
        assert fa.equals(fb)


def test_a_killed_sweep_resumes_with_the_missing_points_only(tmp_path):
    store = tmp_path / "s"
    grid = ["--grid", "switch.ecn.kmax=50KB,100KB,200KB,400KB"]
    cmd = [sys.executable, "-m", "dcsim", "sweep", str(DCQCN), *SHORT, "--jobs", "1", "--store", str(store), *grid]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and len(list((store / "runs").glob("*.parquet"))) < 1:
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    done = len(dcsim.open_store(store).runs())
    assert 1 <= done < 4, "the sweep was not killed in the middle"
    p = sweep(store, *grid)
    assert p.returncode == 0, p.stderr
    assert f"{done} of 4 points taken from the earlier run" in p.stderr
    st = dcsim.open_store(store)
    r = st.runs()
    assert len(r) == 4 and (r["error"] == "").all()
    assert set(st.table("flows")["run_id"]) == set(r["run_id"])
    assert not list(store.rglob(".*tmp*")), "a temporary file was left behind"


def test_an_invalid_point_is_recorded_and_the_others_land(tmp_path):
    p = sweep(tmp_path / "s", "--grid", "switch.ecn.kmax=100KB,banana,200KB")
    assert p.returncode == 1, p.stderr
    st = dcsim.open_store(tmp_path / "s")
    r = st.runs().set_index("switch.ecn.kmax")
    assert sorted(r.index) == ["100KB", "200KB", "banana"]
    assert "kmax" in r.loc["banana", "error"], r.loc["banana", "error"]
    assert r.loc["100KB", "error"] == "" and r.loc["200KB", "error"] == ""
    # The failed point has no tables; the others do.
    assert set(st.table("flows")["run_id"]) == set(r.loc[["100KB", "200KB"], "run_id"])


def test_one_query_finds_the_best_kmax_per_load(tmp_path):
    store = tmp_path / "s"
    p = run_cli(
        "sweep",
        WEBSEARCH,
        *WEB_SETS,
        "--jobs",
        2,
        "--store",
        store,
        "--grid",
        "traffic[0].load=0.3,0.6",
        "--grid",
        "switch.ecn.kmax=20KB,400KB",
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    st = dcsim.open_store(store)
    best = st.sql("""
        SELECT "traffic[0].load" AS load,
               arg_min("switch.ecn.kmax", slowdown_p99_cdf_0) AS best_kmax,
               min(slowdown_p99_cdf_0) AS p99_slowdown
        FROM runs WHERE error = '' GROUP BY load ORDER BY load""")
    print("\n" + best.to_string(index=False))
    assert list(best["load"]) == [0.3, 0.6]
    runs = st.runs()
    for row in best.itertuples():
        pts = runs[runs["traffic[0].load"] == row.load]
        assert (pts["finished_cdf_0"] >= 20).all()
        assert row.p99_slowdown == pts["slowdown_p99_cdf_0"].min()
        assert row.best_kmax == pts.loc[pts["slowdown_p99_cdf_0"].idxmin(), "switch.ecn.kmax"]


def test_run_store_adds_one_row_per_run(tmp_path):
    store = tmp_path / "s"
    for kmax in ("100KB", "200KB"):
        p = run_cli("run", DCQCN, *SHORT, "--set", f"switch.ecn.kmax={kmax}", "--quiet", "--out", tmp_path / kmax, "--store", store)
        assert p.returncode == 0, p.stderr
    st = dcsim.open_store(store)
    r = st.runs()
    assert sorted(r["switch.ecn.kmax"]) == ["100KB", "200KB"]
    assert (r["flows_finished"] >= 0).all()
    res = dcsim.load_run(tmp_path / "100KB")
    assert res.summary["run_id"] in set(r["run_id"])
    assert len(st.table("flows")) == 2 * len(res.flows)
    # The Python sweep API writes the same store format.
    st2 = tmp_path / "py"
    df = dcsim.sweep(DCQCN, {"switch.ecn.kmax": ["100KB", "200KB"]}, overrides=SHORT[1::2], store=st2)
    rows = dcsim.open_store(st2).runs().sort_values("switch.ecn.kmax").reset_index(drop=True)
    assert list(rows["flows_finished"]) == list(df.sort_values("switch.ecn.kmax")["flows_finished"])
    runs = r.sort_values("switch.ecn.kmax").reset_index(drop=True)
    assert list(rows["ecn_marked"]) == list(runs["ecn_marked"])


def test_bad_input_makes_no_store(tmp_path):
    with pytest.raises(dcsim.OutputError, match="does not exist"):
        dcsim.open_store(tmp_path / "nowhere")
    store = tmp_path / "s"
    p = run_cli("sweep", tmp_path / "missing.toml", "--grid", "switch.ecn.kmax=1KB", "--store", store)
    assert p.returncode != 0 and "missing.toml" in p.stderr
    p = run_cli("sweep", DCQCN, "--grid", "switch.ecn.kmax=", "--store", store)
    assert p.returncode != 0 and "--grid" in p.stderr
    with pytest.raises(dcsim.ArgumentError, match="has no values"):
        dcsim.sweep(DCQCN, {"switch.ecn.kmax": []}, store=store)
    assert not store.exists()


def test_the_speedup_script_runs():
    """scripts/sweep_speedup.py (docs/store.md, Speed) on a tiny sweep: one pair, its
    ratio and the CPU figures printed."""
    p = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "sweep_speedup.py"), "--pairs", "1", "--points", "2", *TINY],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "median ratio" in p.stdout and "CPU per point" in p.stdout, p.stdout


def test_ray_errors_name_the_option(tmp_path):
    store = tmp_path / "s"
    p = run_cli(
        "sweep", DCQCN, "--grid", "switch.ecn.kmax=1KB", "--backend", "ray", "--ray-address", "127.0.0.1:1", "--store", store, timeout=60
    )
    assert p.returncode != 0
    try:
        import ray  # noqa: F401

        assert "--ray-address 127.0.0.1:1: cannot start or reach Ray" in p.stderr, p.stderr
    except ImportError:
        assert "--backend ray: Ray is not installed" in p.stderr, p.stderr
    assert not store.exists()


def test_run_ids_follow_the_settings_not_their_spelling(tmp_path):
    """The same scenario, settings and seed give one id however the settings are
    written; another setting or seed gives another id."""
    base = TINY[1::2]
    sc = dcsim.load(DCQCN, overrides=base)
    rid = lambda *o: dcsim.run(sc, overrides=list(o)).summary["run_id"]  # noqa: E731
    a = rid("switch.ecn.kmax=100KB")
    assert a == rid('switch.ecn.kmax="100KB"') == rid("switch.ecn.kmax=7KB", "switch.ecn.kmax=100KB")
    assert a.startswith("dcqcn_2to1-")
    assert rid() == rid("switch.ecn.kmax=200KB")  # the file's own kmax
    others = {rid(), rid("switch.ecn.kmax=100KB", "simulation.seed=2"), rid("switch.ecn.kmax=100KB", "simulation.seed=3")}
    assert a == rid("switch.ecn.kmax=100KB", "simulation.seed=1")  # the file's own seed
    assert len(others) == 3 and a not in others
    # `dcsim run --set` and a sweep point of the same value are one run in a store.
    store = tmp_path / "s"
    p = run_cli("run", DCQCN, *TINY, "--set", "switch.ecn.kmax=100KB", "--quiet", "--out", tmp_path / "o", "--store", store)
    assert p.returncode == 0, p.stderr
    dcsim.sweep(DCQCN, {"switch.ecn.kmax": ["100KB"]}, overrides=base, store=store)
    assert list(dcsim.open_store(store).runs()["run_id"]) == [a]


def test_a_point_that_failed_keeps_its_id_when_it_runs(tmp_path):
    """A point that failed (here: over its memory limit) and runs on resume replaces
    its failed row: the failed row has the id the run gets, from the scenario's name
    (not the file's)."""
    other = tmp_path / "renamed.toml"
    other.write_text(DCQCN.read_text())
    store = tmp_path / "s"
    grid = ["--grid", "switch.ecn.kmax=100KB,200KB"]
    sets = TINY
    p = run_cli("sweep", other, *sets, "--store", store, "--point-memory", "1", *grid)
    assert p.returncode == 1
    failed = dcsim.open_store(store).runs()
    assert len(failed) == 2 and (failed["error"] != "").all()
    p = run_cli("sweep", other, *sets, "--store", store, *grid)
    assert p.returncode == 0, p.stderr
    r = dcsim.open_store(store).runs()
    assert len(r) == 2 and (r["error"] == "").all()
    assert sorted(r["run_id"]) == sorted(failed["run_id"])
    assert all(x.startswith("dcqcn_2to1-") for x in r["run_id"])


def test_a_sweep_removes_the_temporary_files_a_killed_writer_left(tmp_path):
    store = tmp_path / "s"
    dcsim.store.Store(store, create=True)
    left = [store / "runs" / ".x-0123.parquet.tmp-99999", store / "tables" / "flows" / ".x-0123.parquet.tmp-99999"]
    for f in left:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"partial")
    p = sweep(store, "--grid", "switch.ecn.kmax=100KB")
    assert p.returncode == 0, p.stderr
    assert not any(f.exists() for f in left)
    assert len(dcsim.open_store(store).runs()) == 1
