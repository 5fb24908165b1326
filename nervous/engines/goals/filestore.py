"""One goal document in one explicit file, for ``NERVOUS_GOALS_PATH`` (specs/goals.md §8.1).

The override names a file, not a storage key, so it bypasses the configured backend but keeps the
file backend's guarantees: an exclusive lock file, atomic replace with a ``.bak``, and corrupt
files quarantined once with the backup used instead.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...errors import NervousError, NotFound, StorageError
from ...kernel.storage import Problem, Snapshot, Store, StoreInfo, Updated, check_document

R = TypeVar("R")


def check_regular(path: Path) -> None:
    """Refuse (``bad_path``, exit 2) a goal document path that exists and is not a regular file.

    A FIFO or a device would block the read forever and a directory cannot hold a document, so
    they are never opened; a missing file is fine (it is created on the first write).
    """
    from .errors import GoalError

    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        blocker = _not_a_folder(path) if exc.errno == errno.ENOTDIR else None
        if blocker is not None:  # e.g. <data>/goals replaced by a file: say which path, and leave it as it is
            where, mode = blocker
            from ...kernel.durable import file_kind

            raise GoalError("bad_path", f"{where} is {file_kind(mode)} where a folder is expected "
                                        f"({exc.strerror or 'Not a directory'}): the goal document {path} is kept "
                                        "inside it; nothing was read or written. Move it away",
                            details={"path": str(where), "document": str(path)}) from None
        raise GoalError("bad_path", f"{path}: cannot be read ({exc.strerror or exc})",
                        details={"path": str(path)}) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe or a device)"
        raise GoalError("bad_path", f"{path} is {kind}, expected a JSON goal document; it was not opened",
                        details={"path": str(path)})


def _not_a_folder(path: Path) -> tuple[Path, int] | None:
    """The first folder of ``path`` (from the root down) that exists but is not a folder, with its mode."""
    for parent in reversed(path.parents):
        try:
            st = os.stat(parent)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return parent, st.st_mode
    return None


class SingleFileStore(Store):
    """A :class:`~nervous.kernel.storage.Store` holding exactly one document at ``path``."""

    name = "goals-file"

    def __init__(self, path: Path, *, lock_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.lock_timeout = lock_timeout

    def _lock(self) -> Any:
        from ...kernel.durable import FileLock

        return FileLock(self.path.with_name(self.path.name + ".lock"), timeout=self.lock_timeout)

    def read(self, collection: str, key: str) -> Snapshot:
        from ...kernel.durable import load_json

        check_regular(self.path)
        loaded = load_json(self.path)
        return Snapshot(loaded.value, tuple(loaded.warnings))

    def keys(self, collection: str) -> list[str]:
        return [self.path.name] if self.path.exists() else []

    def update(self, collection: str, key: str, fn: Callable[[dict[str, Any]], R], *,
               create: bool = True) -> Updated[R]:
        from ...kernel.durable import atomic_write_json, ensure_dir, load_json

        ensure_dir(self.path.parent)
        with self._lock():
            check_regular(self.path)
            loaded = load_json(self.path)
            if loaded.value is None and not create and not loaded.corrupt:
                raise NotFound(f"no goal file {self.path}")
            doc: dict[str, Any] = loaded.value if loaded.value is not None else {}
            result = fn(doc)
            check_document(doc, str(self.path))
            atomic_write_json(self.path, doc)
        return Updated(result, tuple(loaded.warnings))

    def delete(self, collection: str, key: str) -> bool:
        with self._lock():
            try:
                self.path.unlink()
            except FileNotFoundError:
                return False
        return True

    def append(self, log: str, entry: dict[str, Any]) -> None:
        raise StorageError(f"{self.path} holds one goal document and no logs")

    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        return []

    def info(self) -> StoreInfo:
        size = self.path.stat().st_size if self.path.exists() else 0
        return StoreInfo(self.name, str(self.path), 1, {"goals": 1} if size else {}, size)

    def check(self) -> list[Problem]:
        from ...kernel.durable import parse_object

        if not self.path.exists():
            return []
        try:
            check_regular(self.path)
        except NervousError as exc:  # a pipe, a device or a folder: reported, never opened
            return [Problem(str(self.path), exc.message)]
        _value, reason = parse_object(self.path.read_bytes())
        return [] if reason is None else [Problem(str(self.path), reason)]
