"""``dcsim plot``: figures of run directories written by ``dcsim run``, as PNG.

* ``dcsim plot RUN... [--queue NODE:PEER]``: per run (one column each, axes shared) the
  sources' rates over time (or, for a run without rate changes, each flow's goodput
  series), with the fair share (the rate into the receiver, following a
  ``switch.rate_schedule`` toward it, / active flows) when every flow is long-lived
  and goes to one receiver; below, an egress queue (NODE toward PEER; by default the
  switch queue that grew largest) with Q_eq when ``[switch.l2cm]`` sets one.
* ``dcsim plot fct RUN...``: slowdown percentiles per flow-size bin (``fct_by_size``),
  one column per run, log axes shared.
* ``dcsim plot jobs RUN...``: each training job's iteration times (the ``jobs`` table)
  against its ideal iteration, one column per run.
* ``dcsim plot cdf RUN...``: the CDF of FCT slowdown per traffic group (pooled when the
  groups are more than a legend can name), log x, one column per run.
* ``dcsim plot pauses RUN...``: the share of time each switch's (port, priority) rows
  spent paused (``pause_by_switch``), the most paused switches first, one column per run.

A figure with nothing to draw is an error (``NoData``), not an empty PNG.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "NoData",
    "collectives_panel",
    "fct_panel",
    "fct_table",
    "jobs_panel",
    "largest_queues",
    "pyplot",
    "queue_panel",
    "rate_panel",
    "render",
    "render_fct",
    "render_cdf",
    "render_jobs",
    "render_pauses",
]

#: Line styles and markers cycled together, so that lines drawn on top of each other
#: stay distinguishable (dashes and markers of the lower line show through).
STYLES: Sequence[Tuple[Any, str]] = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v"), ((0, (1, 2)), "x"))
#: At most this many legend entries (``style.MAX_LEGEND``).
MAX_LEGEND = 8


class NoData(ValueError):
    """The runs given have nothing the figure could show."""


def _load(run_dir: str) -> Any:
    from .results import load_run

    return load_run(run_dir)


def _style(i: int, n_points: int) -> Dict[str, Any]:
    ls, marker = STYLES[i % len(STYLES)]
    # Markers at staggered positions, about 8 per line.
    every = max(1, n_points // 8)
    return {
        "linestyle": ls,
        "marker": marker,
        "markersize": 4,
        "markevery": (min(i * max(1, every // len(STYLES)), max(0, n_points - 1)), every),
        "linewidth": 1.2,
        "alpha": 0.9,
    }


_SIZE_UNITS = {"b": 1, "kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 1024**2, "gb": 1e9, "gib": 1024**3}


def _size_bytes(v: Any) -> Optional[float]:
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]+)\s*", str(v))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        return None
    return float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]


def _q_eq(res: Any) -> Optional[float]:
    try:
        l2 = res.scenario.to_dict().get("switch", {}).get("l2cm", {})
    except Exception:  # noqa: BLE001 - the reference line is optional
        return None
    return _size_bytes(l2["q_eq"]) if "q_eq" in l2 else None


_TIME_UNITS = {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12}
_RATE_UNITS = {"bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12}


def _unit(v: Any, units: Dict[str, float]) -> Optional[float]:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z]+)\s*", str(v))
    if not m or m.group(2).lower() not in units:
        return None
    return float(m.group(1)) * units[m.group(2).lower()]


def _bottleneck(res: Any, dst: str, rate_bps: float) -> Tuple[np.ndarray, np.ndarray]:
    """(times ps, bit/s) of the link into ``dst``: its rate, or the steps of a
    ``switch.rate_schedule`` on the switch port toward ``dst``."""
    steps = [(0.0, rate_bps)]
    try:
        sched = res.scenario.to_dict().get("switch", {}).get("rate_schedule", [])
    except Exception:  # noqa: BLE001 - the reference line is optional
        sched = []
    for e in sched:
        at, r = _unit(e.get("at"), _TIME_UNITS), _unit(e.get("rate"), _RATE_UNITS)
        if e.get("peer") == dst and at is not None and r is not None:
            steps.append((at, r))
    steps.sort(key=lambda x: x[0])
    return np.array([t for t, _ in steps]), np.array([r for _, r in steps])


def _fair_share(res: Any) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(times ms, Gb/s): the rate of the receiver's link (following a rate schedule on
    the switch port toward it) divided by the active flows, when all flows are
    long-lived and go to one receiver; else None."""
    f, ports = res.flows, res.ports
    if not len(f) or (f["size_bytes"] >= 0).any() or f["dst"].nunique() != 1:
        return None
    dst = str(f["dst"].iloc[0])
    link = ports[ports["node"] == dst]
    if not len(link):
        return None
    step_t, step_r = _bottleneck(res, dst, float(link["rate_bps"].iloc[0]))
    end = int(res.summary["duration_ps"])
    start = f["start_ps"].astype("int64").to_numpy()
    fin = f["finish_ps"].astype("int64").to_numpy()
    stop = np.where(fin >= 0, fin, end)
    times = np.unique(np.concatenate([start, stop, step_t.astype("int64"), [end]]))
    times = times[times <= end]
    active = np.array([((start <= t) & (t < stop)).sum() for t in times])
    rate = step_r[np.searchsorted(step_t, times, side="right") - 1] / 1e9
    share = np.where(active > 0, rate / np.maximum(active, 1), np.nan)
    return times / 1e9, share


