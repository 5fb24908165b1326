"""``nervous storage`` through the real command line (acceptance tests of the storage issue)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins.file_store import FileStore
from nervous_plugins.sqlite_store import SqliteStore

from nervous.testing.cli import CliResult, run_cli


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def nervous(home: Path, *args: str) -> CliResult:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1")
    return run_cli(*args, env=env, cwd=home.parent)


def as_json(res: CliResult) -> dict[str, Any]:
    data = json.loads(res.stdout)
    assert isinstance(data, dict)
    return data


def test_garbage_file_warns_quarantines_once_keeps_working_and_check_reports(home: Path) -> None:
    data_dir = home / "data"
    store = FileStore(data_dir)
    store.update("skill-cortex", "cortex", lambda d: d.update(version=1, regions={}))
    store.update("skill-cortex", "cortex", lambda d: d.update(regions={"pdf": {}}))
    store.update("goals", "goals", lambda d: d.update(version=1))
    cortex = data_dir / "skill-cortex" / "cortex.json"
    cortex.write_bytes(cortex.read_bytes()[:17])  # truncated by a crash of some other writer

    res = nervous(home, "storage", "get", "skill-cortex", "cortex", "--json")
    assert res.returncode == 0, res.stderr
    out = as_json(res)
    copies = sorted(cortex.parent.glob("cortex.json.corrupt-*"))
    assert len(copies) == 1
    assert out["ok"] is True and out["document"] == {"version": 1, "regions": {}}
    assert any(str(copies[0]) in w for w in out["warnings"])
    assert any("restored from backup" in w for w in out["warnings"])

    human = nervous(home, "storage", "get", "skill-cortex", "cortex")
    assert human.returncode == 0 and "warning:" in human.stderr and str(copies[0]) in human.stderr
    assert json.loads(human.stdout) == {"version": 1, "regions": {}}
    assert sorted(cortex.parent.glob("cortex.json.corrupt-*")) == copies, "quarantined exactly once"
    assert nervous(home, "storage", "get", "goals", "goals", "--json").returncode == 0, "other data unaffected"
    assert as_json(nervous(home, "storage", "info", "--json"))["collections"] == {"goals": 1, "skill-cortex": 1}

    check = nervous(home, "storage", "check", "--json")
    assert check.returncode == 1
    err = as_json(check)
    assert err["ok"] is False and "problem(s) found" in err["message"]
    wheres = {p["where"] for p in err["problems"]}
    assert wheres == {str(cortex), str(copies[0])}
    check_human = nervous(home, "storage", "check")
    assert check_human.returncode == 1 and str(copies[0]) in check_human.stdout
    assert "Traceback" not in check_human.stderr

    # the next transaction rebuilds from the backup and replaces the corrupt file
    res2 = FileStore(data_dir).update("skill-cortex", "cortex", lambda d: d.update(rebuilt=True))
    assert any("rebuilt from its backup" in w for w in res2.warnings)
    after = as_json(nervous(home, "storage", "check", "--json"))["problems"]
    assert [p["where"] for p in after] == [str(copies[0])], "only the quarantined copy is left to inspect"


def test_info_and_check_on_a_healthy_store(home: Path) -> None:
    store = FileStore(home / "data")
    store.update("goals", "goals", lambda d: d.update(v=1))
    store.append("audit", {"event": "x"})
    info = as_json(nervous(home, "storage", "info", "--json"))
    assert info["ok"] is True and info["backend"] == "file" and info["schema_version"] == 1
    assert info["location"] == str(home / "data") and info["size_bytes"] > 0
    assert info["collections"] == {"goals": 1} and info["logs"] == {"audit": 1}
    res = nervous(home, "storage", "check")
    assert res.returncode == 0 and "no problems found" in res.stdout
    res = nervous(home, "storage", "info")
    assert res.returncode == 0 and "schema version  1" in res.stdout
    keys = as_json(nervous(home, "storage", "keys", "goals", "--json"))
    assert keys["keys"] == ["goals"]


def test_bad_input_through_the_cli(home: Path) -> None:
    res = nervous(home, "storage", "get", "Bad Collection", "k", "--json")
    assert res.returncode == 2 and as_json(res)["error"]["code"] == "bad_input"
    res = nervous(home, "storage", "get", "goals", "absent")
    assert res.returncode == 1 and "no document goals/absent" in res.stderr
    res = nervous(home, "storage", "migrate", "--to", "nosuch")
    assert res.returncode == 2 and "unknown storage backend 'nosuch'" in res.stderr
    res = nervous(home, "storage", "migrate", "--to", "file", "--json")
    assert res.returncode == 2 and "same file store" in as_json(res)["error"]["message"]


def test_newer_store_version_is_reported_not_overwritten(home: Path) -> None:
    (home / "data").mkdir(parents=True)
    (home / "data" / ".nervous-store.json").write_text('{"schema_version": 9}')
    res = nervous(home, "storage", "info", "--json")
    assert res.returncode == 1 and as_json(res)["error"]["code"] == "unsupported_version"
    assert (home / "data" / ".nervous-store.json").read_text() == '{"schema_version": 9}'


def test_migrate_file_to_sqlite_and_back_round_trips(home: Path, tmp_path: Path) -> None:
    source = FileStore(home / "data")
    docs = {
        ("skill-cortex", "cortex"): {"version": 1, "regions": {"pdf": {"candidates": [{"id": "a", "w": 0.5}]}}},
        ("goals", "goals"): {"version": 1, "goals": {"goal-001": {"prompt": "ship ✓", "intent": {}}}},
        ("install-records", "skills/pdf-tools"): {"slug": "pdf-tools", "files": ["SKILL.md"]},
        ("install-records", "odd key/../ü"): {"x": None},
    }
    for (coll, key), doc in docs.items():
        source.update(coll, key, lambda d, doc=doc: d.update(doc))
    for i in range(7):
        source.append("audit", {"i": i, "kind": "install"})

    res = nervous(home, "storage", "migrate", "--to", "sqlite", "--json")
    assert res.returncode == 0, res.stderr
    out = as_json(res)
    assert (out["documents"], out["log_entries"], out["verified"]) == (4, 7, True)
    db = home / "data" / "nervous.sqlite3"
    assert out["target"]["location"] == str(db)

    back_dir = tmp_path / "back"
    res = nervous(home, "-c", "storage.backend='sqlite'", "storage", "migrate", "--to", "file",
                  "--path", str(back_dir), "--json")
    assert res.returncode == 0, res.stderr
    assert as_json(res)["source"]["backend"] == "sqlite"

    middle, back = SqliteStore(db), FileStore(back_dir)
    try:
        for store in (middle, back):
            for (coll, key), doc in docs.items():
                assert store.read(coll, key).value == doc
            assert store.keys("install-records") == sorted(k for c, k in docs if c == "install-records")
            assert store.read_log("audit") == [{"i": i, "kind": "install"} for i in range(7)]
            assert store.check() == []
    finally:
        middle.close()
    assert as_json(nervous(home, "storage", "info", "--json"))["backend"] == "file", "source untouched"


def test_check_lists_what_the_engines_held_aside_and_stays_clean(home: Path) -> None:
    assert nervous(home, "goal", "analyze", "Write the report", "--json").returncode == 0
    store = FileStore(home / "data")
    (key,) = store.keys("goals")

    def inject(doc: dict[str, Any]) -> None:
        doc["goals"]["goal-002"] = "just text"

    store.update("goals", key, inject)
    store.update("acquisitions-quarantine", "acq-7", lambda d: d.update(raw=["wrong", "shape"]))
    before = {p: p.read_bytes() for p in (home / "data").rglob("*") if p.is_file()}

    res = nervous(home, "storage", "check", "--json")
    assert res.returncode == 0, res.stdout
    out = as_json(res)
    assert out["problems"] == []
    held = {h["where"]: h["message"] for h in out["held_aside"]}
    assert held.keys() == {f"goals/{key}", "acquisitions-quarantine/acq-7"}
    assert "1 malformed goal(s) quarantined (goal-002)" in held[f"goals/{key}"]
    assert "nervous storage get acquisitions-quarantine acq-7" in held["acquisitions-quarantine/acq-7"]
    assert {p: p.read_bytes() for p in (home / "data").rglob("*") if p.is_file()} == before  # read only
    text = nervous(home, "storage", "check")
    assert text.returncode == 0 and "goals/" in text.stdout and "(held aside)" in text.stdout
