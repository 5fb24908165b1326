"""Run one call under a hard deadline: in a forked worker that is killed when the time is up.

Static analysis of hostile input must not be able to hold the caller past its time limit, whatever
the analysers do (a slow expression, a loop in a plugin). A thread cannot be stopped and a signal
does not interrupt C code, so the call runs in a child process forked for it: the child inherits the
caller's state (plugins, compiled rules) without pickling, sends back the pickled result, and is
killed with SIGKILL at the deadline. A worker stays warm between calls (:class:`Worker`) and reports
the CPU time each call used (:attr:`Worker.last_cpu`). Where ``fork`` is unavailable the call runs
in-process and the deadline is only checked afterwards.

A worker owns its process, so it may tune the cyclic garbage collector there (never in the caller's
process, which may be a host application): with ``pause_gc`` the objects inherited at fork are frozen
(never traversed again, and their memory pages stay shared with the parent) and the collector is
paused while a call runs, then the young objects it left are collected inside the call's timed
window. An analyser that builds a large syntax tree otherwise pays for repeated full traversals of
everything alive (a third of the time of a large Python module).
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import time
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """The call did not finish within its time limit and its worker was killed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not finish within {seconds:g} s")
        self.seconds = seconds


class WorkerFailed(RuntimeError):
    """The worker died without a result (killed by the system, out of memory, crashed)."""


def can_fork() -> bool:
    return hasattr(os, "fork") and os.environ.get("NERVOUS_NO_FORK") != "1"


def call_with_deadline(fn: Callable[[], T], seconds: float) -> T:
    """``fn()``, or :class:`DeadlineExceeded` once ``seconds`` have passed (the worker is then killed)."""
    if not can_fork():
        started = time.monotonic()
        result = fn()
        if time.monotonic() - started > seconds:
            raise DeadlineExceeded(seconds)
        return result
    worker = Worker(fn)
    try:
        return worker.call((), seconds)  # type: ignore[no-any-return]
    finally:
        worker.close()


class Worker:
    """A forked process that runs ``target(*args)`` for each request, warm between requests.

    The target is bound at fork time and never pickled (the child inherits it); arguments and
    results travel as pickles over two pipes. :meth:`call` kills the worker at the deadline.
    """

    def __init__(self, target: Callable[..., Any], *, pause_gc: bool = False) -> None:
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's coverage is not collected
            for fd in list(_PARENT_FDS) + [req_w, res_r]:
                try:
                    os.close(fd)
                except OSError:
                    pass
            _serve(target, req_r, res_w, pause_gc=pause_gc)
        os.close(req_r)
        os.close(res_w)
        self.pid, self._req, self._res = pid, req_w, res_r
        _PARENT_FDS.update((req_w, res_r))
        self.alive = True
        #: CPU seconds the worker spent on the last call (its own process time, measured by itself)
        self.last_cpu = 0.0

    def call(self, args: tuple[Any, ...], seconds: float) -> Any:
        deadline = time.monotonic() + seconds
        try:
            _write_frame(self._req, pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL))
            frame = _read_frame(self._res, deadline)
        except DeadlineExceeded:
            self.close(kill=True)
            raise DeadlineExceeded(seconds) from None
        except OSError as exc:
            self.close(kill=True)
            raise WorkerFailed(f"the analysis worker failed: {exc}") from None
        if frame is None:
            self.close(kill=True)
            raise WorkerFailed("the analysis worker ended without a result")
        ok, value, self.last_cpu = pickle.loads(frame)
        if ok:
            return value
        raise value

    def close(self, *, kill: bool = False) -> None:
        if not self.alive:
            return
        self.alive = False
        for fd in (self._req, self._res):
            _PARENT_FDS.discard(fd)
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            _kill(self.pid)
        else:  # the worker exits when its request pipe closes
            try:
                done, _ = os.waitpid(self.pid, os.WNOHANG)
                if not done:
                    _kill(self.pid)
            except ChildProcessError:
                pass


#: the parent's ends of every worker's pipes, closed in each new worker so none keeps another alive
_PARENT_FDS: set[int] = set()


def _serve(target: Callable[..., Any], req: int, res: int, *, pause_gc: bool = False) -> None:  # pragma: no cover
    code = 0
    if pause_gc:
        gc.freeze()  # what the worker inherited stays alive and unchanged: no collection needs to look at it
    try:
        while True:
            frame = _read_frame(req, None)
            if frame is None:
                break
            cpu = time.process_time()
            try:
                value = _call_paused(target, pickle.loads(frame)) if pause_gc else target(*pickle.loads(frame))
                payload = pickle.dumps((True, value, time.process_time() - cpu), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
                try:
                    payload = pickle.dumps((False, exc, time.process_time() - cpu), protocol=pickle.HIGHEST_PROTOCOL)
                except Exception:  # noqa: BLE001 - an exception that cannot be pickled
                    payload = pickle.dumps((False, WorkerFailed(f"{type(exc).__name__}: {exc}"),
                                            time.process_time() - cpu))
            _write_frame(res, payload)
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def _call_paused(target: Callable[..., Any], args: tuple[Any, ...]) -> Any:  # pragma: no cover
    """``target(*args)`` with the cyclic collector paused, then the youngest generation collected (every
    object the call allocated and left behind is there, so its reference cycles are freed before the next
    call; the collection is part of the call's CPU time)."""
    gc.disable()
    try:
        return target(*args)
    finally:
        gc.enable()
        gc.collect(0)


def _write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(len(payload).to_bytes(8, "big") + payload)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes | None:
    chunks: list[bytes] = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DeadlineExceeded(0)
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
        data = os.read(fd, min(n, 1 << 20))
        if not data:
            return None
        chunks.append(data)
        n -= len(data)
    return b"".join(chunks)


def _read_frame(fd: int, deadline: float | None) -> bytes | None:
    head = _read_exact(fd, 8, deadline)
    if head is None:
        return None
    return _read_exact(fd, int.from_bytes(head, "big"), deadline)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