def _rate_lines(res: Any) -> Tuple[str, List[Tuple[str, np.ndarray, np.ndarray]]]:
    """The top panel's series: rate changes if any, else per-flow goodput bins. More
    flows than a legend can name (``MAX_LEGEND``) are summed per traffic group (or, with
    more groups than that, over every flow)."""
    end_ms = res.summary["duration_ps"] / 1e9
    names = {int(r.flow_id): f"{r.src}->{r.dst}" for r in res.flows.itertuples()}
    # A rate holds until the flow's next change, its finish (or stop) or the end.
    until = {int(r.flow_id): (r.finish_ps / 1e9 if r.finish_ps >= 0 else end_ms) for r in res.flows.itertuples()}
    series: Dict[int, Tuple[np.ndarray, np.ndarray]] = {}
    rates = res.rates
    if len(rates):
        for fid, g in rates.groupby("flow_id"):
            t = g["time_ps"].to_numpy(dtype=float) / 1e9
            t = np.append(t, max(t[-1], min(end_ms, until.get(int(fid), end_ms))))
            v = np.append(g["rate_gbps"].to_numpy(dtype=float), g["rate_gbps"].iloc[-1])
            series[int(fid)] = (t, v)
        ylabel = "source rate (Gb/s)"
    elif len(res.goodput):
        for fid, g in res.goodput.groupby("flow_id"):
            series[int(fid)] = (g["time_ps"].to_numpy(dtype=float) / 1e9, g["gbps"].to_numpy(dtype=float))
        ylabel = "goodput (Gb/s)"
    else:
        return "", []
    if len(series) <= MAX_LEGEND:
        return ylabel, [(names.get(fid, str(fid)), t, v) for fid, (t, v) in series.items()]
    from .analysis import group_names

    gnames = group_names(res)
    group = {int(r.flow_id): int(r.group) for r in res.flows.itertuples()}
    pools: Dict[str, List[int]] = {}
    by_group = len({group.get(f, -1) for f in series}) <= MAX_LEGEND
    for fid in series:
        g = group.get(fid, -1)
        pools.setdefault(gnames[g] if by_group and 0 <= g < len(gnames) else "all flows", []).append(fid)
    lines = []
    for label, fids in pools.items():
        if len(rates):
            t, v = _sum_steps([series[f] for f in fids])
        else:  # goodput bins: a flow adds to the bins it has
            import pandas as pd

            s = pd.concat([pd.Series(series[f][1], index=series[f][0]) for f in fids]).groupby(level=0).sum()
            t, v = s.index.to_numpy(dtype=float), s.to_numpy(dtype=float)
        lines.append((f"{label} ({len(fids)} flows)", t, v))
    return ylabel.replace(" (Gb/s)", ", summed per traffic group (Gb/s)" if by_group else ", summed over all flows (Gb/s)"), lines


