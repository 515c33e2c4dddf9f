"""The ideal that a packet network is measured against: the same flows (sources,
destinations, sizes, start times) carried as fluids with max-min fair rates, where the
only constraints are the hosts' own links (each flow shares its source's uplink and its
destination's downlink). That is a non-blocking fabric with perfect congestion control:
no queues, no pauses, no ECMP collisions, no slow start. What a run delivers short of it
is the network's doing; what the ideal itself leaves undelivered at the end of a run is
the workload's (flows still being sent, backlog at busy senders and receivers).

``max_min_fluid(flows, rate_bps, until_ps)`` takes a flows table (``src``, ``dst``,
``size_bytes``, ``start_ps``; long-lived flows, ``size_bytes < 0``, count as endless)
and returns it with ``fluid_finish_ps`` (-1 if not done by ``until_ps``) and
``fluid_delivered_bytes`` (by ``until_ps``; NaN for endless flows). Rates are recomputed at every arrival and
completion by progressive filling (Bertsekas and Gallager, Data Networks, 6.5.2).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from .errors import ArgumentError


def _max_min_rates(src: np.ndarray, dst: np.ndarray, n_hosts: int, cap: float) -> np.ndarray:
    """Max-min fair rates of flows (src[i] -> dst[i]) on per-host uplinks (0..n) and
    downlinks (n..2n), each of capacity ``cap`` (bytes per ps)."""
    n = len(src)
    rate = np.zeros(n)
    if n == 0:
        return rate
    link_of = np.stack([src, dst + n_hosts])  # 2 x n
    rem = np.full(2 * n_hosts, cap)
    free = np.ones(n, dtype=bool)
    while free.any():
        cnt = np.bincount(link_of[0, free], minlength=2 * n_hosts) + np.bincount(link_of[1, free], minlength=2 * n_hosts)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(cnt > 0, rem / np.maximum(cnt, 1), np.inf)
        s = share.min()
        tight = share <= s * (1 + 1e-12)
        fix = free & (tight[link_of[0]] | tight[link_of[1]])
        rate[fix] = s
        np.subtract.at(rem, link_of[0, fix], s)
        np.subtract.at(rem, link_of[1, fix], s)
        rem = np.maximum(rem, 0.0)
        free &= ~fix
    return rate


def max_min_fluid(flows: pd.DataFrame, rate_bps: float, until_ps: Optional[int] = None) -> pd.DataFrame:
    """The flows table with ``fluid_finish_ps`` and ``fluid_delivered_bytes`` of the
    max-min fair fluid ideal (see the module). ``rate_bps``: the payload rate of a host
    link (line rate times payload over wire bytes per frame, for a like-for-like
    comparison with delivered payload)."""
    for col in ("src", "dst", "size_bytes", "start_ps"):
        if col not in flows.columns:
            raise ArgumentError(f"max_min_fluid(): the flows table has no '{col}' column")
    if not rate_bps > 0:
        raise ArgumentError(f"max_min_fluid(): rate_bps must be > 0 (got {rate_bps})")
    hosts = pd.Index(pd.unique(pd.concat([flows["src"], flows["dst"]])))
    src = hosts.get_indexer(flows["src"]).astype(np.int64)
    dst = hosts.get_indexer(flows["dst"]).astype(np.int64)
    size = flows["size_bytes"].to_numpy(dtype=float)
    size = np.where(size < 0, np.inf, size)
    start = flows["start_ps"].to_numpy(dtype=np.int64)
    end = float(until_ps) if until_ps is not None else np.inf
    cap = rate_bps / 8 / 1e12  # bytes per ps

    order = np.argsort(start, kind="stable")
    left = size.copy()
    finish = np.full(len(flows), -1, dtype=np.int64)
    active: list = []
    t = float(start[order[0]]) if len(order) else 0.0
    nxt = 0
    while True:
        while nxt < len(order) and start[order[nxt]] <= t:
            active.append(order[nxt])
            nxt += 1
        act = np.array(active, dtype=np.int64)
        rates = _max_min_rates(src[act], dst[act], len(hosts), cap) if len(act) else np.zeros(0)
        t_arrive = float(start[order[nxt]]) if nxt < len(order) else np.inf
        with np.errstate(divide="ignore"):
            t_done = t + np.where(rates > 0, left[act] / np.where(rates > 0, rates, 1), np.inf)
        t_next = min(t_arrive, t_done.min() if len(act) else np.inf, end)
        if not np.isfinite(t_next):
            break
        left[act] = np.maximum(left[act] - rates * (t_next - t), 0.0)
        t = t_next
        done = (t_done <= t * (1 + 1e-12)) | (left[act] <= 1e-6)
        finish[act[done]] = int(round(t))
        active = [f for f, d in zip(act.tolist(), done.tolist()) if not d]
        if t >= end or (not active and nxt >= len(order)):
            break
    out = flows.copy()
    out["fluid_finish_ps"] = finish
    # An endless flow's bytes are not tracked (inf minus a finite amount): NaN.
    out["fluid_delivered_bytes"] = np.where(np.isinf(size), np.nan, size - left)
    return out


def fluid_for(res: Any, payload_fraction: float = 1.0, until_ps: Optional[int] = None) -> pd.DataFrame:
    """``max_min_fluid`` for a run's flows at the rate of its slowest host link times
    ``payload_fraction`` (payload over wire bytes of a full frame, e.g.
    ``mtu / (mtu + header + 20)``), up to the run's duration unless ``until_ps``."""
    from .analysis import _kinds, _one_row_per_port

    ports = _one_row_per_port(res.ports)
    kinds = _kinds(res)
    host_rates = ports[ports["node"].map(kinds) == "host"]["rate_bps"]
    if not len(host_rates):
        raise ArgumentError("fluid_for(): the run has no host links")
    dur = int(until_ps if until_ps is not None else res.summary["duration_ps"])
    return max_min_fluid(res.flows, float(host_rates.min()) * payload_fraction, dur)
