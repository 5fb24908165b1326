"""Round trips, coercion, quarantine and versions of the goal document (specs/goals.md §1, §2, §8.6)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from nervous.engines.goals import GoalError, document

NOW = "2026-06-18T14:02:11.512Z"

FULL_GOAL: dict[str, Any] = {
    "id": "goal-001",
    "prompt": "Build a simple todo API with tests.",
    "intent": {
        "intent_summary": "todo API", "goal": "A tested todo API",
        "success_criteria": ["CRUD endpoints pass tests"], "constraints": ["no external DB"],
        "risks": [{"description": "schema churn", "severity": "low", "x-note": "kept"}],
        "expected_output": "a repo",
        "framing": {"context": ["greenfield"], "scope": ["CRUD API"], "non_goals": ["authentication"],
                    "assumptions": ["in-memory storage"], "open_questions": ["paging?"],
                    "candidate_options": ["flask", "fastapi"], "decision_needed": "Choose the API structure"},
        "complexity": "high", "needs_magi": True, "magi_rationale": "two viable stacks",
    },
    "status": "executing",
    "plan": {"subtasks": [{"id": "plan-001", "title": "Scaffold", "description": "layout", "dependencies": [],
                           "priority": "critical", "assigned_to": "ana", "axon_task_id": "task-001"},
                          {"id": "plan-002", "title": "Tests", "description": "", "dependencies": ["plan-001",
                                                                                                 "EXT-9"],
                           "priority": "low", "assigned_to": None, "axon_task_id": None}],
             "magi_used": True, "magi_output_ref": "magi-7", "created_at": NOW},
    "axon_task_ids": ["task-001"],
    "verification": {"checks": [{"criterion": "c", "passed": False, "evidence": "log"}],
                     "all_axon_complete": True, "recommendation": "approve", "ready_for_magi_review": True,
                     "concerns": ["approved over failing checks"],
                     "override": {"evidence": "waived", "actor": "lead", "at": NOW}, "created_at": NOW},
    "blocker": {"status": "needs_amygdala", "reason": "r", "evidence": "e", "related_ids": ["a"],
                "next_revisit_at": NOW, "last_revisit_at": NOW, "revisit_count": 2, "unblock_conditions": ["u"],
                "terminal_resolution": "done — yes", "awaits_human": True, "created_at": NOW},
    "risk_acceptance": {"mode": "user_accepted", "actor": "bob", "scope": "production", "reason": "r",
                        "evidence": "e", "related_ids": ["t"], "accepted_at": NOW, "expires_at": NOW},
    "failure": {"reason": "r", "evidence": "e", "related_ids": ["x"], "retryability": "retryable", "attempts": 2,
                "max_attempts": 5, "next_retry_at": NOW, "last_failure_at": NOW},
    "failure_history": [{"reason": "old", "evidence": "e", "related_ids": [], "retryability": "not_retryable",
                         "attempts": 1, "max_attempts": 3, "last_failure_at": NOW,
                         "terminal_resolution": "resolved by replan", "resolved_at": NOW}],
    "plan_history": [{"plan": {"subtasks": [{"id": "plan-001", "title": "Old", "description": "",
                                             "dependencies": [], "priority": "medium", "assigned_to": None,
                                             "axon_task_id": None}],
                               "magi_used": False, "magi_output_ref": None, "created_at": NOW},
                      "axon_task_ids": ["t-0"], "verification": None, "archived_at": NOW, "reason": "replanned"}],
    "budget": {"replans": 2, "progress_at": NOW,
               "exhausted": {"reason": "retries", "detail": "3/3", "at": NOW, "run_id": "drain-001"}},
    "created_at": NOW, "updated_at": NOW,
    "x-custom": {"nested": [1, 2]},
}

FULL_RUN: dict[str, Any] = {
    "id": "drain-001", "status": "exhausted",
    "policy": {"name": "conservative", "max_goals": 10, "max_replans_per_goal": 1, "max_retries_per_goal": 1,
               "max_no_progress_iterations": 2, "hard_stop_categories": ["critical"]},
    "risk_gate_mode": "user_accepted", "explicit": True, "forced": False,
    "goal_ids": ["goal-001"], "actionable_goal_ids": [], "due_revisit_goal_ids": ["goal-001"],
    "retryable_goal_ids": [], "needs_retry_classification_goal_ids": [], "workable_goal_ids": ["goal-001"],
    "blocked_goal_ids": ["goal-001"], "waiting_goal_ids": [], "terminal_goal_ids": [],
    "risk_accepted_goal_ids": [], "exhausted_goal_ids": ["goal-001"], "no_progress_streak": 3,
    "evidence": ["caller note"], "created_at": NOW, "updated_at": NOW,
}

FULL_DOC: dict[str, Any] = {
    "version": 1, "project": "myrepo-3f2a9c01", "created_at": "2026-06-17T09:00:00.000Z", "updated_at": NOW,
    "current_goal_id": "goal-001",
    "goals": {"goal-001": FULL_GOAL},
    "drain_runs": {"drain-001": FULL_RUN},
    "config": {"drain_mode": "always", "default_drain_policy": "aggressive", "risk_gate_mode": "disabled",
               "risk_gate_evidence": "window", "updated_at": NOW},
    "quarantined_goals": {"goal-007": {"raw": {"status": "planned"}, "reason": "missing prompt",
                                       "quarantined_at": NOW}},
    "x-top-level": True,
}

POLICIES = ("default", "conservative", "aggressive")


def _load(raw: Any) -> tuple[document.GoalFile, list[str]]:
    warnings: list[str] = []
    return document.load(copy.deepcopy(raw), warnings.append, known_policies=POLICIES), warnings


def test_every_field_round_trips() -> None:
    gf, warnings = _load(FULL_DOC)
    assert [w for w in warnings if "quarantined" not in w] == []
    assert gf.to_json() == FULL_DOC


def test_round_trip_through_a_mutation(goals: Any) -> None:
    goals.store.update("goals", "demo/main", lambda d: d.update(copy.deepcopy(FULL_DOC)))
    goals.set_config(drain_mode="off")
    doc = goals.store.read("goals", "demo/main").value
    assert doc["goals"] == FULL_DOC["goals"] and doc["drain_runs"] == FULL_DOC["drain_runs"]
    assert doc["project"] == "myrepo-3f2a9c01" and doc["created_at"] == "2026-06-17T09:00:00.000Z"
    assert doc["x-top-level"] is True and doc["quarantined_goals"] == FULL_DOC["quarantined_goals"]
    assert doc["updated_at"] == "2026-06-17T09:00:00.000Z"  # the fixed clock


def test_fresh_document_records_project_and_created_at(goals: Any) -> None:
    goals.analyze("x")
    doc = goals.store.read("goals", "demo/main").value
    assert (doc["version"], doc["project"], doc["created_at"]) == (1, "demo", "2026-06-17T09:00:00.000Z")
    assert set(doc) == {"version", "project", "created_at", "updated_at", "current_goal_id", "goals",
                        "drain_runs", "config", "quarantined_goals"}


@pytest.mark.parametrize("path, value, expected, fragment", [
    (("status",), "paused", "analyzed", "goals.goal-001.status"),
    (("intent", "complexity"), "extreme", "medium", "complexity"),
    (("intent", "risks", 0, "severity"), "dire", "medium", "severity"),
    (("failure", "retryability"), "maybe", "unknown", "retryability"),
    (("risk_acceptance", "mode"), "strict", "user_accepted", "mode"),
])
def test_goal_coercions_warn(path: tuple[Any, ...], value: Any, expected: Any, fragment: str) -> None:
    raw = copy.deepcopy(FULL_DOC)
    target = raw["goals"]["goal-001"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    gf, warnings = _load(raw)
    node: Any = gf.goals["goal-001"]
    for key in path:
        node = node[key] if isinstance(key, int) else getattr(node, key)
    assert node == expected
    assert any(fragment in w and repr(value) in w for w in warnings)


def test_run_and_config_coercions() -> None:
    raw = copy.deepcopy(FULL_DOC)
    raw["drain_runs"]["drain-001"]["risk_gate_mode"] = "yolo"
    raw["config"] = {"drain_mode": "sometimes", "default_drain_policy": "reckless", "risk_gate_mode": "disabled"}
    gf, warnings = _load(raw)
    assert gf.drain_runs["drain-001"].risk_gate_mode == "strict"
    assert (gf.config.drain_mode, gf.config.default_drain_policy, gf.config.risk_gate_mode) == (
        "on_explicit_nervous", "default", "auto_deliberate")
    assert len([w for w in warnings if w.startswith("config") or "drain_runs" in w]) >= 4


def test_legacy_framing_shapes_are_normalised() -> None:
    raw = copy.deepcopy(FULL_DOC)
    raw["goals"]["goal-001"]["intent"]["framing"] = {"scope": "CRUD API", "non_goals": ["auth", 3, " "],
                                                     "decision_needed": "pick"}
    gf, warnings = _load(raw)
    framing = gf.goals["goal-001"].intent.framing
    assert framing.scope == ["CRUD API"] and framing.non_goals == ["auth"]
    assert any("normalised" in w for w in warnings) and any("non-string" in w for w in warnings)


@pytest.mark.parametrize("bad, reason", [("just text", "not an object"), ({"intent": {}}, "missing prompt"),
                                         ({"prompt": "p"}, "missing intent"), ({"prompt": " ", "intent": {}},
                                                                               "missing prompt")])
def test_malformed_goals_are_quarantined(goals: Any, bad: Any, reason: str) -> None:
    goals.analyze("first")

    def inject(doc: dict[str, Any]) -> None:
        doc["goals"]["goal-002"] = bad
        doc["current_goal_id"] = "goal-002"

    goals.store.update("goals", "demo/main", inject)
    result = goals.get("goal-001")
    assert any("goal-002 quarantined" in w and reason in w for w in result.warnings)
    assert any("current_goal_id 'goal-002'" in w for w in result.warnings)
    assert [g.id for g in goals.list().goals] == ["goal-001"]
    assert goals.list(include_quarantined=True).data["quarantined_goals"]["goal-002"]["raw"] == bad
    with pytest.raises(GoalError) as err:
        goals.get("goal-002")
    assert err.value.code == "not_found" and "quarantined" in err.value.message
    new = goals.analyze("third")  # the next mutation moves it and never reuses its id
    assert new.goal.id == "goal-003"
    doc = goals.store.read("goals", "demo/main").value
    assert doc["quarantined_goals"]["goal-002"]["raw"] == bad
    assert doc["quarantined_goals"]["goal-002"]["reason"].startswith(reason)
    assert "goal-002" not in doc["goals"] and doc["current_goal_id"] == "goal-003"
    assert any("goal-002 is quarantined" in w for w in goals.summary().warnings)
    assert goals.summary().data["summary"]["needs_attention"]["quarantined"] == 1


def test_dangling_current_is_cleared_at_next_mutation(goals: Any) -> None:
    goals.analyze("a")
    goals.store.update("goals", "demo/main", lambda d: d.update(current_goal_id="goal-404"))
    result = goals.get()
    assert result.goal.id == "goal-001" and any("goal-404" in w for w in result.warnings)
    goals.set_config(drain_mode="always")
    assert goals.store.read("goals", "demo/main").value["current_goal_id"] is None


def test_unsupported_version_is_never_overwritten(goals: Any) -> None:
    goals.store.update("goals", "demo/main", lambda d: d.update(version=2, goals={}))
    for call in (goals.summary, lambda: goals.analyze("x")):
        with pytest.raises(GoalError) as err:
            call()
        assert err.value.code == "unsupported_version"
    assert goals.store.read("goals", "demo/main").value == {"version": 2, "goals": {}}


def test_ids_grow_past_999() -> None:
    assert document.next_id("goal", ["goal-999", "goal-010", "plan-2000"]) == "goal-1000"
    assert document.next_id("drain", []) == "drain-001"
