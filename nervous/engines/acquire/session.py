"""The durable state of one acquisition, so each step can run in a different process.

A host agent calls ``acquire``, asks its user, then ``approve`` with a token — possibly minutes
later and from another process. The session lives in the configured store (collection
``acquisitions``) and holds only entity-filtered words, never the raw task text.
"""

from __future__ import annotations

import secrets
from typing import Any

from attrs import field, frozen

from ...errors import NotFound, Refused, UsageError

COLLECTION = "acquisitions"
TOKEN_TTL = 15 * 60  # seconds an approval token stays valid
CLOCK_SKEW = 60  # seconds a token may seem to come from the future (clocks of cooperating processes differ)

#: states in which the session waits for an outcome report of its installed skill
WAITING_FOR_OUTCOME = ("installed", "retry", "awaiting_dependency", "awaiting_credentials")
#: states in which the session waits for an approval (or a cancel)
WAITING_FOR_APPROVAL = ("awaiting_approval", "reflex")
TERMINAL = ("done", "cancelled", "failed", "refused", "no_candidates", "retained")
#: states in which one process has claimed the session and is acting on it (installing, or learning
#: from an outcome and cleaning up); every other step is refused (``cancel`` waits) until it ends
IN_PROGRESS = ("installing", "reporting")
STEP_WAIT = 30  # seconds a cancel waits for a step in progress in another process to end
STALE_STEP = 600  # seconds after which a step in progress is taken as abandoned (its process died)
FINISHED_KEPT = 30 * 86400  # seconds a finished acquisition is kept (its status still answers), then deleted


def new_session_id() -> str:
    return secrets.token_hex(6)


def new_token(session_id: str) -> str:
    return f"{session_id}-{secrets.token_urlsafe(12)}"


def session_of(token: str) -> str:
    """The session id a token belongs to; a malformed token is refused as bad input."""
    if not isinstance(token, str) or "-" not in token or len(token) > 80:
        raise UsageError(f"{token!r} is not an approval token")
    sid = token.split("-", 1)[0]
    if len(sid) != 12 or any(c not in "0123456789abcdef" for c in sid):
        raise UsageError(f"{token!r} is not an approval token")
    return sid


def supersede_open_tokens(doc: dict[str, Any]) -> None:
    for tok in doc.get("tokens", {}).values():
        if not tok["used"]:
            tok["used"] = "superseded"


def issue_tokens(doc: dict[str, Any], indices: list[int], now: float) -> None:
    """Fresh single-use tokens bound to each candidate's exact ref, version and fingerprint."""
    supersede_open_tokens(doc)
    for cand in doc.get("candidates", []):
        cand.pop("token", None)
    for i in indices:
        cand = doc["candidates"][i]
        token = new_token(doc["id"])
        doc.setdefault("tokens", {})[token] = {
            "candidate": i, "ref": cand["ref"], "version": cand["version"], "fingerprint": cand["fingerprint"],
            "content": cand.get("content"), "issued_at": now, "expires_at": now + TOKEN_TTL, "used": False,
        }
        cand["token"] = token


def redeem(doc: dict[str, Any], token: str, now: float) -> dict[str, Any]:
    """Mark ``token`` used (inside the session's transaction) and return what it approves.

    Unknown, used, superseded and expired tokens are refused: silence or a stale token is never
    approval. A token whose candidate changed since it was issued is refused too.
    """
    record = doc.get("tokens", {}).get(token)
    if record is None:
        raise NotFound("unknown approval token: it does not belong to this acquisition", code="invalid_token")
    if record["used"] == "superseded":
        raise Refused("this approval token was superseded by a later step of the acquisition", code="invalid_token")
    if record["used"]:
        raise Refused("this approval token was already used; tokens are single-use", code="invalid_token")
    if now > record["expires_at"]:
        raise Refused("this approval token has expired; run the acquisition again", code="token_expired")
    # a clock set back would otherwise stretch a token's life by as much as it went back
    if now < record.get("issued_at", record["expires_at"] - TOKEN_TTL) - CLOCK_SKEW:
        raise Refused("this approval token was issued later than the current time (the clock went back); "
                      "run the acquisition again", code="token_expired")
    cand = doc["candidates"][record["candidate"]]
    if (cand["ref"], cand["version"], cand["fingerprint"]) != (record["ref"], record["version"],
                                                                  record["fingerprint"]):
        raise Refused("this approval token was issued for a different version of the candidate",
                      code="invalid_token")
    record["used"] = True
    return dict(record)


