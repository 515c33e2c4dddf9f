"""``Scenario``: scenario text plus overrides, validated by the engine on demand.

A scenario always has a TOML form, so any run built in Python can be saved and replayed
with ``dcsim run``::

    sc = dcsim.Scenario.from_dict({...})
    sc.set("switch.pfc.xoff", "100KiB")
    sc.save("incast.toml")          # overrides merged into the file
    res = sc.run()
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _native, _toml
from .errors import ArgumentError, DcsimError, output_error, path_arg, path_list, str_arg, str_list

if TYPE_CHECKING:
    from .results import Results

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Scenario"]


class Scenario:
    """A scenario: TOML ``text``, the directory relative file names resolve against
    (``base_dir``), ``overrides`` (``"path=value"`` strings, applied in order) and
    ``data_roots``: directories besides ``base_dir`` (and the shipped ``data/``) that the
    files the scenario names (topology, flow and CDF files) may be in."""

    def __init__(
        self,
        text: str,
        *,
        base_dir: PathLike = ".",
        overrides: Optional[Iterable[str]] = None,
        path: Optional[PathLike] = None,
        data_roots: Optional[Iterable[PathLike]] = None,
    ) -> None:
        self._text = str_arg(text, "text")
        self._base_dir = path_arg(base_dir, "base_dir")
        self._path = path_arg(path, "path") if path is not None else None
        self._data_roots: List[Path] = path_list(data_roots, "data_roots")
        self._overrides: List[str] = []
        for o in str_list(overrides, "overrides"):
            self._add_override(o)
        self._plan: Optional[_native.PlanHandle] = None

    # -- construction -----------------------------------------------------------------

    @classmethod
    def from_file(
        cls, path: PathLike, overrides: Optional[Iterable[str]] = None, data_roots: Optional[Iterable[PathLike]] = None
    ) -> "Scenario":
        """Reads a scenario file (not yet validated; see ``validate``). A file that cannot
        be read, or is not UTF-8 text, is a ``ScenarioError`` naming it."""
        p = path_arg(path, "path")
        # Named where it was looked for: absolute, '..' resolved.
        text = _native.read_scenario(os.path.abspath(p))
        return cls(text, base_dir=p.parent, overrides=overrides, path=p, data_roots=data_roots)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], base_dir: PathLike = ".", data_roots: Optional[Iterable[PathLike]] = None) -> "Scenario":
        """Builds a scenario from a dict shaped like the TOML file (``None`` = default)."""
        return cls(_toml.dumps(d), base_dir=base_dir, data_roots=data_roots)

    # -- contents ---------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The scenario text as given, without overrides."""
        return self._text

    @property
    def path(self) -> Optional[Path]:
        """The file the scenario was read from, if any."""
        return self._path

    @property
    def base_dir(self) -> Path:
        return self._base_dir

    @property
    def data_roots(self) -> List[Path]:
        return list(self._data_roots)

    @property
    def overrides(self) -> List[str]:
        return list(self._overrides)

    def _add_override(self, spec: str) -> None:
        str_arg(spec, "override")
        _native.check_override(spec)  # raises ScenarioError if malformed
        self._overrides.append(spec)
        self._plan = None

    def set(self, path: str, value: Any) -> "Scenario":
        """Adds an override: ``value`` (a Python value, written as TOML) at ``path``
        (dotted keys, ``[i]`` for array elements: ``"traffic[0].size"``). Returns the
        scenario, so calls chain."""
        str_arg(path, "path")
        self._add_override(f"{path}={_toml.format_value(value, path)}")
        return self

    def with_overrides(self, overrides: Iterable[str]) -> "Scenario":
        """A copy with further ``path=value`` overrides."""
        new = self.copy()
        for o in str_list(overrides, "overrides"):
            new._add_override(o)
        return new

    def with_data_roots(self, data_roots: Iterable[PathLike]) -> "Scenario":
        """A copy whose files may also be in ``data_roots``."""
        new = self.copy()
        new._data_roots += path_list(data_roots, "data_roots")
        new._plan = None
        return new

    def copy(self) -> "Scenario":
        new = copy.copy(self)
        new._overrides = list(self._overrides)
        new._data_roots = list(self._data_roots)
        return new

    def _merged(self) -> str:
        """The text with the overrides applied by the engine (``ScenarioError`` if the text
        is not TOML or an override does not fit it)."""
        return _native.apply_overrides(self._text, self._overrides)

    def to_dict(self) -> Dict[str, Any]:
        """The scenario as a dict, with the overrides applied."""
        return _toml.loads(self._merged())

    def to_toml(self) -> str:
        """TOML text of the scenario with the overrides merged in (the text as given when
        there are none, comments included; otherwise the merged document with its keys
        sorted and without comments)."""
        if not self._overrides:
            return self._text
        return self._merged()

    def save(self, path: PathLike) -> Path:
        """Writes ``to_toml()`` to ``path``. Relative file names in the scenario resolve
        against the file's directory when it is loaded again."""
        p = path_arg(path, "path")
        text = self.to_toml()
        try:
            if p.parent != Path(""):
                p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        except OSError as e:
            raise output_error(e, p) from None
        return p

    # -- validation and running -------------------------------------------------------

    def validate(self) -> "_native.PlanHandle":
        """Checks the scenario with the engine; raises ``ScenarioError`` naming the field."""
        if self._plan is None:
            roots = [str(r) for r in self._data_roots]
            if self._path is not None and self._text_is_file():
                self._plan = _native.load(str(self._path), self._overrides, roots)
            else:
                self._plan = _native.loads(self._text, str(self._base_dir), self._overrides, roots)
        return self._plan

    def _text_is_file(self) -> bool:
        try:
            return _native.read_scenario(str(self._path)) == self._text
        except DcsimError:
            return False

    @property
    def plan(self) -> "_native.PlanHandle":
        return self.validate()

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def seed(self) -> int:
        return self.plan.seed

    @property
    def duration_ps(self) -> int:
        return self.plan.duration_ps

    @property
    def hash(self) -> str:
        return self.plan.hash

    def run(self, *, progress: bool = False, cc: Any = None) -> "Results":
        """Runs the scenario (``cc``: Python congestion control classes, see ``dcsim.run``)."""
        from . import run

        return run(self, progress=progress, cc=cc)

    def __repr__(self) -> str:
        src = f"path={str(self._path)!r}" if self._path else f"{len(self._text)} chars"
        ov = f", overrides={self._overrides!r}" if self._overrides else ""
        return f"Scenario({src}{ov})"


def as_scenario(scenario: Any, overrides: List[str], data_roots: List[Path], caller: str) -> Scenario:
    """What ``run`` and the functions that run a scenario take: a ``Scenario``, a file
    path or a dict, with further overrides and data roots; not validated here."""
    if isinstance(scenario, Scenario):
        sc = scenario.with_overrides(overrides) if overrides else scenario
        return sc.with_data_roots(data_roots) if data_roots else sc
    if isinstance(scenario, Mapping):
        sc = Scenario.from_dict(scenario, data_roots=data_roots)
        return sc.with_overrides(overrides) if overrides else sc
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.from_file(scenario, overrides=overrides, data_roots=data_roots)
    raise ArgumentError(f"{caller}() takes a Scenario, a path or a dict, not {type(scenario).__name__}")
