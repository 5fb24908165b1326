"""The ``postgres`` storage backend: one shared store for a fleet of agents on many machines.

Documents live in one table keyed by (collection, key) and are changed under a row lock
(``SELECT ... FOR UPDATE``), so a read-modify-write is atomic and isolated across threads,
processes and hosts. Documents and log entries are kept as JSON text, not ``jsonb``: ``jsonb``
would turn ``1e300`` into an integer and refuses ``\\u0000``, and a store must give back exactly
what it was given. Migrations run once, on first use, inside a transaction holding an advisory
lock, so many processes starting at once cannot race.

psycopg is imported only when a store is opened: loading the plugin costs nothing.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from nervous.errors import (
    EXIT_UNAVAILABLE,
    BadInput,
    ConfigError,
    NotFound,
    StorageBusy,
    StorageError,
    UnsupportedVersion,
)
from nervous.plugin import (
    SCHEMA_VERSION,
    Problem,
    Snapshot,
    Store,
    StoreInfo,
    Updated,
    check_collection,
    check_document,
    check_key,
    shape_validator,
)

if TYPE_CHECKING:
    from nervous.plugin import ProviderContext

R = TypeVar("R")

DSN_ENV = "NERVOUS_POSTGRES_DSN"
DEFAULT_SCHEMA = "nervous"
_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}\Z")

#: transaction attempts when the server reports a serialization failure or a deadlock
MAX_ATTEMPTS = 8

#: the tables of this store's schema
_TABLES = ("meta", "documents", "logs", "quarantine")

#: SQLSTATEs meaning "try the whole transaction again"
_RETRY_STATES = {"40001", "40P01"}
#: SQLSTATEs meaning "waited too long": lock_timeout, statement_timeout / cancel
_BUSY_STATES = {"55P03", "57014"}

# One list of statements per schema version; ``{s}`` is the quoted schema name. Version N's
# statements take a store from version N-1 to N. Never edit a released entry: append one.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "CREATE TABLE {s}.documents ("
        " collection text NOT NULL,"
        " key text NOT NULL,"
        " doc text NOT NULL,"
        " updated_at timestamptz NOT NULL DEFAULT now(),"
        " PRIMARY KEY (collection, key))",
        "CREATE TABLE {s}.logs ("
        " id bigserial PRIMARY KEY,"
        " log text NOT NULL,"
        " entry text NOT NULL,"
        " at timestamptz NOT NULL DEFAULT now())",
        "CREATE INDEX logs_by_log ON {s}.logs (log, id)",
        "CREATE TABLE {s}.quarantine ("
        " id bigserial PRIMARY KEY,"
        " collection text NOT NULL,"
        " key text NOT NULL,"
        " doc text NOT NULL,"
        " digest text NOT NULL,"
        " reason text NOT NULL,"
        " quarantined_at timestamptz NOT NULL DEFAULT now(),"
        " UNIQUE (collection, key, digest))",
        "CREATE FUNCTION {s}.refuse_log_change() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN RAISE EXCEPTION 'nervous logs are append-only'; END $$",
        "CREATE TRIGGER logs_append_only BEFORE UPDATE OR DELETE ON {s}.logs"
        " FOR EACH ROW EXECUTE FUNCTION {s}.refuse_log_change()",
    ),
}


# ------------------------------------------------------------------------------------------ plugin




def _factory(ctx: ProviderContext) -> PostgresStore:
    dsn = ctx.config.storage.dsn or os.environ.get(DSN_ENV, "")
    if not dsn.strip():
        raise ConfigError(
            "storage backend 'postgres' needs a connection string: set [storage] dsn = "
            f"\"postgresql://USER@HOST:5432/DATABASE\" in the configuration or the {DSN_ENV} "
            "environment variable")
    settings = dict(ctx.settings)
    known = {"schema", "pool_min_size", "pool_max_size", "statement_timeout", "connect_timeout",
             "idle_in_transaction_timeout", "lock_timeout"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ConfigError(f"plugins.postgres: unknown key(s) {', '.join(unknown)}; "
                          f"expected {', '.join(sorted(known))}")
    settings.setdefault("lock_timeout", max(1, round(ctx.config.storage.lock_timeout * 1000)))
    return open_store(dsn, **settings)


def open_store(dsn: str, schema: str = DEFAULT_SCHEMA, **options: Any) -> PostgresStore:
    """Open a store (the callable named by picklable store specs, so child processes can open it)."""
    return PostgresStore(dsn, schema=schema, **options)


# ------------------------------------------------------------------------------------------ DSN


def describe_dsn(dsn: str) -> str:
    """``host:port/database (user U)`` for messages; never the password."""
    parts = _dsn_parts(dsn)
    where = f"{parts['host']}:{parts['port']}/{parts['dbname']}"
    return f"{where} (user {parts['user']})" if parts["user"] else where


def redacted_dsn(dsn: str) -> str:
    """The DSN as a URL without its password (for ``info`` and logs)."""
    parts = _dsn_parts(dsn)
    user = f"{parts['user']}@" if parts["user"] else ""
    return f"postgresql://{user}{parts['host']}:{parts['port']}/{parts['dbname']}"


def _dsn_parts(dsn: str) -> dict[str, str]:
    """Host, port, database, user and password, with libpq's environment variables as fallbacks."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v not in (None, "")}
    except Exception:
        raise ConfigError("storage.dsn: not a valid PostgreSQL connection string "
                          "(expected postgresql://USER@HOST:PORT/DATABASE)") from None
    env = os.environ
    user = given.get("user") or env.get("PGUSER", "")
    return {
        "host": given.get("host") or given.get("hostaddr") or env.get("PGHOST") or "localhost",
        "port": given.get("port") or env.get("PGPORT") or "5432",
        "dbname": given.get("dbname") or env.get("PGDATABASE") or user or "?",
        "user": user,
        "password": given.get("password") or env.get("PGPASSWORD", ""),
    }


