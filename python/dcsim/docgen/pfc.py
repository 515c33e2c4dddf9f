"""PFC (docs/models/pfc.md): the parking-lot rows of the validation table."""

from __future__ import annotations

from .common import block, gbps, run, steady

#: Liu, Russell et al. (2015), Table II: A, B, C and D on the PFC parking lot (Gb/s;
#: simulation and hardware within 3 %).
PFC_PUBLISHED = [6.3, 6.3, 6.3, 18.9]


@block(short=True)
def pfc_validation() -> str:
    """docs/models/pfc.md: the parking-lot rows of the validation table."""
    res = run("seed000_parking_lot_pfc.toml")
    per = run("seed000_parking_lot_pfc.toml", "switch.arbitration=per_flow")
    g = steady(res)
    head = ["| check | scenario | published / expected | dcsim | verdict |", "|---|---|---|---|---|"]

    def off(x: float, ref: float) -> str:
        d = (x / ref - 1) * 100
        return f"{d:+.1f} %, {'within' if abs(d) <= 3 else 'outside'} 3 %"

    rows = [
        f"| PFC parking lot, A / B / C | `scenarios/seed000_parking_lot_pfc.toml` | 6.3 Gb/s each (seed 000, "
        f"Table II, sim and hardware within 3 %) | {' / '.join(gbps(x) for x in g[:3])} Gb/s | {off(max(g[:3]), PFC_PUBLISHED[0])} |",
        f"| PFC parking lot, D | same | 18.9 Gb/s | {gbps(g[3])} Gb/s | {off(g[3], PFC_PUBLISHED[3])} |",
        f"| sum of shares vs R's payload ceiling | same | 40 x 2048 / 2130 = 38.46 Gb/s | {gbps(sum(g))} Gb/s, "
        f"{int(res.summary['counters']['drops_total'])} drops | "
        f"{'saturated' if abs(sum(g) - 38.46) < 0.01 else 'below the ceiling'} |",
        f"| per-flow arbitration | same, `--set switch.arbitration=per_flow` | 4 equal shares of 9.61 Gb/s | "
        f"{' / '.join(gbps(x) for x in steady(per))} Gb/s | "
        f"{'equal' if max(steady(per)) - min(steady(per)) < 0.05 else 'unequal'} |",
    ]
    return "\n".join(head + rows) + "\n"
