"""Collectives and jobs reach Python as the engine's other tables do: DataFrames on
Results, Parquet files in a run directory and views in the results store."""

import dcsim
from conftest import REPO, run_cli

RING = REPO / "scenarios" / "ai_ring_allreduce.toml"


def test_collectives_and_jobs_tables_as_frames():
    r = dcsim.run(RING)
    c = r.table("collectives")
    j = r.table("jobs")
    assert len(c) == 6 and len(j) == 3
    assert set(c["kind"]) == {"all_reduce"} and set(c["algorithm"]) == {"ring"}
    assert (c["duration_ps"] == c["finish_ps"] - c["start_ps"]).all()
    # nccl-tests: busbw = algbw x 2 (n - 1) / n for all-reduce.
    assert ((c["busbw_bps"] / c["algbw_bps"] - 2 * 15 / 16).abs() < 1e-12).all()
    assert (j["exposed_ps"] == j["iteration_ps"] - j["compute_ps"]).all()
    assert (j["slowdown"] > 1).all()
    s = r.summary["jobs"][0]
    assert s["job"] == "dp16" and s["iterations_done"] == 3
    # Sweeps report each job's iteration times.
    m = dcsim.sweeps.metrics(r)
    assert m["iterations_done_dp16"] == 3
    assert m["iteration_mean_ps_dp16"] == j["iteration_ps"].mean()
    assert m["job_slowdown_mean_dp16"] > 1


def test_collectives_in_the_store(tmp_path):
    store = tmp_path / "store"
    p = run_cli("run", str(RING), "--store", str(store), "-o", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    st = dcsim.store.open_store(store)
    assert {"collectives", "jobs"} <= set(st.table_names())
    n = st.sql("SELECT count(*) AS n, max(iteration) AS last FROM jobs").iloc[0]
    assert (n["n"], n["last"]) == (3, 2)
    assert (tmp_path / "out" / "collectives.parquet").exists()


def test_plot_and_report_draw_the_jobs(tmp_path):
    out = tmp_path / "run"
    assert run_cli("run", str(RING), "-o", str(out)).returncode == 0
    p = run_cli("plot", "jobs", str(out), "--out", str(tmp_path / "jobs.png"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "jobs.png").stat().st_size > 1000
    p = run_cli("report", str(out), "--out", str(tmp_path / "r.html"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "r_png" / "jobs.png").exists() and (tmp_path / "r_png" / "collectives.png").exists()
    # A run without jobs has nothing for the jobs figure.
    p = run_cli("plot", "jobs", str(tmp_path / "none"), "--out", str(tmp_path / "x.png"))
    assert p.returncode != 0
