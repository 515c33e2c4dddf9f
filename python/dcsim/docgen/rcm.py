"""RCM (docs/models/rcm.md): seed 000 Table II, the rule variants and the threshold sweeps."""

from __future__ import annotations

import functools
from typing import Any, List, Sequence, Tuple

from .common import block, jain, run, spaced, steady

RCM_PUBLISHED = {
    "seed000_parking_lot_rcm_1a.toml": [9.37, 9.42, 9.51, 9.72],
    "seed000_parking_lot_rcm_1b.toml": [9.29, 9.35, 9.43, 9.69],
}


@block(short=True)
def rcm_table2() -> str:
    """rcm.md: Table II of the seed study with RCM, published against dcsim."""
    out = ["| scenario | flow | published (Gb/s) | dcsim (Gb/s) | difference |", "|---|---|---|---|---|"]
    facts = []
    for sc, pub in RCM_PUBLISHED.items():
        res = run(sc)
        g = steady(res)
        for i, (name, p, d) in enumerate(zip("ABCD", pub, g)):
            first = f" `{sc}` " if i == 0 else " "
            out.append(f"|{first}| {name} | {p:.2f} | {d:.2f} | {(d / p - 1) * 100:+.1f} % |")
        out.append(f"| | total | {sum(pub):.2f} | {sum(g):.2f} | {(sum(g) / sum(pub) - 1) * 100:+.1f} % |")
        c, f = res.summary["counters"], res.flows
        facts.append(
            f"`{sc.split('_')[-1].replace('.toml', '')}`: Jain index {jain(g):.3f}, "
            f"{c['drops_total']} drops, {spaced(c['pfc_xoff_sent'])} XOFF, "
            f"{spaced(f['cnps_sent'].sum())} CNPs sent, {spaced(f['cnps_received'].sum())} received, "
            f"latency p50 {res.summary['latency_ps']['p50'] / 1e6:.1f} us"
        )
    return "\n".join(out) + "\n\n" + "; ".join(facts) + ".\n"


def _marks(res: Any) -> str:
    c = res.congestion
    rows = c[c["marked"] > 0]
    return ", ".join(f"{r.node} -> {r.peer} marks {spaced(r.marked)}" for r in rows.itertuples(index=False))


@block(short=True)
def rcm_variants() -> str:
    """rcm.md: variants of rule 1a."""
    sc = "seed000_parking_lot_rcm_1a.toml"
    out = ["| run | A | B | C | D | XOFF | marks |", "|---|---|---|---|---|---|---|"]
    for label, sets in (
        ("as shipped", ()),
        ("`mark_victims = true`", ("switch.congestion.mark_victims=true",)),
        ("`gap = true`", ("host.cc.gap=true",)),
    ):
        res = run(sc, *sets)
        g = steady(res)
        out.append(
            f"| {label} | " + " | ".join(f"{x:.2f}" for x in g) + f" | {spaced(res.summary['counters']['pfc_xoff_sent'])} | {_marks(res)} |"
        )
    return "\n".join(out) + "\n"


def _rcm_row(sets: Sequence[str]) -> Tuple[List[float], Any]:
    res = run("seed000_parking_lot_rcm_1a.toml", *sets)
    return steady(res), res


def rcm_sweep(threshold: str) -> str:
    out = [
        "| recover_time | CNP interval | A | B | C | D | total | Jain | PFC XOFF | p50 latency (us) | within 5 % |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rt in ("0.5us", "1us", "2us", "5us", "20us", "50us"):
        for iv in ("0us", "10us", "50us"):
            g, res = _rcm_row((f'switch.congestion.threshold="{threshold}"', f'host.cc.recover_time="{rt}"', f'host.cnp.interval="{iv}"'))
            ok = all(abs(x / 9.4 - 1) <= 0.05 for x in g)
            out.append(
                f"| {rt} | {iv} | " + " | ".join(f"{x:.2f}" for x in g) + f" | {sum(g):.2f} | {jain(g):.3f} | "
                f"{res.summary['counters']['pfc_xoff_sent']} | {res.summary['latency_ps']['p50'] / 1e6:.1f} | "
                f"{'yes' if ok else 'no'} |"
            )
    return "\n".join(out) + "\n"


@block(short=False)
def rcm_fine() -> str:
    out = ["| recover_time | A | B | C | D | total | PFC XOFF | p50 latency (us) | within 5 % |", "|---|---|---|---|---|---|---|---|---|"]
    for rt in ("0.6us", "0.7us", "0.8us", "0.9us", "1.1us", "1.2us", "1.3us", "1.4us", "1.5us", "1.6us", "1.7us", "1.8us", "1.9us"):
        g, res = _rcm_row((f'host.cc.recover_time="{rt}"', 'host.cnp.interval="0us"'))
        ok = all(abs(x / 9.4 - 1) <= 0.05 for x in g)
        out.append(
            f"| {rt} | " + " | ".join(f"{x:.2f}" for x in g) + f" | {sum(g):.2f} | "
            f"{res.summary['counters']['pfc_xoff_sent']} | {res.summary['latency_ps']['p50'] / 1e6:.1f} | "
            f"{'yes' if ok else 'no'} |"
        )
    return "\n".join(out) + "\n"


for _threshold in ("20KB", "50KB", "200KB"):
    block(short=False, name=f"rcm_sweep_{_threshold}")(functools.partial(rcm_sweep, _threshold))
