"""dcsim report: the HTML of runs (seed 000, seed 002, a web-search run with DCQCN) and of
a sweep holds every plot the run has data for as an embedded PNG, a line saying why for
the others, and renders in headless Chromium with every plot decoded."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import dcsim
from dcsim import report

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
RUN_PLOTS = ("rates", "queues", "pfc-timeline", "pfc-switches", "congestion", "fct", "fct-cdf", "ecn-marks", "notifications")
CHROMIUM = next((b for b in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if b), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium, chromium-browser or google-chrome on PATH: the HTML is checked, not rendered"
)


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


class Page(HTMLParser):
    """The plots (``img.plot``: id -> attributes) and the lines standing for missing ones."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.plots: dict = {}
        self.missing: dict = {}
        self.tags: set = set()
        self.failed_rows = 0
        self._p = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "img" and "plot" in (a.get("class") or "").split():
            self.plots[a["id"]] = a
        if tag == "p" and a.get("class") == "missing":
            self._p = a["id"]
            self.missing[self._p] = ""
        if tag == "tr" and a.get("class") == "failed":
            self.failed_rows += 1

    def handle_data(self, data):
        if self._p is not None:
            self.missing[self._p] += data

    def handle_endtag(self, tag):
        if tag == "p":
            self._p = None


def png_of(img: dict) -> bytes:
    prefix = "data:image/png;base64,"
    assert img["src"].startswith(prefix)
    return base64.b64decode(img["src"][len(prefix) :])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Short runs: seed 000 (PFC), seed 002 BCN (rates set by switch feedback), and web
    search with DCQCN and ECN (finite flows, congestion points, marks, CNPs)."""
    base = tmp_path_factory.mktemp("runs")
    specs = {
        "seed000": ("seed000_parking_lot_pfc.toml", ["simulation.duration=4ms"]),
        "seed002": ("seed002_bcn.toml", ["simulation.duration=30ms", "stats.steady_start=10ms"]),
        "websearch": (
            "leaf_spine_websearch.toml",
            [
                "simulation.duration=1500us",
                "host.cc.type=dcqcn",
                "switch.ecn.mode=red",
                "switch.ecn.kmin=5KB",
                "switch.ecn.kmax=50KB",
                "switch.ecn.pmax=0.1",
                "traffic[0].load=0.8",
            ],
        ),
    }
    out = {}
    for name, (scenario, sets) in specs.items():
        d = base / name
        dcsim.run(ROOT / "scenarios" / scenario, overrides=sets).write(d)
        out[name] = d
    return out


def build(run_dir: Path, tmp_path: Path):
    html, pngs, plots = report.write_report(run_dir, tmp_path / f"{run_dir.name}.html")
    assert pngs == tmp_path / f"{run_dir.name}_png"
    page = Page(html.read_text(encoding="utf-8"))
    # Self-contained: no script, no stylesheet or image fetched from elsewhere.
    assert "script" not in page.tags and "link" not in page.tags
    assert not re.search(r'(src|href)="(?!data:|#)', html.read_text(encoding="utf-8"))
    for pid, img in page.plots.items():
        data = png_of(img)
        assert data[:8] == PNG and len(data) > 2000, pid
        assert (pngs / f"{pid}.png").read_bytes() == data  # the same PNG beside the HTML
        assert img["alt"]
    assert {p.id for p in plots} == set(page.plots) | set(page.missing)
    return html, page


def test_seed000_report(runs, tmp_path):
    _, page = build(runs["seed000"], tmp_path)
    assert set(page.plots) == {"rates", "queues", "pfc-timeline", "pfc-switches"}
    assert "no PFC pauses" not in str(page.missing)
    assert "no congestion points" in page.missing["congestion"]
    assert "only long-lived flows" in page.missing["fct"]
    assert "no ECN marks" in page.missing["ecn-marks"]
    assert set(page.plots) | set(page.missing) == set(RUN_PLOTS)


def test_seed002_report(runs, tmp_path):
    _, page = build(runs["seed002"], tmp_path)
    assert set(page.plots) == {"rates", "queues", "notifications"}  # BCN feedback reached the sources
    assert page.plots["rates"]["alt"] == "Source rates over time"
    assert "no PFC pauses in this run" in page.missing["pfc-timeline"]


def test_websearch_dcqcn_report_has_fct_congestion_and_marks(runs, tmp_path):
    _, page = build(runs["websearch"], tmp_path)
    assert {"fct", "fct-cdf", "congestion", "ecn-marks", "notifications", "queues"} <= set(page.plots)


def test_pause_intervals_add_up_to_paused_time(runs):
    res = dcsim.load_run(runs["seed000"])
    assert res.summary["outputs"]["pfc_events_not_logged"] == 0
    iv = res.pause_intervals()
    assert len(iv) and (iv["end_ps"] > iv["start_ps"]).all()
    got = (iv["end_ps"] - iv["start_ps"]).groupby([iv["node"], iv["peer"], iv["priority"]]).sum()
    p = res.ports[res.ports["paused_ps"] > 0]
    want = p.set_index([p["node"].astype(str), p["peer"].astype(str), p["priority"].astype(int)])["paused_ps"]
    assert dict(got) == {k: int(v) for k, v in want.items()}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Four points of DCQCN 2-to-1, two of them invalid (kmax below kmin), in a store
    and a CSV."""
    base = tmp_path_factory.mktemp("sweep")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "dcsim",
            "sweep",
            ROOT / "scenarios" / "dcqcn_2to1.toml",
            "--set",
            "simulation.duration=3ms",
            "--set",
            "stats.steady_start=1ms",
            "--grid",
            "switch.ecn.kmax=1KB,40KB,200KB",
            "--grid",
            "switch.ecn.pmax=0.01,0.2",
            "--jobs",
            "2",
            "--store",
            base / "store",
            "--out",
            base / "sweep.csv",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1 and "2 of 6 points failed" in p.stderr, p.stderr
    return base


