"""Swift (docs/models/swift.md): N-to-1 incasts against the fixed point RTT = target(cwnd)."""

from __future__ import annotations

import math
from typing import Any, Tuple

from .common import block, port_into, run

SWIFT_WIRE, SWIFT_C = 1082, 100e9  # a 1000 B payload's frame on the wire; the port


def swift_target(cwnd: float, fs_range: float = 100.0) -> float:
    """Swift's fabric target (us) for a window of ``cwnd`` packets with the defaults:
    20 us base, one hop of 20 / 6.55 us, flow scaling of ``fs_range`` from 0.1 to 100
    packets."""
    alpha = fs_range / (1 / math.sqrt(0.1) - 1 / math.sqrt(100))
    return 20 + 20 / 6.55 + min(max(alpha / math.sqrt(cwnd) - alpha / math.sqrt(100), 0.0), fs_range)


def swift_fixed_point(n: int, base_rtt: float, fs_range: float = 100.0) -> Tuple[float, float]:
    """The round trip (us) at which n flows sharing the port hold windows whose target
    is that round trip, and that window (packets)."""
    lo, hi = base_rtt, 1000.0
    for _ in range(100):
        rtt = (lo + hi) / 2
        if swift_target(rtt * 1e-6 * SWIFT_C / 8 / n / SWIFT_WIRE, fs_range) > rtt:
            lo = rtt
        else:
            hi = rtt
    return lo, lo * 1e-6 * SWIFT_C / 8 / n / SWIFT_WIRE


def swift_base_rtt() -> float:
    """The incast's round trip without queueing (us): 4 us of links, a data frame and an
    ACK serialized twice."""
    return 4.0 + 2 * SWIFT_WIRE * 8 / SWIFT_C * 1e6 + 2 * 86 * 8 / SWIFT_C * 1e6


def swift_run(n: int, fs: float = 100.0, dur: str = "10ms") -> Tuple[Any, float, Any]:
    """An N-to-1 incast of ``swift_incast.toml``: (results, measured RTT in us = base +
    mean queue from the steady start, the queue's samples in us)."""
    senders = ",".join(f'"h{i}"' for i in range(1, n + 1))
    steady = "4ms" if dur == "10ms" else "8ms"
    res = run(
        "swift_incast.toml",
        f"topology.hosts={n + 1}",
        f"traffic[0].senders=[{senders}]",
        f'simulation.duration="{dur}"',
        f'stats.steady_start="{steady}"',
        *([f'host.cc.fs_range="{fs:g}us"'] if fs != 100.0 else []),
    )
    s = res.samples
    port = port_into(res, "h0")
    q = s[(s["port_id"] == port) & (s["time_ps"] >= int(steady[:-2]) * 10**9)].groupby("time_ps")["egress_bytes"].sum() * 8 / SWIFT_C * 1e6
    return res, swift_base_rtt() + q.mean(), q


@block(short=True)
def swift_incast() -> str:
    """docs/models/swift.md: N-to-1 incasts against the fixed point RTT = target(cwnd)."""
    base = swift_base_rtt()
    out = [
        "| N | flow scaling | goodput Gb/s | Jain | RTT us (base + mean queue) | fixed point us | window, packets | RTT / fixed point "
        "| queue swing p5..p95 us | N packets us | PFC XOFF |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, fs, dur in (
        (2, 100.0, "10ms"),
        (8, 100.0, "10ms"),
        (32, 100.0, "10ms"),
        (128, 100.0, "10ms"),
        (512, 100.0, "20ms"),
        (8, 0.0, "10ms"),
        (128, 0.0, "10ms"),
    ):
        res, rtt, q = swift_run(n, fs, dur)
        g = res.flows["goodput_steady_gbps"]
        fixed, cwnd = swift_fixed_point(n, base, fs)
        out.append(
            f"| {n} | {'yes' if fs else 'no'} | {g.sum():.2f} | {g.sum() ** 2 / len(g) / (g**2).sum():.4f} | {rtt:.2f} | {fixed:.2f} | {cwnd:.2f} "
            f"| {rtt / fixed:.3f} | {q.quantile(0.95) - q.quantile(0.05):.2f} | {n * SWIFT_WIRE * 8 / SWIFT_C * 1e6:.2f} "
            f"| {res.summary['counters']['pfc_xoff_sent']} |"
        )
    return "\n".join(out) + "\n"
