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

if sys.version_info >= (3, 11):
    import tomllib as _tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as _tomllib

__all__ = ["dumps", "loads", "format_value"]

_SCALARS = (bool, int, float, str, _dt.datetime, _dt.date, _dt.time)


def loads(text: str) -> Dict[str, Any]:
    return _tomllib.loads(text)


def _plain(v: Any, where: str) -> Any:
    """``v`` with NumPy scalars and path-like objects turned into plain Python values,
    ``None`` dropped from tables, and anything TOML cannot hold reported at ``where``."""
    if type(v).__module__ == "numpy" and callable(getattr(v, "item", None)):
        v = v.item()
    elif hasattr(v, "__fspath__"):
        v = str(v.__fspath__())
    if isinstance(v, _SCALARS):
        return v
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: TOML keys must be strings, got {type(k).__name__} {k!r}")
            if x is not None:
                out[k] = _plain(x, f"{where}.{k}" if where else k)
        return out
    if isinstance(v, (list, tuple)):
        items = []
        for i, x in enumerate(v):
            if x is None:
                raise ValueError(f"{where}[{i}]: TOML arrays cannot hold None")
            items.append(_plain(x, f"{where}[{i}]"))
        return items
    raise TypeError(f"{where or 'value'}: cannot write a {type(v).__name__} as TOML")


def dumps(doc: Mapping[str, Any]) -> str:
    """Writes a dict as TOML text."""
    if not isinstance(doc, Mapping):
        raise TypeError(f"a TOML document is a dict, got {type(doc).__name__}")
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
    return line[len("v = "):-1]


def _key(k: str) -> str:
    line = tomli_w.dumps({k: 0})
    return line[: -len(" = 0\n")]


def format_value(v: Any, where: str = "value") -> str:
    """One TOML value written on one line (strings quoted, tables as inline tables)."""
    return _inline(_plain(v, where))
