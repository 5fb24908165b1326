"""The inter-process lock of the durable-file recipe (:mod:`nervous.kernel.durable`).

:class:`FileLock` is an advisory lock file holding ``{pid, host, ts}``, created whole (linked into
place from an unnamed file where the platform allows, else ``O_CREAT|O_EXCL``), with stale-lock
takeover (dead pid on this host, old lock from another host, unreadable and old) and a bounded wait
ending in :class:`nervous.errors.StorageBusy`.

It is kept apart from the atomic writes and the quarantining reader so that a command that only reads
(``perceive``) loads none of it; every name is still importable from :mod:`nervous.kernel.durable`.
"""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path

from attrs import define

from ..errors import StorageBusy, StorageError
from .durable import _ensure_dir, _unlink_quietly, _write_all

#: seconds between attempts to create a lock file (on average; each wait is jittered ±50 %)
RETRY_INTERVAL = 0.025
#: a stale-lock check runs on the first failed attempt and then on every Nth
STALE_CHECK_EVERY = 20
#: a lock from another host is stale after this many seconds
FOREIGN_LOCK_MAX_AGE = 30.0
#: an unreadable lock file (its writer died between create and write) is stale after this
UNREADABLE_LOCK_MAX_AGE = 1.0

_HOST = os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "localhost")

# ---------------------------------------------------------------------------------------------
# Lock
# ---------------------------------------------------------------------------------------------

_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock_for(path: Path) -> threading.Lock:
    """The lock file excludes processes; threads of this process also need a local lock."""
    key = os.path.abspath(path)
    with _thread_locks_guard:
        lock = _thread_locks.get(key)
        if lock is None:
            lock = _thread_locks[key] = threading.Lock()
        return lock


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    try:  # a killed child nobody has reaped yet still answers kill(0)
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return stat[stat.rfind(b")") + 2:][:1] not in (b"Z", b"X")
    except OSError:
        return True


_BOOT_TIME: list[float] = []


