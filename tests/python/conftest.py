import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The docs generator (dcsim.docgen) works on this checkout, whichever way dcsim is installed.
os.environ.setdefault("DCSIM_ROOT", str(REPO))


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


def interruptible() -> None:
    """``preexec_fn`` of a subprocess a test interrupts with signals: SIGINT at its default
    disposition and unblocked, as in a terminal. A shell starts background jobs (and so,
    at times, the test run) with SIGINT ignored, which Python keeps; and a thread of a
    library loaded in the test process may run with SIGINT blocked, a mask a child
    started from it inherits."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


def signal_state(pid: int) -> str:
    """The blocked, ignored and caught signal masks of a process (for failure messages)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            return " ".join(line.strip() for line in fh if line.startswith(("SigBlk", "SigIgn", "SigCgt")))
    except OSError:
        return "(no /proc)"
