"""``dcsim report PATH``: one self-contained HTML file for a run or a sweep, plus PNGs.

* A run directory (``dcsim run --out``): the summary and the flows as tables; source
  rates (or per-flow goodput) over time; the largest switch queues; a PFC timeline
  (each pause of a (port, priority) as a bar, from ``pfc_events``); congestion points
  (root and victim time per port, from ``congestion``); FCT slowdown per flow-size bin;
  ECN marks per switch queue and marks, CNPs and switch feedback per source.
* A sweep: a results store directory (``dcsim sweep --store``) or the CSV of
  ``dcsim sweep --out``: one plot per (metric, swept setting), a line per combination
  of the other swept settings, and the table of points, failed ones with their error.

The PNGs are embedded as ``data:`` URIs (no script, no network, inline CSS) and also
written to a directory. A plot with no data in the run is replaced by one line saying
why. Each plot is an ``<img class="plot" id=... alt=...>``.
"""

from __future__ import annotations

import base64
import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from . import analysis, plot, style
from .errors import OutputError, output_error, path_arg

__all__ = ["write_report"]

#: Queues drawn in the queue plot, bars in the PFC timeline and congestion-point plots.
MAX_QUEUES = 4
MAX_BARS = 20
#: Flows listed in the run's flows table.
MAX_FLOW_ROWS = 40
FCT_PERCENTILES = (50, 95, 99)
DPI = 100

