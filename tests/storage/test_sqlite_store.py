"""sqlite backend specifics: location, permissions, WAL, versions, busy time-out."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins.sqlite_store import MIGRATIONS, SqliteStore

from nervous.errors import StorageBusy, StorageError, UnsupportedVersion


def test_selected_by_config_in_the_data_dir(nervous_config: Any) -> None:
    from nervous.kernel.manager import PluginManager

    nervous_config.storage.backend = "sqlite"
    pm = PluginManager(nervous_config, autoload=False)
    try:
        store = pm.storage()
        assert isinstance(store, SqliteStore)
        assert store.path == pm.paths.data_dir / "nervous.sqlite3"
        store.update("goals", "goals", lambda d: d.update(v=1))
        assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
        conn = sqlite3.connect(store.path)
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            conn.close()
    finally:
        pm.close()


def test_path_may_name_a_directory(nervous_config: Any, tmp_path: Path) -> None:
    from nervous.kernel.manager import PluginManager

    nervous_config.storage.backend = "sqlite"
    nervous_config.storage.path = str(tmp_path)
    pm = PluginManager(nervous_config, autoload=False)
    try:
        assert pm.storage().path == tmp_path / "nervous.sqlite3"
    finally:
        pm.close()


def test_newer_schema_is_refused_and_untouched(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = SqliteStore(db)
    assert not db.exists()  # created by the first write, not by opening
    store.update("goals", "goals", lambda d: d.update(v=1))
    store.close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(len(MIGRATIONS) + 1),))
    conn.close()
    with pytest.raises(UnsupportedVersion, match="newer nervous"):
        SqliteStore(db)
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM meta").fetchone()[0] == str(len(MIGRATIONS) + 1)
    conn.close()


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError, match="s.sqlite3") as caught:
        SqliteStore(db)
    assert caught.value.code == "storage_damaged"
    assert db.read_bytes() == b"this is not a database" * 100


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_path_that_is_not_a_regular_file_is_a_bad_path(tmp_path: Path, kind: str) -> None:
    import os

    from nervous.errors import BadInput

    path = tmp_path / "s.sqlite3"
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    with pytest.raises(BadInput, match="s.sqlite3") as caught:
        SqliteStore(path)
    assert caught.value.code == "bad_path" and caught.value.exit_code == 2


HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(60)
"""


def test_busy_writer_times_out_and_reads_continue(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = SqliteStore(db, lock_timeout=0.4)
    store.update("goals", "goals", lambda d: d.update(v=1))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(StorageBusy, match=str(db)):
            store.update("goals", "goals", lambda d: d.update(v=2))
        assert store.read("goals", "goals").value == {"v": 1}
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    store.update("goals", "goals", lambda d: d.update(v=3))
    assert store.read("goals", "goals").value == {"v": 3}
    store.close()
