"""The ``dcsim`` command line.

    dcsim run SCENARIO [--out DIR] [--overwrite] [--set path=value ...] [--data-root DIR ...] [--csv] [--quiet]
    dcsim validate SCENARIO [--set path=value ...] [--data-root DIR ...] [--max-events N]
    dcsim sweep SCENARIO --grid path=v1,v2 [--variants] [--out FILE] [--store DIR] [--jobs N] [--groups G]
    dcsim compare SCENARIO... [--seeds N] [--grid path=v1,v2] [--out FILE] [--store DIR] [--groups G]
    dcsim plot [fct|jobs|cdf|pauses] RUN_DIR... [--queue NODE:PEER] [--groups G] [--out FILE]
    dcsim report RUN_DIR|STORE_DIR|SWEEP.csv [-o OUT.html] [--png-dir DIR]
    dcsim bench
    dcsim check-fast-forward SCENARIO [--set path=value ...] [--variant NAME] [--data-root DIR ...]
    dcsim tune SCENARIO --param KEY=LOW:HIGH ... --objective OBJ [--trials N] [--seeds N] [--out DIR]
    dcsim tune [train|evaluate|all] [--out DIR] [--quick]

Errors are one line, ``error: path: reason``, on stderr with exit status 1; Ctrl-C exits
with 130. Usage errors exit with 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .pool import Terminated

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


def _override(spec: str) -> str:
    path, sep, _ = spec.partition("=")
    if not sep or not path.strip():
        raise argparse.ArgumentTypeError(f"'{spec}' is not of the form path=value")
    return spec


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = argparse.ArgumentParser(
        prog="dcsim",
        description="Packet-level simulator of lossless datacenter networks (RoCEv2, PFC).",
    )
    p.add_argument("--version", action="version", version=f"dcsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    set_help = "override a scenario field, e.g. --set switch.pfc.xoff=100KiB (repeatable)"
    max_events_help = (
        "the most events the run may take by its estimate, e.g. 5e11 (simulation.max_events; "
        "default 2e9 or DCSIM_MAX_EVENTS): a scenario estimated above it is refused"
    )
    root_help = (
        "a directory the files the scenario names (topology, flow, CDF files) may be in, "
        "besides the scenario's own directory and the shipped data/ (repeatable)"
    )

    r = sub.add_parser("run", help="run a scenario and write its results")
    r.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    r.add_argument("--out", "-o", metavar="DIR", default=None, help="output directory (default: out/<scenario file name>)")
    r.add_argument("--set", dest="overrides", metavar="PATH=VALUE", action="append", default=[], type=_override, help=set_help)
    r.add_argument("--data-root", dest="data_roots", metavar="DIR", action="append", default=[], help=root_help)
    r.add_argument("--max-events", type=_event_count, default=None, metavar="N", help=max_events_help)
    r.add_argument("--variant", metavar="NAME", default=None, help="apply the scenario's [variants.NAME] (before any --set)")
    r.add_argument("--csv", action="store_true", help="write CSV instead of Parquet")
    r.add_argument(
        "--overwrite",
        "--force",
        dest="overwrite",
        action="store_true",
        help="replace an output directory that is not empty, clearing what it held (default: refuse, before the run)",
    )
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no result table")
    r.add_argument(
        "--pcap", metavar="FILE", default=None, help="write the frames of the run to a pcap file (stats.pcap.file; docs/pcap.md)"
    )
    r.add_argument(
        "--store", metavar="DIR", default=None, help="also add the run to this results store (DuckDB over Parquet, see docs/store.md)"
    )
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario without running it")
    v.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    v.add_argument("--set", dest="overrides", metavar="PATH=VALUE", action="append", default=[], type=_override, help=set_help)
    v.add_argument("--data-root", dest="data_roots", metavar="DIR", action="append", default=[], help=root_help)
    v.add_argument("--max-events", type=_event_count, default=None, metavar="N", help=max_events_help)
    v.add_argument("--variant", metavar="NAME", default=None, help="apply the scenario's [variants.NAME] (before any --set)")
    v.set_defaults(func=cmd_validate)

    w = sub.add_parser("sweep", help="run a scenario over a grid of settings, one CSV row per point")
    w.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    w.add_argument(
        "--grid",
        dest="grid",
        metavar="PATH=V1,V2,...",
        action="append",
        default=[],
        help="a setting and its values; several --grid make the cross product",
    )
    w.add_argument(
        "--variants",
        nargs="?",
        const="all",
        default=None,
        metavar="NAME,NAME,...",
        help="run the scenario's [variants.NAME] (all, or these) as one more dimension, column 'variant'; "
        "e.g. --variants --grid simulation.seed=1,2,3 compares schemes over seeds",
    )
    _point_options(w, set_help, root_help, max_events_help)
    w.set_defaults(func=cmd_sweep)

    c = sub.add_parser(
        "compare",
        help="run scenario files (or a file's [variants.NAME]) over seeds as one sweep, each a category, and print a table per category",
        description="dcsim compare A.toml B.toml ... --seeds N runs each file with seeds 1..N (and any --grid) "
        "as one sweep; the file's name (without .toml) is the 'variant' column, so dcsim report draws "
        "the files as categories. A file with [variants.NAME] tables is one category per variant "
        "(NAME alone, FILE.NAME among several files). Prints the headline metrics per category "
        "(mean over the seeds); --out FILE writes every point as CSV.",
    )
    c.add_argument("files", nargs="+", metavar="SCENARIO", help="scenario files (TOML), one category each")
    c.add_argument("--seeds", default="3", metavar="N|S,S,...", help="seeds 1..N, or a list of seeds (default 3)")
    c.add_argument("--grid", dest="grid", metavar="PATH=V1,V2,...", action="append", default=[], help="more settings to sweep")
    _point_options(c, set_help, root_help, max_events_help)
    c.set_defaults(func=cmd_compare)

    pl = sub.add_parser(
        "plot",
        help="PNG of source rates and a queue over time (or, with `fct`, slowdown per flow-size bin; with `jobs`, "
        "iteration times per training job; with `cdf`, the CDF of FCT slowdown; with `pauses`, PFC pause per switch), "
        "one column per run",
        description="dcsim plot RUN_DIR... draws rates and a queue; dcsim plot fct RUN_DIR... draws FCT slowdown per "
        "flow-size bin; dcsim plot jobs RUN_DIR... draws each job's iteration times; dcsim plot cdf RUN_DIR... draws "
        "the CDF of FCT slowdown per traffic group; dcsim plot pauses RUN_DIR... draws the share of time each switch "
        "was paused.",
    )
    pl.add_argument("runs", nargs="+", metavar="RUN_DIR", help="output directories of `dcsim run`, after `fct` for the FCT figure")
    pl.add_argument("--percentiles", metavar="P,P,...", default="50,95,99", help="fct: slowdown percentiles to draw (default 50,95,99)")
    pl.add_argument(
        "--edges", metavar="BYTES,BYTES,...", help="fct: fixed flow-size bin edges in bytes instead of bins of 5 %% of the flows"
    )
    pl.add_argument("--groups", metavar="GROUPS", default=None, help=groups_help("fct and cdf figures"))
    pl.add_argument("--queue", metavar="NODE:PEER", help="the egress queue to plot, e.g. CS:DU")
    pl.add_argument("--title", dest="titles", action="append", help="column titles, one per run: --title A,B,C or --title A --title B")
    pl.add_argument("--out", metavar="FILE", default="dcsim.png", help="PNG file (default dcsim.png)")
    pl.set_defaults(func=cmd_plot)

    rp = sub.add_parser(
        "report",
        help="one self-contained HTML file (plots, tables) of a run or a sweep, plus PNGs",
        description="dcsim report PATH writes an HTML report of a run directory (dcsim run --out), "
        "a results store (dcsim sweep --store) or a sweep CSV (dcsim sweep --out); "
        "see docs/report.md.",
    )
    rp.add_argument("path", metavar="PATH", help="run directory, results store directory or sweep CSV")
    rp.add_argument("--out", "-o", metavar="OUT.html", default=None, help="HTML file to write (default: PATH.html beside PATH)")
    rp.add_argument(
        "--png-dir", metavar="DIR", default=None, help="directory for the PNGs of the plots (default: OUT_png/ beside the HTML)"
    )
    rp.add_argument("--vectors", action="store_true", help="also write an SVG and a PDF beside each PNG (about 3x the drawing time)")
    rp.set_defaults(func=cmd_report)

    ffc = sub.add_parser(
        "check-fast-forward",
        help="run a scenario exactly and fast-forwarded and compare them; exit status 1 if fast-forward is off",
        description="Runs SCENARIO twice: exactly, and with simulation.fast_forward = true (its tolerance, window "
        "and interval as the scenario or --set gives them, on one thread). Compares the completion times both "
        "runs have (the training jobs' iterations, or else the flows' FCTs), the bytes of the flows that "
        "finished in both and those of the flows that finished in neither, and exits with status 1 when a "
        "completion is off by more than the tolerance or the run's own error estimate, when bytes differ (beyond "
        "the tolerance for unfinished flows), or when there is nothing to compare (docs/fast_forward.md).",
    )
    ffc.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    ffc.add_argument("--set", dest="overrides", metavar="PATH=VALUE", action="append", default=[], type=_override, help=set_help)
    ffc.add_argument("--data-root", dest="data_roots", metavar="DIR", action="append", default=[], help=root_help)
    ffc.add_argument("--max-events", type=_event_count, default=None, metavar="N", help=max_events_help)
    ffc.add_argument("--variant", metavar="NAME", default=None, help="apply the scenario's [variants.NAME] (before any --set)")
    ffc.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    ffc.set_defaults(func=cmd_check_fast_forward)

    b = sub.add_parser("bench", help="run the fixed benchmark scenarios (one process each)")
    b.add_argument("--only", metavar="NAME", help="only benchmarks whose name contains NAME")
    b.add_argument(
        "--set",
        dest="overrides",
        metavar="PATH=VALUE",
        action="append",
        default=[],
        type=_override,
        help="override a setting of every benchmark, e.g. simulation.duration=10ms",
    )
    b.add_argument("--json", action="store_true", help="one JSON object per benchmark")
    b.add_argument(
        "--every",
        metavar="DURATION",
        type=_sim_time,
        help="report wall time, link hops, ns per hop and packets in flight for every DURATION "
        "simulated (e.g. 10ms), on stderr as the run goes and as 'intervals' in --json "
        "(default: every tenth of the run on a terminal)",
    )
    b.add_argument("--list", action="store_true", help="list the benchmark scenarios and exit")
    b.set_defaults(func=cmd_bench)

    t = sub.add_parser(
        "tune",
        help="tune the settings of a scenario for an objective (Optuna), or seed 004's ECN tuning on storage scenes",
        description="dcsim tune SCENARIO --param KEY=LOW:HIGH ... --objective OBJ searches the settings of your "
        "scenario for the objective (docs/howto/tune_your_fabric.md); dcsim tune [train|evaluate|all] runs "
        "seed 004's ECN tuning on storage scenes (docs/tuning.md).",
    )
    t.add_argument(
        "step",
        nargs="?",
        default="all",
        metavar="SCENARIO|train|evaluate|all",
        help="a scenario file to tune; or seed 004's study: train (classifier and settings), evaluate (held-out scenes), all (default)",
    )
    t.add_argument(
        "--param",
        dest="params",
        action="append",
        default=[],
        metavar="KEY=LOW:HIGH[:log]",
        help="a setting to search and its range, e.g. switch.ecn.kmax=50KB:2MB (log scale over a decade; repeatable)",
    )
    t.add_argument(
        "--objective",
        dest="objectives",
        action="append",
        default=[],
        metavar="OBJ",
        help="a metric to minimise (max:METRIC to maximise), an alias (small_p99, goodput, pause, drops) or a "
        "weighted mix relative to the defaults, e.g. 0.7*small_p99+0.3*pause; several make a multi-objective study",
    )
    t.add_argument("--trials", type=_positive_int, default=20, metavar="N", help="trials in all, the defaults not counted (default 20)")
    t.add_argument("--seeds", type=_positive_int, default=1, metavar="N", help="seeds each trial runs (mean over them; default 1)")
    t.add_argument("--sampler-seed", type=int, default=0, metavar="S", help="seed of the sampler (default 0)")
    t.add_argument(
        "--eval-seeds",
        type=_seed_list,
        help="seed 004's study: evaluate on these held-out seeds (comma-separated, 2 or more), one evaluation "
        "each, and report the gains as means with 95 %% confidence intervals (report_seeds.md)",
    )
    t.add_argument(
        "--ios",
        type=_positive_int,
        default=150,
        help="seed 004's study: held-out scenes run for at least this many I/Os' worth of blocks through the bottleneck (default 150)",
    )
    t.add_argument("--most-us", type=_positive_int, default=20_000, help="seed 004's study: longest held-out scene in us (default 20000)")
    t.add_argument("--set", dest="overrides", metavar="PATH=VALUE", action="append", default=[], type=_override, help=set_help)
    t.add_argument("--variant", metavar="NAME", default=None, help="tune the scenario's [variants.NAME]")
    t.add_argument("--data-root", dest="data_roots", metavar="DIR", action="append", default=[], help=root_help)
    t.add_argument("--store", metavar="DIR", default=None, help="results store of the trials (default OUT/store); a rerun resumes from it")
    t.add_argument("--jobs", "-j", type=_positive_int, default=os.cpu_count() or 1, metavar="N", help="runs at once (default: all cores)")
    t.add_argument("--backend", choices=("process", "ray"), default="process", help="where runs go: forked processes or Ray tasks")
    t.add_argument("--ray-address", metavar="ADDR", default=None, help="Ray cluster with --backend ray (default: a local Ray)")
    t.add_argument("--point-timeout", type=float, default=None, metavar="SECONDS", help="a run over this fails its trial")
    t.add_argument("--point-memory", type=_size, default=None, metavar="SIZE", help="memory a run may take beyond its start")
    t.add_argument(
        "--out",
        "-o",
        metavar="DIR",
        default=None,
        help="directory of the report (tune.md, trials.csv) and the store; for seed 004's study, of the model "
        "(model.pkl, settings.json) and its report (default out/tune, or out/tune-SCENARIO)",
    )
    t.add_argument("--quick", action="store_true", help="seed 004's study: a small study (3 profiles, short runs) for tests")
    t.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    t.set_defaults(func=cmd_tune)
    return p


def _point_options(w: argparse.ArgumentParser, set_help: str, root_help: str, max_events_help: str) -> None:
    """The options of ``dcsim sweep`` and ``dcsim compare`` (``sweeps.Options``)."""
    w.add_argument("--set", dest="overrides", metavar="PATH=VALUE", action="append", default=[], type=_override, help=set_help)
    w.add_argument("--data-root", dest="data_roots", metavar="DIR", action="append", default=[], help=root_help)
    w.add_argument("--max-events", type=_event_count, default=None, metavar="N", help=max_events_help)
    w.add_argument(
        "--out",
        metavar="FILE",
        help="CSV file, written when every point has run; rows are journaled in FILE.partial.jsonl "
        "meanwhile, and running the same sweep again reuses the points that ran "
        "(default: standard output, no resume)",
    )
    w.add_argument("--per-flow", action="store_true", help="add each flow's steady-state goodput")
    w.add_argument("--groups", metavar="GROUPS", default=None, help=groups_help("FCT columns"))
    w.add_argument(
        "--jobs",
        "-j",
        type=_positive_int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="points run at once, each in its own process (default: all cores)",
    )
    w.add_argument(
        "--store",
        metavar="DIR",
        default=None,
        help="also write every point to this results store (DuckDB over Parquet, see "
        "docs/store.md); points it holds without error are reused",
    )
    w.add_argument(
        "--backend",
        choices=("process", "ray"),
        default="process",
        help="where points run: local forked processes (default) or Ray tasks (pip install 'dcsim[ray]')",
    )
    w.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="Ray cluster to run on with --backend ray (ray.init(address=ADDR); default: a local Ray)",
    )
    w.add_argument(
        "--mode",
        choices=("grid", "zip", "random"),
        default="grid",
        help="grid: every combination of the --grid values (default); zip: the i-th value of each; "
        "random: --samples distinct combinations drawn with --sample-seed",
    )
    w.add_argument("--samples", type=_positive_int, default=None, metavar="N", help="points drawn with --mode random")
    w.add_argument(
        "--sample-seed", type=int, default=0, metavar="S", help="seed of --mode random (default 0): the same seed draws the same points"
    )
    w.add_argument(
        "--point-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop a point that runs longer and record it as failed (default: no limit)",
    )
    w.add_argument(
        "--point-memory",
        type=_size,
        default=None,
        metavar="SIZE",
        help="memory a point's process may take beyond its start, e.g. 4GiB; a point "
        "over it fails alone (default: no limit but the scenario's memory_limit)",
    )


def groups_help(what: str) -> str:
    return (
        f"traffic groups of the {what}, by name: NAME,NAME (each alone), all (every flow pooled), "
        "LABEL=NAME+NAME (those pooled under LABEL); default: each group alone"
    )


def parse_groups(spec: Optional[str]) -> Any:
    """``--groups``: ``None`` (each group), ``"all"``, or ``{label: [names]}`` for
    ``analysis.Groups`` (``a,b`` -> each alone; ``bg=a+b`` -> a and b pooled as bg)."""
    if spec is None or not spec.strip():
        return None
    if spec.strip() == "all":
        return "all"
    out: Dict[str, List[str]] = {}
    for part in spec.split(","):
        label, sep, members = part.strip().partition("=")
        names = [m.strip() for m in (members if sep else label).split("+") if m.strip()]
        if not label.strip() or not names:
            raise ValueError(f"--groups {spec!r}: expected NAME,NAME or LABEL=NAME+NAME")
        out[label.strip()] = names
    return out


def _options(args: argparse.Namespace) -> Any:
    from .sweeps import Options

    return Options(
        overrides=args.overrides,
        per_flow=args.per_flow,
        jobs=args.jobs,
        point_memory=args.point_memory,
        data_roots=args.data_roots,
        backend=args.backend,
        ray_address=args.ray_address,
        point_timeout=args.point_timeout,
        mode=args.mode,
        samples=args.samples,
        seed=args.sample_seed,
        groups=parse_groups(args.groups),
    )


def _seed_list(s: str) -> List[int]:
    try:
        v = [int(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not a comma-separated list of integers") from None
    if len(v) < 2 or len(set(v)) != len(v):
        raise argparse.ArgumentTypeError(f"'{s}': at least two different seeds")
    return v


def _positive_int(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {v})")
    return v


def _sim_time(s: str) -> int:
    """A positive duration as scenario files write it, in picoseconds."""
    from . import _native

    try:
        v = _native.parse_time_ps(s)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"'{s}' is not a duration (e.g. 10ms, 500us): {e}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be positive (got '{s}')")
    return v


_SIZE_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}


def _event_count(s: str) -> int:
    """A positive count of events, as an integer or a float (5e11)."""
    try:
        v = float(s) if any(c in s for c in ".eE") else int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not a count of events (e.g. 5e11)") from None
    if not 1 <= v < 2**63:
        raise argparse.ArgumentTypeError(f"'{s}' must be between 1 and 2^63")
    return int(v)


def _size(s: str) -> int:
    t = s.strip().upper()
    num = t.rstrip("KMGIB")
    unit = t[len(num) :] or "B"
    try:
        v = float(num) * _SIZE_UNITS[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"'{s}' is not a size (e.g. 4GiB, 500MB)") from None
    if not v >= 1:
        raise argparse.ArgumentTypeError(f"'{s}' must be positive")
    return int(v)


def format_error(exc: BaseException) -> str:
    """The one-line message for an error the user can act on (no traceback)."""
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or str(exc)
        return f"error: {exc.filename}: {reason[:1].lower()}{reason[1:]}"
    msg = str(exc).strip() or type(exc).__name__
    return f"error: {msg}"


# -- formatting helpers -----------------------------------------------------------------


def fmt_time_ps(ps: float) -> str:
    """12.3us, 4.56ms, 789ns ..."""
    if ps is None or (isinstance(ps, float) and math.isnan(ps)):
        return "-"
    for scale, unit in ((1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")):  # noqa: B007 (read after the loop)
        if abs(ps) >= scale:
            v = ps / scale
            break
    else:
        return f"{int(ps)}ps"
    s = f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return f"{s}{unit}"


def result_table(res: Any, max_flows: int = 20) -> List[str]:
    """Lines of the human summary printed by ``dcsim run``: per flow its steady-state
    goodput and FCT, then drops, PFC frames and packet latency from the summary."""
    lines: List[str] = []
    flows = res.flows
    summary = res.summary
    if len(flows):
        header = f"{'flow':>5}  {'src -> dst':<24} {'goodput Gb/s':>12}  {'FCT':>9}  {'slowdown':>8}"
        lines += [header, "-" * len(header)]
        for i, row in enumerate(flows.itertuples(index=False)):
            if i >= max_flows:
                lines.append(f"  ... {len(flows) - max_flows} more flows (see the flows table)")
                break
            gp = float(row.goodput_steady_gbps)
            fct = fmt_time_ps(row.fct_ps) if row.fct_ps > 0 else "-"
            slow = "-" if math.isnan(row.slowdown) else f"{row.slowdown:.2f}"
            route = f"{row.src} -> {row.dst}"
            lines.append(f"{row.flow_id:>5}  {route:<24} {'-' if math.isnan(gp) else f'{gp:.2f}':>12}  {fct:>9}  {slow:>8}")
        steady = summary.get("steady_start_ps")
        if steady is not None:
            lines.append(f"(goodput averaged from {fmt_time_ps(steady)} to the end of the run or of the flow)")
    else:
        lines.append("no flows")
    c = summary.get("counters", {})
    reasons = ", ".join(f"{k} {v}" for k, v in c.get("drops", {}).items() if v)
    lines.append(
        f"drops: {c.get('drops_total', 'n/a')}{f' ({reasons})' if reasons else ''}   "
        f"PFC frames sent: {c.get('pfc_xoff_sent', 0)} XOFF, {c.get('pfc_xon_sent', 0)} XON"
    )
    lat = summary.get("latency_ps") or {}
    if lat.get("count"):
        lines.append(
            f"packet latency: p50 {lat['p50'] / 1e3:.0f} ns, p99 {lat['p99'] / 1e3:.0f} ns, "
            f"p99.9 {lat['p999'] / 1e3:.0f} ns over {lat['count']} packets"
        )
    return lines


# -- commands ---------------------------------------------------------------------------


def _variant_sets(args: argparse.Namespace) -> List[str]:
    """``--variant NAME``: the overrides of the scenario's ``[variants.NAME]``."""
    if args.variant is None:
        return []
    from .sweeps import variants_of

    have = variants_of(args.scenario)
    if args.variant not in have:
        raise ValueError(f"--variant: no [variants.{args.variant}] in {args.scenario} (it has {', '.join(have) or 'none'})")
    return have[args.variant]


