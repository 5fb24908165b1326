"""Every cell of the status machine (§4): allowed moves change the status, refused ones change nothing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from nervous.engines.evolver import Evolver, EvolverError
from nervous.testing.growth import assert_linear

from .conftest import create, make_draft, tree

STATUSES = ["pending_review", "revision_requested", "approved", "published", "rejected", "merged", "rolled_back"]
OPEN = {"pending_review", "revision_requested", "approved"}


def bring_to(ev: Evolver, status: str) -> str:
    """A candidate for learned-log-summary in ``status`` (a second candidate, for merges, targets another skill)."""
    cid = create(ev)["candidate_id"]
    if status == "revision_requested":
        ev.revise(cid, suggestions=["narrow the trigger"])
    elif status == "approved":
        ev.approve(cid, user_confirmed=True)
    elif status == "published":
        ev.publish_candidate(cid, user_confirmed=True)
    elif status == "rejected":
        ev.reject(cid, "not reusable")
    elif status == "merged":
        other = create(ev, "log digest", draft=make_draft("learned-log-digest"))["candidate_id"]
        ev.merge_candidate(cid, other, "same workflow")
    elif status == "rolled_back":
        ev.publish_candidate(cid, user_confirmed=True)
        ev.rollback_skill("log-summary", user_confirmed=True)
    assert ev.show_candidate(cid)["record"]["status"] == status
    return cid


def other_open(ev: Evolver) -> str:
    return create(ev, "other flow", draft=make_draft("learned-other-flow"))["candidate_id"]


OPERATIONS: dict[str, Any] = {
    "approve": lambda ev, cid: ev.approve(cid, user_confirmed=True),
    "reject": lambda ev, cid: ev.reject(cid, "no longer needed"),
    "revise_suggestions": lambda ev, cid: ev.revise(cid, suggestions=["simplify step 2"]),
    "revise_draft": lambda ev, cid: ev.revise(cid, suggestions=["reworded"], replacement_skill_content=make_draft(
        steps=("Open the newest log.", "Group the errors by type."))),
    "update_draft": lambda ev, cid: ev.update_draft(cid, make_draft(steps=("Open the log.", "Count errors."))),
    "merge_source": lambda ev, cid: ev.merge_candidate(cid, other_open(ev), "overlapping triggers"),
    "merge_target": lambda ev, cid: ev.merge_candidate(other_open(ev), cid, "overlapping triggers"),
    "publish": lambda ev, cid: ev.publish_candidate(cid, user_confirmed=True),
}

#: (operation, from status) -> resulting status, or the error code; written from the spec's table
ALLOWED = {
    "approve": {"pending_review": "approved"},
    "reject": {s: "rejected" for s in OPEN},
    "revise_suggestions": {s: "revision_requested" for s in OPEN},
    "revise_draft": {s: "pending_review" for s in OPEN},
    "update_draft": {"revision_requested": "pending_review"},
    "merge_source": {s: "merged" for s in OPEN},
    "merge_target": {s: s for s in OPEN},
    "publish": {"pending_review": "published", "approved": "published"},
}


def expected_error(op: str, status: str) -> str:
    if op == "publish" and status == "revision_requested":
        return "CANDIDATE_NOT_APPROVED"
    return "INVALID_TARGET_STATUS" if op == "merge_target" else "INVALID_SOURCE_STATUS"


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("op", list(OPERATIONS))
def test_transition_cell(evolver: Evolver, workspace: Path, op: str, status: str) -> None:
    cid = bring_to(evolver, status)
    if op in ("merge_source", "merge_target"):
        other_open(evolver)  # created first so the snapshot below covers it
        helper = {"merge_source": lambda: evolver.merge_candidate(cid, last_other(evolver), "overlap"),
                  "merge_target": lambda: evolver.merge_candidate(last_other(evolver), cid, "overlap")}[op]
    else:
        helper = lambda: OPERATIONS[op](evolver, cid)  # noqa: E731
    before = tree(workspace)
    allowed = ALLOWED[op].get(status)
    if allowed is None:
        with pytest.raises(EvolverError) as err:
            helper()
        assert err.value.code == expected_error(op, status)
        assert err.value.blocking_record is not None
        assert tree(workspace) == before  # a refused transition changes nothing
        return
    result = helper()
    record = evolver.show_candidate(cid)["record"]
    assert record["status"] == allowed
    if op != "merge_target":
        assert result["status_before"] == status and result["status_after"] == allowed
    events = evolver.audit_events()
    mover = "pending_review" if op == "merge_target" else status  # merge events describe the source
    assert any(e["status_before"] == mover for e in events[-2:])


def last_other(ev: Evolver) -> str:
    rows = ev.list_candidates()["candidates"]
    return [r["candidate_id"] for r in rows if r["target_skill"] == "learned-other-flow"][-1]


def test_merge_with_replacement_draft_resets_approved_target(evolver: Evolver) -> None:
    target = bring_to(evolver, "approved")
    source = other_open(evolver)
    evolver.merge_candidate(source, target, "same log workflow",
                            replacement_skill_content=make_draft(steps=("Open logs.", "Group errors.")))
    rec = evolver.show_candidate(target)["record"]
    assert rec["status"] == "pending_review" and rec["approved_at"] is None
    assert "Merged " + source + ": same log workflow" in rec["review_suggestions"]
    src = evolver.show_candidate(source)["record"]
    assert src["merged_into"] == target and src["dedupe_basis"] == f"merged into {target}"
    listed = {c["candidate_id"]: c for c in evolver.list_candidates()["candidates"]}
    assert any("Merged" in n for n in listed[target]["merge_notes"])


def test_merge_into_itself_or_missing_is_refused(evolver: Evolver) -> None:
    cid = create(evolver)["candidate_id"]
    with pytest.raises(EvolverError) as err:
        evolver.merge_candidate(cid, cid, "dup")
    assert err.value.code == "INVALID_TARGET_STATUS"
    with pytest.raises(EvolverError) as err:
        evolver.merge_candidate(cid, "candidate-missing", "dup")
    assert err.value.code == "CANDIDATE_NOT_FOUND"
    with pytest.raises(EvolverError) as err:
        evolver.merge_candidate(cid, "candidate-missing", "")
    assert err.value.code == "MISSING_FIELD"


def test_guards_on_fields_and_confirmation(evolver: Evolver) -> None:
    cid = create(evolver)["candidate_id"]
    cases = [
        (lambda: evolver.approve(cid), "EXPLICIT_CONFIRMATION_REQUIRED"),
        (lambda: evolver.publish_candidate(cid), "EXPLICIT_CONFIRMATION_REQUIRED"),
        (lambda: evolver.rollback_skill("log-summary"), "EXPLICIT_CONFIRMATION_REQUIRED"),
        (lambda: evolver.promote_canary("log-summary"), "EXPLICIT_CONFIRMATION_REQUIRED"),
        (lambda: evolver.set_mode("autonomous"), "EXPLICIT_CONFIRMATION_REQUIRED"),
        (lambda: evolver.set_mode("wild", user_confirmed=True), "INVALID_MODE"),
        (lambda: evolver.reject(cid, ""), "MISSING_FAILURE_REASON"),
        (lambda: evolver.revise(cid), "MISSING_REVISION_INPUT"),
        (lambda: evolver.review_candidate(cid, "maybe"), "INVALID_DECISION"),
        (lambda: evolver.approve("candidate-nope", user_confirmed=True), "CANDIDATE_NOT_FOUND"),
        (lambda: evolver.rollback_skill("log-summary", user_confirmed=True), "BACKUP_NOT_FOUND"),
        (lambda: evolver.promote_canary("log-summary", user_confirmed=True), "TARGET_NOT_FOUND"),
    ]
    for call, code in cases:
        with pytest.raises(EvolverError) as err:
            call()
        assert err.value.code == code, (code, err.value.message)
    assert evolver.show_candidate(cid)["record"]["status"] == "pending_review"


def test_revise_appends_suggestions_without_duplicates(evolver: Evolver) -> None:
    cid = create(evolver, suggestions=["keep it short"])["candidate_id"]
    evolver.approve(cid, user_confirmed=True)
    evolver.revise(cid, suggestions=["keep it short", "narrow step 2"])
    evolver.revise(cid, suggestions=["narrow step 2"])
    rec = evolver.show_candidate(cid)["record"]
    assert rec["review_suggestions"] == ["keep it short", "narrow step 2"]
    assert rec["revision_count"] == 2 and rec["approved_at"] is None and rec["status"] == "revision_requested"


def test_long_suggestion_lists_are_united_in_linear_time(evolver: Evolver) -> None:
    """Each new suggestion was compared with every stored one: 25 s for two revisions of 40,000."""
    def cpu(n: int, target: str) -> float:
        cid = create(evolver, target)["candidate_id"]
        evolver.revise(cid, suggestions=[f"first {i}" for i in range(n)])
        start = time.process_time()
        evolver.revise(cid, suggestions=[f"second {i}" for i in range(n)] + ["first 0"])
        spent = time.process_time() - start
        stored = evolver.show_candidate(cid)["record"]["review_suggestions"]
        assert len(stored) == len(set(stored)) == 2 * n and stored[-1] == f"second {n - 1}"
        return spent

    targets = (f"target {k}" for k in range(5))  # a candidate of its own for each run
    assert_linear(lambda n: cpu(n, next(targets)), 1000, floor=0.1)  # quadratic: 64x


def test_direct_publish_records_approval_then_publication(evolver: Evolver) -> None:
    cid = create(evolver)["candidate_id"]
    evolver.publish_candidate(cid, user_confirmed=True)
    kinds = [(e["event_type"], e["status_before"], e["status_after"]) for e in evolver.audit_events()]
    assert kinds[-2:] == [("candidate_approved", "pending_review", "approved"),
                          ("candidate_published", "approved", "published")]
