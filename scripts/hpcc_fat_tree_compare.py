"""The HPCC study's large-scale comparison: runs `scenarios/hpcc_fat_tree_hadoop_*`
(DCQCN, DCQCN+win, TIMELY, TIMELY+win, DCTCP, HPCC at 30 % and 50 % load) and prints FCT
slowdown p50/p95/p99 per flow-size bin as a Markdown table.

    python scripts/hpcc_fat_tree_compare.py                 # the shipped CI-sized runs
    python scripts/hpcc_fat_tree_compare.py --duration 20ms --stop 10ms  # full

`--duration D --stop S` set simulation.duration and the end of flow arrivals. Size bins
are fixed edges (bytes) so that algorithms are compared on the same flows."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import dcsim

ROOT = Path(__file__).resolve().parents[1]
ALGOS = ["dcqcn", "dcqcn_win", "timely", "timely_win", "dctcp", "hpcc"]
EDGES = [1e3, 1e4, 1e5, 1e6, 1e9]


def scenario(algo: str, load: int) -> Path:
    if algo == "hpcc" and load == 30:
        return ROOT / "scenarios" / "hpcc_fat_tree_hadoop_hpcc.toml"
    return ROOT / "scenarios" / f"hpcc_fat_tree_hadoop_{algo}_{load}.toml"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", help="simulation.duration (default: the scenario's)")
    ap.add_argument("--stop", help="traffic[0].stop: end of flow arrivals")
    ap.add_argument("--loads", default="30,50")
    ap.add_argument("--algos", default=",".join(ALGOS))
    a = ap.parse_args(argv)
    ov = []
    if a.duration:
        ov.append(f"simulation.duration={a.duration}")
    if a.stop:
        ov.append(f"traffic[0].stop={a.stop}")
    print("| load | algorithm | size bin (B) | flows | finished | p50 | p95 | p99 |")
    print("|---|---|---|---|---|---|---|---|")
    for load in (int(x) for x in a.loads.split(",")):
        for algo in a.algos.split(","):
            res = dcsim.run(scenario(algo, load), overrides=ov)
            t = res.fct_by_size(edges=EDGES, by_group=False)
            for _, r in t.iterrows():
                print(f"| {load} % | {algo} | {r.size_lo:.0f}-{r.size_hi:.0f} | {int(r.flows)} | {int(r.finished)} "
                      f"| {r.slowdown_p50:.2f} | {r.slowdown_p95:.2f} | {r.slowdown_p99:.2f} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