def cmd_run(args: argparse.Namespace) -> int:
    import dcsim

    from .output import Staging

    overrides = _variant_sets(args) + list(args.overrides)
    if args.pcap is not None:
        # A TOML string: json's escaping of a path is valid TOML basic-string escaping.
        overrides.append(f"stats.pcap.file={json.dumps(str(Path(args.pcap).resolve()))}")
    sc = dcsim.load(args.scenario, overrides=overrides, data_roots=args.data_roots)
    _print_warnings(sc.plan.warnings)
    out = args.out if args.out is not None else Path("out") / Path(args.scenario).stem
    # Before the run: the output directory is refused if it holds an earlier run (unless
    # --overwrite) and the staging directory beside it is created, so an unwritable
    # output is found now. The files go there and are renamed to `out` when complete.
    store = None
    if args.store is not None:
        from .store import Store

        store = Store(args.store, create=True, name="--store")  # an unusable store fails before the run
    with Staging(out, overwrite=args.overwrite, name="--out") as st:
        res = dcsim.run(sc, progress=not args.quiet)
        written = res.write_files(st.tmp, fmt="csv" if args.csv else "parquet")
        out = st.commit()
    for line in cut_logs(res.summary):
        print(f"warning: {line}", file=sys.stderr)
    pcap = res.summary.get("pcap") or {}
    if pcap.get("frames_not_written"):
        print(
            f"warning: stats.pcap.limit: the capture stopped at {pcap['limit']} frames; {pcap['frames_not_written']} "
            "more frames were selected but not written (raise stats.pcap.limit or narrow ports, flows or the window)",
            file=sys.stderr,
        )
    if store is not None:
        from .sweeps import metrics

        rid = res.summary["run_id"]
        store.put_tables(rid, res)
        row: Dict[str, Any] = {o.partition("=")[0]: o.partition("=")[2] for o in args.overrides}
        row.update(metrics(res))
        store.put_run(rid, {**row, "overrides": " ".join(args.overrides)})
    if not args.quiet:
        plan = sc.plan
        head = f"{plan.name}: simulated {fmt_time_ps(plan.duration_ps)}"
        if res.wall_s is not None:
            head += f" in {res.wall_s:.2f} s"
        if res.events:
            head += f" ({res.events / 1e6:.2f} M events)"
        print(head)
        for line in result_table(res):
            print(line)
        ff = res.summary.get("fast_forward")
        if ff:
            print(_fast_forward_line(ff))
        files = ", ".join(p.name for p in written.values())
        print(f"outputs: {out}/ ({files})")
    return EXIT_OK


