"""``dcsim bench``: fixed benchmark scenarios, each run in its own process so that its
peak memory is its own. Reported per scenario: wall seconds, events per second, link
packet-hops per second (packets that finished crossing a link, per wall second) and wall
nanoseconds per hop, wall seconds per simulated millisecond, peak
packets in flight (with ``--set simulation.threads=N``, the sum of the partitions' peaks), peak resident memory, and memory above an idle baseline per packet in
flight (an upper bound: it also holds routing tables and per-port state)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

BENCH_DIR = Path(__file__).parent / "benchmarks"


def scenarios(only: Optional[str] = None) -> List[Path]:
    files = sorted(BENCH_DIR.glob("*.toml"))
    return [f for f in files if only is None or only in f.stem]


def _child(argv: Sequence[str]) -> int:
    """Runs inside the measured process: one scenario (or only its loading, for the
    baseline); the result is one JSON line on stdout."""
    from . import _native

    baseline = argv[0] == "--baseline"
    args = list(argv[1:] if baseline else argv)
    plan = _native.load(args[0], args[1:])
    if baseline:
        print(json.dumps({}))
        return 0
    out = _native.run(plan, progress=False)
    summary = json.loads(out["summary"])
    print(json.dumps({
        "name": plan.name,
        "duration_ps": plan.duration_ps,
        "threads": plan.threads,
        "wall_s": out["wall_s"],
        "events": out["events"],
        "hops": summary["counters"]["link_packet_hops"],
        "peak_packets": summary["memory"]["peak_packets"],
        "drops": summary["counters"]["drops_total"],
    }))
    return 0


def _measure(args: List[str]) -> Tuple[dict, int]:
    """Runs one child process; returns its JSON result and its peak RSS in bytes."""
    proc = subprocess.Popen([sys.executable, "-m", "dcsim.bench", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(err.decode(errors="replace").strip() or f"exit code {proc.returncode}")
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_maxrss * 1024


def run(only: Optional[str] = None, overrides: Sequence[str] = (), as_json: bool = False) -> int:
    files = scenarios(only)
    if not files:
        print(f"error: no benchmark scenario matches '{only}'", file=sys.stderr)
        return 1
    failed = 0
    for f in files:
        try:
            _, base_rss = _measure(["--baseline", str(f), *overrides])
            r, rss = _measure([str(f), *overrides])
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


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
