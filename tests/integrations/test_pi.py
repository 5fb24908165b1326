"""The pi package, loaded by the real pi SDK (no model): the ``goal`` tool runs through pi's own
argument validation and tool wrapper, the commands through ``session.prompt`` as a user types
them, and everything lands in nervous's goal store through the ``nervous`` command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nervous.frontends.integrations import MARKER, bundled_files
from nervous.testing.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("pi_harness.mjs")
PI_VERSION = "0.73.1"  # pinned in .ci/run
PACKAGED = REPO / "nervous" / "frontends" / "integrations" / "pi"


def _node_modules() -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the pi extension tests need Node.js 20.6+")
    root = Path(os.environ.get("NERVOUS_PI_NODE_MODULES") or REPO / ".ci" / "node" / "node_modules")
    if not (root / "@mariozechner" / "pi-coding-agent" / "package.json").is_file():
        # CI (.ci/run installs it) must run these tests; a developer's checkout may not have it yet
        report = pytest.fail if os.environ.get("CI") else pytest.skip
        report(f"the pi package is not installed under {root}: run npm install --prefix .ci/node "
               f"@mariozechner/pi-coding-agent@{PI_VERSION} (or set NERVOUS_PI_NODE_MODULES)")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The nervous of this checkout first on PATH, an isolated home and goal scope."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    launcher = bindir / "nervous"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} -m nervous \"$@\"\n", encoding="utf-8")
    launcher.chmod(0o755)
    out = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    out.update(PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", NERVOUS_HOME=str(tmp_path / "home"),
               NERVOUS_PROJECT="demo", NERVOUS_CONTEXT="main", HOME=str(tmp_path / "user"))
    return out


def pi_run(env: dict[str, str], cwd: Path, agent_dir: Path, steps: list[dict[str, Any]]) -> dict[str, Any]:
    node_modules = _node_modules()
    agent_dir.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    script = json.dumps({"cwd": str(cwd), "agentDir": str(agent_dir), "steps": steps})
    res = subprocess.run(["node", str(HARNESS), str(node_modules)], input=script, capture_output=True, text=True,
                         env=env, cwd=cwd, timeout=180)
    assert res.returncode == 0, res.stderr[-3000:]
    out: dict[str, Any] = json.loads(res.stdout)
    assert out["load_errors"] == []
    return out


def with_package(tmp_path: Path) -> Path:
    """An agent folder whose settings.json lists the package, as ``pi install <path>`` writes it."""
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"packages": [str(REPO / "integrations" / "pi")]}))
    return agent


def nervous_json(env: dict[str, str], cwd: Path, *args: str) -> dict[str, Any]:
    res = run_cli(*args, "--json", environ=env, cwd=cwd)
    data: dict[str, Any] = json.loads(res.stdout)
    return data


# ------------------------------------------------------------------------------------ the package files


def test_the_top_level_package_matches_the_packaged_one() -> None:
    top = REPO / "integrations" / "pi"
    files = sorted(p.relative_to(top).as_posix() for p in top.rglob("*") if p.is_file())
    assert files == sorted(bundled_files("pi"))
    for rel, text in bundled_files("pi").items():
        assert (top / rel).read_text(encoding="utf-8") == text, rel


def test_the_goal_tool_schema_is_the_mcp_goal_schema_flattened() -> None:
    from nervous.frontends.mcp.schema import tool_specs

    spec = next(t for t in tool_specs() if t.name == "goal")
    shipped = json.loads((PACKAGED / "goal-tool.schema.json").read_text(encoding="utf-8"))
    assert shipped == {k: v for k, v in spec.input_schema.items() if k != "allOf"}
    assert shipped["required"] == ["action"] and shipped["additionalProperties"] is False


def test_the_skills_are_the_ones_every_host_gets() -> None:
    for name in ("goal-workflow", "skill-acquisition"):
        pi_copy = (PACKAGED / "skills" / name / "SKILL.md").read_text(encoding="utf-8")
        assert pi_copy == (REPO / "nervous" / "frontends" / "integrations" / "openclaw" / name / "SKILL.md").read_text("utf-8")


# ------------------------------------------------------------------------------------ loaded by pi


def test_pi_loads_the_tool_the_commands_and_the_skills(tmp_path: Path, env: dict[str, str]) -> None:
    out = pi_run(env, tmp_path / "proj", with_package(tmp_path), [{"resources": True}])
    assert out["tools"] == ["goal"]
    assert out["commands"] == ["cortex", "cortex:goals", "cortex:resume", "nervous", "nervous:config",
                               "nervous:reset", "nervous:state"]
    skills = {s["name"] for s in out["results"][0]["skills"]}
    assert {"goal-workflow", "skill-acquisition"} <= skills


def test_the_goal_tool_drives_a_goal_to_completion_in_nervous_store(tmp_path: Path, env: dict[str, str]) -> None:
    proj = tmp_path / "proj"
    steps = [
        {"tool": "goal", "params": {"action": "analyze", "prompt": "Build a todo API with tests",
                                    "success_criteria": ["CRUD endpoints pass tests"],
                                    "framing": {"scope": ["CRUD API"], "non_goals": ["authentication"]}}},
        {"tool": "goal", "params": {"action": "complete"}},  # refused by nervous: not verified
        {"tool": "goal", "params": {"action": "plan", "subtasks": [{"title": "Scaffold"},
                                                                   {"title": "Tests", "dependencies": ["Scaffold"]}]}},
        {"tool": "goal", "params": {"action": "link", "links": [{"plan_id": "plan-001", "axon_task_id": "t-1"},
                                                                {"plan_id": "plan-002", "axon_task_id": "t-2"}]}},
        {"tool": "goal", "params": {"action": "verify", "all_axon_complete": True, "checks": [
            {"criterion": "CRUD endpoints pass tests", "passed": True, "evidence": "pytest: 12 passed"}]}},
        {"tool": "goal", "params": {"action": "complete"}},
        {"tool": "goal", "params": {"action": "fly"}},  # refused by pi's validation of the schema
        {"tool": "goal", "params": {"action": "get", "colour": "red"}},  # unknown argument
    ]
    out = pi_run(env, proj, with_package(tmp_path), steps)
    analyze, refused, plan, link, verify, complete, bad_action, bad_arg = out["results"]
    assert analyze["ok"] and analyze["details"]["goal"]["id"] == "goal-001"
    assert "**Next:** plan" in analyze["text"]
    assert not refused["ok"] and refused["error"].startswith("unverified:")
    assert plan["details"]["goal"]["status"] == "planned"
    assert link["details"]["goal"]["axon_task_ids"] == ["t-1", "t-2"]
    assert verify["details"]["goal"]["status"] == "verified"
    assert complete["details"]["goal"]["status"] == "completed"
    assert not bad_action["ok"] and "Validation failed" in bad_action["error"]
    assert not bad_arg["ok"] and "colour" in bad_arg["error"]
    # the same goal, read by the nervous CLI: state lives in nervous's store
    listed = nervous_json(env, proj, "goal", "list")
    assert [(g["id"], g["status"]) for g in listed["goals"]] == [("goal-001", "completed")]


def test_the_commands_show_goals_and_dispatch_the_workflows(tmp_path: Path, env: dict[str, str]) -> None:
    proj = tmp_path / "proj"
    steps = [
        {"command": "/cortex"},  # no goal yet
        {"tool": "goal", "params": {"action": "analyze", "prompt": "Migrate the billing tables"}},
        {"command": "/cortex"},
        {"command": "/cortex:goals"},
        {"command": "/cortex:resume"},
        {"command": "/cortex add a dark mode toggle"},
        {"command": "/nervous:state"},
        {"command": "/nervous:config"},
        {"command": "/nervous:config drain=always policy=conservative"},
        {"command": "/nervous:config drain=sometimes"},
        {"command": "/nervous:config please"},
        {"command": "/nervous risk=strict finish the backlog"},
    ]
    r = pi_run(env, proj, with_package(tmp_path), steps)["results"]

    def text(i: int) -> str:
        return "\n".join(m["content"] for m in r[i]["messages"])

    assert text(0).startswith("not_found:")
    assert "goal-001 · analyzed (current)" in text(2) and "**Next:** plan" in text(2)
    assert "| goal-001 * | analyzed | Migrate the billing tables |" in text(3)
    assert "goal-001" in text(4) and len(r[4]["sent"]) == 1
    assert "Resume the current goal" in r[4]["sent"][0] and "$ARGUMENTS" not in r[4]["sent"][0]
    assert r[5]["messages"] == [] and len(r[5]["sent"]) == 1
    assert "add a dark mode toggle" in r[5]["sent"][0] and 'action "analyze"' in r[5]["sent"][0]
    assert "**By status:** analyzed 1" in text(6)
    assert "drain=on_explicit_nervous" in text(7)
    assert "drain=always policy=conservative" in text(8)
    assert text(9).startswith("invalid_arg:") and "sometimes" in text(9)
    assert text(10).startswith("invalid_arg:") and r[10]["sent"] == []
    assert "risk=strict" in text(11) and len(r[11]["sent"]) == 1
    assert r[11]["sent"][0].startswith("Drain the unfinished goals") and "finish the backlog" in r[11]["sent"][0]
    config = nervous_json(env, proj, "goal", "get-config")["config"]
    assert (config["drain_mode"], config["risk_gate_mode"]) == ("always", "strict")


def test_reset_archives_only_when_confirmed(tmp_path: Path, env: dict[str, str]) -> None:
    proj = tmp_path / "proj"
    steps = [
        {"tool": "goal", "params": {"action": "analyze", "prompt": "First"}},
        {"tool": "goal", "params": {"action": "analyze", "prompt": "Second"}},
        {"command": "/nervous:reset"},
        {"command": "/nervous:reset confirm"},
        {"tool": "goal", "params": {"action": "analyze", "prompt": "Third"}},
    ]
    r = pi_run(env, proj, with_package(tmp_path), steps)["results"]
    assert r[2]["messages"][0]["content"].startswith("not_confirmed:")
    archived = r[3]["messages"][0]["details"]
    assert archived["archived"]["goals"] == 2 and archived["archive_id"]
    assert r[4]["details"]["goal"]["id"] == "goal-003", "ids of archived goals are never reused"
    archives = nervous_json(env, proj, "goal", "archives")["archives"]
    assert archives == [{"archive_id": archived["archive_id"], "goals": 2}]


def test_a_missing_nervous_command_is_a_clear_tool_error(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "NERVOUS_BIN": str(tmp_path / "no-such-nervous")}
    out = pi_run(env, tmp_path / "proj", with_package(tmp_path),
                 [{"tool": "goal", "params": {"action": "summary"}}])
    assert not out["results"][0]["ok"]
    assert "the nervous command was not found" in out["results"][0]["error"]


# ------------------------------------------------------------------------------------ integrations install pi


def test_integrations_install_pi_is_discovered_by_pi_in_the_project(tmp_path: Path, env: dict[str, str]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    res = nervous_json(env, ws, "integrations", "install", "pi", "--workspace", str(ws))
    folder = ws / ".pi" / "extensions" / "nervous"
    assert res["extension_dir"] == str(folder)
    assert {s["action"] for s in res["skills"]} == {"installed"}
    assert json.loads((folder / MARKER).read_text())["integration"] == "pi"
    again = nervous_json(env, ws, "integrations", "install", "pi", "--workspace", str(ws))
    assert {s["action"] for s in again["skills"]} == {"unchanged"}

    out = pi_run(env, ws, tmp_path / "agent", [{"resources": True},
                                               {"tool": "goal", "params": {"action": "analyze", "prompt": "Ship it"}}])
    assert out["tools"] == ["goal"] and "nervous:reset" in out["commands"]
    assert {"goal-workflow", "skill-acquisition"} <= {s["name"] for s in out["results"][0]["skills"]}
    assert out["results"][1]["details"]["goal"]["prompt"] == "Ship it"


def test_integrations_install_pi_never_replaces_an_extension_it_did_not_write(tmp_path: Path,
                                                                              env: dict[str, str]) -> None:
    ws = tmp_path / "ws"
    mine = ws / ".pi" / "extensions" / "nervous"
    mine.mkdir(parents=True)
    (mine / "index.ts").write_text("export default function () {}\n")
    res = run_cli("integrations", "install", "pi", "--workspace", str(ws), "--json", environ=env)
    assert res.returncode != 0
    assert json.loads(res.stdout)["error"]["code"] == "unmanaged_skill"
    assert (mine / "index.ts").read_text() == "export default function () {}\n"
    assert sorted(p.name for p in mine.iterdir()) == ["index.ts"]
