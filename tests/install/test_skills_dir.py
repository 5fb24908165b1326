"""The skills-dir target: clawhub CLI formats, ownership, staged swaps and uninstall."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from install_helpers import digest

from nervous.errors import BadInput, Refused, StorageError
from nervous.fingerprint import folder_fingerprint
from nervous.installer import Installer
from nervous.testing.clawhub_server import ClawHubStandin, skill_md


def _install(pm: Any, ref: str, **kw: Any) -> Any:
    installer = Installer(pm)
    return installer.install(installer.plan(ref, kw.pop("version", None)), **kw)


def test_install_writes_clawhub_formats(pm: Any, standin: ClawHubStandin, workdir: Path) -> None:
    record = _install(pm, "demo")
    folder = workdir / "skills" / "demo"
    assert Path(record.path) == folder
    assert sorted(p.name for p in folder.iterdir()) == [".clawhub", "SKILL.md", "_meta.json", "scripts"]
    lock_text = (workdir / ".clawhub" / "lock.json").read_text()
    assert lock_text.endswith("}\n") and lock_text.startswith('{\n  "version": 1,\n  "skills": {\n')
    lock = json.loads(lock_text)
    assert list(lock["skills"]["demo"]) == ["version", "installedAt", "ownerHandle"]
    assert lock["skills"]["demo"]["version"] == "1.1.0" and lock["skills"]["demo"]["ownerHandle"] == "alice"
    origin = json.loads((folder / ".clawhub" / "origin.json").read_text())
    assert list(origin) == ["version", "registry", "slug", "ownerHandle", "installedVersion", "installedAt",
                            "fingerprint"]
    assert origin["registry"] == standin.url and origin["slug"] == "demo"
    assert origin["fingerprint"] == folder_fingerprint(folder) == record.fingerprint  # includes _meta.json
    meta = json.loads((folder / "_meta.json").read_text())
    assert list(meta) == ["ownerId", "slug", "version", "publishedAt"] and meta["version"] == "1.1.0"


def test_owner_qualified_reference_installs_under_the_owner_folder(pm: Any, workdir: Path) -> None:
    record = _install(pm, "@alice/demo", version="1.0.0")
    assert Path(record.path) == workdir / "skills" / "@alice" / "demo"
    lock = json.loads((workdir / ".clawhub" / "lock.json").read_text())
    assert lock["skills"]["@alice/demo"]["version"] == "1.0.0"
    origin = json.loads((Path(record.path) / ".clawhub" / "origin.json").read_text())
    assert origin["slug"] == "demo" and origin["ownerHandle"] == "alice"


def test_unmanaged_skills_are_listed_and_never_touched(pm: Any, workdir: Path) -> None:
    theirs = workdir / "skills" / "demo"
    theirs.mkdir(parents=True)
    (theirs / "SKILL.md").write_text(skill_md("demo", "Installed by someone else."))
    (workdir / ".clawhub").mkdir()
    (workdir / ".clawhub" / "lock.json").write_text(json.dumps(
        {"version": 1, "skills": {"demo": {"version": "0.9.0", "installedAt": 1}}}, indent=2) + "\n")
    before = digest(workdir)
    target = pm.install_target()
    assert target.unmanaged() == ["demo"] and target.installed() == []
    with pytest.raises(Refused) as info:
        _install(pm, "demo", force=True)
    assert info.value.code == "unmanaged" and "never replaced" in info.value.message
    with pytest.raises(Refused) as info:
        Installer(pm).uninstall("demo")
    assert info.value.code == "not_ours" and "unmanaged" in info.value.message
    assert digest(workdir) == before


def test_force_replaces_our_install_and_keeps_other_lock_entries(pm: Any, workdir: Path) -> None:
    _install(pm, "demo", version="1.0.0")
    lock_path = workdir / ".clawhub" / "lock.json"
    lock = json.loads(lock_path.read_text())
    lock["skills"]["other"] = {"version": "2.0.0", "installedAt": 5}
    lock_path.write_text(json.dumps(lock, indent=2) + "\n")
    with pytest.raises(Refused) as info:
        _install(pm, "demo")
    assert info.value.code == "already_installed"
    record = _install(pm, "demo", force=True)
    assert record.version == "1.1.0" and (workdir / "skills" / "demo" / "scripts" / "run.sh").is_file()
    lock = json.loads(lock_path.read_text())
    assert lock["skills"]["demo"]["version"] == "1.1.0" and lock["skills"]["other"]["version"] == "2.0.0"
    assert not [p for p in (workdir / "skills").iterdir() if p.name.startswith(".")]


def test_a_failed_replacement_restores_the_previous_install(pm: Any, workdir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _install(pm, "demo", version="1.0.0")
    before = digest(workdir)
    target = pm.install_target()

    def broken(*_a: Any, **_k: Any) -> Any:
        raise StorageError("disk full")

    monkeypatch.setattr(target.store, "update", broken)
    with pytest.raises(StorageError):
        _install(pm, "demo", force=True)
    assert digest(workdir) == before
    assert not [p for p in (workdir / "skills").iterdir() if p.name.startswith(".")]


def test_corrupt_lockfile_is_kept_aside_and_refused(pm: Any, workdir: Path) -> None:
    (workdir / ".clawhub").mkdir()
    (workdir / ".clawhub" / "lock.json").write_text("{not json")
    with pytest.raises(BadInput) as info:
        _install(pm, "demo")
    assert info.value.code == "corrupt_lockfile" and "lock.json" in info.value.message
    assert (workdir / ".clawhub" / "lock.json").read_text() == "{not json"
    assert [p.name for p in (workdir / ".clawhub").iterdir() if p.name.startswith("lock.json.corrupt-")]
    assert not (workdir / "skills" / "demo").exists()


def test_uninstall_removes_only_ours_and_updates_the_lockfile(pm: Any, workdir: Path) -> None:
    _install(pm, "demo")
    _install(pm, "@bob/twin")
    record = Installer(pm).uninstall("demo")
    assert record.slug == "demo" and not (workdir / "skills" / "demo").exists()
    lock = json.loads((workdir / ".clawhub" / "lock.json").read_text())
    assert list(lock["skills"]) == ["@bob/twin"]
    assert [r.slug for r in pm.install_target().installed()] == ["@bob/twin"]
    Installer(pm).uninstall("@bob/twin")
    assert json.loads((workdir / ".clawhub" / "lock.json").read_text())["skills"] == {}


def test_leftovers_of_a_killed_install_are_recovered(tmp_path: Path) -> None:
    """A process killed mid-swap leaves the previous version aside: it is put back, never lost."""
    import subprocess
    import sys

    from nervous_plugins.skills_dir import ASIDE_PREFIX, STAGING_PREFIX, TRASH_PREFIX, SkillsDirTarget

    from nervous.storage import MemoryStore

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / f"{ASIDE_PREFIX}notes-{dead}-0badf00d").mkdir()
    (skills / f"{ASIDE_PREFIX}notes-{dead}-0badf00d" / "SKILL.md").write_text("old notes\n")
    (skills / f"{STAGING_PREFIX}notes-{dead}-12345678").mkdir()
    (skills / f"{TRASH_PREFIX}gone-{dead}-87654321").mkdir()
    live = skills / f"{STAGING_PREFIX}other-{os.getpid()}-abcdef12"
    live.mkdir()
    target = SkillsDirTarget(skills, store=MemoryStore())
    done = target.recover()
    assert (skills / "notes" / "SKILL.md").read_text() == "old notes\n"
    assert len(done) == 3
    assert sorted(p.name for p in skills.iterdir()) == sorted(["notes", live.name]), "a live writer is left alone"
