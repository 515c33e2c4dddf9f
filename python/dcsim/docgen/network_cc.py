"""Seed 004 (docs/models/network_cc.md): NetworkCC against NIC CC over the load, and
its figure."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

from .common import FIGURES, SCEN, block, run

NETCC_LOADS = (50, 60, 70, 80, 90)
#: row label -> (scenario, overrides): the shipped files and the variants the page compares.
#: NIC CC's ECN thresholds as overrides: the shipped file has Huawei CloudEngine's.
NETCC_PAPER_ECN = ('switch.ecn.kmin="5KB"', 'switch.ecn.kmax="200KB"', "switch.ecn.pmax=0.01")
NETCC_ROWS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "NIC CC": ("seed004_network_cc_nic.toml", ()),
    "NIC CC, DCQCN paper thresholds": ("seed004_network_cc_nic.toml", NETCC_PAPER_ECN),
    "NetworkCC": ("seed004_network_cc_switch.toml", ()),
    "NetworkCC, lower only": ("seed004_network_cc_switch.toml", ('switch.network_cc.trigger="queue"', 'host.cc.reaction="lower"')),
    "NetworkCC, d = 5 us, floor 1 Mb/s": (
        "seed004_network_cc_switch.toml",
        ('switch.network_cc.rtt="5us"', 'switch.network_cc.rate_min="1Mbps"'),
    ),
}
#: the variants compared at 80 % load: trigger x reaction, and NIC CC's ECN thresholds.
NETCC_VARIANTS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    f"trigger {t}, reaction {r}": ("seed004_network_cc_switch.toml", (f'switch.network_cc.trigger="{t}"', f'host.cc.reaction="{r}"'))
    for t in ("queue", "rate")
    for r in ("lower", "follow")
}
NETCC_VARIANTS.update(
    {
        f"NIC CC, Kmin {kmin} Kmax {kmax} Pmax {pmax:g}": (
            "seed004_network_cc_nic.toml",
            (f'switch.ecn.kmin="{kmin}"', f'switch.ecn.kmax="{kmax}"', f"switch.ecn.pmax={pmax}"),
        )
        for kmin, kmax, pmax in (
            ("5KB", "200KB", 0.01),
            ("5KB", "200KB", 0.1),
            ("5KB", "50KB", 0.1),
            ("5KB", "20KB", 0.1),
            ("25KB", "100KB", 0.2),
            ("10KB", "10KB", 1.0),
        )
    }
)
#: NIC CC with published ECN settings (the sensitivity table): label -> (Kmin, Kmax, Pmax, source).
NETCC_VENDORS: Dict[str, Tuple[str, str, float, str]] = {
    "DCQCN paper": ("5KB", "200KB", 0.01, "Zhu et al., SIGCOMM 2015, parameter table"),
    "Huawei CloudEngine, 25GE RoCE (shipped)": ("7KB", "200KB", 0.1, "CloudEngine static ECN guide, Table 2-12"),
    "HPCC simulator, 25 Gb/s port": ("100KB", "400KB", 0.2, "HPCC-SIM run.py / mix config"),
    "NVIDIA Cumulus Linux / Onyx RoCE default": ("150KB", "1500KB", 1.0, "Cumulus traffic.conf; Onyx `roce`"),
}
NETCC_VARIANTS_ALL: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    f"NIC CC, {k}": ("seed004_network_cc_nic.toml", (f'switch.ecn.kmin="{a}"', f'switch.ecn.kmax="{b}"', f"switch.ecn.pmax={c}"))
    for k, (a, b, c, _) in NETCC_VENDORS.items()
}
#: the row of the tables written for the DCQCN paper's thresholds (the shipped file before
#: it took Huawei's), and its label there.
NETCC_PAPER = "NIC CC, DCQCN paper thresholds"


def _netcc_label(row: str) -> str:
    return {NETCC_PAPER: "NIC CC (paper)", "NIC CC": "NIC CC (Huawei, shipped)"}.get(row, row)


_netcc: Dict[Tuple[int, str, int], Dict[str, float]] = {}


def _netcc_row(row: str) -> Tuple[str, Tuple[str, ...]]:
    return {**NETCC_ROWS, **NETCC_VARIANTS, **NETCC_VARIANTS_ALL}[row]


def netcc_point(load: int, row: str, streams: int = 1) -> Dict[str, float]:
    """Background goodput (Gb/s, the five ib_write_bw streams) and each probe's average
    and p99.9 message latency (us) of one run of the sweep. The load is each stream's
    share of its link, or with ``streams = 5`` the five streams' sum on the bottleneck."""
    if (load, row, streams) not in _netcc:
        scen, sets = _netcc_row(row)
        rate = f"{25 * load / 100 / streams:g}Gbps"
        res = run(scen, f'traffic[0].rate="{rate}"', *sets)
        _netcc[(load, row, streams)] = _netcc_read(res, 1, f"{row} at {load} %")
    return _netcc[(load, row, streams)]


