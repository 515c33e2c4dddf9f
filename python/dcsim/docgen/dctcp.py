"""DCTCP (docs/models/dctcp.md): the queue against the fluid analysis."""

from __future__ import annotations

import math

from .common import block, port_into, run


@block(short=True)
def dctcp_fluid() -> str:
    """docs/models/dctcp.md: queue bounds against the DCTCP fluid analysis, K swept."""
    n, c_rtt, pkt = 2, 81.0, 1522  # flows, C x RTT in packets, frame bytes on the queue
    out = ["| K (packets) | fluid Q_min .. Q_max | dcsim Q_min .. Q_max | goodput (Gb/s) |", "|---|---|---|---|"]
    for k in (2, 5, 10, 20, 40):
        res = run("dctcp_fluid_2flows.toml", f'switch.ecn.kmin="{k * pkt}B"')
        qmax = k + n
        qmin = qmax - 0.5 * math.sqrt(2 * n * (c_rtt + k))
        fluid = f"{qmin:.1f} .. {qmax}" + (" (empties)" if qmin <= 0 else "")
        s = res.samples
        port = port_into(res, "h0")
        q = s[(s["port_id"] == port) & (s["time_ps"] >= 20 * 10**9)].groupby("time_ps")["egress_bytes"].sum() / pkt
        g = float(res.flows["goodput_steady_gbps"].sum())
        ceiling = 10 * 1460 / (1460 + 62 + 20)
        share = "" if g >= 0.9995 * ceiling else f" ({g / ceiling * 100:.1f} % of the ceiling)"
        out.append(f"| {k} | {fluid} | {q.min():.1f} .. {q.max():.1f} | {g:.3f}{share} |")
    return "\n".join(out) + "\n"
