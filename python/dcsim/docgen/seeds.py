"""The README's and docs/validation.md's blocks: seed 000's run and shares, and the
congestion-management results table whose rows span the models."""

from __future__ import annotations

from typing import Any

from .common import bin_width, block, drops, gbps, jain, run, steady, window_goodput


@block(short=True)
def seed000_run() -> str:
    """The result table ``dcsim run scenarios/seed000_parking_lot_pfc.toml`` prints."""
    from dcsim.cli import result_table

    res = run("seed000_parking_lot_pfc.toml")
    return "```\n" + "\n".join(result_table(res)) + "\n```\n"


@block(short=True)
def seed000_shares() -> str:
    res = run("seed000_parking_lot_pfc.toml")
    per = run("seed000_parking_lot_pfc.toml", "switch.arbitration=per_flow")
    g = steady(res)
    total = sum(g)
    abc = [gbps(x) for x in g[:3]]
    abc_text = f"A = B = C = {abc[0]}" if len(set(abc)) == 1 else f"A / B / C = {' / '.join(abc)}"
    return (
        f"dcsim gives {abc_text} Gb/s and D = {gbps(g[3])} Gb/s; the four shares add up "
        f"to {gbps(total)} Gb/s against R's payload ceiling of 40 x 2048 / (2048 + 82) = 38.46 Gb/s, and "
        f"{drops(res).replace('no drops', 'nothing is dropped')}. With `--set switch.arbitration=per_flow` "
        f"the same file gives four shares of {' / '.join(gbps(x) for x in steady(per))} Gb/s.\n"
    )


def rcm_row(scenario: str) -> str:
    res = run(scenario)
    g = steady(res)
    return f"{'/'.join(gbps(x) for x in g)} Gb/s, Jain {jain(g):.2f}, {drops(res)}"


def dcqcn_row() -> str:
    res = run("dcqcn_2to1.toml")
    g = steady(res)
    steady_from = res.summary["steady_start_ps"] / 1e9
    return f"{gbps(g[0], 1)} / {gbps(g[1], 1)} Gb/s of {gbps(sum(g), 1)} after {steady_from:g} ms"


def fecn_row(scenario: str) -> str:
    res = run(scenario)
    four = window_goodput(res, 20, 80)
    two = {k: v for k, v in window_goodput(res, 85, 100).items() if v > 0}
    return (
        " / ".join(gbps(x, 2) for x in four.values())
        + " Gb/s with four sources (20-80 ms), "
        + " / ".join(gbps(x, 2) for x in two.values())
        + f" with two (85-100 ms); {drops(res)}"
    )


def seed001_row() -> str:
    """The mark ratio at 1 and 5 flows per sender; the increase timer's trade-off (12 ms
    runs, as in the engine's test ``seed001_mark_ratio_and_increase_timer``)."""

    def one(flows: int, timer: str) -> Any:
        return run(
            "seed001_dcqcn_timer.toml",
            f"traffic[0].flows_per_sender={flows}",
            f'host.cc.increase_period="{timer}"',
            'simulation.duration="12ms"',
            'stats.steady_start="4ms"',
            'stats.sample_interval="off"',
        )

    def ratio(r: Any) -> float:
        f = r.flows
        return float(f["marked_received"].sum()) / float(f["pkts_received"].sum()) * 100

    def p50_us(r: Any) -> float:
        return float(r.summary["latency_ps"]["p50"]) / 1e6

    def total(r: Any) -> float:
        return float(r.flows["goodput_steady_gbps"].sum())

    a, b, slow = one(1, "300us"), one(5, "300us"), one(1, "1500us")
    return (
        f"{ratio(a):.0f} % at 1, {ratio(b):.0f} % at 5; timer 300 → 1500 us: p50 latency "
        f"{p50_us(a):.0f} → {p50_us(slow):.0f} us, goodput {total(a):.1f} → {total(slow):.1f} Gb/s (12 ms runs)"
    )


