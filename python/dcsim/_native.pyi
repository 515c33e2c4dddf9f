"""Type stubs of the compiled module ``dcsim._native``."""

from os import PathLike
from typing import Dict, List, Optional, Sequence, Tuple, TypedDict, Union, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "__version__",
    "engine_version",
    "DcsimError",
    "ScenarioError",
    "SimulationError",
    "ResourceError",
    "PlanHandle",
    "Stepper",
    "CcContext",
    "Nic",
    "Ack",
    "Loss",
    "read_scenario",
    "scenario_hash",
    "load",
    "loads",
    "run",
    "apply_overrides",
    "check_override",
    "parse_rate_bps",
    "parse_size_bytes",
    "parse_time_ps",
    "storage_profiles",
    "_example_results",
    "_panic",
]

__version__: str
engine_version: str

class DcsimError(Exception): ...

class ScenarioError(DcsimError):
    path: str
    reason: str

class SimulationError(DcsimError): ...

class ResourceError(SimulationError):
    what: str

@final
class PlanHandle:
    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def duration_ps(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def hash(self) -> str: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def num_hosts(self) -> int: ...
    @property
    def num_switches(self) -> int: ...
    @property
    def num_links(self) -> int: ...
    @property
    def num_flows(self) -> int: ...
    @property
    def memory_estimate(self) -> int: ...
    @property
    def memory_limit(self) -> int: ...
    @property
    def memory_counts(self) -> str: ...
    @property
    def events_estimate(self) -> int: ...
    @property
    def max_events(self) -> int: ...
    @property
    def events_counts(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def group_names(self) -> List[str]: ...
    def flow_paths(self) -> List[List[int]]: ...

class _Kpi(TypedDict):
    time_ps: int
    interval_ps: int
    ios: int
    iops: float
    latency_mean_ps: float
    read_bytes: int
    write_bytes: int
    ecn_marked: int
    cnps_sent: int
    paused_ps: int
    queue_mean_bytes: float
    queue_max_bytes: int

@final
class Stepper:
    """A run advanced by the caller: run_until, kpi, set_ecn, finish."""
    def __new__(cls, plan: PlanHandle) -> "Stepper": ...
    @property
    def now_ps(self) -> int: ...
    @property
    def end_ps(self) -> int: ...
    @property
    def link_packet_hops(self) -> int: ...
    @property
    def packets_in_flight(self) -> int: ...
    def run_until(self, t_ps: int) -> bool: ...
    def kpi(self) -> Optional[_Kpi]: ...
    def set_ecn(self, kmin: int, kmax: int, pmax: float, ports: Optional[List[int]] = None) -> None: ...
    def finish(self) -> _RunResults: ...

@final
class CcContext:
    """What a hook of a Python congestion control sees and asks for."""
    @property
    def now(self) -> int: ...
    @property
    def line_rate(self) -> int: ...
    @property
    def uniform(self) -> float: ...
    def restart_timer(self, kind: int, after: int) -> None: ...
    def cancel_timer(self, kind: int) -> None: ...

@final
class Nic:
    @property
    def line_rate(self) -> int: ...
    @property
    def mtu_wire(self) -> int: ...
    @property
    def mss(self) -> int: ...
    @property
    def base_rtt(self) -> int: ...

@final
class Ack:
    @property
    def newly_acked(self) -> int: ...
    @property
    def acked_to(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def rtt(self) -> int: ...
    @property
    def ece(self) -> bool: ...
    @property
    def nak(self) -> bool: ...
    @property
    def recovery(self) -> bool: ...
    @property
    def int(self) -> List[Tuple[int, int, int, int]]: ...

@final
class Loss:
    @property
    def kind(self) -> str: ...
    @property
    def flight(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...

_Column = Union[npt.NDArray[np.uint64], npt.NDArray[np.int64], npt.NDArray[np.float64], List[str]]

class _RawResults(TypedDict):
    tables: Dict[str, Dict[str, _Column]]
    summary: str

class _RunResults(_RawResults):
    events: int
    wall_s: float

class _Profile(TypedDict):
    name: str
    read_fraction: float
    block_min: int
    block_max: int
    concurrency: int

def storage_profiles() -> List[_Profile]: ...
def read_scenario(path: Union[str, PathLike[str]]) -> str: ...
def scenario_hash(text: str, overrides: List[str]) -> str: ...
def load(
    path: Union[str, PathLike[str]],
    overrides: Optional[List[str]] = None,
    data_roots: Optional[Sequence[Union[str, PathLike[str]]]] = None,
) -> PlanHandle: ...
def loads(
    text: str,
    base_dir: Optional[Union[str, PathLike[str]]] = None,
    overrides: Optional[List[str]] = None,
    data_roots: Optional[Sequence[Union[str, PathLike[str]]]] = None,
) -> PlanHandle: ...
def run(plan: PlanHandle, progress: bool = False, chunk_ps: Optional[int] = None, cc: Optional[Dict[str, type]] = None) -> _RunResults: ...
def apply_overrides(text: str, overrides: List[str]) -> str: ...
def check_override(spec: str) -> None: ...
def parse_time_ps(s: str) -> int: ...
def parse_rate_bps(s: str) -> int: ...
def parse_size_bytes(s: str) -> int: ...
def _example_results() -> _RawResults: ...
def _panic(message: str) -> None: ...
