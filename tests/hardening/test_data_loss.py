"""Nothing the user did not ask to replace is replaced, and nothing stored is silently lost."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nervous.kernel.durable import FileLock, atomic_write_json, backup_path, lock_is_stale, read_lock_holder
from nervous.kernel.filelock import boot_id, process_start_ticks, process_start_time

from .clirun import Result, run, tree


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _learn(home: Path, **env: str) -> None:
    res = run(home, "report", "pdf-tool", "--region", "pdf", "--outcome", "success", "--json", **env)
    assert res.code == 0, res.stdout + res.stderr


# ------------------------------------------------------------------ user-named output paths


def _device(tmp_path: Path) -> Path:
    """A character device to aim an export at: a private node like /dev/null where we may make one (root), never
    the machine's own (a bug replacing it would break the machine); /dev/null itself otherwise (unwritable)."""
    if os.geteuid() == 0:
        node = tmp_path / "null-device"
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        return node
    return Path("/dev/null")


def _export(home: Path, exporter: str, target: Path, *extra: str) -> Result:
    """``cortex export PATH`` or ``goal export -o PATH`` of something stored (a learned region, a goal)."""
    if exporter == "cortex":
        _learn(home)
        return run(home, "cortex", "export", str(target), *extra, "--json")
    work = home.parent / "project"
    work.mkdir(exist_ok=True)
    assert run(home, "goal", "analyze", "demo goal", "--json", cwd=work).code == 0
    return run(home, "goal", "export", "-o", str(target), *extra, cwd=work)


def _error_code(res: Result) -> str:
    """The error code a call reported: from its envelope (``--json``) or its one-line message."""
    if res.stdout.lstrip().startswith("{"):
        return str(res.envelope()["error"]["code"])
    return res.stderr


@pytest.mark.parametrize("exporter", ["cortex", "goal"])
def test_export_never_replaces_without_force(home: Path, tmp_path: Path, exporter: str) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    res = _export(home, exporter, target)
    assert res.code == 2, res.stdout + res.stderr
    assert "file_exists" in _error_code(res) or "already exists" in _error_code(res)
    assert target.read_text() == "keep me"
    res = _export(home, exporter, target, "--force")
    assert res.code == 0, res.stdout + res.stderr
    assert isinstance(json.loads(target.read_text()), dict)
    assert [p.name for p in tmp_path.iterdir() if ".tmp." in p.name] == []


@pytest.mark.parametrize("exporter", ["cortex", "goal"])
@pytest.mark.parametrize("kind", ["symlink", "directory", "device", "fifo"])
def test_export_never_replaces_a_non_regular_file(home: Path, tmp_path: Path, kind: str, exporter: str) -> None:
    victim = tmp_path / "victim"
    victim.write_text("original")
    target = {"symlink": tmp_path / "link", "directory": tmp_path / "dir", "fifo": tmp_path / "fifo"}.get(kind) \
        or _device(tmp_path)
    if kind == "symlink":
        target.symlink_to(victim)
    elif kind == "directory":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    before = os.lstat(target)
    res = _export(home, exporter, target, "--force")
    assert res.code == 2, res.stdout + res.stderr
    # click itself refuses a directory for this argument; nervous refuses the rest
    if exporter == "cortex":
        assert res.envelope()["error"]["code"] in (("usage", "unsafe_path") if kind == "directory" else ("unsafe_path",))
    assert victim.read_text() == "original"
    after = os.lstat(target)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino


def test_export_to_a_new_file_and_an_unwritable_place(home: Path, tmp_path: Path) -> None:
    _learn(home)
    res = run(home, "cortex", "export", str(tmp_path / "new.json"), "--json")
    assert res.code == 0 and json.loads((tmp_path / "new.json").read_text())["version"] == 1
    res = run(home, "cortex", "export", str(tmp_path / "missing" / "x.json"), "--json")
    assert res.code == 2 and res.envelope()["error"]["code"] == "unwritable_path"


def test_storage_migrate_refuses_existing_targets_without_force(home: Path, tmp_path: Path) -> None:
    _learn(home)
    existing = tmp_path / "existing.db"
    existing.write_bytes(b"not a database, and not yours to replace")
    res = run(home, "storage", "migrate", "--to", "sqlite", "--path", str(existing), "--json")
    assert res.code == 2 and res.envelope()["error"]["code"] == "file_exists"
    assert existing.read_bytes() == b"not a database, and not yours to replace"
    res = run(home, "storage", "migrate", "--to", "sqlite", "--path", "/dev/null", "--force", "--json")
    assert res.code == 2 and res.envelope()["error"]["code"] == "unsafe_path"
    fresh = tmp_path / "fresh.db"
    assert run(home, "storage", "migrate", "--to", "sqlite", "--path", str(fresh), "--json").code == 0
    again = run(home, "storage", "migrate", "--to", "sqlite", "--path", str(fresh), "--json")
    assert again.code == 2 and again.envelope()["error"]["code"] == "file_exists"
    assert run(home, "storage", "migrate", "--to", "sqlite", "--path", str(fresh), "--force", "--json").code == 0


