"""Every figure in one style (dcsim.style): text inside the canvas, at most eight
legend entries, no offset labels, units in the axis labels, log axes over a decade, and
SVG and PDF beside each PNG."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import dcsim  # noqa: E402
from dcsim import cli, plot, report, style  # noqa: E402

GROUPS = 4
SCENARIO = """
[simulation]
duration = "300us"
[topology]
type = "star"
hosts = 7
rate = "40Gbps"
delay = "1us"
[switch.ecn]
mode = "red"
kmin = "5KB"
kmax = "50KB"
pmax = 0.2
[host.cc]
type = "dcqcn"
[stats]
sample_interval = "5us"
""" + "".join(
    f"""
[[traffic]]
type = "incast"
name = "burst{i}"
receiver = "h0"
senders = ["h{i + 1}", "h{i + 2}", "h{i + 3}"]
size = "{20 * (i + 1)}KB"
start = "{20 * i}us"
"""
    for i in range(GROUPS)
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fig")
    f = d / "s.toml"
    f.write_text(SCENARIO)
    assert cli.main(["run", str(f), "--out", str(d / "run"), "--quiet"]) == 0
    return d / "run"


@pytest.fixture
def checked(monkeypatch):
    """Every figure saved through the style is checked before it is written."""
    problems = []
    for mod, name in ((style, "save"), (style, "render")):
        orig = getattr(mod, name)

        def wrap(fig, *a, _orig=orig, **k):
            problems.extend(style.check(fig))
            return _orig(fig, *a, **k)

        monkeypatch.setattr(mod, name, wrap)
    return problems


def test_plot_figures_pass_the_style_and_come_with_vectors(run_dir, tmp_path, checked):
    figures = (
        (["plot", str(run_dir)], "rates.png"),
        (["plot", "fct", str(run_dir)], "fct.png"),
        (["plot", "cdf", str(run_dir)], "cdf.png"),
    )
    for argv, out in figures:
        assert cli.main([*argv, "--out", str(tmp_path / out)]) == 0
        for ext in ("png", "svg", "pdf"):
            assert (tmp_path / out).with_suffix(f".{ext}").stat().st_size > 0
    assert checked == []


def test_fct_pools_groups_a_legend_could_not_name(run_dir):
    res = dcsim.load_run(run_dir)
    t = plot.fct_table(res, [50, 95, 99])  # 4 groups x 3 percentiles > 8 lines
    assert set(t["group_name"]) == {"all"}
    assert set(plot.fct_table(res, [99])["group_name"]) == {f"burst{i}" for i in range(GROUPS)}  # 4 lines: each group


def test_cdf_draws_one_line_per_group_up_to_one(run_dir):
    res = dcsim.load_run(run_dir)
    fig, ax = plot.pyplot().subplots()
    assert plot.cdf_panel(ax, res) == GROUPS
    for line in ax.get_lines():
        y = line.get_ydata()
        assert y[-1] == pytest.approx(1.0) and (y[1:] >= y[:-1]).all()
    assert ax.get_xscale() == "log"
    fig2, ax2 = plot.pyplot().subplots()
    assert plot.cdf_panel(ax2, res, groups="all") == 1


def test_report_figures_pass_the_style_and_come_with_vectors(run_dir, tmp_path, checked):
    out, pngs, plots = report.write_report(run_dir, tmp_path / "r.html", vectors=True)
    drawn = [p for p in plots if p.png is not None]
    assert drawn and checked == []
    for p in drawn:
        for ext in ("svg", "pdf"):
            assert (pngs / f"{p.id}.{ext}").stat().st_size > 0
    # Without asking: PNGs only (vectors triple the drawing time of a report).
    _, pngs2, _ = report.write_report(run_dir, tmp_path / "r2.html")
    assert list(pngs2.glob("*.png")) and not list(pngs2.glob("*.svg"))


def test_sweep_axes_have_units_log_scales_and_short_legends():
    rows = []
    for s in range(10):  # ten series: too many to name
        for k in ("20KB", "200KB", "2000KB"):
            rows.append({"switch.ecn.kmax": k, "host.cc.rate_ai": f"{s}Mbps", "fct_p99_ps_x": 1e8 * (1 + s) * (2 if k == "2000KB" else 1)})
    ok = pd.DataFrame(rows)
    fig, ax = report._figure()
    report.sweep_axes(ax, ok, "fct_p99_ps_x", "switch.ecn.kmax", ["host.cc.rate_ai"])
    assert ax.get_xlabel() == "switch.ecn.kmax (MB)" and ax.get_xscale() == "log"
    assert list(ax.get_lines()[0].get_xdata()) == pytest.approx([0.02, 0.2, 2.0])  # not 2e6 bytes
    assert ax.get_ylabel() == "fct_p99_x (ms)"
    assert max(max(ln.get_ydata()) for ln in ax.get_lines()) == pytest.approx(2.0)  # 2e9 ps = 2 ms
    assert ax.get_legend() is None  # ten series: no legend of ten entries
    assert style.check(fig) == []


@pytest.mark.parametrize(
    "column, values, label, factor",
    [
        ("latency_p99_ps", [5e6], "latency_p99 (us)", 1e-6),
        ("fct_p50_ps_incast", [2e9], "fct_p50_incast (ms)", 1e-9),
        ("goodput_total_gbps", [10.0], "goodput_total (Gb/s)", 1.0),
        ("pause_fraction_mean", [0.01], "pause_fraction_mean (%)", 100.0),
        ("slowdown_p99_web", [3.0], "slowdown_p99_web (FCT / ideal FCT)", 1.0),
        ("drops", [3.0], "drops (count)", 1.0),
    ],
)
def test_metric_labels_carry_units(column, values, label, factor):
    assert style.metric_axis(column, values) == (label, pytest.approx(factor))


def test_check_finds_what_breaks_the_style():
    plt = plot.pyplot()
    fig, ax = plt.subplots(figsize=(3, 2))
    for i in range(9):
        ax.plot([0, 1], [i, i], label=f"line {i}")
    ax.legend()
    ax.set_xlabel("x " * 80)  # far wider than the figure
    ax.plot([0, 1], [1e9, 1e9 + 1])  # an offset would be needed without the style
    problems = style.check(fig)
    assert any("legend of 9 entries" in p for p in problems)
    assert any("outside the canvas" in p for p in problems)
    plt.close(fig)


def test_many_flows_are_summed_per_group_not_drawn_one_by_one(run_dir):
    res = dcsim.load_run(run_dir)
    assert len(res.flows) > plot.MAX_LEGEND
    ylabel, lines = plot._rate_lines(res)
    assert "summed per traffic group" in ylabel
    assert sorted(label for label, _, _ in lines) == [f"burst{i} (3 flows)" for i in range(GROUPS)]


def test_sum_steps_adds_rates_and_ends_each_at_its_last_point():
    import numpy as np

    a = (np.array([0.0, 1.0, 3.0]), np.array([10.0, 5.0, 5.0]))  # 10 then 5, ends at 3
    b = (np.array([2.0, 4.0]), np.array([7.0, 7.0]))  # 7 from 2 to 4
    t, v = plot._sum_steps([a, b])
    assert list(t) == [0.0, 1.0, 2.0, 3.0, 4.0] and list(v) == [10.0, 5.0, 12.0, 7.0, 0.0]
