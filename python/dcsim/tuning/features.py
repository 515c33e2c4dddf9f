"""Scene features from the KPIs of one snapshot interval (the engine's ``io`` table row,
or ``Stepper.kpi()``): what the workload looks like from the network (read share of the
bytes, bytes per I/O, I/O rate) and how the network copes (marks and CNPs per I/O,
pause share, queue lengths). The classifier sees only these."""

from __future__ import annotations

import math
from typing import Any, List, Mapping, Sequence

NAMES: Sequence[str] = (
    "log_iops",
    "read_share",
    "log_bytes_per_io",
    "marks_per_io",
    "cnps_per_io",
    "paused_share",
    "log_queue_mean",
    "log_queue_max",
    "log_latency",
)


def features(k: Mapping[str, Any]) -> List[float]:
    """The feature vector of one KPI row (a dict with the ``io`` table's columns)."""
    ios = max(float(k["ios"]), 1.0)
    rb, wb = float(k["read_bytes"]), float(k["write_bytes"])
    lat = float(k["latency_mean_ps"])
    interval = float(k.get("interval_ps", 100_000_000))
    return [
        math.log1p(float(k["iops"])),
        rb / (rb + wb) if rb + wb > 0 else 0.5,
        math.log1p((rb + wb) / ios),
        float(k["ecn_marked"]) / ios,
        float(k["cnps_sent"]) / ios,
        float(k["paused_ps"]) / interval,
        math.log1p(float(k["queue_mean_bytes"])),
        math.log1p(float(k["queue_max_bytes"])),
        math.log1p(lat) if lat == lat else 0.0,
    ]
