"""``nervous update`` never throws away local changes, and any depth of folder inside a skill is handled.

Both through the real command line against the ClawHub stand-in:

* a folder changed since it was installed (the comparison ``verify`` makes) is never replaced by
  ``update`` without ``--force``: exit 1, code ``modified``, the changes named, the folder untouched;
* a folder nested deeper than Python's recursion limit and longer than ``PATH_MAX`` inside an installed
  skill is listed, verified, updated over and uninstalled; a leftover that cannot be removed is a
  warning, never an error for the commands that follow.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from install_helpers import digest

from nervous.testing.clawhub_server import ClawHubStandin

#: deeper than the interpreter's recursion limit (1000)
LEVELS = 1200
#: 1200 levels of "deep/" are 6000 characters: more than PATH_MAX (4096) as one path
SEGMENT = "deep"


@pytest.fixture
def skills(workdir: Path) -> Iterator[Path]:
    """The skills folder; whatever deep tree a failed test leaves is removed (pytest's clean-up is recursive)."""
    yield workdir / "skills"
    import shutil

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20 * LEVELS))  # shutil.rmtree recurses once per level (3.11)
    try:
        shutil.rmtree(workdir / "skills", ignore_errors=True)
    finally:
        sys.setrecursionlimit(limit)


def _downloads(standin: ClawHubStandin) -> int:
    return sum(1 for p in standin.paths_requested() if "/download" in p)


