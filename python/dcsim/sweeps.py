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
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import pool
from ._native import DcsimError, scenario_hash
from ._toml import format_value
from .errors import ArgumentError, OutputError, bool_arg, int_arg, output_error, path_arg, path_list, str_list


@dataclass(frozen=True)
class Options:
    """How a sweep's points are run and reported, whichever way it is started: the
    API (``sweep``), ``dcsim sweep`` and ``dcsim compare`` (``cli``) all build one, and
    ``run_points`` takes it, so a new option is added here once. See ``sweep`` for each."""

    overrides: Sequence[str] = ()
    per_flow: bool = False
    jobs: int = 1
    point_memory: Optional[int] = None
    data_roots: Sequence[Any] = ()
    backend: str = "process"
    ray_address: Optional[str] = None
    point_timeout: Optional[float] = None
    mode: str = "grid"
    samples: Optional[int] = None
    seed: int = 0
    groups: Any = None

    def check(self) -> None:
        """Every option's type and range (``ArgumentError`` naming it)."""
        str_list(self.overrides, "overrides")
        bool_arg(self.per_flow, "per_flow")
        int_arg(self.jobs, "jobs", 1)
        if self.point_memory is not None:
            int_arg(self.point_memory, "point_memory", 1)
        _check_backend(self.backend, self.point_timeout)


@contextmanager
def _ray(opts: Options) -> Iterator[None]:
    """Ray started (and shut down after) for ``backend="ray"``: Ray missing or
    unreachable fails here, before any file or store is made."""
    started = opts.backend == "ray" and pool.ray_init(opts.ray_address, opts.jobs)
    try:
        yield
    finally:
        if started:
            pool.ray_shutdown()


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
#: Flows up to this size are "small" (``small_flow_slowdown_p99``; the HPCC study's
#: short flows are of this order).
SMALL_FLOW_BYTES = 100_000
#: Slowdown percentiles reported per size bin.
BIN_PERCENTILES: Sequence[float] = (50, 99)


def metrics(res: Any, per_flow: bool = False, size_bins: int = SIZE_BINS, groups: Any = None) -> Dict[str, Any]:
    """The summary numbers of one run that a sweep reports (see ``dcsim.analysis``).

    Goodput is the aggregate delivered goodput (payload delivered / run time), never a
    sum of per-flow goodputs over their own lifetimes. Per-flow goodput aggregates
    (min, max, Jain's index) cover the long-lived flows only and are left out when there
    are none; FCT and slowdown columns are per traffic group, named by the group's name
    (suffix ``_<name>``: ``slowdown_p99_incast``; an entry without ``name`` is its type
    and index, ``_cdf_0``), and per flow-size bin of the group (suffix
    ``_<name>_b<j>``: ``res.fct_by_size(bins=size_bins)``, its largest flow size,
    finished flows, slowdown p50 and p99). ``groups`` chooses and pools the groups as
    ``analysis.fct_by_group`` does (``"all"``: one pool, suffix ``_all``).
    ``small_flow_slowdown_p99`` is the p99 slowdown of the finished flows of at most
    ``SMALL_FLOW_BYTES``, every group pooled (left out without any).
    A run with training jobs adds per job (suffix ``_<job>``) ``iterations_done``,
    ``iteration_mean_ps``, ``iteration_p99_ps`` and ``job_slowdown_mean``
    (``summary.jobs``)."""
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
    row.update(
        {
            "drops": c["drops_total"],
            "pfc_xoff": c["pfc_xoff_sent"],
            "ecn_marked": c.get("ecn_marked", 0),
            "cnps": c.get("cnps_sent", 0),
            "flows_finished": c["flows_finished"],
            "latency_p50_ps": lat.get("p50"),
            "latency_p99_ps": lat.get("p99"),
            "scenario_hash": res.summary.get("scenario_hash", ""),
        }
    )
    f = res.flows
    f = analysis._finite(f) if len(f) else f
    small = f[(f["size_bytes"] <= SMALL_FLOW_BYTES) & (f["fct_ps"] >= 0)] if len(f) else f
    if len(small):
        row["small_flow_slowdown_p99"] = float(np.percentile(small["slowdown"].to_numpy(dtype=float), 99))
    for g in analysis.fct_by_group(res, groups=groups).itertuples(index=False):
        k = f"_{g.group_name}"
        row["flows" + k] = g.flows
        row["finished" + k] = g.finished
        row["fct_p50_ps" + k] = g.fct_p50_ps
        row["fct_p99_ps" + k] = g.fct_p99_ps
        row["slowdown_mean" + k] = g.slowdown_mean
        row["slowdown_p50" + k] = g.slowdown_p50
        row["slowdown_p95" + k] = g.slowdown_p95
        row["slowdown_p99" + k] = g.slowdown_p99
    width = len(str(max(size_bins - 1, 0)))
    for b in analysis.fct_by_size(res, bins=size_bins, percentiles=BIN_PERCENTILES, groups=groups).itertuples(index=False):
        k = f"_{b.group_name}_b{b.bin:0{width}d}"
        row["size_hi" + k] = int(b.size_hi)
        row["finished" + k] = b.finished
        for p in BIN_PERCENTILES:
            col = f"slowdown_p{p:g}"
            row[col + k] = getattr(b, col)
    # Training jobs (summary.jobs): iteration times and slowdown per job.
    for j in res.summary.get("jobs") or []:
        k = f"_{j['job']}"
        row["iterations_done" + k] = j["iterations_done"]
        row["iteration_mean_ps" + k] = j["iteration_mean_ps"]
        row["iteration_p99_ps" + k] = j["iteration_p99_ps"]
        row["job_slowdown_mean" + k] = j["slowdown_mean"]
    if per_flow:
        f = res.flows
        for r in f.itertuples(index=False):
            row[f"goodput_{r.src}->{r.dst}"] = r.goodput_steady_gbps
    return row


