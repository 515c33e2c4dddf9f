"""Congestion control written in Python.

Subclass ``CongestionControl``, name it in a scenario table ``type = "python"`` with
``class = "<name>"`` (``[host.cc]`` or a ``[[traffic]]`` entry's ``cc``), and give the
class to ``dcsim.run(scenario, cc={"<name>": YourClass})``. One instance is made per
flow (queue pair): ``YourClass(nic, params)`` where ``params`` holds the table's other
keys. The hooks mirror the engine's ``CongestionControl`` trait:

* ``on_start(self, ctx)`` (required): the queue pair starts sending;
* at least one reaction hook: ``on_ack(self, ctx, ack)``, ``on_cnp(self, ctx)``,
  ``on_feedback(self, ctx, fb)``, ``on_timer(self, ctx, kind)``, ``on_loss(self, ctx, loss)``;
* optional ``on_send(self, ctx, wire_bytes)`` (called per packet: slow, define it only
  if needed).

Hooks set ``self.rate`` (bit/s of wire bytes; a float is rounded down) and/or
``self.window`` (bytes in flight, or None). Class attributes: ``windowed = True`` if the
algorithm limits bytes in flight, ``wants_int = True`` for HPCC-style INT records.
``ctx`` has ``now`` (ps), ``line_rate`` (bit/s), ``uniform`` (a seeded draw in [0, 1)),
``restart_timer(kind, after_ps)`` and ``cancel_timer(kind)`` for kinds 0..3.

Parameters with units: a class attribute ``units = {"ai": "rate", "period": "time",
"kmin": "size"}`` makes ``self.params`` hold those keys parsed as the scenario's own
keys are (``"40Mbps"`` -> 40000000 bit/s, ``"55us"`` -> 55000000 ps, ``"100KB"`` ->
100000 bytes; a number is kept as given); a malformed value raises ``ValueError``
naming the key.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class CongestionControl:
    """Base class of congestion control written in Python (see the module docs)."""

    #: The algorithm limits bytes in flight (``self.window``).
    windowed: bool = False
    #: The flow's data frames carry INT records for switches to stamp (``ack.int``).
    wants_int: bool = False
    #: Parameters parsed with units: key -> "rate" (bit/s), "time" (ps) or "size" (bytes).
    units: Dict[str, str] = {}

    def __init__(self, nic: Any, params: Optional[Dict[str, Any]] = None) -> None:
        self.nic = nic
        self.params: Dict[str, Any] = parse_units(dict(params or {}), self.units)
        #: Pacing rate, bit/s (starts at the line rate).
        self.rate: float = nic.line_rate
        #: Bytes in flight allowed (None: rate only).
        self.window: Optional[int] = None

    # Optional hooks: the engine calls only those a subclass defines. They are present
    # here so that a subclass can call super() and so that their signatures are documented.
    def on_send(self, ctx: Any, wire_bytes: int) -> None:
        """A packet of ``wire_bytes`` was handed to the wire."""

    def on_ack(self, ctx: Any, ack: Any) -> None:
        """An ACK or NAK arrived (``ack.newly_acked``, ``ack.rtt`` ps, ``ack.ece``,
        ``ack.nak``, ``ack.int``...)."""

    def on_loss(self, ctx: Any, loss: Any) -> None:
        """A window-based transport found a loss (``loss.kind``, ``loss.flight``)."""

    def on_cnp(self, ctx: Any) -> None:
        """A CNP for this queue pair arrived."""

    def on_feedback(self, ctx: Any, fb: Any) -> None:
        """Switch feedback: ("qcn", fb, 0), ("bcn", fb, cp), ("bcn_stop", 0, cp) or
        ("fecn_rate", rate, 0), NetworkCC's ("switch_cnp", rate or -1, cp)."""

    def on_timer(self, ctx: Any, kind: int) -> None:
        """Timer ``kind`` expired."""


def parse_units(params: Dict[str, Any], units: Dict[str, str]) -> Dict[str, Any]:
    """``params`` with the keys of ``units`` parsed: "rate" to bit/s, "time" to ps,
    "size" to bytes, as the engine parses scenario keys. Numbers are kept as given."""
    from . import _native

    parsers = {"rate": _native.parse_rate_bps, "time": _native.parse_time_ps, "size": _native.parse_size_bytes}
    for key, kind in units.items():
        if kind not in parsers:
            raise ValueError(f"units[{key!r}]: {kind!r} is not one of rate, time, size")
        v = params.get(key)
        if isinstance(v, str):
            try:
                params[key] = parsers[kind](v)
            except ValueError as e:
                raise ValueError(f"{key}: {e}") from None
    return params


def classes_arg(cc: Any) -> Optional[Dict[str, type]]:
    """``cc=`` of ``dcsim.run``: a dict name -> class, or a class / list of classes named
    by their ``__name__``."""
    from .errors import ArgumentError

    if cc is None:
        return None
    if isinstance(cc, type):
        cc = [cc]
    if isinstance(cc, dict):
        out = dict(cc)
    elif isinstance(cc, (list, tuple)):
        out = {}
        for c in cc:
            if not isinstance(c, type):
                raise ArgumentError(f"cc: expected classes, got {type(c).__name__}")
            out[c.__name__] = c
    else:
        raise ArgumentError(f"cc: expected a dict name -> class, a class or a list of classes, not {type(cc).__name__}")
    for k in out:
        if not isinstance(k, str):
            raise ArgumentError(f"cc: class names must be str, not {type(k).__name__}")
    return out
