"""All-or-nothing multi-file commits (§9): stage, write ``ops.json``, mark ``COMMITTED``, apply, clean up.

A :class:`Transaction` is an overlay over the workspace: operations read through it, so a create
that auto-publishes sees its own new files. Nothing touches the workspace until :meth:`commit`.
Replaying a committed journal from any point converges on the same result because every operation
sets a path's final state (a staged ``write`` or a ``delete``) regardless of what is there.

``NERVOUS_EVOLVER_FAULT=<point>`` kills the process with SIGKILL at a named commit step; the
crash-consistency tests use it to stop a real process half way (points: ``staged``, ``ops``,
``committed``, ``applied-<n>``, ``cleaned``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import uuid
from pathlib import Path
from typing import Any

from ...kernel.durable import atomic_write_bytes, dumps_json, ensure_dir, fsync_dir, write_new
from .errors import EvolverError, io_error
from .names import STATE_DIR, check_rel_path, resolve_in_workspace

JOURNAL_DIR = f"{STATE_DIR}/journal"
FAULT_ENV = "NERVOUS_EVOLVER_FAULT"
_SKILL_FILE_MODE = 0o644


def fault_point(point: str) -> None:
    """Die here, hard, when the fault-injection variable names this point."""
    if os.environ.get(FAULT_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)


def _mode_for(rel: str) -> int:
    return 0o600 if rel.startswith(STATE_DIR + "/") else _SKILL_FILE_MODE


def read_regular(path: Path, rel: str) -> bytes | None:
    """The bytes of a workspace file, ``None`` when it is missing.

    The file is opened non-blocking and checked with ``fstat`` before any read: a FIFO or a device
    where a stored file is expected would block forever, so it is refused (``UNSAFE_PATH``).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise EvolverError("PATH_OUT_OF_SCOPE", f"./{rel} is a directory, expected a file") from None
    except OSError as exc:
        raise io_error(exc, f"reading ./{rel}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise EvolverError("PATH_OUT_OF_SCOPE", f"./{rel} is a directory, expected a file")
        if not stat.S_ISREG(mode):
            raise EvolverError("UNSAFE_PATH", f"./{rel} is not a regular file (a pipe or a device); "
                               "it was not read — remove it", details={"path": rel})
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise io_error(exc, f"reading ./{rel}") from None
    finally:
        os.close(fd)


class Transaction:
    """Pending file changes, readable before they are applied."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.id = uuid.uuid4().hex[:16]
        self._ops: list[dict[str, Any]] = []
        self._contents: dict[str, bytes | None] = {}  # rel path -> new bytes, or None when deleted
        self._removed_dirs: set[str] = set()

    # ------------------------------------------------------------------ reading through the overlay
    def read(self, rel: str) -> bytes | None:
        if rel in self._contents:
            return self._contents[rel]
        return read_regular(resolve_in_workspace(self.workspace, rel), rel)

    def exists(self, rel: str) -> bool:
        return self.read(rel) is not None

    def listdir(self, rel_dir: str) -> list[str]:
        """File names directly inside ``rel_dir`` as they will be after this transaction."""
        names: set[str] = set()
        full = self.workspace / rel_dir
        if rel_dir not in self._removed_dirs:
            try:
                names = {e.name for e in os.scandir(full) if e.is_file(follow_symlinks=False)}
            except (FileNotFoundError, NotADirectoryError):
                names = set()
        prefix = rel_dir.rstrip("/") + "/"
        for path, data in self._contents.items():
            if path.startswith(prefix) and "/" not in path[len(prefix):]:
                name = path[len(prefix):]
                if data is None:
                    names.discard(name)
                else:
                    names.add(name)
        return sorted(names)

    # ------------------------------------------------------------------ recording changes
    @property
    def empty(self) -> bool:
        return not self._ops

    @property
    def touched(self) -> list[str]:
        return [op["path"] for op in self._ops]

    def write(self, rel: str, data: bytes) -> None:
        check_rel_path(rel)
        self._ops.append({"op": "write", "path": rel})
        self._contents[rel] = bytes(data)

    def write_text(self, rel: str, text: str) -> None:
        self.write(rel, text.encode("utf-8"))

    def write_json(self, rel: str, value: Any) -> None:
        self.write(rel, dumps_json(value))

    def delete(self, rel: str) -> None:
        check_rel_path(rel)
        self._ops.append({"op": "delete", "path": rel})
        self._contents[rel] = None

    def move(self, src: str, dst: str) -> None:
        """Recorded as a staged write of the source's bytes plus a delete: replay-safe."""
        data = self.read(src)
        if data is None:
            raise EvolverError("INTERNAL_ERROR", f"cannot move ./{src}: it does not exist")
        self.write(dst, data)
        self.delete(src)

    def rmdir(self, rel: str) -> None:
        """Remove a skill directory once it is empty (left in place, with its other files, otherwise)."""
        check_rel_path(rel + "/SKILL.md")
        self._ops.append({"op": "rmdir", "path": rel})
        self._removed_dirs.add(rel)

    def savepoint(self) -> tuple[int, dict[str, bytes | None], set[str]]:
        return len(self._ops), dict(self._contents), set(self._removed_dirs)

    def restore(self, point: tuple[int, dict[str, bytes | None], set[str]]) -> None:
        """Forget every change recorded after ``point`` (an auto-action that failed its guards)."""
        count, contents, removed = point
        del self._ops[count:]
        self._contents = dict(contents)
        self._removed_dirs = set(removed)

    # ------------------------------------------------------------------ commit
    def commit(self) -> None:
        """Stage, write ops, mark committed (the commit point), apply, remove the journal."""
        if not self._ops:
            return
        journal = resolve_in_workspace(self.workspace, f"{JOURNAL_DIR}/{self.id}/ops.json").parent
        files = journal / "files"
        try:
            ensure_dir(files)
            staged: list[dict[str, Any]] = []
            last_write: dict[str, int] = {}
            for i, op in enumerate(self._ops):
                if op["op"] == "write":
                    last_write[op["path"]] = i
            for i, op in enumerate(self._ops):
                entry = dict(op)
                if op["op"] == "write":
                    data = self._staged_bytes(op["path"], i, last_write)
                    name = f"{i:04d}"
                    write_new(files / name, data)  # fsync'd once; the folder after all
                    entry["staged"] = name
                    entry["mode"] = _mode_for(op["path"])
                staged.append(entry)
            fsync_dir(files)
            fault_point("staged")
            atomic_write_bytes(journal / "ops.json", dumps_json({"version": 1, "tx_id": self.id, "ops": staged}),
                               backup=False)
            fault_point("ops")
            atomic_write_bytes(journal / "COMMITTED", b"", backup=False)
            fault_point("committed")
        except OSError as exc:
            _remove_tree(journal)
            raise io_error(exc, "staging a transaction") from None
        apply_journal(self.workspace, journal)

    def _staged_bytes(self, rel: str, index: int, last_write: dict[str, int]) -> bytes:
        # Only the final write of a path carries the final bytes; earlier writes of the same path are
        # overwritten later in the same replay, so they may stage the same final content.
        data = self._contents.get(rel)
        if data is None:  # written, then deleted later in the same transaction
            return b""
        return data


def apply_journal(workspace: Path, journal: Path) -> list[str]:
    """Apply a committed journal's operations in order, then remove it. Returns touched paths."""
    raw = read_regular(journal / "ops.json", f"{JOURNAL_DIR}/{journal.name}/ops.json")
    if raw is None:
        raise EvolverError("STATE_CORRUPT", f"journal {journal.name}: ops.json is missing")
    doc = json.loads(raw)
    ops = doc.get("ops") if isinstance(doc, dict) else None
    if not isinstance(ops, list):
        raise EvolverError("STATE_CORRUPT", f"journal {journal.name}: ops.json has no operation list")
    # validate every path before touching anything (a tampered journal must not write elsewhere)
    for op in ops:
        if not isinstance(op, dict) or op.get("op") not in ("write", "delete", "rmdir") \
                or not isinstance(op.get("path"), str):
            raise EvolverError("STATE_CORRUPT", f"journal {journal.name}: malformed operation {op!r}")
        rel = op["path"] if op["op"] != "rmdir" else op["path"] + "/SKILL.md"
        resolve_in_workspace(workspace, rel)
    touched = []
    for i, op in enumerate(ops):
        rel = op["path"]
        target = resolve_in_workspace(workspace, rel if op["op"] != "rmdir" else rel + "/SKILL.md")
        try:
            if op["op"] == "write":
                name = str(op.get("staged", ""))
                if not name.isdigit():
                    raise EvolverError("STATE_CORRUPT", f"journal {journal.name}: bad staged name {name!r}")
                data = read_regular(journal / "files" / name, f"{JOURNAL_DIR}/{journal.name}/files/{name}")
                if data is None:
                    raise EvolverError("STATE_CORRUPT", f"journal {journal.name}: staged file {name} is missing")
                atomic_write_bytes(target, data, backup=False, mode=int(op.get("mode", 0o600)))
            elif op["op"] == "delete":
                try:
                    os.unlink(target)
                    fsync_dir(target.parent)
                except FileNotFoundError:
                    pass
            else:
                try:
                    os.rmdir(target.parent)
                    fsync_dir(target.parent.parent)
                except (FileNotFoundError, OSError):
                    pass  # already gone, or holds files we do not own: left in place
        except OSError as exc:
            raise io_error(exc, f"applying a transaction to ./{rel}") from None
        touched.append(rel)
        fault_point(f"applied-{i}")
    _remove_tree(journal)
    fault_point("cleaned")
    return touched


def _remove_tree(path: Path) -> None:
    # remove the commit marker first: a half-removed journal must never look committed
    try:
        os.unlink(path / "COMMITTED")
    except OSError:
        pass
    shutil.rmtree(path, ignore_errors=True)
    fsync_dir(path.parent)


def pending_journals(workspace: Path) -> list[Path]:
    base = workspace / JOURNAL_DIR
    try:
        return sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink())
    except (FileNotFoundError, NotADirectoryError):
        return []


def recover(workspace: Path) -> list[dict[str, Any]]:
    """Finish committed journals and drop uncommitted ones; one report per journal found."""
    reports = []
    for journal in pending_journals(workspace):
        if (journal / "COMMITTED").exists():
            touched = apply_journal(workspace, journal)
            reports.append({"tx_id": journal.name, "action": "re-applied", "paths": touched})
        else:
            _remove_tree(journal)
            reports.append({"tx_id": journal.name, "action": "discarded", "paths": []})
    return reports