MODES = ("grid", "zip", "random")

#: The grid key whose values are the names of the scenario's ``[variants.NAME]``.
VARIANT = "variant"


def variants_of(scenario: Any) -> Dict[str, List[str]]:
    """The scenario's ``[variants.NAME]`` tables as override lists, by name. A key with
    a dot (``"host.cc" = {type = "hpcc"}``) is one override that replaces what is at its
    path; a table under a plain key is walked down to the keys it sets
    (``[variants.slow.switch.ecn]`` ``kmax = "50KB"`` sets ``switch.ecn.kmax`` only)."""
    from . import Scenario

    if isinstance(scenario, Mapping):
        d = dict(scenario)
    else:
        sc = scenario if isinstance(scenario, Scenario) else Scenario.from_file(scenario)
        d = sc.to_dict()
    table = d.get("variants") or {}
    if not isinstance(table, Mapping):
        raise ArgumentError("variants: expected tables [variants.NAME] of overrides")
    out: Dict[str, List[str]] = {}

    def walk(prefix: str, t: Mapping[str, Any], sets: List[str]) -> None:
        for k, v in t.items():
            path = f"{prefix}.{k}" if prefix else k
            if isinstance(v, Mapping) and "." not in k:
                walk(path, v, sets)
            else:
                sets.append(f"{path}={format_value(v, f'variants.{path}')}")

    for name, t in table.items():
        if not isinstance(t, Mapping):
            raise ArgumentError(f"variants.{name}: expected a table of overrides")
        sets: List[str] = []
        walk("", t, sets)
        out[str(name)] = sets
    return out


def choose_variants(scenario: Any, names: Optional[str]) -> List[str]:
    """``--variants``: every variant of the scenario (``None`` or ``"all"``) or the
    comma-separated names, each checked against the file."""
    have = variants_of(scenario)
    if not have:
        raise ArgumentError("--variants: the scenario has no [variants.NAME] tables")
    if names is None or names.strip() in ("", "all"):
        return list(have)
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    for n in chosen:
        if n not in have:
            raise ArgumentError(f"--variants: no variant {n!r} (the scenario has {', '.join(have)})")
    return chosen


