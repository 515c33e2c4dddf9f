"""Seed 002: BCN, FECN and E-FECN side by side (docs/models/fecn.md, bcn.md)."""

from __future__ import annotations

from typing import Any, Dict, Optional

from .common import block, run, spaced

#: Fair share of goodput per source (2.5 Gb/s of 1500 B frames, 1438 B of payload) while
#: four sources are active, and after two stop; Qeq and the convergence band.
FAIR4, FAIR2 = 2.5 * 1438 / 1500, 5.0 * 1438 / 1500
QEQ = 24_000


def _ms_bins(res: Any) -> Any:
    """Goodput per source per 1 ms bin (Gb/s), empty bins 0: DataFrame index ms, columns src."""
    import pandas as pd

    g, f = res.goodput, res.flows
    names = dict(zip(f["flow_id"], f["src"]))
    t = (g["time_ps"] // 10**9).astype(int)
    tab = pd.DataFrame({"ms": t, "src": g["flow_id"].map(names), "gbps": g["bytes"] * 8 / 1e-3 / 1e9})
    wide = tab.pivot_table(index="ms", columns="src", values="gbps", aggfunc="sum", fill_value=0.0)
    end = int(res.summary["duration_ps"] // 10**9)
    return wide.reindex(range(0, end), fill_value=0.0)


def _queue_ms(res: Any) -> Any:
    """CS -> DU queue: (samples as a Series by time in ms, 1 ms means by ms)."""
    s = res.samples
    q = s[(s["node"] == "CS") & (s["peer"] == "DU")].groupby("time_ps")["egress_bytes"].sum()
    q.index = q.index / 1e9
    return q, q.groupby((q.index // 1).astype(int)).mean()


def _converged(ok: Any, lo: int, hi: int) -> Optional[int]:
    """The first ms b in [lo, hi) such that ok[b..hi) all hold, or None."""
    first = None
    for b in range(hi - 1, lo - 1, -1):
        if not ok.get(b, False):
            break
        first = b
    return first


def _conv_text(b: Optional[int], since: int) -> str:
    return "never" if b is None else f"{b} ms ({b - since} ms after the change)"


def _scheme(scenario: str) -> Dict[str, str]:
    res = run(scenario)
    bins = _ms_bins(res)
    srcs = list(res.flows["src"])
    four = bins.loc[20:79, srcs].mean()
    two = bins.loc[85:99, srcs[:2]].mean()

    def each(xs: Any) -> str:
        v = [f"{float(x):.3f}" for x in xs]
        return f"{v[0]} each" if len(set(v)) == 1 else " / ".join(v)

    rate_ok4 = {b: bool(((bins.loc[b, srcs] / FAIR4 - 1).abs() <= 0.05).all()) for b in range(5, 80)}
    rate_ok2 = {b: bool(((bins.loc[b, srcs[:2]] / FAIR2 - 1).abs() <= 0.05).all()) for b in range(80, 100)}
    q, qm = _queue_ms(res)
    band = {int(b): bool(0.5 * QEQ <= v <= 1.5 * QEQ) for b, v in qm.items()}
    start = q[(q.index >= 5) & (q.index < 80)]
    c = res.summary["counters"]
    f = res.flows
    port = res.ports[(res.ports["node"] == "CS") & (res.ports["peer"] == "DU")]
    return {
        "goodput 20-80 ms, SU1 / SU2 / SU3 / SU4 (Gb/s)": each(four),
        "goodput 85-100 ms, SU1 / SU2 (Gb/s)": each(two),
        "rate convergence (four sources, from 5 ms)": _conv_text(_converged(rate_ok4, 5, 80), 5),
        "rate convergence after the stop (80 ms)": _conv_text(_converged(rate_ok2, 80, 100), 80),
        "queue convergence (four sources)": _conv_text(_converged(band, 5, 80), 5),
        "queue convergence after the stop": _conv_text(_converged(band, 80, 100), 80),
        "drops": spaced(c["drops_total"]),
        "CS -> DU peak (`ports.max_egress_bytes`)": f"{int(port['max_egress_bytes'].max()):,} B".replace(",", " "),
        "time above 100 KB / above 2 Qeq (48 KB), 5-80 ms": (
            f"{(start > 100_000).sum() * 0.1:.1f} / {(start > 2 * QEQ).sum() * 0.1:.1f} ms"
        ),
        "CS -> DU mean 20-80 ms / 30-80 ms": (
            f"{q[(q.index >= 20) & (q.index < 80)].mean() / 1e3:.1f} / {q[(q.index >= 30) & (q.index < 80)].mean() / 1e3:.1f} KB"
        ),
        "CS -> DU mean 85-100 ms": f"{q[(q.index >= 85) & (q.index < 100)].mean() / 1e3:.1f} KB",
        "switch feedback frames (`l2_feedback_sent`) / feedback received by sources": (
            f"{spaced(c['l2_feedback_sent'])} / {spaced(f['feedback_received'].sum())}"
        ),
        "lowest source rate": f"{float(f['min_rate_gbps'].min()):.3f} Gb/s",
    }


@block(short=True)
def seed002_schemes() -> str:
    """docs/models/fecn.md: BCN, FECN and E-FECN side by side."""
    cols = [_scheme(f"seed002_{m}.toml") for m in ("bcn", "fecn", "efecn")]
    out = ["| quantity | BCN | FECN | E-FECN |", "|---|---|---|---|"]
    for k in cols[0]:
        out.append(f"| {k} | " + " | ".join(c[k] for c in cols) + " |")
    return "\n".join(out) + "\n"


@block(short=True)
def seed002_bcn() -> str:
    """docs/models/bcn.md: the BCN column against what the study reports."""
    c = _scheme("seed002_bcn.toml")
    expected = {
        "goodput 20-80 ms, SU1 / SU2 / SU3 / SU4 (Gb/s)": 'unfair: "very different rates" (no values given); fair share 2.397',
        "goodput 85-100 ms, SU1 / SU2 (Gb/s)": "still different; fair share 4.793",
        "drops": '"a few packet losses at the beginning (spike)"',
        "CS -> DU peak (`ports.max_egress_bytes`)": "spike",
        "CS -> DU mean 20-80 ms / 30-80 ms": "near Qeq = 24 KB",
        "CS -> DU mean 85-100 ms": "near Qeq = 24 KB",
    }
    out = ["| quantity | expected (seed 002) | dcsim |", "|---|---|---|"]
    for k, v in c.items():
        out.append(f"| {k} | {expected.get(k, '')} | {v} |")
    return "\n".join(out) + "\n"
