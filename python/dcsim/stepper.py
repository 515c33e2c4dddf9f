"""A run advanced step by step (seed 004's adaptive ECN loop): ``run_until`` a time,
read the storage KPIs of the last ``stats.io_interval`` (``kpi``), change the switches'
ECN thresholds (``set_ecn``), and ``finish`` with the usual ``Results``. A stepped run
without changes gives the results of ``dcsim.run`` bit for bit."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Mapping, Optional, Union

from . import _native
from .errors import ArgumentError
from .results import Results, run_id
from .scenario import Scenario

__all__ = ["Stepper"]


def _int(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ArgumentError(f"{name} must be an int, not {type(v).__name__}")
    if v < 0:
        raise ArgumentError(f"{name} must be >= 0 (got {v})")
    return v


class Stepper:
    """``Stepper(scenario)``: a Scenario, a file path or a scenario dict."""

    def __init__(
        self, scenario: Union[Scenario, str, "os.PathLike[str]", Mapping[str, Any]], *, overrides: Optional[Iterable[str]] = None
    ) -> None:
        if isinstance(scenario, Scenario):
            sc = scenario.with_overrides(list(overrides)) if overrides else scenario
        elif isinstance(scenario, Mapping):
            sc = Scenario.from_dict(scenario)
            if overrides:
                sc = sc.with_overrides(list(overrides))
        elif isinstance(scenario, (str, os.PathLike)):
            sc = Scenario.from_file(scenario, overrides=list(overrides or []))
        else:
            raise ArgumentError(f"Stepper() takes a Scenario, a path or a dict, not {type(scenario).__name__}")
        self.scenario = sc
        self._plan = sc.validate()
        self._native = _native.Stepper(self._plan)

    @property
    def now_ps(self) -> int:
        """Simulated time reached (ps)."""
        return self._native.now_ps

    @property
    def end_ps(self) -> int:
        return self._native.end_ps

    def run_until(self, t_ps: int) -> bool:
        """Runs every event up to ``t_ps``; returns whether the run has more to do."""
        return self._native.run_until(_int(t_ps, "t_ps"))

    def kpi(self) -> Optional[Dict[str, Any]]:
        """The storage KPIs of the last complete interval (the ``io`` table's columns),
        or None before the first one or in a run without storage traffic."""
        k = self._native.kpi()
        return dict(k) if k is not None else None

    def set_ecn(self, kmin: int, kmax: int, pmax: float, ports: Optional[Iterable[int]] = None) -> None:
        """New RED thresholds (bytes) and Pmax on every switch port, or on the switch
        port ids ``ports``, from now on."""
        if isinstance(pmax, bool) or not isinstance(pmax, (int, float)):
            raise ArgumentError(f"pmax must be a number, not {type(pmax).__name__}")
        plist = None if ports is None else [_int(p, "ports[]") for p in ports]
        self._native.set_ecn(_int(kmin, "kmin"), _int(kmax, "kmax"), float(pmax), plist)

    def finish(self) -> Results:
        """Runs to the end and returns the results (as ``dcsim.run`` does)."""
        raw = self._native.finish()
        res = Results(raw, scenario=self.scenario)
        s = res.summary
        s.setdefault("scenario_hash", self._plan.hash)
        s.setdefault("run_id", run_id(s["name"], s["scenario_hash"], s["version"]))
        if self.scenario.overrides:
            s.setdefault("overrides", self.scenario.overrides)
        return res