def points(grid: Mapping[str, Sequence[Any]], mode: str = "grid", samples: Optional[int] = None, seed: int = 0) -> Iterator[Dict[str, Any]]:
    """The points of ``grid``: "grid" is the cross product of the value lists; "zip"
    takes the i-th value of every list (lists of one length); "random" draws
    ``samples`` distinct points of the cross product with ``random.Random(seed)``, so
    the same seed gives the same points, listed in grid order."""
    keys = list(grid)
    if mode == "zip":
        lens = {k: len(grid[k]) for k in keys}
        if len(set(lens.values())) > 1:
            raise ArgumentError(f"mode 'zip' needs value lists of one length, not {lens}")
        for values in zip(*(grid[k] for k in keys)):
            yield dict(zip(keys, values))
        return
    if mode == "random":
        import random

        total = math.prod(len(grid[k]) for k in keys)
        int_arg(samples, "samples", 1)
        int_arg(seed, "seed", 0)
        assert samples is not None
        if samples > total:
            raise ArgumentError(f"samples: {samples} asked of a grid of {total} points")
        for n in sorted(random.Random(seed).sample(range(total), samples)):
            p: Dict[str, Any] = {}
            for k in reversed(keys):  # mixed radix, the last key fastest as in the product
                n, j = divmod(n, len(grid[k]))
                p[k] = grid[k][j]
            yield {k: p[k] for k in keys}
        return
    if mode != "grid":
        raise ArgumentError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
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


def _point(
    spec: _Spec, sets: List[str], per_flow: bool, memory: Optional[int], store: Optional[str] = None, groups: Any = None
) -> Tuple[str, Any]:
    """Runs one point in a worker (``dcsim.pool``): ("ok", row) or ("error", message).
    With ``store`` the run's tables are written there (the parent writes the row, which
    makes the point visible)."""
    try:
        if memory:
            _limit_memory(memory)
        from . import run

        res = run(_scenario(spec), overrides=sets)
        row = metrics(res, per_flow, groups=groups)
        row["run_id"] = res.summary["run_id"]
        if store is not None:
            from .store import Store

            Store(store).put_tables(row["run_id"], res)
        return ("ok", row)
    except DcsimError as e:
        return ("error", str(e))
    except MemoryError:
        return ("error", "out of memory (MemoryError)")
    except BaseException as e:  # noqa: BLE001 - reported in the point's row
        return ("error", f"internal error: {type(e).__name__}: {e}")


def _validate(spec: _Spec, sets: List[str], memory: Optional[int]) -> Tuple[str, Any]:
    """Validates one point in a worker: ("ok", None) or ("error", message)."""
    try:
        if memory:
            _limit_memory(memory)
        _scenario(spec).with_overrides(sets).validate()
        return ("ok", None)
    except DcsimError as e:
        return ("error", str(e))
    except MemoryError:
        return ("error", "out of memory (MemoryError)")
    except BaseException as e:  # noqa: BLE001 - reported in the point's row
        return ("error", f"internal error: {type(e).__name__}: {e}")


def _check_backend(backend: Any, point_timeout: Any) -> None:
    if backend not in pool.BACKENDS:
        raise ArgumentError(f"backend must be one of {', '.join(pool.BACKENDS)}, not {backend!r}")
    if point_timeout is not None and (
        isinstance(point_timeout, bool) or not isinstance(point_timeout, (int, float)) or not point_timeout > 0
    ):
        raise ArgumentError(f"point_timeout must be a number of seconds > 0, not {point_timeout!r}")


def _key(point: Mapping[str, Any]) -> Tuple[str, ...]:
    return tuple(str(v) for v in point.values())


