"""Parameter sweeps: run one scenario over a grid of settings, one row per point.

Each point runs in its own process, so a point that crashes or runs out of memory is
recorded in the ``error`` column and does not stop the others. The CLI journals each
row as soon as it is computed and writes the CSV only when every point has its row, so
an interrupted sweep keeps what it has, leaves no complete-looking CSV, and resumes.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import signal
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from ._native import DcsimError, scenario_hash
from ._toml import format_value
from .errors import ArgumentError, OutputError, bool_arg, int_arg, output_error, path_arg, path_list, str_list


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index (Jain, Chiu and Hawe, 1984): 1 for equal shares, 1/n at worst."""
    if isinstance(xs, (str, bytes, bytearray, Mapping)) or not isinstance(xs, Iterable):
        raise ArgumentError(f"jain() takes a list of numbers, not {type(xs).__name__}")
    vals = list(xs)
    for i, x in enumerate(vals):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise ArgumentError(f"jain(): xs[{i}] must be a number, not {type(x).__name__}")
    xs = [float(x) for x in vals if not math.isnan(x)]
    if not xs or sum(xs) == 0:
        return float("nan")
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


#: Equal-count flow-size bins of the sweep's per-bin slowdown columns (5 % of the flows
#: each, the HPCC study's convention, as ``fct_by_size``'s default).
SIZE_BINS = 20
#: Slowdown percentiles reported per size bin.
BIN_PERCENTILES: Sequence[float] = (50, 99)


def metrics(res: Any, per_flow: bool = False, size_bins: int = SIZE_BINS) -> Dict[str, Any]:
    """The summary numbers of one run that a sweep reports (see ``dcsim.analysis``).

    Goodput is the aggregate delivered goodput (payload delivered / run time), never a
    sum of per-flow goodputs over their own lifetimes. Per-flow goodput aggregates
    (min, max, Jain's index) cover the long-lived flows only and are left out when there
    are none; FCT and slowdown columns are per traffic group (suffix ``_g<i>``), and per
    flow-size bin of the group (suffix ``_g<i>_b<j>``: ``res.fct_by_size(bins=size_bins)``,
    its largest flow size, finished flows, slowdown p50 and p99)."""
    from . import analysis

    c = res.summary["counters"]
    lat = res.summary.get("latency_ps") or {}
    row: Dict[str, Any] = dict(analysis.aggregate(res))
    util = analysis.link_utilization(res)
    row["link_util_max"] = float(util["utilization"].max()) if len(util) else float("nan")
    fabric = util[util["kind"] != "host"] if len(util) else util
    row["link_util_mean"] = float(fabric["utilization"].mean()) if len(fabric) else float("nan")
    ports = res.ports
    dur = res.summary["duration_ps"]
    row["paused_ps_total"] = int(ports["paused_ps"].sum()) if len(ports) else 0
    row["pause_fraction_max"] = float(ports["paused_fraction"].max()) if len(ports) else 0.0
    row["pause_fraction_mean"] = (row["paused_ps_total"] / (len(ports) * dur)) if len(ports) and dur else 0.0
    ll = analysis.long_lived_goodput(res)
    if ll is not None:
        row.update(ll)
    row.update({
        "drops": c["drops_total"],
        "pfc_xoff": c["pfc_xoff_sent"],
        "ecn_marked": c.get("ecn_marked", 0),
        "cnps": c.get("cnps_sent", 0),
        "flows_finished": c["flows_finished"],
        "latency_p50_ps": lat.get("p50"),
        "latency_p99_ps": lat.get("p99"),
        "scenario_hash": res.summary.get("scenario_hash", ""),
    })
    for g in analysis.fct_by_group(res).itertuples(index=False):
        k = f"_g{g.group}"
        row["flows" + k] = g.flows
        row["finished" + k] = g.finished
        row["fct_p50_ps" + k] = g.fct_p50_ps
        row["fct_p99_ps" + k] = g.fct_p99_ps
        row["slowdown_mean" + k] = g.slowdown_mean
        row["slowdown_p50" + k] = g.slowdown_p50
        row["slowdown_p95" + k] = g.slowdown_p95
        row["slowdown_p99" + k] = g.slowdown_p99
    width = len(str(max(size_bins - 1, 0)))
    for b in analysis.fct_by_size(res, bins=size_bins, percentiles=BIN_PERCENTILES).itertuples(index=False):
        k = f"_g{b.group}_b{b.bin:0{width}d}"
        row["size_hi" + k] = int(b.size_hi)
        row["finished" + k] = b.finished
        for p in BIN_PERCENTILES:
            col = f"slowdown_p{p:g}"
            row[col + k] = getattr(b, col)
    if per_flow:
        f = res.flows
        for r in f.itertuples(index=False):
            row[f"goodput_{r.src}->{r.dst}"] = r.goodput_steady_gbps
    return row


