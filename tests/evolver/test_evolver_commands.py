"""The direct command grammar (§11), the tool interface (§10) and the ``nervous evolve`` CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nervous.engines.evolver import Evolver, EvolverError
from nervous.engines.evolver.commands import COMMANDS, parse_command
from nervous.engines.evolver.tool import handle

from .conftest import create, make_draft, run_cli


@pytest.mark.parametrize("text,expected", [
    ("review skill candidates", {"operation": "list_candidates"}),
    ("  REVIEW Skill   Candidates ", {"operation": "list_candidates"}),
    ("approve candidate candidate-1", {"operation": "review_candidate", "candidate_id": "candidate-1",
                                       "decision": "approve"}),
    ("Reject candidate c-2", {"operation": "review_candidate", "candidate_id": "c-2", "decision": "reject",
                              "failure_reason": "rejected by the user"}),
    ("reject candidate c-2 because too narrow", {"operation": "review_candidate", "candidate_id": "c-2",
                                                 "decision": "reject", "failure_reason": "too narrow"}),
    ("revise candidate c-3 with suggestions: narrow step 2: keep it short",
     {"operation": "review_candidate", "candidate_id": "c-3", "decision": "revise",
      "suggestions": ["narrow step 2: keep it short"]}),
    ("publish candidate c-4", {"operation": "publish_candidate", "candidate_id": "c-4"}),
    ("PUBLISH CANDIDATE c-4 AS log-triage", {"operation": "publish_candidate", "candidate_id": "c-4",
                                             "publish_as": "log-triage"}),
    ("rollback skill learned-foo", {"operation": "rollback_skill", "skill_name": "learned-foo"}),
    ("promote canary foo", {"operation": "promote_canary", "skill_name": "foo"}),
    ("show skill-evolver mode", {"operation": "get_mode"}),
    ("set skill-evolver mode Autonomous", {"operation": "set_mode", "autonomy_mode": "autonomous"}),
    ("repair skill-evolver state", {"operation": "repair_state"}),
])
def test_exact_commands_parse(text: str, expected: dict) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize("text", ["yes", "looks good, ship it", "approve it", "approve candidate",
                                  "approve candidate a b", "publish candidate x as", "rollback learned-foo",
                                  "set skill-evolver mode", "show mode", ""])
def test_anything_else_lists_the_commands(text: str) -> None:
    with pytest.raises(EvolverError) as err:
        parse_command(text)
    assert err.value.code == "UNSUPPORTED_OPERATION"
    for command in COMMANDS:
        assert command in err.value.message


def test_set_mode_with_unknown_mode_and_empty_feedback() -> None:
    with pytest.raises(EvolverError) as err:
        parse_command("set skill-evolver mode yolo")
    assert err.value.code == "INVALID_MODE"
    with pytest.raises(EvolverError) as err:
        parse_command("revise candidate c-1 with suggestions:   ")
    assert err.value.code == "MISSING_REVISION_INPUT"


def test_commands_drive_the_engine(evolver: Evolver, workspace: Path) -> None:
    cid = create(evolver)["candidate_id"]
    assert evolver.run_command("review skill candidates")["candidates"][0]["candidate_id"] == cid
    evolver.run_command(f"revise candidate {cid} with suggestions: narrow the trigger")
    evolver.update_draft(cid, make_draft(steps=("Open the log.", "Group errors.")))
    assert evolver.run_command(f"approve candidate {cid}", user_confirmed=True)["status_after"] == "approved"
    out = evolver.run_command(f"publish candidate {cid} as log-triage", user_confirmed=True)
    assert out["skill_name"] == "learned-log-triage" and out["status_after"] == "published"
    assert evolver.run_command("rollback skill log-triage", user_confirmed=True)["status_after"] == "rolled_back"
    assert evolver.run_command("set skill-evolver mode assisted", user_confirmed=True)["autonomy_mode"] == "assisted"
    assert evolver.run_command("show skill-evolver mode")["summary"].startswith("assisted")


def test_tool_interface_returns_error_objects(nervous_pm, workspace: Path) -> None:
    bad = handle(nervous_pm, {"workspace_root": "relative/path", "operation": "get_mode"})
    assert bad["ok"] is False and bad["error_code"] == "INVALID_WORKSPACE"
    unknown = handle(nervous_pm, {"workspace_root": str(workspace), "operation": "delete_everything"})
    assert unknown["error_code"] == "UNSUPPORTED_OPERATION"
    extra = handle(nervous_pm, {"workspace_root": str(workspace), "operation": "get_mode", "surprise": 1})
    assert extra["error_code"] == "UNKNOWN_FIELD"
    params = {"workspace_root": str(workspace), "operation": "create_candidate", "source_summary": "Did it twice.",
              "signal_type": "repeated_request", "signal_count": 2, "proposed_skill_content": make_draft(),
              "target_skill": "log summary", "change_type": "create_skill", "risk_level": "low",
              "autonomy_mode": "autonomous"}
    created = handle(nervous_pm, params)
    assert created["ok"] and created["autonomy_mode"] == "manual" and created["auto_actions"] == []
    dup = handle(nervous_pm, params)
    assert dup["ok"] is False and dup["error_code"] == "DUPLICATE_TARGET_SKILL"
    assert dup["blocking_record"]["candidate_id"] == created["candidate_id"]
    no_confirm = handle(nervous_pm, {"workspace_root": str(workspace), "operation": "publish_candidate",
                                     "candidate_id": created["candidate_id"]})
    assert no_confirm["error_code"] == "EXPLICIT_CONFIRMATION_REQUIRED"


def test_cli_round_trip(workspace: Path, tmp_path: Path) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(make_draft())
    base = ["--disable-plugin-autoload", "evolve"]
    made = run_cli(base + ["create", "--target", "log summary", "--risk", "low", "--summary", "Did it twice.",
                           "--signal-type", "repeated_request", "--draft", str(draft), "--json", "-w", str(workspace)])
    assert made.returncode == 0, made.stderr
    cid = json.loads(made.stdout)["candidate_id"]
    refused = run_cli(base + ["publish", cid, "--json", "-w", str(workspace)])
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"]["code"] == "EXPLICIT_CONFIRMATION_REQUIRED"
    # a typed command confirms nothing by itself: the same --yes as the subcommand
    typed = run_cli(base + ["run", f"publish candidate {cid}", "--json", "-w", str(workspace)])
    assert typed.returncode == 1
    assert json.loads(typed.stdout)["error"]["code"] == "EXPLICIT_CONFIRMATION_REQUIRED"
    mode = run_cli(base + ["do", "set skill-evolver mode autonomous", "--json", "-w", str(workspace)])
    assert json.loads(mode.stdout)["error"]["code"] == "EXPLICIT_CONFIRMATION_REQUIRED"
    done = run_cli(base + ["run", "--yes", f"publish candidate {cid}", "--json", "-w", str(workspace)])
    assert done.returncode == 0 and json.loads(done.stdout)["published_version"] == 1
    nonsense = run_cli(base + ["do", "please publish everything", "-w", str(workspace)])
    assert nonsense.returncode == 2 and "review skill candidates" in nonsense.stderr
    assert "Traceback" not in nonsense.stderr
    listed = run_cli(base + ["list", "--status", "published", "-w", str(workspace)])
    assert listed.returncode == 0 and cid[:14] in listed.stdout
    tool = run_cli(base + ["tool"], input=json.dumps({"workspace_root": str(workspace), "operation": "get_mode"}))
    assert tool.returncode == 0 and json.loads(tool.stdout)["summary"].startswith("manual")


def test_dedupe_prefers_patch_then_merge_then_create(evolver: Evolver, published) -> None:
    published()
    same = evolver.suggest_dedupe("log summary", make_draft())["advice"]
    assert same["action"] == "patch_skill" and same["target_skill"] == "learned-log-summary"
    similar = evolver.suggest_dedupe("log digest", make_draft("learned-log-digest"))["advice"]
    assert similar["action"] == "patch_skill" and similar["score"] >= 0.5
    notes = ("---\nname: {n}\ndescription: Release notes.\n---\n# Notes\n## Use This Skill When\n- a release "
             "is cut\n## Standard Steps\n1. Collect merged pull requests.\n2. Write release notes per component.\n"
             "## Required Tools\n- git history\n")
    other = create(evolver, "deploy notes", draft=notes.format(n="learned-deploy-notes"))
    merge = evolver.suggest_dedupe("release notes", notes.format(n="learned-release-notes"))["advice"]
    assert merge["action"] == "merge_candidate" and merge["candidate_id"] == other["candidate_id"]
    fresh = evolver.suggest_dedupe("invoice export", "# Invoice export\n## Standard Steps\n1. Export invoices as CSV.\n")
    assert fresh["advice"]["action"] == "create_skill"


def test_person_mode_needs_the_persons_own_confirmation_on_every_front_end(nervous_pm, workspace: Path) -> None:
    """One policy: the relayed flag is not enough; a confirmer (terminal, MCP form) that says yes is."""
    nervous_pm.config.approval.mode = "person"
    try:
        evolver = Evolver(nervous_pm, workspace)
        cid = create(evolver)["candidate_id"]
        for attempt in (lambda: evolver.publish_candidate(cid, user_confirmed=True),
                        lambda: evolver.run_command(f"publish candidate {cid}", user_confirmed=True),
                        lambda: evolver.call({"operation": "publish_candidate", "candidate_id": cid,
                                              "user_confirmed": True}),
                        lambda: evolver.set_mode("autonomous", user_confirmed=True),
                        lambda: evolver.rollback_skill("log-summary", user_confirmed=True)):
            with pytest.raises(EvolverError) as err:
                attempt()
            assert err.value.code == "NEEDS_PERSON" and "nervous evolve" in err.value.message
        assert not (workspace / "skills").exists() or not any((workspace / "skills").iterdir())
        asked: list[tuple[str, str]] = []
        evolver.confirmer = lambda what, name: asked.append((what, name)) is None and name == cid
        out = evolver.publish_candidate(cid)
        assert out["status_after"] == "published" and asked == [(f"publishing candidate {cid}", cid)]
        with pytest.raises(EvolverError) as err:
            evolver.set_mode("autonomous")  # the confirmer answers no for anything but the candidate
        assert err.value.code == "EXPLICIT_CONFIRMATION_REQUIRED"
    finally:
        nervous_pm.config.approval.mode = "agent"