def _sum_steps(steps: List[Tuple[np.ndarray, np.ndarray]]) -> Tuple[np.ndarray, np.ndarray]:
    """The sum of rate series (each holds a value from its time to the next, is zero
    before its first point and from its last point on: the flow's end)."""
    times, deltas = [], []
    for t, v in steps:
        if len(t) < 2:
            continue
        times += [t[:-1], t[-1:]]
        deltas += [np.diff(np.concatenate([[0.0], v[:-1]])), np.array([-v[-2]])]
    if not times:
        return np.array([]), np.array([])
    t_all = np.concatenate(times)
    d_all = np.concatenate(deltas)
    order = np.argsort(t_all, kind="stable")
    t_s, total = t_all[order], np.cumsum(d_all[order])
    # One point per time: the sum after every change at that time.
    keep = np.append(t_s[1:] != t_s[:-1], True)
    return t_s[keep], total[keep]


def largest_queues(res: Any, n: int) -> List[Tuple[str, np.ndarray, np.ndarray]]:
    """The ``n`` sampled switch egress queues that grew largest (``max_egress_bytes``),
    largest first, as (``node->peer``, times ms, KB summed over priorities); queues
    that never held a byte are left out."""
    ports, samples = res.ports, res.samples
    if not len(samples) or not len(ports):
        return []
    sampled = ports[ports["port_id"].isin(samples["port_id"].unique())]
    peak = sampled.groupby("port_id", sort=True)["max_egress_bytes"].max()
    peak = peak[peak > 0].sort_values(ascending=False, kind="stable")
    names = sampled.drop_duplicates("port_id").set_index("port_id")
    out = []
    for pid in peak.index[:n]:
        q = _queue_series(samples, int(pid))
        out.append((f"{names.at[pid, 'node']}->{names.at[pid, 'peer']}", *q))
    return out


def _queue_series(samples: Any, pid: int) -> Tuple[np.ndarray, np.ndarray]:
    q = samples[samples["port_id"] == pid].groupby("time_ps")["egress_bytes"].sum()
    return q.index.to_numpy(dtype=float) / 1e9, q.to_numpy(dtype=float) / 1e3


def _queue(res: Any, queue: Optional[str]) -> Optional[Tuple[str, np.ndarray, np.ndarray]]:
    """The queue ``NODE:PEER`` (an error if there is no such port or no sample of it),
    or by default the largest one (None if none was sampled)."""
    if not queue:
        top = largest_queues(res, 1)
        return top[0] if top else None
    ports, samples = res.ports, res.samples
    node, _, peer = queue.partition(":")
    sel = ports[(ports["node"] == node) & (ports["peer"] == peer)] if len(ports) else ports
    if sel.empty:
        raise ValueError(f"--queue {queue}: no port of {node} toward {peer}")
    if not len(samples):
        raise NoData(f"--queue {queue}: the run kept no queue samples (stats.sample_interval)")
    t, v = _queue_series(samples, int(sel["port_id"].iloc[0]))
    if not len(t):
        raise NoData(f"--queue {queue}: no samples of that port (not a switch port?)")
    return f"{node}->{peer}", t, v


def _save(fig: Any, out: str) -> Path:
    """The PNG at ``out``, with SVG and PDF copies beside it (``style.save``)."""
    from . import style

    return style.save(fig, out)


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import style

    style.apply()
    return plt


def rate_panel(ax: Any, res: Any, lines: List[Tuple[str, np.ndarray, np.ndarray]], legend_y: float) -> None:
    """Draws ``lines`` (from ``_rate_lines``) as steps, with the fair share when the run
    has one, on ``ax``; a legend below it (``legend_y``, axes units) unless too long."""
    for i, (label, t, v) in enumerate(lines):
        ax.step(t, v, where="post", label=label, **_style(i, len(t)))
    fair = _fair_share(res)
    if fair is not None and lines:
        ax.step(fair[0], fair[1], where="post", color="black", linewidth=1, linestyle=(0, (2, 2)), label="bottleneck rate / active flows")
    if not lines:
        ax.text(0.5, 0.5, "no rate or goodput data", ha="center", va="center", transform=ax.transAxes)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if lines and len(lines) + (fair is not None) <= MAX_LEGEND:
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, legend_y), ncol=min(4, len(lines) + 1), frameon=False)


