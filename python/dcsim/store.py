"""Results store: every run and sweep point as Parquet files, queried with DuckDB.

Layout of a store directory::

    runs/<run_id>.parquet           one row: run_id, the point's settings, summary metrics, error
    tables/<name>/<run_id>.parquet  the run's table ``name`` (flows, ports, ...), run_id column first

A point is written table files first and its ``runs`` row last, each file under a
hidden temporary name then renamed, so a reader never sees a half-written file and a
point is visible (in ``runs`` and in every table view) only once its row is there: a
sweep killed in the middle of a point leaves nothing of it that a query sees.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from .errors import ArgumentError, OutputError, output_error, path_arg

__all__ = ["Store", "open_store"]

RUNS = "runs"
TABLES = "tables"


def _safe(name: str, what: str) -> str:
    if not name or "/" in name or name.startswith(".") or "'" in name:
        raise ArgumentError(f"{what} {name!r} cannot name a store file")
    return name


class Store:
    """A results store directory (see the module doc). ``Store(path, create=True)``
    makes the directory; ``open_store(path)`` opens an existing one."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], *, create: bool = False, name: str = "path") -> None:
        self.path = path_arg(path, name)
        if create:
            try:
                (self.path / RUNS).mkdir(parents=True, exist_ok=True)
                (self.path / TABLES).mkdir(exist_ok=True)
            except OSError as e:
                raise output_error(e, self.path) from None
        elif not (self.path / RUNS).is_dir():
            why = "does not exist" if not self.path.exists() else "is not a results store (no runs/ directory)"
            raise OutputError(2, why, str(self.path))
        self._con: Any = None

    # -- writing ---------------------------------------------------------------------

    def discard_temporaries(self) -> int:
        """Removes the hidden temporary files a killed writer left (a sweep does this as
        it starts: one sweep writes a store at a time). Returns how many."""
        n = 0
        for sub in (RUNS, TABLES):
            for tmp in (self.path / sub).rglob(".*.tmp-*"):
                tmp.unlink(missing_ok=True)
                n += 1
        return n

    def _put(self, df: Any, dest: Path) -> None:
        tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}")
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            df.to_parquet(tmp, index=False, engine="pyarrow")
            os.replace(tmp, dest)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise output_error(e, dest) from None

    def put_tables(self, run_id: str, res: Any) -> None:
        """Writes the tables of ``res`` (a ``Results``) for ``run_id``; they are seen
        by queries once ``put_run`` has written the run's row."""
        import pandas as pd

        _safe(run_id, "run_id")
        for name in res.names:
            df = res.table(name)
            if "run_id" in df.columns:
                df = df.assign(run_id=df["run_id"].astype(str))
            else:
                df.insert(0, "run_id", pd.Series([run_id] * len(df), dtype=object))
            self._put(df, self.path / TABLES / _safe(name, "table") / f"{run_id}.parquet")

    def put_run(self, run_id: str, row: Mapping[str, Any]) -> None:
        """Writes the run's row (its settings, metrics and ``error``): the run is then
        in the store. A row written again for the same ``run_id`` replaces it."""
        import pandas as pd

        _safe(run_id, "run_id")
        rec: Dict[str, Any] = {"run_id": run_id}
        rec.update({k: v for k, v in row.items() if k != "run_id"})
        rec.setdefault("error", "")
        self._put(pd.DataFrame([rec]), self.path / RUNS / f"{run_id}.parquet")

    def drop_run(self, run_id: str) -> None:
        """Removes a run: its row, then its tables (a sweep replaces a point's failed
        row by the point's new one)."""
        _safe(run_id, "run_id")
        try:
            (self.path / RUNS / f"{run_id}.parquet").unlink(missing_ok=True)
            for d in (self.path / TABLES).glob("*"):
                (d / f"{run_id}.parquet").unlink(missing_ok=True)
        except OSError as e:
            raise output_error(e, self.path / RUNS / f"{run_id}.parquet") from None

    # -- reading ---------------------------------------------------------------------

    def table_names(self) -> List[str]:
        """The per-run tables the store holds (views of the same names)."""
        root = self.path / TABLES
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.parquet")))

    def _connect(self) -> Any:
        """A DuckDB connection whose views see the files there are now."""
        import duckdb

        if self._con is None:
            self._con = duckdb.connect()
        con = self._con
        runs = self.path / RUNS
        if any(runs.glob("*.parquet")):
            con.execute(f"CREATE OR REPLACE VIEW runs AS SELECT * FROM read_parquet('{runs}/*.parquet', union_by_name = true)")
        else:
            con.execute("CREATE OR REPLACE VIEW runs AS SELECT NULL::VARCHAR AS run_id, NULL::VARCHAR AS error WHERE false")
        for name in self.table_names():
            # Only runs whose row is written: a point killed between its tables and its
            # row is not seen.
            con.execute(
                f'CREATE OR REPLACE VIEW "{name}" AS SELECT * FROM read_parquet('
                f"'{self.path / TABLES / name}/*.parquet', union_by_name = true) "
                "WHERE run_id IN (SELECT run_id FROM runs)"
            )
        return con

    def sql(self, query: str) -> Any:
        """The result of a DuckDB SQL ``query`` over the views (``runs`` and one per
        table) as a DataFrame."""
        import duckdb

        if not isinstance(query, str) or not query.strip():
            raise ArgumentError("query must be a non-empty SQL string")
        try:
            return self._connect().execute(query).df()
        except duckdb.Error as e:
            raise ArgumentError(f"query failed: {e}") from None

    def runs(self) -> Any:
        """One row per run or sweep point, ordered by ``run_id``."""
        return self.sql("SELECT * FROM runs ORDER BY run_id")

    def table(self, name: str) -> Any:
        """The table ``name`` (flows, ports, ...) of every run, with its ``run_id``, by
        run id and in each run's row order."""
        if name not in self.table_names():
            have = ", ".join(self.table_names()) or "none"
            raise ArgumentError(f"the store has no table {name!r} (it has: {have})")
        # In each run's own row order (a plain view promises no order).
        return self.sql(
            f"SELECT * EXCLUDE (file_row_number) FROM read_parquet("
            f"'{self.path / TABLES / name}/*.parquet', union_by_name = true, file_row_number = true) "
            "WHERE run_id IN (SELECT run_id FROM runs) ORDER BY run_id, file_row_number"
        )

    def rows(self) -> Dict[str, Dict[str, Any]]:
        """Each run's row as a dict, by ``run_id`` (what a resumed sweep reuses)."""
        out: Dict[str, Dict[str, Any]] = {}
        if not any((self.path / RUNS).glob("*.parquet")):
            return out  # a new store: no need to start DuckDB (a sweep's serial start-up)
        for r in self.runs().to_dict("records"):
            out[str(r["run_id"])] = r
        return out

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"


def open_store(path: Union[str, "os.PathLike[str]"]) -> Store:
    """Opens the results store at ``path`` (written by ``dcsim run --store`` or
    ``dcsim sweep --store``): ``.runs()``, ``.table(name)`` and ``.sql(query)``
    return DataFrames. A path that is not a store is an ``OutputError``."""
    return Store(path)


def point_run_id(name: str, text: str, overrides: List[str], version: str) -> Optional[str]:
    """The run id a point will have (as ``dcsim.run`` gives it), or None when the
    scenario with these overrides cannot be hashed."""
    from ._native import DcsimError, scenario_hash
    from .results import run_id

    try:
        return run_id(name, scenario_hash(text, overrides), version)
    except DcsimError:
        return None