@pytest.mark.parametrize("source", ["store", "sweep.csv"])
def test_sweep_report(sweep, tmp_path, source):
    html, page = build(sweep / source, tmp_path)
    text = html.read_text(encoding="utf-8")
    assert page.failed_rows == 2 and "kmax" in text and "kmin" in text  # the points' errors
    # One plot per (metric that differs between points, swept setting).
    assert {"goodput-total-gbps-vs-switch-ecn-kmax", "goodput-total-gbps-vs-switch-ecn-pmax"} <= set(page.plots)
    per_param = {s: {k.rsplit("-vs-", 1)[0] for k in page.plots if k.endswith(s)} for s in ("switch-ecn-kmax", "switch-ecn-pmax")}
    assert per_param["switch-ecn-kmax"] == per_param["switch-ecn-pmax"] and len(per_param["switch-ecn-kmax"]) >= 3
    assert "drops = 0" in text  # equal everywhere: a line, not a flat plot


def test_cli_and_bad_paths(runs, tmp_path, cli):
    out = tmp_path / "r.html"
    p = cli("report", runs["seed000"], "-o", out, "--png-dir", tmp_path / "pngs")
    assert p.returncode == 0, p.stderr
    assert out.is_file() and (tmp_path / "pngs" / "pfc-timeline.png").read_bytes()[:8] == PNG
    empty = tmp_path / "empty"
    empty.mkdir()
    for bad, why in (
        (empty, "is neither a run directory (no summary.json) nor a results store (no runs/)"),
        (tmp_path / "nope", "does not exist"),
        (out, "is not a run directory, a results store or a sweep CSV"),
    ):
        p = cli("report", bad)
        assert p.returncode == 1 and p.stderr.strip() == f"error: {bad}: {why}", p.stderr


# -- rendered in headless Chromium --------------------------------------------------------

#: Marks each plot with its decoded width and how far right it is drawn, and the page
#: with how wide it scrolls against the window (wide tables scroll in their own box).
PROBE = (
    '<script>window.addEventListener("load", function () {'
    " var de = document.documentElement;"
    ' de.setAttribute("data-overflow", de.scrollWidth - de.clientWidth);'
    ' document.querySelectorAll("img.plot").forEach(function (i) {'
    ' i.setAttribute("data-natural-width", i.naturalWidth);'
    ' i.setAttribute("data-right", Math.ceil(i.getBoundingClientRect().right - de.clientWidth)); }); });</script>'
)


def chromium(tmp_path: Path, *args) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
            *map(str, args),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def decoded_widths(html: Path, tmp_path: Path, window: int = 800) -> dict:
    """Each plot's naturalWidth once the page has loaded in a window ``window`` px wide
    (the test adds a script to a copy); asserts that neither the page nor a plot runs
    past the window's right edge."""
    probe = tmp_path / f"probe-{html.name}"
    probe.write_text(html.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    p = chromium(tmp_path, f"--window-size={window},900", "--dump-dom", probe.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    overflow = re.search(r'<html[^>]*data-overflow="(-?\d+)"', p.stdout)
    assert overflow and int(overflow.group(1)) <= 0, f"the page scrolls sideways in a {window} px window"
    page = Page(p.stdout)
    past = {pid: img.get("data-right") for pid, img in page.plots.items() if int(img.get("data-right", 1)) > 0}
    assert not past, f"plots past the right edge of a {window} px window: {past}"
    return {pid: int(img.get("data-natural-width", -1)) for pid, img in page.plots.items()}


def screenshot_std(html: Path, tmp_path: Path) -> float:
    import matplotlib.image

    shot = tmp_path / f"{html.stem}-shot.png"
    p = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1000,1400", html.as_uri())
    assert p.returncode == 0 and shot.is_file(), p.stderr[-2000:]
    return float(np.asarray(matplotlib.image.imread(str(shot)))[..., :3].std())


@needs_chromium
@pytest.mark.parametrize("name", ["seed000", "seed002"])
def test_run_report_renders_in_chromium(runs, tmp_path, name):
    html, page = build(runs[name], tmp_path)
    widths = decoded_widths(html, tmp_path)
    assert set(widths) == set(page.plots) and len(widths) >= 3
    assert all(w > 0 for w in widths.values()), widths
    assert screenshot_std(html, tmp_path) > 0.05  # not a blank page


@needs_chromium
def test_sweep_report_renders_in_chromium(sweep, tmp_path):
    html, page = build(sweep / "store", tmp_path)
    widths = decoded_widths(html, tmp_path)
    assert set(widths) == set(page.plots) and all(w > 0 for w in widths.values()), widths


@needs_chromium
def test_the_probe_sees_a_broken_plot(runs, tmp_path):
    # The check can fail: a plot whose data is not a PNG does not decode.
    html, page = build(runs["seed000"], tmp_path)
    text = html.read_text(encoding="utf-8")
    src = page.plots["queues"]["src"]
    html.write_text(text.replace(src, "data:image/png;base64," + base64.b64encode(b"not a PNG").decode()), encoding="utf-8")
    widths = decoded_widths(html, tmp_path)
    assert widths["queues"] == 0 and widths["rates"] > 0
