"""Latency reports in perftest's format for ``ib_write_lat``-style probe flows.

A ``[[traffic]] type = "ib_write_lat"`` entry is one flow that posts ``iters`` messages
one at a time; the flows table holds the statistics of its message completion times
(``message_latency_{min,p50,p99,p999,max,mean,stdev}_ps``). ``lat_rows`` picks them for
every probe (or any flow with completed, timed messages) in microseconds, ``lat_report`` prints
them as ``ib_write_lat`` prints its result table. ``t_typical`` is the median, as in
perftest; percentiles are by nearest rank over every completed message of the flow.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence

import pandas as pd

from .errors import ArgumentError

__all__ = ["lat_rows", "lat_report"]

_RULE = "-" * 87
_HEADER = (
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
    "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
)

_COLS = {
    "t_min_us": "message_latency_min_ps",
    "t_max_us": "message_latency_max_ps",
    "t_typical_us": "message_latency_p50_ps",
    "t_avg_us": "message_latency_mean_ps",
    "t_stdev_us": "message_latency_stdev_ps",
    "p99_us": "message_latency_p99_ps",
    "p999_us": "message_latency_p999_ps",
}


def lat_rows(res: Any, flows: Optional[Sequence[int]] = None) -> pd.DataFrame:
    """One row per flow with completed, timed messages (or the flows listed): flow_id, src,
    dst, bytes (message size), iterations (messages completed) and the latency
    statistics in microseconds."""
    f = res.flows
    if flows is not None:
        ids = [int(x) for x in flows]
        missing = sorted(set(ids) - set(int(x) for x in f["flow_id"]))
        if missing:
            raise ArgumentError(f"flows: no flow with id {missing[0]}")
        f = f[f["flow_id"].isin(ids)]
    else:
        # Timed messages: a software-limited ib_write_bw stream counts its completions
        # but has no latencies.
        f = f[f["message_latency_mean_ps"].notna()]
    out = pd.DataFrame(
        {
            "flow_id": f["flow_id"].to_numpy(),
            "src": f["src"].astype(str).to_numpy(),
            "dst": f["dst"].astype(str).to_numpy(),
            "bytes": f["size_bytes"].to_numpy(),
            "iterations": f["messages_completed"].to_numpy(),
        }
    )
    for name, col in _COLS.items():
        out[name] = f[col].to_numpy() / 1e6
    return out.reset_index(drop=True)


def _num(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.2f}"


def lat_report(res: Any, flows: Optional[Sequence[int]] = None) -> str:
    """perftest's ``ib_write_lat`` result table, one line per probe flow."""
    rows = lat_rows(res, flows)
    lines: List[str] = [_RULE, _HEADER]
    for r in rows.itertuples(index=False):
        lines.append(
            f" {r.bytes:<7d} {r.iterations:<10d}     {_num(r.t_min_us):<14} {_num(r.t_max_us):<12} "
            f"{_num(r.t_typical_us):<18} {_num(r.t_avg_us):<16} {_num(r.t_stdev_us):<15} "
            f"{_num(r.p99_us):<22} {_num(r.p999_us):<10}"
        )
    lines.append(_RULE)
    return "\n".join(lines)