def process_start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (``/proc``); ``None`` where that cannot be read.

    Ticks since boot do not move when the wall clock is stepped (time synchronisation, a virtual machine
    resumed): the epoch time derived from them does, since the kernel's boot time is "now minus uptime".
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read()
        return int(stat_line[stat_line.rfind(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def boot_id() -> str | None:
    """This boot's identifier (start ticks compare only within one boot); ``None`` where it cannot be read."""
    if not _BOOT_ID:
        try:
            _BOOT_ID.append(Path("/proc/sys/kernel/random/boot_id").read_text("ascii").strip() or None)
        except (OSError, UnicodeDecodeError):
            _BOOT_ID.append(None)
    return _BOOT_ID[0]


_BOOT_ID: list[str | None] = []


def process_start_time(pid: int) -> float | None:
    """When ``pid`` started (epoch seconds, from ``/proc``); ``None`` where that cannot be read.

    A pid is reused once its process is gone: a lock naming a live pid is only that process's lock
    if the process started before the lock was written (or at the start time the lock records).
    """
    return _epoch_of(process_start_ticks(pid))


def _epoch_of(ticks: int | None) -> float | None:
    """Epoch seconds of a start in clock ticks since boot (through the kernel's boot time, which a stepped wall
    clock moves)."""
    if ticks is None:
        return None
    try:
        if not _BOOT_TIME:
            with open("/proc/stat", "rb") as fh:
                for line in fh:
                    if line.startswith(b"btime "):
                        _BOOT_TIME.append(float(line.split()[1]))
                        break
        return _BOOT_TIME[0] + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


#: slack when comparing a lock's recorded start time or timestamp with the holder's start time
#: (``btime`` is whole seconds and clock ticks are coarse)
START_TIME_SLACK = 2.0


@define
class LockHolder:
    """What a lock file says about its holder (``None`` fields when it cannot be read)."""

    raw: bytes
    pid: int | None = None
    host: str | None = None
    ts: float | None = None
    mtime: float = 0.0
    #: the holder's process start time as recorded in the lock (``None`` in older lock files)
    start: float | None = None
    #: the same in clock ticks since boot, and the boot it counts from (``None`` in older lock files)
    ticks: int | None = None
    boot: str | None = None

    @property
    def readable(self) -> bool:
        return self.pid is not None

    def describe(self) -> str:
        if self.pid is None:
            return "an unknown process (unreadable lock file)"
        where = "" if self.host in (None, _HOST) else f" on host {self.host}"
        return f"pid {self.pid}{where}"


def read_lock_holder(path: Path) -> LockHolder | None:
    """Parse a lock file; ``None`` when it does not exist."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
            mtime = os.fstat(fh.fileno()).st_mtime
    except FileNotFoundError:
        return None
    holder = LockHolder(raw, mtime=mtime)
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and isinstance(data.get("pid"), int):
            holder.pid = data["pid"]
            holder.host = str(data.get("host") or "")
            ts = data.get("ts")
            holder.ts = float(ts) if isinstance(ts, (int, float)) else mtime
            start = data.get("start")
            holder.start = float(start) if isinstance(start, (int, float)) and not isinstance(start, bool) else None
            ticks, boot = data.get("ticks"), data.get("boot")
            holder.ticks = ticks if isinstance(ticks, int) and not isinstance(ticks, bool) else None
            holder.boot = boot if isinstance(boot, str) else None
    except ValueError:
        pass
    return holder


def lock_is_stale(holder: LockHolder, now: float | None = None) -> bool:
    """Stale: dead pid on this host, another host's lock older than 30 s, or unreadable and ≥ 1 s old.

    A live pid on this host holds the lock only if it is the process that wrote it: its start time
    matches the one recorded in the lock (or, for locks without one, it started before the lock was
    written). A pid reused by an unrelated process therefore does not block writers forever.
    """
    now = time.time() if now is None else now
    if not holder.readable:
        return now - holder.mtime >= UNREADABLE_LOCK_MAX_AGE
    assert holder.pid is not None
    if holder.host == _HOST:
        if not pid_alive(holder.pid):
            return True
        if holder.ticks is not None and holder.boot is not None and holder.boot == boot_id():
            # the exact start in ticks since boot: immune to the wall clock being stepped in between
            ticks = process_start_ticks(holder.pid)
            return ticks is not None and ticks != holder.ticks
        started = process_start_time(holder.pid)
        if started is None:
            return False
        if holder.start is not None:
            return abs(started - holder.start) > START_TIME_SLACK
        written = holder.ts if holder.ts is not None else holder.mtime
        return started > written + START_TIME_SLACK
    return now - (holder.ts if holder.ts is not None else holder.mtime) > FOREIGN_LOCK_MAX_AGE


def _own_start() -> tuple[float | None, int | None]:
    """This process's start as epoch seconds and as clock ticks since boot, read once per pid (a forked child
    has its own)."""
    pid = os.getpid()
    if pid not in _OWN_START:
        ticks = process_start_ticks(pid)
        started = _epoch_of(ticks)
        _OWN_START[pid] = (None if started is None else round(started, 2), ticks)
    return _OWN_START[pid]


_OWN_START: dict[int, tuple[float | None, int | None]] = {}


def _create_with_contents(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data`` unless it exists; ``False`` when it does.

    Where the platform can (Linux ``O_TMPFILE``), the bytes are written to an unnamed file that is
    then linked into place, so the lock never exists empty: a writer killed half-way leaves nothing
    behind, and no reader ever mistakes a holder that has not written its token yet for a dead one.
    Elsewhere: ``O_CREAT|O_EXCL`` then write (an empty lock is judged stale after
    :data:`UNREADABLE_LOCK_MAX_AGE`).
    """
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if tmpfile and _TMPFILE_WORKS.get(str(path.parent), True):
        try:
            fd = os.open(path.parent, os.O_WRONLY | tmpfile, 0o600)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                _TMPFILE_WORKS[str(path.parent)] = False  # file system without unnamed files
        else:
            try:
                _write_all(fd, data)
                # through a folder descriptor: os.link() alone would call link(2), which does not
                # follow the /proc symlink; linkat(2) with AT_SYMLINK_FOLLOW does
                fds = os.open("/proc/self/fd", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
                try:
                    os.link(str(fd), path, src_dir_fd=fds, follow_symlinks=True)
                finally:
                    os.close(fds)
                return True
            except FileExistsError:
                return False
            except OSError as exc:
                if exc.errno == errno.ENOENT and os.path.isdir("/proc/self/fd"):
                    raise  # the folder itself went away
                _TMPFILE_WORKS[str(path.parent)] = False  # no /proc to link through
            finally:
                os.close(fd)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)
    return True


#: folders where unnamed files (``O_TMPFILE``) cannot be created or linked, learnt on first try
_TMPFILE_WORKS: dict[str, bool] = {}


class FileLock:
    """Exclusive access to a resource across processes (lock file) and threads (process-local lock).

    ``path`` is the lock file itself; by convention ``<file>.lock`` next to the file it protects.
    Not re-entrant. After ``timeout`` seconds raises :class:`StorageBusy` naming the lock file and
    the holder's pid.
    """

    def __init__(self, path: Path | str, *, timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._token: bytes | None = None
        self._thread_lock = _thread_lock_for(self.path)
        #: pid of a dead holder whose stale lock this acquisition took over (for cleaning its leftovers)
        self.took_over_from: list[int] = []

    @property
    def held(self) -> bool:
        return self._token is not None

    def acquire(self) -> None:
        if self._token is not None:
            raise StorageError(f"lock {self.path} is already held by this object (not re-entrant)")
        deadline = time.monotonic() + self.timeout
        if not self._thread_lock.acquire(timeout=max(self.timeout, 0.0)):
            raise StorageBusy(
                f"timed out after {self.timeout:g}s waiting for lock {self.path}: held by pid {os.getpid()} "
                "(another thread of this process)",
                details={"lock": str(self.path), "pid": os.getpid()},
            )
        try:
            self._acquire_file(deadline)
        except BaseException:
            self._thread_lock.release()
            raise

    def _acquire_file(self, deadline: float) -> None:
        _ensure_dir(self.path.parent)
        attempt = 0
        while True:
            start, ticks = _own_start()
            token = json.dumps({"pid": os.getpid(), "host": _HOST, "ts": round(time.time(), 3),
                                "start": start, "ticks": ticks, "boot": boot_id()}).encode()
            if _create_with_contents(self.path, token):
                self._token = token
                return
            attempt += 1
            if attempt == 1 or attempt % STALE_CHECK_EVERY == 0:
                holder = read_lock_holder(self.path)
                if holder is None:
                    continue  # released meanwhile: try again at once
                if lock_is_stale(holder) and self._take_over(holder):
                    continue
            if time.monotonic() >= deadline:
                holder = read_lock_holder(self.path)
                who = holder.describe() if holder is not None else "a process that has just released it"
                raise StorageBusy(
                    f"timed out after {self.timeout:g}s waiting for lock {self.path}: held by {who}",
                    details={"lock": str(self.path), "pid": holder.pid if holder else None},
                )
            time.sleep(RETRY_INTERVAL * (0.5 + (time.perf_counter_ns() % 1000) / 1000))  # jitter: waiters do not move in step

    def _take_over(self, holder: LockHolder) -> bool:
        """Remove a stale lock: rename it aside, check it is the one judged stale, delete it."""
        aside = self.path.with_name(f"{self.path.name}.stale.{os.getpid()}.{threading.get_ident()}")
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return True  # someone else removed it; retry
        try:
            with open(aside, "rb") as fh:
                moved = fh.read(4096)
        except OSError:
            moved = b""
        if moved != holder.raw:
            # A live holder replaced the stale lock between our check and the rename: put it back.
            try:
                os.link(aside, self.path)
            except OSError:
                pass
            _unlink_quietly(aside)
            return False
        _unlink_quietly(aside)
        if holder.pid is not None:
            self.took_over_from.append(holder.pid)
        return True

    def release(self) -> None:
        if self._token is None:
            return
        try:
            with open(self.path, "rb") as fh:
                ours = fh.read(4096) == self._token
            if ours:
                os.unlink(self.path)
        except FileNotFoundError:
            pass
        finally:
            self._token = None
            self._thread_lock.release()

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def remove_stale_lock(path: Path | str) -> LockHolder | None:
    """Remove the lock file at ``path`` if its holder is gone; returns that holder (else ``None``).

    The same safe takeover writers use: a lock a live process re-created meanwhile is put back.
    """
    holder = read_lock_holder(Path(path))
    if holder is None or not lock_is_stale(holder):
        return None
    return holder if FileLock(path, timeout=0)._take_over(holder) else None


__all__ = [
    "FileLock",
    "LockHolder",
    "lock_is_stale",
    "pid_alive",
    "process_start_time",
    "read_lock_holder",
    "remove_stale_lock",
]
