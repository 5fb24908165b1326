"""Durable files: an inter-process lock, atomic writes with a backup, and corruption quarantine.

One recipe (``specs/goals.md`` §8) shared by the ``file`` storage backend and by every engine that
keeps its own files (the evolver's ``./.skill-evolver/``):

* :class:`FileLock` -- an advisory lock file holding ``{pid, host, ts}``, created whole (linked
  into place from an unnamed file where the platform allows, else ``O_CREAT|O_EXCL``), with
  stale-lock takeover (dead pid on this host, old lock from another host, unreadable and old) and a
  bounded wait ending in :class:`nervous.errors.StorageBusy`. It lives in :mod:`.filelock` and is
  importable from here, loaded on first use (a read takes no lock).
* :func:`atomic_write_bytes` / :func:`atomic_write_json` -- previous version kept as ``.bak``, new
  bytes written to ``<file>.tmp.<pid>``, fsync'd, renamed over the file, directory fsync'd. A
  reader therefore always sees either the old or the new file, whole.
* :func:`load_json` -- a file that does not parse (or is not a JSON object) is copied once to
  ``<file>.corrupt-<epoch ms>``, a warning names the copy, and the ``.bak`` is offered instead.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import define, field

from ..errors import BadInput, StorageError
from .lazy import lazy_names

if TYPE_CHECKING:
    from .filelock import (
        FileLock,
        lock_is_stale,
        pid_alive,
        process_start_time,
        read_lock_holder,
        remove_stale_lock,
    )

# ---------------------------------------------------------------------------------------------
# Atomic writes
# ---------------------------------------------------------------------------------------------


def _ensure_dir(path: Path) -> None:
    """Create ``path`` and missing parents with mode 0700."""
    if path.is_dir():
        return
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
    if missing:
        fsync_dir(missing[-1].parent)


def ensure_dir(path: Path | str) -> Path:
    """Create a private directory (0700) with its missing parents; returns it."""
    p = Path(path)
    _ensure_dir(p)
    return p


def fsync_dir(path: Path) -> None:
    """Make a rename or create in ``path`` durable (where the platform supports it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_synced(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``, then flushed to the disk."""
    _write_all(fd, data)
    os.fsync(fd)


def write_new(path: Path, data: bytes, mode: int = 0o600) -> None:
    """A file written and fsync'd in one go, with exactly ``mode`` (created, or truncated if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)  # the umask must not widen or narrow what we asked for
        write_synced(fd, data)
    finally:
        os.close(fd)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def tmp_path(path: Path, pid: int | None = None) -> Path:
    return path.with_name(f"{path.name}.tmp.{os.getpid() if pid is None else pid}")


def _keep_backup(path: Path, bak: Path) -> None:
    """Make ``bak`` the current version of ``path``.

    Files here are only ever replaced, never edited in place, so a hard link to the current inode
    is an exact copy that costs no data write; copying is the fallback where links are unsupported.
    """
    staging = bak.with_name(f"{bak.name}.tmp.{os.getpid()}")
    _unlink_quietly(staging)
    try:
        os.link(path, staging)
    except FileNotFoundError:
        return
    except OSError:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return
        write_new(staging, data, 0o600)
    os.replace(staging, bak)
    # rename() between two names of one inode (a crash left ``bak`` hard-linked to ``path``) does
    # nothing and leaves ``staging`` behind: remove it so no stray temporary file remains
    _unlink_quietly(staging)


def atomic_write_bytes(path: Path | str, data: bytes, *, backup: bool = True, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` so readers and crashes see the old or the new file, never a mix.

    With ``backup`` the previous version (if any) is kept as ``<path>.bak``.
    """
    path = Path(path)
    _ensure_dir(path.parent)
    if backup and path.exists():
        _keep_backup(path, backup_path(path))
    tmp = tmp_path(path)
    try:
        write_new(tmp, data, mode)
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    fsync_dir(path.parent)


#: the largest file a user names for reading (an import, a configuration file, a draft)
MAX_USER_FILE_BYTES = 64 << 20


def read_user_file(path: Path | str, *, limit: int = MAX_USER_FILE_BYTES) -> bytes:
    """Read a file the user named: a regular file of at most ``limit`` bytes.

    A pipe, a device or a folder would block or never end; they raise :class:`OSError` (``EINVAL``)
    like any unreadable file, so callers' existing ``except OSError`` reports them; so does a file
    larger than ``limit`` (``EFBIG``).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a pipe, a device or a folder)", str(path))
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_user_file(path: Path | str, data: bytes, *, force: bool = False) -> Path:
    """Write a file the user named (an export, a report) without ever destroying something by accident.

    An existing file is replaced only with ``force``; something that is not a regular file (a device,
    a FIFO, a directory, a symbolic link) is never replaced. The bytes are written to a temporary
    file next to the target first, so the target is either absent, the old file, or the whole new
    file. Raises :class:`nervous.errors.BadInput` naming the path.
    """
    path = Path(path)

    def refuse(message: str, code: str) -> BadInput:
        return BadInput(f"{path}: {message}", code=code, details={"path": str(path)})

    def existing() -> os.stat_result | None:
        try:
            return os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise refuse(f"cannot write ({exc.strerror or exc})", "unwritable_path") from None

    st = existing()
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else (
                "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file")
            raise refuse(f"exists and is {kind}; nervous never replaces it", "unsafe_path")
        if not force:
            raise refuse("already exists; pass --force to replace it", "file_exists")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o644
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}.{threading.get_ident()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:
        raise refuse(f"cannot write ({exc.strerror or exc})", "unwritable_path") from None
    try:
        try:
            write_synced(fd, data)
        finally:
            os.close(fd)
        if st is None:
            try:
                os.link(tmp, path)  # fails if the name appeared meanwhile: never replaces it
            except FileExistsError:
                raise refuse("already exists; pass --force to replace it", "file_exists") from None
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                    raise
                os.rename(tmp, path)  # a file system without hard links
        else:
            again = existing()
            if again is not None and not stat.S_ISREG(again.st_mode):
                raise refuse("was replaced by something that is not a regular file; left alone", "unsafe_path")
            os.replace(tmp, path)
    except OSError as exc:
        raise refuse(f"cannot write ({exc.strerror or exc})", "unwritable_path") from None
    finally:
        _unlink_quietly(tmp)
    fsync_dir(path.parent)
    return path


def dumps_json(value: Any) -> bytes:
    """The on-disk JSON form: UTF-8, 2-space indent, non-ASCII kept readable."""
    return (json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode("utf-8")


def atomic_write_json(path: Path | str, value: Any, *, backup: bool = True) -> None:
    atomic_write_bytes(path, dumps_json(value), backup=backup)


# ---------------------------------------------------------------------------------------------
# Loading and quarantine
# ---------------------------------------------------------------------------------------------


@define
class LoadResult:
    """A loaded JSON object (or ``None``) and what happened on the way."""

    value: dict[str, Any] | None = None
    warnings: list[str] = field(factory=list)
    corrupt: bool = False
    quarantined: Path | None = None
    restored_from_backup: bool = False


Validator = Callable[[dict[str, Any]], "str | None"]


def parse_object(raw: bytes, validate: Validator | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """``(object, None)`` or ``(None, reason)`` for bytes that should hold a JSON object.

    ``validate`` checks the object's shape (a reason, or ``None`` when it is fine): a wrong shape is
    corruption exactly like a syntax error.
    """
    try:
        value = json.loads(raw)
    except RecursionError:
        return None, "nesting too deep"
    except ValueError as exc:
        reason = "empty file" if not raw.strip() else f"invalid JSON ({exc})"
        return None, reason
    if not isinstance(value, dict):
        return None, f"top level is a JSON {type(value).__name__}, not an object"
    if validate is not None:
        try:
            problem = validate(value)
        except RecursionError:
            problem = "nesting too deep"
        if problem is not None:
            return None, f"wrong shape: {problem}"
    return value, None


def quarantine_copies(path: Path) -> list[Path]:
    """Existing ``<path>.corrupt-*`` copies, oldest first."""
    prefix = path.name + ".corrupt-"
    try:
        names = os.listdir(path.parent)
    except FileNotFoundError:
        return []
    return sorted(path.parent / n for n in names if n.startswith(prefix) and ".tmp." not in n)


def quarantine(path: Path | str) -> Path | None:
    """Copy ``path`` to ``<path>.corrupt-<epoch ms>`` once; returns the copy (new or existing).

    When a copy with the same SHA-256 exists no new copy is made, so repeated reads of the same
    corrupt file do not multiply copies. ``None`` when ``path`` does not exist.
    """
    path = Path(path)
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return None
    import hashlib

    digest = hashlib.sha256(data).digest()
    for existing in quarantine_copies(path):
        try:
            if hashlib.sha256(read_regular(existing)).digest() == digest:
                return existing
        except OSError:
            continue
    stamp = int(time.time() * 1000)
    while True:
        copy = path.with_name(f"{path.name}.corrupt-{stamp}")
        if not copy.exists():
            break
        stamp += 1
    staging = tmp_path(copy)
    try:
        write_new(staging, data, 0o600)
        os.replace(staging, copy)
    except BaseException:
        _unlink_quietly(staging)
        raise
    fsync_dir(path.parent)
    return copy


def describe_mtime(path: Path) -> str:
    try:
        t = path.stat().st_mtime
    except OSError:
        return "unknown time"
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_kind(mode: int) -> str:
    """What a file of ``mode`` is, for messages ("a directory", "a named pipe (FIFO)", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class NotRegularFile(OSError):
    """A stored file's name holds something else (a folder, a pipe, a device): never read."""

    def __init__(self, path: Path | str, mode: int) -> None:
        self.kind = file_kind(mode)
        super().__init__(errno.EINVAL, f"is {self.kind}, not a regular file", str(path))


def read_regular(path: Path | str) -> bytes:
    """All bytes of the regular file ``path``, without ever blocking on what is not one.

    A pipe, a device, a socket or a folder raises :class:`NotRegularFile` (an ``OSError``) and is
    not read: it is checked before opening, and opening is non-blocking with the check repeated on
    the open descriptor (so a pipe swapped in meanwhile cannot block either). A missing file raises
    ``FileNotFoundError`` as usual.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path, st.st_mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, st.st_mode)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def not_regular_error(path: Path | str, exc: NotRegularFile) -> StorageError:
    """The report for a stored file that is not a regular file: the store is damaged there."""
    return StorageError(f"{path} is {exc.kind}, expected a JSON file: the store is damaged there; nothing was read "
                        "from it. Move it away (a document restarts empty), or restore it from a backup",
                        code="storage_damaged", details={"path": str(path), "kind": exc.kind})


def load_json(path: Path | str, validate: Validator | None = None) -> LoadResult:
    """Load a JSON object; quarantine a corrupt file and fall back to its ``.bak``.

    Missing file: ``value=None`` and no warning. Corrupt file: one quarantine copy, a warning naming
    it, then the backup (with a warning saying later changes are lost) or ``None``. Something that is
    not a regular file (a folder, a pipe, a device) is never opened for reading: it raises
    :class:`StorageError` (``storage_damaged``) naming it.
    """
    path = Path(path)
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return LoadResult()
    except NotRegularFile as exc:
        raise not_regular_error(path, exc) from None
    value, reason = parse_object(raw, validate)
    if reason is None:
        return LoadResult(value)
    result = LoadResult(corrupt=True)
    try:
        result.quarantined = quarantine(path)
    except OSError as exc:
        result.warnings.append(f"{path} is corrupt ({reason}) and could not be quarantined: "
                               f"{exc.strerror or exc}")
    else:
        result.warnings.append(f"{path} is corrupt ({reason}); quarantined as {result.quarantined}")
    bak = backup_path(path)
    try:
        bak_raw = read_regular(bak)
    except OSError:
        bak_raw = None
    if bak_raw is not None:
        restored, _ = parse_object(bak_raw, validate)
        if restored is not None:
            result.value = restored
            result.restored_from_backup = True
            result.warnings.append(f"{path}: restored from backup of {describe_mtime(bak)}; later changes lost")
    return result


#: the lock half of the recipe, in :mod:`.filelock` (loaded on first use: a read takes no lock)
_LOCK_NAMES = ("FileLock", "LockHolder", "lock_is_stale", "pid_alive", "process_start_time", "read_lock_holder",
               "remove_stale_lock", "RETRY_INTERVAL", "STALE_CHECK_EVERY", "FOREIGN_LOCK_MAX_AGE",
               "UNREADABLE_LOCK_MAX_AGE", "START_TIME_SLACK")
__getattr__, __dir__ = lazy_names(__name__, dict.fromkeys(_LOCK_NAMES, "nervous.kernel.filelock"))


__all__ = [
    "FileLock",
    "LoadResult",
    "atomic_write_bytes",
    "atomic_write_json",
    "backup_path",
    "dumps_json",
    "ensure_dir",
    "fsync_dir",
    "file_kind",
    "load_json",
    "lock_is_stale",
    "parse_object",
    "pid_alive",
    "quarantine",
    "quarantine_copies",
    "process_start_time",
    "read_lock_holder",
    "read_regular",
    "read_user_file",
    "remove_stale_lock",
    "write_user_file",
]
