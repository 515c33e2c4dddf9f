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
    """Jain's fairness index (metrics.md 12.5): 1 for equal shares, 1/n at worst."""
    xs = [x for x in xs if not math.isnan(x)]
    if not xs or sum(xs) == 0:
        return float("nan")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def metrics(res: Any, per_flow: bool = False) -> Dict[str, Any]:
    """The summary numbers of one run that a sweep reports."""
    f = res.flows
    c = res.summary["counters"]
    lat = res.summary["latency_ns"]
    g = list(f["goodput_steady_gbps"]) if len(f) else []
    row: Dict[str, Any] = {
        "goodput_total_gbps": sum(x for x in g if not math.isnan(x)),
        "goodput_min_gbps": min(g) if g else float("nan"),
        "goodput_max_gbps": max(g) if g else float("nan"),
        "jain": jain(g),
        "drops": c["drops_total"],
        "pfc_xoff": c["pfc_xoff_sent"],
        "ecn_marked": c.get("ecn_marked", 0),
        "cnps": c.get("cnps_sent", 0),
        "flows_finished": c["flows_finished"],
        "latency_p50_ns": lat.get("p50"),
        "latency_p99_ns": lat.get("p99"),
    }
    done = f[f["fct_ps"] > 0] if len(f) else f
    if len(done):
        row["slowdown_mean"] = float(done["slowdown"].mean())
        row["slowdown_p99"] = float(done["slowdown"].quantile(0.99))
    if per_flow:
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
    DataFrame: the point's settings, goodput total / min / max, Jain's index, drops, PFC,
    ECN and CNP counts, latency percentiles and slowdowns, and an ``error`` column."""
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
    grid = parse_grid(grid_specs)
    n = 1
    for v in grid.values():
        n *= len(v)
    fh = open(out, "w", newline="") if out else sys.stdout
    writer: Optional[csv.DictWriter] = None
    done = [0]
    failed = [0]

    def on_row(row: Dict[str, Any]) -> None:
        nonlocal writer
        if writer is None:
            writer = csv.DictWriter(fh, fieldnames=list(row), extrasaction="ignore")
            writer.writeheader()
        writer.writerow(row)
        fh.flush()
        done[0] += 1
        failed[0] += bool(row["error"])
        print(f"\rsweep: {done[0]}/{n} points", end="", file=sys.stderr, flush=True)

    try:
        run_points(scenario, grid, overrides, per_flow, on_row)
    finally:
        print(file=sys.stderr)
        if out:
            fh.close()
    if failed[0]:
        print(f"{failed[0]} of {n} points failed (see the error column)", file=sys.stderr)
    return 1 if failed[0] == n else 0