# The logs a run caps (``summary.outputs``): what each counts, and the setting that caps it.
_CAPPED_LOGS = {
    "pfc_events_not_logged": ("pfc_events", "PFC events", "stats.max_pfc_events"),
    "samples_not_kept": ("samples", "queue samples", "stats.max_rows"),
    "goodput_bins_not_kept": ("goodput", "goodput bins", "stats.max_rows"),
    "rate_changes_not_kept": ("rates", "rate changes", "stats.max_rows"),
    "cc_trace_rows_not_kept": ("cc_trace", "traced changes", "stats.max_rows"),
    "class_bins_not_kept": ("class_throughput", "class bins", "stats.max_rows"),
    "congestion_intervals_not_kept": ("congestion_intervals", "congested intervals", "stats.max_rows"),
}


def cut_logs(summary: Dict[str, Any]) -> List[str]:
    """A line for each table a cap cut short (``summary.outputs``), which ``dcsim run``
    prints as a warning: a long run's rates table, for one, holds its first
    ``stats.max_rows`` changes and stops where they end."""
    out = summary.get("outputs") or {}
    lines = []
    for key, (table, what, setting) in _CAPPED_LOGS.items():
        n = out.get(key) or 0
        kept = (out.get("rows") or {}).get(table)
        # Nothing kept of a log that had rows: its cap is 0, the log turned off on purpose.
        if n > 0 and kept != 0:
            held = f"the {table} table holds {kept:,} rows; " if kept is not None else ""
            lines.append(f"{setting}: {held}{n:,} more {what} were not kept (raise {setting} to keep them)")
    return lines


