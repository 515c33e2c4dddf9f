"""DCQCN (docs/models/dcqcn.md): the 2-to-1 incast, its windows and its seeds."""

from __future__ import annotations

import math
from typing import Dict, List

from .common import block, port_into, run


@block(short=True)
def dcqcn_2to1() -> str:
    """docs/models/dcqcn.md: the shipped 2-to-1 incast against the expected outcome."""
    res = run("dcqcn_2to1.toml")
    f = res.flows
    ceiling = 40 * 1024 / 1106
    half = ceiling / 2
    g = [float(x) for x in f["goodput_steady_gbps"]]
    c = res.summary["counters"]
    s = res.samples
    port = res.ports[res.ports["port_id"] == port_into(res, "h0")]
    q = s[(s["port_id"] == port["port_id"].iloc[0]) & (s["time_ps"] >= 10 * 10**9)].groupby("time_ps")["egress_bytes"].sum() / 1e3
    lat = res.summary["latency_ps"]
    marks = " and ".join(f"{x * 100:.2f} %" for x in f["mark_fraction"])
    rows = [
        f"| h1 -> h0 goodput after 10 ms | half the ceiling, {half:.2f} Gb/s, within 5 % | {g[0]:.2f} Gb/s ({(g[0] / half - 1) * 100:+.1f} %) |",
        f"| h2 -> h0 goodput after 10 ms | same | {g[1]:.2f} Gb/s ({(g[1] / half - 1) * 100:+.1f} %) |",
        f"| total after 10 ms vs ceiling `40 x 1024 / 1106` = {ceiling:.2f} Gb/s | >= 97 % | {sum(g):.2f} Gb/s ({sum(g) / ceiling * 100:.1f} %) |",
        f"| ECN marks / CNPs | | {c['ecn_marked']} marks (mark fraction {marks}), "
        f"{' + '.join(str(int(x)) for x in f['cnps_sent'])} CNPs sent, {int(f['cnps_received'].sum())} received |",
        f"| queue to h0 after 10 ms (samples every 50 us) | below Kmax = 200 KB | mean {q.mean():.1f} KB, "
        f"median {q.median():.1f} KB, p99 {q.quantile(0.99):.1f} KB, max {q.max():.1f} KB |",
        f"| largest queue of the run (`ports.max_egress_bytes`) | | {int(port['max_egress_bytes'].max()):,} B |".replace(",", " "),
        f"| PFC, drops | none | {c['pfc_xoff_sent']} XOFF, {c['drops_total']} drops |",
        f"| lowest rate (`min_rate_gbps`) | | {' / '.join(f'{x:.2f}' for x in f['min_rate_gbps'])} Gb/s |",
        f"| latency | | p50 {lat['p50'] / 1e6:.2f} us, p99 {lat['p99'] / 1e6:.1f} us |",
    ]
    return "\n".join(["| quantity | expected | dcsim |", "|---|---|---|"] + rows) + "\n"


