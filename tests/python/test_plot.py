"""dcsim plot: figures drawn with warnings as errors; no data is an error, not an empty PNG."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import dcsim
from dcsim import plot

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def dcsim_cli(*args):
    return subprocess.run([sys.executable, "-W", "error", "-m", "dcsim", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def run_dir(tmp_path, scenario, *sets, name=None):
    d = tmp_path / (name or Path(scenario).stem)
    dcsim.run(ROOT / "scenarios" / scenario, overrides=list(sets)).write(d)
    return d


def test_seed000_plots_goodput_and_the_largest_queue(tmp_path):
    # No congestion control: no rate changes. The top panel shows goodput series.
    d = run_dir(tmp_path, "seed000_parking_lot_pfc.toml", "simulation.duration=4ms", "stats.steady_start=2ms")
    res = dcsim.load_run(d)
    assert len(res.rates) == 0
    label, lines = plot._rate_lines(res)
    assert label.startswith("goodput") and len(lines) == 4
    assert plot._queue(res, None)[0] == "S1->S2"
    out = plot.render([str(d)], str(tmp_path / "p.png"))
    assert out.read_bytes()[:8] == PNG


def test_seed002_side_by_side_with_references(tmp_path):
    dirs = [run_dir(tmp_path, f"seed002_{m}.toml", "simulation.duration=30ms", "stats.steady_start=10ms") for m in ("bcn", "efecn")]
    res = dcsim.load_run(dirs[0])
    assert plot._q_eq(res) == 24000
    t, share = plot._fair_share(res)
    assert share[(t >= 5) & (t < 30)].max() == pytest.approx(2.5)  # 10 Gb/s over 4 flows
    out = plot.render([str(d) for d in dirs], str(tmp_path / "p.png"), queue="CS:DU")
    assert out.read_bytes()[:8] == PNG
    assert len({plot._style(i, 100)["linestyle"] for i in range(4)}) == 4  # overlapping lines differ


def test_no_data_is_an_error(tmp_path):
    d = run_dir(
        tmp_path,
        "seed000_parking_lot_pfc.toml",
        "simulation.duration=1ms",
        "stats.steady_start=0.5ms",
        "stats.sample_interval=off",
        "stats.goodput_interval=off",
    )
    png = tmp_path / "empty.png"
    with pytest.raises(plot.NoData):
        plot.render([str(d)], str(png))
    assert not png.exists()
    p = dcsim_cli("plot", d, "--out", png)
    assert p.returncode == 1 and "nothing to plot" in p.stderr and not png.exists()
    p = dcsim_cli("plot", "fct", d, "--out", png)  # long-lived flows only: no FCT
    assert p.returncode == 1 and "no finished flow" in p.stderr and not png.exists()


def test_pauses_plot_ranks_the_paused_switches(tmp_path, monkeypatch):
    from dcsim import analysis, style

    d = run_dir(tmp_path, "seed000_parking_lot_pfc.toml", "simulation.duration=2ms", "stats.steady_start=1ms")
    res = dcsim.load_run(d)
    t = analysis.pause_by_switch(res)
    assert (t["paused_ps"] > 0).any()
    problems = []
    orig = style.save
    monkeypatch.setattr(style, "save", lambda fig, *a, **k: (problems.extend(style.check(fig)), orig(fig, *a, **k))[1])
    p = dcsim_cli("plot", "pauses", d, "--out", tmp_path / "pauses.png")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "pauses.png").read_bytes()[:8] == PNG
    fig, ax = plot.pyplot().subplots()
    assert plot.pauses_panel(ax, res)
    labels = [x.get_text() for x in ax.get_yticklabels()]
    paused = t[t["paused_ps"] > 0]["node"].tolist()
    assert labels == paused[: plot.MAX_SWITCHES][::-1]  # most paused on top
    plot.render_pauses([str(d)], str(tmp_path / "p2.png"))
    assert problems == []


def test_fct_plot_of_two_runs(tmp_path):
    a = run_dir(tmp_path, "leaf_spine_websearch.toml", "simulation.duration=1500us", name="a")
    b = run_dir(tmp_path, "leaf_spine_websearch.toml", "simulation.duration=1500us", "switch.arbitration=per_flow", name="b")
    png = tmp_path / "fct.png"
    p = dcsim_cli("plot", "fct", a, b, "--title", "fifo", "--title", "per flow", "--out", png)
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == PNG
    out = plot.render_fct([str(a)], str(tmp_path / "e.png"), edges=[1e4, 1e5, 1e6, 1e7])
    assert out.read_bytes()[:8] == PNG


def test_fair_share_follows_a_rate_schedule(tmp_path):
    # Seed 003: the switch port toward DST runs at 950, 200, then 950 Mb/s.
    d = run_dir(tmp_path, "seed003_qcn_step.toml", "simulation.duration=7.5s", "stats.steady_start=1s")
    t, share = plot._fair_share(dcsim.load_run(d))
    at = {float(a): float(b) for a, b in zip(t, share)}
    assert at[0.0] == pytest.approx(0.95) and at[3700.0] == pytest.approx(0.2) and at[7400.0] == pytest.approx(0.95)
    out = plot.render([str(d)], str(tmp_path / "p.png"), queue="SW:DST")
    assert out.read_bytes()[:8] == PNG


def test_docs_figures_are_small_pngs():
    for name in ("seed000", "seed002", "seed003", "fct"):
        data = (ROOT / "docs" / "figures" / f"{name}.png").read_bytes()
        assert data[:8] == PNG and len(data) < 64 * 1024, name