def run_points(
    scenario: Any,
    grid: Mapping[str, Sequence[Any]],
    opts: Options = Options(),
    on_row: Optional[Callable[[Dict[str, Any]], None]] = None,
    *,
    reuse: Optional[Mapping[Tuple[str, ...], Dict[str, Any]]] = None,
    store: Any = None,
) -> List[Dict[str, Any]]:
    """Runs every point of ``grid``, each in its own process, at most ``jobs`` at a time,
    and returns the rows in grid order. A point whose process dies (a crash, the memory
    limit ``point_memory`` bytes) is a row with its ``error``; the others still run.
    ``reuse`` maps a point's key (its values as strings) to a row computed before: a row
    that ran without error and whose ``scenario_hash`` is the point's own is taken as it
    is instead of running the point again. ``on_row`` sees each new row as it comes.
    With ``store`` (a ``dcsim.store.Store``) each new point, failed or not, is written
    there as it finishes, and a point the store holds without error is reused.
    ``opts`` says how the points run (``Options``; each option is described at
    ``sweep``). ``scenario`` may be a callable that builds the point's
    ``Scenario`` from its settings dict (then the settings are not applied as overrides)."""
    grid = _check_grid(grid)
    opts.check()
    base = str_list(opts.overrides, "overrides")
    jobs, point_memory, point_timeout = opts.jobs, opts.point_memory, opts.point_timeout
    pts = list(points(grid, opts.mode, opts.samples, opts.seed))
    plans = [_plan(scenario, p, base, opts.data_roots) for p in pts] if callable(scenario) else None
    one = _spec(scenario, opts.data_roots) if plans is None else None
    variants = variants_of(_scenario(one)) if one is not None and VARIANT in grid else {}

    def sets_of(k: str, v: Any) -> List[str]:
        # The variant dimension: the variant's overrides, not a setting of its own.
        if k == VARIANT and one is not None:
            if str(v) not in variants:
                raise ArgumentError(f"variant: no [variants.{v}] in the scenario (it has {', '.join(variants) or 'none'})")
            return variants[str(v)]
        return [f"{k}={format_value(v, k)}"]

    def plan(i: int) -> Tuple[_Spec, List[str]]:
        if plans is not None:
            return plans[i]
        assert one is not None
        return one, base + [x for k, v in pts[i].items() for x in sets_of(k, v)]

    rows: List[Optional[Dict[str, Any]]] = [None] * len(pts)
    todo: List[int] = []
    reuse = dict(reuse or {})
    # Earlier failed rows of each point, replaced by the point's new row when it is written.
    failed_before: Dict[Tuple[str, ...], List[str]] = {}
    if store is not None:
        for r in store.rows().values():
            if all(k in r for k in grid):
                reuse.setdefault(_key({k: r[k] for k in grid}), r)
                if r.get("error"):
                    failed_before.setdefault(_key({k: r[k] for k in grid}), []).append(str(r["run_id"]))
    for i, p in enumerate(pts):
        spec, sets = plan(i)
        old = reuse.get(_key(p))
        if old is not None and not old.get("error") and str(old.get("scenario_hash", "")) == scenario_hash(spec[0], spec[3] + sets):
            rows[i] = {**p, **{k: v for k, v in old.items() if k not in p}}
        else:
            todo.append(i)
    where = str(store.path) if store is not None else None

    def done(i: int, status: str, value: Any) -> None:
        row: Dict[str, Any] = dict(pts[i])
        row.update(si_columns(pts[i]))
        if status == "ok":
            row.update(value)
            row["error"] = ""
        else:
            row["error"] = value
        if store is not None:
            rid = _store_row(store, *plan(i), row)
            for old_rid in failed_before.pop(_key(pts[i]), []):
                if old_rid != rid:
                    store.drop_run(old_rid)
        rows[i] = row
        if on_row:
            on_row(row)

    # Every point is validated before any starts: an invalid one is its row's error at
    # once (named on stderr), and the valid ones run.
    # Each in a process of its own, under the point's memory limit, as the runs are.
    invalid: List[Tuple[int, str]] = []

    def checked(i: int, status: str, value: Any) -> None:
        if status != "ok":
            invalid.append((i, str(value)))

    pool.run_processes(
        _validate, [(i, (*plan(i), point_memory)) for i in todo], checked, jobs=jobs, timeout=point_timeout, memory=point_memory
    )
    invalid.sort()
    if invalid:
        print(f"{len(invalid)} of {len(pts)} points do not validate; they are recorded as failed and not run:", file=sys.stderr)
        for i, e in invalid:
            print(f"  {', '.join(f'{k}={v}' for k, v in pts[i].items())}: {e}", file=sys.stderr)
    bad = {i for i, _ in invalid}
    for i, e in invalid:
        done(i, "error", e)
    todo = [i for i in todo if i not in bad]
    tasks = [(i, (*plan(i), opts.per_flow, point_memory, where, opts.groups)) for i in todo]
    if opts.backend == "ray":
        pool.run_ray(_point, tasks, done, jobs=jobs, timeout=point_timeout, address=opts.ray_address)
    else:
        pool.run_processes(_point, tasks, done, jobs=jobs, timeout=point_timeout, memory=point_memory)
    return [r for r in rows if r is not None]


def si_columns(point: Mapping[str, Any]) -> Dict[str, float]:
    """``<setting>_si`` for each setting of a point written with a unit (``"200KB"`` ->
    200000.0 bytes, ``"5us"`` -> 5e-06 s, ``"40Gbps"`` -> 4e10 bit/s), so that SQL and
    plots order 200KB before 1600KB. Plain numbers and text get none."""
    from . import _native

    out: Dict[str, float] = {}
    for k, v in point.items():
        if not isinstance(v, str) or k == VARIANT:
            continue
        for parse, scale in ((_native.parse_size_bytes, 1.0), (_native.parse_time_ps, 1e-12), (_native.parse_rate_bps, 1.0)):
            try:
                out[f"{k}_si"] = float(parse(v)) * scale
                break
            except ValueError:
                continue
    return out