def _unavailable(message: str, **details: Any) -> StorageError:
    """The database cannot be reached or dropped us: exit code 3, like any unavailable service."""
    err = StorageError(message, code="storage_unavailable", details=details)
    err.exit_code = EXIT_UNAVAILABLE
    return err


def _scrub(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"plugins.postgres.{name}: expected a positive integer, got {value!r}")
    return value


# ------------------------------------------------------------------------------------------ store


class PostgresStore(Store):
    """A :class:`nervous.kernel.storage.Store` on a PostgreSQL schema, through a connection pool."""

    name = "postgres"

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        pool_min_size: int = 1,
        pool_max_size: int = 4,
        statement_timeout: int = 30_000,
        lock_timeout: int = 5_000,
        connect_timeout: int = 5,
        idle_in_transaction_timeout: int = 60_000,
    ) -> None:
        if not isinstance(schema, str) or not _SCHEMA_RE.match(schema):
            raise ConfigError(f"plugins.postgres.schema: invalid schema name {schema!r}; expected lower-case "
                              "letters, digits and '_' (at most 63, not starting with a digit)")
        self._dsn = dsn  # holds the password, if any: never shown
        parts = _dsn_parts(dsn)
        self._password = parts["password"]
        self.where = describe_dsn(dsn)
        self._redacted = redacted_dsn(dsn)
        self.schema = schema
        self._s = f'"{schema}"'
        self.pool_min_size = _positive_int("pool_min_size", pool_min_size)
        self.pool_max_size = max(_positive_int("pool_max_size", pool_max_size), self.pool_min_size)
        self.statement_timeout = _positive_int("statement_timeout", statement_timeout)
        self.lock_timeout = _positive_int("lock_timeout", lock_timeout)
        self.connect_timeout = _positive_int("connect_timeout", connect_timeout)
        self.idle_in_transaction_timeout = _positive_int("idle_in_transaction_timeout",
                                                         idle_in_transaction_timeout)
        self._pool: Any = None
        self._pool_pid = 0
        self._open_lock = threading.Lock()
        self._closed = False
        self._schema_ready = False  # known to exist at this release's version (set on open or first write)

    def __repr__(self) -> str:
        return f"<PostgresStore {self.where} schema {self.schema}>"

    @property
    def location(self) -> str:
        return f"{self._redacted} (schema {self.schema})"

    # -------------------------------------------------------------- connections

    def _connect_kwargs(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "connect_timeout": self.connect_timeout,
            "application_name": f"nervous:{self.schema}",  # who is who in pg_stat_activity
        }

    def _configure(self, conn: Any) -> None:
        """Session settings every connection gets, whatever the server's defaults are."""
        from psycopg import IsolationLevel

        conn.isolation_level = IsolationLevel.READ_COMMITTED
        conn.execute("SELECT set_config('statement_timeout', %s, false), set_config('lock_timeout', %s, false),"
                     " set_config('idle_in_transaction_session_timeout', %s, false),"
                     " set_config('synchronous_commit', 'on', false)",
                     (str(self.statement_timeout), str(self.lock_timeout), str(self.idle_in_transaction_timeout)))

    def _direct_connection(self) -> Any:
        """One connection outside the pool; its failure says exactly what is wrong."""
        import psycopg

        try:
            conn = psycopg.connect(self._dsn, **self._connect_kwargs())
        except psycopg.Error as exc:
            raise self._connection_failure(exc) from None
        try:
            self._configure(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _ensure_open(self) -> Any:
        if self._pool is not None and self._pool_pid == os.getpid():
            return self._pool
        with self._open_lock:
            if self._closed:
                raise StorageError(f"postgres store {self.location} is closed")
            if self._pool is not None and self._pool_pid == os.getpid():
                return self._pool
            # a pool inherited through fork() shares sockets with the parent: leave it alone
            # (psycopg never finalises a connection in a process that did not open it)
            from psycopg_pool import ConnectionPool

            with self._direct_connection() as conn:
                self._prepare(conn)
            pool = ConnectionPool(
                self._dsn,
                min_size=self.pool_min_size,
                max_size=self.pool_max_size,
                kwargs=self._connect_kwargs(),
                configure=self._configure,
                timeout=max(self.lock_timeout / 1000.0, float(self.connect_timeout)),
                name=f"nervous-{self.schema}",
                open=False,
            )
            pool.open(wait=False)
            self._pool, self._pool_pid = pool, os.getpid()
            return pool

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        from psycopg_pool import PoolTimeout

        pool = self._ensure_open()
        try:
            cm = pool.connection()
            conn = cm.__enter__()
        except PoolTimeout:
            raise self._pool_timeout(pool.timeout) from None
        try:
            yield conn
        except BaseException as exc:
            cm.__exit__(type(exc), exc, exc.__traceback__)
            raise
        else:
            cm.__exit__(None, None, None)

    def _pool_timeout(self, waited: float) -> StorageError:
        """No pooled connection in time: either the server is gone or every connection is busy."""
        try:
            self._direct_connection().close()
        except StorageError as exc:
            return exc
        return StorageBusy(
            f"postgres {self.where}: all {self.pool_max_size} pooled connections stayed busy for "
            f"{waited:g}s; raise plugins.postgres.pool_max_size",
            details={"host": self.where})

    def _run(self, what: str, op: Callable[[Any], R], *, idempotent: bool) -> R:
        """Run ``op(conn)``; retry conflicts, and a stale pooled connection that failed at once."""
        import psycopg

        conflicts = stale = 0
        while True:
            tracked: _Tracked | None = None
            try:
                with self._connection() as conn:
                    tracked = _Tracked(conn)
                    return op(tracked)
            except psycopg.Error as exc:
                state = getattr(exc, "sqlstate", None)
                if state in _RETRY_STATES:
                    conflicts += 1
                    if conflicts < MAX_ATTEMPTS:
                        continue
                lost = tracked is not None and tracked.lost()
                if tracked is not None and lost and (idempotent or not tracked.progress) \
                        and stale < self.pool_max_size:
                    stale += 1  # a pooled connection the server had closed (restart, fail-over): nothing applied
                    continue
                raise self._translate(what, exc, lost=lost) from None

    # -------------------------------------------------------------- errors

    def _connection_failure(self, exc: Exception) -> StorageError:
        text = _scrub(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
                      self._password)
        low = text.lower()
        if "authentication" in low or "no password" in low or "pg_hba.conf" in low \
                or ('role "' in low and "does not exist" in low):
            reason = "authentication refused"
        elif 'database "' in low and "does not exist" in low:
            reason = "database does not exist"
        elif "timeout" in low or "timed out" in low:
            reason = "connection timed out"
        else:
            reason = "server unreachable"
        return _unavailable(f"postgres {self.where}: {reason} ({text})", host=self.where, reason=reason)

    def _translate(self, what: str, exc: Exception, *, lost: bool = False) -> StorageError:
        state = getattr(exc, "sqlstate", None)
        text = _scrub(" ".join(str(exc).split()) or type(exc).__name__, self._password)
        if state in _BUSY_STATES:
            limit = "lock_timeout" if state == "55P03" else "statement_timeout"
            ms = self.lock_timeout if state == "55P03" else self.statement_timeout
            return StorageBusy(f"postgres {self.where}: {what} timed out ({limit} {ms} ms): {text}",
                               details={"host": self.where, "sqlstate": state})
        if state in _RETRY_STATES:
            return StorageBusy(f"postgres {self.where}: {what} kept conflicting with other writers "
                               f"after {MAX_ATTEMPTS} attempts: {text}",
                               details={"host": self.where, "sqlstate": state})
        if lost or (state or "").startswith(("08", "57P")):
            return _unavailable(f"postgres {self.where}: connection lost during {what}, which was not "
                                f"acknowledged: read the data again before retrying ({text})",
                                host=self.where, sqlstate=state)
        if state == "42501":
            return StorageError(f"postgres {self.where}: permission denied during {what} in schema "
                                f"{self.schema} ({text}); see docs/scaling.md for the grants needed",
                                details={"host": self.where, "sqlstate": state})
        return StorageError(f"postgres {self.where}: {what} failed ({text})",
                            details={"host": self.where, "sqlstate": state})

    # -------------------------------------------------------------- schema

    def _prepare(self, conn: Any) -> None:
        """On open: refuse a newer schema, upgrade an older one; a missing one waits for the first write
        (read-only commands leave the database as they found it)."""
        version = self._current_version(conn)
        if version == 0:
            self._schema_ready = False
            return
        self._migrate(conn)
        self._schema_ready = True

    def _writable(self) -> None:
        """Create the schema before the first write, if opening found none."""
        if self._schema_ready:
            return
        with self._open_lock:
            if not self._schema_ready:
                with self._direct_connection() as conn:
                    self._migrate(conn)
                self._schema_ready = True

    def _absent(self) -> bool:
        """True while no schema exists (reads answer empty); notices one another process created."""
        if self._schema_ready:
            return False
        if self._run("reading the schema version", lambda c: self._current_version(c), idempotent=True) == 0:
            return True
        self._writable()  # created meanwhile: bring it to this release's version (or refuse a newer one)
        return False

    def _migrate(self, conn: Any) -> None:
        """Bring the schema to :data:`SCHEMA_VERSION` once, under an advisory lock."""
        import psycopg

        try:
            if self._current_version(conn) == SCHEMA_VERSION:
                return
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"nervous-migrate:{self.schema}",))
                version = self._current_version(conn)
                if version > SCHEMA_VERSION:
                    raise UnsupportedVersion(
                        f"postgres {self.where}: schema {self.schema} is at storage version {version}, "
                        f"newer than this release understands ({SCHEMA_VERSION}); upgrade nervous")
                if version == 0:
                    # an administrator may have created the schema for a role that cannot create schemas
                    exists = conn.execute("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = %s",
                                          (self.schema,)).fetchone()[0]
                    if not exists:
                        conn.execute(f"CREATE SCHEMA {self._s}")
                    conn.execute(f"CREATE TABLE IF NOT EXISTS {self._s}.meta"
                                 " (key text PRIMARY KEY, value text NOT NULL)")
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in MIGRATIONS[step]:
                        conn.execute(statement.replace("{s}", self._s))
                conn.execute(f"INSERT INTO {self._s}.meta (key, value) VALUES ('schema_version', %s)"
                             " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (str(SCHEMA_VERSION),))
        except psycopg.Error as exc:
            raise self._translate(f"preparing schema {self.schema}", exc) from None

    def _current_version(self, conn: Any) -> int:
        """The schema's recorded version; 0 when nervous has not written to it yet (none of its tables).

        Tables of ours without a valid version (``meta`` or its row removed, a version that is not a
        positive integer) mean a damaged store: reported (``storage_damaged``), never migrated again or
        read as empty.
        """
        # a plain catalog query, not to_regclass(): it sees tables another process just committed
        tables = {r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
            " ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
            " AND c.relname = ANY(%s)", (self.schema, list(_TABLES))).fetchall()}
        data_tables = sorted(tables - {"meta"})
        if "meta" not in tables:
            if data_tables:
                raise self._damaged("the meta table (with the schema version) is missing", missing_tables=["meta"])
            return 0
        row = conn.execute(f"SELECT value FROM {self._s}.meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            if not data_tables:
                return 0  # an empty meta table alone (made by an administrator): nothing stored yet
            raise self._damaged("no schema_version row in the meta table")
        text = str(row[0]).strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text) or int(text) < 1:
            raise self._damaged(f"schema_version {row[0]!r} in the meta table is not a positive integer",
                                schema_version=str(row[0]))
        return int(text)

    def _damaged(self, problem: str, **details: Any) -> StorageError:
        return StorageError(f"postgres {self.where}: schema {self.schema} is damaged: {problem}; nothing was "
                            "modified. Restore it from a backup, or point plugins.postgres.schema at a new schema",
                            code="storage_damaged", details={"host": self.where, "schema": self.schema, **details})

    # -------------------------------------------------------------- documents

    def read(self, collection: str, key: str) -> Snapshot:
        check_collection(collection)
        _check_encodable(check_key(key))
        if self._absent():
            return Snapshot(None)
        sql = f"SELECT doc FROM {self._s}.documents WHERE collection = %s AND key = %s"
        row = self._run(f"reading {collection}/{key}",
                        lambda c: c.execute(sql, (collection, key)).fetchone(), idempotent=True)
        if row is None:
            return Snapshot(None)
        value, reason = _decode(row[0], collection)
        if reason is None:
            return Snapshot(value)
        warning = self._run(f"quarantining {collection}/{key}",
                            lambda c: self._quarantine(c, collection, key, row[0], reason), idempotent=True)
        return Snapshot(None, (warning,))

    def keys(self, collection: str) -> list[str]:
        check_collection(collection)
        if self._absent():
            return []
        sql = f"SELECT key FROM {self._s}.documents WHERE collection = %s"
        rows = self._run(f"listing {collection}", lambda c: c.execute(sql, (collection,)).fetchall(),
                         idempotent=True)
        return sorted(r[0] for r in rows)

    def update(self, collection: str, key: str, fn: Callable[[dict[str, Any]], R], *,
               create: bool = True) -> Updated[R]:
        check_collection(collection)
        _check_encodable(check_key(key))
        if not callable(fn):
            raise BadInput(f"update {collection}/{key}: fn must be callable, got {type(fn).__name__}")
        self._writable()
        s = self._s
        select = f"SELECT doc FROM {s}.documents WHERE collection = %s AND key = %s FOR UPDATE"
        claim = (f"INSERT INTO {s}.documents (collection, key, doc) VALUES (%s, %s, '{{}}')"
                 " ON CONFLICT (collection, key) DO NOTHING RETURNING doc")
        write = f"UPDATE {s}.documents SET doc = %s, updated_at = now() WHERE collection = %s AND key = %s"

        def op(conn: _Tracked) -> Updated[R]:
            with conn.transaction():
                row = conn.execute(select, (collection, key)).fetchone()
                while row is None:
                    if not create:
                        raise NotFound(f"no document {collection}/{key}")
                    # claim the key: a concurrent creator waits on the unique index until we finish
                    row = conn.execute(claim, (collection, key)).fetchone() \
                        or conn.execute(select, (collection, key)).fetchone()
                doc, reason = _decode(row[0], collection)
                warnings: tuple[str, ...] = ()
                if reason is not None:  # rebuild from empty, keeping the damaged text aside
                    warnings = (self._quarantine(conn, collection, key, row[0], reason) + "; rebuilt it empty",)
                    doc = {}
                result = fn(doc)
                conn.execute(write, (_encode(doc, f"{collection}/{key}"), collection, key))
                return Updated(result, warnings)

        return self._run(f"updating {collection}/{key}", op, idempotent=False)

    def _quarantine(self, conn: _Tracked, collection: str, key: str, text: str, reason: str) -> str:
        """Keep one copy of a damaged document's text aside (once per distinct text); a warning."""
        import hashlib

        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        conn.execute(f"INSERT INTO {self._s}.quarantine (collection, key, doc, digest, reason)"
                     " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                     (collection, key, text, digest, reason))
        ident = conn.execute(f"SELECT id FROM {self._s}.quarantine WHERE collection = %s AND key = %s"
                             " AND digest = %s", (collection, key, digest)).fetchone()[0]
        return (f"postgres {self.where}: document {collection}/{key} is corrupt ({reason}); quarantined as "
                f"row {ident} of {self.schema}.quarantine")

    def delete(self, collection: str, key: str) -> bool:
        check_collection(collection)
        _check_encodable(check_key(key))
        if self._absent():
            return False
        sql = f"DELETE FROM {self._s}.documents WHERE collection = %s AND key = %s"
        return bool(self._run(f"deleting {collection}/{key}",
                              lambda c: c.execute(sql, (collection, key)).rowcount, idempotent=False))

    # -------------------------------------------------------------- logs

    def append(self, log: str, entry: dict[str, Any]) -> None:
        check_collection(log)
        text = _encode(entry, f"log {log}")
        self._writable()
        sql = f"INSERT INTO {self._s}.logs (log, entry) VALUES (%s, %s)"
        self._run(f"appending to log {log}", lambda c: c.execute(sql, (log, text)), idempotent=False)

    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        check_collection(log)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise BadInput(f"read_log {log}: limit must be a non-negative integer, got {limit!r}")
        if limit:
            sql = (f"SELECT entry FROM (SELECT id, entry FROM {self._s}.logs WHERE log = %s"
                   " ORDER BY id DESC LIMIT %s) AS tail ORDER BY id")
            params: tuple[Any, ...] = (log, limit)
        else:
            sql = f"SELECT entry FROM {self._s}.logs WHERE log = %s ORDER BY id"
            params = (log,)
        if self._absent():
            return []
        rows = self._run(f"reading log {log}", lambda c: c.execute(sql, params).fetchall(), idempotent=True)
        return [json.loads(r[0]) for r in rows]

    # -------------------------------------------------------------- administration

    def info(self) -> StoreInfo:
        if self._absent():
            return StoreInfo("postgres", self.location, SCHEMA_VERSION, {}, 0, {})  # as the first write makes it
        s = self._s

        def op(conn: _Tracked) -> StoreInfo:
            version = self._current_version(conn)
            colls = conn.execute(f"SELECT collection, count(*) FROM {s}.documents GROUP BY collection").fetchall()
            logs = conn.execute(f"SELECT log, count(*) FROM {s}.logs GROUP BY log").fetchall()
            size = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
                (self.schema,)).fetchone()[0]
            return StoreInfo("postgres", self.location, version, {c: int(n) for c, n in colls},
                             int(size), {lg: int(n) for lg, n in logs})

        return self._run("reading store information", op, idempotent=True)

    def check(self) -> list[Problem]:
        if self._absent():
            return []  # nothing written yet: nothing to be wrong
        s = self._s
        problems: list[Problem] = []

        def op(conn: _Tracked) -> None:
            version = self._current_version(conn)
            if version != SCHEMA_VERSION:
                problems.append(Problem(f"{self.location} meta", f"schema version {version}, expected "
                                        f"{SCHEMA_VERSION}"))
            with conn.cursor(name="nervous_check") as cur:  # server-side: bounded memory
                cur.execute(f"SELECT collection, key, doc FROM {s}.documents")
                for collection, key, doc in cur:
                    problem = _decode(doc, collection)[1]
                    if problem:
                        problems.append(Problem(f"{collection}/{key}", problem))
            with conn.cursor(name="nervous_check_logs") as cur:
                cur.execute(f"SELECT log, id, entry FROM {s}.logs")
                for log, ident, entry in cur:
                    problem = _decode(entry)[1]
                    if problem:
                        problems.append(Problem(f"log {log} #{ident}", problem))
            rows = conn.execute(f"SELECT id, collection, key, reason, quarantined_at FROM {s}.quarantine"
                                " ORDER BY id").fetchall()
            for ident, collection, key, reason, when in rows:
                problems.append(Problem(
                    f"{self.schema}.quarantine row {ident}",
                    f"quarantined copy of {collection}/{key} ({reason}) from {when:%Y-%m-%d %H:%M:%S %Z}; "
                    "delete the row once inspected"))

        def in_transaction(conn: _Tracked) -> None:
            with conn.transaction():  # named cursors need one
                op(conn)

        self._run("checking the store", in_transaction, idempotent=True)
        return problems

    def drop_schema(self) -> None:
        """Remove this store's schema and everything in it (tests, decommissioning)."""
        with self._direct_connection() as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {self._s} CASCADE")
        self._schema_ready = False

    def close(self) -> None:
        with self._open_lock:
            self._closed = True
            pool, self._pool = self._pool, None
            if pool is not None and self._pool_pid == os.getpid():
                pool.close()


