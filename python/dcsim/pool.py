"""Where sweep points run: a local pool of forked processes, one per point, or Ray tasks.

Both backends run ``task(*args)`` (a module-level function returning a picklable
``(status, value)``) once per point, at most ``jobs`` at a time, and call
``done(index, status, value)`` as each finishes, where ``status`` is the task's own or
``"died"`` with a message (the process was killed, crashed, or ran over ``timeout``
seconds). A point's result depends only on its arguments, so the rows are the same
whatever the backend or the number of workers.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .errors import ArgumentError

Task = Callable[..., Tuple[str, Any]]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be so that the same clean-up runs."""


#: Signals (SIGINT, SIGTERM) that asked the program to stop, recorded by the CLI's
#: handlers. A handler's exception is lost when Python runs the handler inside a
#: finaliser (it only prints it there); the pool's loop raises it again from here.
_stop_requests: List[int] = []


def request_stop(signum: int) -> None:
    """Records a stop signal (the CLI's handlers call this before raising)."""
    _stop_requests.append(signum)


def _check_stop() -> None:
    if _stop_requests:
        raise Terminated() if _stop_requests[-1] == signal.SIGTERM else KeyboardInterrupt()


#: Longest the pool waits for a point without looking at stop requests.
_POLL_S = 0.25
Done = Callable[[int, str, Any], None]
BACKENDS = ("process", "ray")


def died(exitcode: Optional[int], memory: Optional[int]) -> str:
    """Why a point's process ended without a result."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        why = f"the point's process was killed by {name}"
        if -exitcode in (signal.SIGKILL, signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
            limit = f" (--point-memory {memory} bytes)" if memory else ""
            why += f"; out of memory{limit}?"
        return why
    return f"the point's process exited with status {exitcode} without a result"


def _timed_out(timeout: Optional[float]) -> str:
    return f"the point ran longer than --point-timeout {timeout:g} s and was stopped"


def _child(conn: Any, task: Task, args: Sequence[Any]) -> None:
    import faulthandler

    faulthandler.disable()  # a point that dies is reported in its row, not by a stack dump
    os.environ["RUST_BACKTRACE"] = "0"  # nor by the engine's (an allocation failure aborts)
    try:
        conn.send(task(*args))
    finally:
        conn.close()


def run_processes(
    task: Task,
    todo: Sequence[Tuple[int, Sequence[Any]]],
    done: Done,
    *,
    jobs: int,
    timeout: Optional[float] = None,
    memory: Optional[int] = None,
) -> None:
    """Each task in its own forked process, ``jobs`` at a time."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    ctx: Any
    try:
        ctx = mp.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        ctx = mp.get_context("spawn")
    todo = list(todo)
    running: Dict[Any, Tuple[int, Any, float]] = {}  # connection -> (index, process, deadline)
    try:
        while todo or running:
            while todo and len(running) < jobs:
                i, args = todo.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(send, task, args), daemon=True)
                proc.start()
                send.close()
                running[recv] = (i, proc, time.monotonic() + timeout if timeout else float("inf"))
            _check_stop()
            first = min(d for _, _, d in running.values())
            ready = wait(list(running), timeout=min(_POLL_S, max(first - time.monotonic(), 0)))
            _check_stop()
            now = time.monotonic()
            for conn in list(running):
                i, proc, deadline = running[conn]
                if conn not in ready and now < deadline:
                    continue
                del running[conn]
                status: str
                value: Any
                if conn in ready:
                    try:
                        status, value = conn.recv()
                    except (EOFError, OSError):
                        status, value = "died", None
                else:
                    proc.kill()
                    status, value = "died", _timed_out(timeout)
                conn.close()
                proc.join()
                if status == "died" and value is None:
                    value = died(proc.exitcode, memory)
                done(i, status, value)
    finally:
        for conn, (_, proc, _) in running.items():
            proc.terminate()
            proc.join()
            conn.close()


def ray_init(address: Optional[str], cpus: Optional[int] = None) -> bool:
    """Imports and starts Ray (``ray.init(address=...)``; without an address, a local
    Ray of ``cpus`` CPUs on loopback, with no dashboard and no usage report), or raises
    ``ArgumentError`` naming the option that asked for it. True if this call started
    or joined Ray (the caller then ends it with ``ray_shutdown``), False if Ray was
    already initialised (by the caller's own program: left as it is)."""
    try:
        import ray
    except ImportError:
        raise ArgumentError("--backend ray: Ray is not installed (pip install 'dcsim[ray]')") from None
    if ray.is_initialized():
        return False
    if address and address != "auto":
        _probe(address)
    local: Dict[str, Any] = {}
    if not address:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        local = {"num_cpus": cpus, "_node_ip_address": "127.0.0.1"}
    try:
        ray.init(
            address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, configure_logging=False, **local
        )
    except Exception as e:  # noqa: BLE001 - ray raises many kinds for an unreachable cluster
        where = f"--ray-address {address}" if address else "--backend ray (local)"
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ArgumentError(f"{where}: cannot start or reach Ray: {first}") from None
    return True


def ray_shutdown() -> None:
    """Disconnects from Ray; a local Ray started by ``ray_init`` stops with its processes."""
    import ray

    ray.shutdown()


def _probe(address: str) -> None:
    """Fails at once for a ``host:port`` nobody listens on (``ray.init`` would retry
    for minutes)."""
    import socket

    host, _, port = address.split("://")[-1].rpartition(":")
    if not host or not port.isdigit():
        raise ArgumentError(f"--ray-address {address}: expected host:port (or ray://host:port, auto)")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        raise ArgumentError(f"--ray-address {address}: cannot start or reach Ray: {e.strerror or e}") from None


def _ray_task(task: Task, args: Sequence[Any]) -> Tuple[str, Any]:
    os.environ["RUST_BACKTRACE"] = "0"
    return task(*args)


def run_ray(
    task: Task,
    todo: Sequence[Tuple[int, Sequence[Any]]],
    done: Done,
    *,
    jobs: int,
    timeout: Optional[float] = None,
    address: Optional[str] = None,
) -> None:
    """Each task as a Ray task in a fresh worker process (``max_calls=1``: a point's
    memory limit or crash does not outlive it), ``jobs`` in flight at a time."""
    import ray

    ray_init(address, jobs)  # a no-op when the caller has started it
    remote = ray.remote(max_calls=1, max_retries=0)(_ray_task)
    todo = list(todo)
    running: Dict[Any, Tuple[int, float]] = {}  # object ref -> (index, deadline)
    try:
        while todo or running:
            while todo and len(running) < jobs:
                i, args = todo.pop(0)
                running[remote.remote(task, args)] = (i, time.monotonic() + timeout if timeout else float("inf"))
            first = min(d for _, d in running.values())
            wait_s = None if first == float("inf") else max(first - time.monotonic(), 0)
            ready, _ = ray.wait(list(running), num_returns=1, timeout=wait_s)
            now = time.monotonic()
            for ref in list(running):
                i, deadline = running[ref]
                if ref not in ready and now < deadline:
                    continue
                del running[ref]
                if ref in ready:
                    try:
                        status, value = ray.get(ref)
                    except ray.exceptions.RayError as e:
                        first_line = (str(e).strip().splitlines() or [type(e).__name__])[0]
                        status, value = "died", f"the point's Ray task failed: {type(e).__name__}: {first_line}"
                else:
                    ray.cancel(ref, force=True)
                    status, value = "died", _timed_out(timeout)
                done(i, status, value)
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
