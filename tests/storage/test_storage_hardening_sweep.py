"""Storage hardening: close() racing other threads, non-regular files in the file store, a migration
target inside its source, damaged schema metadata, and a SQLite database locked by another process.

Everything here runs for real: threads and child processes, real SQLite files, a real PostgreSQL
server (skipped without one), FIFOs made with ``mkfifo``. Commands that used to hang run in a child
process under a time limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins.file_store import FileStore
from nervous_plugins.sqlite_store import SqliteStore

from nervous.errors import StorageBusy, StorageError
from nervous.kernel.durable import load_json
from nervous.testing.cli import CliResult, run_cli

NERVOUS = str(Path(sys.executable).parent / "nervous")


def nervous(home: Path, *args: str) -> CliResult:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1")
    return run_cli(*args, env=env, cwd=home.parent)


def nervous_child(home: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """The real console script in a child process: a command that blocks fails the test, not the run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1")
    try:
        return subprocess.run([NERVOUS, *args], env=env, cwd=home.parent, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"nervous {' '.join(args)} blocked for {timeout}s")


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` with a digest of its content (to prove nothing was written)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif p.is_dir():
            out[str(p.relative_to(root)) + "/"] = ""
    return out


# ------------------------------------------------------------------------------------------------
# 1. close() while other threads use the same sqlite store
# ------------------------------------------------------------------------------------------------

_CLOSE_RACE = textwrap.dedent("""
    import sys, threading, time
    from nervous_plugins.sqlite_store import SqliteStore
    from nervous.errors import StorageError
    for n in range(12):
        store = SqliteStore(f"{sys.argv[1]}/db{n}.sqlite3")
        for i in range(40):
            store.update("docs", f"k{i}", lambda d, i=i: d.update(n=i, text="x" * 2000))
        out, started = [], threading.Barrier(4)
        def reader():
            started.wait()
            try:
                while True:
                    store.keys("docs"); store.info(); store.read("docs", "k1"); store.check()
                    store.update("docs", "k2", lambda d: d.update(n=d.get("n", 0) + 1))
            except StorageError as e:
                out.append(e.code)
            except Exception as e:
                out.append(f"RAW {type(e).__name__}: {e}")
        threads = [threading.Thread(target=reader) for _ in range(3)]
        for t in threads: t.start()
        started.wait(); time.sleep(0.03)
        store.close()
        for t in threads: t.join(60)
        print(",".join(out), flush=True)
""")


def test_sqlite_close_while_other_threads_run_statements_does_not_crash(tmp_path: Path) -> None:
    # before the fix: SIGSEGV (rc -11) from closing a connection under a running statement
    res = subprocess.run([sys.executable, "-c", _CLOSE_RACE, str(tmp_path)], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
    lines = res.stdout.split()
    assert len(lines) == 12
    for line in lines:
        assert line.split(",") == ["storage_closed"] * 3, line


def test_sqlite_store_is_refused_after_close_and_close_is_idempotent(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.sqlite3")
    store.update("docs", "a", lambda d: d.update(v=1))
    store.close()
    store.close()
    for call in (lambda: store.read("docs", "a"), lambda: store.update("docs", "a", lambda d: None),
                 store.info, lambda: store.append("audit", {"x": 1})):
        with pytest.raises(StorageError) as err:
            call()
        assert err.value.code == "storage_closed"
    again = SqliteStore(tmp_path / "s.sqlite3")
    try:
        assert again.read("docs", "a").value == {"v": 1}
    finally:
        again.close()


def test_sqlite_close_from_inside_an_update_finishes_the_update(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.sqlite3")
    def close_then_write(d: dict[str, Any]) -> None:
        store.close()  # returns at once: it does not wait for the update it is called from
        d.update(v=2)

    store.update("docs", "a", close_then_write)
    with pytest.raises(StorageError):
        store.read("docs", "a")
    again = SqliteStore(tmp_path / "s.sqlite3")
    try:
        assert again.read("docs", "a").value == {"v": 2}
    finally:
        again.close()


# ------------------------------------------------------------------------------------------------
# 2. a FIFO or a directory where the file store keeps a file
# ------------------------------------------------------------------------------------------------


@pytest.fixture
def fifo_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "data" / "skill-cortex").mkdir(parents=True)
    (home / "data" / ".nervous-store.json").write_text('{"schema_version": 1}')
    return home


@pytest.mark.parametrize("cmd", [["storage", "check"], ["storage", "info"], ["cortex", "stats"],
                                 ["perceive", "hello"], ["audit"]])
@pytest.mark.parametrize("where", ["skill-cortex/cortex.json", "logs/audit.jsonl", ".nervous-store.json"])
def test_a_fifo_in_the_file_store_never_blocks(fifo_home: Path, where: str, cmd: list[str]) -> None:
    target = fifo_home / "data" / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    res = nervous_child(fifo_home, *cmd, "--json")
    data = json.loads(res.stdout)
    assert res.returncode in (0, 1), (res.returncode, res.stderr)
    text = json.dumps(data)
    if res.returncode == 1 and not data["ok"] and "error" in data:
        assert data["error"]["code"] == "storage_damaged", data
    if cmd == ["storage", "check"]:
        assert res.returncode == 1 and "named pipe" in text, data
    assert os.path.exists(target)  # reported, not removed


def test_load_json_refuses_a_fifo_without_opening_it_for_a_blocking_read(tmp_path: Path) -> None:
    fifo = tmp_path / "doc.json"
    os.mkfifo(fifo)
    with pytest.raises(StorageError) as err:
        load_json(fifo)  # a plain open() would block here forever: no writer ever comes
    assert err.value.code == "storage_damaged" and "named pipe" in err.value.message


def test_a_directory_at_a_document_path_is_reported_by_check(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = FileStore(home / "data")
    store.update("goals", "goals", lambda d: d.update(v=1))
    (home / "data" / "skill-cortex" / "cortex.json").mkdir(parents=True)
    res = nervous(home, "storage", "check", "--json")
    data = json.loads(res.stdout)
    assert res.returncode == 1 and not data["ok"], data
    assert any(p["where"].endswith("skill-cortex/cortex.json") and "directory" in p["message"]
               for p in data["problems"]), data
    res = nervous(home, "storage", "get", "skill-cortex", "cortex", "--json")
    assert res.returncode == 1 and json.loads(res.stdout)["error"]["code"] == "storage_damaged"


@pytest.mark.parametrize("name", ["goals", "logs"])
def test_a_file_where_a_collection_folder_belongs_is_reported_by_check(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    FileStore(home / "data").update("skill-cortex", "cortex", lambda d: d.update(v=1))
    blocker = home / "data" / name
    blocker.write_bytes(b"a person's notes, not a folder")  # e.g. data/goals replaced by a regular file
    before = tree(home)
    res = nervous(home, "storage", "check", "--json")
    data = json.loads(res.stdout)
    assert res.returncode == 1 and not data["ok"], data
    what = "logs folder" if name == "logs" else f"folder of the collection {name!r}"
    assert [p for p in data["problems"] if p["where"] == str(blocker)] == [
        {"where": str(blocker), "message": f"is a regular file where the store keeps its {what}; nothing of it "
                                           "can be read or written: move it away"}], data
    res = nervous(home, "storage", "check")
    assert res.returncode == 1 and f"{blocker}\n    is a regular file where" in res.stdout, res.stdout
    assert tree(home) == before  # reported, never removed or rewritten


def test_a_fifo_log_is_not_appended_to(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "data")
    (tmp_path / "data" / "logs").mkdir(parents=True)
    os.mkfifo(tmp_path / "data" / "logs" / "audit.jsonl")
    with pytest.raises(StorageError) as err:
        store.append("audit", {"x": 1})
    assert err.value.code == "storage_damaged"
    assert store.read_log("audit") == [] and "named pipe" in " ".join(store.pop_warnings())


# ------------------------------------------------------------------------------------------------
# 3. a migration target inside the source store (or holding it)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("relation", ["inside", "around", "alias"])
def test_migrate_refuses_a_target_overlapping_the_source(tmp_path: Path, relation: str) -> None:
    home = tmp_path / "home"
    source_root = home / "data" / "store"
    source = FileStore(source_root)
    source.update("goals", "goals", lambda d: d.update(v=1))
    source.append("audit", {"i": 1})
    args = ["-c", f"storage.path='{source_root}'"]
    if relation == "inside":
        target = source_root / "nested"
    elif relation == "around":
        target = home / "data"
    else:
        (tmp_path / "link").symlink_to(source_root)
        target = tmp_path / "link"
    before = tree(home)
    res = nervous(home, *args, "storage", "migrate", "--to", "file", "--path", str(target), "--force", "--json")
    assert res.returncode == 2, res.stdout + res.stderr
    error = json.loads(res.stdout)["error"]
    assert error["code"] == "invalid_arg" and "nothing was written" in error["message"], error
    assert tree(home) == before


def test_migrate_to_a_sibling_folder_still_works(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = FileStore(home / "data" / "store")
    source.update("goals", "goals", lambda d: d.update(v=1))
    res = nervous(home, "-c", f"storage.path='{home / 'data' / 'store'}'", "storage", "migrate", "--to", "file",
                  "--path", str(home / "data" / "store2"), "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert FileStore(home / "data" / "store2").read("goals", "goals").value == {"v": 1}


# ------------------------------------------------------------------------------------------------
# 4. damaged schema metadata: storage_damaged (exit 1), nothing modified
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("marker", ['{"schema_version": -1}', '{"schema_version": 0}', '{"schema_version": "1"}'])
def test_file_store_damaged_marker_is_reported(tmp_path: Path, marker: str) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / ".nervous-store.json").write_text(marker)
    before = tree(home)
    for cmd in (["storage", "check"], ["storage", "info"], ["cortex", "stats"]):
        res = nervous(home, *cmd, "--json")
        assert res.returncode == 1, (cmd, res.stdout, res.stderr)
        assert json.loads(res.stdout)["error"]["code"] == "storage_damaged", res.stdout
    assert tree(home) == before


def _sqlite_with_data(path: Path) -> None:
    store = SqliteStore(path)
    try:
        store.update("goals", "goals", lambda d: d.update(v=1))
        store.append("audit", {"i": 1})
    finally:
        store.close()


def _sql(path: Path, script: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.executescript(script)
    finally:
        conn.close()


@pytest.mark.parametrize("damage", [
    "DELETE FROM meta",
    "DROP TABLE meta",
    "UPDATE meta SET value = '0'",
    "UPDATE meta SET value = '-3'",
    "UPDATE meta SET value = 'abc'",
    "ALTER TABLE documents RENAME COLUMN body TO b",
    "DROP TABLE quarantine",
])
def test_sqlite_damaged_metadata_is_reported_and_left_alone(tmp_path: Path, damage: str) -> None:
    home = tmp_path / "home"
    db = home / "data" / "nervous.sqlite3"
    db.parent.mkdir(parents=True)
    _sqlite_with_data(db)
    _sql(db, damage + "; PRAGMA wal_checkpoint(TRUNCATE);")
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(StorageError) as err:
        SqliteStore(db)
    assert err.value.code == "storage_damaged", err.value.message
    for cmd in (["storage", "check"], ["storage", "info"], ["cortex", "stats"]):
        res = nervous(home, "-c", "storage.backend='sqlite'", *cmd, "--json")
        assert res.returncode == 1, (cmd, res.stdout, res.stderr)
        assert json.loads(res.stdout)["error"]["code"] == "storage_damaged", res.stdout
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_sqlite_blob_body_is_quarantined_like_bad_json(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = SqliteStore(db)
    try:
        store.update("goals", "goals", lambda d: d.update(v=1))
        store.update("goals", "goals", lambda d: d.update(v=2))
        _sql(db, "UPDATE documents SET body = CAST(body AS BLOB)")
        assert any("BLOB" in p.message for p in store.check())
        snap = store.read("goals", "goals")
        assert snap.value == {"v": 1}  # the previous version
        assert any("quarantined" in w for w in snap.warnings), snap.warnings
        store.update("goals", "goals", lambda d: d.update(v=3))
        assert store.read("goals", "goals").value == {"v": 3}
    finally:
        store.close()


def _postgres_dsn() -> str:
    dsn = os.environ.get("NERVOUS_TEST_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test")
    try:
        import psycopg

        psycopg.connect(dsn, connect_timeout=3).close()
    except Exception as exc:  # no driver or no server
        pytest.skip(f"no PostgreSQL server: {exc}")
    return dsn


@pytest.fixture
def pg_schema() -> Iterator[tuple[str, str]]:
    dsn = _postgres_dsn()
    import psycopg

    name = f"nervous_test_sweep_{os.getpid()}_{secrets.token_hex(3)}"
    yield dsn, name
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.mark.postgres
@pytest.mark.parametrize("damage", [
    "UPDATE {s}.meta SET value = 'abc'",
    "UPDATE {s}.meta SET value = '-1'",
    "UPDATE {s}.meta SET value = '0'",
    "DELETE FROM {s}.meta",
    "DROP TABLE {s}.meta",
])
def test_postgres_damaged_metadata_is_reported_and_left_alone(pg_schema: tuple[str, str], damage: str) -> None:
    import psycopg
    from nervous_plugins.postgres_store import open_store

    dsn, schema = pg_schema
    store = open_store(dsn, schema=schema)
    try:
        store.update("goals", "goals", lambda d: d.update(v=1))
    finally:
        store.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(damage.replace("{s}", f'"{schema}"'))

        def snapshot() -> Any:
            return conn.execute(f'SELECT collection, key, doc FROM "{schema}".documents ORDER BY 1, 2').fetchall(), \
                conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = %s", (schema,)).fetchone()

        before = snapshot()
        store = open_store(dsn, schema=schema)
        try:
            for call in (store.info, lambda: store.read("goals", "goals"), store.check,
                         lambda: store.update("goals", "other", lambda d: d.update(v=2))):
                with pytest.raises(StorageError) as err:
                    call()
                assert err.value.code == "storage_damaged", err.value.message
        finally:
            store.close()
        assert snapshot() == before


# ------------------------------------------------------------------------------------------------
# 5. a SQLite database locked by another process
# ------------------------------------------------------------------------------------------------

_HOLD_LOCK = textwrap.dedent("""
    import sqlite3, sys, time
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("PRAGMA locking_mode=EXCLUSIVE")
    c.execute("BEGIN EXCLUSIVE"); c.execute("SELECT count(*) FROM documents").fetchall(); c.execute("COMMIT")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
""")


def _hold_lock(db: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(db), str(seconds)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def test_sqlite_locked_by_another_process_is_storage_busy_within_lock_timeout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = home / "data" / "nervous.sqlite3"
    db.parent.mkdir(parents=True)
    _sqlite_with_data(db)
    holder = _hold_lock(db, 60)
    try:
        t0 = time.monotonic()
        with pytest.raises(StorageBusy) as err:
            SqliteStore(db, lock_timeout=0.5)
        assert time.monotonic() - t0 < 5
        assert "lock" in err.value.message
        for cmd in (["storage", "info"], ["storage", "check"], ["cortex", "stats"]):
            t0 = time.monotonic()
            res = nervous_child(home, "-c", "storage.backend='sqlite'", "-c", "storage.lock_timeout=0.5", *cmd,
                                "--json")
            assert res.returncode == 3, (cmd, res.stdout, res.stderr)
            assert json.loads(res.stdout)["error"]["code"] == "storage_busy"
            assert time.monotonic() - t0 < 10
    finally:
        holder.kill()
        holder.communicate()


def test_sqlite_waits_for_a_lock_released_within_lock_timeout(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    _sqlite_with_data(db)
    holder = _hold_lock(db, 0.7)
    try:
        store = SqliteStore(db, lock_timeout=10)
        try:
            assert store.read("goals", "goals").value == {"v": 1}
        finally:
            store.close()
    finally:
        holder.communicate()