def _fast_forward_line(ff: Dict[str, Any]) -> str:
    """What ``simulation.fast_forward`` skipped (``summary.fast_forward``), in one line."""
    if not ff["skipped_ps"]:
        return f"fast-forward: nothing skipped ({ff['not_skipped_because']})"
    what = f"{ff['iterations_skipped']} iterations, " if ff["iterations_skipped"] else ""
    return (
        f"fast-forward: skipped {fmt_time_ps(ff['skipped_ps'])} ({ff['skipped_fraction']:.1%} of the run, "
        f"{what}about {ff['events_skipped_estimate'] / 1e6:.1f} M events); "
        f"error estimate {ff['error_estimate_fraction']:.2%} of the time skipped"
    )


def cmd_check_fast_forward(args: argparse.Namespace) -> int:
    from .ff_check import check_fast_forward

    overrides = _variant_sets(args) + list(args.overrides)
    check = check_fast_forward(args.scenario, overrides=overrides, data_roots=args.data_roots, progress=not args.quiet)
    for line in check.lines():
        print(line)
    for problem in check.problems:
        print(f"error: fast-forward: {problem}", file=sys.stderr)
    if not check.ok:
        return EXIT_ERROR
    print("ok: fast-forward is within the tolerance and the error estimate")
    return EXIT_OK