#: Sweep metrics worth a plot, in the order shown (regular expressions on the column
#: names of ``dcsim.sweeps.metrics``; per-size-bin and per-flow columns are left to the table).
SWEEP_METRICS = (
    r"goodput_total_gbps",
    r"goodput_steady_gbps",
    r"goodput_fraction",
    r"jain",
    r"goodput_min_gbps",
    r"goodput_max_gbps",
    r"link_util_max",
    r"link_util_mean",
    r"pause_fraction_max",
    r"pause_fraction_mean",
    r"drops",
    r"pfc_xoff",
    r"ecn_marked",
    r"cnps",
    r"latency_p50_ps",
    r"latency_p99_ps",
    r"flows_finished",
    r"small_flow_slowdown_p99",
    # Per traffic group, by its name (not the per-size-bin columns, suffix _b<j>).
    r"slowdown_p50_(?!.*_b\d+$).+",
    r"slowdown_p99_(?!.*_b\d+$).+",
    r"fct_p50_ps_(?!.*_b\d+$).+",
    r"fct_p99_ps_(?!.*_b\d+$).+",
)
#: A sweep column that is a scenario setting: a path with at least one '.' or '[i]'.
_SETTING = re.compile(r"[A-Za-z_]\w*(\[\d+\])?((\.[A-Za-z_]\w*)|(\[\d+\]))+")

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto; max-width: 1100px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }
p.meta { color: #555; margin-top: 0; } p.missing { color: #666; font-style: italic; }
nav a { margin-right: 1em; } img.plot { display: block; max-width: 100%; height: auto; margin: 0.5em 0; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } td.text, th.text { text-align: left; }
tr.failed td { background: #fde8e8; } .scroll { overflow-x: auto; }
figure { margin: 0.5em 0 1em; } .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); } figcaption { font-size: 0.8em; color: #555; }
"""


@dataclass
class Plot:
    """One figure: its id (also the PNG's name), title, and the PNG or why there is none."""

    id: str
    title: str
    png: Optional[bytes] = None
    why: str = ""


@dataclass
class Section:
    title: str
    id: str
    notes: List[str] = field(default_factory=list)
    plots: List[Plot] = field(default_factory=list)
    tables: List[str] = field(default_factory=list)  # HTML
    grid: bool = False  # plots side by side


# -- figures ----------------------------------------------------------------------------


def _figure(height: float = 3.4, width: float = 8.0) -> Tuple[Any, Any]:
    plt = plot.pyplot()
    return plt.subplots(figsize=(width, height), layout="constrained")


class Rendered(bytes):
    """A plot's PNG bytes, with its vector copies (``vectors``: format -> bytes)."""

    vectors: Dict[str, bytes]


#: Whether plots are also rendered as SVG and PDF (``write_report(vectors=True)``,
#: ``dcsim report --vectors``): about three times the drawing time, so asked for.
_VECTORS = [False]


def _png(fig: Any) -> bytes:
    from . import style

    png, vectors = style.render(fig, DPI, style.VECTOR_FORMATS if _VECTORS[0] else ())
    out = Rendered(png)
    out.vectors = vectors
    return out


def _port_label(node: Any, peer: Any, prio: Any) -> str:
    return f"{node}->{peer}" + ("" if int(prio) < 0 else f" p{int(prio)}")


# -- a run ------------------------------------------------------------------------------


def _rates(res: Any) -> Plot:
    p = Plot("rates", "Source rates over time")
    ylabel, lines = plot._rate_lines(res)
    if not lines:
        p.why = "no rate changes and no goodput series in this run (no congestion control that sets rates, stats.goodput_interval off)"
        return p
    p.title = "Source rates over time" if ylabel.startswith("source") else "Goodput per flow over time"
    fig, ax = _figure(3.8)
    plot.rate_panel(ax, res, lines, -0.14)
    ax.set_ylabel(ylabel)
    ax.set_xlabel("time (ms)")
    p.png = _png(fig)
    return p


def _queues(res: Any) -> Plot:
    p = Plot("queues", f"Egress queues that grew largest (at most {MAX_QUEUES})")
    if not len(res.samples):
        p.why = "no queue samples in this run (stats.sample_interval off)"
        return p
    queues = plot.largest_queues(res, MAX_QUEUES)
    if not queues:
        p.why = "no sampled switch queue ever held a frame in this run"
        return p
    fig, ax = _figure()
    plot.queue_panel(ax, res, queues)
    ax.set_ylabel("egress queue (KB)")
    ax.set_xlabel("time (ms)")
    p.png = _png(fig)
    return p


def _top_ports(df: pd.DataFrame, weight: str) -> List[Tuple[str, str, int]]:
    """(node, peer, priority) of the MAX_BARS rows of ``df`` with the most ``weight``,
    summed per port and priority, largest last (drawn at the top of a barh)."""
    w = df.groupby(["node", "peer", "priority"], sort=True, observed=True)[weight].sum()
    w = w.sort_values(ascending=False, kind="stable").iloc[:MAX_BARS]
    return [(str(n), str(q), int(r)) for n, q, r in reversed(list(w.index))]


def _pfc_timeline(res: Any) -> Plot:
    p = Plot("pfc-timeline", "PFC timeline: pauses per (port, priority)")
    iv = res.pause_intervals()
    if not len(iv):
        p.why = "no PFC pauses in this run"
        return p
    iv = iv.assign(length=iv["end_ps"] - iv["start_ps"])
    keys = _top_ports(iv, "length")
    fig, ax = _figure(max(1.6, 0.9 + 0.32 * len(keys)))
    for y, (node, peer, prio) in enumerate(keys):
        sel = iv[(iv["node"] == node) & (iv["peer"] == peer) & (iv["priority"] == prio)]
        start = sel["start_ps"].to_numpy(dtype=float) / 1e9
        width = np.maximum(sel["length"].to_numpy(dtype=float) / 1e9, 0)
        ax.broken_barh(list(zip(start, width)), (y - 0.35, 0.7), color="tab:red", linewidth=0)
    ax.set_yticks(range(len(keys)), [_port_label(*k) for k in keys], fontsize=8)
    ax.set_xlim(0, res.summary["duration_ps"] / 1e9)
    ax.set_ylim(-0.6, len(keys) - 0.4)
    ax.set_xlabel("time (ms); a bar: the port's transmitter (node -> peer) paused on the priority")
    ax.grid(alpha=0.3, axis="x")
    p.png = _png(fig)
    return p


def _pause_by_switch(res: Any) -> Plot:
    p = Plot("pfc-switches", "PFC pause per switch")
    t = res.pause_by_switch()
    paused = int((t["paused_ps"] > 0).sum())
    if not paused:
        p.why = "no switch was paused in this run"
        return p
    fig, ax = _figure(0.9 + 0.25 * min(plot.MAX_SWITCHES, paused))
    plot.pauses_panel(ax, res, t)
    p.png = _png(fig)
    return p


def _congestion(res: Any) -> Plot:
    p = Plot("congestion", "Congestion points: root and victim time per port")
    c = res.congestion
    if not len(c) or not (c["congested_ps"] > 0).any():
        p.why = (
            "no congestion points in this run (the congestion table is filled when "
            "switch.ecn marks or a switch.congestion detection rule is set, and a queue was congested)"
        )
        return p
    keys = _top_ports(c, "congested_ps")
    by = c.groupby(["node", "peer", "priority"], sort=True, observed=True)[["root_ps", "victim_ps"]].sum()
    root = np.array([by.loc[k, "root_ps"] for k in keys], dtype=float) / 1e9
    victim = np.array([by.loc[k, "victim_ps"] for k in keys], dtype=float) / 1e9
    fig, ax = _figure(max(1.6, 0.9 + 0.32 * len(keys)))
    y = np.arange(len(keys))
    ax.barh(y, root, color="tab:red", label="root (could transmit)")
    ax.barh(y, victim, left=root, color="tab:blue", label="victim (paused by PFC)")
    ax.set_yticks(y, [_port_label(*k) for k in keys], fontsize=8)
    ax.set_xlabel("congested time (ms)")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    p.png = _png(fig)
    return p


def _fct(res: Any) -> Plot:
    p = Plot("fct", "FCT slowdown by flow size (bins of 5 % of the flows)")
    f = res.flows
    if not len(f) or not len(analysis._finite(f)):
        p.why = "only long-lived flows (or jobs' queue pairs) in this run: no flow completion times"
        return p
    t = plot.fct_table(res, FCT_PERCENTILES)
    if not len(t):
        p.why = "no flow of finite size finished in this run"
        return p
    fig, ax = _figure(3.8)
    plot.fct_panel(ax, t, FCT_PERCENTILES)
    ax.set_ylabel(plot.fct_ylabel(None))
    p.png = _png(fig)
    return p


def _fct_cdf(res: Any) -> Plot:
    p = Plot("fct-cdf", "CDF of FCT slowdown per traffic group")
    if not len(res.flows) or not (analysis._finite(res.flows)["fct_ps"] >= 0).any():
        p.why = "no flow of finite size finished in this run"
        return p
    fig, ax = _figure(3.4)
    plot.cdf_panel(ax, res)
    ax.set_ylabel("fraction of flows")
    p.png = _png(fig)
    return p


def _jobs(res: Any) -> List[Plot]:
    p = Plot("jobs", "Iteration time per training job")
    q = Plot("collectives", "Collectives over time, one row per (job, layer)")
    if not len(res.table("jobs")):
        p.why = "no job finished an iteration in this run"
    else:
        fig, ax = _figure(3.4)
        plot.jobs_panel(ax, res)
        p.png = _png(fig)
    if not len(res.table("collectives")):
        q.why = "no collective finished in this run"
    else:
        keys = res.table("collectives")[["job", "layer"]].drop_duplicates()
        fig, ax = _figure(max(1.6, 0.9 + 0.3 * len(keys)))
        plot.collectives_panel(ax, res)
        q.png = _png(fig)
    return [p, q]


def _bars(labels: Sequence[str], series: Dict[str, np.ndarray], xlabel: str) -> bytes:
    """Grouped horizontal bars, one group per label, one bar per series."""
    fig, ax = _figure(max(1.6, 0.9 + 0.22 * len(labels) * len(series)))
    y = np.arange(len(labels))
    h = 0.8 / len(series)
    for i, (name, v) in enumerate(series.items()):
        ax.barh(y - 0.4 + h * (i + 0.5), v, height=h, label=name)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    return _png(fig)


def _marks(res: Any) -> Plot:
    p = Plot("ecn-marks", "ECN marks per switch egress queue")
    ports = res.ports
    if not len(ports) or "ecn_marked" not in ports or not (ports["ecn_marked"] > 0).any():
        p.why = "no ECN marks in this run"
        return p
    keys = _top_ports(ports[ports["ecn_marked"] > 0], "ecn_marked")
    by = ports.groupby(["node", "peer", "priority"], sort=True, observed=True)["ecn_marked"].sum()
    p.png = _bars([_port_label(*k) for k in keys], {"marked": np.array([by.loc[k] for k in keys], dtype=float)}, "data packets marked CE")
    return p


#: Per-flow notification counters: (column of ``flows``, legend).
_NOTIFY = (
    ("marked_received", "CE-marked packets received"),
    ("cnps_received", "CNPs received"),
    ("feedback_received", "switch feedback received"),
)


def _notifications(res: Any) -> Plot:
    p = Plot("notifications", "Marks, CNPs and switch feedback per source host")
    f = res.flows
    cols = [(c, name) for c, name in _NOTIFY if len(f) and c in f and (f[c] > 0).any()]
    if not cols:
        p.why = "no marked packets, CNPs or switch feedback reached a host in this run"
        return p
    by = f.groupby("src", sort=True, observed=True)[[c for c, _ in cols]].sum()
    by = by.loc[by.sum(axis=1).sort_values(ascending=False, kind="stable").index[:MAX_BARS]].iloc[::-1]
    p.png = _bars(
        [str(s) for s in by.index], {name: by[c].to_numpy(dtype=float) for c, name in cols}, "count, summed over the host's flows"
    )
    return p


def _flatten(d: Dict[str, Any], prefix: str = "") -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out += _flatten(v, key + ".")
        elif not isinstance(v, list):
            out.append((key, v))
    return out


def _is_time(key: str) -> bool:
    return bool(re.search(r"_ps($|\.)", key)) and not key.endswith(".count")


def _fmt(v: Any, key: str = "") -> str:
    """A cell; a time (a key ending in ``_ps`` or under ``*_ps.``) in readable units."""
    from .cli import fmt_time_ps

    if isinstance(v, bool):
        return str(v)
    if v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and math.isnan(v)):
        return "-"
    if isinstance(v, (int, float, np.integer, np.floating)):
        if _is_time(key) and v >= 0:
            return fmt_time_ps(float(v))
        return f"{v:.4g}" if isinstance(v, (float, np.floating)) else str(v)
    return str(v)


def _cell(v: Any, key: str = "") -> str:
    """A table cell: numbers right-aligned, text left; a time has its picoseconds as a tooltip."""
    num = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    tip = f' title="{v} ps"' if num and _is_time(key) else ""
    return f'<td class="{"" if num else "text"}"{tip}>{html.escape(_fmt(v, key))}</td>'


def _table(df: pd.DataFrame, row_class: Optional[Sequence[str]] = None) -> str:
    """A DataFrame as an HTML table: numbers right-aligned, text left; values escaped."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = []
    for i, r in enumerate(df.itertuples(index=False)):
        cls = f' class="{row_class[i]}"' if row_class and row_class[i] else ""
        rows.append(f"<tr{cls}>" + "".join(_cell(v, str(c)) for c, v in zip(df.columns, r)) + "</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _pairs(items: Sequence[Tuple[str, Any]], per_row: int = 3, strip: str = "^$") -> str:
    """Key/value pairs as a compact table, ``per_row`` pairs a row, keys without what
    the regular expression ``strip`` matches."""
    rows = []
    for i in range(0, len(items), per_row):
        cells = "".join(f'<th class="text">{html.escape(re.sub(strip, "", k))}</th>{_cell(v, k)}' for k, v in items[i : i + per_row])
        rows.append(f"<tr>{cells}</tr>")
    return f'<div class="scroll"><table><tbody>{"".join(rows)}</tbody></table></div>'


#: The summary keys shown first (the rest of summary.json is under "full summary").
KEY_FIGURES = (
    "duration_ps",
    "events",
    "counters.flows",
    "counters.flows_finished",
    "counters.drops_total",
    "counters.pfc_xoff_sent",
    "counters.pfc_xon_sent",
    "counters.pfc_pause_expired",
    "counters.ecn_marked",
    "counters.cnps_sent",
    "counters.cnps_received",
    "counters.l2_feedback_sent",
    "counters.retransmitted_packets",
    "counters.deadlocks_detected",
    "latency_ps.p50",
    "latency_ps.p99",
    "message_latency_ps.p99",
    "checks.ok",
)


def _summary_tables(res: Any) -> List[str]:
    flat = dict(_flatten(res.summary))
    key = [(k, flat[k]) for k in KEY_FIGURES if k in flat]
    key += [(f"aggregate.{k}", v) for k, v in res.aggregate().items()]
    full = [(k, v) for k, v in flat.items() if not k.endswith(".what")]
    f = res.flows
    cols = [
        c
        for c in (
            "flow_id",
            "src",
            "dst",
            "group",
            "priority",
            "size_bytes",
            "fct_ps",
            "slowdown",
            "goodput_steady_gbps",
            "retransmits",
            "marked_received",
            "cnps_received",
            "feedback_received",
        )
        if c in f
    ]
    tables = [
        _pairs(key, strip=r"^(counters|aggregate)\."),
        f"<details><summary>full summary ({len(full)} values)</summary>{_pairs(full, 2)}</details>",
    ]
    if len(f):
        tables.append(_table(f[cols].head(MAX_FLOW_ROWS).astype(object)))
    return tables


def run_sections(res: Any) -> List[Section]:
    """The sections of a run's report."""
    n = len(res.flows)
    flows_note = f"Flows: the first {MAX_FLOW_ROWS} of {n}." if n > MAX_FLOW_ROWS else f"Flows: {n}."
    ev_cut = int((res.summary.get("outputs") or {}).get("pfc_events_not_logged", 0) or 0)
    pfc = Section(
        "PFC timeline",
        "pfc",
        plots=[_pfc_timeline(res), _pause_by_switch(res)],
        notes=[
            f"The {MAX_BARS} (port, priority) pairs paused longest. Each bar is one pause: "
            "from the XOFF that stopped the port to the XON or the pause's expiry."
        ],
    )
    if ev_cut:
        pfc.notes.append(f"{ev_cut} PFC events were not logged (stats.max_rows): later pauses are missing.")
    jobs = []
    if "jobs" in res.names:
        jobs = [
            Section(
                "Training jobs",
                "jobs",
                plots=_jobs(res),
                notes=[
                    "Each job's iteration times (dotted: the same iteration alone on an ideal fabric, "
                    "summary.jobs), and each collective from its first rank's start to its last rank's end."
                ],
            )
        ]
    return jobs + [
        Section(
            "Summary",
            "summary",
            notes=[f"Key figures of summary.json, aggregate goodput (Gb/s). {flows_note}"],
            tables=_summary_tables(res),
        ),
        Section(
            "Rates",
            "rates",
            plots=[_rates(res)],
            notes=[
                "Pacing rates set by congestion control (each holds until the next change), or, "
                "without rate changes, each flow's goodput per stats.goodput_interval."
            ],
        ),
        Section(
            "Queues", "queues", plots=[_queues(res)], notes=["Egress queues of switch ports (summed over priorities), the largest first."]
        ),
        pfc,
        Section(
            "Congestion points",
            "congestion",
            plots=[_congestion(res)],
            notes=[
                "Congested time per switch egress (port, priority): root while it could transmit, "
                "victim while PFC paused it (the congestion table)."
            ],
        ),
        Section(
            "FCT slowdown by flow size",
            "fct",
            plots=[_fct(res), _fct_cdf(res)],
            notes=[
                "Slowdown percentiles (FCT / ideal FCT) per bin of 5 % of the finite flows, at the bin's largest flow size; "
                "below, the slowdown's CDF per traffic group."
            ],
        ),
        Section(
            "ECN marks and notifications",
            "notifications",
            plots=[_marks(res), _notifications(res)],
            notes=[
                "Data packets marked CE per switch queue; per source host, the marked packets its "
                "flows' receivers got, the CNPs and the switch feedback (QCN, BCN, FECN, NetworkCC) "
                "its flows received."
            ],
        ),
    ]


# -- a sweep ----------------------------------------------------------------------------


def _numeric_axis(values: Sequence[Any]) -> Tuple[Optional[np.ndarray], str]:
    """Setting values as numbers and their unit ("" for plain numbers), or (None, "")
    when they are not all numbers of one kind (then they are categories)."""
    try:
        return np.array([float(v) for v in values]), ""
    except (TypeError, ValueError):
        pass
    for units, unit in ((plot._SIZE_UNITS, "bytes"), (plot._TIME_UNITS, "ps"), (plot._RATE_UNITS, "bit/s")):
        xs = [plot._unit(v, units) for v in values]
        if all(x is not None for x in xs):
            return np.array(xs, dtype=float), unit
    return None, ""


def _rank(col: pd.Series) -> np.ndarray:
    """Sort keys of a setting's values: by number (units understood) when all are
    numbers, else by first appearance."""
    values = list(dict.fromkeys(col.tolist()))
    xs, _ = _numeric_axis(values)
    order = {v: i for i, v in enumerate(values)} if xs is None else dict(zip(values, xs))
    return np.array([order[v] for v in col], dtype=float)


#: Settings whose values are repetitions of one experiment, not an axis: their points
#: are pooled (mean, with the range as error bars), never joined by a line.
REPLICATES = ("simulation.seed",)


def sweep_axes(ax: Any, ok: pd.DataFrame, metric: str, param: str, others: List[str]) -> int:
    """Draws ``metric`` against ``param`` on ``ax``; returns the number of series. A
    setting that is not a number (a scheme, a variant) is categories: grouped bars, one
    bar per combination of the other settings, never a line through unrelated points.
    A number is an axis: one line per combination of the other settings. Seeds
    (``REPLICATES``) are pooled: mean over them, their range as error bars."""
    values = list(dict.fromkeys(ok[param].tolist()))
    xs, unit = _numeric_axis(values)
    xlabel, xscale = style.setting_axis(param, unit, xs if xs is not None else [])
    if xs is not None:
        xs = xs * xscale
    ylabel, yscale = style.metric_axis(metric, pd.to_numeric(ok[metric], errors="coerce").tolist())
    series = [o for o in others if o not in REPLICATES]
    groups = list(ok.groupby(series, sort=False, dropna=False)) if series else [((), ok)]
    n = 0
    width = 0.8 / max(1, len(groups))
    for gi, (key, g) in enumerate(groups):
        keyt = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{o}={k}" for o, k in zip(series, keyt)) or None
        y = pd.to_numeric(g[metric], errors="coerce") * yscale
        by = y.groupby(g[param].astype(str), sort=False)
        stats = pd.DataFrame({"mean": by.mean(), "lo": by.min(), "hi": by.max()})
        if xs is None:
            # Categories: bars at each category's place, shifted per series.
            place = {str(v): i for i, v in enumerate(values)}
            at = np.array([place[v] for v in stats.index], dtype=float) - 0.4 + width * (gi + 0.5)
            bar_err = np.vstack([stats["mean"] - stats["lo"], stats["hi"] - stats["mean"]])
            ax.bar(at, stats["mean"], width=width, yerr=bar_err if len(g) > len(stats) else None, capsize=2, label=label)
        else:
            pos = dict(zip([str(v) for v in values], xs))
            stats = stats.assign(_x=[pos[v] for v in stats.index]).sort_values("_x", kind="stable")
            ls, marker = plot.STYLES[n % len(plot.STYLES)]
            err = np.vstack([stats["mean"] - stats["lo"], stats["hi"] - stats["mean"]]) if len(g) > len(stats) else None
            ax.errorbar(stats["_x"], stats["mean"], yerr=err, linestyle=ls, marker=marker, markersize=5, capsize=2, label=label)
        n += 1
    if xs is None:
        ax.set_xticks(range(len(values)), [str(v) for v in values], fontsize=8)
    elif len(xs) > 2:
        style.log_if_wide(ax, "x", xs)
    if xs is not None:
        # Lines: a log scale when the means span more than a decade.
        style.log_if_wide(ax, "y", [ln for line in ax.get_lines() for ln in line.get_ydata()])
    ax.set_xlabel(xlabel)
    pooled = [o for o in others if o in REPLICATES]
    ax.set_ylabel(ylabel + (f"\n(mean over {', '.join(p.split('.')[-1] + 's' for p in pooled)})" if pooled else ""))
    ax.grid(alpha=0.3)
    if series and n <= style.MAX_LEGEND:
        ax.legend(fontsize=7, loc="best")
    return n


def _sweep_plot(ok: pd.DataFrame, metric: str, param: str, others: List[str]) -> Plot:
    p = Plot(re.sub(r"[^A-Za-z0-9]+", "-", f"{metric}-vs-{param}").strip("-"), f"{metric} vs {param}")
    fig, ax = _figure(3.2, 6.4)
    sweep_axes(ax, ok, metric, param, others)
    p.png = _png(fig)
    return p


def _read_sweep(path: Path, kind: str) -> pd.DataFrame:
    if kind == "store":
        from .store import Store

        return Store(path).runs()
    try:
        return pd.read_csv(path, keep_default_na=False, na_values=["", "NaN", "nan"])
    except (OSError, ValueError) as e:
        raise OutputError(0, f"cannot be read as a sweep CSV: {str(e).splitlines()[0] if str(e) else e}", str(path)) from None


def sweep_sections(df: pd.DataFrame) -> List[Section]:
    """The sections of a sweep's report (``df``: one row per point)."""
    # The settings: dotted paths (not their `_si` numbers) and the variant.
    settings = [c for c in df.columns if (_SETTING.fullmatch(str(c)) and not str(c).endswith("_si")) or c == "variant"]
    swept = [c for c in settings if df[c].astype(str).nunique() > 1]
    # Points in the order of their settings (a store lists them by run id).
    rank = {c: _rank(df[c]) for c in swept}
    if swept:
        df = df.iloc[np.lexsort([rank[c] for c in reversed(swept)])].reset_index(drop=True)
    err = df["error"].fillna("").astype(str) if "error" in df else pd.Series([""] * len(df), index=df.index)
    ok = df[err == ""]
    fixed = [c for c in settings if c not in swept]
    metrics = []
    for pat in SWEEP_METRICS:
        for c in df.columns:
            if re.fullmatch(pat, str(c)) and c not in metrics:
                metrics.append(c)
    values = {m: pd.to_numeric(ok[m], errors="coerce") for m in metrics}
    varying = [m for m in metrics if values[m].nunique() > 1]
    constant = [m for m in metrics if values[m].nunique() == 1]
    head = Section("Points", "points")
    head.notes.append(
        f"{len(df)} points, {int((err != '').sum())} failed. Swept: "
        + (", ".join(f"{c} ({df[c].astype(str).nunique()} values)" for c in swept) or "nothing")
        + "."
    )
    if fixed:
        head.notes.append("Same at every point: " + ", ".join(f"{c} = {df[c].iloc[0]}" for c in fixed) + ".")
    if constant:
        head.notes.append(
            "Metrics equal at every point that ran: " + ", ".join(f"{m} = {_fmt(values[m].dropna().iloc[0], m)}" for m in constant) + "."
        )
    cols = [c for c in ("run_id",) if c in df] + swept + (["error"] if "error" in df else []) + fixed + varying
    head.tables.append(_table(df[cols].astype(object), ["failed" if e else "" for e in err]))
    plots = Section(
        "Metrics against the swept settings",
        "metrics",
        notes=[
            "One plot per metric that differs between points and per swept setting; one line per combination of the other swept settings."
        ],
        grid=True,
    )
    if not len(df):
        plots.plots.append(Plot("metrics", "metrics", why="there are no points"))
    elif not len(ok):
        plots.plots.append(Plot("metrics", "metrics", why="every point failed: nothing to plot"))
    elif not swept:
        plots.plots.append(Plot("metrics", "metrics", why="no setting differs between the points"))
    elif not varying:
        plots.plots.append(Plot("metrics", "metrics", why="no metric differs between the points that ran"))
    # Seeds are repetitions, not an axis, when something else is swept.
    axes = [c for c in swept if c not in REPLICATES] or swept
    for m in varying if len(ok) and swept else []:
        for s in axes:
            plots.plots.append(_sweep_plot(ok, m, s, [o for o in swept if o != s]))
    sections = [head, plots]
    failed = df[err != ""]
    if len(failed):
        fails = Section("Failed points", "failures", notes=[f"{len(failed)} points failed; each with its settings and error."])
        cols = [c for c in ("run_id",) if c in failed] + swept + ["error"]
        fails.tables.append(_table(failed[cols].astype(object)))
        sections.append(fails)
    return sections


# -- the page ---------------------------------------------------------------------------


def _kind(path: Path) -> str:
    if path.is_dir():
        if (path / "summary.json").is_file():
            return "run"
        if (path / "runs").is_dir():
            return "store"
        raise OutputError(2, "is neither a run directory (no summary.json) nor a results store (no runs/)", str(path))
    if path.is_file() and path.suffix == ".csv":
        return "csv"
    if not path.exists():
        raise OutputError(2, "does not exist", str(path))
    raise OutputError(2, "is not a run directory, a results store or a sweep CSV", str(path))


def _img(p: Plot, png_dir: Path) -> str:
    if p.png is None:
        return f'<p class="missing" id="{p.id}">{html.escape(p.title)}: {html.escape(p.why)}</p>'
    data = base64.b64encode(p.png).decode("ascii")
    return (
        f'<figure><img class="plot" id="{p.id}" alt="{html.escape(p.title)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{html.escape(p.title)} '
        f"({html.escape(png_dir.name)}/{p.id}.png)</figcaption></figure>"
    )


def _page(title: str, meta: str, sections: List[Section], png_dir: Path) -> str:
    nav = " ".join(f'<a href="#{s.id}">{html.escape(s.title)}</a>' for s in sections)
    body = []
    for s in sections:
        parts = [f'<section id="{s.id}"><h2>{html.escape(s.title)}</h2>']
        parts += [f"<p>{html.escape(n)}</p>" for n in s.notes]
        imgs = [_img(p, png_dir) for p in s.plots]
        parts += [f'<div class="grid">{"".join(imgs)}</div>'] if s.grid else imgs
        parts += s.tables
        body.append("\n".join(parts) + "</section>")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<style>{CSS}</style></head>\n<body><h1>{html.escape(title)}</h1><p class="meta">{html.escape(meta)}</p>'
        f"<nav>{nav}</nav>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def write_report(path: Any, out: Any = None, png_dir: Any = None, vectors: bool = False) -> Tuple[Path, Path, List[Plot]]:
    """Writes the report of ``path`` (a run directory, a results store directory or a
    sweep CSV) to ``out`` (default: ``PATH.html`` beside it) and its PNGs to ``png_dir``
    (default: ``OUT_png/`` beside the HTML), with ``vectors`` an SVG and a PDF beside
    each PNG. Returns (HTML file, PNG directory, plots).
    A ``path`` that is none of these is an ``OutputError`` naming it."""
    src = path_arg(path, "PATH")
    kind = _kind(src)
    name = src.resolve().name
    html_file = path_arg(out, "--out") if out is not None else src.resolve().with_name((src.stem if kind == "csv" else name) + ".html")
    pngs = path_arg(png_dir, "--png-dir") if png_dir is not None else html_file.with_name(html_file.stem + "_png")
    _VECTORS[0] = bool(vectors)
    try:
        title, meta, sections = _sections(src, kind, name)
    finally:
        _VECTORS[0] = False
    return _write(html_file, pngs, title, meta, sections)


def _sections(src: Path, kind: str, name: str) -> Tuple[str, str, List[Section]]:
    if kind == "run":
        from .results import load_run

        res = load_run(src)
        s = res.summary
        title = f"dcsim run report: {s.get('name', name)}"
        meta = (
            f"run {s.get('run_id', '-')}, seed {s.get('seed', '-')}, dcsim {s.get('version', '-')}, "
            f"{s.get('duration_ps', 0) / 1e9:g} ms simulated, {s.get('events', '-')} events; from {src}"
        )
        sections = run_sections(res)
    else:
        df = _read_sweep(src, kind)
        title = f"dcsim sweep report: {name}"
        meta = f"{len(df)} points from {'the results store' if kind == 'store' else 'the sweep CSV'} {src}"
        sections = sweep_sections(df)
    return title, meta, sections


def _write(html_file: Path, pngs: Path, title: str, meta: str, sections: List[Section]) -> Tuple[Path, Path, List[Plot]]:
    plots = [p for s in sections for p in s.plots]
    for d in (pngs, html_file.parent):
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise output_error(e, d) from None
    for p in plots:
        if p.png is not None:
            f = pngs / f"{p.id}.png"
            try:
                f.write_bytes(p.png)
                for fmt, data in getattr(p.png, "vectors", {}).items():
                    f.with_suffix(f".{fmt}").write_bytes(data)
            except OSError as e:
                raise output_error(e, f) from None
    try:
        html_file.write_text(_page(title, meta, sections, pngs), encoding="utf-8")
    except OSError as e:
        raise output_error(e, html_file) from None
    return html_file, pngs, plots
