"""The ``postgres`` storage backend against a real PostgreSQL server.

The server comes from ``NERVOUS_TEST_POSTGRES_DSN`` (default: the local server as ``postgres``,
then as ``root``). Without a reachable server the module is skipped with the reason, unless
``NERVOUS_REQUIRE_POSTGRES=1`` (CI), where it fails. Every store lives in its own schema, created
for the test and dropped after it, so runs never see each other.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from nervous.errors import BadInput, ConfigError, NotFound, StorageBusy, StorageError, UnsupportedVersion
from nervous.kernel.storage import SCHEMA_VERSION
from nervous.testing.cli import run_cli
from nervous.testing.storage_suite import StoreConformance, StoreSpec

pytestmark = pytest.mark.postgres

DEFAULT_DSNS = ("postgresql://postgres@127.0.0.1:5432/test", "postgresql://root@127.0.0.1:5432/test")


def _find_server() -> tuple[str | None, str]:
    """A DSN that connects, or None and why not."""
    try:
        import psycopg
    except ImportError:
        return None, "psycopg is not installed (pip install 'nervous[postgres]')"
    configured = os.environ.get("NERVOUS_TEST_POSTGRES_DSN")
    reasons = []
    for dsn in (configured,) if configured else DEFAULT_DSNS:
        try:
            psycopg.connect(dsn, connect_timeout=3).close()
            return dsn, ""
        except psycopg.Error as exc:
            from nervous_plugins.postgres_store import describe_dsn

            reasons.append(f"{describe_dsn(dsn)}: {str(exc).strip().splitlines()[0]}")
    return None, ("no PostgreSQL server reachable (set NERVOUS_TEST_POSTGRES_DSN): " + "; ".join(reasons))


SERVER_DSN, UNREACHABLE_REASON = _find_server()


@pytest.fixture(scope="module", autouse=True)
def postgres_server() -> str:
    if SERVER_DSN is None:
        if os.environ.get("NERVOUS_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"NERVOUS_REQUIRE_POSTGRES=1 but {UNREACHABLE_REASON}")
        pytest.skip(UNREACHABLE_REASON)
    return SERVER_DSN


def fresh_schema() -> str:
    return f"nervous_test_{os.getpid()}_{secrets.token_hex(4)}"


def sql(statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on its own connection (the test's view from outside the store)."""
    import psycopg

    assert SERVER_DSN is not None
    with psycopg.connect(SERVER_DSN, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


def _backend_pids(schema: str) -> set[int]:
    return {r[0] for r in sql("SELECT pid FROM pg_stat_activity WHERE application_name = %s", (f"nervous:{schema}",))}


def drop(schema: str) -> None:
    sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def schema() -> Iterator[str]:
    name = fresh_schema()
    yield name
    drop(name)


@pytest.fixture
def open_pg(schema: str) -> Iterator[Callable[..., Any]]:
    """Open stores on the test's schema; all are closed afterwards."""
    from nervous_plugins.postgres_store import open_store

    opened: list[Any] = []

    def opener(**options: Any) -> Any:
        options.setdefault("schema", schema)
        store = open_store(options.pop("dsn", SERVER_DSN), **options)
        opened.append(store)
        return store

    yield opener
    for store in opened:
        store.close()


@pytest.fixture
def store(open_pg: Callable[..., Any]) -> Any:
    return open_pg()


def _with_password(dsn: str, user: str, password: str) -> str:
    rest = dsn.split("@", 1)[1]
    return f"postgresql://{user}:{password}@{rest}"


# ------------------------------------------------------------------------------------ conformance


class TestPostgresConformance(StoreConformance):
    """The whole storage contract, each test on a schema of its own."""

    @pytest.fixture
    def store_spec(self, schema: str) -> StoreSpec:
        return StoreSpec("nervous_plugins.postgres_store:open_store", {"dsn": SERVER_DSN, "schema": schema},
                         corruptor="nervous_plugins.postgres_store:corrupt_document",
                         future_schema="nervous_plugins.postgres_store:write_schema_version")


# ------------------------------------------------------------------------------------ plumbing


def test_loading_the_plugin_does_not_import_psycopg() -> None:
    code = ("import sys, nervous_plugins.builtin.postgres as m; m.nervous_storage_backends();"
            "assert not [n for n in sys.modules if n.startswith('psycopg')], sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_selected_by_configuration_with_settings(nervous_config: Any, schema: str) -> None:
    from nervous.kernel.manager import PluginManager

    nervous_config.storage.backend = "postgres"
    nervous_config.storage.dsn = SERVER_DSN
    nervous_config.plugins.settings["postgres"] = {"schema": schema, "pool_max_size": 2,
                                                   "statement_timeout": 7000}
    pm = PluginManager(nervous_config, autoload=False)
    try:
        store = pm.storage()
        assert (store.name, store.schema, store.pool_max_size, store.statement_timeout) == \
            ("postgres", schema, 2, 7000)
        assert store.lock_timeout == int(nervous_config.storage.lock_timeout * 1000)
        store.update("goals", "g1", lambda d: d.update(title="ship"))
        info = store.info()
        assert info.backend == "postgres" and info.schema_version == SCHEMA_VERSION
        assert info.collections == {"goals": 1} and info.size_bytes > 0
        assert schema in info.location and "127.0.0.1" in info.location
    finally:
        pm.close()


def test_dsn_from_environment(nervous_config: Any, schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous.kernel.manager import PluginManager

    monkeypatch.setenv("NERVOUS_POSTGRES_DSN", SERVER_DSN or "")
    nervous_config.storage.backend = "postgres"
    nervous_config.plugins.settings["postgres"] = {"schema": schema}
    pm = PluginManager(nervous_config, autoload=False)
    try:
        assert pm.storage().read("goals", "none").value is None
    finally:
        pm.close()


def test_missing_dsn_is_a_config_error_saying_how_to_set_it(nervous_config: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous.kernel.manager import PluginManager

    monkeypatch.delenv("NERVOUS_POSTGRES_DSN", raising=False)
    nervous_config.storage.backend = "postgres"
    nervous_config.storage.dsn = None
    pm = PluginManager(nervous_config, autoload=False)
    with pytest.raises(ConfigError) as err:
        pm.storage()
    assert "[storage] dsn" in err.value.message and "NERVOUS_POSTGRES_DSN" in err.value.message


@pytest.mark.parametrize(("settings", "words"), [
    ({"schema": "Bad-Name"}, "schema"),
    ({"pool_max_size": 0}, "pool_max_size"),
    ({"statement_timeout": "5s"}, "statement_timeout"),
    ({"pool_size": 3}, "unknown key"),
])
def test_bad_settings_are_config_errors(nervous_config: Any, settings: dict[str, Any], words: str) -> None:
    from nervous.kernel.manager import PluginManager

    nervous_config.storage.backend = "postgres"
    nervous_config.storage.dsn = SERVER_DSN
    nervous_config.plugins.settings["postgres"] = settings
    pm = PluginManager(nervous_config, autoload=False)
    with pytest.raises(ConfigError, match=words):
        pm.storage()


# ------------------------------------------------------------------------------------ semantics


def test_crud_and_logs(store: Any) -> None:
    assert store.read("cortex", "memory").value is None
    assert store.update("cortex", "memory", lambda d: d.setdefault("regions", {})).result == {}
    store.update("cortex", "memory", lambda d: d["regions"].update(pdf={"weight": 0.5}))
    assert store.read("cortex", "memory").value == {"regions": {"pdf": {"weight": 0.5}}}
    assert store.keys("cortex") == ["memory"] and store.keys("goals") == []
    with pytest.raises(NotFound):
        store.update("cortex", "other", lambda d: d.update(x=1), create=False)
    assert store.keys("cortex") == ["memory"]
    assert store.delete("cortex", "memory") is True and store.delete("cortex", "memory") is False
    for i in range(5):
        store.append("audit", {"n": i})
    assert [e["n"] for e in store.read_log("audit")] == [0, 1, 2, 3, 4]
    assert [e["n"] for e in store.read_log("audit", limit=2)] == [3, 4]
    assert store.read_log("nothing") == []
    assert store.check() == []


def test_failing_fn_writes_nothing(store: Any) -> None:
    store.update("goals", "g", lambda d: d.update(state="open"))

    def half_then_fail(d: dict[str, Any]) -> None:
        d["state"] = "half-written"
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        store.update("goals", "g", half_then_fail)
    with pytest.raises(RuntimeError):
        store.update("goals", "new", half_then_fail)
    assert store.read("goals", "g").value == {"state": "open"}
    assert store.keys("goals") == ["g"]


def test_json_round_trip_is_exact(store: Any) -> None:
    doc = {
        "unicode": "naïve 日本語 🧠 \u0000 \u2028 \"quoted\" \\ back",
        "huge_float": 1e300, "tiny": 5e-324, "third": 1 / 3, "negative_zero": -0.0,
        "big_int": 2 ** 70, "int_looking_float": 1.0, "nested": {"a": [1, [2, {"b": None}], True, False]},
        "large": "x" * 2_000_000,
        "lone_surrogate": "\ud800",
    }
    store.update("odd", "ключ / with spaces ../..", lambda d: d.update(doc))
    back = store.read("odd", "ключ / with spaces ../..").value
    assert json.dumps(back, sort_keys=True) == json.dumps(doc, sort_keys=True)
    assert isinstance(back["int_looking_float"], float) and isinstance(back["huge_float"], float)
    store.append("audit", {"text": doc["unicode"], "f": 1e300})
    assert store.read_log("audit") == [{"text": doc["unicode"], "f": 1e300}]


def test_bad_input_is_typed_and_stores_nothing(store: Any) -> None:
    with pytest.raises(BadInput):
        store.update("Bad Collection", "k", lambda d: None)
    with pytest.raises(BadInput):
        store.read("goals", "")
    with pytest.raises(BadInput):
        store.update("goals", "\ud800", lambda d: None)
    with pytest.raises(BadInput):
        store.update("goals", "k", lambda d: d.update(when=object()))
    with pytest.raises(BadInput):
        store.append("audit", ["not", "an", "object"])  # type: ignore[arg-type]
    with pytest.raises(BadInput):
        store.read_log("audit", limit=-1)
    assert store.keys("goals") == [] and store.read_log("audit") == []


def test_audit_log_is_append_only_in_the_database(store: Any, schema: str) -> None:
    store.append("audit", {"event": "install"})
    with pytest.raises(Exception, match="append-only"):
        sql(f'UPDATE "{schema}".logs SET entry = %s', ('{"event": "forged"}',))
    with pytest.raises(Exception, match="append-only"):
        sql(f'DELETE FROM "{schema}".logs')
    assert store.read_log("audit") == [{"event": "install"}]


def test_check_reports_a_damaged_row(store: Any, schema: str) -> None:
    store.update("goals", "good", lambda d: d.update(ok=True))
    sql(f'INSERT INTO "{schema}".documents (collection, key, doc) VALUES (%s, %s, %s)',
        ("goals", "bad", "{truncated"))
    problems = store.check()
    assert [p.where for p in problems] == ["goals/bad"] and "not valid JSON" in problems[0].message


# ------------------------------------------------------------------------------------ schema


def _open_in_child(dsn: str, schema: str, barrier: Any, results: Any) -> None:
    from nervous_plugins.postgres_store import open_store

    store = open_store(dsn, schema=schema)
    barrier.wait(timeout=60)
    try:
        store.update("goals", f"from-{os.getpid()}", lambda d: d.update(ok=True))
        results.put(("ok", store.schema_version))
    except Exception as exc:  # reported to the parent, which fails the test
        results.put(("error", repr(exc)))
    finally:
        store.close()


def test_many_processes_creating_the_schema_at_once_do_not_race(schema: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(6), ctx.Queue()
    procs = [ctx.Process(target=_open_in_child, args=(SERVER_DSN, schema, barrier, results)) for _ in range(6)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=90) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert outcomes == [("ok", SCHEMA_VERSION)] * 6
    assert sql(f'SELECT value FROM "{schema}".meta WHERE key = %s', ("schema_version",)) == [(str(SCHEMA_VERSION),)]


def test_newer_schema_version_is_refused(open_pg: Callable[..., Any], schema: str) -> None:
    open_pg().update("goals", "g", lambda d: d.update(x=1))
    sql(f'UPDATE "{schema}".meta SET value = %s WHERE key = %s', (str(SCHEMA_VERSION + 1), "schema_version"))
    with pytest.raises(UnsupportedVersion, match="upgrade nervous"):
        open_pg().read("goals", "g")


# ------------------------------------------------------------------------------------ failures


def test_unreachable_server_names_host_and_database_quickly() -> None:
    from nervous_plugins.postgres_store import open_store

    store = open_store("postgresql://agent:hunter2-secret@127.0.0.1:1/fleet", schema="nervous", connect_timeout=3)
    started = time.monotonic()
    with pytest.raises(StorageError) as err:
        store.read("goals", "g")
    assert time.monotonic() - started < 5
    message = err.value.message
    assert "127.0.0.1:1/fleet" in message and "unreachable" in message
    assert "hunter2-secret" not in message + repr(err.value.details) + repr(store) + store.location
    assert err.value.code == "storage_unavailable"


def test_refused_login_names_host_and_database_never_the_password() -> None:
    from nervous_plugins.postgres_store import open_store

    assert SERVER_DSN is not None
    dsn = _with_password(SERVER_DSN, "no_such_agent_role", "hunter2-secret")
    with pytest.raises(StorageError) as err:
        open_store(dsn).read("goals", "g")
    message = err.value.message
    assert "authentication refused" in message and "127.0.0.1:5432/" in message
    assert "hunter2-secret" not in message + repr(err.value.details) + str(err.value)


def test_unknown_database_is_named() -> None:
    from nervous_plugins.postgres_store import open_store

    assert SERVER_DSN is not None
    dsn = SERVER_DSN.rsplit("/", 1)[0] + "/no_such_database_here"
    with pytest.raises(StorageError, match="no_such_database_here.*database does not exist"):
        open_store(dsn).read("goals", "g")


def _terminate_backend_holding(schema: str) -> int:
    """Kill (from outside) the server process of the store's connection waiting inside ``fn``."""
    rows = sql("SELECT pid FROM pg_stat_activity WHERE application_name = %s AND state = 'idle in transaction'",
               (f"nervous:{schema}",))
    assert len(rows) == 1, rows
    assert sql("SELECT pg_terminate_backend(%s)", (rows[0][0],)) == [(True,)]
    return int(rows[0][0])


def test_connection_dropped_mid_transaction_loses_nothing_acknowledged(store: Any, schema: str) -> None:
    for _ in range(3):
        store.update("cortex", "memory", lambda d: d.update(n=d.get("n", 0) + 1))
    calls = []

    def killed_meanwhile(d: dict[str, Any]) -> None:
        calls.append(1)
        _terminate_backend_holding(schema)
        d["n"] += 100

    with pytest.raises(StorageError) as err:
        store.update("cortex", "memory", killed_meanwhile)
    assert err.value.code == "storage_unavailable" and "connection lost" in err.value.message
    assert "127.0.0.1:5432/" in err.value.message
    assert calls == [1]  # not silently re-applied
    assert store.read("cortex", "memory").value == {"n": 3}
    store.update("cortex", "memory", lambda d: d.update(n=d["n"] + 1))  # the pool recovered
    assert store.read("cortex", "memory").value == {"n": 4}


def test_pooled_connections_closed_by_the_server_are_replaced(open_pg: Callable[..., Any], schema: str) -> None:
    """A server restart or fail-over closes every idle pooled connection; the next calls just work."""
    store = open_pg(pool_min_size=3, pool_max_size=3)
    store.update("goals", "g", lambda d: d.update(n=1))
    deadline = time.monotonic() + 10
    while len(_backend_pids(schema)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    killed = sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                 (f"nervous:{schema}",))
    assert len(killed) == 3 and all(k == (True,) for k in killed)
    store.update("goals", "g", lambda d: d.update(n=d["n"] + 1))
    assert store.read("goals", "g").value == {"n": 2}


def _killed_inside_fn(dsn: str, schema: str, inside: Any) -> None:
    from nervous_plugins.postgres_store import open_store

    store = open_store(dsn, schema=schema)

    def stall(d: dict[str, Any]) -> None:
        d["n"] = -1
        inside.set()
        time.sleep(60)  # SIGKILLed long before this ends

    store.update("cortex", "memory", stall)


def test_client_killed_holding_the_row_lock_leaves_nothing_behind(store: Any, schema: str) -> None:
    import signal

    store.update("cortex", "memory", lambda d: d.update(n=7))
    ctx = multiprocessing.get_context("spawn")
    inside = ctx.Event()
    child = ctx.Process(target=_killed_inside_fn, args=(SERVER_DSN, schema, inside), daemon=True)
    child.start()
    try:
        assert inside.wait(timeout=60), "the child never reached fn"
        os.kill(child.pid or 0, signal.SIGKILL)
    finally:
        child.join(timeout=30)
    assert child.exitcode == -signal.SIGKILL
    started = time.monotonic()
    store.update("cortex", "memory", lambda d: d.update(n=d["n"] + 1))  # the lock died with the client
    assert time.monotonic() - started < 3
    assert store.read("cortex", "memory").value == {"n": 8}
    assert store.check() == []


def _hold_row_lock(schema: str, ready: threading.Event, release: threading.Event) -> None:
    import psycopg

    assert SERVER_DSN is not None
    with psycopg.connect(SERVER_DSN) as conn:
        conn.execute(f'SELECT doc FROM "{schema}".documents WHERE key = %s FOR UPDATE', ("g",))
        ready.set()
        release.wait(timeout=30)


def _hold_table_lock(schema: str, ready: threading.Event, release: threading.Event) -> None:
    import psycopg

    assert SERVER_DSN is not None
    with psycopg.connect(SERVER_DSN) as conn:
        conn.execute(f'LOCK TABLE "{schema}".documents IN ACCESS EXCLUSIVE MODE')
        ready.set()
        release.wait(timeout=30)


@pytest.mark.parametrize(("holder", "options", "limit"), [
    (_hold_row_lock, {"lock_timeout": 300}, "lock_timeout 300 ms"),
    (_hold_table_lock, {"lock_timeout": 20_000, "statement_timeout": 300}, "statement_timeout 300 ms"),
])
def test_timeouts_are_storage_busy(open_pg: Callable[..., Any], schema: str, holder: Any,
                                   options: dict[str, Any], limit: str) -> None:
    store = open_pg(**options)
    store.update("goals", "g", lambda d: d.update(n=1))
    ready, release = threading.Event(), threading.Event()
    thread = threading.Thread(target=holder, args=(schema, ready, release))
    thread.start()
    try:
        assert ready.wait(timeout=10)
        started = time.monotonic()
        with pytest.raises(StorageBusy) as err:
            store.update("goals", "g", lambda d: d.update(n=2))
        assert time.monotonic() - started < 5
        assert limit in err.value.message and "127.0.0.1:5432/" in err.value.message
        assert err.value.exit_code == 3
    finally:
        release.set()
        thread.join(timeout=30)
    assert store.read("goals", "g").value == {"n": 1}


def test_exhausted_pool_is_storage_busy(open_pg: Callable[..., Any]) -> None:
    store = open_pg(pool_min_size=1, pool_max_size=1, lock_timeout=200, connect_timeout=1)
    store.update("goals", "g", lambda d: d.update(n=1))
    inside, release = threading.Event(), threading.Event()

    def slow(d: dict[str, Any]) -> None:
        inside.set()
        release.wait(timeout=30)
        d["n"] += 1

    thread = threading.Thread(target=store.update, args=("goals", "g", slow))
    thread.start()
    try:
        assert inside.wait(timeout=10)
        with pytest.raises(StorageBusy, match="pool_max_size"):
            store.read("goals", "other")
    finally:
        release.set()
        thread.join(timeout=30)
    assert store.read("goals", "g").value == {"n": 2}


# ------------------------------------------------------------------------------------ two hosts


def _learn(region: str, worker: int, step: int) -> Callable[[dict[str, Any]], None]:
    """A cortex-like merge: bump a candidate's weight, count a signal, keep the last lessons."""

    def fn(memory: dict[str, Any]) -> None:
        r = memory.setdefault("regions", {}).setdefault(region, {"candidates": {}, "signals": 0, "lessons": []})
        cand = r["candidates"].setdefault(f"skill-{step % 5}", {"weight": 0.0, "uses": 0})
        cand["weight"] = round(cand["weight"] + 0.01, 6)
        cand["uses"] += 1
        r["signals"] += 1
        r["lessons"] = (r["lessons"] + [f"w{worker}-s{step}"])[-30:]
        memory["total"] = memory.get("total", 0) + 1

    return fn


def test_two_independent_pools_update_one_cortex_region_without_losing_anything(
        open_pg: Callable[..., Any]) -> None:
    hosts = [open_pg(pool_min_size=2, pool_max_size=3), open_pg(pool_min_size=2, pool_max_size=3)]
    assert hosts[0]._ensure_open() is not hosts[1]._ensure_open()
    per_worker, workers_per_host = 60, 3
    errors: list[BaseException] = []

    def work(host: Any, worker: int) -> None:
        try:
            for step in range(per_worker):
                host.update("cortex", "memory", _learn("pdf-extraction", worker, step))
        except BaseException as exc:  # collected and re-raised by the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(hosts[h], h * 10 + w))
               for h in range(2) for w in range(workers_per_host)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    total = 2 * workers_per_host * per_worker
    for host in hosts:
        memory = host.read("cortex", "memory").value
        region = memory["regions"]["pdf-extraction"]
        assert memory["total"] == region["signals"] == total
        assert sum(c["uses"] for c in region["candidates"].values()) == total
        assert len(region["lessons"]) == 30


# ------------------------------------------------------------------------------------ permissions


@pytest.fixture
def roles() -> Iterator[Callable[[str], str]]:
    """Create throw-away login roles; dropped (with what they own) afterwards."""
    made: list[str] = []

    def make(purpose: str) -> str:
        name = f"nervous_{purpose}_{secrets.token_hex(3)}"
        sql(f'CREATE ROLE "{name}" LOGIN')
        made.append(name)
        return name

    yield make
    for name in made:
        sql(f'DROP OWNED BY "{name}" CASCADE')
        sql(f'DROP ROLE "{name}"')


def _as_role(role: str) -> str:
    assert SERVER_DSN is not None
    return f"postgresql://{role}@{SERVER_DSN.split('@', 1)[1]}"


def test_owner_of_a_precreated_schema_and_a_dml_only_agent_role(
        open_pg: Callable[..., Any], schema: str, roles: Callable[[str], str]) -> None:
    owner, agent, stranger = roles("owner"), roles("agent"), roles("stranger")
    sql(f'CREATE SCHEMA "{schema}" AUTHORIZATION "{owner}"')
    # the owner cannot create schemas, yet first use migrates inside the schema it was given
    open_pg(dsn=_as_role(owner)).update("goals", "g", lambda d: d.update(n=1))
    s = f'"{schema}"'
    for grant in (f'GRANT USAGE ON SCHEMA {s} TO "{agent}"',  # the grants docs/scaling.md lists
                  f'GRANT SELECT ON {s}.meta TO "{agent}"',
                  f'GRANT SELECT, INSERT, UPDATE, DELETE ON {s}.documents TO "{agent}"',
                  f'GRANT SELECT, INSERT ON {s}.logs, {s}.quarantine TO "{agent}"',
                  f'GRANT USAGE ON SEQUENCE {s}.logs_id_seq, {s}.quarantine_id_seq TO "{agent}"'):
        sql(grant)
    agent_store = open_pg(dsn=_as_role(agent))
    agent_store.update("goals", "g", lambda d: d.update(n=d["n"] + 1))
    agent_store.append("audit", {"by": "agent"})
    assert agent_store.read("goals", "g").value == {"n": 2}
    assert agent_store.read_log("audit") == [{"by": "agent"}] and agent_store.check() == []
    with pytest.raises(Exception, match="permission denied"):  # append-only by permission too
        sql(f'SET ROLE "{agent}"; DELETE FROM {s}.logs')
    with pytest.raises(StorageError, match="permission denied") as err:
        open_pg(dsn=_as_role(stranger)).read("goals", "g")
    assert "127.0.0.1:5432/" in err.value.message


# ------------------------------------------------------------------------------------ command line


def _nervous(args: list[str], env: dict[str, str], cwd: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli(*args, "--json", environ=env, cwd=Path(cwd))
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_cli_migrates_file_to_postgres_to_sqlite_verified(nervous_home: Any, tmp_path: Any, schema: str) -> None:
    from nervous_plugins.file_store import open_store as open_file_store

    source = open_file_store(nervous_home / "data")
    with source:
        source.update("cortex", "memory", lambda d: d.update(regions={"pdf": {"weight": 0.75}}, note="ü 🧠"))
        for i in range(12):
            source.update("goals", f"goal {i}/x", lambda d, i=i: d.update(i=i))
            source.append("audit", {"i": i})
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home), "NERVOUS_POSTGRES_DSN": SERVER_DSN or "",
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    schema_opt = ["-c", f'plugins.postgres.schema="{schema}"']
    code, out = _nervous([*schema_opt, "storage", "migrate", "--to", "postgres"], env, str(tmp_path))
    assert code == 0, out
    assert (out["documents"], out["log_entries"], out["verified"]) == (13, 12, True)
    assert out["target"]["backend"] == "postgres" and schema in out["target"]["location"]

    pg_env = {**env, "NERVOUS_STORAGE_BACKEND": "postgres"}
    code, out = _nervous([*schema_opt, "storage", "check"], pg_env, str(tmp_path))
    assert code == 0 and out["problems"] == [], out
    back_path = tmp_path / "back.db"
    code, out = _nervous([*schema_opt, "storage", "migrate", "--to", "sqlite", "--path", str(back_path)],
                         pg_env, str(tmp_path))
    assert code == 0 and out["documents"] == 13 and out["target"]["backend"] == "sqlite", out
    from nervous_plugins.sqlite_store import open_store as open_sqlite_store

    with open_file_store(nervous_home / "data") as original, open_sqlite_store(back_path) as back:
        for coll in ("cortex", "goals"):
            assert back.keys(coll) == original.keys(coll)
            for key in original.keys(coll):
                assert back.read(coll, key).value == original.read(coll, key).value
        assert back.read_log("audit") == original.read_log("audit")


def test_cli_reports_an_unreachable_database_without_the_password(nervous_home: Any, tmp_path: Any) -> None:
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home), "NERVOUS_STORAGE_BACKEND": "postgres",
           "NERVOUS_POSTGRES_DSN": "postgresql://agent:hunter2-secret@127.0.0.1:1/fleet",
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    code, out = _nervous(["storage", "info"], env, str(tmp_path))
    assert code == 3 and out["ok"] is False, out
    assert out["error"]["code"] == "storage_unavailable"
    assert "127.0.0.1:1/fleet" in out["error"]["message"]
    assert "hunter2-secret" not in json.dumps(out)


# ------------------------------------------------------------------------------------ fork


def _in_forked_child(body: Callable[[], None]) -> int:
    """Run ``body`` in a forked child (the way host agents start workers); its exit code."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork() with the pool's threads alive
        pid = os.fork()
    if pid == 0:  # never return into pytest
        status = 1
        try:
            body()
            status = 0
        finally:
            os._exit(status)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_forked_children_use_their_own_pool_and_leave_the_parents_sessions_alone(
        store: Any, schema: str) -> None:
    store.update("goals", "g", lambda d: d.update(n=1))
    parents = _backend_pids(schema)
    assert parents

    def use_then_close() -> None:
        store.update("goals", "g", lambda d: d.update(n=d["n"] + 1))
        store.close()

    assert _in_forked_child(store.close) == 0  # closing what it inherited must not end our sessions
    assert _in_forked_child(use_then_close) == 0
    assert parents <= _backend_pids(schema), "a child ended the parent's database sessions"
    store.update("goals", "g", lambda d: d.update(n=d["n"] + 1))
    assert store.read("goals", "g").value == {"n": 3}
    assert parents <= _backend_pids(schema)


def _schema_exists(schema: str) -> bool:
    return sql("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = %s", (schema,)) == [(1,)]


def test_read_only_commands_create_no_schema(nervous_home: Any, tmp_path: Any, schema: str) -> None:
    """A fresh database stays as it was through read-only commands; the first write creates the schema."""
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home), "NERVOUS_STORAGE_BACKEND": "postgres",
           "NERVOUS_POSTGRES_DSN": SERVER_DSN or "", "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    schema_opt = ["-c", f'plugins.postgres.schema="{schema}"']
    for args in (["perceive", "convert a pdf"], ["cortex", "show"], ["goal", "list"], ["list"],
                 ["storage", "info"], ["storage", "check"], ["audit"]):
        code, out = _nervous([*schema_opt, *args], env, str(tmp_path))
        assert code == 0 and out["ok"] is True, (args, out)
        assert not _schema_exists(schema), args
    code, out = _nervous([*schema_opt, "report", "demo", "--region", "convert-pdf", "--task", "convert a pdf",
                          "--outcome", "success"], env, str(tmp_path))
    assert code == 0, out
    assert _schema_exists(schema)
    code, out = _nervous([*schema_opt, "storage", "info"], env, str(tmp_path))
    assert code == 0 and out["schema_version"] == SCHEMA_VERSION, out


def test_a_schema_another_process_creates_is_seen_by_an_open_store(open_pg: Callable[..., Any]) -> None:
    reader, writer = open_pg(), open_pg()
    assert reader.read("goals", "g").value is None and reader.keys("goals") == []  # no schema yet
    writer.update("goals", "g", lambda d: d.update(n=1))
    assert reader.read("goals", "g").value == {"n": 1} and reader.keys("goals") == ["g"]
    assert reader.check() == []
