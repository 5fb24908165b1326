"""``nervous goal``: JSON for every action, readable Markdown by default, import of original files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def run(nervous_home: Path, nervous_cli: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NERVOUS_PROJECT", "demo")
    monkeypatch.setenv("NERVOUS_CONTEXT", "main")
    monkeypatch.setenv("NERVOUS_NOW", "2026-06-17T09:00:00Z")
    monkeypatch.setenv("NERVOUS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(nervous_home)

    def invoke(*argv: str, code: int = 0) -> Any:
        res = nervous_cli("goal", *argv)
        assert res.exit_code == code, (res.stdout, res.stderr)
        return (res.json if "--json" in argv else res.stdout), res.stderr

    return invoke


def test_every_action_speaks_json(run: Any) -> None:
    steps = [
        (["analyze", "Build a todo API", "-s", "CRUD passes", "--risk", "high: schema churn", "--scope", "API",
          "--decision-needed", "pick a framework"], "analyze"),
        (["refine", "--objective", "A tested todo API", "--non-goal", "auth"], "refine"),
        (["plan", "--subtask", "Scaffold", "--subtask", "Tests | after=Scaffold | priority=high"], "plan"),
        (["link", "plan-001=task-1", "plan-002=task-2"], "link"),
        (["verify", "--fail", "CRUD passes :: 2 failing"], "verify"),
        (["plan", "--subtask", "Fix tests"], "plan"),
        (["link", "task-3"], "link"),
        (["verify", "--pass", "CRUD passes :: all green", "--all-tasks-complete"], "verify"),
        (["complete"], "complete"),
        (["analyze", "Second goal"], "analyze"),
        (["accept-risk", "--reason", "ok", "--evidence", "ticket-1"], "accept_risk"),
        (["record_failure", "--reason", "boom", "--evidence", "run-1", "--retryability", "retryable"],
         "record_failure"),
        (["block", "--reason", "waiting", "--evidence", "dep-1", "--unblock", "dep released"], "block"),
        (["escalate", "--reason", "unsafe", "--evidence", "note"], "escalate"),
        (["reopen", "--reason", "reviewed", "--evidence", "review-2"], "reopen"),
        (["set-current", "goal-002"], "set_current"),
        (["get", "current"], "get"),
        (["list"], "list"),
        (["summary"], "summary"),
        (["get-config"], "get_config"),
        (["set-config", "drain=always", "policy=conservative"], "set_config"),
        (["drain"], "drain"),
        (["cancel", "goal-002", "--reason", "dropped"], "cancel"),
    ]
    for argv, action in steps:
        out, _ = run(*argv, "--json")
        assert out["ok"] is True and out["action"] == action, out
        assert isinstance(out["warnings"], list) and "markdown" in out and "next" in out
    out, _ = run("get", "goal-001", "--json")
    assert out["goal"]["status"] == "completed" and len(out["goal"]["plan_history"]) == 1
    assert out["goal"]["intent"]["risks"] == [{"description": "schema churn", "severity": "high"}]
    assert out["goal"]["plan"]["subtasks"][0]["axon_task_id"] is None


def test_errors_carry_codes_and_exit_statuses(run: Any) -> None:
    out, _ = run("complete", "--json", code=1)
    assert out == {"ok": False, "error": {"code": "not_found", "message": out["error"]["message"]}, "warnings": []}
    run("analyze", "x")
    out, _ = run("complete", "--json", code=1)
    assert out["error"]["code"] == "unverified"
    out, _ = run("plan", "--json", code=2)
    assert out["error"]["code"] == "invalid_arg"
    out, _ = run("drain", "--json", code=1)
    assert out["error"]["code"] == "not_permitted"
    out, _ = run("set-config", "risk=disabled", "--json", code=1)
    assert out["error"]["code"] == "not_permitted"
    _, err = run("get", "goal-404", code=1)
    assert err.startswith("error: no goal 'goal-404'") and "Traceback" not in err


def test_markdown_default_shows_the_next_hint(run: Any) -> None:
    out, _ = run("analyze", "Write the changelog")
    assert out.startswith("## goal-001 · analyzed (current)")
    assert "**Next:** plan: break the goal into subtasks" in out
    out, _ = run("get", "current")
    assert "**Next:** plan" in out
    out, _ = run("summary")
    assert "**Current:** goal-001 (analyzed): Write the changelog" in out and "**Next:**" in out


def test_args_json_and_call(run: Any) -> None:
    run("analyze", "--args", json.dumps({"framing": {"scope": ["docs"]}}), "Write docs", "--json")
    out, _ = run("refine", "--args", json.dumps({"framing": {"scope": []}}), "--json")
    assert "framing" not in out["goal"]["intent"]
    out, _ = run("call", json.dumps({"action": "plan", "subtasks": [{"title": "Outline"}]}))
    assert json.loads(out)["goal"]["status"] == "planned"
    out, _ = run("call", json.dumps({"action": "complete"}), code=1)
    assert json.loads(out)["code"] == "unverified"


def test_set_config_aliases_and_dangerous_opt_in(run: Any) -> None:
    out, _ = run("set-config", "risk=disabled", "dangerous_opt_in=true", 'evidence="approved window 7"', "--json")
    assert out["config"]["risk_gate_mode"] == "disabled"
    assert out["config"]["risk_gate_evidence"] == "approved window 7"
    out, _ = run("set-config", "risk_gate=strict", "--json")
    assert "risk_gate_evidence" not in out["config"]


def test_import_original_cortex_file(run: Any, tmp_path: Path) -> None:
    source = tmp_path / "cortex.json"
    shutil.copy(DATA / "original-cortex.json", source)
    out, _ = run("import", str(source), "--json")
    assert out["imported"] == {"goals": 2, "drain_runs": 1, "quarantined": 1}
    assert any("goal-003 quarantined" in w for w in out["warnings"])
    assert any("normalised" in w for w in out["warnings"])
    out, _ = run("get", "current", "--json")
    goal = out["goal"]
    assert goal["id"] == "goal-002" and goal["status"] == "blocked"
    assert goal["blocker"]["evidence"] == "review-12" and goal["failure"]["attempts"] == 1
    assert goal["budget"] == {"replans": 0, "progress_at": None, "exhausted": None}
    out, _ = run("get", "goal-001", "--json")
    assert out["goal"]["intent"]["framing"]["scope"] == ["CRUD API"]
    out, _ = run("list", "--include-quarantined", "--json")
    assert out["quarantined_goals"]["goal-003"]["raw"] == {"id": "goal-003", "status": "planned"}
    config, _ = run("get-config", "--json")
    assert config["config"]["risk_gate_mode"] == "user_accepted"
    out, _ = run("import", str(source), "--json", code=1)
    assert out["error"]["code"] == "exists"
    out, _ = run("import", str(source), "--replace", "--json")
    assert out["ok"] is True
    stored = json.loads(source.read_text())
    assert stored["project"] == "todo-app-3f2a9c01"  # the source file is never modified
    out, _ = run("analyze", "After import", "--json")
    assert out["goal"]["id"] == "goal-004"  # the quarantined id is never reused


def test_import_rejects_bad_files(run: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    out, _ = run("import", str(bad), "--json", code=2)
    assert out["error"]["code"] == "bad_input" and "bad.json" in out["error"]["message"]
    newer = tmp_path / "newer.json"
    newer.write_text('{"version": 2, "goals": {}}', encoding="utf-8")
    out, _ = run("import", str(newer), "--json", code=1)
    assert out["error"]["code"] == "unsupported_version"
    out, _ = run("import", str(tmp_path / "missing.json"), "--json", code=2)
    assert out["error"]["code"] == "bad_input"