def points(grid: Mapping[str, Sequence[Any]]) -> Iterator[Dict[str, Any]]:
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values))


def _check_grid(grid: Any) -> Dict[str, List[Any]]:
    if not isinstance(grid, Mapping):
        raise ArgumentError(f"grid must be a dict of setting path -> list of values, not {type(grid).__name__}")
    out: Dict[str, List[Any]] = {}
    for k, v in grid.items():
        if not isinstance(k, str) or not k.strip():
            raise ArgumentError(f"grid keys must be setting paths (non-empty str), not {k!r}")
        if isinstance(v, (str, bytes, bytearray, Mapping)) or not isinstance(v, Iterable):
            raise ArgumentError(f"grid[{k!r}] must be a list of values, not {type(v).__name__}")
        vals = list(v)
        if not vals:
            raise ArgumentError(f"grid[{k!r}] has no values")
        for x in vals:
            format_value(x, k)  # ArgumentError for what TOML cannot hold
        out[k] = vals
    return out


# -- one point, in its own process -------------------------------------------------------

#: What a worker needs to rebuild the scenario: plain, picklable values.
_Spec = Tuple[str, str, Optional[str], List[str], List[str]]


def _spec(scenario: Any, data_roots: Sequence[str] = ()) -> _Spec:
    """The scenario as (text, base_dir, path, overrides, data_roots), read and checked
    once here so that every point sees the same text and a bad file fails at once."""
    from . import Scenario

    if isinstance(scenario, Mapping):
        scenario = Scenario.from_dict(scenario)
    elif not isinstance(scenario, Scenario):
        scenario = Scenario.from_file(scenario)
    roots = [str(r) for r in scenario.data_roots] + [str(r) for r in path_list(data_roots, "data_roots")]
    path = str(scenario.path) if scenario.path is not None else None
    return (scenario.text, str(scenario.base_dir), path, scenario.overrides, roots)


def _scenario(spec: _Spec) -> Any:
    from . import Scenario

    text, base, path, overrides, roots = spec
    return Scenario(text, base_dir=base, path=path, overrides=overrides, data_roots=roots)


def _limit_memory(budget: int) -> None:
    """Lets this process grow by at most ``budget`` bytes of address space."""
    import resource

    vm = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                vm = int(line.split()[1]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (vm + budget, vm + budget))


def _point(conn: Any, spec: _Spec, sets: List[str], per_flow: bool, memory: Optional[int]) -> None:
    """Runs one point and sends ("ok", row) or ("error", message) back."""
    import faulthandler

    faulthandler.disable()  # a point that dies is reported in its row, not by a stack dump
    os.environ["RUST_BACKTRACE"] = "0"  # nor by the engine's (an allocation failure aborts)
    try:
        if memory:
            _limit_memory(memory)
        from . import run

        res = run(_scenario(spec), overrides=sets)
        msg: Tuple[str, Any] = ("ok", metrics(res, per_flow))
    except DcsimError as e:
        msg = ("error", str(e))
    except MemoryError:
        msg = ("error", "out of memory (MemoryError)")
    except BaseException as e:  # noqa: BLE001 - reported in the point's row
        msg = ("error", f"internal error: {type(e).__name__}: {e}")
    try:
        conn.send(msg)
    finally:
        conn.close()