def queue_panel(ax: Any, res: Any, queues: Sequence[Tuple[str, np.ndarray, np.ndarray]]) -> None:
    """Draws egress queues (KB over ms, from ``largest_queues`` or ``_queue``) on
    ``ax``, with Q_eq when ``[switch.l2cm]`` sets one."""
    if not queues:
        ax.text(0.5, 0.5, "no queue samples", ha="center", va="center", transform=ax.transAxes)
    for i, (name, t, v) in enumerate(queues):
        style = {} if len(queues) == 1 else {k: x for k, x in _style(i, len(t)).items() if k != "alpha"}
        ax.plot(t, v, **{"linewidth": 1, **style}, label=f"queue {name}")
    if queues:
        qeq = _q_eq(res)
        if qeq is not None:
            ax.axhline(qeq / 1e3, color="black", linewidth=1, linestyle=(0, (2, 2)), label="Q_eq")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)


def fct_panel(ax: Any, table: Any, percentiles: Sequence[float]) -> None:
    """Draws slowdown percentiles per size bin (rows of ``fct_by_size`` with finished
    flows), one line per (group, percentile), log-log, on ``ax``."""
    cols = [f"slowdown_p{p:g}".replace(".", "") for p in percentiles]
    i = 0
    # By name where the table has them (pools share group -1 but not their label).
    key = "group_name" if "group_name" in table.columns else "group"
    groups = list(dict.fromkeys(table[key])) if key == "group_name" else sorted(table["group"].unique())
    for grp in groups:
        g = table[table[key] == grp]
        for c, p in zip(cols, percentiles):
            name = grp if key == "group_name" else f"group {grp}"
            label = f"p{p:g}" + (f" {name}" if len(groups) > 1 else "")
            ls, marker = STYLES[i % len(STYLES)]
            ax.plot(g["size_hi"], g[c], linestyle=ls, marker=marker, markersize=4, linewidth=1.2, label=label)
            i += 1
    if not len(table):
        ax.text(0.5, 0.5, "no finished flows", ha="center", va="center", transform=ax.transAxes)
    elif i <= MAX_LEGEND:
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(4, i), frameon=False)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(alpha=0.3, which="both")
    ax.set_xlabel("flow size (bytes, upper edge of the bin)")


def fct_table(res: Any, percentiles: Sequence[float], edges: Optional[Sequence[float]] = None, groups: Any = None) -> Any:
    """The rows of ``fct_by_size`` that ``fct_panel`` can draw (finished flows, size > 0),
    of the traffic groups ``groups`` chooses and pools (``analysis.Groups``); by default
    each group on its own, or all pooled when that would draw more than ``MAX_LEGEND``
    lines."""
    from .analysis import fct_by_size, group_names

    if groups is None:
        # More lines than a legend can name: every flow pooled, one line per percentile.
        from .analysis import _finite

        present = set(_finite(res.flows)["group"]) if len(res.flows) else set()
        if len(present) * len(percentiles) > MAX_LEGEND and len(group_names(res)) > 1:
            groups = "all"
    t = fct_by_size(res, edges=edges, percentiles=percentiles, groups=groups)
    return t[(t["finished"] > 0) & (t["size_hi"] > 0)]


def fct_ylabel(edges: Optional[Sequence[float]]) -> str:
    share = "fixed size bins" if edges is not None else "bins of 5 % of the flows"
    return f"FCT slowdown ({share})"


def render(run_dirs: Sequence[str], out: str, queue: Optional[str] = None, titles: Optional[List[str]] = None) -> Path:
    """Rates (or goodput) and a queue over time, one column per run; see the module."""
    runs = [_load(d) for d in run_dirs]
    tops = [_rate_lines(r) for r in runs]
    queues = [_queue(r, queue) for r in runs]
    if not any(lines for _, lines in tops) and not any(queues):
        raise NoData("nothing to plot: the runs have no rate changes, goodput series or queue samples")
    rows = 2 if any(queues) else 1
    plt = pyplot()
    n = len(runs)
    fig, axes = plt.subplots(rows, n, figsize=(4.5 * n + 1.5, 3.2 * rows), squeeze=False, sharex=True, sharey="row", layout="constrained")
    for col, (res, (ylabel, lines), q) in enumerate(zip(runs, tops, queues)):
        ax = axes[0][col]
        ax.set_title(titles[col] if titles else res.summary.get("name", run_dirs[col]))
        rate_panel(ax, res, lines, -0.08 if rows == 1 else -0.1)
        if col == 0 or ylabel != tops[col - 1][0]:
            ax.set_ylabel(ylabel or "Gb/s")
        if rows == 2:
            ax = axes[1][col]
            queue_panel(ax, res, [q] if q is not None else [])
            if col == 0:
                ax.set_ylabel("egress queue (KB)")
        axes[rows - 1][col].set_xlabel("time (ms)")
    return _save(fig, out)


