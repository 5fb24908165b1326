"""Fixtures for evolver tests: a workspace, an engine over the built-in plugins, and draft builders."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nervous.engines.evolver import Evolver
from nervous.testing.cli import CliResult
from nervous.testing.cli import run_cli as _run_cli

T0 = "2026-03-04T18:40:11Z"


def make_draft(name: str = "learned-log-summary", *, description: str = "Summarise application logs.",
               steps: tuple[str, ...] = ("Open the newest log file.", "Count the errors by type."),
               boundaries: str = "- Read only. Escalate to the user when a log contains credentials.",
               code: str = "", extra_front: str = "") -> str:
    """A draft in the managed-skill template (prose only unless ``code`` adds a block)."""
    numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    return (f"---\nname: {name}\ndescription: {description}\n{extra_front}---\n"
            f"# {name}\n\nSummarises logs for the user.\n\n"
            "## Use This Skill When\n- the user asks what went wrong in the logs\n\n"
            "## Trigger Signals\n- 'summarise the logs'\n\n"
            f"## Standard Steps\n{numbered}\n{code}\n"
            f"## Risk Boundaries\n{boundaries}\n\n"
            "## Do Not Use This Skill When\n- the logs belong to another user\n\n"
            "## Required Tools\n- file reading\n\n"
            "## Notes\n- learned from two log reviews\n")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def evolver(nervous_pm: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Evolver:
    monkeypatch.setenv("NERVOUS_NOW", T0)
    return Evolver(nervous_pm, workspace)


def create(ev: Evolver, target: str = "log summary", *, change: str = "create_skill", risk: str = "low",
           draft: str | None = None, **kw: Any) -> dict[str, Any]:
    return ev.create_candidate(source_summary=kw.pop("source_summary", "Summarised logs twice for the user."),
                               signal_type=kw.pop("signal_type", "repeated_request"),
                               signal_count=kw.pop("signal_count", 2),
                               proposed_skill_content=draft if draft is not None else make_draft(),
                               target_skill=target, change_type=change, risk_level=risk, **kw)


@pytest.fixture
def published(evolver: Evolver) -> Callable[..., dict[str, Any]]:
    """Create and publish a managed skill (manual mode); returns the publish result."""

    def go(target: str = "log summary", draft: str | None = None) -> dict[str, Any]:
        res = create(evolver, target, draft=draft)
        return evolver.publish_candidate(res["candidate_id"], user_confirmed=True)

    return go


def tree(ws: Path) -> dict[str, bytes]:
    """Every file under the workspace that defines its logical state (audit tx ids and recovery notes dropped)."""
    out: dict[str, bytes] = {}
    for root, _dirs, files in os.walk(ws):
        for name in files:
            path = Path(root) / name
            rel = path.relative_to(ws).as_posix()
            if rel.startswith(".skill-evolver/journal/") or rel == ".skill-evolver/.lock" or ".tmp." in name:
                continue
            data = path.read_bytes()
            if rel.startswith(".skill-evolver/audit/"):
                event = json.loads(data)
                if event.get("event_type") == "journal_recovered":
                    continue
                event.pop("tx_id", None)
                data = json.dumps(event, sort_keys=True).encode()
            out[rel] = data
    return out


def run_cli(args: list[str], *, env: dict[str, str] | None = None, input: str | None = None,
            timeout: float = 60) -> CliResult:
    """``nervous ARGS`` in this process (``timeout`` is kept for the callers; in-process runs have none)."""
    return _run_cli(*args, env=env, input=input, cwd=Path.cwd())