def _netcc_read(res: Any, streams_groups: int, what: str) -> Dict[str, float]:
    """The figures of one seed 004 run whose first ``streams_groups`` traffic entries are
    the background and the last two the 8 B and 8 KB probes."""
    f = res.flows
    bw = f[f["group"] < streams_groups]
    out = {"bg": float(bw["goodput_steady_gbps"].sum()), "all": float(f["goodput_steady_gbps"].sum())}
    for r in f[f["group"] >= streams_groups].itertuples(index=False):
        key = "8B" if int(r.size_bytes) == 8 else "8KB"
        out[key + "_avg"] = float(r.message_latency_mean_ps) / 1e6
        out[key + "_p50"] = float(r.message_latency_p50_ps) / 1e6
        out[key + "_p999"] = float(r.message_latency_p999_ps) / 1e6
    if int(res.summary["counters"]["drops_total"]) != 0:
        raise SystemExit(f"seed 004 sweep: {what} dropped frames")
    return out


def _netcc_cells(x: Dict[str, float]) -> str:
    return (
        f"{x['bg']:.2f} | {x['all']:.2f} | {x['8B_avg']:.2f} | {x['8B_p999']:.2f} | {x['8B_p999'] / x['8B_avg']:.2f} | "
        f"{x['8KB_avg']:.2f} | {x['8KB_p999']:.2f} | {x['8KB_p999'] / x['8KB_avg']:.2f}"
    )


