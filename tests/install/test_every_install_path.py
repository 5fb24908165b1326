"""Every way a skill reaches the disk goes through :class:`nervous.engines.install.gate.Gate`.

Two halves: an inventory of every CLI command, MCP tool, Python API method and evolver operation,
each classified as writing skills or not (a new one that is not classified fails here), and a driver
per writing path that runs it for real and proves the gate admitted what it wrote.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gate_helpers import EXAMPLE_CONFIG, env_for

import nervous
from nervous.engines.install import gate
from nervous.frontends.cli import COMMANDS
from nervous.frontends.integrations import bundled_skills
from nervous.frontends.mcp.handlers import HANDLERS
from nervous.frontends.mcp.schema import EVOLVE_OPERATIONS

#: path -> the driver below that proves it passes the gate
WRITES = {
    "cli:install": "cli_install", "cli:update": "cli_update", "cli:acquire": "cli_acquire_approve",
    "cli:approve": "cli_acquire_approve", "cli:evolve": "cli_evolve", "cli:integrations": "cli_integrations",
    "api:approve": "api_approve", "api:acquire": "api_approve", "api:request_install": "api_approve",
    "api:reflex": "api_reflex", "mcp:approve": "mcp", "mcp:request_install": "mcp", "mcp:evolve": "mcp",
    "evolve:publish_candidate": "cli_evolve", "evolve:review_candidate": "cli_evolve",
    "evolve:create_candidate": "evolver_autonomous", "evolve:set_mode": "evolver_autonomous",
}
#: paths that never write a skill (rollback and promote restore or rename what the gate admitted; publish and
#: the registry server store versions in a registry, moderated at publish time, never in a skills folder)
NO_SKILL_WRITES = {
    "cli:publish", "cli:registry", "cli:plugins", "cli:config", "cli:storage", "cli:search", "cli:inspect", "cli:uninstall", "cli:list",
    "cli:verify", "cli:scan", "cli:perceive", "cli:report", "cli:cortex", "cli:goal", "cli:cancel", "cli:done",
    "cli:mcp", "cli:audit",
    "mcp:perceive", "mcp:search", "mcp:cancel", "mcp:done", "mcp:scan", "mcp:goal", "mcp:acquire",
    "api:cancel", "api:done", "api:status", "api:perceive", "api:search", "api:scan", "api:load_bundle",
    "api:close", "api:from_manager", "api:evolver_for", "api:manager", "api:acquirer", "api:cortex", "api:goals",
    "api:evolver", "api:config",
    "evolve:merge_candidate", "evolve:update_draft", "evolve:rollback_skill", "evolve:promote_canary",
    "evolve:list_candidates", "evolve:show_candidate", "evolve:get_mode", "evolve:repair_state",
}


def _inventory() -> set[str]:
    api = {n for n in dir(nervous.Nervous) if not n.startswith("_")}
    return ({f"cli:{c}" for c in COMMANDS} | {f"mcp:{t}" for t in HANDLERS} | {f"api:{m}" for m in api}
            | {f"evolve:{op}" for op in EVOLVE_OPERATIONS} | {"api:reflex"})


def test_every_path_is_classified() -> None:
    paths = _inventory()
    unclassified = sorted(paths - set(WRITES) - NO_SKILL_WRITES)
    assert not unclassified, (f"new install paths {unclassified}: classify each; if it writes a skill, it must go "
                              "through nervous.engines.install.gate.Gate and get a driver in this module")
    assert not set(WRITES) & NO_SKILL_WRITES
    assert set(WRITES.values()) <= set(DRIVERS), "every writing path has a driver"


# ------------------------------------------------------------------------------------------ the drivers


@pytest.fixture
def admitted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """``(source, approved_by)`` of every admission, recorded by wrapping the gate itself."""
    seen: list[tuple[str, str]] = []
    real = gate.Gate.admit

    def spy(self: gate.Gate, verdict: gate.Verdict, approval: gate.Approval, writer: Callable[[], Any],
            **kw: Any) -> Any:
        seen.append((verdict.source, approval.by))
        return real(self, verdict, approval, writer, **kw)

    monkeypatch.setattr(gate.Gate, "admit", spy)
    return seen


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    for k, v in env_for(tmp_path / "home").items():
        if k.startswith("NERVOUS_"):
            monkeypatch.setenv(k, v)
    yield project


def _cli(*args: str) -> dict[str, Any]:
    import io
    from contextlib import redirect_stdout

    from nervous.frontends.cli import cli

    buf = io.StringIO()
    with redirect_stdout(buf):
        code = cli(["--config", str(EXAMPLE_CONFIG), *args, "--json"])
    out: dict[str, Any] = json.loads(buf.getvalue())
    assert code == 0, out
    return out


def _draft(name: str) -> str:
    return (f"---\nname: {name}\ndescription: Summarise application logs.\n---\n# {name}\n\nSummarises logs.\n\n"
            "## Use This Skill When\n- the user asks what went wrong in the logs\n\n"
            "## Trigger Signals\n- 'summarise the logs'\n\n## Standard Steps\n1. Open the newest log file.\n"
            "2. Count the errors by type.\n\n## Risk Boundaries\n- Read only.\n\n"
            "## Do Not Use This Skill When\n- the logs belong to another user\n\n"
            "## Required Tools\n- file reading\n\n## Notes\n- learned from two log reviews\n")


def _create(project: Path, target: str) -> str:
    draft = project / f"{target}.md"
    draft.write_text(_draft(f"learned-{target}"))
    made = _cli("evolve", "create", "--target", target, "--risk", "low", "--summary", "Did it twice.",
                "--signal-type", "repeated_request", "--draft", str(draft))
    return str(made["candidate_id"])


def cli_install(project: Path, admitted: list[tuple[str, str]]) -> None:
    _cli("install", "-y", "word-count")
    assert admitted == [("local", "agent")]


def cli_update(project: Path, admitted: list[tuple[str, str]]) -> None:
    _cli("install", "-y", "word-count")
    _cli("update", "-y", "word-count")
    assert admitted == [("local", "agent"), ("local", "agent")]


def cli_acquire_approve(project: Path, admitted: list[tuple[str, str]]) -> None:
    state = _cli("acquire", "count the words in my report")
    _cli("approve", state["candidates"][0]["token"])
    assert admitted == [("local", "agent")]


def cli_evolve(project: Path, admitted: list[tuple[str, str]]) -> None:
    first = _create(project, "log-summary")
    _cli("evolve", "publish", first, "--yes")
    second = _create(project, "log-digest")
    _cli("evolve", "run", "--yes", f"approve candidate {second}")
    _cli("evolve", "run", "--yes", f"publish candidate {second}")
    assert admitted == [("evolver", "agent"), ("evolver", "agent")]


def evolver_autonomous(project: Path, admitted: list[tuple[str, str]]) -> None:
    _cli("evolve", "mode", "autonomous", "--yes")
    _create(project, "log-summary")
    assert admitted == [("evolver", "reflex")]


def cli_integrations(project: Path, admitted: list[tuple[str, str]]) -> None:
    _cli("integrations", "install", "openclaw", "--workspace", str(project))
    assert admitted == [("integration:openclaw", "agent")] * len(bundled_skills("openclaw"))


def api_approve(project: Path, admitted: list[tuple[str, str]]) -> None:
    with nervous.Nervous(EXAMPLE_CONFIG, autoload=False) as nv:
        state = nv.request_install("local:word-count")
        nv.approve(state.data["candidates"][0]["token"])
        nv.done("word-count", "success")
        state = nv.acquire("count the words in my report")
        nv.approve(state.data["candidates"][0]["token"])
    assert admitted == [("local", "agent"), ("local", "agent")]


def api_reflex(project: Path, admitted: list[tuple[str, str]]) -> None:
    with nervous.Nervous(EXAMPLE_CONFIG, autoload=False) as nv:
        for _ in range(10):
            state = nv.acquire("count the words in my report")
            nv.approve(state.data["candidates"][0]["token"])
            if state.data["mode"] == "reflex":
                break
            after = nv.done("word-count", "success")
            if after.state == "retention":
                nv.done("word-count", keep=False)
        assert state.data["mode"] == "reflex"
    assert admitted[-1] == ("local", "reflex")


def mcp(project: Path, admitted: list[tuple[str, str]]) -> None:
    """Another process: the audit log shows the gate's admissions."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
    import os

    from mcp_client import McpProcess

    env = {k: v for k, v in os.environ.items() if k.startswith("NERVOUS_") or k in ("PATH", "HOME")}
    with McpProcess(env, str(project), ["--config", str(EXAMPLE_CONFIG)]) as proc:
        state = proc.ok("request_install", {"ref": "local:word-count"})
        proc.ok("approve", {"token": state["candidates"][0]["token"]})
        made = proc.ok("evolve", {"operation": "create_candidate", "source_summary": "Did it twice.",
                                  "signal_type": "repeated_request", "signal_count": 2,
                                  "proposed_skill_content": _draft("learned-log-summary"),
                                  "target_skill": "log summary", "change_type": "create_skill",
                                  "risk_level": "low"})
        proc.ok("evolve", {"operation": "publish_candidate", "candidate_id": made["candidate_id"],
                           "user_confirmed": True})
    events = _cli("audit")["events"]
    assert [(e["data"]["source"], e["data"]["approved_by"]) for e in events if e["kind"] == "gate.admit"] == [
        ("local", "agent"), ("evolver", "agent")]
    assert admitted == []  # nothing in this process


DRIVERS: dict[str, Callable[[Path, list[tuple[str, str]]], None]] = {
    f.__name__: f for f in (cli_install, cli_update, cli_acquire_approve, cli_evolve, evolver_autonomous,
                            cli_integrations, api_approve, api_reflex, mcp)}


@pytest.mark.parametrize("driver", sorted(set(WRITES.values())))
def test_each_writing_path_goes_through_the_gate(driver: str, place: Path, admitted: list[tuple[str, str]]) -> None:
    DRIVERS[driver](place, admitted)
