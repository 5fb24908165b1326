"""``nervous integrations install`` never writes outside the workspace's targets, never through a link,
never over a file the user changed without ``--force``; bad input leaves everything as it was."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nervous.frontends.integrations as integrations
from nervous.frontends.integrations import MARKER, bundled_files, bundled_skills
from nervous.testing.cli import CliResult, run_cli, write_distribution

PI = Path(".pi", "extensions", "nervous")
NAMES = ["goal-workflow", "skill-acquisition", "skill-evolver"]


def install(host: str, ws: Path, *extra: str) -> CliResult:
    return run_cli("integrations", "install", host, "--workspace", str(ws), *extra, "--json",
                   env={"NERVOUS_HOME": str(ws.parent / "home"), "NERVOUS_NO_ENTRY_POINT_CACHE": "1"})


def snapshot(top: Path) -> dict[str, Any]:
    """Every entry under ``top`` (links not followed): its type and inode, a file's bytes, a link's target."""
    out: dict[str, Any] = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder, name)
            st = os.lstat(path)
            body = (path.read_bytes() if stat.S_ISREG(st.st_mode)
                    else os.readlink(path) if stat.S_ISLNK(st.st_mode) else None)
            out[str(path.relative_to(top))] = (stat.S_IFMT(st.st_mode), st.st_ino, body)
    return out


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def error(res: CliResult, exit_code: int, code: str) -> dict[str, Any]:
    assert res.exit_code == exit_code, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    err: dict[str, Any] = res.json["error"]
    assert err["code"] == code, err
    return err


@pytest.fixture(params=["at", "paths"])
def write_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Writes relative to open folders (POSIX), or by checked full paths (the fallback elsewhere)."""
    if request.param == "paths":
        monkeypatch.setattr(integrations, "_AT", False, raising=False)
    elif not getattr(integrations, "_AT", True):
        pytest.skip("this platform has no *at() system calls")
    return str(request.param)


# ------------------------------------------------------------------------------ links and non-folders on the way


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("sub, victim", [("skills", "goal-workflow/SKILL.md"), ("prompts", "cortex.md"),
                                         ("skills/goal-workflow", "SKILL.md")])
