"""Hand-edited acquisition documents and hostile registry text, through the real CLI over a local
registry: a wrong-shaped session is set aside with a warning and never breaks another acquisition;
a skill's description is shown with its escape sequences escaped."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from nervous.testing.cli import CliResult, run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TASK = "count the words in my report"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    d = tmp_path / "project"
    shutil.copytree(EXAMPLES / "registry", d / "registry")
    (d / ".nervous.toml").write_text('[registries]\nuse=["local"]\n[plugins.local]\npaths=["registry"]\n'
                                     '[install]\ndir="skills"\n', encoding="utf-8")
    return d


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "CLAWHUB_"))}
    out.update(NERVOUS_HOME=str(tmp_path / "home"), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NO_COLOR="1")
    return out


def run(env: dict[str, str], cwd: Path, *args: str) -> CliResult:
    return run_cli(*args, environ=env, cwd=cwd)


def token(env: dict[str, str], cwd: Path) -> str:
    proc = run(env, cwd, "acquire", TASK, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tok: str = json.loads(proc.stdout)["candidates"][0]["token"]
    return tok


def edit(env: dict[str, str], tok: str, change: dict[str, Any]) -> Path:
    path = Path(env["NERVOUS_HOME"]) / "data" / "acquisitions" / (tok.split("-")[0] + ".json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    for key, value in change.items():
        if key == "installed.candidate":
            doc["installed"]["candidate"] = value
        else:
            doc[key] = value
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def weights(env: dict[str, str], cwd: Path) -> str:
    return run(env, cwd, "cortex", "show", "--json").stdout


BAD = [{"installed": "x"}, {"candidates": {}}, {"tokens": []}, {"attempts": None}, {"candidates": [1]}]


@pytest.mark.parametrize("change", BAD, ids=lambda c: json.dumps(c))
@pytest.mark.parametrize("command", ["approve", "cancel"])
def test_a_wrong_shaped_session_is_set_aside_on_approve_and_cancel(env: dict[str, str], project: Path,
                                                                   change: dict[str, Any], command: str) -> None:
    tok = token(env, project)
    path = edit(env, tok, change)
    proc = run(env, project, command, tok, "--json")
    assert proc.returncode in (1, 2), proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["ok"] is False and any("wrong shape" in w for w in data["warnings"]), data
    assert not path.exists() and not (project / "skills").exists()
    kept = list((Path(env["NERVOUS_HOME"]) / "data" / "acquisitions-quarantine").iterdir())
    assert len(kept) == 1 and json.loads(kept[0].read_text())["document"]["id"] == tok.split("-")[0]


@pytest.mark.parametrize("change", [
    {"installed": "x"}, {"installed": {"candidate": 99, "slug": "word-count"}}, {"tokens": []},
    {"attempts": None, "installed": {"candidate": 0, "slug": "word-count"}},
], ids=lambda c: json.dumps(c))
def test_one_wrong_shaped_session_never_breaks_done_for_another(env: dict[str, str], project: Path,
                                                                change: dict[str, Any]) -> None:
    good = token(env, project)
    assert run(env, project, "approve", good).returncode == 0
    bad = token(env, project)
    edit(env, bad, change)
    done = run(env, project, "done", "word-count", "--outcome", "success", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["state"] == "done" and any("wrong shape" in w for w in data["warnings"])
    again = run(env, project, "done", "word-count", "--outcome", "success", "--json")
    assert again.returncode == 1 and "wrong shape" not in again.stdout, "set aside once, then gone"


def test_attempts_null_learns_nothing(env: dict[str, str], project: Path) -> None:
    tok = token(env, project)
    assert run(env, project, "approve", tok).returncode == 0
    before = weights(env, project)
    edit(env, tok, {"attempts": None})
    proc = run(env, project, "done", "word-count", "--outcome", "success")
    assert proc.returncode in (1, 2) and "wrong shape" in proc.stderr, proc.stdout + proc.stderr
    assert weights(env, project) == before, "nothing is learned from a session that was set aside"


def test_a_registry_description_is_shown_escaped(env: dict[str, str], project: Path) -> None:
    skill = project / "registry" / "word-count" / "SKILL.md"
    text = skill.read_text(encoding="utf-8").splitlines()
    text = [("description: Count the words \x1b]0;pwned\x07 in a report." if line.startswith("description:")
             else line) for line in text]
    skill.write_text("\n".join(text) + "\n", encoding="utf-8")
    proc = run(env, project, "acquire", TASK)
    assert proc.returncode == 0, proc.stderr
    assert "word-count" in proc.stdout
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout, proc.stdout
