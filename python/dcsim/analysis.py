"""Analysis of one run's tables: aggregate goodput, link utilisation, PFC pause time,
flow completion times per traffic group and per flow-size bin.

Every function takes a ``Results`` (or anything with the same tables and summary) and
computes from the tables the engine wrote; nothing here changes them. The same
functions are methods of ``Results`` (``res.goodput_total()``, ``res.fct_by_size()``, ...)
and feed the rows of ``dcsim sweep``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from .errors import ArgumentError

__all__ = [
    "DEFAULT_PERCENTILES",
    "aggregate",
    "fct_by_group",
    "fct_by_size",
    "group_names",
    "host_capacity_gbps",
    "link_utilization",
    "long_lived_goodput",
    "pause_by_port",
    "pause_intervals",
    "pause_by_switch",
    "select_groups",
    "victims",
]

#: Slowdown percentiles reported when none are asked for.
DEFAULT_PERCENTILES: Sequence[float] = (50, 95, 99)


def _duration_ps(res: Any) -> int:
    return int(res.summary["duration_ps"])


def _kinds(res: Any) -> Dict[str, str]:
    nodes = res.nodes
    if not len(nodes):
        return {}
    return dict(zip(nodes["name"], nodes["kind"]))


def _one_row_per_port(ports: pd.DataFrame) -> pd.DataFrame:
    """``ports`` has a row per (port, priority); per-port columns repeat on each."""
    return ports.drop_duplicates("port_id") if len(ports) else ports


# -- goodput and utilisation ----------------------------------------------------------


def host_capacity_gbps(res: Any) -> float:
    """Sum of the host links' rates, Gb/s: what all hosts together can receive (and
    send). Delivered goodput can never exceed it."""
    ports = _one_row_per_port(res.ports)
    if not len(ports):
        return 0.0
    kinds = _kinds(res)
    hosts = ports[ports["node"].map(kinds) == "host"]
    return float(hosts["rate_bps"].sum()) / 1e9


def _steady_bytes(res: Any) -> float:
    """Payload delivered at or after ``stats.steady_start``, all flows: each flow's
    ``goodput_steady_gbps`` times its steady interval (NaN: an empty interval, 0 B)."""
    f = res.flows
    if not len(f):
        return 0.0
    steady = int(res.summary.get("steady_start_ps") or 0)
    end = _duration_ps(res)
    fin = f["finish_ps"].astype("int64").to_numpy()
    stop = np.where((fin >= 0) & (fin < end), fin, end)
    begin = np.maximum(f["start_ps"].astype("int64").to_numpy(), steady)
    span_s = np.clip(stop - begin, 0, None) / 1e12
    g = f["goodput_steady_gbps"].to_numpy(dtype=float)
    return float(np.nansum(np.where(span_s > 0, g, 0.0) * span_s) * 1e9 / 8)


def aggregate(res: Any) -> Dict[str, float]:
    """Aggregate delivered goodput and what bounds it, Gb/s:

    * ``goodput_total_gbps``: payload delivered in order, all flows, divided by the run
      time (``counters.payload_bytes_delivered x 8 / duration``);
    * ``goodput_steady_gbps``: payload delivered at or after ``stats.steady_start``
      divided by ``duration - steady_start`` (equal to the above without steady_start);
    * ``host_capacity_gbps``: the sum of the host links' rates;
    * ``goodput_fraction``: ``goodput_total_gbps / host_capacity_gbps``.
    """
    dur = _duration_ps(res)
    delivered = float(res.summary["counters"]["payload_bytes_delivered"])
    total = delivered * 8 / (dur / 1e12) / 1e9 if dur > 0 else float("nan")
    steady = int(res.summary.get("steady_start_ps") or 0)
    window = dur - steady
    steady_gbps = _steady_bytes(res) * 8 / (window / 1e12) / 1e9 if window > 0 else float("nan")
    cap = host_capacity_gbps(res)
    return {
        "goodput_total_gbps": total,
        "goodput_steady_gbps": steady_gbps,
        "host_capacity_gbps": cap,
        "goodput_fraction": total / cap if cap > 0 else float("nan"),
    }


def link_utilization(res: Any) -> pd.DataFrame:
    """One row per port (one direction of a link): ``node``, ``peer``, ``kind``
    (``host`` for a host's uplink, ``down`` for a switch port toward a host, ``fabric``
    between switches), ``rate_gbps``, ``utilization`` (wire bytes, preamble/IFG
    included, over rate x duration) and ``data_gbps`` (data frame bytes over the run)."""
    ports = _one_row_per_port(res.ports)
    cols = ["port_id", "node", "peer", "kind", "rate_gbps", "utilization", "data_gbps"]
    if not len(ports):
        return pd.DataFrame(columns=cols)
    kinds = _kinds(res)
    dur_s = _duration_ps(res) / 1e12
    data_bytes = res.ports.groupby("port_id")["tx_bytes"].sum()
    out = pd.DataFrame(
        {
            "port_id": ports["port_id"].to_numpy(),
            "node": ports["node"].to_numpy(),
            "peer": ports["peer"].to_numpy(),
        }
    )
    node_kind = out["node"].map(kinds)
    peer_kind = out["peer"].map(kinds)
    out["kind"] = np.where(node_kind == "host", "host", np.where(peer_kind == "host", "down", "fabric"))
    out["rate_gbps"] = ports["rate_bps"].to_numpy(dtype=float) / 1e9
    out["utilization"] = ports["utilization"].to_numpy(dtype=float)
    out["data_gbps"] = data_bytes.reindex(out["port_id"]).to_numpy(dtype=float) * 8 / dur_s / 1e9 if dur_s > 0 else np.nan
    return out[cols]


# -- PFC -------------------------------------------------------------------------------


def pause_by_port(res: Any) -> pd.DataFrame:
    """One row per (port, priority): how long its transmitter was paused by PFC
    (``paused_ps``, ``paused_fraction`` of the run) and the XOFF frames it received."""
    p = res.ports
    cols = ["node", "peer", "port", "priority", "paused_ps", "paused_fraction", "pfc_xoff_received"]
    if not len(p):
        return pd.DataFrame(columns=cols)
    return p[cols].reset_index(drop=True)


def pause_intervals(res: Any) -> pd.DataFrame:
    """One row per PFC pause of a (port, priority), from ``pfc_events``: ``node``,
    ``peer`` (the queue ``node -> peer`` was stopped), ``priority`` (-1: an 802.3x
    PAUSE), ``start_ps`` (the XOFF that paused it; later XOFFs refresh the same pause)
    and ``end_ps`` (the XON, the expiry, or the end of the run for a pause still open).
    With every event logged, the durations of a (port, priority) add up to its
    ``ports.paused_ps``; ``summary.outputs.pfc_events_not_logged`` counts those cut."""
    cols = ["node", "peer", "priority", "start_ps", "end_ps"]
    ev = res.pfc_events
    if not len(ev):
        return pd.DataFrame(columns=cols)
    end = _duration_ps(res)
    open_at: Dict[Any, int] = {}
    rows = []
    for node, peer, prio, t, kind in zip(ev["node"].astype(str), ev["peer"].astype(str), ev["priority"], ev["time_ps"], ev["event"]):
        key = (node, peer, int(prio))
        if kind == "pause":
            open_at.setdefault(key, int(t))
        elif key in open_at:  # resume or expire
            rows.append((*key, open_at.pop(key), int(t)))
    rows += [(*k, t0, end) for k, t0 in open_at.items()]
    return pd.DataFrame(rows, columns=cols).sort_values(["node", "peer", "priority", "start_ps"], kind="stable").reset_index(drop=True)


def pause_by_switch(res: Any, hosts: bool = False) -> pd.DataFrame:
    """One row per switch, every switch (zero when it was never paused): ``paused_ps``
    summed over its (port, priority) rows, ``pause_fraction`` = that sum over
    (rows x duration), the largest ``paused_fraction`` of one of its rows, and the XOFF
    frames its ports received; most paused first. Hosts (NICs paused by their switch)
    are kept apart: ``hosts=True`` adds their rows after every switch row, each host
    that was paused."""
    p = res.ports
    cols = ["node", "kind", "paused_ps", "pause_fraction", "max_port_pause_fraction", "pfc_xoff_received"]
    if not len(p):
        return pd.DataFrame(columns=cols)
    dur = _duration_ps(res)
    g = p.groupby("node", sort=False, observed=True)
    out = pd.DataFrame(
        {
            "paused_ps": g["paused_ps"].sum(),
            "rows": g.size(),
            "max_port_pause_fraction": g["paused_fraction"].max(),
            "pfc_xoff_received": g["pfc_xoff_received"].sum(),
        }
    )
    out["pause_fraction"] = out["paused_ps"] / (out["rows"] * dur) if dur > 0 else np.nan
    out = out.reset_index()
    out["node"] = out["node"].astype(str)
    kinds = _kinds(res)
    out["kind"] = out["node"].map(kinds)
    # Switches without ports in the table (none today) would still be listed.
    for name, kind in kinds.items():
        if kind == "switch" and name not in set(out["node"]):
            out.loc[len(out)] = {
                "node": name,
                "kind": kind,
                "paused_ps": 0,
                "rows": 0,
                "max_port_pause_fraction": 0.0,
                "pfc_xoff_received": 0,
                "pause_fraction": 0.0,
            }
    order = lambda d: d.sort_values(["paused_ps", "node"], ascending=[False, True], kind="stable")  # noqa: E731
    switches = order(out[out["kind"] == "switch"])
    parts = [switches]
    if hosts:
        parts.append(order(out[(out["kind"] != "switch") & (out["paused_ps"] > 0)]))
    return pd.concat(parts)[cols].reset_index(drop=True)


def _shortest_path(adj: Dict[str, List[str]], src: str, dst: str) -> List[str]:
    """One hop-count shortest path (breadth first, neighbours in link order)."""
    prev: Dict[str, str] = {src: src}
    frontier = [src]
    while frontier and dst not in prev:
        nxt = []
        for u in frontier:
            for v in adj.get(u, []):
                if v not in prev:
                    prev[v] = u
                    nxt.append(v)
        frontier = nxt
    if dst not in prev:
        return []
    path = [dst]
    while path[-1] != src:
        path.append(prev[path[-1]])
    return path[::-1]


def _routed_paths(res: Any) -> Optional[List[List[Tuple[str, str]]]]:
    """Each flow's hops as (node, peer) pairs, as the run routed them; ``None`` when the
    results do not carry their scenario."""
    scenario = getattr(res, "scenario", None)
    if scenario is None or not hasattr(scenario, "plan"):
        return None
    p = res.ports
    names = {int(i): (n, q) for i, n, q in zip(p["port_id"], p["node"], p["peer"])}
    paths = scenario.plan.flow_paths()
    if len(paths) != len(res.flows):
        return None
    return [[names[i] for i in path if i in names] for path in paths]


def victims(res: Any) -> pd.DataFrame:
    """Which flows were slowed by PFC pauses they did not cause: one row per flow.

    A flow's path is the one its data frames take: the ports the run's switches route it
    by (ECMP hash, static routes, up-down routing) at the start of the run, recomputed
    from ``res.scenario``; without the scenario (results built from tables alone), one
    hop-count shortest path over the ``links`` table. Routes changed by link failures are
    not followed. A hop (egress port, the flow's priority) *roots* the congestion tree if it is a
    switch port toward a host that paused it (only that host can pause it: a slow
    receiver, a pause storm) or a ``root`` congestion point. ``victim_ps`` sums the
    ``paused_ps`` of the flow's other hops, its own NIC's included (time its path sat
    behind pauses from further on); ``roots`` counts the root hops (a flow crossing one
    feeds the congestion that pauses the others: ``culprit``). Innocent flows come
    first, each group by ``victim_ps`` descending; ``rank`` starts at 1. A port's whole
    paused time is charged to every flow crossing it, whether or not its frames waited
    there."""
    cols = ["rank", "flow_id", "src", "dst", "priority", "victim_ps", "roots", "culprit"]
    f = res.flows
    if not len(f):
        return pd.DataFrame(columns=cols)
    kinds = _kinds(res)
    adj: Dict[str, List[str]] = {}
    for a, b in zip(res.links["a"], res.links["b"]):
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    p = res.ports
    paused = {(n, q, int(pr)): int(ps) for n, q, pr, ps in zip(p["node"], p["peer"], p["priority"], p["paused_ps"])}
    roots = {k for k, ps in paused.items() if ps > 0 and kinds.get(k[0]) == "switch" and kinds.get(k[1]) == "host"}
    c = res.congestion
    if len(c):
        roots |= {(n, q, int(pr)) for n, q, pr, r in zip(c["node"], c["peer"], c["priority"], c["role"]) if r == "root"}
    routed = _routed_paths(res)
    rows = []
    for fid, src, dst, prio in zip(f["flow_id"], f["src"], f["dst"], f["priority"]):
        if routed is not None:
            hops = [(a, b, int(prio)) for a, b in routed[int(fid)]]
        else:
            path = _shortest_path(adj, src, dst)
            hops = [(a, b, int(prio)) for a, b in zip(path, path[1:])]
        n_roots = sum(h in roots for h in hops)
        vps = sum(paused.get(h, 0) for h in hops if h not in roots)
        rows.append(
            {"flow_id": int(fid), "src": src, "dst": dst, "priority": int(prio), "victim_ps": vps, "roots": n_roots, "culprit": n_roots > 0}
        )
    out = pd.DataFrame(rows).sort_values(["culprit", "victim_ps", "flow_id"], ascending=[True, False, True], kind="stable")
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out[cols].reset_index(drop=True)


# -- flows -----------------------------------------------------------------------------


def long_lived_goodput(res: Any) -> Optional[Dict[str, float]]:
    """Steady-state goodput of the long-lived flows (``size = "inf"``): min, max, mean
    and Jain's index. ``None`` when the run has no long-lived flow with a non-empty
    steady interval: the per-flow goodput of a finite flow depends on its size and
    lifetime, so an aggregate of those says nothing about fairness."""
    from .sweeps import jain

    f = res.flows
    if not len(f):
        return None
    g = f.loc[f["size_bytes"] < 0, "goodput_steady_gbps"].to_numpy(dtype=float)
    g = g[~np.isnan(g)]
    if not len(g):
        return None
    return {
        "flows_long_lived": int(len(g)),
        "goodput_min_gbps": float(g.min()),
        "goodput_max_gbps": float(g.max()),
        "goodput_mean_gbps": float(g.mean()),
        "jain": jain(list(g)),
    }


def _pct_name(p: float) -> str:
    return f"p{p:g}".replace(".", "")


def _finite(f: pd.DataFrame) -> pd.DataFrame:
    """Flows with an FCT to compare: of finite size, not a training job's queue pair
    (``ideal_fct_ps`` is -1 for both: a job's times are in its own tables)."""
    keep = f["size_bytes"] >= 0
    if "ideal_fct_ps" in f.columns:  # (tables built by hand may not have it)
        keep &= f["ideal_fct_ps"] >= 0
    return f[keep]


#: What ``groups=`` takes: None (each traffic group on its own), ``"all"`` (every flow
#: pooled), a list of group names or indices (those groups, each on its own), or a dict
#: ``{label: [names or indices]}`` (each label pools its groups).
Groups = Union[None, str, Sequence[Union[str, int]], Mapping[str, Sequence[Union[str, int]]]]


def group_names(res: Any) -> List[str]:
    """The name of each traffic group (``[[traffic]]`` entry), by index: its ``name``
    or its type and index (``"incast_1"``); ``g<i>`` for results without names."""
    names = res.summary.get("group_names") if hasattr(res, "summary") else None
    if names:
        return list(names)
    f = res.flows
    n = int(f["group"].max()) + 1 if len(f) else 0
    return [f"g{i}" for i in range(n)]


def select_groups(res: Any, f: pd.DataFrame, groups: Groups = None) -> List[Tuple[int, str, pd.DataFrame]]:
    """``f`` (rows of the flows table) cut by traffic group as ``groups=`` asks (see
    ``Groups``): ``(group, label, rows)`` each; ``group`` is -1 for a pool."""
    names = group_names(res)

    def index(g: Union[str, int]) -> int:
        if isinstance(g, (int, np.integer)) and not isinstance(g, bool):
            if not 0 <= int(g) < len(names):
                raise ArgumentError(f"groups: no traffic group {g} (groups: {', '.join(names)})")
            return int(g)
        if g not in names:
            raise ArgumentError(f"groups: no traffic group named {g!r} (groups: {', '.join(names)})")
        return names.index(g)

    if groups is None:
        return [(int(g), names[int(g)] if int(g) < len(names) else f"g{g}", part) for g, part in f.groupby("group", sort=True)]
    if isinstance(groups, str):
        if groups != "all":
            return [(index(groups), groups, f[f["group"] == index(groups)])]
        return [(-1, "all", f)]
    if isinstance(groups, Mapping):
        out = []
        for label, members in groups.items():
            if isinstance(members, (str, int)):
                members = [members]
            idx = [index(m) for m in members]
            out.append((idx[0] if len(idx) == 1 else -1, str(label), f[f["group"].isin(idx)]))
        return out
    return [(index(g), names[index(g)], f[f["group"] == index(g)]) for g in groups]


def fct_by_group(res: Any, percentiles: Sequence[float] = DEFAULT_PERCENTILES, groups: Groups = None) -> pd.DataFrame:
    """Per traffic group (``[[traffic]]`` entry) of finite flows: ``group`` (index, -1
    for a pool), ``group_name`` (the entry's name, or the pool's label), ``flows``,
    ``finished``, FCT mean and percentiles in picoseconds, as every time in dcsim's
    tables (``fct_mean_ps``, ``fct_p50_ps`` ...) and slowdown mean and percentiles, over
    the finished flows. ``groups=`` chooses the groups and pools them (``Groups``).
    Long-lived flows have no FCT and are left out."""
    f = _finite(res.flows) if len(res.flows) else res.flows
    rows = []
    if len(f):
        for grp, label, g in select_groups(res, f, groups):
            done = g[g["fct_ps"] >= 0]
            row: Dict[str, Any] = {"group": int(grp), "group_name": label, "flows": int(len(g)), "finished": int(len(done))}
            fct = done["fct_ps"].to_numpy(dtype=float)
            sd = done["slowdown"].to_numpy(dtype=float)
            row["fct_mean_ps"] = float(fct.mean()) if len(done) else math.nan
            for p in percentiles:
                row[f"fct_{_pct_name(p)}_ps"] = float(np.percentile(fct, p)) if len(done) else math.nan
            row["slowdown_mean"] = float(sd.mean()) if len(done) else math.nan
            for p in percentiles:
                row[f"slowdown_{_pct_name(p)}"] = float(np.percentile(sd, p)) if len(done) else math.nan
            rows.append(row)
    cols = (
        ["group", "group_name", "flows", "finished", "fct_mean_ps"]
        + [f"fct_{_pct_name(p)}_ps" for p in percentiles]
        + ["slowdown_mean"]
        + [f"slowdown_{_pct_name(p)}" for p in percentiles]
    )
    return pd.DataFrame(rows, columns=cols)


def fct_by_size(
    res: Any,
    *,
    bins: Optional[int] = None,
    share: float = 0.05,
    edges: Optional[Sequence[float]] = None,
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    by_group: bool = True,
    groups: Groups = None,
) -> pd.DataFrame:
    """Slowdown percentiles per flow-size bin, as FCT studies publish them.

    By default the finite flows of each traffic group are sorted by size and cut into
    bins holding an equal count of flows, ``share`` of them each (5 %: 20 bins, the
    convention of the HPCC study); ``bins=N`` asks for N equal-count bins instead. With
    ``edges=[e0, e1, ...]`` (bytes) the bins are fixed size ranges ``(e_i, e_i+1]``
    instead, the first one starting at 0; flows above the last edge are left out.
    ``by_group=False`` pools all groups (``group`` is then -1), as ``groups="all"``
    does; ``groups=`` chooses groups by name and pools them (``Groups``).

    One row per (group, bin): ``group``, ``group_name``, ``bin``, ``size_lo`` and ``size_hi`` (smallest
    and largest flow size in the bin, or the bin's edges), ``flows`` (flows in the bin),
    ``finished``, and ``slowdown_mean`` plus one ``slowdown_pNN`` column per percentile
    (NumPy's linear interpolation) over the finished flows of the bin. Unfinished flows
    count in ``flows`` but have no slowdown; compare ``finished`` with ``flows`` before
    reading the tail. Long-lived flows are left out."""
    if edges is not None and bins is not None:
        raise ArgumentError("fct_by_size: give bins or edges, not both")
    if bins is None:
        if not 0 < share <= 1:
            raise ArgumentError(f"fct_by_size: share must be in (0, 1], not {share}")
        bins = max(1, int(round(1 / share)))
    if bins < 1:
        raise ArgumentError(f"fct_by_size: bins must be at least 1, not {bins}")
    pct_cols = [f"slowdown_{_pct_name(p)}" for p in percentiles]
    cols = ["group", "group_name", "bin", "size_lo", "size_hi", "flows", "finished", "slowdown_mean"] + pct_cols
    f = _finite(res.flows) if len(res.flows) else res.flows
    if not len(f):
        return pd.DataFrame(columns=cols)
    rows = []
    for grp, label, g in select_groups(res, f, groups if by_group else "all"):
        g = g.sort_values(["size_bytes", "flow_id"], kind="stable")
        parts = []
        if edges is not None:
            e = [0.0] + sorted(float(x) for x in edges)
            size = g["size_bytes"].to_numpy(dtype=float)
            for i in range(1, len(e)):
                sel = g[(size > e[i - 1]) & (size <= e[i])] if i > 1 else g[size <= e[i]]
                parts.append((e[i - 1], e[i], sel))
        else:
            n = min(bins, len(g))
            for idx in np.array_split(np.arange(len(g)), n):
                sel = g.iloc[idx]
                parts.append((float(sel["size_bytes"].min()), float(sel["size_bytes"].max()), sel))
        for i, (lo, hi, sel) in enumerate(parts):
            done = sel[sel["fct_ps"] >= 0]
            sd = done["slowdown"].to_numpy(dtype=float)
            row: Dict[str, Any] = {
                "group": int(grp),
                "group_name": label,
                "bin": i,
                "size_lo": lo,
                "size_hi": hi,
                "flows": int(len(sel)),
                "finished": int(len(done)),
                "slowdown_mean": float(sd.mean()) if len(sd) else math.nan,
            }
            for p, c in zip(percentiles, pct_cols):
                row[c] = float(np.percentile(sd, p)) if len(sd) else math.nan
            rows.append(row)
    return pd.DataFrame(rows, columns=cols)
