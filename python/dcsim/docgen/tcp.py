"""NewReno and CUBIC (docs/models/tcp.md): the sawtooth and the RFC 9438 curve."""

from __future__ import annotations

from .common import block, last_at, run


@block(short=True)
def newreno_sawtooth() -> str:
    """docs/models/tcp.md: NewReno's congestion-avoidance cycles against the Reno analysis
    (as tests/tcp.rs checks them)."""
    d = 1542 * 8 / 10e9
    base = 4 * 25e-6 + 1542 * 8 / 40e9 + d + 86 * 8 / 10e9 + 86 * 8 / 40e9
    capacity = base / d + 150_000 // 1522 + 1
    res = run("tcp_newreno_bottleneck.toml", 'simulation.duration="120ms"', "stats.trace_flows=[0]", 'stats.sample_interval="off"')
    tr = res.table("cc_trace")
    at = [int(x) for x in tr["time_ps"]]
    w = [x / 1460 for x in tr["cwnd_bytes"]]
    cuts = [k for k in range(1, len(w)) if w[k] < 0.95 * w[k - 1] and at[k] > 10 * 10**9]
    out = [
        "| cycle from | window after the cut / at the next loss (segments) | capacity BDP + buffer + 1 | period | d (W2^2 - W1^2) / 2 |",
        "|---|---|---|---|---|",
    ]
    for a, b in zip(cuts, cuts[1:]):
        w1, w2 = w[a], w[b - 1]
        out.append(
            f"| {at[a] / 1e9:.3f} ms | {w1:.1f} / {w2:.1f} | {capacity:.1f} | {(at[b] - at[a]) / 1e9:.3f} ms | {d * (w2 * w2 - w1 * w1) / 2 * 1e3:.3f} ms |"
        )
    return "\n".join(out) + "\n"


@block(short=True)
def cubic_long_rtt() -> str:
    """docs/models/tcp.md: CUBIC's window against RFC 9438's curve on a long, fat path,
    for each epoch that lasts 2 K (as tests/tcp.rs checks it)."""
    c, beta, mss = 0.4, 0.7, 1460
    res = run("tcp_cubic_long_rtt.toml")
    tr = res.table("cc_trace")
    secs = [x * 1e-12 for x in tr["time_ps"]]
    w = [x / mss for x in tr["cwnd_bytes"]]
    out = [
        "| congestion event | W_max (segments) | K (s) | window / curve at 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2 K (segments) |",
        "|---|---|---|---|",
    ]
    epochs, w_max = [], float("nan")
    for k in range(1, len(w)):
        if w[k] < 0.95 * w[k - 1] and w[k] > 1.0:
            w_max = w[k - 1] * (1 + beta) / 2 if w[k - 1] < w_max else w[k - 1]
            epochs.append((k, w_max))
    for n, (k, wm) in enumerate(epochs):
        end = secs[epochs[n + 1][0]] if n + 1 < len(epochs) else secs[-1]
        kk = ((wm - w[k]) / c) ** (1 / 3)
        j = next((j for j in range(k, len(w)) if w[j] > w[k]), None)
        if j is None or secs[j] + 2 * kk > end:
            continue
        cells = []
        for frac in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0):
            tt = secs[j] + frac * kk
            i = last_at(secs, tt)
            cells.append(f"{w[i]:.1f} / {c * (tt - secs[j] - kk) ** 3 + wm:.1f}")
        out.append(f"| {secs[k]:.3f} s | {wm:.1f} | {kk:.2f} | {', '.join(cells)} |")
    return "\n".join(out) + "\n"
