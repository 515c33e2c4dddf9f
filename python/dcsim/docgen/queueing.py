"""The egress queues against queueing theory (docs/models/queues.md): M/D/1 and M/G/1
(Pollaczek-Khinchine), two priorities (Cobham), Little's law, and round robin over
flows as processor sharing."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from .common import block

#: The queueing bed: senders, packets, link rate (b/s); the frame header and the
#: preamble with inter-frame gap (B) as the run's defaults put them on the wire.
MD1_SENDERS, MD1_PACKETS, MD1_RATE, MD1_HEADER, MD1_PREAMBLE = 64, 100_000, 10e9, 62, 20
MD1_OVERHEAD = MD1_HEADER + MD1_PREAMBLE
#: Payload sizes (B): every message 1000 B (M/D/1), or uniform over 64..1000 B (M/G/1).
FIXED, MIXED = (1000, 1000), (64, 1000)
_md1: Dict[Tuple[Tuple[Tuple[int, float], ...], Tuple[int, int], int], Dict[int, float]] = {}


def md1_moments(sizes: Tuple[int, int]) -> Tuple[float, float]:
    """Mean and second moment of the service time (s) of payloads uniform over ``sizes``."""
    wires = [(x + MD1_OVERHEAD) * 8 / MD1_RATE for x in range(sizes[0], sizes[1] + 1)]
    return sum(wires) / len(wires), sum(w * w for w in wires) / len(wires)


def md1_scenario(loads: Dict[int, float], sizes: Tuple[int, int] = FIXED, seed: int = 1) -> Dict[str, Any]:
    """One-packet UDP messages from 64 senders to h0 on a star, posted as one Poisson
    process of total load ``sum(loads)`` on h0's link, each on a random sender, with a
    payload uniform over ``sizes`` and, with probability proportional to its load, a
    priority of ``loads``."""
    import random

    rnd = random.Random(seed)
    prios, weights = list(loads), list(loads.values())
    lam = sum(weights) / md1_moments(sizes)[0]
    t, flows = 1e-6, []
    for _ in range(MD1_PACKETS):
        t += rnd.expovariate(lam)
        flows.append(
            {
                "src": f"h{rnd.randrange(1, MD1_SENDERS + 1)}",
                "dst": "h0",
                "size": f"{rnd.randint(*sizes)}B",
                "start": f"{t * 1e9:.3f}ns",
                "priority": rnd.choices(prios, weights)[0],
            }
        )
    return {
        "name": "md1",
        "simulation": {"duration": f"{(t + 1e-3) * 1e3:.3f}ms", "seed": 1},
        "topology": {"type": "star", "hosts": MD1_SENDERS + 1, "rate": f"{MD1_RATE / 1e9:g}Gbps", "delay": "1us"},
        "host": {"mtu": f"{sizes[1]}B"},
        "stats": {"goodput_interval": "off", "sample_interval": "off"},
        "traffic": [{"type": "flows", "transport": "udp", "flows": flows}],
    }


def md1_waits(loads: Dict[int, float], sizes: Tuple[int, int] = FIXED, seed: int = 1) -> Dict[int, float]:
    """Mean wait in h0's switch port per priority, in mean service times (`md1_wait`)."""
    key = (tuple(sorted(loads.items())), sizes, seed)
    if key not in _md1:
        import dcsim

        res = dcsim.run(md1_scenario(loads, sizes, seed))
        f = res.flows
        if int(res.summary["counters"]["drops_total"]) != 0 or len(f) != MD1_PACKETS:
            raise SystemExit("queueing bed: packets lost")
        mean_s = md1_moments(sizes)[0]
        _md1[key] = {int(p): float(w.mean()) / mean_s for p, w in md1_wait(f).groupby(f["priority"])}
    return _md1[key]


def md1_wait(flows: Any) -> Any:
    """Each one-packet message's wait in h0's switch port (s): its one-way delay less its
    two serializations and two link delays."""
    wire = (flows["size_bytes"] + MD1_OVERHEAD) * 8 / MD1_RATE
    return flows["latency_mean_ps"] * 1e-12 - 2 * wire - 2e-6


def cobham(loads: Dict[int, float], sizes: Tuple[int, int] = FIXED) -> Dict[int, float]:
    """Mean waits, in mean service times, of a non-preemptive strict-priority M/G/1 queue,
    highest priority number first (Cobham 1954): W_k = W0 / ((1 - s_(k+1)) (1 - s_k)),
    s_k the load of priority k and above, W0 = lambda E[S^2] / 2 (rho / 2 for equal
    frames). One priority: the Pollaczek-Khinchine mean."""
    m1, m2 = md1_moments(sizes)
    w0 = sum(loads.values()) * m2 / m1 / 2 / m1
    out, above = {}, 0.0
    for p in sorted(loads, reverse=True):
        out[p] = w0 / ((1 - above) * (1 - above - loads[p]))
        above += loads[p]
    return out


#: The rows of the table: equal frames at three loads, two priorities under strict
#: priority, and mixed frame sizes.
MD1_ROWS = (({3: 0.3}, FIXED), ({3: 0.5}, FIXED), ({3: 0.8}, FIXED), ({4: 0.3, 3: 0.4}, FIXED), ({3: 0.5}, MIXED), ({3: 0.8}, MIXED))


