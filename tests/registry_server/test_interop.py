"""The real clawhub CLI (npm 0.23.3) and nervous's own clawhub plugin against a real registry process."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nervous.kernel.fingerprint import folder_entries, skill_fingerprint
from nervous.testing.registry_process import RegistryProcess

from .conftest import call, publish, skill_folder

CLI_VERSION = "0.23.3"


def _cli() -> str:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the clawhub CLI interop test needs Node.js 20+")
    found = os.environ.get("NERVOUS_CLAWHUB_CLI") or shutil.which("clawhub")
    if not found:
        pytest.skip(f"the clawhub CLI is not installed (npm install clawhub@{CLI_VERSION})")
    return found


@pytest.fixture
def clawhub(server: RegistryProcess, tmp_path: Path) -> Any:
    cli = _cli()
    workdir = tmp_path / "work"
    workdir.mkdir()
    config = tmp_path / "clawhub.json"
    env = {**os.environ, "CLAWHUB_CONFIG_PATH": str(config), "CLAWHUB_DISABLE_TELEMETRY": "1", "NO_COLOR": "1",
           "FORCE_COLOR": "0"}

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([cli, "--registry", server.url, "--workdir", str(workdir), "--no-input", *args],
                              capture_output=True, text=True, env=env, timeout=120, cwd=workdir)
        if check and proc.returncode != 0:
            raise AssertionError(f"clawhub {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    def login(token: str) -> None:
        config.write_text(json.dumps({"registry": server.url, "token": token}))

    run.workdir = workdir  # type: ignore[attr-defined]
    run.login = login  # type: ignore[attr-defined]
    return run


def _published_fp(installed: Path) -> str:
    return skill_fingerprint([(p, h) for p, h in folder_entries(installed) if p != "_meta.json"])


@pytest.mark.interop
def test_official_cli_search_inspect_install_update_list(clawhub: Any, server: RegistryProcess, alice: str,
                                                         tmp_path: Path) -> None:
    folder = skill_folder(tmp_path / "src", "gifgrep", "Search GIF providers.", {"scripts/run.sh": "echo hi\n"})
    publish(server, alice, folder, "1.0.0")
    assert "gifgrep" in clawhub("search", "gif").stdout
    inspected = json.loads(clawhub("inspect", "gifgrep", "--files", "--json").stdout)
    assert inspected["latestVersion"]["version"] == "1.0.0"
    assert {f["path"] for f in inspected["version"]["files"]} == {"SKILL.md", "scripts/run.sh"}
    clawhub("install", "gifgrep")
    installed: Path = clawhub.workdir / "skills" / "gifgrep"
    assert (installed / "_meta.json").is_file()
    fp = _published_fp(installed)
    assert call("GET", f"{server.url}/api/v1/resolve?slug=gifgrep&hash={fp}").json()["match"] == {"version": "1.0.0"}
    assert "gifgrep  1.0.0" in clawhub("list").stdout
    assert "up to date" in clawhub("update", "gifgrep").stdout
    (folder / "scripts" / "run.sh").write_text("echo hello\n")
    publish(server, alice, folder, "1.1.0")
    assert "Updated gifgrep -> v1.1.0" in clawhub("update", "gifgrep").stdout
    assert "gifgrep  1.1.0" in clawhub("list").stdout
    assert (installed / "scripts" / "run.sh").read_text() == "echo hello\n"


@pytest.mark.interop
def test_official_cli_publishes_unchanged(clawhub: Any, server: RegistryProcess, alice: str, tmp_path: Path) -> None:
    folder = skill_folder(tmp_path / "src", "weather", "Weather lookups.", {"notes.md": "n\n"})
    assert "Not logged in" in clawhub("publish", str(folder), "--version", "1.0.0", check=False).stderr
    clawhub.login("clh_forged")
    assert clawhub("publish", str(folder), "--version", "1.0.0", check=False).returncode != 0
    clawhub.login(alice)
    assert "Published weather@1.0.0" in clawhub("publish", str(folder), "--version", "1.0.0").stdout
    again = clawhub("publish", str(folder), "--version", "1.0.0", check=False)
    assert again.returncode != 0 and "immutable" in again.stdout + again.stderr
    ver = call("GET", f"{server.url}/api/v1/skills/weather/versions/1.0.0").json()["version"]
    assert {f["path"]: f["sha256"] for f in ver["files"]} == {
        p: hashlib.sha256((folder / p).read_bytes()).hexdigest() for p in ("SKILL.md", "notes.md")}
    assert ver["security"]["status"] == "clean"


def _nervous(args: list[str], workdir: Path, server: RegistryProcess, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    from nervous.frontends.cli import cli

    monkeypatch.chdir(workdir)
    monkeypatch.setenv("CLAWHUB_REGISTRY", server.url)
    monkeypatch.setenv("NERVOUS_REGISTRIES", "clawhub")
    capsys.readouterr()
    code = cli([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_nervous_installs_with_per_file_verification(server: RegistryProcess, alice: str, tmp_path: Path,
                                                     nervous_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = skill_folder(tmp_path / "src", "tidy", "Tidy notes.", {"scripts/tidy.sh": "echo tidy\n"})
    publish(server, alice, folder, "1.0.0")
    workdir = tmp_path / "work"
    workdir.mkdir()
    code, out = _nervous(["install", "tidy", "--yes"], workdir, server, monkeypatch, capsys)
    assert code == 0, out
    installed = workdir / "skills" / "tidy"
    assert (installed / "scripts" / "tidy.sh").read_text() == "echo tidy\n"
    fp = _published_fp(installed)
    assert call("GET", f"{server.url}/api/v1/resolve?slug=tidy&hash={fp}").json()["match"] == {"version": "1.0.0"}

    # a blob altered on the server's disk is caught file by file, and nothing is installed
    bad = skill_folder(tmp_path / "src", "tampered", "Tampered.", {"scripts/x.sh": "echo original\n"})
    publish(server, alice, bad, "1.0.0")
    sha = hashlib.sha256(b"echo original\n").hexdigest()
    (server.data_dir / "blobs" / sha[:2] / sha[2:]).write_bytes(b"echo evil!!!!\n")
    code, out = _nervous(["install", "tampered", "--yes"], workdir, server, monkeypatch, capsys)
    assert code != 0 and "scripts/x.sh" in out["error"]["message"], out
    assert not (workdir / "skills" / "tampered").exists()
