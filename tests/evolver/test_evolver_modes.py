"""The mode × change type × risk table of auto-promotion (§7), and effective risk (§6.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nervous.engines.evolver import Evolver, EvolverError

from .conftest import create, make_draft

LOW_PATCH = make_draft(steps=("Open the newest log file first.", "Count the errors by type and list the top five."))
#: a patch adding a write side effect to a skill that already has shell: medium, never auto-published
MEDIUM_DRAFT_CODE = "\n```bash\nmkdir -p reports\ngrep -c ERROR app.log > reports/errors.txt\n```\n"

#: (mode, change, declared risk) -> (status after create, auto actions, channel); written from the spec's table
EXPECTED = {
    ("manual", "patch_skill", "low"): ("pending_review", [], None),
    ("manual", "create_skill", "low"): ("pending_review", [], None),
    ("manual", "deprecate_skill", "low"): ("pending_review", [], None),
    ("manual", "patch_skill", "medium"): ("pending_review", [], None),
    ("manual", "create_skill", "medium"): ("pending_review", [], None),
    ("manual", "deprecate_skill", "medium"): ("pending_review", [], None),
    ("assisted", "patch_skill", "low"): ("approved", ["approved"], None),
    ("assisted", "create_skill", "low"): ("pending_review", [], None),
    ("assisted", "deprecate_skill", "low"): ("pending_review", [], None),
    ("assisted", "patch_skill", "medium"): ("pending_review", [], None),
    ("assisted", "create_skill", "medium"): ("pending_review", [], None),
    ("assisted", "deprecate_skill", "medium"): ("pending_review", [], None),
    ("autonomous", "patch_skill", "low"): ("published", ["approved", "published"], "main"),
    ("autonomous", "create_skill", "low"): ("published", ["approved", "published_canary"], "canary"),
    ("autonomous", "deprecate_skill", "low"): ("pending_review", [], None),
    ("autonomous", "patch_skill", "medium"): ("pending_review", [], None),
    ("autonomous", "create_skill", "medium"): ("pending_review", [], None),
    ("autonomous", "deprecate_skill", "medium"): ("pending_review", [], None),
}


@pytest.mark.parametrize("mode,change,risk", sorted(EXPECTED))
def test_auto_promotion_cell(evolver: Evolver, published, workspace: Path, mode: str, change: str, risk: str) -> None:
    if change == "create_skill":
        target, draft = "log digest", make_draft("learned-log-digest")
    else:
        published()  # learned-log-summary v1, in manual mode
        target, draft = "log summary", LOW_PATCH
    evolver.set_mode(mode, user_confirmed=True)
    res = create(evolver, target, change=change, risk=risk, draft=draft)
    status, auto, channel = EXPECTED[(mode, change, risk)]
    rec = evolver.show_candidate(res["candidate_id"])["record"]
    assert (rec["status"], res["auto_actions"], rec["promotion_channel"]) == (status, auto, channel)
    assert rec["autonomy_mode"] == mode
    expected_risk = "medium" if change == "deprecate_skill" else risk
    assert rec["risk_level"] == expected_risk and rec["declared_risk_level"] == risk
    name = rec["target_skill"] + ("-canary" if channel == "canary" else "")
    skill = (workspace / "skills" / name / "SKILL.md")
    if channel is not None:
        text = skill.read_text()
        assert f"published-from-candidate: {rec['candidate_id']}" in text
        assert res["publish_result"]["published_version"] == rec["published_version"]
        events = [e["event_type"] for e in evolver.audit_events()][-3:]
        assert events == ["candidate_created", "candidate_approved", "candidate_published"]
        assert all(e["actor"] == "auto" for e in evolver.audit_events()[-2:])
    elif change == "create_skill":
        assert not skill.parent.exists()
    else:
        assert f"published-from-candidate: {rec['candidate_id']}" not in skill.read_text()


@pytest.mark.parametrize("mode", ["manual", "assisted", "autonomous"])
def test_high_risk_never_becomes_a_candidate(evolver: Evolver, mode: str) -> None:
    evolver.set_mode(mode, user_confirmed=True)
    with pytest.raises(EvolverError) as err:
        create(evolver, risk="high")
    assert err.value.code == "HIGH_RISK_REJECTED"
    assert evolver.list_candidates(["pending_review", "approved", "published"])["candidates"] == []
    assert evolver.audit_events()[-1]["event_type"] == "candidate_refused"


def test_mislabelled_medium_draft_is_not_auto_published(evolver: Evolver, workspace: Path) -> None:
    evolver.set_mode("autonomous", user_confirmed=True)
    draft = make_draft("learned-report", code=MEDIUM_DRAFT_CODE)
    res = create(evolver, "report", risk="low", draft=draft)
    rec = evolver.show_candidate(res["candidate_id"])["record"]
    assert rec["risk_level"] == "medium" and rec["declared_risk_level"] == "low"
    assert "EVO-RISK-CREATE-EFFECTS" in rec["risk_rule_ids"]
    assert res["auto_actions"] == [] and rec["status"] == "pending_review"
    assert not (workspace / "skills").exists()


def test_patch_adding_side_effects_is_medium_and_boundary_change_too(evolver: Evolver, published) -> None:
    published()
    evolver.set_mode("autonomous", user_confirmed=True)
    res = create(evolver, "log summary", change="patch_skill",
                 draft=make_draft(boundaries="- Read only. Never escalate."))
    rec = evolver.show_candidate(res["candidate_id"])["record"]
    assert rec["risk_level"] == "medium" and "EVO-RISK-BOUNDARY" in rec["risk_rule_ids"]
    assert rec["status"] == "pending_review"


def test_patch_widening_read_only_skill_to_shell_is_high(evolver: Evolver, published) -> None:
    published()
    with pytest.raises(EvolverError) as err:
        create(evolver, "log summary", change="patch_skill", draft=make_draft(code=MEDIUM_DRAFT_CODE))
    assert err.value.code == "HIGH_RISK_REJECTED"
    assert "EVO-RISK-WIDEN" in err.value.details["rule_ids"]


def test_auto_publish_guard_failure_leaves_candidate_approved(evolver: Evolver, workspace: Path) -> None:
    canary = workspace / "skills" / "learned-log-digest-canary"
    canary.mkdir(parents=True)
    (canary / "SKILL.md").write_text("---\nname: learned-log-digest-canary\ndescription: Mine.\n---\nx\n")
    evolver.set_mode("autonomous", user_confirmed=True)
    res = create(evolver, "log digest", draft=make_draft("learned-log-digest"))
    assert res["auto_actions"] == ["approved"] and res["status_after"] == "approved"
    assert any("UNMANAGED_TARGET" in w for w in res["warnings"])
    assert "Mine." in (canary / "SKILL.md").read_text()


def test_mode_show_and_set(evolver: Evolver, workspace: Path) -> None:
    shown = evolver.get_mode()
    assert shown["autonomy_mode"] == "manual" and shown["summary"].startswith("manual")
    assert not (workspace / ".skill-evolver").exists()  # read-only operations create nothing
    res = evolver.set_mode("assisted", user_confirmed=True)
    assert (res["status_before"], res["status_after"]) == ("manual", "assisted")
    assert evolver.get_mode()["autonomy_mode"] == "assisted"
    assert evolver.audit_events()[-1]["event_type"] == "mode_changed"
