"""Publish, rollback and canary promotion (§8): every check first, then the file changes, in one transaction."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any

from ...kernel import clock
from ..install import gate
from . import audit, backups
from .errors import EvolverError
from .names import (
    canary_name,
    check_skill_name,
    main_name,
    normalize_skill_name,
    resolve_in_workspace,
    skill_dir,
    skill_file,
)
from .risk import Assessment, assess, check_draft_bytes
from .skillfile import ManagedInfo, compose, managed_info, retarget
from .state import State

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager


def rel(path: str | None) -> str | None:
    return None if path is None else "./" + path


def target_state(state: State, name: str) -> tuple[bytes | None, ManagedInfo, bool]:
    """Current ``SKILL.md`` bytes, its ownership, and whether the directory exists at all."""
    resolve_in_workspace(state.workspace, skill_file(name))  # symlinked skills/ or target: PATH_OUT_OF_SCOPE
    content = state.tx.read(skill_file(name))
    directory = state.workspace / skill_dir(name)
    exists = content is not None or (directory.is_dir() and skill_dir(name) not in state.tx._removed_dirs)
    return content, managed_info(content), exists


def next_version(state: State, name: str, current: ManagedInfo) -> int:
    seen = [current.version or 0]
    seen += [int(r["published_version"]) for r in state.records
             if state.published_name(r) == name and isinstance(r.get("published_version"), int)]
    seen += backups.versions_seen(state.tx, name)
    return 1 + max(seen)


def diff_summary(old: str, new: str) -> str:
    added = removed = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1

    def sections(text: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        cur = "(preamble)"
        for ln in text.splitlines():
            m = re.match(r"^#{1,6}\s+(.*)", ln)
            if m:
                cur = m.group(1).strip()
            out.setdefault(cur, []).append(ln)
        return out

    a, b = sections(old), sections(new)
    changed = [s for s in dict.fromkeys([*a, *b]) if a.get(s) != b.get(s) and s != "(preamble)"]
    text = f"+{added} -{removed} lines"
    if changed:
        text += "; sections changed: " + ", ".join(changed[:8])
    return text


class PublishPlan:
    """Everything a publish needs, computed and checked before any file change is recorded."""

    def __init__(self, name: str, channel: str, current: bytes | None, info: ManagedInfo, version: int,
                 draft: str, assessment: Assessment) -> None:
        self.name, self.channel, self.current, self.info = name, channel, current, info
        self.version, self.draft, self.assessment = version, draft, assessment


def plan_publish(state: State, pm: PluginManager, record: dict[str, Any], *, publish_as: str | None = None,
                 canary: bool = False, require_low: bool = False) -> PublishPlan:
    change = record.get("change_type")
    target = check_skill_name(str(record.get("target_skill")))
    if change in ("patch_skill", "deprecate_skill"):
        name = target
        if publish_as is not None and normalize_skill_name(publish_as) != target:
            raise EvolverError("INVALID_NAME", f"a {change} candidate publishes to its target {target}, not "
                               f"{publish_as!r}")
    elif canary:
        name = canary_name(target)
        check_skill_name(name)
    else:
        name = normalize_skill_name(publish_as, allow_canary=False) if publish_as is not None else target
        check_skill_name(name, allow_canary=False)
        if name != target:
            other = state.open_for_target(name, exclude=str(record["candidate_id"]))
            if other is not None:
                raise EvolverError("DUPLICATE_TARGET_SKILL", f"candidate {other['candidate_id']} is open for {name}",
                                   blocking_record=other)
    channel = "canary" if name.endswith("-canary") else "main"
    current, info, exists = target_state(state, name)
    if change == "create_skill":
        if exists:
            if info.managed and channel == "canary":
                pass  # a managed canary being republished is an update
            elif info.managed:
                raise EvolverError("SHOULD_PATCH_EXISTING", f"./skills/{name} is already a managed skill; propose a "
                                   "patch_skill candidate instead", blocking_record=state.latest_published(name))
            else:
                raise EvolverError("UNMANAGED_TARGET", f"./skills/{name} exists without the managed-by: "
                                   "skill-evolver marker; the evolver never touches it")
    else:
        if current is None:
            raise EvolverError("TARGET_NOT_FOUND", f"./skills/{name}/SKILL.md does not exist; nothing to "
                               f"{'patch' if change == 'patch_skill' else 'deprecate'}")
        if not info.managed:
            raise EvolverError("UNMANAGED_TARGET", f"./skills/{name}/SKILL.md lacks the managed-by: skill-evolver "
                               "marker; the evolver never touches it")
    draft = check_draft_bytes(state.draft(str(record["candidate_id"])))
    declared = str(record.get("declared_risk_level") or record.get("risk_level") or "low")
    result = assess(pm, draft, change_type=str(change), declared=declared,
                    baseline=current if change != "create_skill" else None,
                    stated_purpose=str(record.get("source_summary") or ""), name=name)
    if require_low and result.effective != "low":
        raise EvolverError("CANDIDATE_NOT_APPROVED", f"risk is {result.effective} at publish time; only low-risk "
                           "candidates are published automatically")
    return PublishPlan(name, channel, current, info, next_version(state, name, info), draft, result)


def apply_publish(state: State, record: dict[str, Any], plan: PublishPlan, *, actor: str, pm: Any,
                  approval: gate.Approval) -> dict[str, Any]:
    """Record the publish: backup push, new SKILL.md (through the install gate), registry update, audit event."""
    tx = state.tx
    cid = str(record["candidate_id"])
    name = plan.name
    if plan.current is not None:
        backup = backups.push_file(tx, name, plan.current, plan.info.version)
    else:
        backup = backups.push_tombstone(tx, name, cid, clock.utc_timestamp(), "first publication")
    text, warnings = compose(plan.draft, name=name, version=plan.version, candidate_id=cid,
                             source_summary=str(record.get("source_summary") or ""),
                             deprecate=record.get("change_type") == "deprecate_skill")
    a = plan.assessment
    verdict = gate.Verdict(f"{name} v{plan.version}", "evolver", a.decision, a.effective, tuple(a.rule_ids),
                           tuple(a.reasons))
    gate.Gate(pm).admit(verdict, approval, lambda: tx.write_text(skill_file(name), text))
    before = str(record.get("status"))
    record.update({
        "status": "published", "published_version": plan.version, "published_name": name,
        "promotion_channel": plan.channel, "publish_effect": f"Published {name} v{plan.version}",
        "risk_level": plan.assessment.effective, "risk_rule_ids": list(plan.assessment.rule_ids),
    })
    if not record.get("approved_at"):
        record["approved_at"] = clock.utc_timestamp()
    state.changed(record, "publish", before)
    old_text = plan.current.decode("utf-8", "replace") if plan.current is not None else ""
    ev = audit.event("candidate_published", record=record, status_before=before, status_after="published",
                     actor=actor, subject=cid, backup_path=rel(backup),
                     diff_summary=diff_summary(old_text, text), publish_result=f"wrote ./{skill_file(name)}")
    audit_path = audit.write(tx, ev)
    return {"skill_name": name, "backup_path": rel(backup), "audit_path": rel(audit_path),
            "published_version": plan.version, "promotion_channel": plan.channel, "warnings": warnings,
            "status_before": before}


def rollback(state: State, name: str) -> dict[str, Any]:
    tx = state.tx
    name = normalize_skill_name(name)
    current, info, _exists = target_state(state, name)
    if current is not None and not info.managed:
        raise EvolverError("UNMANAGED_TARGET", f"./skills/{name}/SKILL.md lacks the managed-by: skill-evolver "
                           "marker; the evolver never touches it")
    if not backups.entries(tx, name):
        raise EvolverError("BACKUP_NOT_FOUND", f"no backup of {name} to roll back to "
                           f"(./{backups.stack_dir(name)}/ is empty)")
    safety = backups.safety_copy(tx, name, current, info.version) if current is not None else None
    popped = backups.pop(tx, name)
    assert popped is not None
    src, content, moved_to = popped
    warnings: list[str] = []
    if content is not None:
        tx.write(skill_file(name), content)
        restored = managed_info(content).version
        effect = f"rolled back to managed version {restored}"
    else:
        if current is not None:
            tx.delete(skill_file(name))
        tx.rmdir(skill_dir(name))
        leftovers = [p.name for p in (state.workspace / skill_dir(name)).glob("*") if p.name != "SKILL.md"]
        if leftovers:
            warnings.append(f"./{skill_dir(name)} keeps files the evolver does not manage: {', '.join(leftovers[:5])}")
        effect = "unpublished (first publication rolled back)"
    record = state.latest_published(name)
    before = after = None
    if record is not None:
        before = str(record.get("status"))
        record.update({"status": "rolled_back", "rollback_of": "./" + src, "publish_effect": effect})
        after = "rolled_back"
        state.changed(record, "rollback", before)
    else:
        warnings.append(f"no published record for {name}; the file was restored without a registry change")
    ev = audit.event("skill_rolled_back", record=record, status_before=before, status_after=after, actor="user",
                     subject=name, backup_path=rel(src), restored_entry=rel(moved_to), safety_copy_path=rel(safety),
                     publish_effect=effect, published_name=name)
    audit_path = audit.write(tx, ev)
    return {"record": record, "skill_name": name, "status_before": before, "status_after": after,
            "backup_path": rel(src), "audit_path": rel(audit_path), "message": f"{name}: {effect}",
            "safety_copy_path": rel(safety), "warnings": warnings}


def promote(state: State, name: str) -> dict[str, Any]:
    tx = state.tx
    main = main_name(normalize_skill_name(name))
    check_skill_name(main, allow_canary=False)
    canary = canary_name(main)
    content, info, _ = target_state(state, canary)
    if content is None:
        raise EvolverError("TARGET_NOT_FOUND", f"./skills/{canary}/SKILL.md does not exist; nothing to promote")
    if not info.managed:
        raise EvolverError("UNMANAGED_TARGET", f"./skills/{canary}/SKILL.md lacks the managed-by marker")
    record = state.latest_published(canary)
    if record is None or record.get("promotion_channel") != "canary":
        raise EvolverError("NOT_A_CANARY", f"{canary} has no published canary record to promote",
                           blocking_record=record)
    current, main_info, main_exists = target_state(state, main)
    if main_exists and not main_info.managed:
        raise EvolverError("UNMANAGED_TARGET", f"./skills/{main} exists without the managed-by marker; the evolver "
                           "never touches it")
    blocking = state.open_for_target(canary)
    if blocking is not None:
        raise EvolverError("DUPLICATE_TARGET_SKILL", f"candidate {blocking['candidate_id']} is open for {canary}; "
                           "finish or reject it first", blocking_record=blocking)
    cid = str(record["candidate_id"])
    version = next_version(state, main, main_info)
    if current is not None:
        backup = backups.push_file(tx, main, current, main_info.version)
    else:
        backup = backups.push_tombstone(tx, main, cid, clock.utc_timestamp(), "first publication (canary promotion)")
    tx.write_text(skill_file(main), retarget(content, name=main, version=version, candidate_id=cid))
    backups.push_file(tx, canary, content, info.version)
    tx.delete(skill_file(canary))
    tx.rmdir(skill_dir(canary))
    before = str(record.get("status"))
    record.update({"promotion_channel": "main", "published_name": main, "published_version": version,
                   "publish_effect": f"Promoted {canary} to {main} v{version}", "promoted_at": clock.utc_timestamp()})
    state.changed(record, "promote_canary", before)
    ev = audit.event("canary_promoted", record=record, status_before=before, status_after="published", actor="user",
                     subject=cid, backup_path=rel(backup))
    audit_path = audit.write(tx, ev)
    return {"record": record, "skill_name": main, "status_before": before, "status_after": "published",
            "backup_path": rel(backup), "audit_path": rel(audit_path), "published_version": version,
            "message": f"Promoted {canary} to {main} v{version}"}