def render_fct(
    run_dirs: Sequence[str],
    out: str,
    titles: Optional[List[str]] = None,
    percentiles: Sequence[float] = (50, 95, 99),
    edges: Optional[Sequence[float]] = None,
    groups: Any = None,
) -> Path:
    """Slowdown percentiles per flow-size bin, one column per run, log-log, axes shared.
    x is the largest flow size of the bin (its upper edge with ``edges``). ``groups``
    chooses the traffic groups drawn and pools them (``analysis.Groups``: ``"all"``
    pools every flow)."""
    runs = [_load(d) for d in run_dirs]
    usable = [fct_table(r, percentiles, edges, groups) for r in runs]
    if not any(len(t) for t in usable):
        raise NoData("nothing to plot: no finished flow of finite size in " + ", ".join(str(d) for d in run_dirs))
    fig, axes = _columns(runs, run_dirs, titles, 3.6, sharex=True)
    for ax, t in zip(axes, usable):
        fct_panel(ax, t, percentiles)
    axes[0].set_ylabel(fct_ylabel(edges))
    return _save(fig, out)


def _jobs_table(res: Any) -> Any:
    return res.table("jobs") if "jobs" in res.names else None


def jobs_panel(ax: Any, res: Any) -> None:
    """Iteration time (ms) per iteration, one line per job, its ideal dashed."""
    j = _jobs_table(res)
    ideal = {x["job"]: x["ideal_iteration_ps"] for x in res.summary.get("jobs", [])}
    for i, (name, g) in enumerate(j.groupby("job", sort=False, observed=True)):
        ls, marker = STYLES[i % len(STYLES)]
        line = ax.plot(g["iteration"], g["iteration_ps"] / 1e9, linestyle=ls, marker=marker, label=str(name))[0]
        if name in ideal:
            ax.axhline(ideal[name] / 1e9, color=line.get_color(), linestyle=":", linewidth=1)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("iteration")
    ax.set_ylabel("iteration time (ms); dotted: ideal")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def collectives_panel(ax: Any, res: Any) -> None:
    """Each collective instance as a bar from its start to its finish, one row per
    (job, layer)."""
    c = res.table("collectives")
    keys = list(dict.fromkeys(zip(c["job"].astype(str), c["layer"])))
    row = {k: i for i, k in enumerate(keys)}
    for r in c.itertuples():
        y = row[(str(r.job), r.layer)]
        ax.barh(y, (r.finish_ps - r.start_ps) / 1e9, left=r.start_ps / 1e9, height=0.6, color=f"C{keys.index((str(r.job), r.layer)) % 10}")
    ax.set_yticks(range(len(keys)), [f"{j} layer {k}" for j, k in keys], fontsize=8)
    ax.set_xlabel("time (ms)")
    ax.grid(alpha=0.3, axis="x")


def render_jobs(run_dirs: Sequence[str], out: str, titles: Optional[List[str]] = None) -> Path:
    """Iteration times per job, one column per run, axes shared."""
    runs = [_load(d) for d in run_dirs]
    has = [_jobs_table(r) is not None and len(_jobs_table(r)) > 0 for r in runs]
    if not any(has):
        raise NoData("nothing to plot: no job finished an iteration in " + ", ".join(str(d) for d in run_dirs))
    fig, axes = _columns(runs, run_dirs, titles, 3.6)
    for ax, res, h in zip(axes, runs, has):
        if h:
            jobs_panel(ax, res)
    return _save(fig, out)


#: Switches drawn by ``render_pauses``; the rest are counted in the title.
MAX_SWITCHES = 16