def _deep_tree(folder: Path, levels: int = LEVELS, name: str = SEGMENT) -> None:
    """``folder/name/name/...`` ``levels`` deep, made relative to folder descriptors (no path is ever that long)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = child
        with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=fd), "w") as fh:
            fh.write("at the bottom\n")
    finally:
        os.close(fd)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".nervous-")) if folder.is_dir() else []


# ------------------------------------------------------------------ bug 1: local changes


def test_update_refuses_to_throw_away_local_changes(run: Any, skills: Path, standin: ClawHubStandin) -> None:
    code, out, _ = run("install", "@alice/demo", "--version", "1.0.0", "--yes")
    assert code == 0 and out["version"] == "1.0.0"
    folder = skills / "@alice" / "demo"
    (folder / "MYNOTES.md").write_text("notes\n")
    with (folder / "SKILL.md").open("a") as fh:
        fh.write("my edit\n")
    (folder / "_meta.json").unlink()
    code, out, _ = run("verify")
    expected = ["added file: MYNOTES.md", "changed: SKILL.md", "removed: _meta.json"]
    assert code == 1 and out["skills"][0]["changes"] == expected
    before, downloads = digest(folder), _downloads(standin)

    code, out, _ = run("update", "@alice/demo", "--yes")
    assert code == 1 and out["ok"] is False and out["error"]["code"] == "modified"
    message = out["error"]["message"]
    assert "MYNOTES.md" in message and "SKILL.md" in message and "_meta.json" in message and "--force" in message
    assert out["error"]["details"]["changes"] == expected
    assert digest(folder) == before and (folder / "MYNOTES.md").read_text() == "notes\n"
    assert _downloads(standin) == downloads, "refused before anything is downloaded"
    assert _leftovers(folder.parent) == []
    code, out, _ = run("list")
    assert code == 0 and out["skills"][0]["version"] == "1.0.0" and out["skills"][0]["modified"] is True

    code, text, err = run("update", "@alice/demo", "--yes", as_json=False)  # people get the same refusal
    assert code == 1 and "local changes" in err and "--force" in err and "MYNOTES.md" in err
    assert digest(folder) == before

    code, out, _ = run("update", "@alice/demo", "--yes", "--force")  # asked for: replaced as before
    assert code == 0 and out["ok"] is True and out["version"] == "1.1.0"
    assert not (folder / "MYNOTES.md").exists() and (folder / "scripts" / "run.sh").is_file()
    code, out, _ = run("verify")
    assert code == 0 and out["changed"] == []
    assert _leftovers(folder.parent) == []


def test_update_on_the_latest_version_keeps_local_changes(run: Any, skills: Path) -> None:
    code, out, _ = run("install", "@alice/demo", "--yes")
    assert code == 0 and out["version"] == "1.1.0"
    folder = skills / "@alice" / "demo"
    (folder / "scripts" / "run.sh").write_text("echo mine\n")
    before = digest(folder)
    code, out, _ = run("update", "@alice/demo", "--yes")
    assert code == 1 and out["error"]["code"] == "modified" and "changed: scripts/run.sh" in out["error"]["message"]
    assert digest(folder) == before and (folder / "scripts" / "run.sh").read_text() == "echo mine\n"


def test_update_of_an_unchanged_install_needs_no_force(run: Any, skills: Path) -> None:
    code, out, _ = run("install", "@alice/demo", "--version", "1.0.0", "--yes")
    assert code == 0
    code, out, _ = run("update", "@alice/demo", "--yes")
    assert code == 0 and out["version"] == "1.1.0" and out["warnings"] == []
    code, out, _ = run("update", "@alice/demo", "--yes")  # already the latest: reinstalled, nothing to lose
    assert code == 0 and out["version"] == "1.1.0"


# ------------------------------------------------------------------ bug 2: any depth


def test_a_deep_folder_inside_a_skill_is_listed_verified_updated_and_uninstalled(run: Any, skills: Path) -> None:
    code, out, _ = run("install", "@alice/demo", "--version", "1.0.0", "--yes")
    assert code == 0
    folder = skills / "@alice" / "demo"
    _deep_tree(folder)
    deepest = "/".join([SEGMENT] * LEVELS)

    code, out, _ = run("verify", "@alice/demo")
    assert code == 1 and out["changed"] == ["@alice/demo"], out.get("error")
    changes = out["skills"][0]["changes"]
    assert changes[0] == f"added folder: {SEGMENT}" and f"added folder: {deepest}" in changes
    assert f"added file: {deepest}/bottom.txt" in changes and len(changes) == LEVELS + 1
    code, out, _ = run("list")
    assert code == 0 and out["skills"][0]["modified"] is True, out.get("error")

    code, out, _ = run("update", "@alice/demo", "--yes")  # the deep tree is a local change too
    assert code == 1 and out["error"]["code"] == "modified"
    assert out["error"]["details"]["changes_total"] == LEVELS + 1 and (folder / SEGMENT).is_dir()

    code, out, _ = run("update", "@alice/demo", "--yes", "--force")
    assert code == 0 and out["ok"] is True and out["version"] == "1.1.0", out.get("error")
    assert out["warnings"] == []
    assert not (folder / SEGMENT).exists() and _leftovers(folder.parent) == []
    code, out, _ = run("verify")
    assert code == 0 and out["changed"] == []

    _deep_tree(folder)
    code, out, _ = run("uninstall", "@alice/demo")
    assert code == 0 and out["ok"] is True, out.get("error")
    assert not folder.exists() and _leftovers(folder.parent) == []
    code, out, _ = run("list")
    assert code == 0 and out["skills"] == [] and out["warnings"] == []


def test_a_deep_leftover_of_an_interrupted_update_is_removed(run: Any, skills: Path) -> None:
    """A previous version set aside by a killed update, with a deep tree inside, no longer blocks every command."""
    from nervous_plugins.skills_dir import ASIDE_PREFIX

    code, _, _ = run("install", "@alice/demo", "--yes")
    assert code == 0
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    aside = skills / "@alice" / f"{ASIDE_PREFIX}demo-{dead}-0badf00d"
    aside.mkdir()
    _deep_tree(aside)

    code, out, _ = run("list")
    assert code == 0 and out["skills"][0]["modified"] is False, out.get("error")
    assert any(aside.name in w and "removed" in w for w in out["warnings"])
    assert _leftovers(skills / "@alice") == []
    code, out, _ = run("install", "@alice/twin", "--yes")
    assert code == 0


def test_a_leftover_that_cannot_be_removed_never_blocks_commands(run: Any, skills: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous_plugins import skills_dir

    code, _, _ = run("install", "@alice/demo", "--version", "1.0.0", "--yes")
    assert code == 0
    monkeypatch.setattr(skills_dir, "_remove_tree", lambda path: False)  # a folder the system will not remove

    code, out, _ = run("update", "@alice/demo", "--yes")
    assert code == 0 and out["ok"] is True and out["version"] == "1.1.0", out.get("error")
    assert any("could not be removed" in w for w in out["warnings"])
    left = _leftovers(skills / "@alice")
    assert len(left) == 1 and left[0].startswith(skills_dir.TRASH_PREFIX), "never restored over the update"
    # in-process runs share this test's pid: give the leftover the pid of a process that is gone
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (skills / "@alice" / left[0]).rename(skills / "@alice" / f"{skills_dir.TRASH_PREFIX}demo-{dead}-0badf00d")

    for args in (("list",), ("verify",), ("install", "@alice/twin", "--yes")):
        code, out, _ = run(*args)
        assert code == 0 and out["ok"] is True, (args, out.get("error"))
        assert any("could not remove" in w for w in out["warnings"]), args
    code, out, _ = run("uninstall", "@alice/twin")
    assert code == 0 and out["ok"] is True, out.get("error")
    code, out, _ = run("list")
    assert [s["version"] for s in out["skills"]] == ["1.1.0"]

    monkeypatch.undo()  # once it can be removed, the next command does (twin's trash is this live process's)
    code, out, _ = run("list")
    assert code == 0 and not (skills / "@alice" / f"{skills_dir.TRASH_PREFIX}demo-{dead}-0badf00d").exists()


def test_the_target_checks_again_under_its_lock(pm: Any, workdir: Path) -> None:
    """The folder may change between the command's check and the swap: the target refuses it there too."""
    from nervous.engines.install.gate import Approval
    from nervous.engines.install.installer import Installer
    from nervous.errors import Refused

    installer = Installer(pm)
    installer.install(installer.plan("@alice/demo", "1.0.0"), approval=Approval("agent", "token"))
    folder = workdir / "skills" / "@alice" / "demo"
    (folder / "late.md").write_text("written after the check\n")
    before = digest(folder)
    target = pm.install_target()
    target.keep_local_changes = True
    with pytest.raises(Refused) as info:
        installer.install(installer.plan("@alice/demo", None), approval=Approval("agent", "token"), force=True)
    assert info.value.code == "modified" and "added file: late.md" in info.value.message
    assert digest(folder) == before
    target.keep_local_changes = False  # install --force: the user asked for the replacement
    record = installer.install(installer.plan("@alice/demo", None), approval=Approval("agent", "token"), force=True)
    assert record.version == "1.1.0" and not (folder / "late.md").exists()
