"""``Results``: the tables of a run as pandas DataFrames, plus the summary.

The engine hands numeric columns over as NumPy arrays (``uint64``, ``int64``,
``float64``) that own the engine's buffers, with no per-element conversion, and each
table's DataFrame shares them. String columns arrive as lists. The rates table, the
longest of a long run, arrives packed (``PackedTable``, half the bytes of its columns):
it is unpacked when first read, and written to a file a slice at a time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from .errors import ArgumentError, OutputError, bool_arg, number_arg, number_list, output_error, path_arg, str_arg

__all__ = ["Results", "TABLES", "column_to_array", "load_run", "run_id", "table_to_frame"]

#: Tables every run reports (some may be empty when their statistics are off).
TABLES: Tuple[str, ...] = ("flows", "ports", "pfc_events", "samples", "goodput", "nodes", "links")

_FORMATS = ("parquet", "csv")


def column_to_array(col: Any) -> np.ndarray:
    """One column in the native format -> a NumPy array."""
    if isinstance(col, np.ndarray):
        return col
    if isinstance(col, list):
        return np.array(col, dtype=object)
    raise TypeError(f"unexpected column of type {type(col).__name__}")


def table_to_frame(table: Mapping[str, Any]) -> pd.DataFrame:
    """One table in the native format -> a DataFrame (columns in engine order) that
    shares the arrays' memory: a long run's tables (hundreds of MiB) are not held twice,
    as pandas' default copy of a dict of arrays would hold them."""
    data = {name: column_to_array(col) for name, col in table.items()}
    return pd.DataFrame(data, copy=False) if data else pd.DataFrame()


#: Rows per slice of a packed table written to a file (a parquet row group each): 6 MiB
#: of columns, where slices of 2^20 rows (pyarrow's default row group) held 50 MB more
#: while the rates of 30 ms of k = 16 were written.
_WRITE_ROWS = 1 << 18


def _packed(table: Any) -> bool:
    """A table the engine handed over packed (``PackedTable``), not yet unpacked."""
    return not isinstance(table, Mapping) and hasattr(table, "take")


