"""The cortex CLI as an agent uses it: real processes, real storage backends."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nervous.kernel.config import Config
from nervous.kernel.manager import PluginManager
from nervous.testing.cli import run_cli

from .v1_fixture import V1

#: concurrent reporters are real processes
NERVOUS = [sys.executable, "-m", "nervous"]


def run(home: Path, *args: str, backend: str = "file", check: bool = True) -> dict[str, Any]:
    env = {**os.environ, "NERVOUS_HOME": str(home), "NERVOUS_STORAGE_BACKEND": backend,
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("NERVOUS_NOW", None)
    proc = run_cli(*args, "--json", environ=env)
    data: dict[str, Any] = json.loads(proc.stdout)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    data["_rc"] = proc.returncode
    return data


def _backends() -> list[Any]:
    available = PluginManager(Config(), autoload=False).providers("storage backend")
    out = []
    for name in ("file", "sqlite"):
        out.append(pytest.param(name, marks=pytest.mark.skipif(name not in available,
                                                               reason=f"storage backend {name!r} not offered")))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("backend", _backends())
def test_eight_concurrent_reporters_lose_no_run(tmp_path: Path, backend: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "NERVOUS_HOME": str(home), "NERVOUS_STORAGE_BACKEND": backend,
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    per_process = 2
    script = (
        f"for i in $(seq {per_process}); do "
        f"{' '.join(NERVOUS)} report skill-$WORKER --region shared --outcome success --json >/dev/null || exit 1; "
        f"{' '.join(NERVOUS)} report common --region shared --outcome "
        f"$( [ $((i % 2)) -eq 0 ] && echo success || echo api_error ) --json >/dev/null || exit 1; done"
    )
    procs = [subprocess.Popen(["sh", "-c", script], env={**env, "WORKER": str(w % 4)}) for w in range(8)]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    shown = run(home, "cortex", "show", backend=backend)
    cands = {c["slug"]: c for c in shown["regions"]["shared"]["candidates"]}
    common = cands["common"]
    assert common["successes"] + common["failures"] == 8 * per_process
    assert common["successes"] == 8 and common["failures"] == 8
    for w in range(4):
        assert cands[f"skill-{w}"]["successes"] == 2 * per_process


def test_report_perceive_and_admin_commands(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    first = run(home, "report", "todoist-cli", "--region", "task-management", "--outcome", "success",
                "--task", "Mark all Todoist tasks done", "--version", "1.2.0")
    assert first["candidate"]["weight"] == pytest.approx(0.575)
    bad = run(home, "report", "flaky", "--region", "task-management", "--outcome", "task_mismatch")
    assert bad["candidate"]["weight"] == pytest.approx(0.2) and bad["candidate"]["effective_weight"] < 0.3
    hit = run(home, "perceive", "show me my todoist tasks")
    assert hit["hit"] and hit["region"] == "task-management"
    assert [c["slug"] for c in hit["candidates"]] == ["todoist-cli"]
    assert run(home, "cortex", "stats")["candidates"] == 2
    assert run(home, "cortex", "blacklist", "add", "todoist-cli", "testing")["added"]
    assert run(home, "cortex", "blacklist", "list")["blacklist"][0]["identifier"] == "todoist-cli"
    assert not run(home, "perceive", "show me my todoist tasks")["hit"]
    run(home, "cortex", "blacklist", "remove", "todoist-cli")
    run(home, "cortex", "prune")
    assert run(home, "cortex", "forget", "task-management")["candidates_removed"] >= 1
    usage = run(home, "report", "x", "--region", "two words", "--outcome", "success", check=False)
    assert usage["_rc"] == 2 and usage["ok"] is False


def test_import_export_round_trip(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    original = tmp_path / "cortex.json"
    original.write_text(json.dumps(V1, indent=2), encoding="utf-8")
    assert run(home, "cortex", "import", str(original))["mode"] == "copied"
    out = tmp_path / "out.json"
    run(home, "cortex", "export", str(out))
    assert json.loads(out.read_text(encoding="utf-8")) == V1
    assert out.read_text(encoding="utf-8").endswith("}\n")
    strict = tmp_path / "strict.json"
    run(home, "cortex", "export", str(strict), "--format", "skill-cortex-v1")
    expected = copy.deepcopy(V1)
    del expected["unknown_top"], expected["cortex"]["future_section"]
    del expected["cortex"]["motor"]["task-management"]["candidates"][0]["x-custom"]
    del expected["cortex"]["sensory"]["patterns"][1]["note"]
    expected["cortex"]["prefrontal"]["lessons"].pop()
    assert json.loads(strict.read_text(encoding="utf-8")) == expected


def test_corrupt_file_degrades_then_rebuilds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    run(home, "report", "todoist-cli", "--region", "task-management", "--outcome", "success",
        "--task", "query my todo list")
    path = home / "data" / "skill-cortex" / "cortex.json"
    assert path.is_file()
    path.write_text('{"version": 1, "cortex": {', encoding="utf-8")
    for _ in range(2):
        p = run(home, "perceive", "query my todo list")
        assert p["hit"] is False and p["degraded"] is True
        corrupt_warnings = [w for w in p["warnings"] if "corrupt" in w]
        assert len(corrupt_warnings) == 1
    assert len(list(path.parent.glob("cortex.json.corrupt-*"))) == 1  # quarantined once
    rebuilt = run(home, "report", "todoist-cli", "--region", "task-management", "--outcome", "success",
                  "--task", "query my todo list")
    assert any("rebuilt" in w or "restored" in w for w in rebuilt["warnings"])
    after = run(home, "perceive", "query my todo list")
    assert after["hit"] and after["region"] == "task-management" and not after["degraded"]
    json.loads(path.read_text(encoding="utf-8"))
