"""Run directories written whole or not at all.

A run's files are written into a hidden staging directory beside the output directory
(``.NAME.partial-PID``) and renamed to it once every file is complete, so a directory
named like the output only ever holds a complete set: an interrupted or failed write
leaves at most the hidden staging directory (removed on the way out when the process
can still run its clean-up). The staging directory is created before the simulation,
which is how an unwritable output is found before the run rather than after it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Optional

from .errors import ArgumentError, OutputError, output_error, path_arg

__all__ = ["Staging"]

PARTIAL = ".partial-"


class Staging:
    """The staging directory of one output directory ``out``. ``overwrite`` allows an
    existing non-empty ``out``, which is replaced (cleared) when the new set is complete;
    without it such a directory is refused before anything runs."""

    def __init__(self, out: Any, *, overwrite: bool = False, name: str = "out") -> None:
        self.out = path_arg(out, name)
        if self.out.name in ("", ".", ".."):
            raise ArgumentError(f"{name}: {str(self.out)!r} does not name a directory that can be replaced")
        if self.out.exists() or self.out.is_symlink():
            if not self.out.is_dir() or self.out.is_symlink():
                raise OutputError(17, "exists and is not a directory", str(self.out))
            if any(self.out.iterdir()) and not overwrite:
                raise OutputError(
                    39, "output directory exists and is not empty (use --overwrite, or overwrite=True, to replace it)", str(self.out)
                )
        self.tmp = self.out.parent / f".{self.out.name}{PARTIAL}{os.getpid()}"
        self._done = False

    def commit(self) -> Path:
        """Renames the staging directory to ``out``, replacing what was there."""
        old: Optional[Path] = None
        try:
            if self.out.exists():
                old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
                self.out.rename(old)
            self.tmp.rename(self.out)
        except OSError as e:
            if old is not None and not self.out.exists():
                old.rename(self.out)
            raise output_error(e, self.out) from None
        self._done = True
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.out

    def discard(self) -> None:
        """Removes the staging directory (after a failure or an interruption)."""
        if not self._done:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> "Staging":
        # Made here, not in __init__: an interruption (Ctrl-C, SIGTERM) between the two
        # would leave the directory with no __exit__ to remove it.
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            if self.tmp.exists():
                shutil.rmtree(self.tmp)
            self.tmp.mkdir()
        except OSError as e:
            self.discard()
            raise output_error(e, e.filename or self.out) from None
        except BaseException:
            self.discard()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.discard()