def qcn_row(scenario: str) -> str:
    """Total goodput per 10 ms window against the payload ceiling of the egress limit,
    from 200 ms after each step to the next; the queue's mean in each phase."""
    res = run(scenario)
    g = res.goodput
    iv = bin_width(g)
    tot = g.groupby("time_ps")["bytes"].sum() * 8 / (iv / 1e12) / 1e6  # Mb/s
    mtu = 1438
    frame = mtu + 82
    phases = [(0.0, 3.7, 950), (3.7, 7.4, 200), (7.4, 11.1, 950)]
    worst = 0.0
    n = inside = 0
    queue = []
    s = res.samples
    q = s[(s["node"] == "SW") & (s["peer"] == "DST")].groupby("time_ps")["egress_bytes"].sum()
    for t0, t1, limit in phases:
        ceiling = limit * mtu / frame
        lo, hi = (t0 + 0.2) * 1e12, t1 * 1e12
        w = tot[(tot.index >= lo) & (tot.index + iv <= hi)]
        dev = (w / ceiling - 1).abs()
        worst = max(worst, float(dev.max()))
        n += len(dev)
        inside += int((dev <= 0.05).sum())
        queue.append(float(q[(q.index >= lo) & (q.index < hi)].mean()) / 1e3)
    return (
        f"{inside / n * 100:.1f} % of 10 ms windows within 5 % of the limit's payload ceiling once settled "
        f"(200 ms), worst {worst * 100:.1f} %; queue mean {' / '.join(f'{x:.0f}' for x in queue)} KB "
        f"per phase; {drops(res)}"
    )


@block(short=False)
def results_table() -> str:
    """README: the congestion-management results of the shipped scenarios."""
    rows = [
        (
            "seed000_parking_lot_rcm_1a.toml",
            "the parking lot with RCM, rule 1a",
            "A/B/C/D 9.37/9.42/9.51/9.72 Gb/s",
            lambda: rcm_row("seed000_parking_lot_rcm_1a.toml"),
        ),
        (
            "seed000_parking_lot_rcm_1b.toml",
            "the same with rule 1b",
            "9.29/9.35/9.43/9.69 Gb/s",
            lambda: rcm_row("seed000_parking_lot_rcm_1b.toml"),
        ),
        ("dcqcn_2to1.toml", "DCQCN, paper parameters, 2-to-1 at 40 Gb/s", "fair halves", dcqcn_row),
        (
            "seed001_dcqcn_timer.toml",
            "DCQCN at scale (7-to-1, many flows per sender)",
            "mark ratio ~100 % at 5 flows per sender; longer timer: lower latency, less throughput",
            seed001_row,
        ),
        (
            "seed003_qcn_step.toml",
            "QCN, 1 source, limit 950 → 200 → 950 Mb/s",
            "the rate follows the limit, the queue returns to Q_EQ",
            lambda: qcn_row("seed003_qcn_step.toml"),
        ),
        ("seed003_qcn_step_8rp.toml", "QCN, 8 sources, RTT 1 ms", "the same", lambda: qcn_row("seed003_qcn_step_8rp.toml")),
        ("seed002_bcn.toml", "BCN, 4 sources, 10 Gb/s", "unfair", lambda: fecn_row("seed002_bcn.toml")),
        ("seed002_fecn.toml", "FECN", "2.5 Gb/s each, 5 after two stop; start-up transient", lambda: fecn_row("seed002_fecn.toml")),
        (
            "seed002_efecn.toml",
            "E-FECN",
            "fair, no transient, no drops",
            lambda: (
                fecn_row("seed002_efecn.toml")
                + (
                    " (PFC off, as in the study: frames already sent when the BCN00s left; see docs/models/fecn.md)"
                    if run("seed002_efecn.toml").summary["counters"]["drops_total"]
                    else ""
                )
            ),
        ),
    ]
    out = ["| scenario | what it shows | published | dcsim |", "|---|---|---|---|"]
    for sc, what, published, cell in rows:
        out.append(f"| `{sc}` | {what} | {published} | {cell()} |")
    return "\n".join(out) + "\n"
