"""The registry record: the 23 original fields in order, extensions, and the status vocabulary (§3–§4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: the original record fields, in the original order
FIELDS: tuple[str, ...] = (
    "candidate_id", "status", "source_summary", "signal_type", "signal_count", "target_skill", "change_type",
    "risk_level", "dedupe_basis", "merged_into", "matched_rules", "source_tools", "diff_summary",
    "failure_reason", "review_suggestions", "revision_count", "created_at", "approved_at",
    "published_version", "rollback_of", "publish_effect", "autonomy_mode", "promotion_channel",
)
#: nervous's optional additions, written after the original fields
EXTENSIONS: tuple[str, ...] = (
    "updated_at", "declared_risk_level", "risk_rule_ids", "draft_sha256", "published_name", "promoted_at",
)

STATUSES: tuple[str, ...] = (
    "pending_review", "revision_requested", "approved", "published", "rejected", "merged", "rolled_back",
)
OPEN_STATUSES: tuple[str, ...] = ("pending_review", "revision_requested", "approved")
TERMINAL_STATUSES: tuple[str, ...] = ("rejected", "merged", "rolled_back")
CHANGE_TYPES: tuple[str, ...] = ("create_skill", "patch_skill", "deprecate_skill")
RISK_LEVELS: tuple[str, ...] = ("low", "medium", "high")
MODES: tuple[str, ...] = ("manual", "assisted", "autonomous")
SIGNAL_TYPES: tuple[str, ...] = ("multi_tool_success", "user_correction", "repeated_request", "recovered_failure")
CHANNELS: tuple[str, ...] = ("main", "canary")

_DEFAULTS: dict[str, Any] = {
    "status": "pending_review", "dedupe_basis": "new workflow candidate", "merged_into": None,
    "matched_rules": [], "source_tools": [], "diff_summary": "initial candidate draft", "failure_reason": None,
    "review_suggestions": [], "revision_count": 0, "approved_at": None, "published_version": None,
    "rollback_of": None, "publish_effect": None, "autonomy_mode": "manual", "promotion_channel": None,
}


def risk_rank(level: str) -> int:
    return RISK_LEVELS.index(level) if level in RISK_LEVELS else len(RISK_LEVELS)


def max_risk(*levels: str) -> str:
    return max(levels, key=risk_rank)


def ordered(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record with the original fields first, then the extensions, then unknown fields as found."""
    out: dict[str, Any] = {k: record[k] for k in FIELDS if k in record}
    out.update({k: record[k] for k in EXTENSIONS if k in record})
    out.update({k: v for k, v in record.items() if k not in out})
    return out


def complete(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record read from older state with every original field present (missing ones defaulted)."""
    out = dict(record)
    for key in FIELDS:
        if key not in out:
            default = _DEFAULTS.get(key)
            out[key] = list(default) if isinstance(default, list) else default
    return ordered(out)


def summary_line(record: Mapping[str, Any]) -> str:
    text = str(record.get("source_summary") or "").strip().splitlines()
    line = text[0] if text else ""
    return line if len(line) <= 120 else line[:119] + "…"


def merge_notes(record: Mapping[str, Any]) -> list[str]:
    """Merge and dedupe notes a reviewer must see (§10.2)."""
    notes = [s for s in record.get("review_suggestions") or [] if isinstance(s, str) and s.startswith("Merged ")]
    if record.get("merged_into"):
        notes.insert(0, f"merged into {record['merged_into']}")
    basis = record.get("dedupe_basis")
    if basis and basis != _DEFAULTS["dedupe_basis"]:
        notes.append(f"dedupe: {basis}")
    return notes