def _plan(
    build: Callable[[Dict[str, Any]], Any], point: Dict[str, Any], base: List[str], data_roots: Sequence[Any]
) -> Tuple[_Spec, List[str]]:
    """The point's scenario built by ``build(point)`` (a ``Scenario``), with ``base``."""
    from . import Scenario

    try:
        sc = build(dict(point))
    except DcsimError:
        raise
    except Exception as e:  # noqa: BLE001 - user code: named with its point, before any run
        raise ArgumentError(f"the scenario builder raised {type(e).__name__}: {e} (point {point})") from e
    if not isinstance(sc, Scenario):
        raise ArgumentError(f"the scenario builder must return a Scenario, not {type(sc).__name__} (point {point})")
    return _spec(sc, data_roots), list(base)


def _store_row(store: Any, spec: _Spec, sets: List[str], row: Dict[str, Any]) -> str:
    """Writes a point's row to the store; a point that failed gets the id it would
    have had (a hash of its settings when even that cannot be computed)."""
    import hashlib

    from . import __version__
    from .store import point_run_id

    rid = row.get("run_id")
    if not rid:
        # The scenario's name as a run would have it (its `name`, else the file's stem), so
        # that the point keeps its id when it runs after a failure and replaces this row.
        try:
            name = _scenario(spec).with_overrides(sets).to_dict().get("name")
        except DcsimError:
            name = None
        if not isinstance(name, str) or not name:
            name = Path(spec[2]).stem if spec[2] else "scenario"
        rid = point_run_id(name, spec[0], spec[3] + sets, __version__)
        if rid is None:
            rid = f"{name}-" + hashlib.sha256("\0".join(spec[3] + sets).encode()).hexdigest()[:12]
    store.put_run(str(rid), {**row, "run_id": rid, "overrides": " ".join(sets)})
    return str(rid)


def sweep(
    scenario: Any,
    grid: Mapping[str, Sequence[Any]],
    *,
    store: Optional[Any] = None,
    **options: Any,
) -> Any:
    """Runs ``scenario`` once per point of ``grid`` (setting path -> values) and returns a
    DataFrame: the point's settings, the columns of ``metrics`` (aggregate goodput, link
    utilisation, PFC pause time, long-lived flows' goodput spread, drops, PFC, ECN and
    CNP counts, latency percentiles, FCT and slowdowns per traffic group, the scenario
    hash) and an ``error`` column (empty for a point that ran). With ``store`` (a
    directory) every point also lands in that results store (``dcsim.open_store``), and
    the points it already holds without error are reused. ``scenario`` may also be a
    callable building each point's ``Scenario`` from its settings dict.

    The options (``Options``), all keywords:

    * ``overrides``: ``path=value`` settings applied at every point;
    * ``per_flow``: add each flow's steady-state goodput (``goodput_SRC->DST``);
    * ``jobs``: points run at once, each in its own process; a point that fails or
      whose process dies (for instance at ``point_memory`` bytes) has its error in the
      row, and the others run;
    * ``data_roots``: directories the scenario's files may be in;
    * ``backend``: ``"process"`` (forked processes) or ``"ray"`` (Ray tasks;
      ``ray_address``: a cluster, else a local Ray); a point over ``point_timeout``
      seconds is stopped and recorded failed;
    * ``mode``: ``"grid"`` (cross product), ``"zip"`` or ``"random"`` (``samples``
      points drawn with ``seed``);
    * ``groups``: which traffic groups get FCT columns, pooled how
      (``analysis.Groups``: ``"all"``, a list of names, ``{label: [names]}``)."""
    import pandas as pd

    from .store import Store

    unknown = sorted(set(options) - set(Options.__dataclass_fields__))
    if unknown:
        raise ArgumentError(f"sweep() got an unexpected keyword argument {unknown[0]!r}")
    opts = Options(**options)
    grid = _check_grid(grid)
    list(points(grid, opts.mode, opts.samples, opts.seed))  # bad sampling arguments fail before the store is made
    if not callable(scenario):
        _spec(scenario, opts.data_roots)  # as does a scenario that cannot be read
    opts.check()
    with _ray(opts):
        st = Store(store, create=True, name="store") if store is not None else None
        if st is not None:
            st.discard_temporaries()
        rows = run_points(scenario, grid, opts, store=st)
    return pd.DataFrame(_ordered(rows))


