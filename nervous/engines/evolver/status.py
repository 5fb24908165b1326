"""The status machine (§4): which operation may move a candidate from which status, and to where.

Every guard goes through :func:`transition`; a refused move raises before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import EvolverError
from .record import OPEN_STATUSES

#: operation -> (allowed source statuses, target status; ``None`` = unchanged)
TRANSITIONS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "approve": (("pending_review",), "approved"),
    "reject": (OPEN_STATUSES, "rejected"),
    "revise_suggestions": (OPEN_STATUSES, "revision_requested"),
    "revise_draft": (OPEN_STATUSES, "pending_review"),
    "update_draft": (("revision_requested",), "pending_review"),
    "merge_source": (OPEN_STATUSES, "merged"),
    "merge_target": (OPEN_STATUSES, None),
    "publish": (("approved",), "published"),
    "publish_direct": (("pending_review", "approved"), "published"),
    "rollback": (("published",), "rolled_back"),
    "promote_canary": (("published",), "published"),
}


def transition(operation: str, record: Mapping[str, Any]) -> str:
    """The status after ``operation``, or the spec's error when the current status forbids it."""
    allowed, target = TRANSITIONS[operation]
    status = str(record.get("status"))
    cid = record.get("candidate_id")
    if status in allowed:
        return status if target is None else target
    if operation in ("publish", "publish_direct") and status == "revision_requested":
        raise EvolverError("CANDIDATE_NOT_APPROVED", f"candidate {cid} is waiting for a revised draft "
                           "(revision_requested); update the draft and approve it before publishing",
                           blocking_record=dict(record))
    if operation == "publish" and status == "pending_review":
        raise EvolverError("CANDIDATE_NOT_APPROVED", f"candidate {cid} is pending review; approve it first or "
                           f"publish with the user's confirmed command 'publish candidate {cid}'",
                           blocking_record=dict(record))
    code = "INVALID_TARGET_STATUS" if operation == "merge_target" else "INVALID_SOURCE_STATUS"
    raise EvolverError(code, f"cannot {operation.replace('_', ' ')} candidate {cid}: its status is {status} "
                       f"(allowed from: {', '.join(allowed)})", blocking_record=dict(record))
