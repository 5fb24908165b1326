"""Repairing or dropping quarantined goals (specs/goals.md §8.6: "a human must repair or drop it").

A quarantined goal is kept verbatim until a person acts. ``repair`` puts it back among the goals,
from its stored value or from a corrected one, only if it now loads as a goal; ``drop`` discards
it and remembers its id so the id is never handed out again.
"""

from __future__ import annotations

from typing import Any

from .actions import Ctx
from .document import GoalFile, quarantine_reason
from .errors import GoalError, invalid_arg
from .model import Goal, parse_goal

#: ``GoalFile.extra`` key listing ids no longer in use (dropped or archived), so they are never reused
RETIRED = "retired_goal_ids"


def plain(text: Any, limit: int = 200) -> str:
    """Stored text made safe for a table cell: no control characters, no ``|``, bounded."""
    s = "".join(c if c.isprintable() else "?" for c in str(text)).replace("|", "/")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def entries(gf: GoalFile) -> dict[str, dict[str, Any]]:
    """Every quarantined goal, stored or found on this load (``pending``)."""
    out: dict[str, dict[str, Any]] = {}
    for gid, entry in gf.quarantined_goals.items():
        out[gid] = entry if isinstance(entry, dict) else {"raw": entry, "reason": "unknown reason"}
    for gid, entry in gf.pending_quarantine.items():
        out[gid] = {**entry, "pending": True}
    return out


def _take(gf: GoalFile, goal_id: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(goal_id, str) or not goal_id.strip():
        raise invalid_arg("goal_id: the id of a quarantined goal is required")
    gid = goal_id.strip()
    found = entries(gf).get(gid)
    if found is None:
        known = ", ".join(sorted(entries(gf))) or "none"
        raise GoalError("not_found", f"goal {gid} is not quarantined (quarantined: {known})")
    return gid, found


def _forget(gf: GoalFile, gid: str) -> None:
    gf.quarantined_goals.pop(gid, None)
    gf.pending_quarantine.pop(gid, None)


def repair(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, goal: Any = None) -> Goal:
    """Restore a quarantined goal, from ``goal`` (a corrected object) or from its stored value."""
    gid, entry = _take(gf, goal_id)
    raw = entry.get("raw") if goal is None else goal
    if gid in gf.goals:
        raise GoalError("exists", f"goal {gid} exists already; drop the quarantined copy instead")
    reason = quarantine_reason(raw)
    if reason is not None:
        raise invalid_arg(f"goal {gid} still cannot be loaded: {reason}; pass the corrected goal object "
                          "(with a string 'prompt' and an object 'intent')")
    assert isinstance(raw, dict)
    dates = {"created_at": entry.get("quarantined_at") or ctx.now, "updated_at": ctx.now}
    restored = parse_goal({**dates, **raw, "id": gid}, f"goals.{gid}", ctx.warn)
    restored.id = gid
    gf.goals[gid] = restored
    _forget(gf, gid)
    return restored


def drop(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None) -> dict[str, Any]:
    """Discard a quarantined goal; its id stays reserved."""
    gid, entry = _take(gf, goal_id)
    _forget(gf, gid)
    dropped = gf.extra.get(RETIRED)
    ids = [i for i in dropped if isinstance(i, str)] if isinstance(dropped, list) else []
    gf.extra[RETIRED] = sorted({*ids, gid})
    return {"goal_id": gid, "reason": entry.get("reason", "unknown reason")}


__all__ = ["plain", "entries", "repair", "drop", "RETIRED"]