def _on_signal(signum: int, frame: Any) -> None:
    """SIGINT and SIGTERM: recorded (see ``pool.request_stop``), then raised."""
    from .pool import request_stop

    request_stop(signum)
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def cmd_validate(args: argparse.Namespace) -> int:
    import dcsim

    plan = dcsim.load(args.scenario, overrides=_variant_sets(args) + list(args.overrides), data_roots=args.data_roots).plan
    print(f"ok: {plan.name} ({plan.num_nodes} nodes, {plan.num_links} links, {plan.num_flows} flows)")
    gib = 1 << 30
    print(f"memory: about {plan.memory_estimate / gib:.2f} GiB for {plan.memory_counts}; the limit is {plan.memory_limit / gib:.2f} GiB")
    print(f"events: about {plan.events_estimate:.2g} ({plan.events_counts}); the limit is {plan.max_events:.2g}")
    _print_warnings(plan.warnings)
    return EXIT_OK


def _print_warnings(warnings: Sequence[str]) -> None:
    """The scenario's warnings (valid, but maybe not meant: RoCE on a lossy priority), on stderr."""
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)


def _ray_address_fits(args: argparse.Namespace) -> bool:
    """``--ray-address`` goes with ``--backend ray`` only (sweep, compare, tune)."""
    if args.ray_address is not None and args.backend != "ray":
        print("error: --ray-address: only used with --backend ray", file=sys.stderr)
        return False
    return True


def cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweeps

    if not _ray_address_fits(args):
        return EXIT_USAGE
    try:
        return sweeps.cli(args.scenario, args.grid, args.out, _options(args), args.store, variants=args.variants)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE


def cmd_compare(args: argparse.Namespace) -> int:
    from . import sweeps

    if not _ray_address_fits(args):
        return EXIT_USAGE
    try:
        opts = _options(args)
        seeds = sweeps.seed_list(args.seeds)
        labels, build = sweeps.scenario_files(args.files, opts.data_roots)
        if any(g.partition("=")[0].strip() == "simulation.seed" for g in args.grid):
            raise ValueError("--grid simulation.seed: give the seeds with --seeds")
        grid = ["simulation.seed=" + ",".join(map(str, seeds)), *args.grid]
        return sweeps.cli(build, grid, args.out, opts, args.store, first=(sweeps.VARIANT, labels), summary=True)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE


def split_titles(titles: Optional[Sequence[str]]) -> Optional[List[str]]:
    """``--title A,B,C`` and repeated ``--title`` alike: one title per run."""
    if not titles:
        return None
    return [t.strip() for a in titles for t in a.split(",")]


def cmd_plot(args: argparse.Namespace) -> int:
    from . import plot

    runs = list(args.runs)
    # A figure's name first, unless a run directory of that name is meant.
    kind = runs[0] if runs[0] in ("fct", "jobs", "cdf", "pauses") and not Path(runs[0]).is_dir() else "rates"
    if kind != "rates":
        runs = runs[1:]
        if not runs:
            print(f"error: dcsim plot {kind}: give at least one run directory", file=sys.stderr)
            return EXIT_USAGE
    titles = split_titles(args.titles)
    if titles and len(titles) != len(runs):
        print(f"error: --title: give one per run ({len(titles)} titles for {len(runs)} runs)", file=sys.stderr)
        return EXIT_USAGE
    args.titles = titles
    try:
        if args.groups is not None and kind not in ("fct", "cdf"):
            raise ValueError("--groups: only used with dcsim plot fct and dcsim plot cdf")
        if kind == "fct":
            pct = [float(x) for x in args.percentiles.split(",") if x.strip()]
            edges = [float(x) for x in args.edges.split(",") if x.strip()] if args.edges else None
            path = plot.render_fct(runs, args.out, args.titles, pct, edges, groups=parse_groups(args.groups))
        elif kind == "cdf":
            path = plot.render_cdf(runs, args.out, args.titles, groups=parse_groups(args.groups))
        elif kind == "jobs":
            path = plot.render_jobs(runs, args.out, args.titles)
        elif kind == "pauses":
            path = plot.render_pauses(runs, args.out, args.titles)
        else:
            path = plot.render(runs, args.out, args.queue, args.titles)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .report import write_report

    out, pngs, plots = write_report(args.path, args.out, args.png_dir, vectors=args.vectors)
    drawn = sum(p.png is not None for p in plots)
    print(f"wrote {out} ({drawn} of {len(plots)} plots drawn; PNGs in {pngs})")
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    if args.list:
        for f in bench.scenarios(args.only):
            print(f)
        return EXIT_OK
    return bench.run(args.only, args.overrides, args.json, args.every)


