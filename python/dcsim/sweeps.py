"""Parameter sweeps: run one scenario over a grid of settings, one row per point.

A failed point is recorded in the ``error`` column and does not stop the others; the
CLI writes each row as soon as it is computed, so an interrupted sweep keeps what it has.
"""

from __future__ import annotations

import csv
import itertools
import math
import sys
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

from ._native import DcsimError
from ._toml import format_value


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index (Jain, Chiu and Hawe, 1984): 1 for equal shares, 1/n at worst."""
    xs = [x for x in xs if not math.isnan(x)]
    if not xs or sum(xs) == 0:
        return float("nan")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


#: Equal-count flow-size bins of the sweep's per-bin slowdown columns (5 % of the flows
#: each, the HPCC study's convention, as ``fct_by_size``'s default).
SIZE_BINS = 20
#: Slowdown percentiles reported per size bin.
BIN_PERCENTILES: Sequence[float] = (50, 99)


def metrics(res: Any, per_flow: bool = False, size_bins: int = SIZE_BINS) -> Dict[str, Any]:
    """The summary numbers of one run that a sweep reports (see ``dcsim.analysis``).

    Goodput is the aggregate delivered goodput (payload delivered / run time), never a
    sum of per-flow goodputs over their own lifetimes. Per-flow goodput aggregates
    (min, max, Jain's index) cover the long-lived flows only and are left out when there
    are none; FCT and slowdown columns are per traffic group (suffix ``_g<i>``), and per
    flow-size bin of the group (suffix ``_g<i>_b<j>``: ``res.fct_by_size(bins=size_bins)``,
    its largest flow size, finished flows, slowdown p50 and p99)."""
    from . import analysis

    c = res.summary["counters"]
    lat = res.summary.get("latency_ps") or {}
    row: Dict[str, Any] = dict(analysis.aggregate(res))
    util = analysis.link_utilization(res)
    row["link_util_max"] = float(util["utilization"].max()) if len(util) else float("nan")
    fabric = util[util["kind"] != "host"] if len(util) else util
    row["link_util_mean"] = float(fabric["utilization"].mean()) if len(fabric) else float("nan")
    ports = res.ports
    dur = res.summary["duration_ps"]
    row["paused_ps_total"] = int(ports["paused_ps"].sum()) if len(ports) else 0
    row["pause_fraction_max"] = float(ports["paused_fraction"].max()) if len(ports) else 0.0
    row["pause_fraction_mean"] = (row["paused_ps_total"] / (len(ports) * dur)) if len(ports) and dur else 0.0
    ll = analysis.long_lived_goodput(res)
    if ll is not None:
        row.update(ll)
    row.update({
        "drops": c["drops_total"],
        "pfc_xoff": c["pfc_xoff_sent"],
        "ecn_marked": c.get("ecn_marked", 0),
        "cnps": c.get("cnps_sent", 0),
        "flows_finished": c["flows_finished"],
        "latency_p50_ps": lat.get("p50"),
        "latency_p99_ps": lat.get("p99"),
    })
    for g in analysis.fct_by_group(res).itertuples(index=False):
        k = f"_g{g.group}"
        row["flows" + k] = g.flows
        row["finished" + k] = g.finished
        row["fct_p50_ps" + k] = g.fct_p50_ps
        row["fct_p99_ps" + k] = g.fct_p99_ps
        row["slowdown_mean" + k] = g.slowdown_mean
        row["slowdown_p50" + k] = g.slowdown_p50
        row["slowdown_p95" + k] = g.slowdown_p95
        row["slowdown_p99" + k] = g.slowdown_p99
    width = len(str(max(size_bins - 1, 0)))
    for b in analysis.fct_by_size(res, bins=size_bins, percentiles=BIN_PERCENTILES).itertuples(index=False):
        k = f"_g{b.group}_b{b.bin:0{width}d}"
        row["size_hi" + k] = int(b.size_hi)
        row["finished" + k] = b.finished
        for p in BIN_PERCENTILES:
            col = f"slowdown_p{p:g}"
            row[col + k] = getattr(b, col)
    if per_flow:
        f = res.flows
        for r in f.itertuples(index=False):
            row[f"goodput_{r.src}->{r.dst}"] = r.goodput_steady_gbps
    return row


def points(grid: Mapping[str, Sequence[Any]]) -> Iterator[Dict[str, Any]]:
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values))


def run_points(scenario: Any, grid: Mapping[str, Sequence[Any]], overrides: Sequence[str] = (),
               per_flow: bool = False, on_row: Optional[Callable[[Dict[str, Any]], None]] = None) -> List[Dict[str, Any]]:
    from . import run

    rows = []
    for p in points(grid):
        row: Dict[str, Any] = dict(p)
        sets = list(overrides) + [f"{k}={format_value(v, k)}" for k, v in p.items()]
        try:
            row.update(metrics(run(scenario, overrides=sets), per_flow))
            row["error"] = ""
        except DcsimError as e:
            row["error"] = str(e)
        rows.append(row)
        if on_row:
            on_row(row)
    return rows


def sweep(scenario: Any, grid: Mapping[str, Sequence[Any]], *, overrides: Sequence[str] = (), per_flow: bool = False):
    """Runs ``scenario`` once per point of ``grid`` (setting path -> values) and returns a
    DataFrame: the point's settings, the columns of ``metrics`` (aggregate goodput, link
    utilisation, PFC pause time, long-lived flows' goodput spread, drops, PFC, ECN and
    CNP counts, latency percentiles, FCT and slowdowns per traffic group) and an
    ``error`` column (empty for a point that ran)."""
    import pandas as pd

    return pd.DataFrame(run_points(scenario, grid, overrides, per_flow))


def parse_grid(specs: Sequence[str]) -> Dict[str, List[Any]]:
    """``path=v1,v2,...`` strings to a grid; numbers become numbers, the rest strings."""
    grid: Dict[str, List[Any]] = {}
    for spec in specs:
        path, sep, values = spec.partition("=")
        if not sep or not path.strip() or not values.strip():
            raise ValueError(f"--grid '{spec}': expected path=value1,value2,...")
        out: List[Any] = []
        for v in values.split(","):
            v = v.strip()
            try:
                out.append(int(v))
            except ValueError:
                try:
                    out.append(float(v))
                except ValueError:
                    out.append({"true": True, "false": False}.get(v, v))
        grid[path.strip()] = out
    return grid


def cli(scenario: str, grid_specs: Sequence[str], overrides: Sequence[str], out: Optional[str], per_flow: bool) -> int:
    """``dcsim sweep``: every point runs, even after a failure; rows are written as they
    come (the header is taken from the first point that ran, so the failed points before
    it wait for it). Returns 1 if any point failed, 0 otherwise."""
    grid = parse_grid(grid_specs)
    n = 1
    for v in grid.values():
        n *= len(v)
    fh = open(out, "w", newline="") if out else sys.stdout
    writer: Optional[csv.DictWriter] = None
    pending: List[Dict[str, Any]] = []
    done = [0]
    failed = [0]

    def start(fields: List[str]) -> csv.DictWriter:
        if "error" in fields:
            fields = [f for f in fields if f != "error"] + ["error"]
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        return w

    def on_row(row: Dict[str, Any]) -> None:
        nonlocal writer
        done[0] += 1
        failed[0] += bool(row["error"])
        if writer is None and row["error"]:
            pending.append(row)
        else:
            if writer is None:
                writer = start(list(row))
            for r in pending + [row]:
                writer.writerow(r)
            pending.clear()
            fh.flush()
        print(f"\rsweep: {done[0]}/{n} points", end="", file=sys.stderr, flush=True)

    try:
        run_points(scenario, grid, overrides, per_flow, on_row)
    finally:
        if pending:
            if writer is None:
                writer = start(list(pending[0]))
            for r in pending:
                writer.writerow(r)
        print(file=sys.stderr)
        if out:
            fh.close()
    if failed[0]:
        print(f"{failed[0]} of {n} points failed (see the error column)", file=sys.stderr)
        return 1
    return 0
