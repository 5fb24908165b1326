"""An explicit install of one named skill, gated by the same approval token as an acquisition.

Why not install directly: a host (the MCP server, an agent loop) must never approve on the user's
behalf. A request vets the skill exactly as an acquisition vets a search hit (registry gates,
in-memory fetch, integrity, our scan) and stores a one-candidate acquisition session holding a
single-use token. Installing needs :meth:`nervous.acquire.Acquirer.approve` with that token, so the
plan, dependency checks, ``done`` reporting, learning and clean-up are the acquisition loop's.
"""

from __future__ import annotations

from typing import Any

from . import clock
from .errors import UsageError
from .records import SkillRef


def request_install(acquirer: Any, reference: str, *, version: str | None = None,
                    task: str | None = None) -> Any:
    """Vet ``reference`` and return an ``awaiting_approval`` (or ``refused``) acquisition state.

    ``task`` (optional) is what the skill is wanted for; it decides the cortex region the outcome
    is learned under. Without it the skill's own summary is used.
    """
    from .acquire import session as S
    from .cortex.entities import TaskText, extract_signals, filter_words

    if not isinstance(reference, str) or not reference.strip():
        raise UsageError("install needs a skill reference such as @owner/slug or github:owner/repo")
    if task is not None and (not isinstance(task, str) or not task.strip()):
        raise UsageError("task, when given, must be a non-empty description")
    ref = SkillRef.parse(reference.strip())
    if version:
        if ref.registry == "github":
            raise UsageError("github references pin a commit with @sha, not a version")
        ref = SkillRef(ref.name, ref.owner, ref.registry, ref.path, version)
    now = clock.now()
    warnings: list[str] = []
    candidate = acquirer._vet(ref, warnings)
    candidate["index"] = 0
    about = task.strip() if task else (candidate.get("summary") or candidate["name"])
    perception = acquirer.cortex.perceive(about)
    warnings += [w for w in perception.warnings if w not in warnings]
    text = TaskText(about)
    doc: dict[str, Any] = {
        "id": S.new_session_id(), "created_at": now, "updated_at": now, "hit": perception.hit,
        "region": perception.region if perception.hit else (perception.proposed_region or "general"),
        "keywords": list(perception.keywords or extract_signals(about, 5)),
        "task_words": list(filter_words([t.text for t in text.plain], text, cap=None).kept),
        "mode": "standard", "switches": 0, "attempts": [], "api_retries": 0, "installed": None,
        "tokens": {}, "lessons": list(perception.lessons), "registries": [], "candidates": [candidate],
        "request": {"kind": "install", "reference": reference.strip(), "version": version},
    }
    if candidate["decision"] == "refuse":
        return acquirer._finish(doc, "refused", f"{candidate['name']} cannot be installed: "
                                + ("; ".join(candidate["reasons"]) or "refused by policy"), warnings)
    S.issue_tokens(doc, [0], now)
    message = (f"{candidate['name']} v{candidate['version']} was vetted ({candidate['decision']}, risk "
               f"{candidate['risk']}); it is installed only with the user's explicit approval")
    if candidate["needs_confirmation"]:
        message += "; the registry flags it suspicious: approving it also needs confirm_suspicious"
    return acquirer._save(doc, "awaiting_approval", message, ("approve", "cancel"), warnings)


__all__ = ["request_install"]
