"""A small TOML writer (the subset scenario files use) and dotted-path overrides.

``dumps(d)`` turns nested dicts, lists, strings, numbers and booleans into TOML text that
``tomllib`` reads back to an equal dict. ``None`` values are left out (unset means
"use the default"). Dates and times are written in ISO form.
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

__all__ = ["dumps", "loads", "format_value", "parse_value", "apply_override", "split_override"]

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


def parse_value(text: str) -> Any:
    """An override value: TOML if it parses as one (``40``, ``true``, ``"x"``, ``[1, 2]``),
    otherwise the bare text as a string (``40Gbps``)."""
    try:
        return _tomllib.loads(f"v = {text}")["v"]
    except Exception:
        return text


def split_override(spec: str) -> tuple:
    """``"a.b=value"`` -> ``("a.b", "value")``; raises ValueError without ``=``."""
    path, sep, value = spec.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ValueError(f"override '{spec}' is not of the form path=value")
    return path, value.strip()


def apply_override(doc: Dict[str, Any], path: str, value: Any) -> None:
    """Sets ``value`` at dotted ``path`` in ``doc`` (numeric segments index arrays),
    creating tables on the way."""
    parts = path.split(".")
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ValueError(f"{where}: no such array element")
            idx: Any = int(part)
        elif isinstance(node, dict):
            idx = part
        else:
            raise ValueError(f"{where}: parent is not a table")
        if last:
            node[idx] = value
        else:
            if isinstance(node, dict) and idx not in node:
                node[idx] = {}
            node = node[idx]
