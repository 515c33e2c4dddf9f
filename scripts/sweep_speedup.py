#!/usr/bin/env python3
"""Speed-up of a local-pool sweep: the same sweep with ``--jobs 1`` and ``--jobs 2``,
interleaved (1, 2, 1, 2, ...) so that a change of machine load hits both alike.

Each sweep runs in a fresh Python process (as ``dcsim sweep`` does), into a new store,
and reports its wall time, the CPU time of the sweep's own process (start-up: the
interpreter and its imports; then plans, store rows, the pool) and of its point processes. Per pair it prints the wall-time
ratio (jobs 1 / jobs 2) and the ratio the CPU times allow on two free cores (start-up
serial, the rest shared out); at the end their medians, the CPU per point and the load
average. Usage::

    python scripts/sweep_speedup.py --pairs 5
    python scripts/sweep_speedup.py --pairs 3 --set simulation.duration=50ms --points 16

The method and the figures measured are in docs/store.md (Speed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KMAX = [
    f"{k}KB"
    for k in (10, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 800, 1000, 1200, 1500, 2000, 2500, 3000, 4000, 5000)
]


def _cpu(r: resource.struct_rusage) -> float:
    return r.ru_utime + r.ru_stime


def one(jobs: int, scenario: str, sets: list[str], points: int, store: str) -> dict[str, float]:
    """Runs one sweep in this process (called in a fresh interpreter by ``main``)."""
    t0 = time.perf_counter()
    from dcsim import sweeps  # the CLI's own import, timed with the sweep

    startup = _cpu(resource.getrusage(resource.RUSAGE_SELF))  # interpreter and imports
    self0, kids0 = _cpu(resource.getrusage(resource.RUSAGE_SELF)), _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
    grid = ["switch.ecn.kmax=" + ",".join(KMAX[:points])]
    devnull = open(os.devnull, "w")
    err, sys.stderr = sys.stderr, devnull  # the progress bar
    out, sys.stdout = sys.stdout, devnull
    try:
        rc = sweeps.cli(scenario, grid, None, sweeps.Options(overrides=sets, jobs=jobs), store)
    finally:
        sys.stderr, sys.stdout = err, out
    wall = time.perf_counter() - t0
    return {
        "rc": rc,
        "wall": wall,
        "startup_cpu": startup,
        "parent_cpu": _cpu(resource.getrusage(resource.RUSAGE_SELF)) - self0,
        "points_cpu": _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - kids0,
    }


def measure(jobs: int, args: argparse.Namespace, tmp: Path, k: int) -> dict[str, float]:
    store = tmp / f"s{k}-{jobs}"
    cmd = [sys.executable, __file__, "--one", str(jobs), "--points", str(args.points), "--scenario", args.scenario, "--store", str(store)]
    for s in args.set:
        cmd += ["--set", s]
    r0 = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    res = json.loads(p.stdout.strip().splitlines()[-1])
    if res["rc"] != 0:
        sys.exit(f"the sweep failed (exit {res['rc']})")
    res["process_wall"] = wall
    res["total_cpu"] = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - r0
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--points", type=int, default=16, help=f"sweep points (kmax values, at most {len(KMAX)})")
    ap.add_argument("--scenario", default=str(REPO / "scenarios" / "dcqcn_2to1.toml"))
    ap.add_argument("--set", action="append", default=None, help="a --set of every point (repeatable)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.set is None:
        args.set = []
    if not 1 <= args.points <= len(KMAX):
        ap.error(f"--points: 1 to {len(KMAX)}")
    if args.one:
        print(json.dumps(one(args.one, args.scenario, args.set, args.points, args.store)))
        return
    print(
        f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}, "
        f"{os.cpu_count()} CPUs; {args.points} points of {Path(args.scenario).name} {' '.join(args.set)}"
    )
    print(
        f"{'pair':>4} {'wall j1':>8} {'wall j2':>8} {'ratio':>6}  {'cpu/pt j1':>9} {'cpu/pt j2':>9} "
        f"{'parent j1':>9} {'parent j2':>9} {'startup':>7} {'cpu bound':>9}"
    )
    ratios, bounds, rows = [], [], []
    with tempfile.TemporaryDirectory(prefix="sweep_speedup") as d:
        for k in range(args.pairs):
            a = measure(1, args, Path(d), k)
            b = measure(2, args, Path(d), k)
            ratios.append(a["process_wall"] / b["process_wall"])
            # What the ratio would be with the two cores to itself: the start-up is serial,
            # the rest (points, and the sweep process's own work beside them) shared out.
            bounds.append(
                (a["startup_cpu"] + a["parent_cpu"] + a["points_cpu"]) / (b["startup_cpu"] + (b["parent_cpu"] + b["points_cpu"]) / 2)
            )
            rows += [a, b]
            n = args.points
            print(
                f"{k:>4} {a['process_wall']:>8.2f} {b['process_wall']:>8.2f} {ratios[-1]:>6.2f}  "
                f"{a['points_cpu'] / n:>9.3f} {b['points_cpu'] / n:>9.3f} "
                f"{a['parent_cpu']:>9.2f} {b['parent_cpu']:>9.2f} {a['startup_cpu']:>7.2f} {bounds[-1]:>9.2f}",
                flush=True,
            )
    j1 = rows[0::2]
    print(
        f"median ratio {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}); "
        f"median CPU per point {statistics.median(r['points_cpu'] for r in j1) / args.points:.3f} s, "
        f"sweep process {statistics.median(r['parent_cpu'] for r in j1):.2f} s CPU after "
        f"{statistics.median(r['startup_cpu'] for r in j1):.2f} s CPU of start-up (interpreter, imports); "
        f"ratio on free cores from the CPU times {statistics.median(bounds):.2f}; "
        f"load after: {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
