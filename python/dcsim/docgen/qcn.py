"""QCN (docs/models/qcn.md): seed 003, the rate following a stepped egress limit."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from .common import block, jain, run, spaced

QCN_RUNS = (("1 RP", "seed003_qcn_step.toml"), ("8 RP", "seed003_qcn_step_8rp.toml"))
QCN_PHASES = ((0.0, 3.7, 950.0), (3.7, 7.4, 200.0), (7.4, 11.1, 950.0))
WIN = 10 * 10**9  # 10 ms in ps


def _rate_windows(res: Any) -> Tuple[Any, Any]:
    """(window starts in s, per-flow mean source rate per 10 ms window in Mb/s): the
    `rates` step function of each flow (line rate before its first row), averaged."""
    import numpy as np

    end = int(res.summary["duration_ps"])
    edges = np.arange(0, end + 1, WIN, dtype=np.int64)
    line = float(res.ports[res.ports["node"] == res.flows["src"].iloc[0]]["rate_bps"].iloc[0]) / 1e6
    r = res.rates
    per = []
    for fid in res.flows["flow_id"]:
        g = r[r["flow_id"] == fid]
        t = np.concatenate([[0], g["time_ps"].to_numpy(dtype=np.int64)])
        v = np.concatenate([[line], g["rate_gbps"].to_numpy(dtype=float) * 1e3])
        # Area of the step function up to each edge.
        seg = np.diff(np.concatenate([t, [end]])).astype(float)
        cum = np.concatenate([[0.0], np.cumsum(v * seg)])
        idx = np.searchsorted(t, edges, side="right") - 1
        area = cum[idx] + v[idx] * (edges - t[idx])
        per.append(np.diff(area) / WIN)
    return edges[:-1] / 1e12, np.array(per)


@block(short=True)
def qcn_rate_table() -> str:
    out = ["| run | settle | 950 Mb/s (0-3.7 s) | 200 Mb/s (3.7-7.4 s) | 950 Mb/s (7.4-11.1 s) |", "|---|---|---|---|---|"]
    for label, sc in QCN_RUNS:
        t, per = _rate_windows(run(sc))
        tot = per.sum(axis=0)
        for settle in (0.1, 0.2, 0.5):
            cells = []
            for t0, t1, _ in QCN_PHASES:
                w = tot[(t >= t0 + settle - 1e-9) & (t + 0.01 <= t1 + 1e-9)]
                cells.append(f"{w.mean():.1f}, {w.min():.1f}..{w.max():.1f}")
            out.append(f"| {label} | {settle * 1000:.0f} ms | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


@block(short=True)
def qcn_settling() -> str:
    out = ["| run | start (950) | step down (200) | step up (950) |", "|---|---|---|---|"]
    for label, sc in QCN_RUNS:
        t, per = _rate_windows(run(sc))
        tot = per.sum(axis=0)
        cells = []
        for t0, t1, limit in QCN_PHASES:
            sel = (t >= t0 - 1e-9) & (t + 0.01 <= t1 + 1e-9)
            ts, ok = t[sel], abs(tot[sel] / limit - 1) <= 0.05
            first = None
            for i in range(len(ok) - 1, -1, -1):
                if not ok[i]:
                    break
                first = ts[i]
            cells.append("never" if first is None else f"{(first - t0) * 1000:.0f} ms")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


@block(short=True)
def qcn_queue() -> str:
    """qcn.md: the SW -> DST queue after each step (samples every 1 ms)."""
    import numpy as np

    qeq = 33_000
    out = ["| run | phase | peak after the step | back below 1.5 Q_EQ | mean (median) from +500 ms, p5..p95 |", "|---|---|---|---|---|"]
    for label, sc in QCN_RUNS:
        res = run(sc)
        s = res.samples
        q = s[(s["node"] == "SW") & (s["peer"] == "DST")].groupby("time_ps")["egress_bytes"].sum()
        t = q.index.to_numpy() / 1e12
        v = q.to_numpy(dtype=float)
        for (t0, t1, _limit), name in zip(QCN_PHASES, ("start, 950", "200", "950")):
            first = (t >= t0) & (t < t0 + 0.5)
            i = int(v[first].argmax())
            tp, vp = t[first][i], v[first][i]
            after = (t > tp) & (t < t1) & (v < 1.5 * qeq)
            back = f"+{(t[after][0] - t0) * 1000:.0f} ms" if after.any() else "not in the phase"
            late = v[(t >= t0 + 0.5) & (t < t1)]
            out.append(
                f"| {label} | {name} | {vp / 1e3:.1f} KB at +{(tp - t0) * 1000:.0f} ms | {back} | "
                f"{late.mean() / 1e3:.1f} KB ({float(np.median(late)) / 1e3:.1f}), "
                f"{np.percentile(late, 5) / 1e3:.1f}..{np.percentile(late, 95) / 1e3:.1f} KB |"
            )
    peaks = ", ".join(
        f"{spaced(run(sc).ports[(run(sc).ports['node'] == 'SW') & (run(sc).ports['peer'] == 'DST')]['max_egress_bytes'].max())} B ({label})"
        for label, sc in QCN_RUNS
    )
    drops = sum(run(sc).summary["counters"]["drops_total"] for _, sc in QCN_RUNS)
    return "\n".join(out) + f"\n\nLargest queue of each run (`ports.max_egress_bytes`): {peaks}; {drops} drops.\n"


@block(short=True)
def qcn_feedback() -> str:
    """qcn.md: feedback, lowest rates and per-source shares (from +500 ms of each phase)."""
    rows: Dict[str, List[str]] = {}
    for _label, sc in QCN_RUNS:
        res = run(sc)
        f = res.flows
        t, per = _rate_windows(res)
        fb = f["feedback_received"]
        cnm = spaced(res.summary["counters"]["l2_feedback_sent"])
        rows.setdefault("CNMs (`summary.counters.l2_feedback_sent`; per source `flows.feedback_received`)", []).append(
            cnm if len(f) == 1 else f"{cnm} ({int(fb.min())}..{int(fb.max())} per source)"
        )
        mr = f["min_rate_gbps"] * 1e3
        rows.setdefault("lowest rate (`min_rate_gbps`)", []).append(
            f"{mr.min():.1f} Mb/s" if len(f) == 1 else f"{mr.min():.1f}..{mr.max():.1f} Mb/s"
        )
        for (t0, t1, _limit), name in zip(QCN_PHASES, ("950 Mb/s phase 1", "200 Mb/s", "950 Mb/s phase 2")):
            m = per[:, (t >= t0 + 0.5 - 1e-9) & (t + 0.01 <= t1 + 1e-9)].mean(axis=1)
            key = f"per-source mean rate, {name} (from +500 ms)"
            rows.setdefault(key, []).append(
                f"{m[0]:.1f} Mb/s"
                if len(m) == 1
                else f"{m.min():.1f}..{m.max():.1f} Mb/s (max/min {m.max() / m.min():.2f}, Jain index {jain(list(m)):.3f})"
            )
    out = ["| quantity | 1 RP | 8 RP |", "|---|---|---|"] + [f"| {k} | {' | '.join(v)} |" for k, v in rows.items()]
    return "\n".join(out) + "\n"
