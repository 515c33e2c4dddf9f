"""``dcsim bench``: fixed benchmark scenarios, each run in its own process so that its
peak memory is its own. Reported per scenario: wall seconds, events per second, link
packet-hops per second (packets that finished crossing a link, per wall second) and wall
nanoseconds per hop, wall seconds per simulated millisecond, peak
packets in flight (with ``--set simulation.threads=N``, the sum of the partitions' peaks), peak resident memory, and memory above an idle baseline per packet in
flight (an upper bound: it also holds routing tables and per-port state).

With ``--every DURATION`` (or on a terminal, every tenth of the run) each benchmark also
reports, per interval of simulated time, its wall time, link hops, ns per hop and packets
in flight: a line on stderr as it goes, and the rows as ``intervals`` in ``--json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

BENCH_DIR = Path(__file__).parent / "benchmarks"


def scenarios(only: Optional[str] = None) -> List[Path]:
    files = sorted(BENCH_DIR.glob("*.toml"))
    return [f for f in files if only is None or only in f.stem]


# A child's stderr line that starts with this is progress, echoed by the parent; other
# lines are kept for the error message of a failed benchmark.
PROGRESS = "progress: "


def _child(argv: Sequence[str]) -> int:
    """Runs inside the measured process: one scenario (or only its loading, for the
    baseline); the result is one JSON line on stdout. ``--every PS`` first: run in
    intervals of PS picoseconds (0: a tenth of the run), reporting each."""
    from . import _native

    baseline = argv[0] == "--baseline"
    args = list(argv[1:] if baseline else argv)
    every = None
    if args[:1] == ["--every"]:
        every, args = int(args[1]), args[2:]
    plan = _native.load(args[0], args[1:])
    if baseline:
        print(json.dumps({}))
        return 0
    name, duration_ps, threads = plan.name, plan.duration_ps, plan.threads
    started = time.perf_counter()
    st = _native.Stepper(plan)
    # The world holds what it needs of the plan: the plan itself (every flow of the run,
    # 32 MiB for 100 ms of k = 16) is not held through the run.
    del plan
    print(f"{PROGRESS}{name}: built in {time.perf_counter() - started:.2f} s", file=sys.stderr, flush=True)
    rows = _stepped(st, name, every or max(duration_ps // 10, 1), report=every is not None)
    out = st.finish()
    wall = time.perf_counter() - started
    summary = json.loads(out["summary"])
    row = {
        "name": name,
        "duration_ps": duration_ps,
        "threads": threads,
        "wall_s": wall,
        "events": out["events"],
        "hops": summary["counters"]["link_packet_hops"],
        "peak_packets": summary["memory"]["peak_packets"],
        "drops": summary["counters"]["drops_total"],
    }
    if every is not None:
        row["intervals"] = rows
    print(json.dumps(row))
    return 0


def _stepped(st: Any, name: str, every_ps: int, report: bool) -> List[dict]:
    """Runs the stepper ``st`` to its end in intervals of ``every_ps`` simulated; returns
    a row per interval, each also printed on stderr when it ends if ``report``."""
    rows: List[dict] = []
    t, hops_before, end = st.now_ps, 0, st.end_ps
    more = True
    while more and t < end:
        t = min(t + every_ps, end)
        t0 = time.perf_counter()
        more = st.run_until(t)
        wall = time.perf_counter() - t0
        if not report:
            continue
        hops = st.link_packet_hops
        n = hops - hops_before
        r: Dict[str, Any] = {
            "to_ps": t,
            "wall_s": wall,
            "hops": n,
            "packets_in_flight": st.packets_in_flight,
            "ns_per_hop": wall * 1e9 / n if n else None,
        }
        hops_before = hops
        rows.append(r)
        ns = f"{r['ns_per_hop']:.0f}" if r["ns_per_hop"] is not None else "n/a"
        print(
            f"{PROGRESS}{name}: to {t / 1e9:g} ms: {wall:.2f} s wall, {r['hops'] / 1e6:.2f} M link hops, "
            f"{ns} ns per hop, {r['packets_in_flight']} packets in flight",
            file=sys.stderr,
            flush=True,
        )
    return rows


def _measure(args: List[str]) -> Tuple[dict, int]:
    """Runs one child process; returns its JSON result and its peak RSS in bytes. Its
    progress lines are echoed to stderr as they come."""
    proc = subprocess.Popen([sys.executable, "-m", "dcsim.bench", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors: List[str] = []

    def pump() -> None:
        for raw in proc.stderr:  # type: ignore[union-attr]
            line = raw.decode(errors="replace")
            if line.startswith(PROGRESS):
                sys.stderr.write(line[len(PROGRESS) :])
                sys.stderr.flush()
            else:
                errors.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    out = proc.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError("".join(errors).strip() or f"exit code {proc.returncode}")
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_maxrss * 1024


def run(only: Optional[str] = None, overrides: Sequence[str] = (), as_json: bool = False, every_ps: Optional[int] = None) -> int:
    """Runs the benchmarks whose name contains ``only``; ``every_ps``: report intervals of
    that many simulated picoseconds (default: a tenth of the run on a terminal, else
    none)."""
    if every_ps is None and sys.stderr.isatty():
        every_ps = 0
    every = ["--every", str(every_ps)] if every_ps is not None else []
    files = scenarios(only)
    if not files:
        print(f"error: no benchmark scenario matches '{only}'", file=sys.stderr)
        return 1
    failed = 0
    for f in files:
        try:
            _, base_rss = _measure(["--baseline", str(f), *overrides])
            r, rss = _measure([*every, str(f), *overrides])
        except RuntimeError as e:  # one failed benchmark does not sink the others
            print(f"{f.stem}: failed: {e}", file=sys.stderr)
            failed += 1
            continue
        r["peak_rss_bytes"] = rss
        r["baseline_rss_bytes"] = base_rss
        r["events_per_s"] = r["events"] / r["wall_s"]
        r["hops_per_s"] = r["hops"] / r["wall_s"]
        r["ns_per_hop"] = r["wall_s"] * 1e9 / r["hops"] if r["hops"] else None
        r["wall_s_per_sim_ms"] = r["wall_s"] / (r["duration_ps"] / 1e9)
        r["bytes_per_packet"] = (rss - base_rss) / r["peak_packets"] if r["peak_packets"] else None
        if as_json:
            print(json.dumps(r), flush=True)
            continue
        per_pkt = f"{r['bytes_per_packet']:.0f}" if r["bytes_per_packet"] is not None else "n/a"
        print(
            f"{r['name']}: {r['duration_ps'] / 1e9:g} ms simulated in {r['wall_s']:.2f} s wall "
            f"on {r['threads']} thread{'s' if r['threads'] > 1 else ''} "
            f"({r['wall_s_per_sim_ms']:.2f} s per simulated ms) | "
            f"{r['events_per_s'] / 1e6:.2f} M events/s | {r['hops_per_s'] / 1e6:.2f} M link packet-hops/s "
            f"({r['ns_per_hop'] or 0:.0f} ns per hop) | "
            f"peak {r['peak_packets']} packets in flight | peak RSS {rss / 2**20:.1f} MiB "
            f"({(rss - base_rss) / 2**20:.1f} MiB above the idle {base_rss / 2**20:.1f} MiB, "
            f"{per_pkt} B per packet in flight)",
            flush=True,
        )
    return 1 if failed else 0


def _child_main(argv: Sequence[str]) -> int:
    """``_child`` with a bad scenario or override reported as its message alone (the
    parent shows it after the benchmark's name), not as a traceback."""
    from ._native import DcsimError

    try:
        return _child(argv)
    except DcsimError as e:
        print(str(e).strip() or type(e).__name__, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