class _Tracked:
    """A pooled connection that notes whether a statement succeeded on it (for safe retries)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.progress = False

    def execute(self, *args: Any, **kw: Any) -> Any:
        result = self._conn.execute(*args, **kw)
        self.progress = True
        return result

    def transaction(self) -> Any:
        return self._conn.transaction()

    def cursor(self, *args: Any, **kw: Any) -> Any:
        return self._conn.cursor(*args, **kw)

    def lost(self) -> bool:
        return bool(self._conn.closed or self._conn.broken)


def _encode(doc: Any, where: str) -> str:
    """A document's JSON text, serialised once; anything that would not round-trip is BadInput."""
    if not isinstance(doc, dict):
        check_document(doc, where)  # raises the contract's error
    try:
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        check_document(doc, where)  # raises the contract's error
        raise
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: keep them as \\udXXX escapes
        text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    return text


def _check_encodable(key: str) -> None:
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"invalid document key {key!r}: not encodable as UTF-8 (lone surrogate)") from None


def _decode(text: str, collection: str | None = None) -> tuple[dict[str, Any], str | None]:
    """The stored document, or ``{}`` and why the text is not one (including a wrong shape)."""
    try:
        value = json.loads(text)
    except RecursionError:
        return {}, "nesting too deep"
    except ValueError as exc:
        return {}, f"not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"not a JSON object but {type(value).__name__}"
    validate = shape_validator(collection) if collection else None
    reason = validate(value) if validate is not None else None
    if reason is not None:
        return {}, f"wrong shape: {reason}"
    return value, None


def corrupt_document(store: PostgresStore, collection: str, key: str) -> None:
    """Overwrite a stored document with text that does not parse, as a careless manual edit would.

    The conformance suite's corruptor (``StoreSpec.corruptor``); nervous itself never calls it.
    """
    with store._direct_connection() as conn:
        conn.execute(f"UPDATE {store._s}.documents SET doc = left(doc, length(doc) / 2) || '\u2026'"
                     " WHERE collection = %s AND key = %s", (collection, key))


def write_schema_version(store: PostgresStore, version: int) -> None:
    """Record ``version`` as the schema's version, as another release would (the conformance suite's
    ``StoreSpec.future_schema``); nervous itself never calls it."""
    with store._direct_connection() as conn:
        conn.execute(f"UPDATE {store._s}.meta SET value = %s WHERE key = 'schema_version'", (str(version),))
