"""dcsim: a packet-level simulator of lossless datacenter networks (RoCEv2, PFC).

import dcsim
res = dcsim.run("scenarios/seed000_parking_lot_pfc.toml",
                overrides=["switch.arbitration=per_flow"])
res.flows            # pandas DataFrame
res.summary          # dict
res.fct_by_size()    # slowdown percentiles per flow-size bin
res.write("out/seed000")
dcsim.load_run("out/seed000")   # the same Results, read back
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Union

from . import _native
from ._native import DcsimError, ResourceError, ScenarioError, SimulationError
from .cc import CongestionControl, classes_arg
from .errors import ArgumentError, OutputError, bool_arg, path_list, str_list
from .scenario import Scenario, as_scenario
from .store import Store, open_store

if TYPE_CHECKING:
    from .ff_check import FastForwardCheck, check_fast_forward
    from .results import Results, load_run
    from .results import run_id as run_id
    from .stepper import Stepper
    from .sweeps import compare, jain, sweep

__version__: str = _native.__version__

# Names whose modules need pandas or NumPy (about 90 MiB and a third of a second to
# import), loaded on first use: a process that only runs a scenario, such as a
# benchmark's, does not hold them beside the simulation.
_LAZY = {
    "Results": "results",
    "load_run": "results",
    "run_id": "results",
    "Stepper": "stepper",
    "FastForwardCheck": "ff_check",
    "check_fast_forward": "ff_check",
    "compare": "sweeps",
    "jain": "sweeps",
    "sweep": "sweeps",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dcsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "ArgumentError",
    "CongestionControl",
    "DcsimError",
    "OutputError",
    "Results",
    "Scenario",
    "Store",
    "Stepper",
    "ScenarioError",
    "SimulationError",
    "ResourceError",
    "__version__",
    "load",
    "loads",
    "load_run",
    "open_store",
    "run",
    "sweep",
    "compare",
    "jain",
    "check_fast_forward",
    "FastForwardCheck",
]

PathLike = Union[str, "os.PathLike[str]"]


def load(path: PathLike, overrides: Optional[Iterable[str]] = None, *, data_roots: Optional[Iterable[PathLike]] = None) -> Scenario:
    """Reads and validates a scenario file. ``overrides`` are ``"path=value"`` strings.
    The files the scenario names must be in its directory, in one of ``data_roots`` or in
    the shipped ``data/`` directory.

    Raises ScenarioError (message ``field.path: reason``; for a file that cannot be read,
    ``file: reason``) for invalid input, ArgumentError for arguments of the wrong type."""
    sc = Scenario.from_file(path, overrides=str_list(overrides, "overrides"), data_roots=data_roots)
    sc.validate()
    return sc


def loads(
    text: str, base_dir: PathLike = ".", overrides: Optional[Iterable[str]] = None, *, data_roots: Optional[Iterable[PathLike]] = None
) -> Scenario:
    """Validates scenario text; relative file names in it resolve against ``base_dir``,
    and the files it names must be there, in one of ``data_roots`` or in the shipped
    ``data/`` directory."""
    sc = Scenario(text, base_dir=base_dir, overrides=str_list(overrides, "overrides"), data_roots=data_roots)
    sc.validate()
    return sc


def run(
    scenario: Union[Scenario, PathLike, Mapping[str, Any]],
    *,
    overrides: Optional[Iterable[str]] = None,
    progress: bool = False,
    data_roots: Optional[Iterable[PathLike]] = None,
    cc: Any = None,
) -> Results:
    """Runs a scenario (a ``Scenario``, a file path or a scenario dict) to its end.

    The run releases the GIL while it simulates and can be stopped with Ctrl-C
    (KeyboardInterrupt). ``progress=True`` draws a progress bar on stderr for runs that
    last more than a second. ``data_roots``: further directories the scenario's files
    may be in (see ``load``). ``cc``: the ``dcsim.CongestionControl`` subclasses that the
    scenario's ``type = "python"`` tables name (a dict name -> class, or classes named by
    ``__name__``); an exception in one of their hooks raises SimulationError."""
    ov = str_list(overrides, "overrides")
    classes = classes_arg(cc)
    bool_arg(progress, "progress")
    roots = path_list(data_roots, "data_roots")
    sc = as_scenario(scenario, ov, roots, "run")
    plan = sc.validate()
    raw = _native.run(plan, progress=progress, cc=classes if classes is not None else {})
    from .results import Results, run_id

    res = Results(raw, scenario=sc)
    s = res.summary
    s.setdefault("name", plan.name)
    s.setdefault("seed", plan.seed)
    s.setdefault("version", __version__)
    s.setdefault("scenario_hash", plan.hash)
    s.setdefault("run_id", run_id(s["name"], s["scenario_hash"], s["version"]))
    if sc.overrides:
        s.setdefault("overrides", sc.overrides)
    return res
