"""One look for every figure dcsim draws (``dcsim plot``, ``dcsim report``, the docs):
sizes and grid set once (``RC``, applied by ``plot.pyplot``), axis labels with units a
reader can use (us, KB, Gb/s: ``metric_axis``, ``setting_axis``), log axes where the
values span more than a decade (``log_if_wide``), at most ``MAX_LEGEND`` legend entries,
and vector copies (SVG, PDF) beside each PNG (``save``, ``render``).
``check(fig)`` is what the tests hold every figure to."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Tuple

#: The most legend entries a figure shows; more series are pooled or left unlabelled.
MAX_LEGEND = 8
#: The vector formats written beside a PNG.
VECTOR_FORMATS = ("svg", "pdf")
DPI = 120

RC: Dict[str, Any] = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 7,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    # No "1e8" offsets or scientific corners: values are scaled to their unit instead.
    "axes.formatter.useoffset": False,
    "axes.formatter.limits": (-4, 6),
    "savefig.dpi": DPI,
    "pdf.fonttype": 42,  # TrueType in PDFs: editable text, as journals ask
    "svg.fonttype": "none",
}


def apply() -> None:
    import matplotlib

    params: Any = matplotlib.rcParams  # typed by literal key names; RC's keys are checked when set
    params.update(RC)


_TIME = ((1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns"), (1.0, "ps"))


def time_unit(max_ps: float) -> Tuple[float, str]:
    """(picoseconds per unit, unit) so that ``max_ps`` reads between 1 and 1000."""
    for scale, unit in _TIME:
        if abs(max_ps) >= scale:
            return scale, unit
    return 1.0, "ps"


def size_unit(max_bytes: float) -> Tuple[float, str]:
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
        if abs(max_bytes) >= scale:
            return scale, unit
    return 1.0, "B"


def _finite_max(values: Iterable[float]) -> float:
    xs = [abs(float(v)) for v in values if v is not None and not math.isnan(float(v))]
    return max(xs) if xs else 0.0


#: Metric columns that count things.
_COUNTS = re.compile(r"(drops|pfc_xoff|ecn_marked|cnps|flows_finished|flows_.+|finished_.+)")


def metric_axis(column: str, values: Iterable[float]) -> Tuple[str, float]:
    """The axis label of a metric column (``sweeps.metrics``) and the factor its values
    are multiplied by: times in the unit that suits them, fractions in %, sizes in KB or
    MB, rates in Gb/s, with what a unitless number is (a count, a ratio)."""
    c = str(column)
    if re.search(r"_ps(_|$)", c):
        scale, unit = time_unit(_finite_max(values))
        return f"{re.sub(r'_ps(?=_|$)', '', c)} ({unit})", 1.0 / scale
    if c.endswith("_gbps"):
        return f"{c[: -len('_gbps')]} (Gb/s)", 1.0
    if "fraction" in c or c.startswith("link_util"):
        return f"{c} (%)", 100.0
    if "slowdown" in c:
        return f"{c} (FCT / ideal FCT)", 1.0
    if c.startswith("size_hi") or c.endswith("_bytes"):
        scale, unit = size_unit(_finite_max(values))
        return f"{c} ({unit})", 1.0 / scale
    if c == "jain":
        return "Jain's fairness index (1 = equal shares)", 1.0
    if _COUNTS.fullmatch(c):
        return f"{c} (count)", 1.0
    return c, 1.0


def setting_axis(name: str, unit: str, values: Iterable[float]) -> Tuple[str, float]:
    """The label of a setting's axis and the factor for its SI values (``unit`` is
    "bytes", "ps", "bit/s" or "" for plain numbers)."""
    m = _finite_max(values)
    if unit == "bytes":
        scale, u = size_unit(m)
        return f"{name} ({u})", 1.0 / scale
    if unit == "ps":
        scale, u = time_unit(m)
        return f"{name} ({u})", 1.0 / scale
    if unit == "bit/s":
        return f"{name} (Gb/s)", 1e-9
    return name, 1.0


def log_if_wide(ax: Any, axis: str, values: Iterable[float]) -> bool:
    """A log scale on ``axis`` ("x" or "y") when the positive ``values`` span more than
    a decade (and none is zero or negative); returns whether it did."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if len(xs) < 2 or min(xs) <= 0 or max(xs) / min(xs) <= 10:
        return False
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    return True


def log_axis(ax: Any, axis: str, base: int = 10) -> None:
    """A log scale on ``axis`` ("x" or "y") labelled with plain numbers (20, 50, 100, not
    2 x 10^1); with ``base`` 2, at the powers of two."""
    from matplotlib import ticker

    a = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
    a.set_major_locator(ticker.LogLocator(base=base, subs=(1.0, 2.0, 5.0) if base == 10 else (1.0,)))
    a.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(ticker.NullFormatter())


def save(fig: Any, path: Any) -> Path:
    """``fig`` as PNG at ``path`` and as SVG and PDF beside it (same stem), closed."""
    import matplotlib.pyplot as plt

    p = Path(path)
    fig.savefig(p, dpi=DPI, bbox_inches="tight")
    for fmt in VECTOR_FORMATS:
        fig.savefig(p.with_suffix(f".{fmt}"), bbox_inches="tight")
    plt.close(fig)
    return p


def render(fig: Any, dpi: int = DPI, formats: Iterable[str] = VECTOR_FORMATS) -> Tuple[bytes, Dict[str, bytes]]:
    """``fig`` as PNG bytes and bytes by vector format (``formats``), closed."""
    import matplotlib.pyplot as plt

    out = {}
    for fmt in ("png", *formats):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight")
        out[fmt] = buf.getvalue()
    plt.close(fig)
    return out.pop("png"), out


def check(fig: Any) -> List[str]:
    """What is wrong with ``fig`` by this style (empty: nothing): text outside the
    canvas, legends over ``MAX_LEGEND`` entries, offset or scientific corner labels."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    bad: List[str] = []
    for ax in fig.axes:
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label]
        for a in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(a.get_view_interval())
            pad = (hi - lo) * 1e-9
            # Only the ticks drawn: a locator also lists ticks beyond the view.
            texts += [t.label1 for t in a.get_major_ticks() if lo - pad <= t.get_loc() <= hi + pad]
        leg = ax.get_legend()
        if leg is not None:
            n = len(leg.get_texts())
            if n > MAX_LEGEND:
                bad.append(f"legend of {n} entries (at most {MAX_LEGEND})")
            texts += list(leg.get_texts())
        for t in texts:
            if not t.get_visible() or not t.get_text():
                continue
            e = t.get_window_extent(renderer)
            if e.x0 < box.x0 - 1 or e.x1 > box.x1 + 1 or e.y0 < box.y0 - 1 or e.y1 > box.y1 + 1:
                bad.append(f"text {t.get_text()!r} outside the canvas")
        for a in (ax.xaxis, ax.yaxis):
            if a.get_offset_text().get_text():
                bad.append(f"offset label {a.get_offset_text().get_text()!r} on {a.axis_name}")
    return bad
