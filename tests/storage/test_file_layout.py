"""The file backend's on-disk layout, permissions, versions, logs and plugin wiring."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins.file_store import FileStore, decode_key, encode_key

from nervous.errors import BadInput, StorageBusy, UnsupportedVersion
from nervous.testing.storage_suite import ODD_KEYS


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_default_location_is_the_data_dir_and_cortex_path_is_documented(nervous_pm: Any) -> None:
    store = nervous_pm.storage()
    assert store.name == "file"
    data_dir = nervous_pm.paths.data_dir
    assert Path(store.info().location) == data_dir
    store.update("skill-cortex", "cortex", lambda d: d.update(version=1, regions={"pdf": {"note": "ünï"}}))
    cortex = data_dir / "skill-cortex" / "cortex.json"
    assert json.loads(cortex.read_text("utf-8"))["regions"]["pdf"]["note"] == "ünï"
    assert '\n  "regions"' in cortex.read_text("utf-8"), "pretty-printed with a 2-space indent"
    assert mode(cortex) == 0o600 and mode(cortex.parent) == 0o700
    assert json.loads((data_dir / ".nervous-store.json").read_text()) == {"schema_version": 1}


def test_configured_path_and_lock_timeout(nervous_config: Any, tmp_path: Path) -> None:
    from nervous.kernel.manager import PluginManager

    nervous_config.storage.path = str(tmp_path / "elsewhere")
    nervous_config.storage.lock_timeout = 1.5
    pm = PluginManager(nervous_config, autoload=False)
    store = pm.storage()
    assert isinstance(store, FileStore)
    assert store.root == tmp_path / "elsewhere" and store.lock_timeout == 1.5
    pm.close()


def test_odd_keys_stay_inside_the_root_and_decode_back(tmp_path: Path) -> None:
    root = tmp_path / "root"
    store = FileStore(root)
    for key in ODD_KEYS:
        store.update("odd", key, lambda d, key=key: d.update(key=key))
        assert decode_key(encode_key(key)) == key
        assert root in store.document_path("odd", key).parents
    outside = [p for p in tmp_path.rglob("*") if root not in p.parents and p != root]
    assert outside == []
    names = {p.name for p in (root / "odd").iterdir()}
    assert "%2E%2E.json" in names and "with%20space.json" in names
    assert (root / "odd" / "a" / "b" / "c.json").is_file(), "plain '/' keys nest as directories"
    assert (root / "odd" / "x%2Ejson" / "y.json").is_file(), "directory segments never contain a dot"


def test_overlong_key_segment_is_bad_input(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    with pytest.raises(BadInput, match="too long for the file backend"):
        store.update("odd", "é" * 120, lambda d: None)


def test_newer_store_version_is_refused_and_never_overwritten(tmp_path: Path) -> None:
    marker = tmp_path / ".nervous-store.json"
    marker.write_text('{"schema_version": 2}')
    with pytest.raises(UnsupportedVersion, match="schema_version 2"):
        FileStore(tmp_path)
    assert marker.read_text() == '{"schema_version": 2}'


def test_update_rebuilds_a_corrupt_document_without_backup(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    doc = tmp_path / "goals" / "goals.json"
    doc.parent.mkdir()
    doc.write_text("[not an object]")
    res = store.update("goals", "goals", lambda d: d.setdefault("goals", {}).update(g1={"prompt": "x"}))
    assert any("quarantined as" in w for w in res.warnings)
    assert any("rebuilt from an empty document" in w for w in res.warnings)
    assert store.read("goals", "goals").value == {"goals": {"g1": {"prompt": "x"}}}
    assert not (tmp_path / "goals" / "goals.json.bak").exists(), "the corrupt file is never kept as backup"
    problems = store.check()
    assert [p.message for p in problems] == ["quarantined copy of a corrupt document; inspect it, then delete it"]


def test_torn_log_line_is_ignored_then_repaired(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    for i in range(3):
        store.append("audit", {"i": i})
    log = tmp_path / "logs" / "audit.jsonl"
    assert mode(log) == 0o600
    with open(log, "ab") as fh:
        fh.write(b'{"i": 3, "half')  # a crash in the middle of an append
    assert store.read_log("audit") == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert any("incomplete last line" in w for w in store.pop_warnings())
    assert store.pop_warnings() == []
    assert any("incomplete last line" in p.message for p in store.check())
    store.append("audit", {"i": 3})
    assert any("removed an incomplete last line" in w for w in store.pop_warnings())
    assert store.read_log("audit") == [{"i": i} for i in range(4)]
    assert store.check() == []
    assert log.read_bytes().count(b"\n") == 4


def test_check_reports_stray_temp_and_stale_lock(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    store.update("things", "a", lambda d: d.update(v=1))
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(proc.stdout)
    (tmp_path / "things" / f"a.json.tmp.{dead}").write_text('{"v": 2')
    (tmp_path / "things" / "a.json.lock").write_text(json.dumps({"pid": dead, "host": os.uname().nodename,
                                                                  "ts": 0}))
    messages = sorted(p.message for p in store.check())
    assert messages[0].startswith("stale lock left by pid") and "stray temporary file" in messages[1]
    store.update("things", "a", lambda d: d.update(v=2))
    assert store.check() == [], "the next writer takes the lock over and clears the dead writer's temp file"


HOLDER = """
import sys, time
from nervous.kernel.durable import FileLock
FileLock(sys.argv[1]).acquire()
print("locked", flush=True)
time.sleep(60)
"""


def test_update_times_out_on_a_live_holder_naming_lock_and_pid(tmp_path: Path) -> None:
    store = FileStore(tmp_path, lock_timeout=0.5)
    store.update("goals", "goals", lambda d: d.update(v=1))
    lock = tmp_path / "goals" / "goals.json.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(StorageBusy) as err:
            store.update("goals", "goals", lambda d: d.update(v=2))
        assert str(lock) in err.value.message and f"pid {holder.pid}" in err.value.message
        assert store.read("goals", "goals").value == {"v": 1}, "reads never wait for the lock"
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    assert store.update("goals", "goals", lambda d: d.update(v=3)).result is None
    assert store.read("goals", "goals").value == {"v": 3}, "the dead holder's lock was taken over"
