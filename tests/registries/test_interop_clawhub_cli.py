"""The real ``clawhub`` CLI (npm ``clawhub@0.23.3``) against our stand-in, and cross-installs.

Proves the stand-in is faithful (the official client accepts its answers) and that installs by
either tool are recognised by the other. The CLI is found through ``NERVOUS_CLAWHUB_CLI`` or on
``PATH`` (``npm install -g clawhub@0.23.3``); without node or the CLI the test is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nervous.testing.clawhub_server import ClawHubStandin, skill_md

pytestmark = pytest.mark.interop
CLI_VERSION = "0.23.3"


def _cli() -> str:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the clawhub CLI interop test needs Node.js 20+")
    found = os.environ.get("NERVOUS_CLAWHUB_CLI") or shutil.which("clawhub")
    if not found:
        pytest.skip(f"the clawhub CLI is not installed (npm install -g clawhub@{CLI_VERSION}, or set "
                    "NERVOUS_CLAWHUB_CLI to its path)")
    return found


@pytest.fixture
def standin() -> Iterator[ClawHubStandin]:
    skills = [
        {"slug": "demo", "owner": "alice", "summary": "Demo skill",
         "versions": [{"version": "1.0.0", "files": {"SKILL.md": skill_md("demo", "Demo v1.")}},
                      {"version": "1.1.0", "files": {"SKILL.md": skill_md("demo", "Demo v2."),
                                                     "scripts/run.sh": "echo hi\n"}}]},
        {"slug": "other", "owner": "bob", "summary": "Another demo skill",
         "files": {"SKILL.md": skill_md("other", "Other."), "README.md": "Other\n"}},
    ]
    with ClawHubStandin(skills) as server:
        yield server


@pytest.fixture
def clawhub(standin: ClawHubStandin, tmp_path: Path, nervous_home: Path) -> Any:
    cli = _cli()
    workdir = tmp_path / "work"
    workdir.mkdir()
    env = {**os.environ, "CLAWHUB_CONFIG_PATH": str(tmp_path / "clawhub.json"), "CLAWHUB_DISABLE_TELEMETRY": "1",
           "NO_COLOR": "1", "FORCE_COLOR": "0"}
    version = subprocess.run([cli, "-V"], capture_output=True, text=True, env=env, timeout=60)
    assert CLI_VERSION in version.stdout + version.stderr, (
        f"clawhub CLI at {cli} is not the pinned {CLI_VERSION}: {version.stdout.strip()}")

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([cli, "--registry", standin.url, "--workdir", str(workdir), "--no-input", *args],
                              capture_output=True, text=True, env=env, timeout=120, cwd=workdir)
        if check and proc.returncode != 0:
            raise AssertionError(f"clawhub {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    run.workdir = workdir  # type: ignore[attr-defined]
    return run


def _nervous(args: list[str], workdir: Path, standin: ClawHubStandin, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    from nervous.frontends.cli import cli

    monkeypatch.chdir(workdir)
    monkeypatch.setenv("CLAWHUB_REGISTRY", standin.url)
    monkeypatch.setenv("NERVOUS_REGISTRIES", "clawhub")
    capsys.readouterr()
    code = cli([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_official_cli_accepts_the_standin(clawhub: Any, standin: ClawHubStandin) -> None:
    assert "demo" in clawhub("search", "demo").stdout
    inspected = json.loads(clawhub("inspect", "demo", "--files", "--json").stdout)
    assert inspected["skill"]["slug"] == "demo" and inspected["latestVersion"]["version"] == "1.1.0"
    assert {f["path"] for f in inspected["version"]["files"]} == {"SKILL.md", "scripts/run.sh"}
    clawhub("install", "demo", "--version", "1.0.0")
    workdir: Path = clawhub.workdir
    assert (workdir / "skills" / "demo" / "_meta.json").is_file()
    assert "demo  1.0.0" in clawhub("list").stdout
    assert "Updated demo -> v1.1.0" in clawhub("update", "demo").stdout
    assert "demo  1.1.0" in clawhub("list").stdout
    clawhub("uninstall", "demo", "--yes")
    assert not (workdir / "skills" / "demo").exists()
    assert "/api/v1/download" in standin.paths_requested()


def test_cross_installs_are_recognised(clawhub: Any, standin: ClawHubStandin, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    workdir: Path = clawhub.workdir
    code, out = _nervous(["install", "demo", "--version", "1.0.0", "--yes"], workdir, standin, monkeypatch, capsys)
    assert code == 0 and out["version"] == "1.0.0"
    listed = clawhub("list").stdout
    assert "demo  1.0.0" in listed and "Manually installed" not in listed
    # the official CLI trusts our origin fingerprint: it updates our install instead of "local changes"
    updated = clawhub("update", "demo").stdout
    assert "local changes" not in updated and "demo  1.1.0" in clawhub("list").stdout

    clawhub("install", "other")
    code, out = _nervous(["list"], workdir, standin, monkeypatch, capsys)
    rows = {s["name"]: s for s in out["skills"]}
    assert rows["other"]["managed"] is False and rows["demo"]["managed"] is True
    # the official CLI's update is seen: our record says 1.0.0, the folder now holds 1.1.0
    assert rows["demo"]["version"] == "1.0.0" and rows["demo"]["version_on_disk"] == "1.1.0"
    assert rows["demo"]["modified"] is True
    before = sorted(p.name for p in (workdir / "skills" / "other").iterdir())
    code, out = _nervous(["uninstall", "other"], workdir, standin, monkeypatch, capsys)
    assert code == 1 and out["ok"] is False and out["error"]["code"] == "not_ours"
    assert sorted(p.name for p in (workdir / "skills" / "other").iterdir()) == before
    assert "other  1.0.0" in clawhub("list").stdout

    code, out = _nervous(["uninstall", "demo"], workdir, standin, monkeypatch, capsys)
    assert code == 0
    listed = clawhub("list").stdout
    assert "demo" not in listed and "other  1.0.0" in listed
