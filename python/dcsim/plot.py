"""``dcsim plot``: source rates and a queue over time for one or more runs, side by side
(one column per run), as PNG. The queue is the egress queue of NODE toward PEER."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional, Sequence


def _load(run_dir: Path):
    import pandas as pd

    def table(name: str):
        for ext in ("parquet", "csv"):
            f = run_dir / f"{name}.{ext}"
            if f.exists():
                return pd.read_parquet(f) if ext == "parquet" else pd.read_csv(f)
        raise FileNotFoundError(f"{run_dir}: no {name}.parquet or {name}.csv (run `dcsim run ... --out {run_dir}` first)")

    summary = json.loads((run_dir / "summary.json").read_text())
    return summary, table("flows"), table("rates"), table("samples"), table("ports")


def render(run_dirs: Sequence[str], out: str, queue: Optional[str] = None, titles: Optional[List[str]] = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(run_dirs)
    fig, axes = plt.subplots(2, n, figsize=(5 * n, 6), squeeze=False, sharex="col")
    for col, d in enumerate(run_dirs):
        summary, flows, rates, samples, ports = _load(Path(d))
        end_ms = summary["duration_ps"] / 1e9
        ax = axes[0][col]
        names = {int(r.flow_id): f"{r.src}->{r.dst}" for r in flows.itertuples()}
        for fid, g in rates.groupby("flow_id"):
            t = list(g.time_ps / 1e9) + [end_ms]
            v = list(g.rate_gbps) + [g.rate_gbps.iloc[-1]]
            ax.step(t, v, where="post", label=names.get(int(fid), str(fid)), linewidth=1)
        ax.set_title(titles[col] if titles else summary.get("name", d))
        ax.set_ylabel("source rate (Gb/s)")
        if len(names) <= 8:
            ax.legend(fontsize=7, loc="upper right")
        ax = axes[1][col]
        if queue:
            node, _, peer = queue.partition(":")
            sel = ports[(ports.node == node) & (ports.peer == peer)]
            if sel.empty:
                raise ValueError(f"--queue {queue}: no port of {node} toward {peer}")
            pid = int(sel.port_id.iloc[0])
            q = samples[samples.port_id == pid].groupby("time_ps").egress_bytes.sum()
            ax.plot(q.index / 1e9, q.values / 1e3, linewidth=1)
            ax.set_ylabel(f"queue {node}->{peer} (KB)")
        ax.set_xlabel("time (ms)")
    fig.tight_layout()
    path = Path(out)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