def _columns(
    runs: Sequence[Any], run_dirs: Sequence[str], titles: Optional[List[str]], height: float, sharex: Any = False, sharey: Any = True
) -> Tuple[Any, Any]:
    """A figure of one column per run, each titled (``titles``, or the run's name)."""
    plt = pyplot()
    n = len(runs)
    fig, axes = plt.subplots(1, n, figsize=(4.5 * n + 1, height), squeeze=False, sharex=sharex, sharey=sharey, layout="constrained")
    for col, res in enumerate(runs):
        axes[0][col].set_title(titles[col] if titles else res.summary.get("name", run_dirs[col]))
    return fig, axes[0]


def cdf_panel(ax: Any, res: Any, groups: Any = None) -> int:
    """The empirical CDF of FCT slowdown over the finished flows of each traffic group
    (``analysis.Groups``; pooled when there are more groups than ``MAX_LEGEND``), log x.
    Returns the number of lines drawn."""
    from .analysis import _finite, group_names, select_groups

    f = res.flows
    f = _finite(f)[lambda d: d["fct_ps"] >= 0] if len(f) else f
    if not len(f):
        return 0
    if groups is None and f["group"].nunique() > MAX_LEGEND and len(group_names(res)) > 1:
        groups = "all"
    drawn = 0
    for i, (_, label, g) in enumerate(select_groups(res, f, groups)):
        sd = np.sort(g["slowdown"].to_numpy(dtype=float))
        if not len(sd):
            continue
        ls, _ = STYLES[i % len(STYLES)]
        ax.step(sd, np.arange(1, len(sd) + 1) / len(sd), where="post", linestyle=ls, linewidth=1.3, label=f"{label} ({len(sd)} flows)")
        drawn += 1
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("FCT slowdown")
    ax.grid(alpha=0.3, which="both")
    if drawn:
        ax.legend(fontsize=7, loc="lower right")
    return drawn


def render_cdf(run_dirs: Sequence[str], out: str, titles: Optional[List[str]] = None, groups: Any = None) -> Path:
    """The CDF of FCT slowdown per traffic group, one column per run, axes shared."""
    runs = [_load(d) for d in run_dirs]
    fig, axes = _columns(runs, run_dirs, titles, 3.6)
    drawn = [cdf_panel(ax, res, groups) for ax, res in zip(axes, runs)]
    if not any(drawn):
        import matplotlib.pyplot as plt

        plt.close(fig)
        raise NoData("nothing to plot: no finished flow of finite size in " + ", ".join(str(d) for d in run_dirs))
    axes[0].set_ylabel("fraction of flows")
    return _save(fig, out)


def pauses_panel(ax: Any, res: Any, t: Any = None) -> bool:
    """Horizontal bars: the share (%) of its (port, priority) rows' time each switch spent
    paused, the ``MAX_SWITCHES`` most paused (``t``: ``pause_by_switch`` if already
    made). False when no switch was paused."""
    from .analysis import pause_by_switch

    t = pause_by_switch(res) if t is None else t
    paused = t[t["paused_ps"] > 0]
    if not len(paused):
        ax.text(0.5, 0.5, "no switch was paused", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        return False
    top = paused.head(MAX_SWITCHES).iloc[::-1]
    ax.barh(range(len(top)), 100 * top["pause_fraction"].to_numpy(dtype=float), color="C3")
    ax.set_yticks(range(len(top)), top["node"].tolist(), fontsize=8)
    ax.set_xlabel("time paused (% of port-priority time)")
    ax.grid(alpha=0.3, axis="x")
    rest = len(t) - len(top)
    if rest:
        more = f"{rest} more switch" + ("es" if rest > 1 else "")
        ax.set_title(f"{ax.get_title()}\n({more}, {len(paused) - len(top)} of them paused)", fontsize=9)
    return True


def render_pauses(run_dirs: Sequence[str], out: str, titles: Optional[List[str]] = None) -> Path:
    """PFC pause per switch, one column per run (each its own switches)."""
    runs = [_load(d) for d in run_dirs]
    fig, axes = _columns(runs, run_dirs, titles, 0.6 + 0.25 * MAX_SWITCHES, sharey=False)
    drawn = [pauses_panel(ax, res) for ax, res in zip(axes, runs)]
    if not any(drawn):
        import matplotlib.pyplot as plt

        plt.close(fig)
        raise NoData("nothing to plot: no switch was paused in " + ", ".join(str(d) for d in run_dirs))
    return _save(fig, out)
