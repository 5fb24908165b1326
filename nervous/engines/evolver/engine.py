"""The evolver engine: every operation of ``skill_manage_managed`` (§10) as a method of :class:`Evolver`.

Each mutating operation holds the workspace lock, recovers unfinished journals, loads the state,
runs its guards (nothing is written when one fails), records every file change in one transaction
and commits it all-or-nothing. Results follow the tool's success shape; failures raise
:class:`EvolverError` with the spec's code.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import Refused
from ...kernel import clock
from ..install import gate
from . import audit, publishing
from .errors import EvolverError, io_error
from .journal import Transaction, pending_journals, recover
from .names import (
    STATE_DIR,
    check_candidate_id,
    check_skill_name,
    normalize_skill_name,
    skill_file,
    slugify,
)
from .record import (
    CHANGE_TYPES,
    MODES,
    OPEN_STATUSES,
    RISK_LEVELS,
    SIGNAL_TYPES,
    merge_notes,
    ordered,
    summary_line,
)
from .risk import assess, check_draft_bytes
from .state import CONFIG, DEFAULT_CONFIG, REGISTRY, State, rendering_path
from .status import transition

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

T = TypeVar("T")
LOCK = f"{STATE_DIR}/.lock"
MAX_SIGNAL_TYPE = 64

_MODE_SUMMARY = {
    "manual": "manual: every candidate waits for your review and approval before anything is published",
    "assisted": "assisted: low-risk patches are approved automatically; publishing stays manual",
    "autonomous": "autonomous: low-risk patches are published automatically and low-risk new skills are "
                  "published as learned-*-canary; everything else waits for review",
}
#: refusals of a create that leave a ``candidate_refused`` audit event behind
_AUDITED_REFUSALS = ("DRAFT_REFUSED", "HIGH_RISK_REJECTED", "PATH_OUT_OF_SCOPE", "UNMANAGED_TARGET")


#: operations that need a confirmation, with the CLI command a person runs to give it
_PERSON_COMMANDS = {"approving": "evolve approve {name} --yes", "publishing": "evolve publish {name} --yes",
                    "rolling": "evolve rollback {name} --yes", "promoting": "evolve promote {name} --yes",
                    "changing": "evolve mode {name} --yes"}


def _text_list(value: object, field_name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return [v for v in value if v.strip()]
    raise EvolverError("MISSING_FIELD", f"{field_name} must be a list of strings")


def _required_text(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise EvolverError("MISSING_FIELD", f"{key} is required")
    if not isinstance(value, str):
        raise EvolverError("MISSING_FIELD", f"{key} must be a string")
    return value


class Evolver:
    """Managed skill candidates of one workspace: create, review, merge, publish, roll back, promote."""

    def __init__(self, manager: PluginManager, workspace: Path | str | None = None, *,
                 lock_timeout: float | None = None) -> None:
        self.manager = manager
        if workspace is None:
            workspace = getattr(getattr(getattr(manager, "config", None), "evolver", None), "workspace", ".")
        raw = str(workspace)
        path = Path(os.path.abspath(os.path.expanduser(raw)))
        if not path.is_dir():
            raise EvolverError("INVALID_WORKSPACE", f"workspace {raw!r} is not an existing directory")
        self.workspace = path
        if lock_timeout is None:  # the configured wait, as every other durable document uses
            storage = getattr(getattr(manager, "config", None), "storage", None)
            lock_timeout = float(getattr(storage, "lock_timeout", 5.0))
        self.lock_timeout = lock_timeout
        #: asks the person themselves ``(what, name) -> yes?`` (a terminal prompt, an MCP form), set by
        #: the front end when it can; ``None`` when only a relayed ``user_confirmed`` is available
        self.confirmer: Any = None
        #: who gave the last confirmation ("person" or "agent"): the install gate records it
        self.confirmed_by = "agent"

    def _confirm(self, user_confirmed: bool, what: str, name: str) -> None:
        """The one confirmation policy for approve, publish, rollback, promote and mode changes.

        A person is asked whenever the front end can ask one; otherwise ``[approval] mode = "agent"``
        accepts the agent's relayed ``user_confirmed`` and ``"person"`` refuses with ``NEEDS_PERSON``.
        """
        if self.confirmer is not None:
            if not self.confirmer(what, name):
                raise EvolverError("EXPLICIT_CONFIRMATION_REQUIRED", f"{what} was not confirmed by the user; "
                                   "nothing was changed")
            self.confirmed_by = "person"
            return
        if gate.approval_mode(self.manager) == "person":
            command = _PERSON_COMMANDS.get(what.split()[0], "evolve run --yes '<command>'").format(name=name)
            raise EvolverError("NEEDS_PERSON", f"{what} needs the person's own confirmation ([approval] mode = "
                               f"\"person\"): ask them to run at a terminal: nervous {command}")
        if user_confirmed is not True:
            raise EvolverError("EXPLICIT_CONFIRMATION_REQUIRED", f"{what} needs the user's explicit confirmation: "
                               "--yes or user_confirmed=true after the user typed the exact command or said yes to "
                               "a question naming this candidate or skill")
        self.confirmed_by = "agent"

    # ================================================================== infrastructure
    def _check_roots(self) -> None:
        for part in (STATE_DIR, "skills"):
            if (self.workspace / part).is_symlink():
                raise EvolverError("PATH_OUT_OF_SCOPE", f"./{part} is a symbolic link; the evolver refuses to follow it")

    @contextmanager
    def _locked(self) -> Iterator[list[str]]:
        """Hold the workspace lock; finish or discard interrupted transactions first."""
        from ...errors import StorageBusy
        from ...kernel.durable import FileLock

        self._check_roots()
        lock = FileLock(self.workspace / LOCK, timeout=self.lock_timeout)
        try:
            lock.acquire()
        except StorageBusy as exc:
            raise EvolverError("STATE_BUSY", f"the evolver state of {self.workspace} is busy: {exc.message}") from None
        except OSError as exc:
            raise io_error(exc, "locking the evolver state") from None
        try:
            warnings = self._recover()
            yield warnings
        finally:
            lock.release()

    def _recover(self) -> list[str]:
        warnings = []
        for report in recover(self.workspace):
            tx = Transaction(self.workspace)
            msg = (f"an interrupted transaction {report['tx_id']} was {report['action']}"
                   + (f" ({len(report['paths'])} file changes)" if report["paths"] else ""))
            ev = audit.event("journal_recovered", status_before=None, status_after=None, actor="auto",
                             decision_reason=msg, subject="config", recovered_tx_id=report["tx_id"],
                             recovery_action=report["action"], paths=["./" + p for p in report["paths"]])
            audit.write(tx, ev)
            tx.commit()
            warnings.append(msg)
        return warnings

    def _mutate(self, fn: Callable[[State], T], *, allow_corrupt: bool = False) -> tuple[T, list[str]]:
        with self._locked() as warnings:
            tx = Transaction(self.workspace)
            state = State.load(self.workspace, tx)
            if state.corrupt and not allow_corrupt:
                raise EvolverError("STATE_CORRUPT", f"{', '.join('./' + c for c in state.corrupt)} could not be read; "
                                   "run 'repair skill-evolver state' (nervous evolve repair) to rebuild it",
                                   details={"warnings": state.warnings})
            result = fn(state)
            state.flush()
            tx.commit()
            return result, warnings + state.warnings

    def _read(self) -> State:
        """State for a read-only operation: no lock and no files unless a journal needs recovering."""
        self._check_roots()
        recovered: list[str] = []
        if pending_journals(self.workspace):
            with self._locked() as warnings:
                recovered = warnings
        state = State.load(self.workspace, Transaction(self.workspace))
        state.warnings[:0] = recovered
        return state

    def _result(self, operation: str, rec_: Mapping[str, Any] | None, *, status_before: str | None,
                status_after: str | None, message: str, mode: str, warnings: list[str],
                skill_name: str | None = None, backup_path: str | None = None, audit_path: str | None = None,
                **extra: Any) -> dict[str, Any]:
        rec = rec_ or {}
        out = {
            "ok": True, "operation": operation, "candidate_id": rec.get("candidate_id"),
            "skill_name": skill_name or rec.get("published_name") or rec.get("target_skill"),
            "status_before": status_before, "status_after": status_after,
            "published_version": rec.get("published_version"), "autonomy_mode": mode,
            "promotion_channel": rec.get("promotion_channel"), "backup_path": backup_path,
            "audit_path": audit_path, "message": message,
        }
        out.update(extra)
        out["warnings"] = list(dict.fromkeys(warnings))
        return out

    # ================================================================== create
    def create_candidate(self, **params: Any) -> dict[str, Any]:
        """Validate a proposed skill change and record it as a candidate; the mode may auto-promote it."""
        fields = self._create_fields(params)
        try:
            return self._create(fields)
        except EvolverError as exc:
            if exc.code in _AUDITED_REFUSALS:
                self._audit_refusal(fields, exc)
            raise

    def _create_fields(self, params: Mapping[str, Any]) -> dict[str, Any]:
        known = {"source_summary", "signal_type", "signal_count", "proposed_skill_content", "target_skill",
                 "change_type", "risk_level", "matched_rules", "source_tools", "diff_summary", "dedupe_basis",
                 "suggestions", "candidate_id", "autonomy_mode"}
        unknown = sorted(set(params) - known)
        if unknown:
            raise EvolverError("UNKNOWN_FIELD", f"unknown field(s) for create_candidate: {', '.join(unknown)}")
        f: dict[str, Any] = {}
        for key in ("source_summary", "signal_type", "target_skill"):
            f[key] = _required_text(params, key).strip()
        if params.get("proposed_skill_content") is None:
            raise EvolverError("MISSING_FIELD", "proposed_skill_content is required")
        f["draft_raw"] = params["proposed_skill_content"]
        count = params.get("signal_count")
        if count is None:
            raise EvolverError("MISSING_FIELD", "signal_count is required")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise EvolverError("MISSING_FIELD", f"signal_count must be an integer of at least 1, not {count!r}")
        f["signal_count"] = count
        # free-form, as in the original; the four of SIGNAL_TYPES are the usual ones
        signal = f["signal_type"]
        if len(signal) > MAX_SIGNAL_TYPE or not signal.isprintable():
            raise EvolverError("MISSING_FIELD", f"signal_type must be one line of at most {MAX_SIGNAL_TYPE} "
                               f"characters (usually one of {', '.join(SIGNAL_TYPES)})")
        change = params.get("change_type")
        if change is None:
            raise EvolverError("MISSING_FIELD", "change_type is required")
        if change not in CHANGE_TYPES:
            raise EvolverError("INVALID_CHANGE_TYPE", f"change_type {change!r} is not one of {', '.join(CHANGE_TYPES)}")
        f["change_type"] = change
        risk = params.get("risk_level")
        if risk is None:
            raise EvolverError("MISSING_FIELD", "risk_level is required")
        if risk not in RISK_LEVELS:
            raise EvolverError("INVALID_RISK_LEVEL", f"risk_level {risk!r} is not one of {', '.join(RISK_LEVELS)}")
        f["risk_level"] = risk
        for key in ("matched_rules", "source_tools", "suggestions"):
            f[key] = _text_list(params.get(key), key)
        for key in ("diff_summary", "dedupe_basis"):
            value = params.get(key)
            if value is not None and not isinstance(value, str):
                raise EvolverError("MISSING_FIELD", f"{key} must be a string")
            f[key] = value.strip() if isinstance(value, str) and value.strip() else None
        f["candidate_id"] = params.get("candidate_id")
        if f["candidate_id"] is not None:
            check_candidate_id(f["candidate_id"])
        f["target_skill"] = normalize_skill_name(f["target_skill"], allow_canary=change != "create_skill")
        return f

    def _new_id(self, state: State, target: str) -> str:
        from datetime import datetime

        when = datetime.fromtimestamp(clock.now(), UTC).strftime("%Y%m%d-%H%M%S")
        slug = slugify(target.removeprefix("learned-"))[:80].strip("-") or "skill"
        base = f"candidate-{when}-{slug}"
        cid, n = base, 1
        while state.find(cid) is not None or state.tx.exists(rendering_path(cid)):
            n += 1
            cid = f"{base}-{n}"
        return cid

    def _create(self, f: dict[str, Any]) -> dict[str, Any]:
        pm = self.manager

        def run(state: State) -> dict[str, Any]:
            cid = f["candidate_id"]
            if cid is not None:
                taken = state.find(cid)
                if taken is not None or state.tx.exists(rendering_path(cid)):
                    raise EvolverError("INVALID_ID", f"candidate id {cid} is already used", blocking_record=taken)
            change = f["change_type"]
            target = f["target_skill"]
            current, info, exists = publishing.target_state(state, target)
            draft = check_draft_bytes(f["draft_raw"], "proposed_skill_content")
            result = assess(pm, draft, change_type=change, declared=f["risk_level"],
                            baseline=current if change != "create_skill" else None,
                            stated_purpose=f["source_summary"], name=target)
            if change == "create_skill":
                if exists and info.managed:
                    raise EvolverError("SHOULD_PATCH_EXISTING", f"{target} is already a managed skill; propose a "
                                       "patch_skill candidate for it instead",
                                       blocking_record=state.latest_published(target))
                if exists:
                    raise EvolverError("UNMANAGED_TARGET", f"./skills/{target} exists without the managed-by: "
                                       "skill-evolver marker; the evolver never touches it")
            else:
                if current is None:
                    raise EvolverError("TARGET_NOT_FOUND", f"./{skill_file(target)} does not exist; use "
                                       "create_skill for a new skill")
                if not info.managed:
                    raise EvolverError("UNMANAGED_TARGET", f"./{skill_file(target)} lacks the managed-by: "
                                       "skill-evolver marker; the evolver never touches it")
            blocking = state.open_for_target(target)
            if blocking is not None:
                raise EvolverError("DUPLICATE_TARGET_SKILL", f"candidate {blocking['candidate_id']} is already open "
                                   f"for {target} ({blocking['status']}); merge into it or revise it instead",
                                   blocking_record=blocking)
            cid = cid or self._new_id(state, target)
            now = clock.utc_timestamp()
            record: dict[str, Any] = ordered({
                "candidate_id": cid, "status": "pending_review", "source_summary": f["source_summary"],
                "signal_type": f["signal_type"], "signal_count": f["signal_count"], "target_skill": target,
                "change_type": change, "risk_level": result.effective,
                "dedupe_basis": f["dedupe_basis"] or "new workflow candidate", "merged_into": None,
                "matched_rules": f["matched_rules"], "source_tools": f["source_tools"],
                "diff_summary": f["diff_summary"] or "initial candidate draft", "failure_reason": None,
                "review_suggestions": f["suggestions"], "revision_count": 0, "created_at": now,
                "approved_at": None, "published_version": None, "rollback_of": None, "publish_effect": None,
                "autonomy_mode": state.mode, "promotion_channel": None,
                "declared_risk_level": f["risk_level"], "risk_rule_ids": list(result.rule_ids),
            })
            state.add(record, draft, "create_candidate")
            ev = audit.event("candidate_created", record=record, status_before=None, status_after="pending_review",
                             actor="agent", decision_reason="; ".join(result.reasons) or None)
            audit_path = audit.write(state.tx, ev)
            auto, publish_result, warnings = self._auto_actions(state, record)
            msg = f"Created candidate {cid} for {target} ({change}, {result.effective} risk)."
            if auto:
                msg += " " + self._auto_sentence(record, auto)
            elif not warnings:
                msg += f" Review it with 'review skill candidates', then 'approve candidate {cid}'."
            out = self._result("create_candidate", record, status_before=None, status_after=record["status"],
                               message=msg, mode=state.mode, warnings=warnings, audit_path=publishing.rel(audit_path),
                               skill_name=record.get("published_name") or target,
                               backup_path=publish_result.get("backup_path") if publish_result else None,
                               candidate_path="./" + rendering_path(cid), auto_actions=auto,
                               publish_result=publish_result, risk_rule_ids=list(result.rule_ids),
                               declared_risk_level=f["risk_level"])
            return out

        out, warnings = self._mutate(run)
        out["warnings"] = list(dict.fromkeys(warnings + out["warnings"]))
        return out

    def _auto_actions(self, state: State, record: dict[str, Any]) -> tuple[list[str], dict[str, Any] | None,
                                                                          list[str]]:
        """§7: what the mode does with a fresh low-risk candidate, inside the create transaction."""
        mode, change, risk = state.mode, record["change_type"], record["risk_level"]
        if risk != "low" or change == "deprecate_skill" or mode == "manual":
            return [], None, []
        if mode == "assisted" and change != "patch_skill":
            return [], None, []
        self._approve(state, record, actor="auto", reason=f"auto-approved: low-risk {change} in {mode} mode")
        if mode == "assisted":
            return ["approved"], None, []
        point = state.tx.savepoint()
        try:
            plan = publishing.plan_publish(state, self.manager, record, canary=change == "create_skill",
                                           require_low=True)
        except EvolverError as exc:
            state.tx.restore(point)
            return ["approved"], None, [f"auto-publish skipped ({exc.code}): {exc.message}; the candidate stays "
                                        "approved"]
        try:  # autonomous publishing is a reflex: the gate admits only what our scan allows
            res = publishing.apply_publish(state, record, plan, actor="auto", pm=self.manager,
                                           approval=gate.Approval("reflex", "autonomous"))
        except Refused as exc:
            state.tx.restore(point)
            return ["approved"], None, [f"auto-publish skipped ({exc.code}): {exc.message}; the candidate stays "
                                        "approved"]
        return ["approved", "published_canary" if plan.channel == "canary" else "published"], res, res["warnings"]

    @staticmethod
    def _auto_sentence(record: Mapping[str, Any], auto: list[str]) -> str:
        if "published_canary" in auto:
            return (f"Autonomous mode published it as {record['published_name']} v{record['published_version']} "
                    f"(canary); 'promote canary {record['published_name']}' makes it the main skill.")
        if "published" in auto:
            return (f"Autonomous mode published {record['published_name']} v{record['published_version']}; "
                    f"'rollback skill {record['published_name']}' undoes it.")
        return f"Assisted mode approved it; publish with 'publish candidate {record['candidate_id']}'."

    def _audit_refusal(self, f: Mapping[str, Any], exc: EvolverError) -> None:
        rec = {"candidate_id": f.get("candidate_id"), "target_skill": f.get("target_skill"),
               "matched_rules": f.get("matched_rules"), "diff_summary": f.get("diff_summary"),
               "dedupe_basis": f.get("dedupe_basis"), "risk_rule_ids": exc.details.get("rule_ids")}
        try:
            def run(state: State) -> None:
                ev = audit.event("candidate_refused", record={**rec, "autonomy_mode": state.mode},
                                 status_before=None, status_after=None, actor="agent",
                                 decision_reason=f"{exc.code}: {exc.message}", subject="refused",
                                 error_code=exc.code, findings=exc.details.get("findings"))
                audit.write(state.tx, ev)
            self._mutate(run, allow_corrupt=True)
        except EvolverError:
            pass  # the refusal itself is what the caller must see

    # ================================================================== review
    def _approve(self, state: State, record: dict[str, Any], *, actor: str, reason: str | None = None) -> str:
        before = str(record["status"])
        record["status"] = transition("approve", record)
        if not record.get("approved_at"):
            record["approved_at"] = clock.utc_timestamp()
        state.changed(record, "approve", before)
        ev = audit.event("candidate_approved", record=record, status_before=before, status_after="approved",
                         actor=actor, decision_reason=reason)
        return audit.write(state.tx, ev)

    def _recheck_draft(self, state: State, record: dict[str, Any], draft_raw: object) -> str:
        """A replacement draft passes the same checks as a new one; risk is recomputed."""
        draft = check_draft_bytes(draft_raw, "replacement_skill_content")
        target = check_skill_name(str(record["target_skill"]))
        current, _info, _ = publishing.target_state(state, target)
        declared = str(record.get("declared_risk_level") or record.get("risk_level") or "low")
        result = assess(self.manager, draft, change_type=str(record["change_type"]), declared=declared,
                        baseline=current if record["change_type"] != "create_skill" else None,
                        stated_purpose=str(record.get("source_summary") or ""), name=target)
        record["declared_risk_level"] = declared
        record["risk_level"] = result.effective
        record["risk_rule_ids"] = list(result.rule_ids)
        return draft

    def review_candidate(self, candidate_id: str, decision: str, *, failure_reason: str | None = None,
                         suggestions: list[str] | str | None = None, replacement_skill_content: str | None = None,
                         diff_summary: str | None = None, user_confirmed: bool = False) -> dict[str, Any]:
        if decision == "approve":
            return self.approve(candidate_id, user_confirmed=user_confirmed)
        if decision == "reject":
            return self.reject(candidate_id, failure_reason)
        if decision == "revise":
            return self.revise(candidate_id, suggestions=suggestions, replacement_skill_content=replacement_skill_content,
                               diff_summary=diff_summary)
        raise EvolverError("INVALID_DECISION", f"decision {decision!r} is not one of approve, reject, revise")

    def approve(self, candidate_id: str, *, user_confirmed: bool = False) -> dict[str, Any]:
        self._confirm(user_confirmed, f"approving candidate {candidate_id}", candidate_id)

        def run(state: State) -> dict[str, Any]:
            record = state.get(candidate_id)
            before = str(record["status"])
            path = self._approve(state, record, actor="user", reason="approved by the user")
            return self._result("review_candidate", record, status_before=before, status_after="approved",
                                message=f"Approved {record['candidate_id']}; publish it with 'publish candidate "
                                f"{record['candidate_id']}'.", mode=state.mode, warnings=[],
                                audit_path=publishing.rel(path), decision="approve")

        return self._finish(*self._mutate(run))

    def reject(self, candidate_id: str, failure_reason: str | None) -> dict[str, Any]:
        def run(state: State) -> dict[str, Any]:
            record = state.get(candidate_id)
            if not isinstance(failure_reason, str) or not failure_reason.strip():
                raise EvolverError("MISSING_FAILURE_REASON", "rejecting a candidate needs a failure_reason")
            before = str(record["status"])
            record["status"] = transition("reject", record)
            record["failure_reason"] = failure_reason.strip()
            state.changed(record, "reject", before)
            path = audit.write(state.tx, audit.event("candidate_rejected", record=record, status_before=before,
                                                     status_after="rejected", actor="user",
                                                     decision_reason=failure_reason.strip()))
            return self._result("review_candidate", record, status_before=before, status_after="rejected",
                                message=f"Rejected {record['candidate_id']}; published skills are unchanged.",
                                mode=state.mode, warnings=[], audit_path=publishing.rel(path), decision="reject")

        return self._finish(*self._mutate(run))

    def revise(self, candidate_id: str, *, suggestions: list[str] | str | None = None,
               replacement_skill_content: str | None = None, diff_summary: str | None = None) -> dict[str, Any]:
        notes = _text_list(suggestions, "suggestions")

        def run(state: State) -> dict[str, Any]:
            record = state.get(candidate_id)
            if not notes and replacement_skill_content is None:
                raise EvolverError("MISSING_REVISION_INPUT", "a revision needs suggestions or a replacement draft")
            op = "revise_draft" if replacement_skill_content is not None else "revise_suggestions"
            before = str(record["status"])
            after = transition(op, record)
            draft = self._recheck_draft(state, record, replacement_skill_content) \
                if replacement_skill_content is not None else None
            existing = list(record.get("review_suggestions") or [])
            have = {s for s in existing if isinstance(s, str)}  # (a set: long lists are united in linear time)
            record["review_suggestions"] = existing + [n for n in dict.fromkeys(notes) if n not in have]
            record["revision_count"] = int(record.get("revision_count") or 0) + 1
            record["approved_at"] = None
            record["status"] = after
            if diff_summary:
                record["diff_summary"] = diff_summary
            state.changed(record, "revise", before, draft=draft)
            path = audit.write(state.tx, audit.event("candidate_revised", record=record, status_before=before,
                                                     status_after=after, actor="user",
                                                     decision_reason="revision requested" if draft is None
                                                     else "draft replaced"))
            msg = (f"Recorded suggestions for {record['candidate_id']}; it waits for a revised draft."
                   if draft is None else f"Replaced the draft of {record['candidate_id']}; it is back in review.")
            return self._result("review_candidate", record, status_before=before, status_after=after, message=msg,
                                mode=state.mode, warnings=[], audit_path=publishing.rel(path), decision="revise")

        return self._finish(*self._mutate(run))

    def update_draft(self, candidate_id: str, replacement_skill_content: str, *,
                     diff_summary: str | None = None) -> dict[str, Any]:
        def run(state: State) -> dict[str, Any]:
            record = state.get(candidate_id)
            before = str(record["status"])
            after = transition("update_draft", record)
            if replacement_skill_content is None:
                raise EvolverError("MISSING_FIELD", "replacement_skill_content is required")
            draft = self._recheck_draft(state, record, replacement_skill_content)
            record["status"] = after
            if diff_summary:
                record["diff_summary"] = diff_summary
            state.changed(record, "update_draft", before, draft=draft)
            path = audit.write(state.tx, audit.event("candidate_draft_updated", record=record, status_before=before,
                                                     status_after=after, actor="agent"))
            return self._result("update_draft", record, status_before=before, status_after=after,
                                message=f"Updated the draft of {record['candidate_id']}; it is back in review.",
                                mode=state.mode, warnings=[], audit_path=publishing.rel(path))

        return self._finish(*self._mutate(run))

    # ================================================================== merge
    def merge_candidate(self, candidate_id: str, merge_into_candidate_id: str, reason: str, *,
                        replacement_skill_content: str | None = None, diff_summary: str | None = None) -> dict[str, Any]:
        """Fold a newer candidate into an open one (§10.2): the source becomes ``merged``."""
        if not isinstance(reason, str) or not reason.strip():
            raise EvolverError("MISSING_FIELD", "reason is required for a merge")
        if not merge_into_candidate_id:
            raise EvolverError("MISSING_FIELD", "merge_into_candidate_id is required")

        def run(state: State) -> dict[str, Any]:
            source = state.get(candidate_id)
            target = state.get(merge_into_candidate_id)
            if source is target:
                raise EvolverError("INVALID_TARGET_STATUS", "a candidate cannot be merged into itself",
                                   blocking_record=target)
            before = str(source["status"])
            after = transition("merge_source", source)
            target_before = str(target["status"])
            transition("merge_target", target)
            draft = self._recheck_draft(state, target, replacement_skill_content) \
                if replacement_skill_content is not None else None
            source.update({"status": after, "merged_into": target["candidate_id"],
                           "dedupe_basis": f"merged into {target['candidate_id']}"})
            note = f"Merged {source['candidate_id']}: {reason.strip()}"
            notes = list(target.get("review_suggestions") or [])
            if note not in notes:
                notes.append(note)
            target["review_suggestions"] = notes
            if draft is not None:
                target["status"] = "pending_review"
                target["approved_at"] = None
                if diff_summary:
                    target["diff_summary"] = diff_summary
            state.changed(source, "merge", before)
            state.changed(target, "merge_target", target_before, draft=draft)
            path = audit.write(state.tx, audit.event(
                "candidate_merged", record=source, status_before=before, status_after=after, actor="agent",
                decision_reason=reason.strip(), merged_into=target["candidate_id"],
                target_status_before=target_before, target_status_after=target["status"]))
            return self._result("merge_candidate", source, status_before=before, status_after=after,
                                message=f"Merged {source['candidate_id']} into {target['candidate_id']} instead of "
                                f"keeping a second candidate for {target['target_skill']}.", mode=state.mode,
                                warnings=[], audit_path=publishing.rel(path), merged_into=target["candidate_id"],
                                target_status_after=target["status"])

        return self._finish(*self._mutate(run))

    # ================================================================== publish, rollback, promote
    def publish_candidate(self, candidate_id: str, publish_as: str | None = None, *,
                          user_confirmed: bool = False) -> dict[str, Any]:
        self._confirm(user_confirmed, f"publishing candidate {candidate_id}", candidate_id)

        def run(state: State) -> dict[str, Any]:
            record = state.get(candidate_id)
            before = str(record["status"])
            transition("publish_direct", record)
            plan = publishing.plan_publish(state, self.manager, record, publish_as=publish_as)
            if before == "pending_review":
                self._approve(state, record, actor="user", reason="approved by the user's publish command")
            res = publishing.apply_publish(state, record, plan, actor="user", pm=self.manager,
                                           approval=gate.Approval(self.confirmed_by, "evolver", confirmed=True))
            msg = f"Published {plan.name} v{plan.version}."
            if plan.version > 1 or plan.current is not None:
                msg += f" 'rollback skill {plan.name}' restores the previous version."
            return self._result("publish_candidate", record, status_before=before, status_after="published",
                                message=msg, mode=state.mode, warnings=res["warnings"], skill_name=plan.name,
                                backup_path=res["backup_path"], audit_path=res["audit_path"])

        return self._finish(*self._mutate(run))

    def rollback_skill(self, skill_name: str, *, user_confirmed: bool = False) -> dict[str, Any]:
        self._confirm(user_confirmed, f"rolling back {skill_name}", skill_name)

        def run(state: State) -> dict[str, Any]:
            res = publishing.rollback(state, skill_name)
            return self._result("rollback_skill", res["record"], status_before=res["status_before"],
                                status_after=res["status_after"], message=res["message"], mode=state.mode,
                                warnings=res["warnings"], skill_name=res["skill_name"], backup_path=res["backup_path"],
                                audit_path=res["audit_path"], safety_copy_path=res["safety_copy_path"])

        return self._finish(*self._mutate(run))

    def promote_canary(self, skill_name: str, *, user_confirmed: bool = False) -> dict[str, Any]:
        self._confirm(user_confirmed, f"promoting canary {skill_name}", skill_name)

        def run(state: State) -> dict[str, Any]:
            res = publishing.promote(state, skill_name)
            return self._result("promote_canary", res["record"], status_before=res["status_before"],
                                status_after=res["status_after"], message=res["message"], mode=state.mode,
                                warnings=[], skill_name=res["skill_name"], backup_path=res["backup_path"],
                                audit_path=res["audit_path"])

        return self._finish(*self._mutate(run))

    # ================================================================== listing and modes
    def list_candidates(self, statuses: list[str] | tuple[str, ...] | None = None) -> dict[str, Any]:
        from .record import STATUSES

        wanted = list(statuses) if statuses else list(OPEN_STATUSES)
        bad = [s for s in wanted if s not in STATUSES]
        if bad:
            raise EvolverError("INVALID_SOURCE_STATUS", f"unknown status(es) {', '.join(bad)}; one of "
                               f"{', '.join(STATUSES)}")
        state = self._read()
        if REGISTRY in state.corrupt:
            raise EvolverError("STATE_CORRUPT", f"./{REGISTRY} cannot be read, so the candidates cannot be listed; "
                               "run 'nervous evolve repair' (it keeps a copy of the damaged file)")
        rows = [{
            "candidate_id": r["candidate_id"], "target_skill": r.get("target_skill"),
            "change_type": r.get("change_type"), "risk_level": r.get("risk_level"), "status": r.get("status"),
            "revision_count": r.get("revision_count"), "summary": summary_line(r), "merge_notes": merge_notes(r),
            "created_at": r.get("created_at"), "review_suggestions": r.get("review_suggestions") or [],
        } for r in state.records if r.get("status") in wanted]
        if statuses:
            which = " or ".join(wanted)
            msg = f"{len(rows)} candidate(s) {which}." if rows else f"No candidates are {which}."
        else:
            msg = f"{len(rows)} candidate(s) waiting for review." if rows else "No candidates are waiting for review."
        out = self._result("list_candidates", None, status_before=None, status_after=None, message=msg,
                           mode=state.mode, warnings=state.warnings, candidates=rows)
        return out

    def show_candidate(self, candidate_id: str) -> dict[str, Any]:
        state = self._read()
        record = state.get(candidate_id)
        return self._result("show_candidate", record, status_before=record.get("status"),
                            status_after=record.get("status"), message=summary_line(record), mode=state.mode,
                            warnings=state.warnings, record=ordered(record),
                            draft=state.draft(str(record["candidate_id"])),
                            candidate_path="./" + rendering_path(str(record["candidate_id"])))

    def get_mode(self) -> dict[str, Any]:
        state = self._read()
        return self._result("get_mode", None, status_before=None, status_after=None, message=_MODE_SUMMARY[state.mode],
                            mode=state.mode, warnings=state.warnings, summary=_MODE_SUMMARY[state.mode])

    def set_mode(self, mode: str, *, user_confirmed: bool = False) -> dict[str, Any]:
        if mode not in MODES:
            raise EvolverError("INVALID_MODE", f"mode {mode!r} is not one of {', '.join(MODES)}")
        self._confirm(user_confirmed, f"changing the skill-evolver mode to {mode}", mode)

        def run(state: State) -> dict[str, Any]:
            before = state.mode
            state.set_mode(mode)
            path = audit.write(state.tx, audit.event(
                "mode_changed", record={"autonomy_mode": mode}, status_before=before, status_after=mode, actor="user",
                subject="config", decision_reason=f"mode changed from {before} to {mode}"))
            return self._result("set_mode", None, status_before=before, status_after=mode,
                                message=_MODE_SUMMARY[mode], mode=mode, warnings=[], audit_path=publishing.rel(path),
                                summary=_MODE_SUMMARY[mode])

        return self._finish(*self._mutate(run))

    # ================================================================== repair and import
    def repair_state(self) -> dict[str, Any]:
        """Rebuild the registry from the sidecars (and a corrupt config from defaults)."""
        from .state import CANDIDATES

        def run(state: State) -> dict[str, Any]:
            rebuilt: list[dict[str, Any]] = []
            notes: list[str] = []
            for name in state.tx.listdir(CANDIDATES):
                if not name.endswith(".json"):
                    continue
                cid = name[:-5]
                try:
                    check_candidate_id(cid, legacy=True)
                except EvolverError:
                    notes.append(f"skipped ./{CANDIDATES}/{name}: not a candidate id")
                    continue
                side = state.sidecar(cid)
                rec = side.get("record") if side else None
                if not isinstance(rec, dict) or rec.get("candidate_id") != cid:
                    notes.append(f"skipped ./{CANDIDATES}/{name}: no record for {cid}")
                    continue
                rebuilt.append(ordered(rec))
            known = {r["candidate_id"] for r in rebuilt}
            kept = [r for r in state.records if r["candidate_id"] not in known] if REGISTRY not in state.corrupt else []
            state.records = sorted(rebuilt + kept, key=lambda r: (str(r.get("created_at") or ""), r["candidate_id"]))
            if CONFIG in state.corrupt:
                state.config = dict(DEFAULT_CONFIG)
                state.set_mode("manual")
                notes.append("config.json reset to manual mode")
            state.write_registry()
            msg = f"Rebuilt the registry: {len(rebuilt)} record(s) from sidecars, {len(kept)} kept."
            path = audit.write(state.tx, audit.event("state_repaired", status_before=None, status_after=None,
                                                     actor="user", subject="config", decision_reason=msg,
                                                     notes=notes, records=len(state.records)))
            return self._result("repair_state", None, status_before=None, status_after=None, message=msg,
                                mode=state.mode, warnings=notes, audit_path=publishing.rel(path),
                                records=len(state.records))

        return self._finish(*self._mutate(run, allow_corrupt=True))

    def import_state(self) -> dict[str, Any]:
        """Adopt an existing ``./.skill-evolver/``: sidecars and raw drafts for every legacy candidate."""
        from .record import complete
        from .render import parse_legacy
        from .state import CANDIDATES, draft_path, sha256, sidecar_path

        if not (self.workspace / STATE_DIR).is_dir():
            raise EvolverError("INVALID_WORKSPACE", f"no ./{STATE_DIR}/ in {self.workspace} to import")

        def run(state: State) -> dict[str, Any]:
            notes: list[str] = []
            adopted: list[str] = []
            by_id = {r["candidate_id"]: r for r in state.records}
            legacy_files = [n for n in state.tx.listdir(CANDIDATES) if n.endswith(".md")]
            ids = list(dict.fromkeys([*by_id, *(n[:-3] for n in legacy_files)]))
            added = 0
            for cid in ids:
                try:
                    check_candidate_id(cid, legacy=True)
                except EvolverError as exc:
                    notes.append(f"skipped {cid!r}: {exc.message}")
                    continue
                if state.sidecar(cid) is not None:
                    continue
                raw = state.tx.read(rendering_path(cid))
                parsed = parse_legacy(raw.decode("utf-8", "replace"), f"./{rendering_path(cid)}") if raw else None
                if parsed is not None:
                    notes.extend(parsed.warnings)
                record = by_id.get(cid)
                if record is None:
                    assert parsed is not None
                    front = dict(parsed.record)
                    front["candidate_id"] = cid
                    record = complete(front)
                    state.records.append(record)
                    added += 1
                draft = parsed.draft if parsed is not None else ""
                if parsed is None:
                    notes.append(f"{cid}: no candidate file; imported with an empty draft")
                record.setdefault("declared_risk_level", record.get("risk_level"))
                record["draft_sha256"] = sha256(draft)
                state.tx.write_text(draft_path(cid), draft)
                state.tx.write_json(sidecar_path(cid), {
                    "version": 1, "record": ordered(record), "draft_file": f"drafts/{cid}.md",
                    "draft_sha256": sha256(draft),
                    "history": [{"at": clock.utc_timestamp(), "operation": "import",
                                 "status_before": record.get("status"), "status_after": record.get("status")}]})
                adopted.append(cid)
            if adopted or added:
                state.write_registry()
            msg = f"Imported {len(adopted)} legacy candidate(s); {added} added to the registry."
            path = audit.write(state.tx, audit.event("state_repaired", status_before=None, status_after=None,
                                                     actor="user", subject="config",
                                                     decision_reason="legacy state imported: " + msg,
                                                     imported=adopted, notes=notes))
            return self._result("import_state", None, status_before=None, status_after=None, message=msg,
                                mode=state.mode, warnings=notes, audit_path=publishing.rel(path), imported=adopted)

        return self._finish(*self._mutate(run))

    def suggest_dedupe(self, target_skill: str, draft: str) -> dict[str, Any]:
        """Patch, merge or create? Advice from overlap with published skills and open candidates (§10.2)."""
        from .dedupe import suggest

        target = normalize_skill_name(target_skill)
        text = check_draft_bytes(draft)
        state = self._read()
        advice = suggest(state, target, text)
        return self._result("suggest_dedupe", None, status_before=None, status_after=None,
                            message=f"Prefer {advice['action']} ({advice['dedupe_basis']}).", mode=state.mode,
                            warnings=state.warnings, advice=advice)

    # ================================================================== entry points
    @staticmethod
    def _finish(out: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
        out["warnings"] = list(dict.fromkeys(warnings + list(out.get("warnings") or [])))
        return out

    def run_command(self, text: str, *, user_confirmed: bool = False) -> dict[str, Any]:
        """Run one of the direct review commands (§11), confirmed like every other front end."""
        from .commands import parse_command

        params = parse_command(text)
        if user_confirmed:
            params["user_confirmed"] = True
        return self.call(params)

    def call(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Dispatch a ``skill_manage_managed`` parameter object (without ``workspace_root``); raises on refusal."""
        from .tool import dispatch

        return dispatch(self, params)

    def audit_events(self) -> list[dict[str, Any]]:
        """Every audit event, oldest first (for review tools and tests)."""
        import json

        tx = Transaction(self.workspace)
        out = []
        for name in audit.list_events(tx):
            raw = tx.read(f"{audit.AUDIT_DIR}/{name}")
            if raw is not None:
                try:
                    out.append({"file": name, **json.loads(raw)})
                except ValueError:
                    continue
        return out

