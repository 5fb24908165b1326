"""Quarantined goals through the real CLI: listed in tables, repaired or dropped by a person, ids kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def run(nervous_home: Path, nervous_cli: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NERVOUS_PROJECT", "demo")
    monkeypatch.setenv("NERVOUS_CONTEXT", "main")
    monkeypatch.setenv("NERVOUS_NOW", "2026-06-17T09:00:00Z")
    monkeypatch.setenv("NERVOUS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(nervous_home)

    def invoke(*argv: str, code: int = 0, stdin: str | None = None) -> Any:
        res = nervous_cli("goal", *argv, input=stdin)
        assert res.exit_code == code, (res.stdout, res.stderr)
        return (res.json if "--json" in argv else res.stdout), res.stderr

    return invoke


@pytest.fixture
def damaged(run: Any, tmp_path: Path) -> Any:
    """goal-001 fine, goal-002 without a prompt, goal-003 not an object (imported from a file)."""
    run("analyze", "Write the report")
    exported, _ = run("export")
    doc = json.loads(exported)
    doc["goals"]["goal-002"] = {"status": "planned", "intent": {"goal": "lost prompt"}}
    doc["goals"]["goal-003"] = ["not", "a", "goal"]
    src = tmp_path / "damaged.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    run("import", str(src), "--replace")
    return run


def test_list_shows_quarantined_goals_in_the_table(damaged: Any) -> None:
    out, err = damaged("list", "--include-quarantined")
    assert "| goal-001 * | analyzed | Write the report |" in out
    assert "**Quarantined** (repair or drop each one)" in out
    assert "| goal-002 | missing prompt |" in out and "| goal-003 | not an object (list) |" in out
    assert "nervous goal quarantine repair goal-002 | drop goal-002 --yes" in err
    table, _ = damaged("quarantine", "list")
    assert table.splitlines()[0] == "| id | reason | since |"
    data, _ = damaged("quarantine", "list", "--json")
    assert [(q["id"], q["raw"]) for q in data["quarantined"]] == [
        ("goal-002", {"status": "planned", "intent": {"goal": "lost prompt"}}), ("goal-003", ["not", "a", "goal"])]


def test_repair_needs_a_loadable_goal_and_keeps_the_id(damaged: Any) -> None:
    refused, _ = damaged("quarantine", "repair", "goal-002", "--json", code=2)
    assert refused["error"]["code"] == "invalid_arg" and "missing prompt" in refused["error"]["message"]
    fixed = json.dumps({"prompt": "Recover the lost goal", "status": "planned", "intent": {"goal": "lost prompt"}})
    res, _ = damaged("quarantine", "repair", "goal-002", "--goal", "-", "--json", stdin=fixed)
    assert res["goal"]["id"] == "goal-002" and res["goal"]["prompt"] == "Recover the lost goal"
    assert res["goal"]["status"] == "planned"
    listed, _ = damaged("list", "--include-quarantined", "--json")
    assert [g["id"] for g in listed["goals"]] == ["goal-001", "goal-002"]
    assert list(listed["quarantined_goals"]) == ["goal-003"]
    missing, _ = damaged("quarantine", "repair", "goal-002", "--json", code=1)
    assert missing["error"]["code"] == "not_found" and "goal-003" in missing["error"]["message"]


def test_drop_needs_yes_and_the_id_is_never_reused(damaged: Any) -> None:
    _out, err = damaged("quarantine", "drop", "goal-003", code=2)
    assert "--yes" in err
    data, _ = damaged("quarantine", "list", "--json")
    assert len(data["quarantined"]) == 2, "nothing dropped without --yes"
    res, _ = damaged("quarantine", "drop", "goal-003", "--yes", "--json")
    assert res["dropped"] == {"goal_id": "goal-003", "reason": "not an object (list)"}
    damaged("quarantine", "drop", "goal-002", "--yes")
    new, _ = damaged("analyze", "Another one", "--json")
    assert new["goal"]["id"] == "goal-004"
    summary, _ = damaged("summary", "--json")
    assert summary["summary"]["needs_attention"]["quarantined"] == 0