@block(short=False)
def queue_theory() -> str:
    out = [
        "| payload | offered load (priority: load) | priority | mean wait, dcsim | theory | dcsim / theory |",
        "|---|---|---|---|---|---|",
    ]
    for loads, sizes in MD1_ROWS:
        got, want = md1_waits(loads, sizes), cobham(loads, sizes)
        what = ", ".join(f"{p}: {x:g}" for p, x in sorted(loads.items(), reverse=True))
        size = f"{sizes[0]} B" if sizes[0] == sizes[1] else f"{sizes[0]}-{sizes[1]} B"
        for p in sorted(loads, reverse=True):
            out.append(f"| {size} | {what} | {p} | {got[p]:.3f} | {want[p]:.3f} | {got[p] / want[p]:.3f} |")
    return "\n".join(out) + "\n"


def md1_little(loads: Dict[int, float], sizes: Tuple[int, int]) -> Tuple[float, float]:
    """Little's law on the queueing bed: the time average of the sampled queue at h0's
    switch port (every 1 us) and the bytes x wait of every packet summed over the run
    divided by its duration (B). Equal if the samples and the delays agree."""
    import dcsim

    sc = md1_scenario(loads, sizes)
    sc["stats"]["sample_interval"] = "1us"
    res = dcsim.run(sc)
    f, smp = res.flows, res.samples
    frame = f["size_bytes"] + MD1_HEADER
    sampled = float(smp[(smp["node"] == "S0") & (smp["peer"] == "h0")]["egress_bytes"].mean())
    return sampled, float((frame * md1_wait(f)).sum()) / (res.summary["duration_ps"] * 1e-12)


@block(short=False)
def queue_little() -> str:
    out = ["| payload | load | mean queue, samples (B) | sum of bytes x wait / duration (B) | ratio |", "|---|---|---|---|---|"]
    for loads, sizes in (({3: 0.5}, FIXED), ({3: 0.8}, MIXED)):
        a, b = md1_little(loads, sizes)
        size = f"{sizes[0]} B" if sizes[0] == sizes[1] else f"{sizes[0]}-{sizes[1]} B"
        out.append(f"| {size} | {loads[3]:g} | {a:.1f} | {b:.1f} | {a / b:.4f} |")
    return "\n".join(out) + "\n"


#: The processor-sharing bed: flows, mean size (B, exponential), packet payload (B).
PS_FLOWS, PS_MEAN, PS_MTU = 50_000, 20_000, 1000
_ps: Dict[Tuple[float, str, int], Dict[str, float]] = {}


def ps_point(rho: float, arbitration: str, seed: int = 1) -> Dict[str, float]:
    """Flows of exponential size (mean 20 KB) from 64 senders to h0, Poisson arrivals of
    load ``rho`` on h0's link, UDP at line rate. Each flow's response time (posted to last
    bit received, less two link delays and its last packet's serialization: what a flow
    alone needs beyond its own bytes at the link rate) over its bytes' time at the link
    rate, summed over all flows, over flows under 10 KB and over flows above 40 KB."""
    key = (rho, arbitration, seed)
    if key not in _ps:
        import random

        import dcsim

        rnd = random.Random(seed)
        wire = lambda x: x + -(-x // PS_MTU) * MD1_OVERHEAD  # noqa: E731
        sizes = [max(1, int(rnd.expovariate(1 / PS_MEAN))) for _ in range(PS_FLOWS)]
        lam = rho * MD1_RATE / 8 / (sum(map(wire, sizes)) / PS_FLOWS)
        t, flows = 1e-6, []
        for x in sizes:
            t += rnd.expovariate(lam)
            flows.append({"src": f"h{rnd.randrange(1, MD1_SENDERS + 1)}", "dst": "h0", "size": f"{x}B", "start": f"{t * 1e9:.3f}ns"})
        res = dcsim.run(
            {
                "name": "ps",
                "simulation": {"duration": f"{(t + 20e-3) * 1e3:.3f}ms", "seed": 1},
                "topology": {"type": "star", "hosts": MD1_SENDERS + 1, "rate": f"{MD1_RATE / 1e9:g}Gbps", "delay": "1us"},
                "host": {"mtu": f"{PS_MTU}B"},
                "switch": {"arbitration": arbitration},
                "stats": {"goodput_interval": "off", "sample_interval": "off"},
                "traffic": [{"type": "flows", "transport": "udp", "flows": flows}],
            }
        )
        f = res.flows
        if int(f["messages_completed"].sum()) != PS_FLOWS or int(res.summary["counters"]["drops_total"]) != 0:
            raise SystemExit("processor-sharing bed: flows unfinished or frames lost")
        x = f["size_bytes"]
        own = (x + (-(-x // PS_MTU)) * MD1_OVERHEAD) * 8 / MD1_RATE
        last = (x - (x - 1) // PS_MTU * PS_MTU + MD1_OVERHEAD) * 8 / MD1_RATE
        extra = f["message_latency_mean_ps"] * 1e-12 - 2e-6 - last
        small, large = x < PS_MEAN / 2, x > 2 * PS_MEAN
        _ps[key] = {
            "all": float(extra.sum() / own.sum()),
            "small": float(extra[small].sum() / own[small].sum()),
            "large": float(extra[large].sum() / own[large].sum()),
        }
    return _ps[key]


@block(short=False)
def queue_ps() -> str:
    out = ["| arbitration | load | slowdown, all flows | under 10 KB | above 40 KB | processor sharing |", "|---|---|---|---|---|---|"]
    for arb in ("per_flow", "fifo"):
        for rho in (0.5, 0.8):
            x = ps_point(rho, arb)
            out.append(f"| {arb} | {rho:g} | {x['all']:.3f} | {x['small']:.3f} | {x['large']:.3f} | {1 / (1 - rho):.3f} |")
    return "\n".join(out) + "\n"