def test_write_user_file_api_refuses_and_replaces(tmp_path: Path) -> None:
    from nervous.errors import BadInput
    from nervous.kernel.durable import write_user_file

    p = tmp_path / "out.txt"
    write_user_file(p, b"one")
    with pytest.raises(BadInput, match="already exists"):
        write_user_file(p, b"two")
    os.chmod(p, 0o640)
    write_user_file(p, b"three", force=True)
    assert p.read_bytes() == b"three" and (p.stat().st_mode & 0o777) == 0o640


# ------------------------------------------------------------------ wrong-shaped documents


@pytest.mark.parametrize("backend", ["file", "sqlite"])
def test_wrong_shape_cortex_is_quarantined_with_a_warning_and_reported(home: Path, backend: str) -> None:
    env = {"NERVOUS_STORAGE_BACKEND": backend}
    _learn(home, **env)
    _learn(home, **env)  # a second version, so the file backend has a good backup
    data = home / "data"
    if backend == "file":
        path = data / "skill-cortex" / "cortex.json"
        doc = json.loads(path.read_text())
        doc["cortex"]["motor"] = []
        path.write_text(json.dumps(doc))
    else:
        db = data / "nervous.sqlite3"
        with sqlite3.connect(db) as conn:
            body = json.loads(conn.execute("SELECT body FROM documents WHERE key = 'cortex'").fetchone()[0])
            body["cortex"]["motor"] = []
            conn.execute("UPDATE documents SET body = ? WHERE key = 'cortex'", (json.dumps(body),))
    check = run(home, "storage", "check", "--json", **env)
    assert check.code == 1
    assert any("cortex.motor" in p["message"] for p in check.envelope()["problems"])
    show = run(home, "cortex", "show", "--json", **env)
    assert show.code == 0
    warnings = show.envelope()["warnings"]
    assert any("wrong shape" in w and "quarantined" in w for w in warnings), warnings
    assert any("restored from backup" in w for w in warnings), warnings
    assert "pdf" in show.envelope()["regions"]  # the backup, not an empty memory
    if backend == "file":
        copies = list((data / "skill-cortex").glob("cortex.json.corrupt-*"))
        assert len(copies) == 1 and json.loads(copies[0].read_text())["cortex"]["motor"] == []


def test_wrong_shape_api_read_is_quarantined(tmp_path: Path) -> None:
    from nervous_plugins.file_store import FileStore

    store = FileStore(tmp_path / "s")
    store.update("skill-cortex", "cortex", lambda d: d.update(version=1, cortex={"motor": {"a": {}}}))
    store.update("skill-cortex", "cortex", lambda d: None)  # the first version becomes the backup
    path = store.document_path("skill-cortex", "cortex")
    path.write_text(json.dumps({"version": 1, "cortex": {"motor": {}, "sensory": "x"}}))
    snap = store.read("skill-cortex", "cortex")
    assert snap.value == {"version": 1, "cortex": {"motor": {"a": {}}}}
    assert any("cortex.sensory" in w for w in snap.warnings)
    # other collections may hold any object
    store.update("other", "k", lambda d: d.update(cortex=[]))
    assert store.read("other", "k").warnings == ()


# ------------------------------------------------------------------ sqlite damage


def test_zero_length_sqlite_database_warns(home: Path) -> None:
    env = {"NERVOUS_STORAGE_BACKEND": "sqlite"}
    (home / "data").mkdir(parents=True)
    (home / "data" / "nervous.sqlite3").write_bytes(b"")
    res = run(home, "cortex", "show", "--json", **env)
    assert res.code == 0
    assert any("empty (0-byte) file" in w for w in res.envelope()["warnings"])


def test_dropped_sqlite_table_is_a_clear_error(home: Path) -> None:
    env = {"NERVOUS_STORAGE_BACKEND": "sqlite"}
    _learn(home, **env)
    with sqlite3.connect(home / "data" / "nervous.sqlite3") as conn:
        conn.execute("DROP TABLE documents")
    for args in (["storage", "check", "--json"], ["report", "x", "--region", "r", "--outcome", "success",
                                                  "--json"]):
        res = run(home, *args, **env)
        assert res.code == 1, res.stdout
        err = res.envelope()["error"]
        assert err["code"] == "storage_damaged" and "documents" in err["message"]


