"""Python values to TOML text (written by ``tomli_w``) and TOML text to dicts.

``dumps(d)`` writes nested dicts, lists, strings, numbers, booleans, dates and times;
``None`` values in tables are left out (unset means "use the default"), NumPy scalars
and path-like objects are written as the plain values they stand for. ``format_value(v)``
writes one value inline, as the right-hand side of a ``path=value`` override.

Override paths are not parsed here: the engine applies overrides
(``_native.apply_overrides``), so Python and ``dcsim run`` read them the same way.
"""

from __future__ import annotations

import datetime as _dt
import sys
from typing import Any, Dict, Mapping

import tomli_w

from .errors import ArgumentError

if sys.version_info >= (3, 11):
    import tomllib as _tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as _tomllib

__all__ = ["dumps", "loads", "format_value"]

_SCALARS = (bool, int, float, str, _dt.datetime, _dt.date, _dt.time)


def loads(text: str) -> Dict[str, Any]:
    try:
        return _tomllib.loads(text)
    except _tomllib.TOMLDecodeError as e:  # text the engine wrote or accepted: not expected
        from ._native import ScenarioError

        raise ScenarioError(f"scenario: {e}") from None


_MAX_DEPTH = 64


def _plain(v: Any, where: str, depth: int = 0) -> Any:
    """``v`` with NumPy scalars and path-like objects turned into plain Python values,
    ``None`` dropped from tables, and anything TOML cannot hold reported at ``where``
    (``ArgumentError``)."""
    if depth > _MAX_DEPTH:
        raise ArgumentError(f"{where}: nested more than {_MAX_DEPTH} levels deep (or contains itself)")
    if type(v).__module__ == "numpy" and callable(getattr(v, "item", None)):
        v = v.item()
    elif hasattr(v, "__fspath__"):
        v = v.__fspath__()
        if not isinstance(v, str):
            raise ArgumentError(f"{where or 'value'}: a path must be a str path, not {type(v).__name__}")
    if isinstance(v, _SCALARS):
        return v
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise ArgumentError(f"{where or 'scenario'}: TOML keys must be strings, got {type(k).__name__}")
            if x is not None:
                out[k] = _plain(x, f"{where}.{k}" if where else k, depth + 1)
        return out
    if isinstance(v, (list, tuple)):
        items = []
        for i, x in enumerate(v):
            if x is None:
                raise ArgumentError(f"{where}[{i}]: TOML arrays cannot hold None")
            items.append(_plain(x, f"{where}[{i}]", depth + 1))
        return items
    raise ArgumentError(f"{where or 'value'}: cannot write a {type(v).__name__} as TOML")


def dumps(doc: Mapping[str, Any]) -> str:
    """Writes a dict as TOML text."""
    if not isinstance(doc, Mapping):
        raise ArgumentError(f"a scenario dict must be a dict (mapping), not {type(doc).__name__}")
    return tomli_w.dumps(_plain(doc, ""))


def _inline(v: Any) -> str:
    if isinstance(v, Mapping):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {_inline(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_inline(x) for x in v) + "]"
    line = tomli_w.dumps({"v": v})
    assert line.startswith("v = ") and line.endswith("\n") and "\n" not in line[:-1], line
    return line[len("v = ") : -1]


def _key(k: str) -> str:
    line = tomli_w.dumps({k: 0})
    return line[: -len(" = 0\n")]


def format_value(v: Any, where: str = "value") -> str:
    """One TOML value written on one line (strings quoted, tables as inline tables)."""
    return _inline(_plain(v, where))