SEED004_STEPS = ("train", "evaluate", "all")


def cmd_tune(args: argparse.Namespace) -> int:
    if args.step not in SEED004_STEPS:
        return cmd_tune_scenario(args)
    from . import tuning

    if args.params or args.objectives:
        print("error: --param and --objective tune a scenario: dcsim tune SCENARIO --param ... --objective ...", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out or "out/tune")
    log = None if args.quiet else (lambda m: print(m, file=sys.stderr))
    if args.step in ("train", "all"):
        model = tuning.train(tuning.QUICK if args.quick else tuning.FULL, log=log)
        tuning.save(model, out)
    else:
        if not (out / "model.pkl").is_file():
            raise OSError(f"{out / 'model.pkl'}: no model; run dcsim tune train --out {out} first")
        model = tuning.load(out)
    if args.step in ("evaluate", "all") and args.eval_seeds:
        evs = {}
        for sd in args.eval_seeds:
            evs[sd] = tuning.evaluate(model, log=log, seeds=[sd], ios=args.ios, most_us=args.most_us)
            (out / f"evaluation_s{sd}.json").write_text(json.dumps(evs[sd], indent=1))
        seeds = ",".join(str(s) for s in args.eval_seeds)
        command = f"dcsim tune evaluate{' --quick' if args.quick else ''} --out {out} --eval-seeds {seeds} --ios {args.ios} --most-us {args.most_us}"
        text = tuning.seeds_report(evs, command)
        (out / "report_seeds.md").write_text(text)
        print(text)
    elif args.step in ("evaluate", "all"):
        ev = tuning.evaluate(model, log=log, ios=args.ios, most_us=args.most_us)
        command = f"dcsim tune{' --quick' if args.quick else ''} --out {out}"
        text = tuning.report(model, ev, command)
        tuning.write_evaluation(ev, text, out)
        print(text)
    return EXIT_OK


