"""The validation gallery's figures (docs/validation.md): each study's published numbers
drawn beside dcsim's, on the same axes and in the same units, from runs of the shipped
scenarios (``python -m dcsim.docgen --figures``).

The published figures themselves are not reproduced (they are the authors'); their
numbers are, as the studies print them or as their data files give them, and each
constant below names where it comes from."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, List, Sequence

from dcsim import style

from .common import FIGURES, ROOT, run, steady
from .pfc import PFC_PUBLISHED
from .rcm import RCM_PUBLISHED
from .swift import swift_base_rtt, swift_fixed_point, swift_run

#: IETF 106 case studies (seed 004), mean query latency (us) under backup traffic.
TCP_PUBLISHED = {"reno": 822.0, "cubic": 858.0, "dctcp": 100.0, "bbr": 86.0}


def published(name: str) -> List[dict]:
    """A published reference result, ``data/published/<name>.csv`` (the engine's tests read
    the same file): its rows as dicts of strings."""
    import csv

    with open(ROOT / "data" / "published" / f"{name}.csv", newline="") as f:
        return list(csv.DictReader(f))


PUBLISHED_STYLE = {"color": "0.55", "hatch": "//", "edgecolor": "0.3"}
DCSIM_STYLE = {"color": "C0"}


def _bars(ax: Any, labels: Sequence[str], published: Sequence[float], dcsim: Sequence[float], ylabel: str, ref: str = "published") -> None:
    """Grouped bars: the reference's value and dcsim's for each label."""
    import numpy as np

    x = np.arange(len(labels))
    ax.bar(x - 0.2, published, 0.4, label=ref, **PUBLISHED_STYLE)
    ax.bar(x + 0.2, dcsim, 0.4, label="dcsim", **DCSIM_STYLE)
    ax.set_xticks(x, labels)
    ax.set_ylabel(ylabel)
    ax.grid(axis="x", visible=False)


def _figure(panels: int, width: float = 3.6, height: float = 2.8) -> Any:
    from dcsim import plot

    plt = plot.pyplot()
    fig, axes = plt.subplots(1, panels, figsize=(width * panels + 0.4, height), squeeze=False, layout="constrained")
    return fig, list(axes[0])


def parking_lot_figure() -> Any:
    """Liu, Russell et al. (2015), Table II: the four flows' goodput with PFC, RCM rule 1a
    and rule 1b."""
    fig, axes = _figure(3, 2.9)
    cases = [("PFC", "seed000_parking_lot_pfc.toml", PFC_PUBLISHED)]
    cases += [(f"RCM, rule {sc.split('_')[-1][:2]}", sc, pub) for sc, pub in RCM_PUBLISHED.items()]
    for ax, (title, sc, pub) in zip(axes, cases):
        _bars(ax, list("ABCD"), pub, steady(run(sc)), "goodput (Gb/s)")
        ax.set_title(title)
        ax.set_ylim(0, 22)
    axes[0].legend(loc="upper left")
    return fig


def tcp_figure() -> Any:
    """IETF 106 (seed 004): mean query latency under backup traffic per TCP algorithm."""
    fig, (ax,) = _figure(1, 4.2)
    names = list(TCP_PUBLISHED)
    got = []
    for cca in names:
        lat = run(f"seed004_cca_{cca}.toml").flows["message_latency_mean_ps"].dropna()
        got.append(float(lat.mean()) / 1e6)
    x = range(len(names))
    ax.plot(x, [TCP_PUBLISHED[c] for c in names], "s", color="0.35", mfc="none", ms=8, label="published")
    ax.plot(x, got, "o", color="C0", ms=6, label="dcsim")
    ax.set_xticks(list(x), ["Reno", "CUBIC", "DCTCP", "BBR"])
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("mean query latency (us)")
    ax.grid(axis="x", visible=False)
    style.log_axis(ax, "y")
    ax.set_title("TCP under backup traffic, 1 Gb/s")
    ax.legend(loc="upper right")
    return fig


def astra_figure() -> Any:
    """ASTRA-sim's ns-3 backend: ring all-reduce time against size. dcsim's time, and the
    same plus ASTRA-sim's per-step terms that dcsim does not model (the derivation is in
    docs/models/collectives.md and crates/dcsim/tests/collectives.rs)."""
    fig, (ax,) = _figure(1, 4.6, 3.0)
    jobs = run("ai_astra_sim_ns3_switch.toml").table("jobs")
    got = dict(zip(jobs["job"], jobs["iteration_ps"] / 1e6))
    ps_per_byte = 8 / 400e9 * 1e12
    sizes, pub, ours, plus = [], [], [], []
    # ASTRA-sim's ns-3 backend, ring all-reduce over 8 NPUs on one 400 Gb/s switch
    # (kredd2506/Astro, experiments/results/ns3.csv).
    for row in published("astra_sim_ns3_switch"):
        job, size, us = row["job"], int(row["bytes"]), float(row["time_ns"]) / 1e3
        m = size // 32
        pkts = -(-m // 1000)
        rounding = 56 * ((pkts * 1000 - m) + (1000 - (m - (pkts - 1) * 1000))) * ps_per_byte
        astra = 56 * (2 * 500e3 + 2 * 48 * ps_per_byte + 10e3) + 28 * 3 * m / 1600e9 * 1e12
        sizes.append(size / 2**10)
        pub.append(us)
        ours.append(got[job])
        plus.append(got[job] + (astra - rounding) / 1e6)
    ax.plot(sizes, pub, "s", color="0.35", mfc="none", ms=7, label="ASTRA-sim ns-3 (published)")
    ax.plot(sizes, ours, "o-", color="C0", label="dcsim")
    ax.plot(sizes, plus, "x--", color="C1", label="dcsim + ASTRA-sim's per-step terms")
    style.log_axis(ax, "x", base=2)
    style.log_axis(ax, "y")
    ax.set_xlabel("all-reduce size (KiB)")
    ax.set_ylabel("all-reduce time (us)")
    ax.set_title("ring all-reduce, 8 NPUs, 400 Gb/s switch")
    ax.legend(loc="upper left")
    return fig


def nscc_figure() -> Any:
    """NSCC against the UEC htsim model: last and mean FCT of the 8 x 2 MB incast, six
    runs each (seeds 1-5 and 13 in htsim, 1-6 in dcsim: the two draw different random
    numbers, so runs pair by nothing but their count), with the median."""
    import numpy as np

    fig, axes = _figure(2, 2.9)
    # The UEC htsim model (uet-htsim 40ccb05) on the same incast, seeds 1-5 and 13.
    htsim = published("htsim_uec_nscc_incast")
    last, mean = [], []
    for seed in range(1, 7):
        fct = run("uet_nscc_incast.toml", f"simulation.seed={seed}").flows["fct_ps"] / 1e6
        last.append(float(fct.max()))
        mean.append(float(fct.mean()))
    for ax, title, ref, ours in (
        (axes[0], "last FCT (us)", [float(h["last_fct_us"]) for h in htsim], last),
        (axes[1], "mean FCT (us)", [float(h["mean_fct_us"]) for h in htsim], mean),
    ):
        spread = np.linspace(-0.12, 0.12, len(ref))
        ax.plot(0 + spread, ref, "s", color="0.35", mfc="none", ms=6, label="htsim UEC, a run")
        ax.plot(1 + spread, ours, "o", color="C0", ms=5, label="dcsim, a run")
        for x, v in ((0, ref), (1, ours)):
            ax.plot([x - 0.25, x + 0.25], [np.median(v)] * 2, "-", color="k", lw=1.5, label="median" if x == 0 else None)
        ax.set_xticks([0, 1], ["htsim UEC", "dcsim"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_ylabel(title)
        ax.grid(axis="x", visible=False)
    axes[0].set_title("8-to-1 incast of 2 MB: last FCT")
    axes[1].set_title("mean FCT")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper")
    return fig


def swift_figure() -> Any:
    """Swift's N-to-1 incast: the measured round trip against the analytic fixed point
    where each flow's window makes the target equal to the round trip."""
    fig, (ax,) = _figure(1, 4.2)
    ns = [2, 8, 32, 128]
    fixed = [swift_fixed_point(n, swift_base_rtt())[0] for n in ns]
    got = [swift_run(n)[1] for n in ns]
    ax.plot(ns, fixed, "s--", color="0.35", mfc="none", ms=7, label="fixed point (analytic)")
    ax.plot(ns, got, "o-", color="C0", label="dcsim")
    style.log_axis(ax, "x", base=2)
    ax.set_xlabel("senders N")
    ax.set_ylabel("round trip (us)")
    ax.set_title("Swift N-to-1 incast, 100 Gb/s")
    ax.legend(loc="upper left")
    return fig


#: file stem under docs/figures -> figure builder; docs/validation.md shows each.
GALLERY: List[tuple[str, Callable[[], Any]]] = [
    ("gallery_parking_lot", parking_lot_figure),
    ("gallery_tcp", tcp_figure),
    ("gallery_astra_sim", astra_figure),
    ("gallery_nscc", nscc_figure),
    ("gallery_swift", swift_figure),
]


def figures() -> List[Path]:
    """Draws every gallery figure as PNG, SVG and PDF under docs/figures/."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    out = []
    for stem, build in GALLERY:
        fig = build()
        bad = style.check(fig)
        if bad:
            raise SystemExit(f"{stem}: {'; '.join(bad)}")
        out.append(style.save(fig, FIGURES / f"{stem}.png"))
    return out
