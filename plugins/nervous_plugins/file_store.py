"""The ``file`` storage backend (default): human-readable JSON files with the durable-file recipe.

Layout under the root (``[storage] path``, default the user data directory)::

    .nervous-store.json             {"schema_version": 1}
    <collection>/<key>.json         one document (key segments split on "/")
    <collection>/<key>.json.lock    the document's lock while an update runs
    <collection>/<key>.json.bak     the previous version
    logs/<log>.jsonl                append-only log, one JSON object per line

so the skill cortex (collection ``skill-cortex``, key ``cortex``) lives at
``<data dir>/skill-cortex/cortex.json``. Key segments that are not plain file names
(``[A-Za-z0-9._-]+``, not ``.`` or ``..``) are percent-encoded, so any key maps to a file inside the
root and back. Directory segments never contain a literal dot, so they cannot collide with
document files or their ``.lock``/``.bak`` companions.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nervous.errors import BadInput, NotFound, StorageError, UnsupportedVersion
from nervous.plugin import (
    SCHEMA_VERSION,
    R,
    Snapshot,
    Store,
    check_collection,
    check_document,
    check_key,
    shape_validator,
    toolkit,
)
from nervous.plugin.toolkit import (
    NotRegularFile,
    atomic_write_bytes,
    atomic_write_json,
    backup_path,
    dumps_json,
    ensure_dir,
    file_kind,
    fsync_dir,
    load_json,
    parse_object,
    read_regular,
)

if TYPE_CHECKING:  # write and maintenance records: loaded by the methods that return them (reads need none)
    from nervous.plugin import Problem, StoreInfo, Updated
    from nervous.plugin.toolkit import FileLock

# The lock helpers are reached through ``toolkit.<name>``, which loads them on first use: a read
# takes no lock.

MARKER = ".nervous-store.json"
LOGS_DIR = "logs"
DOC_SUFFIX = ".json"
LOG_SUFFIX = ".jsonl"
#: longest encoded file-name segment (most file systems allow 255 bytes; leave room for suffixes)
MAX_SEGMENT = 200

_PLAIN = re.compile(r"^[A-Za-z0-9._-]+\Z")
_PLAIN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# patterns of the write and maintenance paths (``re`` compiles them on first use; a read needs none)
_TMP_RE = r"\.tmp\.(\d+)$"
_CORRUPT_RE = r"\.corrupt-\d+$"
#: the temporary files this store's writers make (this release and older ones): ``<file>.tmp.<pid>``
#: and ``<file>.bak.tmp.<pid>`` next to a document (``.json``) or a log (``.jsonl``)
_STRAY_RE = r"^(?P<file>[^/]+\.jsonl?)(?:\.bak)?\.tmp\.(?P<pid>\d+)$"

#: migrations of the on-disk layout: MIGRATIONS[i] upgrades a store from version i + 1 to i + 2
MIGRATIONS: list[Callable[[Path], None]] = []


def _damaged_at(path: Path, kind: str) -> StorageError:
    return StorageError(f"{path} is {kind}, not a file this store wrote: the store is damaged there; nothing was "
                        "read from or written to it. Move it away, or restore it from a backup",
                        code="storage_damaged", details={"path": str(path), "kind": kind})


def _encode_segment(seg: str, *, directory: bool) -> str:
    plain = _PLAIN.match(seg) and seg not in (".", "..") and not (directory and "." in seg)
    if plain:
        return seg
    out = []
    for ch in seg:
        if ch in _PLAIN_CHARS or (ch == "." and not directory and seg not in (".", "..")):
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out)


def encode_key(key: str) -> list[str]:
    """File-name segments for a key (the last one without the ``.json`` suffix)."""
    segments = key.split("/")
    if any(s == "" for s in segments):
        segments = [key]  # empty segments: keep the whole key as one encoded name
    encoded = [_encode_segment(s, directory=i < len(segments) - 1) for i, s in enumerate(segments)]
    for e in encoded:
        if len(e) > MAX_SEGMENT:
            raise BadInput(f"document key {key!r} is too long for the file backend: a segment encodes to "
                           f"{len(e)} characters (at most {MAX_SEGMENT}); use shorter '/'-separated parts")
    return encoded


def decode_key(segments: list[str]) -> str:
    from urllib.parse import unquote

    return "/".join(unquote(s, errors="strict") for s in segments)


class FileStore(Store):
    """JSON documents on disk; one lock file per document; logs as fsync'd JSON lines."""

    name = "file"

    def __init__(self, root: Path | str, *, lock_timeout: float = 5.0) -> None:
        self.root = Path(root).expanduser().absolute()
        self.lock_timeout = lock_timeout
        self._pending_warnings: list[str] = []
        self._opened = False
        if self.root.exists() and not self.root.is_dir():
            raise StorageError(f"storage path {self.root} exists and is not a directory")
        if self.root.exists():
            self._ensure_open()
        # else: a store nobody has written yet reads as empty, and is created by the first write,
        # so read-only commands leave a fresh home untouched

    def _ensure_open(self) -> None:
        """Create the store (directory and marker) if needed and check its version; once."""
        if self._opened:
            return
        ensure_dir(self.root)
        self._open_marker()
        self._opened = True

    # ------------------------------------------------------------------ marker and versions

    def _open_marker(self) -> None:
        marker = self.root / MARKER
        version = self._read_marker(marker)
        if version is None:
            # Several processes may open a brand-new store at once: decide and write under the lock,
            # re-reading there, so a marker another process just wrote is read rather than judged.
            with toolkit.FileLock(self.root / (MARKER + ".lock"), timeout=self.lock_timeout):
                version = self._read_marker(marker)
                if version is None:
                    atomic_write_json(marker, {"schema_version": SCHEMA_VERSION}, backup=False)
                    return
        if version > SCHEMA_VERSION:
            raise UnsupportedVersion(
                f"{marker}: schema_version {version} was written by a newer nervous (this release reads up "
                f"to {SCHEMA_VERSION}); upgrade nervous. The store was not modified."
            )
        while version < SCHEMA_VERSION:
            with toolkit.FileLock(self.root / (MARKER + ".lock"), timeout=self.lock_timeout):
                MIGRATIONS[version - 1](self.root)
                version += 1
                atomic_write_json(marker, {"schema_version": version})

    def _read_marker(self, marker: Path) -> int | None:
        """The marker's schema version, or None when the store is new (or its marker was unreadable)."""
        loaded = load_json(marker)
        self._pending_warnings.extend(w for w in loaded.warnings if w not in self._pending_warnings)
        if loaded.value is None:
            return None
        version = loaded.value.get("schema_version") if isinstance(loaded.value, dict) else None
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise StorageError(f"{marker}: schema_version {version!r} is not a positive integer: the store marker is "
                               "damaged; nothing was modified. Fix the file (this release writes "
                               f'{{"schema_version": {SCHEMA_VERSION}}}) or restore it from a backup',
                               code="storage_damaged", details={"path": str(marker), "schema_version": version})
        return version

    # ------------------------------------------------------------------ paths

    def document_path(self, collection: str, key: str) -> Path:
        """Where a document lives (it need not exist)."""
        check_collection(collection)
        check_key(key)
        *dirs, last = encode_key(key)
        path = self.root.joinpath(collection, *dirs, last + DOC_SUFFIX)
        if self.root not in path.parents:  # cannot happen with the encoding above; never write outside
            raise BadInput(f"document key {key!r} would leave the store root {self.root}")
        return path

    def log_path(self, log: str) -> Path:
        return self.root / LOGS_DIR / (check_collection(log) + LOG_SUFFIX)

    def _collection_dir(self, collection: str) -> Path:
        return self.root / check_collection(collection)

    def _lock(self, path: Path) -> FileLock:
        return toolkit.FileLock(path.with_name(path.name + ".lock"), timeout=self.lock_timeout)

    # ------------------------------------------------------------------ documents

    def read(self, collection: str, key: str) -> Snapshot:
        path = self.document_path(collection, key)
        loaded = load_json(path, shape_validator(collection))
        return Snapshot(loaded.value, tuple(loaded.warnings))

    def keys(self, collection: str) -> list[str]:
        base = self._collection_dir(collection)
        return sorted(self._walk_keys(base))

    def _walk_keys(self, base: Path) -> list[str]:
        found = []
        for dirpath, _dirnames, filenames in os.walk(base):
            rel = Path(dirpath).relative_to(base).parts
            for name in filenames:
                if name.endswith(DOC_SUFFIX):
                    try:
                        found.append(decode_key([*rel, name[: -len(DOC_SUFFIX)]]))
                    except UnicodeDecodeError:
                        continue  # not a file this backend wrote
        return found

    def update(self, collection: str, key: str, fn: Callable[[dict[str, Any]], R], *,
               create: bool = True) -> Updated[R]:
        path = self.document_path(collection, key)
        self._ensure_open()
        with self._lock(path) as lock:
            if lock.took_over_from:
                self._clear_leftovers(path)
            loaded = load_json(path, shape_validator(collection))
            warnings = list(loaded.warnings)
            if loaded.value is None and not loaded.corrupt and not create:
                raise NotFound(f"no document {collection}/{key}")
            doc: dict[str, Any] = loaded.value if loaded.value is not None else {}
            result = fn(doc)
            check_document(doc, f"{collection}/{key}")
            try:
                data = dumps_json(doc)
            except (TypeError, ValueError) as exc:
                raise BadInput(f"{collection}/{key}: document is not JSON-serialisable: {exc}") from None
            # never let a corrupt file overwrite a good backup
            atomic_write_bytes(path, data, backup=not loaded.corrupt)
            if loaded.corrupt:
                source = "its backup" if loaded.restored_from_backup else "an empty document"
                warnings.append(f"{path}: rebuilt from {source} and replaced the corrupt file")
        from nervous.plugin import Updated

        return Updated(result, tuple(warnings))

    @staticmethod
    def _clear_leftovers(path: Path) -> None:
        """After taking over a dead writer's lock, remove the temporary files dead writers left.

        Called with the lock held, so no live process is writing this document; a chain of writers
        killed one after another is cleaned in one pass.
        """
        prefix = path.name + "."
        try:
            names = os.listdir(path.parent)
        except FileNotFoundError:
            return
        for name in names:
            m = re.search(_TMP_RE, name)
            if name.startswith(prefix) and m and not toolkit.pid_alive(int(m.group(1))):
                (path.parent / name).unlink(missing_ok=True)

    def delete(self, collection: str, key: str) -> bool:
        path = self.document_path(collection, key)
        if not self.root.exists():
            return False
        with self._lock(path) as lock:
            if lock.took_over_from:
                self._clear_leftovers(path)
            existed = path.exists()
            path.unlink(missing_ok=True)
            backup_path(path).unlink(missing_ok=True)  # a later document must not restore this one
            if existed:
                fsync_dir(path.parent)
        return existed

    # ------------------------------------------------------------------ logs

    def append(self, log: str, entry: dict[str, Any]) -> None:
        path = self.log_path(log)
        check_document(entry, f"log {log}")
        import json

        line = (json.dumps(entry, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
        self._ensure_open()
        ensure_dir(path.parent)
        with self._lock(path):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                pass
            else:
                if not stat.S_ISREG(st.st_mode):
                    raise _damaged_at(path, file_kind(st.st_mode))
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NONBLOCK", 0), 0o600)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise _damaged_at(path, file_kind(st.st_mode))
                size = st.st_size
                if size == 0:
                    os.fchmod(fd, 0o600)
                    fsync_dir(path.parent)
                else:
                    self._repair_torn_tail(fd, size, path)
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)

    def _repair_torn_tail(self, fd: int, size: int, path: Path) -> None:
        """A crash mid-append leaves a last line without newline: cut it off before appending."""
        if os.pread(fd, 1, size - 1) == b"\n":
            return
        start = max(0, size - 65536)
        while True:
            chunk = os.pread(fd, size - start, start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            if start == 0:
                keep = 0
                break
            start = max(0, start - 65536)
        os.ftruncate(fd, keep)
        os.fsync(fd)
        self._pending_warnings.append(
            f"{path}: removed an incomplete last line ({size - keep} bytes) left by an interrupted append")

    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        path = self.log_path(log)
        entries, warnings = _parse_log(path)
        self._pending_warnings.extend(warnings)
        return entries[-limit:] if limit else entries

    # ------------------------------------------------------------------ administration

    def pop_warnings(self) -> list[str]:
        out, self._pending_warnings = self._pending_warnings, []
        return out

    def _collection_dirs(self, *, folders: bool = True) -> list[Path]:
        """The root's collection folders (and the logs folder); with ``folders=False``, what holds such a
        name but is not a folder (a file where a collection's folder belongs)."""
        try:
            names = sorted(os.listdir(self.root))
        except FileNotFoundError:
            return []
        return [self.root / n for n in names
                if (self.root / n).is_dir() == folders and re.match(r"^[a-z][a-z0-9_-]{0,63}$", n)]

    def info(self) -> StoreInfo:
        collections: dict[str, int] = {}
        size = 0
        for d in self._collection_dirs():
            n = len(self._walk_keys(d))
            if n:
                collections[d.name] = n
            size += _tree_size(d)
        logs: dict[str, int] = {}
        logs_dir = self.root / LOGS_DIR
        if logs_dir.is_dir():
            for name in sorted(os.listdir(logs_dir)):
                if name.endswith(LOG_SUFFIX):
                    try:
                        raw = read_regular(logs_dir / name)
                    except NotRegularFile as exc:
                        self._pending_warnings.append(f"{logs_dir / name} is {exc.kind}, not a log file; not read")
                        continue
                    logs[name[: -len(LOG_SUFFIX)]] = raw.count(b"\n")
        marker = self.root / MARKER
        size += marker.stat().st_size if marker.exists() else 0
        version = self._marker_version()
        from nervous.plugin import StoreInfo

        return StoreInfo("file", str(self.root), version, collections, size, logs)

    def _marker_version(self) -> int:
        try:
            raw = read_regular(self.root / MARKER)
        except OSError:
            raw = b""
        value, _ = parse_object(raw)
        v = value.get("schema_version") if value else None
        return v if isinstance(v, int) else SCHEMA_VERSION

    def check(self) -> list[Problem]:
        from nervous.plugin import Problem

        problems: list[Problem] = []
        if not self.root.exists():
            return problems  # nothing written yet: nothing can be damaged
        marker = self.root / MARKER
        try:
            value, reason = parse_object(read_regular(marker))
        except FileNotFoundError:
            value, reason = None, "missing"
        except NotRegularFile as exc:
            value, reason = None, f"it is {exc.kind}, not a file"
        except OSError as exc:
            value, reason = None, f"cannot be read ({exc.strerror or exc})"
        if reason is None and value is not None:
            version = value.get("schema_version")
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                reason = f"schema_version {version!r} is not a positive integer"
        if reason is not None:
            problems.append(Problem(str(marker), f"store marker unreadable: {reason}"))
        for p in self._collection_dirs(folders=False):  # e.g. data/goals replaced by a file: every goal unreachable
            try:
                mode = os.stat(p).st_mode
            except OSError:  # a dangling link
                mode = os.lstat(p).st_mode
            what = "logs folder" if p.name == LOGS_DIR else f"folder of the collection {p.name!r}"
            problems.append(Problem(str(p), f"is {file_kind(mode)} where the store keeps its {what}; nothing of it "
                                            "can be read or written: move it away"))
        now = time.time()

        def unreadable(err: OSError) -> None:  # os.walk skips a folder it cannot list: a check must say so
            problems.append(Problem(str(err.filename), f"cannot be read ({err.strerror or err}); nothing in it "
                                                       "was checked"))

        for d in self._collection_dirs():
            for dirpath, dirs, files in os.walk(d, onerror=unreadable):
                for name in sorted(dirs):
                    if name.endswith((DOC_SUFFIX, LOG_SUFFIX)):  # (our folder names never hold a dot)
                        problems.append(Problem(str(Path(dirpath) / name),
                                                "is a directory where a document or log file belongs; the store "
                                                "cannot read or write that file: move it away"))
                for name in sorted(files):
                    p = Path(dirpath) / name
                    problems.extend(self._check_file(p, name, now, is_log_dir=d.name == LOGS_DIR,
                                                     collection=d.name))
        return problems

    def repair(self) -> list[Problem]:
        """Remove the stray temporary files interrupted writers left (this release's or an older one's).

        Only what :meth:`check` reports as stray is touched, and only when it is certainly ours: a
        regular file (never a link or folder) inside a collection folder of this store, named
        ``<file>.tmp.<pid>`` or ``<file>.bak.tmp.<pid>`` after a ``.json``/``.jsonl`` file, whose writer
        is gone (or silent for ten minutes), removed while holding that file's lock so no writer of
        this store is using it. Returns one entry per file removed.
        """
        import stat

        from nervous.plugin import Problem

        removed: list[Problem] = []
        for d in self._collection_dirs():
            for dirpath, _dirs, files in os.walk(d):
                for name in sorted(files):
                    m = re.match(_STRAY_RE, name)
                    if m is None:
                        continue
                    p = Path(dirpath) / name
                    pid = int(m.group("pid"))
                    with self._lock(Path(dirpath) / m.group("file")):
                        try:
                            st = os.lstat(p)
                        except FileNotFoundError:
                            continue
                        if not stat.S_ISREG(st.st_mode):
                            continue
                        if toolkit.pid_alive(pid) and time.time() - st.st_mtime < 600:
                            continue  # a write in progress (by a process that does not take our locks)
                        p.unlink(missing_ok=True)
                    removed.append(Problem(str(p), f"removed stray temporary file left by interrupted writer "
                                                   f"pid {pid}"))
        return removed

    def _check_file(self, p: Path, name: str, now: float, *, is_log_dir: bool,
                    collection: str | None = None) -> list[Problem]:
        from nervous.plugin import Problem

        try:
            mode = os.stat(p).st_mode
        except OSError:
            mode = stat.S_IFREG  # (gone meanwhile, or a dangling link: the checks below say what they find)
        if not stat.S_ISREG(mode):
            return [Problem(str(p), f"is {file_kind(mode)}, not a file this store wrote; it is never read: move "
                                    "it away")]
        tmp = re.search(_TMP_RE, name)
        if tmp:
            pid = int(tmp.group(1))
            if toolkit.pid_alive(pid) and now - _mtime(p) < 600:
                return []  # a write in progress
            return [Problem(str(p), f"stray temporary file left by interrupted writer pid {pid}; safe to delete")]
        if re.search(_CORRUPT_RE, name):
            return [Problem(str(p), "quarantined copy of a corrupt document; inspect it, then delete it")]
        if name.endswith(".lock"):
            holder = toolkit.read_lock_holder(p)
            if holder is not None and toolkit.lock_is_stale(holder):
                return [Problem(str(p), f"stale lock left by {holder.describe()}; the next writer takes it over")]
            return []
        if is_log_dir and name.endswith(LOG_SUFFIX):
            _entries, warnings = _parse_log(p)
            return [Problem(str(p), w.split(": ", 1)[-1]) for w in warnings]
        if name.endswith(DOC_SUFFIX):
            try:
                raw = read_regular(p)
            except FileNotFoundError:
                return []
            except OSError as exc:
                return [Problem(str(p), f"cannot be read ({exc.strerror or exc})")]
            _value, reason = parse_object(raw, shape_validator(collection) if collection else None)
            if reason is not None:
                return [Problem(str(p), f"document does not parse: {reason}")]
        return []

    def close(self) -> None:
        pass


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _tree_size(d: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(d):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _parse_log(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Entries of a JSON-lines log; a torn last line or a damaged line is skipped with a warning."""
    import json

    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return [], []
    except NotRegularFile as exc:
        return [], [f"{path}: is {exc.kind}, not a log file; not read (move it away)"]
    entries: list[dict[str, Any]] = []
    warnings: list[str] = []
    lines = raw.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    if tail:
        warnings.append(f"{path}: ignored an incomplete last line ({len(tail)} bytes) left by an interrupted "
                        "append; the next append removes it")
    damaged: list[int] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if not isinstance(entry, dict):
            damaged.append(n)
            continue
        entries.append(entry)
    if damaged:  # one warning however many: a log of garbage must not become megabytes of warnings
        shown = ", ".join(map(str, damaged[:10])) + (f" and {len(damaged) - 10} more" if len(damaged) > 10 else "")
        which = f"line {shown} is" if len(damaged) == 1 else f"{len(damaged)} lines are"
        warnings.append(f"{path}: {which} not a JSON object{f' (lines {shown})' if len(damaged) > 1 else ''}; skipped")
    return entries, warnings


# ---------------------------------------------------------------------------------------------
# Plugin
# ---------------------------------------------------------------------------------------------


def open_store(path: str | Path, lock_timeout: float = 5.0) -> FileStore:
    """Open (creating if needed) a file store rooted at ``path``."""
    return FileStore(path, lock_timeout=lock_timeout)


def corrupt_document(store: Store, collection: str, key: str) -> None:
    """Damage a stored document the way a crash of a non-atomic writer would (for the conformance suite)."""
    assert isinstance(store, FileStore)
    path = store.document_path(collection, key)
    data = path.read_bytes()
    path.write_bytes(data[: max(1, len(data) // 2)])


def _factory(ctx: Any) -> FileStore:
    cfg = ctx.config.storage
    root = Path(cfg.path).expanduser() if cfg.path else ctx.paths.data_dir
    return FileStore(root, lock_timeout=cfg.lock_timeout)




def write_schema_version(store: Store, version: int) -> None:
    """Record ``version`` in the store's marker, as another release would (for the conformance suite)."""
    assert isinstance(store, FileStore)
    atomic_write_json(store.root / MARKER, {"schema_version": version}, backup=False)
