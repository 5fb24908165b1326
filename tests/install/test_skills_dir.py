"""The skills-dir target: clawhub CLI formats, ownership, staged swaps and uninstall."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from install_helpers import digest

from nervous.engines.install.gate import Approval
from nervous.engines.install.installer import Installer
from nervous.errors import BadInput, Refused, StorageError
from nervous.kernel.fingerprint import folder_fingerprint
from nervous.testing.clawhub_server import ClawHubStandin, skill_md


def _install(pm: Any, ref: str, **kw: Any) -> Any:
    installer = Installer(pm)
    return installer.install(installer.plan(ref, kw.pop("version", None)), approval=Approval("agent", "token"), **kw)


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

    from nervous.kernel.storage import MemoryStore

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


_KILLED_INSTALL = """
import os, signal, sys
from pathlib import Path
from nervous_plugins.file_store import FileStore
from nervous_plugins.skills_dir import SkillsDirTarget
from nervous.kernel.records import SkillBundle, SkillFile, SkillRef
from nervous.engines.install.gate import Verdict, admission

skills, store, version, kill_in = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
target = SkillsDirTarget(skills, store=FileStore(store))

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

real_replace = os.replace

def replace(src, dst):  # kill at one step of the swap: moving the old folder aside, or the new one in
    if Path(dst if kill_in == "aside" else src).name.startswith(f".nervous-{'previous' if kill_in == 'aside' else 'staging'}-"):
        die()
    real_replace(src, dst)

if kill_in in ("aside", "swap"):
    os.replace = replace
elif kill_in != "none":
    setattr(SkillsDirTarget, kill_in, die)
bundle = SkillBundle(ref=SkillRef("notes", registry="clawhub"), version=version, registry="clawhub",
                     files=(SkillFile("SKILL.md", f"---\\nname: notes\\ndescription: Notes {version}.\\n---\\n".encode()),))
with admission(Verdict("notes", "clawhub", "allow")):  # the target alone, as the gate drives it
    target.install(bundle, force=True, source={"registry": "https://registry.test"})