def _died(exitcode: Optional[int], memory: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        why = f"the point's process was killed by {name}"
        if -exitcode in (signal.SIGKILL, signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
            limit = f" (--point-memory {memory} bytes)" if memory else ""
            why += f"; out of memory{limit}?"
        return why
    return f"the point's process exited with status {exitcode} without a result"


def _key(point: Mapping[str, Any]) -> Tuple[str, ...]:
    return tuple(str(v) for v in point.values())


def run_points(scenario: Any, grid: Mapping[str, Sequence[Any]], overrides: Sequence[str] = (),
               per_flow: bool = False, on_row: Optional[Callable[[Dict[str, Any]], None]] = None, *,
               jobs: int = 1, point_memory: Optional[int] = None, data_roots: Sequence[Any] = (),
               reuse: Optional[Mapping[Tuple[str, ...], Dict[str, Any]]] = None) -> List[Dict[str, Any]]:
    """Runs every point of ``grid``, each in its own process, at most ``jobs`` at a time,
    and returns the rows in grid order. A point whose process dies (a crash, the memory
    limit ``point_memory`` bytes) is a row with its ``error``; the others still run.
    ``reuse`` maps a point's key (its values as strings) to a row computed before: a row
    that ran without error and whose ``scenario_hash`` is the point's own is taken as it
    is instead of running the point again. ``on_row`` sees each new row as it comes."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    grid = _check_grid(grid)
    base = str_list(overrides, "overrides")
    int_arg(jobs, "jobs", 1)
    if point_memory is not None:
        int_arg(point_memory, "point_memory", 1)
    spec = _spec(scenario, data_roots)
    pts = list(points(grid))
    rows: List[Optional[Dict[str, Any]]] = [None] * len(pts)
    todo: List[int] = []
    for i, p in enumerate(pts):
        sets = base + [f"{k}={format_value(v, k)}" for k, v in p.items()]
        old = (reuse or {}).get(_key(p))
        if old is not None and not old.get("error") and str(old.get("scenario_hash", "")) == scenario_hash(spec[0], spec[3] + sets):
            rows[i] = {**p, **{k: v for k, v in old.items() if k not in p}}
        else:
            todo.append(i)
    ctx: Any
    try:
        ctx = mp.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        ctx = mp.get_context("spawn")
    running: Dict[Any, Tuple[int, Any]] = {}  # connection -> (point index, process)
    try:
        while todo or running:
            while todo and len(running) < jobs:
                i = todo.pop(0)
                sets = base + [f"{k}={format_value(v, k)}" for k, v in pts[i].items()]
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_point, args=(send, spec, sets, per_flow, point_memory), daemon=True)
                proc.start()
                send.close()
                running[recv] = (i, proc)
            for ready in wait(list(running)):
                conn: Any = ready
                i, proc = running.pop(conn)
                status: str
                value: Any
                try:
                    status, value = conn.recv()
                except (EOFError, OSError):
                    status, value = "died", None
                conn.close()
                proc.join()
                row: Dict[str, Any] = dict(pts[i])
                if status == "ok":
                    row.update(value)
                    row["error"] = ""
                elif status == "error":
                    row["error"] = value
                else:
                    row["error"] = _died(proc.exitcode, point_memory)
                rows[i] = row
                if on_row:
                    on_row(row)
    finally:
        for conn, (_, proc) in running.items():
            proc.terminate()
            proc.join()
            conn.close()
    return [r for r in rows if r is not None]


def sweep(scenario: Any, grid: Mapping[str, Sequence[Any]], *, overrides: Sequence[str] = (), per_flow: bool = False,
          jobs: int = 1, point_memory: Optional[int] = None, data_roots: Sequence[Any] = ()) -> Any:
    """Runs ``scenario`` once per point of ``grid`` (setting path -> values) and returns a
    DataFrame: the point's settings, the columns of ``metrics`` (aggregate goodput, link
    utilisation, PFC pause time, long-lived flows' goodput spread, drops, PFC, ECN and
    CNP counts, latency percentiles, FCT and slowdowns per traffic group, the scenario
    hash) and an ``error`` column (empty for a point that ran). Each point runs in its
    own process (``jobs`` at a time); a point that fails or whose process dies (for
    instance at ``point_memory`` bytes) has its error in the row, and the others run."""
    import pandas as pd

    rows = run_points(scenario, grid, overrides, bool_arg(per_flow, "per_flow"), jobs=jobs,
                      point_memory=point_memory, data_roots=data_roots)
    return pd.DataFrame(_ordered(rows))


def _columns(rows: Sequence[Mapping[str, Any]]) -> List[str]:
    """Every column of ``rows`` in first-seen order, ``error`` last."""
    cols: Dict[str, None] = {}
    for r in rows:
        for k in r:
            cols.setdefault(k, None)
    return [c for c in cols if c != "error"] + ["error"]


def _ordered(rows: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    cols = _columns(rows)
    return [{c: r.get(c, "") for c in cols} for r in rows]


def parse_grid(specs: Sequence[str]) -> Dict[str, List[Any]]:
    """``path=v1,v2,...`` strings to a grid; numbers become numbers, the rest strings."""
    grid: Dict[str, List[Any]] = {}
    for spec in specs:
        path, sep, values = spec.partition("=")
        if not sep or not path.strip() or not values.strip():
            raise ValueError(f"--grid '{spec}': expected path=value1,value2,...")
        out: List[Any] = []
        for v in values.split(","):
            v = v.strip()
            try:
                out.append(int(v))
            except ValueError:
                try:
                    out.append(float(v))
                except ValueError:
                    out.append({"true": True, "false": False}.get(v, v))
        grid[path.strip()] = out
    return grid


def _read_previous(out: Path, journal: Path, grid: Mapping[str, Any]) -> Dict[Tuple[str, ...], Dict[str, Any]]:
    """Rows of an earlier run of this sweep: the finished CSV, then the journal of an
    interrupted run (a cut-off last line is ignored). Keyed by the point's values."""
    keys = list(grid)
    found: Dict[Tuple[str, ...], Dict[str, Any]] = {}
    if out.exists():
        try:
            with open(out, newline="", encoding="utf-8") as fh:
                for r in csv.DictReader(fh):
                    if all(k in r for k in keys):
                        found[tuple(r[k] for k in keys)] = dict(r)
        except (OSError, UnicodeError, csv.Error) as e:
            raise output_error(e if isinstance(e, OSError) else OSError(0, f"cannot be read as a sweep: {e}"), out) from None
    if journal.exists():
        with open(journal, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict) and all(k in r for k in keys):
                    found[tuple(str(r[k]) for k in keys)] = r
    return found


def _write_csv(rows: Sequence[Mapping[str, Any]], fh: Any) -> None:
    w = csv.DictWriter(fh, fieldnames=_columns(rows), extrasaction="ignore")
    w.writeheader()
    for r in _ordered(rows):
        w.writerow(r)


def cli(scenario: str, grid_specs: Sequence[str], overrides: Sequence[str], out: Optional[str], per_flow: bool,
        jobs: int = 1, point_memory: Optional[int] = None, data_roots: Sequence[str] = ()) -> int:
    """``dcsim sweep``: every point runs in its own process, even after a failure.

    With ``--out FILE`` each finished point is appended to ``FILE.partial.jsonl`` as it
    comes, and ``FILE`` is written (under a temporary name, then renamed) only when every
    point has its row: an interrupted sweep leaves no ``FILE`` that looks complete, and
    running it again reuses every point that ran without error under the same scenario
    and settings (the same ``scenario_hash``). Without ``--out`` the CSV goes to standard
    output at the end. Returns 1 if any point failed, 0 otherwise."""
    grid = parse_grid(grid_specs)
    n = 1
    for v in grid.values():
        n *= len(v)
    _check_grid(grid)
    _spec(scenario, data_roots)  # a scenario that cannot be read fails before any file is made
    target = path_arg(out, "--out") if out is not None else None
    journal = target.with_name(target.name + ".partial.jsonl") if target else None
    previous: Dict[Tuple[str, ...], Dict[str, Any]] = {}
    jfh = None
    if target is not None and journal is not None:
        if target.is_dir():
            raise OutputError(21, "is a directory, not a CSV file", str(target))
        previous = _read_previous(target, journal, grid)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            jfh = open(journal, "a", encoding="utf-8")
        except OSError as e:
            raise output_error(e, journal) from None
    done = [0]

    def on_row(row: Dict[str, Any]) -> None:
        done[0] += 1
        if jfh is not None:
            try:
                jfh.write(json.dumps(row, default=str) + "\n")
                jfh.flush()
            except OSError as e:
                raise output_error(e, journal or "") from None
        print(f"\rsweep: {done[0]} of {todo} points run", end="", file=sys.stderr, flush=True)

    todo = n
    try:
        rows = run_points(scenario, grid, overrides, per_flow, on_row, jobs=jobs, point_memory=point_memory,
                          data_roots=data_roots, reuse=previous)
    finally:
        if jfh is not None:
            jfh.close()
        print(file=sys.stderr)
    reused = n - done[0]
    if reused:
        print(f"{reused} of {n} points taken from the earlier run", file=sys.stderr)
    if target is not None and journal is not None:
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        try:
            with open(tmp, "w", newline="", encoding="utf-8") as fh:
                _write_csv(rows, fh)
            os.replace(tmp, target)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise output_error(e, target) from None
        journal.unlink(missing_ok=True)
    else:
        _write_csv(rows, sys.stdout)
    failed = sum(1 for r in rows if r.get("error"))
    if failed:
        print(f"{failed} of {n} points failed (see the error column)", file=sys.stderr)
        return 1
    return 0