class NoSuchTable(ArgumentError, KeyError):
    """A table name the results do not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Results:
    """What one run produced. Tables are converted to DataFrames on first access."""

    def __init__(self, raw: Mapping[str, Any], scenario: Optional[Any] = None) -> None:
        self._raw_tables: Dict[str, Any] = dict(raw.get("tables", {}))
        summary = raw.get("summary", "{}")
        self._summary: Dict[str, Any] = json.loads(summary) if isinstance(summary, str) else dict(summary)
        self._frames: Dict[str, pd.DataFrame] = {}
        self.events: Optional[int] = raw.get("events")
        self.wall_s: Optional[float] = raw.get("wall_s")
        self.scenario = scenario

    @classmethod
    def from_frames(cls, frames: Mapping[str, pd.DataFrame], summary: Mapping[str, Any], scenario: Optional[Any] = None) -> "Results":
        """Results from DataFrames already built (``load_run`` uses it)."""
        res = cls({"tables": {}, "summary": dict(summary), "events": summary.get("events")}, scenario=scenario)
        for name, df in frames.items():
            res._raw_tables[name] = {c: df[c].to_numpy() for c in df.columns}
            res._frames[name] = df
        return res

    def equals(self, other: "Results") -> bool:
        """Same tables (names, columns, dtypes, values; NaN equal to NaN) and summary."""
        if self.names != other.names or self.summary != other.summary:
            return False
        return all(self.table(n).equals(other.table(n)) for n in self.names)

    # -- access -------------------------------------------------------------------

    @property
    def names(self) -> List[str]:
        """Names of the tables present: the standard ones first, then the others by name
        (the order ``load_run`` gives back)."""
        std = [t for t in TABLES if t in self._raw_tables]
        return std + sorted(t for t in self._raw_tables if t not in TABLES)

    def table(self, name: str) -> pd.DataFrame:
        """The table ``name`` as a DataFrame. A standard table the run did not produce is
        an empty DataFrame; an unknown name is an ``ArgumentError`` (also a KeyError)."""
        str_arg(name, "name")
        if name not in self._frames:
            if name in self._raw_tables:
                if _packed(self._raw_tables[name]):
                    self._raw_tables[name] = self._raw_tables[name].take()
                self._frames[name] = self._decorate(name, table_to_frame(self._raw_tables[name]))
            elif name in TABLES:
                self._frames[name] = pd.DataFrame()
            else:
                raise NoSuchTable(f"no table {name!r} (tables: {', '.join(self.names)})")
        return self._frames[name]

    def _decorate(self, name: str, df: pd.DataFrame) -> pd.DataFrame:
        """A table as the engine gave it, plus what makes it data on its own: the run id
        first (when the run has one), and for ``samples`` and ``pfc_events`` the node and
        peer names of the port (``port_id`` looked up in ``ports``)."""
        if name in ("samples", "pfc_events") and "port_id" in df.columns and "peer" not in df.columns:
            ports = self.table("ports")
            df = df.drop(columns=["node"], errors="ignore")
            pos = list(df.columns).index("port_id") + 1
            for col in ("peer", "node"):
                df.insert(pos, col, _port_names(ports, col, df["port_id"].to_numpy()))
        names = self._summary.get("group_names")
        if name == "flows" and names and "group" in df.columns and "group_name" not in df.columns:
            # The [[traffic]] entry's name beside its index (``name``, or type and index).
            codes = df["group"].to_numpy().astype(np.int64)
            df.insert(list(df.columns).index("group") + 1, "group_name", pd.Categorical.from_codes(codes, list(names)))
        run_id = self._summary.get("run_id")
        if run_id is not None and "run_id" not in df.columns:
            df.insert(0, "run_id", pd.Categorical.from_codes(np.zeros(len(df), dtype=np.int8), [str(run_id)]))
        return df

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.table(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    @property
    def summary(self) -> Dict[str, Any]:
        return self._summary

    @property
    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    @property
    def ports(self) -> pd.DataFrame:
        return self.table("ports")

    @property
    def pfc_events(self) -> pd.DataFrame:
        return self.table("pfc_events")

    @property
    def samples(self) -> pd.DataFrame:
        return self.table("samples")

    @property
    def goodput(self) -> pd.DataFrame:
        return self.table("goodput")

    @property
    def nodes(self) -> pd.DataFrame:
        return self.table("nodes")

    @property
    def links(self) -> pd.DataFrame:
        return self.table("links")

    @property
    def congestion(self) -> pd.DataFrame:
        """Congestion points: per congested (switch port, priority) its role, times, marks
        and the (source, destination) pairs that crossed it while congested."""
        return self.table("congestion")

    @property
    def congestion_intervals(self) -> pd.DataFrame:
        return self.table("congestion_intervals")

    @property
    def rates(self) -> pd.DataFrame:
        """Rate changes of queue pairs (congestion control): time, flow, rate."""
        return self.table("rates")

    # -- analysis (dcsim.analysis) ----------------------------------------------

    def aggregate(self) -> Dict[str, float]:
        """Aggregate delivered goodput (total and steady), host capacity, Gb/s."""
        from . import analysis

        return analysis.aggregate(self)

    def link_utilization(self) -> pd.DataFrame:
        """Per port (link direction): kind, rate, utilisation, data Gb/s."""
        from . import analysis

        return analysis.link_utilization(self)

    def pause_by_port(self) -> pd.DataFrame:
        """Per (port, priority): PFC paused time and fraction of the run."""
        from . import analysis

        return analysis.pause_by_port(self)

    def pause_intervals(self) -> pd.DataFrame:
        """Per PFC pause of a (port, priority): its start and end, from ``pfc_events``."""
        from . import analysis

        return analysis.pause_intervals(self)

    def pause_by_switch(self, hosts: bool = False) -> pd.DataFrame:
        """Per switch (every one, zero if never paused): paused time summed over its
        ports, pause fraction; ``hosts=True`` adds the paused hosts after them."""
        from . import analysis

        return analysis.pause_by_switch(self, hosts=bool_arg(hosts, "hosts"))

    def victims(self) -> pd.DataFrame:
        """Flows ranked by the PFC pause time they suffered without causing it."""
        from . import analysis

        return analysis.victims(self)

    def fct_by_group(self, percentiles: Sequence[float] = (50, 95, 99), groups: Any = None) -> pd.DataFrame:
        """FCT and slowdown statistics per traffic group (finite flows); ``groups``
        chooses groups by name and pools them (``dcsim.analysis.Groups``)."""
        from . import analysis

        return analysis.fct_by_group(self, number_list(percentiles, "percentiles", 0, 100), groups=groups)

    def fct_by_size(
        self,
        *,
        bins: Optional[int] = None,
        share: float = 0.05,
        edges: Optional[Sequence[float]] = None,
        percentiles: Sequence[float] = (50, 95, 99),
        by_group: bool = True,
        groups: Any = None,
    ) -> pd.DataFrame:
        """Slowdown percentiles per flow-size bin and traffic group, with the flow count
        per bin: equal-count bins of ``share`` (5 %) of the flows by default, ``bins=N``
        equal-count bins, or fixed size ``edges`` (bytes). See
        ``dcsim.analysis.fct_by_size``."""
        from . import analysis

        if bins is not None:
            from .errors import int_arg

            int_arg(bins, "bins", 1)
        return analysis.fct_by_size(
            self,
            bins=bins,
            share=number_arg(share, "share", 0, 1),
            edges=None if edges is None else number_list(edges, "edges", 0),
            percentiles=number_list(percentiles, "percentiles", 0, 100),
            by_group=bool_arg(by_group, "by_group"),
            groups=groups,
        )

    # -- output -------------------------------------------------------------------

    def write(self, out_dir: Union[str, "os.PathLike[str]"], fmt: str = "parquet", *, overwrite: bool = False) -> Dict[str, Path]:
        """Writes one file per table (``flows.parquet`` ... or ``.csv``), ``summary.json``
        and, when the scenario is known, ``scenario.toml`` (overrides merged) so the run
        can be replayed. Returns ``{name: path}`` of the files written.

        The files are written into a hidden directory beside ``out_dir`` and renamed to it
        at the end, so ``out_dir`` never holds a partial set. An existing ``out_dir`` that
        is not empty is refused (``OutputError``) unless ``overwrite``, which replaces it.
        A file that cannot be written is an ``OutputError`` naming it."""
        from .output import Staging

        if fmt not in _FORMATS:
            raise ArgumentError(f"fmt must be one of {', '.join(_FORMATS)}, not {fmt!r}")
        bool_arg(overwrite, "overwrite")
        with Staging(out_dir, overwrite=overwrite, name="out_dir") as st:
            written = self.write_files(st.tmp, fmt)
            out = st.commit()
        return {k: out / p.name for k, p in written.items()}

    def write_files(self, out: Path, fmt: str) -> Dict[str, Path]:
        """Writes the files into the existing directory ``out`` (no staging; ``write``
        and ``dcsim run`` stage). IO errors are ``OutputError`` naming the file."""
        written: Dict[str, Path] = {}

        def put(name: str, p: Path, write: Any) -> None:
            try:
                write(p)
            except OSError as e:
                raise output_error(e, p) from None
            written[name] = p

        for name in self.names:
            if name not in self._frames and _packed(self._raw_tables[name]):
                put(name, out / f"{name}.{fmt}", lambda p, name=name: self._write_packed(name, p, fmt))
                continue
            df = self.table(name)
            if fmt == "parquet":
                put(name, out / f"{name}.parquet", lambda p, df=df: df.to_parquet(p, index=False, engine="pyarrow"))
            else:
                put(name, out / f"{name}.csv", lambda p, df=df: df.to_csv(p, index=False))
        summary = json.dumps(self._summary, indent=2, default=_json_default) + "\n"
        put("summary", out / "summary.json", lambda p: p.write_text(summary, encoding="utf-8"))
        if self.scenario is not None and hasattr(self.scenario, "to_toml"):
            text = _scenario_text(self.scenario)
            put("scenario", out / "scenario.toml", lambda p: p.write_text(text, encoding="utf-8"))
        return written

    def _write_packed(self, name: str, path: Path, fmt: str) -> None:
        """Writes the packed table ``name`` a slice at a time, each unpacked and let go in
        turn: the same table as its DataFrame's file (in row groups of ``_WRITE_ROWS``
        rows), without holding its columns whole."""
        packed = self._raw_tables[name]
        n = len(packed)
        frames = (self._decorate(name, table_to_frame(packed.slice(s, s + _WRITE_ROWS))) for s in (range(0, n, _WRITE_ROWS) if n else [0]))
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            writer = None
            try:
                for df in frames:
                    t = pa.Table.from_pandas(df, preserve_index=False)
                    if writer is None:
                        writer = pq.ParquetWriter(path, t.schema)
                    writer.write_table(t)
            finally:
                if writer is not None:
                    writer.close()
        else:
            for i, df in enumerate(frames):
                df.to_csv(path, index=False, mode="w" if i == 0 else "a", header=i == 0)

    def __repr__(self) -> str:
        parts = []
        for name in self.names:
            t = self._raw_tables[name]
            rows = _rows(t)
            parts.append(f"{name}={rows}")
        return f"Results({', '.join(parts)})"


def _port_names(ports: pd.DataFrame, col: str, port_ids: np.ndarray) -> pd.Categorical:
    """``ports[col]`` (``node`` or ``peer``) of each port id, as a categorical column:
    one code per row, the names once."""
    if not len(ports):
        return pd.Categorical.from_codes(np.full(len(port_ids), -1, dtype=np.int32), [])
    by_port = ports.drop_duplicates("port_id").set_index("port_id")[col]
    names = sorted(set(by_port.astype(str)))
    code = {n: i for i, n in enumerate(names)}
    lut = np.full(int(by_port.index.max()) + 1, -1, dtype=np.int32)
    lut[by_port.index.to_numpy(dtype=np.int64)] = [code[str(v)] for v in by_port.to_numpy()]
    return pd.Categorical.from_codes(lut[port_ids.astype(np.int64)], names)


def run_id(name: str, scenario_hash: str, version: str) -> str:
    """The id of a run: the scenario name and 12 hex digits of a hash of the scenario
    text with its overrides (``scenario_hash``: the seed included) and the engine
    version. The same scenario, overrides and version give the same id, as they give the
    same results."""
    h = 0xCBF29CE484222325
    for b in f"{scenario_hash}\0{version}".encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{name}-{h:016x}"[: len(name) + 13]


def _rows(table: Any) -> int:
    if _packed(table):
        return len(table)
    for col in table.values():
        return len(col)
    return 0


def _scenario_text(scenario: Any) -> str:
    """The scenario with its overrides merged; if the text cannot be re-serialised, the
    text as given, preceded by the overrides as comments."""
    try:
        return scenario.to_toml()
    except Exception:  # noqa: BLE001 - never lose the results over the scenario copy
        head = "".join(f"# --set {o}\n" for o in getattr(scenario, "overrides", []))
        return head + scenario.text


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"{type(o).__name__} is not JSON serializable")


def _read_table(path: Path) -> pd.DataFrame:
    if path.suffix == ".parquet":
        df = pd.read_parquet(path, engine="pyarrow")
    else:
        df = pd.read_csv(path, keep_default_na=False, na_values=["", "NaN", "nan"])
    return df


def load_run(run_dir: Union[str, "os.PathLike[str]"]) -> Results:
    """The ``Results`` of a run directory written by ``dcsim run`` or ``Results.write``:
    every table file (``.parquet`` or ``.csv``), ``summary.json`` and, if present,
    ``scenario.toml`` as ``res.scenario``. From Parquet the tables are equal to the run's,
    dtypes included; CSV keeps the values but not the unsigned integer types. A directory
    without ``summary.json``, or a file that cannot be read, is an ``OutputError``
    naming it."""
    d = path_arg(run_dir, "run_dir")
    summary_file = d / "summary.json"
    if not summary_file.is_file():
        raise OutputError(2, "not a run directory (no summary.json)", os.path.abspath(d))
    try:
        summary = json.loads(summary_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise OutputError(0, f"cannot be read: {e}", str(summary_file)) from None
    if not isinstance(summary, dict):
        raise OutputError(0, "is not a run summary (not a JSON object)", str(summary_file))
    found: Dict[str, Path] = {}
    for p in sorted(d.iterdir()):
        if p.suffix in (".parquet", ".csv") and p.stem not in found:
            found[p.stem] = p
    order = [t for t in TABLES if t in found] + [t for t in found if t not in TABLES]
    frames = {}
    for name in order:
        try:
            frames[name] = _read_table(found[name])
        except (OSError, ValueError) as e:  # pyarrow and pandas parse errors are ValueErrors
            raise OutputError(0, f"cannot be read: {str(e).splitlines()[0] if str(e) else type(e).__name__}", str(found[name])) from None
    scenario = None
    sc_file = d / "scenario.toml"
    if sc_file.is_file():
        from .scenario import Scenario

        scenario = Scenario.from_file(sc_file)
    res = Results.from_frames(frames, summary, scenario)
    # The columns the Python layer adds (run id, port names) are categorical; a file
    # keeps their values but not always their categories (an empty table, CSV): they
    # are rebuilt as the run built them.
    for name in res.names:
        df = res._frames[name]
        drop = ["run_id"] + (["node", "peer"] if name in ("samples", "pfc_events") and "peer" in df.columns else [])
        if name == "flows" and summary.get("group_names"):
            drop.append("group_name")
        res._frames[name] = res._decorate(name, df.drop(columns=[c for c in drop if c in df.columns]))
    return res
