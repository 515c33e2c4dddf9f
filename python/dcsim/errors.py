"""The exceptions of the public API, and the checks of its arguments.

Every error dcsim raises for bad input is a ``DcsimError``:

* ``ScenarioError``: the scenario (its text, a file it names, an override) is invalid;
  ``path`` names the field (or the file), ``reason`` says why.
* ``SimulationError``: a failure while running, including internal errors.
* ``ResourceError`` (a ``SimulationError``): the process could not get the memory the
  scenario needs (an address-space or cgroup limit); ``what`` names what was built.
* ``ArgumentError``: a function was called with an argument of the wrong type or form
  (also a ``TypeError`` and a ``ValueError``, so code catching those keeps working).
* ``OutputError``: results could not be written or read back; ``filename`` is the file
  (also an ``OSError``).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, Iterable, List, Optional

from ._native import DcsimError, ResourceError, ScenarioError, SimulationError

__all__ = ["DcsimError", "ScenarioError", "SimulationError", "ResourceError", "ArgumentError", "OutputError"]


class ArgumentError(DcsimError, TypeError, ValueError):
    """An argument of a dcsim function has the wrong type or form; the message names it."""


class OutputError(DcsimError, OSError):
    """Results could not be written (or read back); ``filename`` is the file or
    directory, ``strerror`` the reason."""

    def __str__(self) -> str:
        if self.filename is not None and self.strerror:
            return f"{self.filename}: {self.strerror}"
        return super().__str__()


def output_error(exc: OSError, path: "os.PathLike[str] | str") -> OutputError:
    """``exc`` (from writing or reading ``path``) as an ``OutputError`` naming the file."""
    errno = exc.errno
    reason = exc.strerror or str(exc) or type(exc).__name__
    # pyarrow's IO errors carry the errno in their text: "... Detail: [errno 28] ..."
    m = re.search(r"\[errno (\d+)\]", f"{reason} {exc}", re.IGNORECASE)
    if m:
        errno = int(m.group(1))
        reason = os.strerror(errno)
    reason = reason[:1].lower() + reason[1:]
    return OutputError(errno or 0, reason, str(path))


def _kind(value: Any) -> str:
    return type(value).__name__


def path_arg(value: Any, name: str) -> Path:
    """A file or directory argument: a non-empty ``str`` or ``os.PathLike[str]``."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a path (str or os.PathLike), not {_kind(value)}")
    if not value:
        raise ArgumentError(f"{name} must not be empty")
    if "\0" in value:
        raise ArgumentError(f"{name} must not contain a NUL character")
    return Path(value)


def str_arg(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a str, not {_kind(value)}")
    return value


def bool_arg(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ArgumentError(f"{name} must be True or False, not {_kind(value)}")
    return value


def str_list(value: Any, name: str, what: str = "a 'path=value' string") -> List[str]:
    """A list of strings from ``None``, a list, a tuple or another iterable of ``str``.
    A single ``str`` is refused: it would be taken as one override per character."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, bytearray)):
        raise ArgumentError(f"{name} must be a list of strings (each {what}), not a single {_kind(value)}")
    if isinstance(value, (dict, set, frozenset)) or not isinstance(value, Iterable):
        raise ArgumentError(f"{name} must be a list of strings (each {what}), not {_kind(value)}")
    out: List[str] = []
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise ArgumentError(f"{name}[{i}] must be {what}, not {_kind(v)}")
        out.append(v)
    return out


def path_list(value: Any, name: str) -> List[Path]:
    """``data_roots``: ``None`` or a list of directories."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, bytearray, os.PathLike)):
        raise ArgumentError(f"{name} must be a list of directories, not a single {_kind(value)}")
    if isinstance(value, (dict, set, frozenset)) or not isinstance(value, Iterable):
        raise ArgumentError(f"{name} must be a list of directories, not {_kind(value)}")
    return [path_arg(v, f"{name}[{i}]") for i, v in enumerate(value)]


def int_arg(value: Any, name: str, minimum: Optional[int] = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{name} must be an int, not {_kind(value)}")
    if minimum is not None and value < minimum:
        raise ArgumentError(f"{name} must be >= {minimum} (got {value})")
    return value


def number_arg(value: Any, name: str, lo: Optional[float] = None, hi: Optional[float] = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentError(f"{name} must be a number, not {_kind(value)}")
    v = float(value)
    if math.isnan(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ArgumentError(f"{name} must be in [{lo}, {hi}] (got {value!r})")
    return v


def number_list(value: Any, name: str, lo: Optional[float] = None, hi: Optional[float] = None) -> List[float]:
    if isinstance(value, (str, bytes, bytearray, dict, set, frozenset)) or not isinstance(value, Iterable):
        raise ArgumentError(f"{name} must be a list of numbers, not {_kind(value)}")
    return [number_arg(v, f"{name}[{i}]", lo, hi) for i, v in enumerate(value)]
