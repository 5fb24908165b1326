"""Unreadable homes, data folders and files get their documented exit codes, checked for real.

Root ignores file modes, so when the tests run as root every command runs as an unprivileged user
(``setpriv --reuid=nobody``, or ``setuid`` in the child); as any other user the modes apply as they
are. The tests skip when neither is possible (no unprivileged account, or the interpreter and the
sources are not readable by it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

COMMANDS = [["perceive", "convert a pdf"], ["list"], ["goal", "list"], ["cortex", "show"], ["storage", "check"],
            ["audit"], ["report", "demo", "--region", "convert-pdf", "--outcome", "success"]]


def _demoted() -> tuple[list[str], Callable[[], None] | None] | None:
    """(command prefix, preexec function) running a child without root's privileges; None if impossible."""
    if os.geteuid() != 0:
        return [], None
    import pwd

    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        return None
    setpriv = shutil.which("setpriv")
    if setpriv:
        return [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"], None

    def drop() -> None:
        os.setgroups([])
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)

    return [], drop


@pytest.fixture(scope="module")
def demoted() -> tuple[list[str], Callable[[], None] | None]:
    how = _demoted()
    if how is None:
        pytest.skip("running as root with no unprivileged account to drop to")
    prefix, preexec = how
    probe = subprocess.run([*prefix, sys.executable, "-c", "import nervous.frontends.cli"], preexec_fn=preexec,
                           capture_output=True, text=True, check=False, cwd="/")
    if probe.returncode != 0:
        pytest.skip(f"the unprivileged account cannot run this interpreter and checkout: {probe.stderr[-300:]}")
    return prefix, preexec


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder every account can enter (pytest's own temporary folders are private to their owner)."""
    root = Path(tempfile.mkdtemp(prefix="nervous-perm-"))
    root.chmod(0o755)
    for name in ("work", "userhome"):
        (root / name).mkdir()
        (root / name).chmod(0o777)
    try:
        yield root
    finally:
        for dirpath, dirnames, _files in os.walk(root):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o700)
        shutil.rmtree(root, ignore_errors=True)


def _run(demoted: tuple[list[str], Callable[[], None] | None], base: Path, home: Path, args: list[str],
         **extra: str) -> tuple[int, dict[str, Any], str]:
    prefix, preexec = demoted
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "XDG_"))}
    env.update(HOME=str(base / "userhome"), NERVOUS_HOME=str(home), NERVOUS_REGISTRIES="local",
               NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", **extra)
    res = subprocess.run([*prefix, sys.executable, "-m", "nervous", *args, "--json"], env=env, cwd=base / "work",
                         preexec_fn=preexec, capture_output=True, text=True, timeout=120, check=False)
    assert "internal error" not in res.stdout + res.stderr, (args, res.stdout, res.stderr)
    assert res.returncode != 70, (args, res.stdout, res.stderr)
    return res.returncode, json.loads(res.stdout), res.stderr


def _locked(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o000)
    return path


def _expect_bad_path(code: int, out: dict[str, Any], args: list[str], where: Path) -> None:
    assert code == 2, (args, out)
    assert out["ok"] is False and out["error"]["code"] == "bad_path", (args, out)
    assert "Permission denied" in out["error"]["message"] and str(where) in out["error"]["message"], (args, out)
    assert out["error"]["details"]["errno"] == "EACCES", (args, out)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_unreadable_nervous_home(demoted: Any, base: Path, args: list[str]) -> None:
    home = _locked(base / "home")
    code, out, _ = _run(demoted, base, home, args)
    _expect_bad_path(code, out, args, home)


@pytest.mark.parametrize("backend", ["file", "sqlite"])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_unreadable_data_folder(demoted: Any, base: Path, args: list[str], backend: str) -> None:
    home = base / "home"
    home.mkdir()
    home.chmod(0o755)
    data = _locked(home / "data")
    code, out, _ = _run(demoted, base, home, args, NERVOUS_STORAGE_BACKEND=backend)
    _expect_bad_path(code, out, args, data)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_unreadable_collection_folder(demoted: Any, base: Path, args: list[str]) -> None:
    """The store exists (written by its owner) but one collection cannot be read."""
    home = base / "home"
    home.mkdir()
    home.chmod(0o777)
    code, out, _ = _run(demoted, base, home, ["report", "demo", "--region", "convert-pdf", "--outcome", "success"])
    assert code == 0, out
    cortex = home / "data" / "skill-cortex"
    assert cortex.is_dir()
    cortex.chmod(0o000)
    code, out, _ = _run(demoted, base, home, args)
    if args[0] == "storage":  # the check reports what it could not read instead of "no problems"
        assert code == 1 and out["ok"] is False, out
        assert [p["where"] for p in out["problems"]] == [str(cortex)] and "Permission denied" in out["problems"][0][
            "message"], out
        return
    if code == 0:  # a command that never reads the cortex (list, audit...)
        assert out["ok"] is True and args[0] in ("list", "goal", "audit"), (args, out)
        return
    _expect_bad_path(code, out, args, cortex)


def test_unreadable_user_config_file(demoted: Any, base: Path) -> None:
    home = base / "home"
    (home / "config").mkdir(parents=True)
    home.chmod(0o755)
    (home / "config").chmod(0o755)
    config = home / "config" / "nervous.toml"
    config.write_text("[storage]\nbackend = \"file\"\n", encoding="utf-8")
    config.chmod(0o000)
    code, out, _ = _run(demoted, base, home, ["perceive", "convert a pdf"])
    assert code == 2 and out["error"]["code"] == "config_error", out
    assert str(config) in out["error"]["message"] and "Permission denied" in out["error"]["message"], out


def test_unreadable_skills_folder(demoted: Any, base: Path) -> None:
    home = base / "home"
    home.mkdir()
    home.chmod(0o777)
    skills = _locked(base / "work" / "skills")
    code, out, _ = _run(demoted, base, home, ["list"])
    _expect_bad_path(code, out, ["list"], skills)
