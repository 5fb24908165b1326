"""Audit events (§10.3): one JSON file per action, never overwritten, written inside the action's transaction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kernel import clock
from .journal import Transaction
from .names import STATE_DIR, slugify
from .stamps import sort_key, stamp

AUDIT_DIR = f"{STATE_DIR}/audit"

EVENT_TYPES: tuple[str, ...] = (
    "candidate_created", "candidate_merged", "candidate_approved", "candidate_rejected", "candidate_revised",
    "candidate_published", "skill_rolled_back", "mode_changed", "candidate_draft_updated", "candidate_refused",
    "canary_promoted", "journal_recovered", "state_repaired",
)

_RECORD_KEYS = ("matched_rules", "dedupe_basis", "diff_summary", "failure_reason", "publish_effect",
                "autonomy_mode", "promotion_channel")


def event(event_type: str, *, record: Mapping[str, Any] | None = None, status_before: str | None,
          status_after: str | None, actor: str = "user", decision_reason: str | None = None,
          subject: str | None = None, **extra: Any) -> dict[str, Any]:
    """An audit event; fields the record holds are copied from it unless given explicitly."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown audit event type {event_type!r}")
    rec = dict(record or {})
    out: dict[str, Any] = {
        "event_type": event_type,
        "timestamp": clock.utc_timestamp(),
        "candidate_id": rec.get("candidate_id"),
        "target_skill": rec.get("target_skill"),
        "status_before": status_before,
        "status_after": status_after,
        "decision_reason": decision_reason,
    }
    for key in _RECORD_KEYS:
        out[key] = rec.get(key)
    if rec.get("review_suggestions"):
        out["review_suggestions"] = rec.get("review_suggestions")
    out["actor"] = actor
    if rec.get("published_name"):
        out["published_name"] = rec.get("published_name")
    if rec.get("risk_rule_ids"):
        out["risk_rule_ids"] = rec.get("risk_rule_ids")
    out.update({k: v for k, v in extra.items()})
    out["_subject"] = subject or rec.get("candidate_id") or rec.get("published_name") or "config"
    return out


def write(tx: Transaction, ev: dict[str, Any]) -> str:
    """Add the event to the transaction under a fresh, ordered name; returns its workspace path."""
    subject = slugify(str(ev.pop("_subject", "config"))) or "config"
    ev["tx_id"] = tx.id
    existing = tx.listdir(AUDIT_DIR)
    now = stamp()
    newest = max((sort_key(n) for n in existing), default=("", 0, ""))
    base, seq = (now, 0) if newest[0] < now else (newest[0], max(newest[1], 0) + 1)
    taken = set(existing)
    while True:
        name = f"{base}{f'-{seq}' if seq else ''}-{ev['event_type']}-{subject}.json"
        if name not in taken:
            break
        seq += 1
    rel = f"{AUDIT_DIR}/{name}"
    tx.write_json(rel, ev)
    return rel


def list_events(tx: Transaction) -> list[str]:
    return sorted((n for n in tx.listdir(AUDIT_DIR) if n.endswith(".json")), key=sort_key)
