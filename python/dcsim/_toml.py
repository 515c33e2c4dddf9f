"""A small TOML writer (the subset scenario files use).

``dumps(d)`` turns nested dicts, lists, strings, numbers and booleans into TOML text that
``tomllib`` reads back to an equal dict. ``None`` values are left out (unset means
"use the default"). Dates and times are written in ISO form.

Override paths are not parsed here: the engine applies overrides
(``_native.apply_overrides``), so Python and ``dcsim run`` read them the same way.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any, Dict, List, Mapping

try:  # Python 3.11+
    import tomllib as _tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.9/3.10
    import tomli as _tomllib  # type: ignore[no-redef]

__all__ = ["dumps", "loads", "format_value"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def loads(text: str) -> Dict[str, Any]:
    return _tomllib.loads(text)


def _plain(v: Any) -> Any:
    """numpy scalars and path-like objects to plain Python values."""
    if hasattr(v, "item") and callable(v.item) and type(v).__module__ == "numpy":
        return v.item()
    if hasattr(v, "__fspath__"):
        return str(v.__fspath__())
    return v


def format_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"TOML keys must be strings, got {type(key).__name__} {key!r}")
    return key if _BARE_KEY.match(key) else _format_str(key)


def _format_str(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _format_float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = repr(x)
    if "." not in s and "e" not in s and "E" not in s:
        s += ".0"
    return s


def format_value(v: Any, where: str = "value") -> str:
    """One TOML value written inline (strings quoted, tables as inline tables)."""
    v = _plain(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _format_float(v)
    if isinstance(v, str):
        return _format_str(v)
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    if isinstance(v, Mapping):
        items = [
            f"{format_key(k)} = {format_value(x, f'{where}.{k}')}" for k, x in v.items() if x is not None
        ]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(v, (list, tuple)):
        items = []
        for i, x in enumerate(v):
            if x is None:
                raise ValueError(f"{where}[{i}]: TOML arrays cannot hold None")
            items.append(format_value(x, f"{where}[{i}]"))
        return "[" + ", ".join(items) + "]"
    raise TypeError(f"{where}: cannot write a {type(v).__name__} as TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(_plain(x), Mapping) for x in v)


def _emit_table(lines: List[str], prefix: str, table: Mapping, header: str | None) -> None:
    scalars, tables, arrays = [], [], []
    for k, v in table.items():
        v = _plain(v)
        if v is None:
            continue
        if isinstance(v, Mapping):
            tables.append((k, v))
        elif _is_table_array(v):
            arrays.append((k, v))
        else:
            scalars.append((k, v))
    if header is not None and (scalars or not (tables or arrays)):
        if lines:
            lines.append("")
        lines.append(header)
    for k, v in scalars:
        where = f"{prefix}.{k}" if prefix else str(k)
        lines.append(f"{format_key(k)} = {format_value(v, where)}")
    for k, v in tables:
        name = f"{prefix}.{format_key(k)}" if prefix else format_key(k)
        _emit_table(lines, name, v, f"[{name}]")
    for k, v in arrays:
        name = f"{prefix}.{format_key(k)}" if prefix else format_key(k)
        for item in v:
            if lines:
                lines.append("")
            lines.append(f"[[{name}]]")
            _emit_table(lines, name, _plain(item), None)


def dumps(doc: Mapping[str, Any]) -> str:
    """Writes a dict as TOML text."""
    if not isinstance(doc, Mapping):
        raise TypeError(f"a TOML document is a dict, got {type(doc).__name__}")
    lines: List[str] = []
    _emit_table(lines, "", doc, None)
    return "\n".join(lines) + "\n"