def scenario_files(files: Sequence[Any], data_roots: Sequence[Any] = ()) -> Tuple[List[str], Callable[[Dict[str, Any]], Any]]:
    """``dcsim compare``'s categories and the builder of a point's scenario (its
    category's scenario with the point's other settings as overrides). A file is one
    category named by its stem, or, when it has ``[variants.NAME]``, one per variant:
    named ``NAME`` when it is the only file, ``STEM.NAME`` among several. Every
    category is read and validated here, once, before any point runs."""
    from . import Scenario

    paths = path_list(files, "files")
    if len(paths) < 1:
        raise ArgumentError("compare: give at least one scenario file")
    scs: Dict[str, Any] = {}
    for f in paths:
        sc = Scenario.from_file(f, data_roots=data_roots)
        vs = variants_of(sc)
        cats = {(n if len(paths) == 1 else f"{f.stem}.{n}"): sc.with_overrides(sets) for n, sets in vs.items()} or {f.stem: sc}
        for label, cat in cats.items():
            if label in scs:
                raise ArgumentError(f"compare: two categories are named {label!r} ({scs[label].path} and {f}); rename a file")
            cat.validate()
            scs[label] = cat

    def build(point: Dict[str, Any]) -> Any:
        sc = scs[str(point[VARIANT])]
        return sc.with_overrides([f"{k}={format_value(v, k)}" for k, v in point.items() if k != VARIANT])

    return list(scs), build


#: The headline columns of ``summary_table`` (regular expressions, in this order).
SUMMARY_METRICS = (
    r"goodput_total_gbps",
    r"slowdown_p50_(?!.*_b\d+$).+",
    r"slowdown_p99_(?!.*_b\d+$).+",
    r"pause_fraction_mean",
    r"drops",
)


