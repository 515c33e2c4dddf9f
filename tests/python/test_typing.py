"""Static checks as part of the suite: mypy over ``python/dcsim`` (configured in
``pyproject.toml``) and stubtest, which checks ``_native.pyi`` against the compiled
module."""

import subprocess
import sys

from conftest import REPO


def _run_module(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=900)


def test_mypy():
    p = _run_module("mypy")
    assert p.returncode == 0, f"mypy failed:\n{p.stdout}{p.stderr}"


def test_native_stub_matches_module():
    p = _run_module("mypy.stubtest", "dcsim._native")
    assert p.returncode == 0, f"stubtest failed:\n{p.stdout}{p.stderr}"