# ------------------------------------------------------------------ locks and leftovers


def test_lock_of_a_reused_pid_is_stale_and_reported(home: Path) -> None:
    _learn(home)
    doc = home / "data" / "skill-cortex" / "cortex.json"
    lock = doc.with_name(doc.name + ".lock")
    # a live process that did not write the lock: it started after the lock's timestamp
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.05)
        lock.write_text(json.dumps({"pid": child.pid, "host": os.uname().nodename, "ts": time.time() - 3600}))
        holder = read_lock_holder(lock)
        assert holder is not None and lock_is_stale(holder)
        check = run(home, "storage", "check", "--json")
        assert check.code == 1
        assert any("stale lock" in p["message"] for p in check.envelope()["problems"])
        started = time.monotonic()
        _learn(home)
        assert time.monotonic() - started < 4
        # a lock that records a different start time for a live pid is stale too
        lock.write_text(json.dumps({"pid": child.pid, "host": os.uname().nodename, "ts": time.time(),
                                    "start": 12345.0}))
        assert lock_is_stale(read_lock_holder(lock))  # type: ignore[arg-type]
    finally:
        child.kill()
        child.wait()


def test_a_held_lock_records_its_start_time_and_is_not_stale(tmp_path: Path) -> None:
    with FileLock(tmp_path / "x.lock"):
        holder = read_lock_holder(tmp_path / "x.lock")
        assert holder is not None and holder.start is not None
        assert not lock_is_stale(holder)


