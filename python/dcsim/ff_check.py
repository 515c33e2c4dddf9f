"""Fast-forward checked against the exact run of the same scenario
(``dcsim.check_fast_forward``, ``dcsim check-fast-forward``; docs/fast_forward.md).

Both runs are made; the completion times they share (a training job's iterations, or
else the flows' FCTs) are compared, and the check fails when one is off by more than the
tolerance, when the error made is larger than the run's own error estimate, when a
flow that finished in both runs delivered different bytes, when one that finished in
neither delivered bytes off by more than the tolerance, or when there is nothing to
compare."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Union

from .errors import bool_arg, path_list, str_list
from .scenario import PathLike, Scenario, as_scenario

if TYPE_CHECKING:
    import pandas as pd

    from .results import Results

__all__ = ["FastForwardCheck", "check_fast_forward", "compare_completions"]

# The settings that only go with `simulation.fast_forward = true`.
_FF_KEYS = ("fast_forward_tolerance", "fast_forward_window", "fast_forward_interval")


@dataclass
class FastForwardCheck:
    """What ``check_fast_forward`` found. ``errors`` has a row per completion both runs
    have: its key (``job`` and ``iteration``, or ``flow_id``), ``exact_ps``, ``ff_ps``
    and ``error`` (``ff_ps / exact_ps - 1``)."""

    name: str
    #: "iterations" (the runs have training jobs) or "flows".
    compared: str
    tolerance: float
    errors: "pd.DataFrame"
    #: The largest error of a completion time, relative (absolute value) and in ps.
    worst_error: float
    worst_error_ps: float
    #: The error of the latest completion both runs have, relative, signed.
    last_error: float
    #: The fast-forwarded run's own estimate of its error (``summary.fast_forward``).
    error_estimate_ps: float
    skipped_fraction: float
    not_skipped_because: Optional[str]
    #: Flows that finished in both runs, and those of them whose bytes differ.
    flows_finished: int
    bytes_differ: List[int]
    #: Flows that delivered bytes but finished in neither run (long-lived, or cut by the
    #: run's end), and the largest relative difference of their bytes, with its flow.
    flows_unfinished: int
    worst_bytes_error: float
    worst_bytes_flow: Optional[int]
    events_exact: int
    events_ff: int
    wall_exact_s: Optional[float]
    wall_ff_s: Optional[float]
    summary: Dict[str, Any] = field(repr=False)

    @property
    def problems(self) -> List[str]:
        """Why the check fails, a line each (empty when it passes)."""
        out = []
        if self.worst_error > self.tolerance:
            row = self.errors.loc[self.errors["error"].abs().idxmax()]
            key = ", ".join(f"{k} {row[k]}" for k in self.errors.columns[:-3])
            out.append(
                f"completion times: {key} off by {row['error']:+.3%} ({row['ff_ps'] - row['exact_ps']:+.0f} ps), "
                f"more than the tolerance {self.tolerance:g}"
            )
        if self.worst_error_ps > self.error_estimate_ps and self.skipped_fraction > 0:
            out.append(
                f"error estimate: a completion is off by {self.worst_error_ps:.0f} ps, more than the estimate "
                f"{self.error_estimate_ps:.0f} ps"
            )
        if self.worst_bytes_error > self.tolerance:
            out.append(
                f"bytes delivered: flow {self.worst_bytes_flow}, unfinished in both runs, off by "
                f"{self.worst_bytes_error:.3%}, more than the tolerance {self.tolerance:g}"
            )
        if len(self.errors) == 0 and self.flows_unfinished == 0:
            out.append("nothing to compare: no completion in both runs and no flow that delivered bytes")
        if self.bytes_differ:
            flows = ", ".join(str(f) for f in self.bytes_differ[:5]) + (" ..." if len(self.bytes_differ) > 5 else "")
            out.append(f"bytes delivered: {len(self.bytes_differ)} flows finished in both runs with different bytes (flows {flows})")
        return out

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def events_ratio(self) -> float:
        """Events of the exact run per event of the fast-forwarded one."""
        return self.events_exact / max(self.events_ff, 1)

    def lines(self) -> List[str]:
        """The check in a few lines of text (what the command prints)."""
        wall = ""
        if self.wall_exact_s and self.wall_ff_s:
            wall = f", wall {self.wall_exact_s:.2f} s against {self.wall_ff_s:.2f} s ({self.wall_exact_s / self.wall_ff_s:.1f}x)"
        skipped = (
            f"skipped {self.skipped_fraction:.1%} of the run"
            if self.skipped_fraction > 0
            else f"skipped nothing ({self.not_skipped_because})"
        )
        return [
            f"{self.name}: fast-forward {skipped}; events {self.events_exact:,} exact against {self.events_ff:,} "
            f"({self.events_ratio:.1f}x fewer){wall}",
            f"{self.compared}: {len(self.errors)} completions compared, worst {self.worst_error:.3%} "
            f"({self.worst_error_ps:.0f} ps), last {self.last_error:+.3%}; tolerance {self.tolerance:g}, "
            f"error estimate {self.error_estimate_ps:.0f} ps",
            f"bytes: {self.flows_finished - len(self.bytes_differ)} of the {self.flows_finished} flows finished in both runs "
            f"delivered the same bytes; {self.flows_unfinished} unfinished flows within {self.worst_bytes_error:.3%}",
        ]


def compare_completions(exact: "pd.DataFrame", ff: "pd.DataFrame", keys: List[str], column: str) -> "pd.DataFrame":
    """The completions (``column``, ps) both frames have, matched on ``keys``: the keys,
    ``exact_ps``, ``ff_ps`` and ``error`` (``ff_ps / exact_ps - 1``), in the exact run's
    order. A completion of ``-1`` (not finished) is left out."""
    a = exact.loc[exact[column] >= 0, keys + [column]].rename(columns={column: "exact_ps"})
    b = ff.loc[ff[column] >= 0, keys + [column]].rename(columns={column: "ff_ps"})
    m = a.merge(b, on=keys, how="inner", validate="one_to_one")
    m["exact_ps"] = m["exact_ps"].astype("int64")
    m["ff_ps"] = m["ff_ps"].astype("int64")
    m["error"] = m["ff_ps"] / m["exact_ps"].where(m["exact_ps"] > 0) - 1.0
    m["error"] = m["error"].fillna(0.0)
    return m


def check_fast_forward(
    scenario: Union[Scenario, PathLike, Mapping[str, Any]],
    *,
    overrides: Optional[Iterable[str]] = None,
    data_roots: Optional[Iterable[PathLike]] = None,
    progress: bool = False,
    cc: Any = None,
) -> FastForwardCheck:
    """Runs ``scenario`` exactly and fast-forwarded (``simulation.fast_forward = true``,
    its tolerance, window and interval as the scenario sets them, on one thread), and
    compares them. The exact run leaves the fast-forward settings out and keeps the
    scenario's threads (which do not change its results)."""
    from . import run

    bool_arg(progress, "progress")
    # Not validated here: the fast-forward settings may be given without
    # `fast_forward = true`, which each run then sets or leaves out; the runs validate.
    ov, roots = str_list(overrides, "overrides"), path_list(data_roots, "data_roots")
    sc = as_scenario(scenario, ov, roots, "check_fast_forward")
    d = sc.to_dict()
    sim = dict(d.get("simulation") or {})
    exact_d, ff_d = copy.deepcopy(d), copy.deepcopy(d)
    exact_d["simulation"] = {k: v for k, v in sim.items() if k not in _FF_KEYS and k != "fast_forward"}
    ff_d["simulation"] = {**sim, "fast_forward": True, "threads": 1}
    roots = sc.data_roots
    exact = run(Scenario.from_dict(exact_d, base_dir=sc.base_dir, data_roots=roots), progress=progress, cc=cc)
    ffr = run(Scenario.from_dict(ff_d, base_dir=sc.base_dir, data_roots=roots), progress=progress, cc=cc)
    return _check(exact, ffr)