def cmd_tune_scenario(args: argparse.Namespace) -> int:
    """``dcsim tune SCENARIO --param ... --objective ...`` (``tuning/optimize.py``)."""
    import shlex

    import dcsim

    from .sweeps import Options
    from .tuning import optimize

    if not _ray_address_fits(args):
        return EXIT_USAGE
    try:
        params = [optimize.parse_param(p) for p in args.params]
        objectives = [optimize.parse_objective(o) for o in args.objectives]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    args.scenario = args.step
    sc = dcsim.Scenario.from_file(args.step, data_roots=args.data_roots)
    opts = Options(
        overrides=_variant_sets(args) + list(args.overrides),
        jobs=args.jobs,
        point_memory=args.point_memory,
        data_roots=args.data_roots,
        backend=args.backend,
        ray_address=args.ray_address,
        point_timeout=args.point_timeout,
    )
    out = Path(args.out or f"out/tune-{Path(args.step).stem}")
    log = None if args.quiet else (lambda m: print(m, file=sys.stderr))
    result = optimize.tune(
        sc,
        params,
        objectives,
        trials=args.trials,
        seeds=args.seeds,
        store=args.store or out / "store",
        opts=opts,
        sampler_seed=args.sampler_seed,
        log=log,
    )
    command = "dcsim tune " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if sys.argv[1:2] == ["tune"] else "dcsim tune ..."
    text = optimize.report(result, command)
    optimize.write(result, text, out)
    print(text)
    print(f"wrote {out / 'tune.md'} and {out / 'trials.csv'}; the runs are in {args.store or out / 'store'}", file=sys.stderr)
    return EXIT_OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if argv is None:  # the command line, not a call from Python code
            signal.signal(signal.SIGTERM, _on_signal)
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not if ignored
                signal.signal(signal.SIGINT, _on_signal)
        if getattr(args, "max_events", None) is not None:
            args.overrides = [*args.overrides, f"simulation.max_events={args.max_events}"]
        return int(args.func(args))
    except Terminated:
        print("terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - classified below
        from ._native import DcsimError

        if isinstance(exc, (DcsimError, OSError, ValueError)):
            print(format_error(exc), file=sys.stderr)
            return EXIT_ERROR
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
