"""The ``sqlite`` storage backend: one database file, the standard library's sqlite3.

WAL journal (readers never block the writer), ``synchronous=FULL`` (a committed update survives a
crash or power loss), ``BEGIN IMMEDIATE`` for every read-modify-write (the write lock is taken
before the document is read, so two processes cannot both read the old version), and a busy
timeout equal to ``[storage] lock_timeout``. Each document row keeps its previous version, the
equivalent of the file backend's ``.bak``; a body that does not parse is copied once into the
``quarantine`` table, reported, and replaced at the next update.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import wraps
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from nervous.errors import BadInput, NotFound, StorageBusy, StorageError, UnsupportedVersion
from nervous.plugin import (
    Problem,
    R,
    Snapshot,
    Store,
    StoreInfo,
    Updated,
    check_collection,
    check_document,
    check_key,
    shape_validator,
)
from nervous.plugin.toolkit import ensure_dir, parse_object

DEFAULT_FILE = "nervous.sqlite3"

#: the columns of each table this release reads and writes
_COLUMNS = {
    "meta": ("key", "value"),
    "documents": ("collection", "key", "body", "updated_at", "previous", "previous_at"),
    "log_entries": ("id", "log", "entry"),
    "quarantine": ("id", "collection", "key", "body", "sha256", "reason", "quarantined_at"),
}

#: how long ``close()`` waits for statements running in other threads before leaving the closing to them
CLOSE_WAIT = 5.0

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _guarded(method: Callable[_P, _T]) -> Callable[_P, _T]:
    """Run a store method as one "use" of the store: refused once the store is closed, and never racing
    :meth:`SqliteStore.close` (which would close a connection under a running statement: a crash in
    SQLite). A SQLite error that escapes is reported as a storage error (the lock: ``storage_busy``)."""

    @wraps(method)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        self = args[0]
        assert isinstance(self, SqliteStore)
        with self._use():
            try:
                return method(*args, **kwargs)
            except sqlite3.OperationalError as exc:
                raise self._busy(exc) from None
            except sqlite3.DatabaseError as exc:
                raise self._unreadable(exc, "cannot use") from None
            except sqlite3.ProgrammingError as exc:  # (a connection closed under us: only after close())
                raise StorageError(f"sqlite store {self.path}: {exc}") from None

    return run


def _as_bytes(body: Any) -> bytes | None:
    """The bytes of a stored TEXT value; None for anything else (a BLOB, a number written by another tool)."""
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    return None


def _parse_body(body: Any, validate: Any = None) -> tuple[dict[str, Any] | None, str | None]:
    raw = _as_bytes(body)
    if raw is None:
        kind = "a BLOB" if isinstance(body, bytes | bytearray | memoryview) else f"a {type(body).__name__}"
        return None, f"stored as {kind}, not JSON text"
    return parse_object(raw, validate)


def _v1(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE documents (collection TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL,"
        " updated_at REAL NOT NULL, previous TEXT, previous_at REAL, PRIMARY KEY (collection, key))"
        " WITHOUT ROWID"
    )
    conn.execute("CREATE TABLE log_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, log TEXT NOT NULL,"
                 " entry TEXT NOT NULL)")
    conn.execute("CREATE INDEX log_entries_by_log ON log_entries (log, id)")
    conn.execute(
        "CREATE TABLE quarantine (id INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL,"
        " key TEXT NOT NULL, body TEXT NOT NULL, sha256 TEXT NOT NULL, reason TEXT NOT NULL,"
        " quarantined_at REAL NOT NULL, UNIQUE (collection, key, sha256))"
    )


#: the tables every schema version has
_TABLES = ("meta", "documents", "log_entries", "quarantine")

#: MIGRATIONS[i] brings a database from schema version i to i + 1 (0 = empty file)
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1]


def _when(t: float | None) -> str:
    if t is None:
        return "unknown time"
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class SqliteStore(Store):
    """Documents and logs in one SQLite database; one connection per thread."""

    name = "sqlite"

    def __init__(self, path: Path | str, *, lock_timeout: float = 5.0) -> None:
        self.path = Path(path).expanduser().absolute()
        self.lock_timeout = lock_timeout
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._pending_warnings: list[str] = []
        self._ready = False
        self._open_lock = threading.Lock()
        # close() against running statements: uses in progress, and whether the store is closed
        self._state = threading.Condition(threading.Lock())
        self._active = 0
        self._closed = False
        self._depth = threading.local()
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError:
            mode = None  # (an unreadable folder: the opening below reports it, with its errno)
        if mode is not None and not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a device or a pipe, not a regular file"
            raise BadInput(f"sqlite storage path {self.path} is {kind}; give the name of a database file",
                           code="bad_path", details={"path": str(self.path)})
        # the database is created by the first write: a read-only command leaves a fresh home untouched
        try:
            with self._use():
                try:
                    self._open(create=False)
                except sqlite3.OperationalError as exc:
                    raise self._busy(exc) from None
                except sqlite3.DatabaseError as exc:
                    raise self._unreadable(exc, "cannot open") from None
        except BaseException:
            self.close()
            raise

    @contextmanager
    def _use(self) -> Iterator[None]:
        """One use of the store's connections (see :func:`_guarded`)."""
        with self._state:
            if self._closed:
                raise StorageError(f"sqlite store {self.path} is closed", code="storage_closed",
                                   details={"path": str(self.path)})
            self._active += 1
        self._depth.n = getattr(self._depth, "n", 0) + 1
        try:
            yield
        finally:
            self._depth.n -= 1
            conns: list[sqlite3.Connection] = []
            with self._state:
                self._active -= 1
                if self._active == 0:
                    if self._closed:  # close() was called meanwhile: the last user closes the connections
                        conns, self._all = self._all, []
                    self._state.notify_all()
            self._close_all(conns)

    @staticmethod
    def _close_all(conns: list[sqlite3.Connection]) -> None:
        for c in conns:
            try:
                c.close()
            except sqlite3.Error:
                pass

    def _open(self, *, create: bool) -> bool:
        """Open (and migrate) the database; create it only when ``create``. False: there is none yet."""
        if self._ready:
            return True
        with self._open_lock:
            if self._ready:
                return True
            if not self._exists():
                if not create:
                    return False
                ensure_dir(self.path.parent)
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            elif self._empty_file():
                self._pending_warnings.append(
                    f"{self.path} was an empty (0-byte) file; a new empty store was created in it. If it held "
                    "data, it was truncated outside nervous: restore it from a backup")
            self._migrate()
            self._check_tables()
            self._ready = True
        return True

    def _exists(self) -> bool:
        """Whether the database file exists (an unreadable folder is an error, not "no database")."""
        try:
            os.lstat(self.path)
        except FileNotFoundError:
            return False
        return True

    def _empty_file(self) -> bool:
        """A zero-length database with no write-ahead log: SQLite would silently treat it as new."""
        try:
            if os.stat(self.path).st_size:
                return False
            return os.stat(f"{self.path}-wal").st_size == 0
        except FileNotFoundError:
            return True
        except OSError:
            return False

    def _unreadable(self, exc: sqlite3.DatabaseError, what: str) -> StorageError:
        """A file that is not a SQLite database (or a damaged one) is a damaged store, like one whose tables were
        dropped: said so, and left as it is."""
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
            return self._busy(exc)
        if "not a database" in str(exc) or "malformed" in str(exc):
            return StorageError(f"{what} sqlite store {self.path}: {exc}; restore it from a backup, or point [storage] "
                                "path at a new file", code="storage_damaged", details={"path": str(self.path)})
        return StorageError(f"{what} sqlite store {self.path}: {exc}")

    def _missing_tables(self) -> list[str]:
        names = {r[0] for r in self._conn().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return [t for t in _TABLES if t not in names]

    def _check_tables(self) -> None:
        """A database whose tables or columns were dropped or renamed is damaged: say so instead of failing on
        every query."""
        try:
            missing = self._missing_tables()
            if missing:
                raise self._damaged(f"table(s) {', '.join(missing)} missing", missing_tables=missing)
            conn = self._conn()
            for table, wanted in _COLUMNS.items():
                have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
                lost = [c for c in wanted if c not in have]
                if lost:
                    raise self._damaged(f"table {table} has no column(s) {', '.join(lost)}",
                                        table=table, missing_columns=lost)
        except sqlite3.OperationalError as exc:
            raise self._busy(exc) from None
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc, "cannot read") from None

    # ------------------------------------------------------------------ connections

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            return conn
        try:
            conn = sqlite3.connect(self.path, timeout=self.lock_timeout, isolation_level=None,
                                   check_same_thread=False)
            self._enable_wal(conn)
            conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc, "cannot open") from None
        self._local.conn, self._local.pid = conn, os.getpid()
        with self._guard:
            self._all.append(conn)
        return conn

    def _enable_wal(self, conn: sqlite3.Connection) -> None:
        """Switch a new database to WAL (persistent, so only the first opener does it).

        Changing the journal mode does not wait on the busy timeout: when several processes open
        a fresh store at once, the losers get "database is locked" at once, so retry until the
        lock timeout like any other wait for the lock.
        """
        import time

        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _begin(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise self._busy(exc) from None

    def _busy(self, exc: sqlite3.OperationalError) -> StorageError:
        if "locked" in str(exc) or "busy" in str(exc):
            return StorageBusy(f"timed out after {self.lock_timeout:g}s ([storage] lock_timeout) waiting for the lock "
                               f"of {self.path}: another process or thread holds it ({exc})",
                               details={"lock": str(self.path)})
        return StorageError(f"sqlite store {self.path}: {exc}")

    def _migrate(self) -> None:
        conn = self._conn()
        current = self._version(conn)
        if current > len(MIGRATIONS):
            raise UnsupportedVersion(
                f"{self.path}: schema_version {current} was written by a newer nervous (this release reads up "
                f"to {len(MIGRATIONS)}); upgrade nervous. The database was not modified.")
        if current == len(MIGRATIONS):
            return
        self._begin(conn)
        try:
            current = self._version(conn)
            for step in MIGRATIONS[current:]:
                step(conn)
            conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)"
                         " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(len(MIGRATIONS)),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _damaged(self, problem: str, **details: Any) -> StorageError:
        return StorageError(
            f"sqlite store {self.path} is damaged: {problem}; nothing was modified. Restore it from a backup, "
            "or point [storage] path at a new file", code="storage_damaged",
            details={"path": str(self.path), **details})

    def _version(self, conn: sqlite3.Connection) -> int:
        """The recorded schema version; 0 for a database nervous has not written yet (no table of ours).

        A database holding some of our tables but no valid version (the ``meta`` table or its row
        removed, a version that is not a positive integer) is damaged: migrating it again would fail
        half-way or hide its data, so it is reported and left alone.
        """
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            ours = [t for t in _TABLES if t in tables]
            if "meta" not in tables:
                if ours:
                    raise self._damaged("the meta table (with the schema version) is missing",
                                        missing_tables=["meta"])
                return 0
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError as exc:
            raise self._busy(exc) from None
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc, "cannot read") from None
        if row is None:
            if ours == ["meta"] and not conn.execute("SELECT 1 FROM meta LIMIT 1").fetchone():
                return 0  # an empty meta table and nothing else: nothing was ever stored
            raise self._damaged("no schema_version in the meta table")
        value = row[0]
        text = str(value).strip() if isinstance(value, int | str) else ""
        version = int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
        if version is None or version < 1:
            raise self._damaged(f"schema_version {value!r} in the meta table is not a positive integer",
                                schema_version=str(value))
        return version

    # ------------------------------------------------------------------ documents

    def _where(self, collection: str, key: str) -> str:
        return f"{self.path}#{collection}/{key}"

    def _recover(self, conn: sqlite3.Connection, collection: str, key: str, row: tuple[Any, ...],
                 reason: str) -> tuple[dict[str, Any] | None, list[str]]:
        """Quarantine a corrupt body (once per distinct content) and offer the previous version."""
        body, _updated_at, previous, previous_at = row
        import hashlib

        raw = _as_bytes(body)
        if raw is None:
            raw = bytes(body) if isinstance(body, bytes | bytearray | memoryview) else str(body).encode()
        digest = hashlib.sha256(raw).hexdigest()
        conn.execute("INSERT OR IGNORE INTO quarantine (collection, key, body, sha256, reason, quarantined_at)"
                     " VALUES (?, ?, ?, ?, ?, ?)", (collection, key, body, digest, reason, time.time()))
        qid = conn.execute("SELECT id FROM quarantine WHERE collection = ? AND key = ? AND sha256 = ?",
                           (collection, key, digest)).fetchone()[0]
        where = self._where(collection, key)
        warnings = [f"{where} is corrupt ({reason}); quarantined as {self.path}#quarantine/{qid}"]
        restored = _parse_body(previous, shape_validator(collection))[0] if previous else None
        if restored is not None:
            warnings.append(f"{where}: restored from backup of {_when(previous_at)}; later changes lost")
        return restored, warnings

    def _select(self, conn: sqlite3.Connection, collection: str, key: str) -> tuple[Any, ...] | None:
        row = conn.execute("SELECT body, updated_at, previous, previous_at FROM documents"
                           " WHERE collection = ? AND key = ?", (collection, key)).fetchone()
        return tuple(row) if row is not None else None

    @_guarded
    def read(self, collection: str, key: str) -> Snapshot:
        check_collection(collection)
        check_key(key)
        if not self._open(create=False):
            return Snapshot(None)
        conn = self._conn()
        row = self._select(conn, collection, key)
        if row is None:
            return Snapshot(None)
        validate = shape_validator(collection)
        value, reason = _parse_body(row[0], validate)
        if reason is None:
            return Snapshot(value)
        self._begin(conn)
        try:
            row = self._select(conn, collection, key)
            if row is None:
                conn.execute("COMMIT")
                return Snapshot(None)
            value, reason = _parse_body(row[0], validate)
            warnings: list[str] = []
            if reason is not None:
                value, warnings = self._recover(conn, collection, key, row, reason)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return Snapshot(value, tuple(warnings))

    @_guarded
    def keys(self, collection: str) -> list[str]:
        check_collection(collection)
        if not self._open(create=False):
            return []
        rows = self._conn().execute("SELECT key FROM documents WHERE collection = ?", (collection,))
        return sorted(r[0] for r in rows)

    @_guarded
    def update(self, collection: str, key: str, fn: Callable[[dict[str, Any]], R], *,
               create: bool = True) -> Updated[R]:
        check_collection(collection)
        check_key(key)
        if not self._open(create=create):
            raise NotFound(f"no document {collection}/{key}")
        conn = self._conn()
        self._begin(conn)
        try:
            row = self._select(conn, collection, key)
            warnings: list[str] = []
            corrupt = False
            doc: dict[str, Any] | None = None
            if row is None:
                if not create:
                    raise NotFound(f"no document {collection}/{key}")
            else:
                doc, reason = _parse_body(row[0], shape_validator(collection))
                if reason is not None:
                    corrupt = True
                    doc, warnings = self._recover(conn, collection, key, row, reason)
            restored = doc is not None
            if doc is None:
                doc = {}
            result = fn(doc)
            check_document(doc, f"{collection}/{key}")
            body = json.dumps(doc, ensure_ascii=False, allow_nan=False)
            now = time.time()
            if row is None:
                previous, previous_at = None, None
            elif corrupt:
                previous, previous_at = row[2], row[3]
            else:
                previous, previous_at = row[0], row[1]
            conn.execute(
                "INSERT INTO documents (collection, key, body, updated_at, previous, previous_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET body = excluded.body,"
                " updated_at = excluded.updated_at, previous = excluded.previous,"
                " previous_at = excluded.previous_at",
                (collection, key, body, now, previous, previous_at))
            if corrupt:
                source = "its backup" if restored else "an empty document"
                warnings.append(f"{self._where(collection, key)}: rebuilt from {source} and replaced the "
                                "corrupt document")
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            raise self._busy(exc) from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return Updated(result, tuple(warnings))

    @_guarded
    def delete(self, collection: str, key: str) -> bool:
        check_collection(collection)
        check_key(key)
        if not self._open(create=False):
            return False
        try:
            cur = self._conn().execute("DELETE FROM documents WHERE collection = ? AND key = ?", (collection, key))
        except sqlite3.OperationalError as exc:
            raise self._busy(exc) from None
        return cur.rowcount > 0

    # ------------------------------------------------------------------ logs

    @_guarded
    def append(self, log: str, entry: dict[str, Any]) -> None:
        check_collection(log)
        check_document(entry, f"log {log}")
        line = json.dumps(entry, ensure_ascii=False, allow_nan=False)
        self._open(create=True)
        try:
            self._conn().execute("INSERT INTO log_entries (log, entry) VALUES (?, ?)", (log, line))
        except sqlite3.OperationalError as exc:
            raise self._busy(exc) from None

    @_guarded
    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        check_collection(log)
        if not self._open(create=False):
            return []
        conn = self._conn()
        if limit:
            rows = conn.execute("SELECT id, entry FROM log_entries WHERE log = ? ORDER BY id DESC LIMIT ?",
                                (log, limit)).fetchall()[::-1]
        else:
            rows = conn.execute("SELECT id, entry FROM log_entries WHERE log = ? ORDER BY id", (log,)).fetchall()
        out = []
        for rid, text in rows:
            entry, reason = _parse_body(text)
            if entry is None:
                self._pending_warnings.append(f"{self.path}#logs/{log}: entry {rid} is damaged ({reason}); skipped")
                continue
            out.append(entry)
        return out

    # ------------------------------------------------------------------ administration

    def pop_warnings(self) -> list[str]:
        out, self._pending_warnings = self._pending_warnings, []
        return out

    @_guarded
    def info(self) -> StoreInfo:
        if not self._open(create=False):
            return StoreInfo("sqlite", str(self.path), len(MIGRATIONS), {}, 0, {})
        conn = self._conn()
        collections = dict(conn.execute(
            "SELECT collection, count(*) FROM documents GROUP BY collection ORDER BY collection").fetchall())
        logs = dict(conn.execute("SELECT log, count(*) FROM log_entries GROUP BY log ORDER BY log").fetchall())
        size = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                size += os.stat(f"{self.path}{suffix}").st_size
            except OSError:
                pass
        return StoreInfo("sqlite", str(self.path), self._version(conn), collections, size, logs)

    @_guarded
    def check(self) -> list[Problem]:
        if not self._open(create=False):
            return []  # nothing written yet: nothing can be damaged
        conn = self._conn()
        problems: list[Problem] = []
        try:
            results = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
        except sqlite3.DatabaseError as exc:
            return [Problem(str(self.path), f"integrity check failed: {exc}")]
        if results != ["ok"]:
            problems.extend(Problem(str(self.path), f"integrity_check: {r}") for r in results)
        for coll, key, body in conn.execute("SELECT collection, key, body FROM documents ORDER BY collection, key"):
            _value, reason = _parse_body(body, shape_validator(coll))
            if reason is not None:
                problems.append(Problem(self._where(coll, key), f"document does not parse: {reason}"))
        for rid, log, text in conn.execute("SELECT id, log, entry FROM log_entries ORDER BY id"):
            entry, reason = _parse_body(text)
            if entry is None:
                problems.append(Problem(f"{self.path}#logs/{log}", f"entry {rid} is damaged: {reason}"))
        for qid, coll, key, reason in conn.execute(
                "SELECT id, collection, key, reason FROM quarantine ORDER BY id"):
            problems.append(Problem(f"{self.path}#quarantine/{qid}",
                                    f"quarantined copy of corrupt document {coll}/{key} ({reason}); inspect it, "
                                    "then delete the row"))
        return problems

    def close(self) -> None:
        """Close the store: later uses raise :class:`StorageError` (``storage_closed``).

        Statements running in other threads are never cut off (closing a connection under a running
        statement crashes SQLite): close waits up to :data:`CLOSE_WAIT` seconds for them, and when they
        still run (or when close is called from inside a use, on this thread), the last of them closes
        the connections as it finishes.
        """
        mine = getattr(self._depth, "n", 0)
        conns: list[sqlite3.Connection] = []
        with self._state:
            self._closed = True
            if not mine:
                self._state.wait_for(lambda: self._active == 0, timeout=CLOSE_WAIT)
            if self._active == 0:
                conns, self._all = self._all, []
        self._close_all(conns)