def _check(exact: "Results", ff: "Results") -> FastForwardCheck:
    s = ff.summary["fast_forward"]
    fcts = compare_completions(exact.flows, ff.flows, ["flow_id"], "fct_ps")
    if "jobs" in exact.names and len(exact.table("jobs")):
        what, errors = "iterations", compare_completions(exact.table("jobs"), ff.table("jobs"), ["job", "iteration"], "finish_ps")
    else:
        what, errors = "flows", fcts
    # Each flow's bytes in both runs: those finished in both must be equal; those
    # finished in neither were credited at their measured rates over the skip.
    cols = ["flow_id", "fct_ps", "bytes_delivered"]
    both = exact.flows[cols].merge(ff.flows[cols], on="flow_id", suffixes=("_x", "_f"))
    done = both[both["flow_id"].isin(fcts["flow_id"])]
    differ = [int(f) for f in done.loc[done["bytes_delivered_x"] != done["bytes_delivered_f"], "flow_id"]]
    open_ = both[(both["fct_ps_x"] < 0) & (both["fct_ps_f"] < 0) & (both["bytes_delivered_x"] > 0)]
    rel = (open_["bytes_delivered_f"] / open_["bytes_delivered_x"] - 1.0).abs()
    worst_flow = int(open_.loc[rel.idxmax(), "flow_id"]) if len(open_) else None
    absolute = (errors["ff_ps"] - errors["exact_ps"]).abs()
    last = errors.loc[errors["exact_ps"].idxmax(), "error"] if len(errors) else 0.0
    return FastForwardCheck(
        name=str(exact.summary.get("name", "")),
        compared=what,
        tolerance=float(s["tolerance"]),
        errors=errors,
        worst_error=float(errors["error"].abs().max()) if len(errors) else 0.0,
        worst_error_ps=float(absolute.max()) if len(errors) else 0.0,
        last_error=float(last),
        error_estimate_ps=float(s["error_estimate_ps"]),
        skipped_fraction=float(s["skipped_fraction"]),
        not_skipped_because=s.get("not_skipped_because"),
        flows_finished=len(done),
        bytes_differ=differ,
        flows_unfinished=len(open_),
        worst_bytes_error=float(rel.max()) if len(open_) else 0.0,
        worst_bytes_flow=worst_flow,
        events_exact=int(exact.events or 0),
        events_ff=int(ff.events or 0),
        wall_exact_s=exact.wall_s,
        wall_ff_s=ff.wall_s,
        summary=s,
    )