def test_pi_never_writes_through_a_linked_folder_inside_the_extension(tmp_path: Path, sub: str, victim: str,
                                                                      force: bool) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    assert install("pi", ws).exit_code == 0
    (outside / victim).parent.mkdir(parents=True)
    (outside / victim).write_text("MY NOTES\n")
    linked = ws / PI / sub
    for path in sorted(linked.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    linked.rmdir()
    linked.symlink_to(outside, target_is_directory=True)
    (ws / PI / "index.ts").write_text("edited\n")  # would be refused as modified: the link is found first
    before, outside_before = snapshot(ws), snapshot(outside)
    err = error(install("pi", ws, *(["--force"] if force else [])), 2, "unsafe_path")
    assert err["details"]["conflicts"] == [str(linked)]
    assert f"{linked} is a symbolic link" in err["message"]
    assert snapshot(ws) == before and snapshot(outside) == outside_before
    assert (outside / victim).read_text() == "MY NOTES\n"


@pytest.mark.parametrize("host, sub", [("openclaw", "skills"), ("openclaw", "skills/skill-acquisition"),
                                       ("pi", ".pi"), ("pi", ".pi/extensions/nervous/prompts")])
@pytest.mark.parametrize("kind", ["file", "fifo", "link-to-file"])
def test_anything_but_a_real_folder_on_the_way_is_unsafe_even_with_force(tmp_path: Path, host: str, sub: str,
                                                                         kind: str) -> None:
    ws = tmp_path / "ws"
    (ws / sub).parent.mkdir(parents=True)
    (tmp_path / "elsewhere.txt").write_text("mine\n")
    if kind == "file":
        (ws / sub).write_text("mine\n")
    elif kind == "fifo":
        os.mkfifo(ws / sub)
    else:
        (ws / sub).symlink_to(tmp_path / "elsewhere.txt")
    before = snapshot(tmp_path)
    err = error(install(host, ws, "--force"), 2, "unsafe_path")
    assert err["details"]["conflicts"] == [str(ws / sub)]
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------------------ the temporary file


@pytest.mark.parametrize("host", ["openclaw", "pi"])
def test_a_link_planted_at_a_temporary_name_is_never_followed(tmp_path: Path, host: str, write_mode: str) -> None:
    """Links at the names older releases used (``.<file>.tmp-<pid>``: this process runs the CLI) stay links."""
    ws, victim = tmp_path / "ws", tmp_path / "victim.txt"
    victim.write_text("precious\n")
    rels = ([f"skills/{n}/{leaf}" for n in NAMES for leaf in ("SKILL.md", MARKER)] if host == "openclaw"
            else [f"{PI.as_posix()}/{rel}" for rel in [*bundled_files("pi"), MARKER]])
    planted = []
    for rel in rels:
        target = ws / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        link = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        link.symlink_to(victim)
        planted.append(link)
    res = install(host, ws, "--force")
    assert res.exit_code == 0, res.stdout
    assert victim.read_text() == "precious\n"
    shipped = ({f"skills/{n}/SKILL.md": t for n, t in bundled_skills().items()} if host == "openclaw"
               else {f"{PI.as_posix()}/{rel}": t for rel, t in bundled_files("pi").items()})
    for rel in rels:
        assert stat.S_ISREG(os.lstat(ws / rel).st_mode), rel
        if rel in shipped:
            assert (ws / rel).read_text(encoding="utf-8") == shipped[rel]
    for link in planted:
        assert os.readlink(link) == str(victim)
    # nothing else is left beside them: the temporary files were renamed into place
    written = {Path(rel) for rel in rels} | {p.relative_to(ws) for p in planted}
    files = {p.relative_to(ws) for p in ws.rglob("*") if not p.is_dir() or p.is_symlink()}
    assert files == written


def test_a_link_swapped_in_while_installing_is_never_written_through(tmp_path: Path) -> None:
    """A plugin plants a link at the next skill's folder after the first is written (checked at each write);
    the error says what was already written."""
    ws, outside, site = tmp_path / "ws", tmp_path / "outside", tmp_path / "site"
    ws.mkdir()
    outside.mkdir()
    write_distribution(site, "nervous-racer", {"nervous_racer": f"""
import os
from nervous import hookimpl

@hookimpl
def nervous_event(event, manager):
    if event.kind == "gate.admit" and event.data["skill"].endswith("goal-workflow"):
        os.symlink({str(outside)!r}, {str(ws / "skills" / "skill-acquisition")!r})
"""}, {"racer": "nervous_racer"})
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "NERVOUS_HOME": str(tmp_path / "home"),
           "HOME": str(tmp_path / "user"), "NERVOUS_NO_ENTRY_POINT_CACHE": "1"}
    res = subprocess.run([sys.executable, "-m", "nervous", "integrations", "install", "openclaw", "--workspace",
                          str(ws), "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    err = json.loads(res.stdout)["error"]
    assert err["code"] == "unsafe_path" and err["details"]["written"] == ["goal-workflow"]
    assert err["details"]["conflicts"] == [str(ws / "skills" / "skill-acquisition")]
    assert "already written before this failure: goal-workflow" in err["message"]
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in (ws / "skills").iterdir()) == ["goal-workflow", "skill-acquisition"]
    assert (ws / "skills" / "goal-workflow" / "SKILL.md").read_text(encoding="utf-8") == bundled_skills()["goal-workflow"]


# ------------------------------------------------------------------------------ files the user changed


def make_older(marker: Path, target: Path, key: str | None = None) -> None:
    """``target`` as an older release of nervous wrote it: other bytes, recorded in the marker."""
    old = b"an older version nervous wrote\n"
    target.write_bytes(old)
    data = json.loads(marker.read_text())
    if key is None:
        data["sha256"] = sha(old)
    else:
        data["sha256"][key] = sha(old)
    marker.write_text(json.dumps(data))


def test_openclaw_keeps_an_edited_skill_unless_forced_and_updates_its_own(tmp_path: Path, write_mode: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert install("openclaw", ws).exit_code == 0
    skills = ws / "skills"
    make_older(skills / "goal-workflow" / MARKER, skills / "goal-workflow" / "SKILL.md")
    edited = skills / "skill-evolver" / "SKILL.md"
    edited.write_text(edited.read_text() + "\nMy own rule.\n")
    before = snapshot(ws)
    err = error(install("openclaw", ws), 1, "modified")
    assert err["details"]["conflicts"] == [str(edited)]
    assert f"{edited} changed since nervous wrote it" in err["message"] and "--force" in err["message"]
    assert snapshot(ws) == before, "nothing is written when one file was edited"

    res = install("openclaw", ws, "--force")
    assert [s["action"] for s in res.json["skills"]] == ["updated", "unchanged", "replaced"]
    for name in NAMES:
        text = bundled_skills()[name]
        assert (skills / name / "SKILL.md").read_text(encoding="utf-8") == text
        assert json.loads((skills / name / MARKER).read_text())["sha256"] == sha(text.encode())

    make_older(skills / "skill-acquisition" / MARKER, skills / "skill-acquisition" / "SKILL.md")
    res = install("openclaw", ws)  # an older copy nobody changed is nervous's to update
    assert [s["action"] for s in res.json["skills"]] == ["unchanged", "updated", "unchanged"]
    assert (skills / "skill-acquisition" / "SKILL.md").read_text(encoding="utf-8") == bundled_skills()["skill-acquisition"]


def test_openclaw_a_marker_without_hashes_counts_as_changed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert install("openclaw", ws).exit_code == 0
    for name in NAMES:
        (ws / "skills" / name / MARKER).write_text(json.dumps({"managed_by": "nervous", "skill": name}))
    (ws / "skills" / "skill-evolver" / "SKILL.md").write_text("something\n")
    before = snapshot(ws)
    err = error(install("openclaw", ws), 1, "modified")
    path = ws / "skills" / "skill-evolver" / "SKILL.md"
    assert err["details"]["conflicts"] == [str(path)]
    assert "marker does not record what it wrote" in err["message"]
    assert snapshot(ws) == before
    res = install("openclaw", ws, "--force")
    assert [s["action"] for s in res.json["skills"]] == ["unchanged", "unchanged", "replaced"]
    for name in NAMES:  # identical copies keep their action but get a marker that records them
        assert json.loads((ws / "skills" / name / MARKER).read_text())["sha256"] == sha(bundled_skills()[name].encode())


def test_pi_keeps_an_edited_file_unless_forced_and_updates_its_own(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert install("pi", ws).exit_code == 0
    folder = ws / PI
    make_older(folder / MARKER, folder / "index.ts", key="index.ts")
    edited = folder / "prompts" / "cortex.md"
    edited.write_text("my own /cortex prompt\n")
    before = snapshot(ws)
    err = error(install("pi", ws), 1, "modified")
    assert err["details"]["conflicts"] == [str(edited)]
    assert f"{edited} changed since nervous wrote it" in err["message"]
    assert snapshot(ws) == before

    res = install("pi", ws, "--force")
    actions = {s["name"]: s["action"] for s in res.json["skills"]}
    assert actions == {rel: {"index.ts": "updated", "prompts/cortex.md": "replaced"}.get(rel, "unchanged")
                       for rel in bundled_files("pi")}
    for rel, text in bundled_files("pi").items():
        assert (folder / rel).read_text(encoding="utf-8") == text

    marker = json.loads((folder / MARKER).read_text())
    del marker["sha256"]  # a marker without hashes: an identical file is unchanged, a different one is kept
    (folder / MARKER).write_text(json.dumps(marker))
    res = install("pi", ws)
    assert {s["action"] for s in res.json["skills"]} == {"unchanged"}
    assert set(json.loads((folder / MARKER).read_text())["sha256"]) == set(bundled_files("pi"))
    (folder / MARKER).write_text(json.dumps(marker))
    (folder / "package.json").write_text("{}\n")
    err = error(install("pi", ws), 1, "modified")
    assert err["details"]["conflicts"] == [str(folder / "package.json")]
    assert (folder / "package.json").read_text() == "{}\n"
