"""The HPCC study's large-scale comparison: runs `scenarios/hpcc_fat_tree_{hadoop,websearch}_*`
(DCQCN, DCQCN+win, TIMELY, TIMELY+win, DCTCP, HPCC at 30 % and 50 % load) and prints FCT
slowdown p50/p95/p99 per flow-size bin, one Markdown table per workload and load.

    python scripts/hpcc_fat_tree_compare.py                 # the shipped CI-sized runs
    python scripts/hpcc_fat_tree_compare.py --duration 20ms --stop 10ms  # full

`--duration D --stop S` set simulation.duration and the end of flow arrivals, `--set
KEY=VALUE` any other scenario key (as `dcsim run --set`). Size bins are fixed edges
(bytes) so that algorithms are compared on the same flows. Each run's wall time, event
count, drops and run checks go to stderr; `--save DIR` also writes each run's results
(`DIR/<scenario name>/`, see docs/outputs.md) and `--load-from DIR` prints the tables
from them without running again."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

import dcsim
from dcsim._toml import loads

ROOT = Path(__file__).resolve().parents[1]
ALGOS = ["dcqcn", "dcqcn_win", "timely", "timely_win", "dctcp", "hpcc"]
WORKLOADS = ["hadoop", "websearch"]
EDGES = [1e3, 1e4, 1e5, 1e6, 1e7, 1e9]


def scenario(workload: str, algo: str, load: int) -> Path:
    if workload == "hadoop" and algo == "hpcc" and load == 30:
        return ROOT / "scenarios" / "hpcc_fat_tree_hadoop_hpcc.toml"
    return ROOT / "scenarios" / f"hpcc_fat_tree_{workload}_{algo}_{load}.toml"


def report(res: dcsim.Results, wall: float) -> str:
    s = res.summary
    c = s["counters"]
    lossless = s["checks"]["lossless_no_drops"].get("lossless_drops", 0)
    return (
        f"{s['name']}: wall {wall:.1f} s, events {s['events']}, flows {c['flows_finished']}/{c['flows']} "
        f"finished, drops {c['drops_total']} (lossless {lossless}), checks {'ok' if s['checks']['ok'] else 'FAILED'}"
    )


def size_label(lo: float, hi: float) -> str:
    def k(x: float) -> str:
        return f"{x / 1e6:g}M" if x >= 1e6 else f"{x / 1e3:g}K"

    return f"<= {k(hi)}" if lo == 0 else (f"> {k(lo)}" if hi == EDGES[-1] else f"{k(lo)}-{k(hi)}")


def table(workload: str, load: int, runs: dict[str, pd.DataFrame]) -> str:
    """One Markdown table per workload and load: a row per size bin, a column per algorithm,
    each cell the slowdown p50 / p95 / p99; unfinished flows are named below the table."""
    algos = list(runs)
    first = runs[algos[0]]
    lines = [
        f"{workload}, {load} % load (slowdown p50 / p95 / p99):",
        "",
        "| size (B) | flows | " + " | ".join(algos) + " |",
        "|---|---" + "|---" * len(algos) + "|",
    ]
    for i, r in first.iterrows():
        if r.flows == 0:
            continue
        cells = [
            f"{t.loc[i, 'slowdown_p50']:.2f} / {t.loc[i, 'slowdown_p95']:.2f} / {t.loc[i, 'slowdown_p99']:.2f}"
            if t.loc[i, "finished"]
            else "-"
            for t in runs.values()
        ]
        lines.append(f"| {size_label(r.size_lo, r.size_hi)} | {int(r.flows)} | " + " | ".join(cells) + " |")
    unfinished = {a: int(t.flows.sum() - t.finished.sum()) for a, t in runs.items()}
    if any(unfinished.values()):
        lines += ["", "Unfinished flows (no slowdown): " + ", ".join(f"{a} {n}" for a, n in unfinished.items()) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", help="simulation.duration (default: the scenario's)")
    ap.add_argument("--stop", help="traffic[0].stop: end of flow arrivals")
    ap.add_argument("--workload", choices=[*WORKLOADS, "both"], default="both")
    ap.add_argument("--loads", default="30,50")
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a further override for every run (repeatable), e.g. host.cc.max_stage=0",
    )
    ap.add_argument("--save", type=Path, help="write each run's results under this directory")
    ap.add_argument("--load-from", type=Path, metavar="DIR", help="read the runs saved by --save under DIR instead of running them")
    a = ap.parse_args(argv)
    ov = []
    if a.duration:
        ov.append(f"simulation.duration={a.duration}")
    if a.stop:
        ov.append(f"traffic[0].stop={a.stop}")
    ov += a.set
    workloads = WORKLOADS if a.workload == "both" else [a.workload]
    ok = True
    for workload in workloads:
        for load in (int(x) for x in a.loads.split(",")):
            runs = {}
            for algo in a.algos.split(","):
                path = scenario(workload, algo, load)
                if a.load_from:
                    res = dcsim.load_run(a.load_from / loads(path.read_text())["name"])
                else:
                    t0 = time.perf_counter()
                    res = dcsim.run(path, overrides=ov)
                    print(report(res, time.perf_counter() - t0), file=sys.stderr, flush=True)
                    if a.save:
                        res.write(a.save / res.summary["name"])
                ok &= bool(res.summary["checks"]["ok"])
                runs[algo] = res.fct_by_size(edges=EDGES, by_group=False)
            print(table(workload, load, runs), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