NETCC_HEAD = (
    "background Gb/s | all flows Gb/s | 8 B avg us | 8 B p99.9 us | p99.9/avg | 8 KB avg us | 8 KB p99.9 us | p99.9/avg |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


@block(short=True)
def network_cc_variants() -> str:
    """At 80 % load: the four trigger x reaction combinations of NetworkCC, and NIC CC
    with other ECN thresholds than the shipped DCQCN paper ones."""
    out = ["| variant | " + NETCC_HEAD]
    for row in NETCC_VARIANTS:
        out.append(f"| {row} | {_netcc_cells(netcc_point(80, row))} |")
    return "\n".join(out) + "\n"


@block(short=True)
def network_cc_load() -> str:
    out = ["| load | CC | " + NETCC_HEAD.replace("\n|", "\n|---|")]
    for load in NETCC_LOADS:
        for row in NETCC_ROWS:
            out.append(f"| {load} % | {row} | {_netcc_cells(netcc_point(load, row))} |")
    return "\n".join(out) + "\n"


@block(short=True)
def network_cc_aggregate() -> str:
    """The other reading of the load axis: the five streams together offer the load to
    the bottleneck (each paced at a fifth of it, as perftest's default hardware limiter
    paces)."""
    out = ["| load | CC | " + NETCC_HEAD.replace("\n|", "\n|---|")]
    for load in NETCC_LOADS:
        for row in (NETCC_PAPER, "NetworkCC"):
            out.append(f"| {load} % | {_netcc_label(row)} | {_netcc_cells(netcc_point(load, row, streams=5))} |")
    return "\n".join(out) + "\n"


_netcc_alone: Dict[Tuple[int, str, str], Dict[str, float]] = {}


def netcc_alone_point(load: int, row: str, probe: str) -> Dict[str, float]:
    """``netcc_point`` (each stream at the load of its own link) with one probe per run,
    as ``ib_write_lat`` measures one message size per run: the other probe's entry is
    left out. ``probe``: "8B" or "8KB"."""
    key = (load, row, probe)
    if key not in _netcc_alone:
        import dcsim

        d, probes, sets = _netcc_scenario(row, probe)
        d["traffic"] = [{**d["traffic"][0], "rate": f"{25 * load / 100:g}Gbps"}] + probes
        res = dcsim.run(d, overrides=list(sets))
        _netcc_alone[key] = _netcc_read(res, 1, f"{row} at {load} %, {probe} probe alone")
    return _netcc_alone[key]


@block(short=True)
def network_cc_load_alone() -> str:
    """The shipped reading of the load (each stream at the load of its link) with one
    probe per run: the link's goodput and each probe's average, median and p99.9 with
    NIC CC and NetworkCC."""
    out = [
        "| load | probe | all flows Gb/s, NIC CC (paper) / NetworkCC | NIC CC (paper) avg us | p50 us | p99.9 us | p99.9/avg | NetworkCC avg us | p50 us | p99.9 us | p99.9/avg "
        "| NetworkCC vs NIC CC, avg / p99.9 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for load in NETCC_LOADS:
        for k in ("8B", "8KB"):
            nic, net = (netcc_alone_point(load, row, k) for row in (NETCC_PAPER, "NetworkCC"))
            cells = " | ".join(
                f"{x[k + '_avg']:.2f} | {x[k + '_p50']:.2f} | {x[k + '_p999']:.2f} | {x[k + '_p999'] / x[k + '_avg']:.2f}"
                for x in (nic, net)
            )
            diff = f"{100 * (net[k + '_avg'] / nic[k + '_avg'] - 1):+.0f} % / {100 * (net[k + '_p999'] / nic[k + '_p999'] - 1):+.0f} %"
            out.append(f"| {load} % | {'8 B' if k == '8B' else '8 KB'} | {nic['all']:.2f} / {net['all']:.2f} | {cells} | {diff} |")
    return "\n".join(out) + "\n"


@block(short=True)
def network_cc_nic_thresholds() -> str:
    """At 80 % load (shipped reading): NIC CC with the published ECN settings of
    ``NETCC_VENDORS``, both probes in one run and each probe in its own run, with
    NetworkCC's difference from each (negative: lower with NetworkCC)."""

    def diff(net: Dict[str, float], nic: Dict[str, float], k: str) -> str:
        return f"{100 * (net[k + '_avg'] / nic[k + '_avg'] - 1):+.0f} % / {100 * (net[k + '_p999'] / nic[k + '_p999'] - 1):+.0f} %"

    out = [
        "| ECN settings | Kmin / Kmax / Pmax | all flows Gb/s | 8 B avg us | 8 B p99.9 us | 8 KB avg us | 8 KB p99.9 us "
        "| NetworkCC vs this, 8 B avg / p99.9 | 8 KB | one probe per run: NetworkCC vs this, 8 B | 8 KB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    net = netcc_point(80, "NetworkCC")
    net_alone = {k: netcc_alone_point(80, "NetworkCC", k) for k in ("8B", "8KB")}
    for label, (kmin, kmax, pmax, _) in NETCC_VENDORS.items():
        row = f"NIC CC, {label}"
        x = netcc_point(80, row)
        alone = {k: netcc_alone_point(80, row, k) for k in ("8B", "8KB")}
        out.append(
            f"| {label} | {kmin} / {kmax} / {100 * pmax:g} % | {x['all']:.2f} | {x['8B_avg']:.2f} | {x['8B_p999']:.2f} | "
            f"{x['8KB_avg']:.2f} | {x['8KB_p999']:.2f} | {diff(net, x, '8B')} | {diff(net, x, '8KB')} | "
            f"{diff(net_alone['8B'], alone['8B'], '8B')} | {diff(net_alone['8KB'], alone['8KB'], '8KB')} |"
        )
    out.append(
        f"| NetworkCC (shipped) | no ECN | {net['all']:.2f} | {net['8B_avg']:.2f} | {net['8B_p999']:.2f} | "
        f"{net['8KB_avg']:.2f} | {net['8KB_p999']:.2f} | | | | |"
    )
    return "\n".join(out) + "\n"


# Bursty background: perftest's software rate limiter (ib_write_bw rate_limiter = "sw",
# its defaults: 64 KiB messages, tx depth and burst 128, so 8 MiB per stream per burst).
#: run length: a burst period is 15-27 ms at these rates.
NETCC_BURSTY_DURATION = "1000ms"
_netcc_bursty: Dict[Tuple[int, str, str, int, str], Dict[str, float]] = {}


def netcc_bursty_point(load: int, row: str, start: str, streams: int = 5, probe: str = "both") -> Dict[str, float]:
    """``netcc_point`` with software-limited streams. ``start``: "aligned", the five
    streams start together (the shipped files); "staggered", stream k starts k/5 of a
    burst period after the first (independently launched perftest processes). ``probe``:
    "both" probes at once (the shipped files), or only "8B" or "8KB" (one ib_write_lat
    run per message size)."""
    key = (load, row, start, streams, probe)
    if key not in _netcc_bursty:
        import dcsim

        d, probes, sets = _netcc_scenario(row, probe)
        rate = 25e9 * load / 100 / streams
        bw = {**d["traffic"][0], "rate": f"{rate / 1e9:g}Gbps", "rate_limiter": "sw"}
        period_us = 128 * 65536 * 8 / rate * 1e6
        if start == "aligned":
            bg = [bw]
        else:
            bg = [{**bw, "senders": [h], "start": f"{k * period_us / 5:.3f}us"} for k, h in enumerate(bw["senders"])]
        d["traffic"] = bg + probes
        d["simulation"]["duration"] = NETCC_BURSTY_DURATION
        res = dcsim.run(d, overrides=list(sets))
        _netcc_bursty[key] = _netcc_read(res, len(bg), f"bursty {row} at {load} %, {start}")
    return _netcc_bursty[key]


def _netcc_scenario(row: str, probe: str) -> Tuple[Dict[str, Any], List[Dict[str, Any]], Tuple[str, ...]]:
    """The scenario of a seed 004 row as a table, its probe entries ("both", or only
    "8B" or "8KB") and the row's overrides."""
    scen, sets = _netcc_row(row)
    d = _toml_loads((SCEN / scen).read_text(encoding="utf-8"))
    return d, [t for t in d["traffic"][1:] if probe in ("both", t["size"])], sets


def _toml_loads(text: str) -> Dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.9/3.10
        import tomli as tomllib
    return tomllib.loads(text)


@block(short=False)
def network_cc_bursty() -> str:
    """The aggregate load reading with bursty, software-limited streams."""
    out = ["| load | streams start | CC | " + NETCC_HEAD.replace("\n|", "\n|---|---|")]
    for load in NETCC_LOADS:
        for start in ("aligned", "staggered"):
            for row in (NETCC_PAPER, "NIC CC", "NetworkCC"):
                out.append(f"| {load} % | {start} | {_netcc_label(row)} | {_netcc_cells(netcc_bursty_point(load, row, start))} |")
    return "\n".join(out) + "\n"


@block(short=False)
def network_cc_bursty_variants() -> str:
    """At 80 %: the page's NIC CC thresholds against bursty streams, and the other load
    reading (each stream at 80 % of its link)."""
    out = ["| streams | variant | " + NETCC_HEAD.replace("\n|", "\n|---|")]
    rows = ["NetworkCC"] + [r for r in NETCC_VARIANTS if r.startswith("NIC CC")]
    for start in ("aligned", "staggered"):
        for row in rows:
            out.append(f"| five at 16 % of the link, {start} | {row} | {_netcc_cells(netcc_bursty_point(80, row, start))} |")
    for row in (NETCC_PAPER, "NetworkCC"):
        out.append(
            f"| each at 80 % of its link | {_netcc_label(row)} | {_netcc_cells(netcc_bursty_point(80, row, 'aligned', streams=1))} |"
        )
    return "\n".join(out) + "\n"


#: NIC CC's ECN thresholds beside the DCQCN paper's in the probes-alone table.
NETCC_ALONE_NIC = (
    "NIC CC, Kmin 5KB Kmax 200KB Pmax 0.01",
    "NIC CC",
    "NIC CC, Kmin 5KB Kmax 200KB Pmax 0.1",
    "NIC CC, Kmin 5KB Kmax 50KB Pmax 0.1",
    "NIC CC, Kmin 5KB Kmax 20KB Pmax 0.1",
)


@block(short=False)
def network_cc_probes_alone() -> str:
    """The bursty aggregate reading with one probe per run (ib_write_lat measures one
    message size per run): each probe's average and p99.9 with NetworkCC, and NIC CC's
    with the DCQCN paper's and three other ECN thresholds as NetworkCC's difference."""

    def cell(net: Dict[str, float], nic: Dict[str, float], k: str) -> str:
        return f"{100 * (net[k + '_avg'] / nic[k + '_avg'] - 1):+.0f} % / {100 * (net[k + '_p999'] / nic[k + '_p999'] - 1):+.0f} %"

    heads = ["Kmin 7KB Kmax 200KB Pmax 0.1 (Huawei)" if r == "NIC CC" else r.replace("NIC CC, Kmin 5KB ", "") for r in NETCC_ALONE_NIC]
    out = [
        "| streams start | load | probe | NetworkCC avg us | p99.9 us | p99.9/avg | NIC CC (paper) avg us | p99.9 us | p99.9/avg | "
        + " | ".join(f"vs {h}" for h in heads)
        + " |",
        "|---|---|---|---|---|---|---|---|---|" + "---|" * len(heads),
    ]
    for start in ("aligned", "staggered"):
        for load in NETCC_LOADS:
            for k in ("8B", "8KB"):
                net = netcc_bursty_point(load, "NetworkCC", start, probe=k)
                nics = [netcc_bursty_point(load, r, start, probe=k) for r in NETCC_ALONE_NIC]
                paper = nics[0]
                out.append(
                    f"| {start} | {load} % | {'8 B' if k == '8B' else '8 KB'} | {net[k + '_avg']:.2f} | {net[k + '_p999']:.2f} | "
                    f"{net[k + '_p999'] / net[k + '_avg']:.2f} | {paper[k + '_avg']:.2f} | {paper[k + '_p999']:.2f} | "
                    f"{paper[k + '_p999'] / paper[k + '_avg']:.2f} | " + " | ".join(cell(net, n, k) for n in nics) + " |"
                )
    return "\n".join(out) + "\n"


def network_cc_figure() -> Path:
    """Background goodput and the probes' average and p99.9 latency against the load."""
    from dcsim.plot import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.8))
    for i, row in enumerate(NETCC_ROWS):
        pts = [netcc_point(load, row) for load in NETCC_LOADS]
        c = f"C{i}"
        ax[0].plot(NETCC_LOADS, [p["bg"] for p in pts], "o-", color=c, label=row)
        for a, probe in zip(ax[1:], ("8B", "8KB")):
            a.plot(NETCC_LOADS, [p[probe + "_avg"] for p in pts], "o-", color=c, label=f"{row} avg")
            a.plot(NETCC_LOADS, [p[probe + "_p999"] for p in pts], "s--", color=c, label=f"{row} p99.9")
    ax[0].set(xlabel="load %", ylabel="Gb/s", title="background goodput (5 streams)")
    for a, probe in zip(ax[1:], ("8 B", "8 KB")):
        a.set(xlabel="load %", ylabel="us", yscale="log", title=f"{probe} probe latency (avg o, p99.9 s)")
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    path = FIGURES / "network_cc_load.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