"""


def _install_1_then_kill_2(tmp_path: Path, kill_in: str) -> tuple[Path, Any]:
    """Install notes 1.0.0 in one process, then 2.0.0 in another killed at ``kill_in``; a fresh target."""
    import signal
    import subprocess
    import sys

    from nervous_plugins.file_store import FileStore
    from nervous_plugins.skills_dir import SkillsDirTarget

    skills, store = tmp_path / "skills", tmp_path / "store"
    run = [sys.executable, "-c", _KILLED_INSTALL, str(skills), str(store)]
    subprocess.run([*run, "1.0.0", "none"], check=True)
    assert subprocess.run([*run, "2.0.0", kill_in]).returncode == -signal.SIGKILL
    return skills, SkillsDirTarget(skills, store=FileStore(store))


def _lock_version(tmp_path: Path) -> str:
    return json.loads((tmp_path / ".clawhub" / "lock.json").read_text())["skills"]["notes"]["version"]


@pytest.mark.parametrize("kill_in", ["write_lock", "_save_record"])
def test_an_install_killed_after_its_swap_is_completed(tmp_path: Path, kill_in: str) -> None:
    """Killed between the folder swap and the lockfile or record write: the next process finishes it."""
    skills, target = _install_1_then_kill_2(tmp_path, kill_in)
    assert "Notes 2.0.0" in (skills / "notes" / "SKILL.md").read_text()  # the swap happened
    done = target.recover()
    assert any("completed the interrupted install of notes 2.0.0" in d for d in done), done
    assert _lock_version(tmp_path) == "2.0.0"
    assert [(r.slug, r.version) for r in target.installed()] == [("notes", "2.0.0")]
    origin = json.loads((skills / "notes" / ".clawhub" / "origin.json").read_text())
    assert origin["installedVersion"] == "2.0.0"
    assert sorted(p.name for p in skills.iterdir()) == ["notes"], "no journal, staging or previous folder left"
    assert target.recover() == []


@pytest.mark.parametrize("kill_in", ["aside", "swap"])
def test_an_install_killed_before_its_swap_keeps_the_previous_version(tmp_path: Path, kill_in: str) -> None:
    skills, target = _install_1_then_kill_2(tmp_path, kill_in)
    target.recover()
    assert "Notes 1.0.0" in (skills / "notes" / "SKILL.md").read_text()
    assert _lock_version(tmp_path) == "1.0.0"
    assert [(r.slug, r.version) for r in target.installed()] == [("notes", "1.0.0")]
    assert sorted(p.name for p in skills.iterdir()) == ["notes"]


def test_an_unreadable_install_journal_is_set_aside_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    from nervous_plugins.skills_dir import JOURNAL_PREFIX, SkillsDirTarget

    from nervous.kernel.storage import MemoryStore

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    skills = tmp_path / "skills"
    skills.mkdir()
    journal = skills / f"{JOURNAL_PREFIX}notes-{dead}-0badf00d.json"
    journal.write_text("{not json")
    target = SkillsDirTarget(skills, store=MemoryStore())
    done = target.recover()
    assert len(done) == 1 and "unreadable" in done[0] and "nothing completed" in done[0]
    assert not journal.exists() and (skills / (journal.name + ".corrupt")).read_text() == "{not json"
    assert target.recover() == [] and target.installed() == []


@pytest.mark.parametrize("entry", [".clawhub/origin.json", ".CLAWHUB/x", ".clawdhub/origin.json"])
def test_a_skill_carrying_the_install_record_folder_is_refused_up_front(pm: Any, standin: ClawHubStandin,
                                                                       workdir: Path, entry: str) -> None:
    (demo,) = [s for s in standin._skills if s.slug == "demo"]
    for v in demo.versions:
        v.no_digests = True
        v.served_files = {**v.files, entry: b'{"version": 1, "slug": "somebody-else"}'}
    installer = Installer(pm)
    with pytest.raises(BadInput) as info:
        installer.install(installer.plan("demo", None), approval=Approval("agent", "token", confirmed=True))
    assert info.value.code == "unsafe_bundle" and entry in info.value.message
    assert "staging" not in info.value.message
    assert not (workdir / "skills").exists() or not any((workdir / "skills").iterdir())


def _notes_bundle(name: str) -> Any:
    from nervous.kernel.records import SkillBundle, SkillFile, SkillRef

    return SkillBundle(ref=SkillRef(name, registry="clawhub"), version="1.0.0", registry="clawhub",
                       files=(SkillFile("SKILL.md", f"---\nname: {name}\ndescription: Notes.\n---\n".encode()),))


def test_comparing_every_install_with_its_folder_reads_each_record_a_few_times(tmp_path: Path) -> None:
    """``nervous list`` and ``verify`` read every install record again for each install (19 s for 500)."""
    from nervous_plugins.skills_dir import SkillsDirTarget

    from nervous.engines.install.gate import Verdict, admission
    from nervous.kernel.storage import MemoryStore

    class CountingStore(MemoryStore):
        reads = 0

        def read(self, collection: str, key: str) -> Any:
            CountingStore.reads += 1
            return super().read(collection, key)

    n = 30
    target = SkillsDirTarget(tmp_path / "skills", store=CountingStore())
    for i in range(n):
        with admission(Verdict(f"notes-{i}", "clawhub", "allow")):
            target.install(_notes_bundle(f"notes-{i}"), source={"registry": "https://registry.test"})
    (tmp_path / "skills" / "notes-3" / "SKILL.md").write_text("changed\n")
    CountingStore.reads = 0
    views = {r.slug: target.on_disk(r) for r in target.installed()}
    assert CountingStore.reads <= 3 * n + 5, CountingStore.reads  # was 2 n² + n
    assert len(views) == n and all(v["present"] and v["verified"] for v in views.values())
    assert [s for s, v in views.items() if v["modified"]] == ["notes-3"]
    assert views["notes-3"]["changes"] == ["changed: SKILL.md"]


def test_the_clawhub_lockfile_is_parsed_once_for_every_unmanaged_folder(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``nervous list`` asks for each unmanaged folder; each parsed the whole lockfile (38 s for 8,000)."""
    import nervous_plugins.skills_dir as skills_dir

    from nervous.kernel.storage import MemoryStore

    class CountingJson:
        loads_calls = 0

        def __getattr__(self, name: str) -> Any:
            return getattr(json, name)

        def loads(self, data: Any) -> Any:
            CountingJson.loads_calls += 1
            return json.loads(data)

    n = 50
    skills = tmp_path / "skills"
    for i in range(n):
        (skills / f"cli-{i}").mkdir(parents=True)
        (skills / f"cli-{i}" / "SKILL.md").write_text(skill_md(f"cli-{i}", "Installed by the clawhub CLI."))
    (tmp_path / ".clawhub").mkdir()
    lock: dict[str, Any] = {"version": 1, "skills": {f"cli-{i}": {"version": f"1.0.{i}", "installedAt": 1}
                                                  for i in range(n)}}
    (tmp_path / ".clawhub" / "lock.json").write_text(json.dumps(lock))
    monkeypatch.setattr(skills_dir, "json", CountingJson())
    target = skills_dir.SkillsDirTarget(skills, store=MemoryStore())
    infos = {name: target.unmanaged_info(name) for name in target.unmanaged()}
    assert infos["cli-7"] == {"registry": "clawhub", "version": "1.0.7"} and len(infos) == n
    assert CountingJson.loads_calls == 1
    lock["skills"]["cli-7"]["version"] = "2.0.0-rewritten"  # a changed lockfile is read again
    (tmp_path / ".clawhub" / "lock.json").write_text(json.dumps(lock))
    assert target.unmanaged_info("cli-7")["version"] == "2.0.0-rewritten"
    (tmp_path / ".clawhub" / "lock.json").write_text("null")  # JSON, but no skills: nothing shown
    assert target.unmanaged_info("cli-7") == {}
