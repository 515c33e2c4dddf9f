import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args, cwd=None, timeout=300):
    """Runs ``python -m dcsim ARGS`` in a subprocess; returns the CompletedProcess."""
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return subprocess.run(
        [sys.executable, "-m", "dcsim", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def example_raw():
    """A results dict in the ``_native.run`` format, produced by the Rust exporter."""
    from dcsim import _native

    return _native._example_results()
