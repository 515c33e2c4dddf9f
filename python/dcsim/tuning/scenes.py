"""Storage scenes of seed 004's ECN tuning study: each of the seed's workload profiles
at a few loads (bytes outstanding per client) and seeds, on one fabric (eight 25 Gb/s
clients and two 100 Gb/s servers on two leaves joined by one 100 Gb/s link, a 2:1
oversubscription both ways; a 1 MiB shared buffer per switch; RoCE with DCQCN; RED ECN
at the switches). ``scenarios/seed004_storage_oltp.toml`` is one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

from .. import _native
from ..scenario import Scenario

#: The static default ECN settings (DCQCN paper: Kmin 5 KB, Kmax 200 KB, Pmax 1 %).
DEFAULT_ECN: Tuple[int, int, float] = (5_000, 200_000, 0.01)

#: Every profile of the seed's table (``[[traffic]] type = "storage"``), as the engine
#: defines them.
PROFILES: Tuple[str, ...] = tuple(p["name"] for p in _native.storage_profiles())


def mean_block(profile: str) -> float:
    """Mean block size of a profile: blocks are min x 2^k up to max, k uniform."""
    p = next(p for p in _native.storage_profiles() if p["name"] == profile)
    sizes = [p["block_min"] << k for k in range((p["block_max"] // p["block_min"]).bit_length())]
    return sum(sizes) / len(sizes)


# Doubled braces: the template goes through str.format.
_LINKS = "\n".join(f'  {{{{ a = "c{i}", b = "leaf0", rate = "25Gbps", delay = "1us" }}}},' for i in range(8))

_TEMPLATE = f"""
name = "{{name}}"

[simulation]
duration = "{{duration}}"
seed = {{seed}}

[host]
mtu = "1024B"

[host.cc]
type = "dcqcn"
variant = "paper"

[topology]
type = "explicit"
hosts = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "s0", "s1"]
switches = ["leaf0", "leaf1"]
links = [
{_LINKS}
  {{{{ a = "s0", b = "leaf1", rate = "100Gbps", delay = "1us" }}}},
  {{{{ a = "s1", b = "leaf1", rate = "100Gbps", delay = "1us" }}}},
  {{{{ a = "leaf0", b = "leaf1", rate = "100Gbps", delay = "1us" }}}},
]

[switch.buffer]
type = "shared"
size = "1MiB"

[switch.ecn]
mode = "red"
kmin = "{{kmin}}B"
kmax = "{{kmax}}B"
pmax = {{pmax}}
mark_point = "dequeue"

[[traffic]]
type = "storage"
client_count = 8
server_count = 2
profile = "{{profile}}"
concurrency = {{concurrency}}

[stats]
steady_start = "{{warmup_us}}us"
io_interval = "{{interval_us}}us"
sample_interval = "off"
goodput_interval = "off"
"""


@dataclass(frozen=True)
class Scene:
    """One workload: a profile at a load (KiB outstanding per client), one seed."""

    profile: str
    load_kib: int
    seed: int

    @property
    def concurrency(self) -> int:
        """Outstanding I/Os per client: the load over the profile's mean block (at least
        one), so that large-block profiles complete I/Os within a run too."""
        return max(1, round(self.load_kib * 1024 / mean_block(self.profile)))

    @property
    def name(self) -> str:
        return f"{self.profile}_{self.load_kib}k_s{self.seed}"

    def duration_us(self, least: int, ios: int = 150, most: int = 20_000) -> int:
        """A run long enough for steady-state IOPS and latency: at least ``least``, ten
        mean latencies (outstanding bytes over the 100 Gb/s bottleneck) and ``ios`` I/Os'
        worth of blocks through it; at most ``most`` (us)."""
        bottleneck = 12.5e9  # bytes/s
        outstanding = 8 * self.concurrency * mean_block(self.profile)
        latency_us = outstanding / bottleneck * 1e6
        ios_us = ios * mean_block(self.profile) / bottleneck * 1e6
        return int(min(max(least, 10 * latency_us, ios_us), most))

    def scenario(
        self, ecn: Tuple[int, int, float] = DEFAULT_ECN, least_us: int = 3000, interval_us: int = 100, ios: int = 150, most_us: int = 20_000
    ) -> Scenario:
        """The scene's scenario, run for ``duration_us(least_us, ios, most_us)``; its
        summary's IOPS and latencies count the I/Os completed in the last 90 %
        (``stats.steady_start``)."""
        duration_us = self.duration_us(least_us, ios, most_us)
        warmup_us = duration_us // 10
        kmin, kmax, pmax = ecn
        text = _TEMPLATE.format(
            name=self.name,
            duration=f"{duration_us}us",
            seed=self.seed,
            kmin=int(kmin),
            kmax=int(kmax),
            pmax=repr(float(pmax)),
            profile=self.profile,
            concurrency=self.concurrency,
            interval_us=interval_us,
            warmup_us=warmup_us,
        )
        return Scenario(text)


def scene_change(
    first: Scene, then: Scene, at_us: int, duration_us: int, ecn: Tuple[int, int, float] = DEFAULT_ECN, interval_us: int = 100
) -> Scenario:
    """One run in which ``first``'s clients stop issuing I/Os at ``at_us`` and ``then``'s
    start (the same hosts and fabric; ``first``'s outstanding I/Os still complete)."""

    def entry(s: Scene, when: str) -> str:
        return f'{{type="storage", client_count=8, server_count=2, profile="{s.profile}", concurrency={s.concurrency}, {when}="{at_us}us"}}'

    traffic = f"traffic=[{entry(first, 'stop')}, {entry(then, 'start')}]"
    return first.scenario(ecn, duration_us, interval_us).with_overrides(
        [traffic, f'simulation.duration="{duration_us}us"', f'stats.steady_start="{duration_us // 10}us"']
    )


def scenes(profiles: Sequence[str], loads: Sequence[int], seeds: Sequence[int]) -> List[Scene]:
    """Every profile at every load (KiB outstanding per client) and seed."""
    return [Scene(p, q, s) for p in profiles for q in loads for s in seeds]