def summary_table(rows: Sequence[Mapping[str, Any]], by: str = VARIANT) -> List[str]:
    """Lines of a table of the headline metrics per value of ``by`` (a category): the
    mean over its points that ran (the seeds), with the range when they differ."""
    import re

    ok = [r for r in rows if not r.get("error")]
    cols: List[str] = []
    for pat in SUMMARY_METRICS:
        for r in ok:
            for c in r:
                if re.fullmatch(pat, c) and c not in cols:
                    cols.append(c)
    cats = list(dict.fromkeys(str(r.get(by, "")) for r in rows))
    head = [by, "points"] + cols
    table = [head]
    for cat in cats:
        mine = [r for r in ok if str(r.get(by, "")) == cat]
        failed = sum(1 for r in rows if str(r.get(by, "")) == cat and r.get("error"))
        line = [cat, f"{len(mine)}" + (f" ({failed} failed)" if failed else "")]
        for c in cols:
            xs = []
            for r in mine:
                try:
                    x = float(r.get(c, "nan"))
                except (TypeError, ValueError):
                    continue
                if not math.isnan(x):
                    xs.append(x)
            if not xs:
                line.append("-")
                continue
            mean = sum(xs) / len(xs)
            cell = f"{mean:.4g}"
            if max(xs) > min(xs):
                cell += f" [{min(xs):.3g}, {max(xs):.3g}]"
            line.append(cell)
        table.append(line)
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    out = ["  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(t, widths))) for t in table]
    out.insert(1, "-" * len(out[0]))
    out.append("(mean over the seeds that ran, [min, max] when they differ)")
    return out


def compare(
    files: Sequence[Any],
    seeds: Any = 3,
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    *,
    store: Optional[Any] = None,
    **options: Any,
) -> Any:
    """Runs each scenario file over ``seeds`` (a count N: seeds 1..N, or a list) and the
    settings of ``grid``, as one sweep whose first dimension is the file (column
    ``variant``: the file's stem), and returns its DataFrame; options as ``sweep``."""
    labels, build = scenario_files(files, options.get("data_roots", ()))
    g: Dict[str, Sequence[Any]] = {VARIANT: labels, "simulation.seed": seed_list(seeds)}
    g.update(grid or {})
    return sweep(build, g, store=store, **options)


def seed_list(seeds: Any) -> List[int]:
    """``--seeds``: a count N (seeds 1..N) or a list of seeds."""
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        int_arg(seeds, "seeds", 1)
        return list(range(1, seeds + 1))
    if isinstance(seeds, str):
        try:
            vals = [int(x) for x in seeds.split(",") if x.strip()]
        except ValueError:
            raise ArgumentError(f"--seeds: a count or a list of integers, not {seeds!r}") from None
        if len(vals) == 1 and "," not in seeds:
            return seed_list(vals[0])
        return seed_list(vals)
    vals = list(seeds)
    for v in vals:
        int_arg(v, "seeds[]", 0)
    if not vals:
        raise ArgumentError("seeds: no seeds")
    return vals


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


def cli(
    scenario: Any,
    grid_specs: Sequence[str],
    out: Optional[str],
    opts: Options = Options(),
    store: Optional[str] = None,
    variants: Optional[str] = None,
    first: Optional[Tuple[str, List[str]]] = None,
    summary: bool = False,
) -> int:
    """``dcsim sweep`` and ``dcsim compare``: every point runs in its own process, even
    after a failure. ``variants`` (``"all"`` or comma-separated names) adds the
    scenario's ``[variants.NAME]`` as the first dimension, column ``variant``; ``first``
    (a key and its values) is a first dimension given by the caller (``compare``'s
    files, with ``scenario`` the builder of ``scenario_files``). With ``summary`` the
    first dimension's table (``summary_table``) goes to standard output, not the CSV.

    With ``--out FILE`` each finished point is appended to ``FILE.partial.jsonl`` as it
    comes, and ``FILE`` is written (under a temporary name, then renamed) only when every
    point has its row: an interrupted sweep leaves no ``FILE`` that looks complete, and
    running it again reuses every point that ran without error under the same scenario
    and settings (the same ``scenario_hash``). Without ``--out`` the CSV goes to standard
    output at the end. With ``--store DIR`` each point also lands in that results store
    as it finishes, and the points it holds are reused. Returns 1 if any point failed,
    0 otherwise."""
    grid = parse_grid(grid_specs)
    if variants is not None:
        grid = {VARIANT: choose_variants(scenario, variants), **grid}
    if first is not None:
        grid = {first[0]: first[1], **{k: v for k, v in grid.items() if k != first[0]}}
    if not grid:
        raise ValueError("give --grid PATH=V1,V2,... or --variants")
    _check_grid(grid)
    n = len(list(points(grid, opts.mode, opts.samples, opts.seed)))
    opts.check()
    if not callable(scenario):
        _spec(scenario, opts.data_roots)  # a scenario that cannot be read fails before any file is made
    target = path_arg(out, "--out") if out is not None else None
    with _ray(opts):
        return _cli(scenario, grid, n, target, opts, store, list(grid)[0] if summary else None)


def _cli(
    scenario: Any, grid: Dict[str, List[Any]], n: int, target: Optional[Path], opts: Options, store: Optional[str], summary: Optional[str]
) -> int:
    import time

    from .store import Store

    st = Store(store, create=True, name="--store") if store is not None else None
    if st is not None:
        st.discard_temporaries()
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
    done = [0, 0]  # points run, of which failed
    start = time.monotonic()

    def on_row(row: Dict[str, Any]) -> None:
        done[0] += 1
        done[1] += bool(row.get("error"))
        if jfh is not None:
            try:
                jfh.write(json.dumps(row, default=str) + "\n")
                jfh.flush()
            except OSError as e:
                raise output_error(e, journal or "") from None
        left = todo - done[0]
        eta = (time.monotonic() - start) / done[0] * left
        bar = "#" * (20 * done[0] // max(todo, 1))
        print(f"\rsweep [{bar:<20}] {done[0]}/{todo} points, {done[1]} failed, ETA {eta:.0f} s ", end="", file=sys.stderr, flush=True)

    todo = n
    try:
        rows = run_points(scenario, grid, opts, on_row, reuse=previous, store=st)
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
    elif summary is None:
        _write_csv(rows, sys.stdout)
    if summary is not None:
        print("\n".join(summary_table(rows, summary)))
    failed = sum(1 for r in rows if r.get("error"))
    if failed:
        print(f"{failed} of {n} points failed (see the error column)", file=sys.stderr)
        return 1
    return 0