def test_a_live_holder_stays_the_holder_when_the_wall_clock_is_stepped(tmp_path: Path) -> None:
    """The kernel's boot time is "now minus uptime": a clock stepped after the holder wrote its lock moves the
    epoch start time a checker derives, never the start in ticks since boot, which is what is compared."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.05)
        ticks = process_start_ticks(child.pid)
        assert ticks is not None and boot_id() is not None
        lock = tmp_path / "x.lock"
        started = process_start_time(child.pid)
        assert started is not None
        # the holder's own epoch reading, 100 s off from the checker's (a clock stepped in between)
        lock.write_text(json.dumps({"pid": child.pid, "host": os.uname().nodename, "ts": time.time(),
                                    "start": started + 100.0, "ticks": ticks, "boot": boot_id()}))
        assert not lock_is_stale(read_lock_holder(lock))  # type: ignore[arg-type]
        # the same pid with another start in ticks is a reused pid: stale
        lock.write_text(json.dumps({"pid": child.pid, "host": os.uname().nodename, "ts": time.time(),
                                    "start": started, "ticks": ticks + 1, "boot": boot_id()}))
        assert lock_is_stale(read_lock_holder(lock))  # type: ignore[arg-type]
        # ticks from another boot are not compared: the epoch start time decides, as for older locks
        lock.write_text(json.dumps({"pid": child.pid, "host": os.uname().nodename, "ts": time.time(),
                                    "start": started, "ticks": ticks + 1, "boot": "another-boot"}))
        assert not lock_is_stale(read_lock_holder(lock))  # type: ignore[arg-type]
    finally:
        child.kill()
        child.wait()


def test_hard_linked_backup_leaves_no_stray_temporary_file(home: Path) -> None:
    _learn(home)
    doc = home / "data" / "skill-cortex" / "cortex.json"
    bak = backup_path(doc)
    bak.unlink(missing_ok=True)
    os.link(doc, bak)  # what a crash between link and rename leaves
    _learn(home)
    assert [p.name for p in doc.parent.iterdir() if ".tmp." in p.name] == []
    assert run(home, "storage", "check", "--json").code == 0
    atomic_write_json(doc, json.loads(doc.read_text()))  # the API path as well
    assert [p.name for p in doc.parent.iterdir() if ".tmp." in p.name] == []


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True)
    return int(child.stdout)


def test_storage_check_repair_removes_an_older_releases_stray_temporary_files_and_nothing_else(
        home: Path, tmp_path: Path) -> None:
    _learn(home)
    doc = home / "data" / "skill-cortex" / "cortex.json"
    dead = _dead_pid()
    strays = [doc.with_name(f"cortex.json.bak.tmp.{dead}"), doc.with_name(f"cortex.json.tmp.{dead}")]
    for p in strays:  # what an older release left after a crash
        p.write_bytes(doc.read_bytes())
    live = doc.with_name(f"cortex.json.tmp.{os.getpid()}")  # a write in progress: not stray
    live.write_text("{}", encoding="utf-8")
    users = [doc.with_name("notes.txt"), doc.with_name("cortex.json.bak.tmp.mine"), home / "data" / f"x.json.tmp.{dead}"]
    for p in users:
        p.write_text("the user's own file", encoding="utf-8")
    before = run(home, "storage", "check", "--json")
    assert before.code == 1
    assert {Path(p["where"]).name for p in before.envelope()["problems"]} == {p.name for p in strays}

    res = run(home, "storage", "check", "--repair", "--json")
    assert res.code == 0, res.stdout + res.stderr
    data = res.envelope()
    assert sorted(p["where"] for p in data["repaired"]) == sorted(str(p) for p in strays)
    assert data["problems"] == []
    assert not any(p.exists() for p in strays)
    assert live.read_text(encoding="utf-8") == "{}"
    assert all(p.read_text(encoding="utf-8") == "the user's own file" for p in users)
    assert run(home, "perceive", "convert a pdf", "--json").code == 0  # the store still reads

    # a link with a stray's name is never followed nor removed; the check keeps reporting it
    target = tmp_path / "precious.txt"
    target.write_text("keep me", encoding="utf-8")
    link = doc.with_name(f"cortex.json.bak.tmp.{dead}")
    link.symlink_to(target)
    res = run(home, "storage", "check", "--repair", "--json")
    assert res.code == 1 and res.envelope()["repaired"] == []
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "keep me"


# ------------------------------------------------------------------ fresh homes stay untouched


@pytest.mark.parametrize("args", [["perceive", "convert a pdf"], ["cortex", "show"], ["goal", "list"],
                                  ["cortex", "stats"], ["storage", "check"], ["list"]])
def test_read_only_commands_write_nothing_in_a_fresh_home(home: Path, tmp_path: Path, args: list[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    res = run(home, *args, "--json", cwd=work)
    assert res.code == 0, res.stdout + res.stderr
    assert not (home / "data").exists()
    assert not (home / "state").exists() or tree(home / "state") == {}
    assert list(work.iterdir()) == []


_READ_ONLY = [["perceive", "convert a pdf", "--json"], ["cortex", "show", "--json"], ["goal", "list", "--json"],
              ["cortex", "stats", "--json"], ["list", "--json"], ["storage", "info", "--json"],
              ["storage", "check", "--json"], ["audit", "--json"], ["plugins", "--json"], ["--version"]]


@pytest.mark.parametrize("backend", ["file", "sqlite"])
def test_a_fresh_home_stays_empty_through_every_read_only_command(tmp_path: Path, backend: str) -> None:
    """The installed command (entry points autoloaded, so their cache is exercised) creates no file
    at all in a fresh NERVOUS_HOME or the working directory: no database, no store marker, no cache."""
    home, work, xdg = tmp_path / "home", tmp_path / "work", tmp_path / "xdg-cache"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_STORAGE_BACKEND=backend, NERVOUS_REGISTRIES="local",
               XDG_CACHE_HOME=str(xdg))
    for args in _READ_ONLY:
        res = subprocess.run([sys.executable, "-m", "nervous", *args], env=env, cwd=work, capture_output=True,
                             text=True, timeout=120, check=False)
        assert res.returncode == 0, (args, res.stdout, res.stderr)
        assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == [], args
        assert list(work.iterdir()) == [], args
    # the entry-point cache went to the user cache directory (docs/cli.md), one file per interpreter
    assert [p.name.startswith("entry-points-nervous-") for p in (xdg / "nervous").iterdir()] == [True]
    # ... and the first write creates the store
    res = subprocess.run([sys.executable, "-m", "nervous", "report", "demo", "--region", "convert-pdf", "--task", "convert a pdf",
                          "--outcome", "success", "--json"], env=env, cwd=work, capture_output=True, text=True,
                         timeout=120, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (home / "data").is_dir()


@pytest.mark.parametrize("value", ["yesterday", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+14:00",
                                   "9999-12-31T23:59:59-14:00", "1969-12-31T23:59:59Z"])
@pytest.mark.parametrize("command", [("perceive", "x"), ("report", "a", "--region", "r", "--outcome", "success"),
                                     ("goal", "analyze", "demo goal")])
def test_nervous_now_that_is_not_a_usable_timestamp_is_a_config_error(home: Path, value: str,
                                                                        command: tuple[str, ...]) -> None:
    res = run(home, *command, "--json", NERVOUS_NOW=value)
    assert res.code == 2 and res.envelope()["error"]["code"] == "config_error", res.stdout + res.stderr
    assert tree(home) == {}, "a call that failed stored something"


# ------------------------------------------------------------------ the skills directory

_SKILL = "---\nname: demo\ndescription: Demo skill that formats text.\nversion: {v}\n---\n# demo\n{body}\n"

_KILLED_INSTALL = """
import os, sys
from nervous_plugins import skills_dir
skills_dir.SkillsDirTarget._save_record = lambda *a, **k: os._exit(9)  # killed after the swap
from nervous.frontends.cli import cli
sys.exit(cli(sys.argv[1:]))
"""


def _project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "catalog" / "demo").mkdir(parents=True)
    (work / "catalog" / "demo" / "SKILL.md").write_text(_SKILL.format(v="1.0.0", body="Formats text."))
    (work / ".nervous.toml").write_text('[plugins.local]\npaths = ["catalog"]\n')
    return work


def test_first_list_after_an_interrupted_install_is_right(home: Path, tmp_path: Path) -> None:
    work = _project(tmp_path)
    assert run(home, "install", "demo", "--yes", "--json", cwd=work).code == 0
    (work / "catalog" / "demo" / "SKILL.md").write_text(_SKILL.format(v="1.1.0", body="Formats text better."))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_REGISTRIES="local")
    killed = subprocess.run([sys.executable, "-c", _KILLED_INSTALL, "install", "demo", "--yes", "--force"],
                            cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert killed.returncode == 9, killed.stderr
    listing = run(home, "list", "--json", cwd=work).envelope()
    (skill,) = listing["skills"]
    assert (skill["version"], skill["modified"]) == ("1.1.0", False), listing


def test_uninstall_never_removes_the_folder_an_edited_record_names(home: Path, tmp_path: Path) -> None:
    work = _project(tmp_path)
    assert run(home, "install", "demo", "--yes", "--json", cwd=work).code == 0
    victim = work / "project-data"
    (victim / "sub").mkdir(parents=True)
    (victim / "notes.txt").write_text("precious")
    (record,) = (home / "data").rglob("demo.json")
    doc = json.loads(record.read_text())
    doc["path"] = str(victim)
    record.write_text(json.dumps(doc))
    res = run(home, "uninstall", "demo", "--json", cwd=work)
    assert res.code == 2 and res.envelope()["error"]["code"] == "unsafe_path", res.stdout
    assert (victim / "notes.txt").read_text() == "precious" and (victim / "sub").is_dir()
    assert (work / "skills" / "demo" / "SKILL.md").is_file()


@pytest.mark.parametrize("edit", ["files", "ref", "source"])
def test_a_wrong_shaped_install_record_is_set_aside_not_blocking(home: Path, tmp_path: Path, edit: str) -> None:
    work = _project(tmp_path)
    assert run(home, "install", "demo", "--yes", "--json", cwd=work).code == 0
    (record,) = (home / "data").rglob("demo.json")
    doc = json.loads(record.read_text())
    doc[edit] = {"files": "x", "ref": 7, "source": "x"}[edit]
    record.write_text(json.dumps(doc))
    first = run(home, "list", "--json", cwd=work)
    assert first.code == 0, first.stdout + first.stderr
    listing = first.envelope()
    assert any("wrong shape" in w and "set aside" in w for w in listing["warnings"]), listing
    assert [s["managed"] for s in listing["skills"]] == [False]
    assert (work / "skills" / "demo" / "SKILL.md").is_file()
    kept = [json.loads(p.read_text()) for p in (home / "data").rglob("*.json") if "quarantine" in str(p)]
    assert any(k.get("record", {}).get(edit) == doc[edit] for k in kept), kept
    for args in (("verify",), ("list",)):
        again = run(home, *args, "--json", cwd=work)
        assert again.code == 0 and not any("wrong shape" in w for w in again.envelope()["warnings"])


def test_a_trash_symlink_left_behind_is_removed_once(home: Path, tmp_path: Path) -> None:
    work = _project(tmp_path)
    assert run(home, "install", "demo", "--yes", "--json", cwd=work).code == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not ours")
    dead = 2 ** 22 + 7  # above the default pid_max of most systems: never a live process
    trash = work / "skills" / f".nervous-trash-demo-{dead}-abcdef12"
    trash.symlink_to(outside)
    first = run(home, "list", "--json", cwd=work).envelope()
    assert any("removed .nervous-trash-demo" in w for w in first["warnings"]), first
    assert not trash.is_symlink() and (outside / "keep.txt").read_text() == "not ours"
    second = run(home, "list", "--json", cwd=work).envelope()
    assert not any("trash" in w for w in second["warnings"]), second
    assert run(home, "uninstall", "demo", "--json", cwd=work).code == 0
    assert sorted(p.name for p in (work / "skills").iterdir()) == []
