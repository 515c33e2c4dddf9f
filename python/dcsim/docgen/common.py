"""What every generator uses: the shipped scenarios' runs (cached), the port into a host,
the number formats of the pages, and the registry of generated blocks."""

from __future__ import annotations

import bisect
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple


def _root() -> Path:
    """The checkout the docs belong to: ``DCSIM_ROOT`` if set, else the checkout this
    package sits in (an editable install), else the working directory or one above it
    that has ``scenarios/`` and ``docs/`` (a regular install run from a checkout)."""
    env = os.environ.get("DCSIM_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve().parents[3]
    if (here / "scenarios").is_dir():
        return here
    cwd = Path.cwd().resolve()
    for p in (cwd, *cwd.parents):
        if (p / "scenarios").is_dir() and (p / "docs").is_dir():
            return p
    return here


#: The repository checkout whose docs are rewritten.
ROOT = _root()
SCEN = ROOT / "scenarios"
FIGURES = ROOT / "docs" / "figures"

_runs: Dict[Tuple[str, Tuple[str, ...]], Any] = {}


def run(scenario: str, *overrides: str) -> Any:
    """The results of a shipped scenario (cached: several blocks quote the same run)."""
    import dcsim

    key = (scenario, tuple(overrides))
    if key not in _runs:
        _runs[key] = dcsim.run(SCEN / scenario, overrides=list(overrides))
    return _runs[key]


def port_into(res: Any, host: str) -> int:
    """The id of the switch port that sends to ``host`` (its link's far end)."""
    ports = res.ports
    return int(ports[(ports["peer"] == host) & (ports["node"] != host)]["port_id"].iloc[0])


# -- formatting -------------------------------------------------------------------------


def gbps(x: float, digits: int = 2) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def thousands(n: int) -> str:
    return f"{int(n):,}"


def spaced(n: int) -> str:
    """12 345: thousands separated by a space, as the model pages write them."""
    return f"{int(n):,}".replace(",", " ")


def steady(res: Any) -> List[float]:
    return [float(x) for x in res.flows["goodput_steady_gbps"]]


def drops(res: Any) -> str:
    n = int(res.summary["counters"]["drops_total"])
    return "no drops" if n == 0 else "1 drop" if n == 1 else f"{thousands(n)} drops"


def window_goodput(res: Any, t0_ms: float, t1_ms: float) -> Dict[str, float]:
    """Per source (flow ``src``), mean goodput over [t0, t1) from the goodput table, empty
    bins counted as 0."""
    g, f = res.goodput, res.flows
    lo, hi = t0_ms * 1e9, t1_ms * 1e9
    sel = g[(g["time_ps"] >= lo) & (g["time_ps"] < hi)]
    by_flow = sel.groupby("flow_id")["bytes"].sum()
    out = {}
    for r in f.itertuples(index=False):
        out[r.src] = float(by_flow.get(r.flow_id, 0)) * 8 / ((hi - lo) / 1e12) / 1e9
    return out


def bin_width(g: Any) -> int:
    t = sorted(set(int(x) for x in g["time_ps"]))
    return min(b - a for a, b in zip(t, t[1:])) if len(t) > 1 else 1


def jain(xs: Sequence[float]) -> float:
    from dcsim import jain as j

    return j(list(xs))


def last_at(times: Sequence[float], t: float) -> int:
    """Index of the last entry of the sorted ``times`` at or before ``t``."""
    return bisect.bisect_right(times, t) - 1


#: block name -> (generator, short: checked by the test suite on every run), filled by
#: ``@block`` as the model modules are imported (``render`` imports them all).
BLOCKS: Dict[str, Tuple[Callable[[], str], bool]] = {}


def block(short: bool, name: Optional[str] = None) -> Callable[[Callable[[], str]], Callable[[], str]]:
    """Register a generator of the generated block ``name`` (default: the function's name)."""

    def add(fn: Callable[[], str]) -> Callable[[], str]:
        key = name or fn.__name__
        if key in BLOCKS:
            raise ValueError(f"generated block {key!r} defined twice")
        BLOCKS[key] = (fn, short)
        return fn

    return add


def write_page(page: Path, text: str, argv: Sequence[str], script: str) -> int:
    """A page a script writes whole (``scripts/cli_reference.py``,
    ``scripts/scenario_index.py``): with ``--check`` in ``argv``, 1 and a message if the
    committed page differs from ``text``; else writes it."""
    rel = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    if "--check" in argv:
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            print(f"{rel} is stale: run python {script}", file=sys.stderr)
            return 1
        return 0
    page.write_text(text, encoding="utf-8")
    print(f"wrote {rel}")
    return 0