@frozen
class AcquireState:
    """One step's answer: the session document as an agent sees it, with the next allowed actions."""

    session: str
    state: str
    message: str
    next: tuple[str, ...] = ()
    data: dict[str, Any] = field(factory=dict)
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"schema": "nervous.acquire.v1", "session": self.session, "state": self.state,
                "message": self.message, "next": list(self.next), **self.data, "warnings": list(self.warnings)}


#: where a session document of the wrong shape is set aside (kept verbatim, for a person to read)
QUARANTINE = "acquisitions-quarantine"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _index_problem(value: Any, count: int, where: str) -> str | None:
    if not _is_int(value) or not 0 <= value < count:
        return f"{where} is {value!r}, not the index of one of the {count} candidate(s)"
    return None


def shape_problem(doc: Any) -> str | None:  # noqa: C901  (one flat list of checks reads best)
    """Why a stored session document cannot be used (``None`` when its shape is right).

    Every step indexes the document directly (``candidates[installed.candidate]``, ``attempts.append``),
    so a document edited by hand into another shape would otherwise fail mid-step, possibly after the
    cortex learned; such a document is set aside instead (see :data:`QUARANTINE`).
    """
    if not isinstance(doc, dict):
        return f"the document is a JSON {type(doc).__name__}, not an object"
    for key, kind, ok in (("id", "a string", lambda v: isinstance(v, str) and v),
                          ("state", "a string", lambda v: isinstance(v, str)),
                          ("region", "a string", lambda v: isinstance(v, str)),
                          ("mode", "a string", lambda v: isinstance(v, str)),
                          ("hit", "true or false", lambda v: isinstance(v, bool)),
                          ("candidates", "a list", lambda v: isinstance(v, list)),
                          ("tokens", "an object", lambda v: isinstance(v, dict)),
                          ("attempts", "a list", lambda v: isinstance(v, list)),
                          ("keywords", "a list", lambda v: isinstance(v, list)),
                          ("task_words", "a list", lambda v: isinstance(v, list)),
                          ("lessons", "a list", lambda v: isinstance(v, list)),
                          ("api_retries", "a whole number", _is_int),
                          ("updated_at", "a number", _is_number)):
        if key not in doc or not ok(doc[key]):
            return f"{key!r} is {'missing' if key not in doc else repr(doc[key])[:60]}, expected {kind}"
    for key, kind, ok in (("switches", "a whole number", _is_int), ("approved", "a list", lambda v: isinstance(v, list)),
                          ("registries", "a list", lambda v: isinstance(v, list)),
                          ("plan", "an object or null", lambda v: v is None or isinstance(v, dict)),
                          ("extra", "an object", lambda v: isinstance(v, dict)),
                          ("next", "a list", lambda v: isinstance(v, list)),
                          ("message", "a string", lambda v: isinstance(v, str))):
        if key in doc and not ok(doc[key]):
            return f"{key!r} is {repr(doc[key])[:60]}, expected {kind}"
    cands = doc["candidates"]
    for i, cand in enumerate(cands):
        if not isinstance(cand, dict):
            return f"candidates[{i}] is not an object"
        for key in ("name", "ref", "decision"):
            if not isinstance(cand.get(key), str):
                return f"candidates[{i}].{key} is {cand.get(key)!r}, expected a string"
        for key in ("tags", "reasons"):
            if key in cand and not isinstance(cand[key], list):
                return f"candidates[{i}].{key} is {cand[key]!r}, expected a list"
    for token, record in doc["tokens"].items():
        if not isinstance(record, dict):
            return f"token {token[:20]!r} is not an object"
        problem = _index_problem(record.get("candidate"), len(cands), f"token {token[:20]!r} candidate")
        if problem:
            return problem
        if not isinstance(record.get("used"), bool | str) or not _is_number(record.get("expires_at")):
            return f"token {token[:20]!r} has no valid 'used' flag or expiry"
    for i, attempt in enumerate(doc["attempts"]):
        if not isinstance(attempt, dict):
            return f"attempts[{i}] is not an object"
        problem = _index_problem(attempt.get("candidate"), len(cands), f"attempts[{i}].candidate")
        if problem:
            return problem
    for i, index in enumerate(doc.get("approved", [])):
        problem = _index_problem(index, len(cands), f"approved[{i}]")
        if problem:
            return problem
    inst = doc.get("installed")
    if inst is not None:
        if not isinstance(inst, dict):
            return f"'installed' is {repr(inst)[:60]}, expected an object or null"
        problem = _index_problem(inst.get("candidate"), len(cands), "installed.candidate")
        if problem:
            return problem
        if not isinstance(inst.get("slug"), str) or not inst["slug"]:
            return f"installed.slug is {inst.get('slug')!r}, expected a string"
    return None