# ---------------------------------------------------------------------------------------------
# Plugin
# ---------------------------------------------------------------------------------------------


def open_store(path: str | Path, lock_timeout: float = 5.0) -> SqliteStore:
    """Open the SQLite store at ``path`` (created and migrated by its first write; an existing one is migrated now)."""
    return SqliteStore(path, lock_timeout=lock_timeout)


def corrupt_document(store: Store, collection: str, key: str) -> None:
    """Damage a stored body behind the store's back (for the conformance suite)."""
    assert isinstance(store, SqliteStore)
    conn = sqlite3.connect(store.path, isolation_level=None)
    try:
        conn.execute("UPDATE documents SET body = substr(body, 1, length(body) / 2)"
                     " WHERE collection = ? AND key = ?", (collection, key))
    finally:
        conn.close()


def default_path(data_dir: Path) -> Path:
    return data_dir / DEFAULT_FILE


def _factory(ctx: Any) -> SqliteStore:
    cfg = ctx.config.storage
    if cfg.path:
        path = Path(cfg.path).expanduser()
        if path.is_dir() or cfg.path.endswith(("/", os.sep)):
            path = path / DEFAULT_FILE
    else:
        path = default_path(ctx.paths.data_dir)
    return SqliteStore(path, lock_timeout=cfg.lock_timeout)




def write_schema_version(store: Store, version: int) -> None:
    """Record ``version`` as the database's schema version, as another release would (conformance suite)."""
    assert isinstance(store, SqliteStore)
    store._open(create=True)
    conn = sqlite3.connect(store.path, isolation_level=None)
    try:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    finally:
        conn.close()