@block(short=True)
def dcqcn_windows() -> str:
    """docs/models/dcqcn.md: goodput per 10 ms window of the 2-to-1 incast."""
    res = run("dcqcn_2to1.toml")
    g, f = res.goodput, res.flows
    end = int(res.summary["duration_ps"] // 10**10)
    head = "| window (ms) | " + " | ".join(str(10 * w) for w in range(end)) + " |"
    out = [head, "|---" * (end + 1) + "|"]
    for r in f.itertuples(index=False):
        mine = g[g["flow_id"] == r.flow_id]
        by = mine.groupby(mine["time_ps"] // 10**10)["bytes"].sum()
        vals = [float(by.get(w, 0)) * 8 / 0.01 / 1e9 for w in range(end)]
        out.append(f"| {r.src} | " + " | ".join(f"{v:.1f}" for v in vals) + " |")
    return "\n".join(out) + "\n"


@block(short=False)
def dcqcn_seeds() -> str:
    """docs/models/dcqcn.md: the 2-to-1 incast over seeds 1..8 and three run lengths."""
    half = 40 * 1024 / 1106 / 2
    ends = ("30ms", "100ms", "200ms")
    out = ["| seed | " + " | ".join(e.replace("ms", " ms") for e in ends) + " |", "|---|---|---|---|"]
    within = [0] * len(ends)
    totals: Dict[str, List[float]] = {e: [] for e in ends}
    xoff = drops = 0
    for seed in range(1, 9):
        cells = []
        for i, e in enumerate(ends):
            res = run("dcqcn_2to1.toml", f"simulation.seed={seed}", f"simulation.duration={e}")
            g = [float(x) for x in res.flows["goodput_steady_gbps"]]
            dev = max(abs(x / half - 1) for x in g)
            within[i] += dev <= 0.05
            totals[e].append(sum(g))
            xoff += res.summary["counters"]["pfc_xoff_sent"]
            drops += res.summary["counters"]["drops_total"]
            cells.append(f"{dev * 100:.1f} %")
        out.append(f"| {seed}{' (shipped)' if seed == 1 else ''} | " + " | ".join(cells) + " |")
    out.append("| within 5 % | " + " | ".join(f"{w} of 8" for w in within) + " |")
    text = (
        "\n".join(out)
        + "\n\nTotals are "
        + ", ".join(f"{min(totals[e]):.1f}..{max(totals[e]):.1f} Gb/s at {e.replace('ms', ' ms')}" for e in ends)
    )
    text += "; " + ("no run sent an XOFF or dropped a packet." if xoff == drops == 0 else f"{xoff} XOFF and {drops} drops over all runs.")
    return text + "\n"


#: CNP generation delays of the NIC-timing table (docs/models/dcqcn.md) and its seeds.
CNP_DELAYS = ("0us", "2us", "5us", "10us", "20us", "50us")
CNP_DELAY_SEEDS = (1, 2, 3, 4, 5)


@block(short=True)
def dcqcn_cnp_delay() -> str:
    """docs/models/dcqcn.md: the 4-to-1 100G -> 25G incast against the receiver's CNP
    generation delay, means over five seeds (min-max of the XOFF count)."""
    rows = [
        "| CNP delay | XOFF frames sent by the switch (min-max) | pause per sender us | first XOFF us (runs with one) | "
        "largest queue to h0 KB | mean queue to h0 KB | queue to h0 p99 KB | goodput Gb/s | CNPs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d in CNP_DELAYS:
        xs: List[Dict[str, float]] = []
        for seed in CNP_DELAY_SEEDS:
            res = run("dcqcn_cnp_delay_incast.toml", f'host.cnp.delay="{d}"', f"simulation.seed={seed}")
            if int(res.summary["counters"]["drops_total"]) != 0:
                raise SystemExit(f"dcqcn_cnp_delay: drops with delay {d}")
            p = res.ports[res.ports["priority"] == 3]
            sw = p[p["node"] == "s0"]
            pid = port_into(res, "h0")
            s = res.samples
            q = s[(s["port_id"] == pid) & (s["priority"] == 3)]["egress_bytes"] / 1e3
            ev = res.pfc_events
            xoffs = ev[(ev["peer"] == "s0") & (ev["event"] == "pause")] if len(ev) else ev
            xs.append(
                {
                    "xoff": float(sw["pfc_xoff_sent"].sum()),
                    "paused": float(p[p["node"] != "s0"]["paused_ps"].sum()) / 4 / 1e6,
                    "first": float(xoffs["time_ps"].min()) / 1e6 if len(xoffs) else math.nan,
                    "maxq": float(sw[sw["port_id"] == pid]["max_egress_bytes"].iloc[0]) / 1e3,
                    "meanq": float(q.mean()),
                    "p99q": float(q.quantile(0.99)),
                    "goodput": float(res.flows["goodput_gbps"].sum()),
                    "cnps": float(res.flows["cnps_received"].sum()),
                }
            )

        def m(k: str, xs: List[Dict[str, float]] = xs) -> float:
            return sum(x[k] for x in xs) / len(xs)

        firsts = [x["first"] for x in xs if not math.isnan(x["first"])]
        first = f"{sum(firsts) / len(firsts):.0f} ({len(firsts)} of {len(xs)})" if firsts else "none"
        lo, hi = min(x["xoff"] for x in xs), max(x["xoff"] for x in xs)
        rows.append(
            f"| {d.replace('us', ' us')} | {m('xoff'):.1f} ({lo:.0f}-{hi:.0f}) | {m('paused'):.1f} | {first} | {m('maxq'):.0f} | "
            f"{m('meanq'):.0f} | {m('p99q'):.0f} | {m('goodput'):.2f} | {m('cnps'):.0f} |"
        )
    return "\n".join(rows) + "\n"
