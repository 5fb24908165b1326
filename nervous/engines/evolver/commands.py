"""The direct review commands (§11): exact forms, matched case-insensitively, mapped to tool parameters.

A command names an action; it does not confirm it. Approve, publish, rollback, promote and mode
changes need the same confirmation whatever the front end (``--yes``, ``user_confirmed``, or a
person's answer at a terminal or in an MCP form), so the parsed parameters never carry
``user_confirmed``: the front end adds it. Anything else is refused with the list of commands;
mapping free-form language to an action is the agent's job, not the parser's.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import EvolverError

COMMANDS: tuple[str, ...] = (
    "review skill candidates",
    "approve candidate <id>",
    "reject candidate <id> [because <reason>]",
    "revise candidate <id> with suggestions: <feedback>",
    "publish candidate <id> [as <name>]",
    "rollback skill <name>",
    "promote canary <name>",
    "show skill-evolver mode",
    "set skill-evolver mode <manual|assisted|autonomous>",
    "repair skill-evolver state",
)

_TOKEN = r"(\S+)"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.I | re.S), op) for p, op in (
    (r"review\s+skill\s+candidates", "list"),
    (rf"approve\s+candidate\s+{_TOKEN}", "approve"),
    (rf"reject\s+candidate\s+{_TOKEN}(?:\s+because\s+(.+))?", "reject"),
    (rf"revise\s+candidate\s+{_TOKEN}\s+with\s+suggestions:\s*(.*)", "revise"),
    (rf"publish\s+candidate\s+{_TOKEN}(?:\s+as\s+{_TOKEN})?", "publish"),
    (rf"rollback\s+skill\s+{_TOKEN}", "rollback"),
    (rf"promote\s+canary\s+{_TOKEN}", "promote"),
    (r"show\s+skill-evolver\s+mode", "get_mode"),
    (r"set\s+skill-evolver\s+mode\s+(\S+)", "set_mode"),
    (r"repair\s+skill-evolver\s+state", "repair"),
))


def help_text() -> str:
    return "Commands:\n" + "\n".join(f"  {c}" for c in COMMANDS)


def parse_command(text: object) -> dict[str, Any]:
    """Tool parameters for one direct command, or ``UNSUPPORTED_OPERATION`` listing the commands."""
    line = text.strip() if isinstance(text, str) else ""
    for pattern, op in _PATTERNS:
        m = pattern.fullmatch(line)
        if m is None:
            continue
        g = m.groups()
        if op == "list":
            return {"operation": "list_candidates"}
        if op == "approve":
            return {"operation": "review_candidate", "candidate_id": g[0], "decision": "approve"}
        if op == "reject":
            reason = (g[1] or "").strip() or "rejected by the user"
            return {"operation": "review_candidate", "candidate_id": g[0], "decision": "reject",
                    "failure_reason": reason}
        if op == "revise":
            feedback = g[1].strip()
            if not feedback:
                raise EvolverError("MISSING_REVISION_INPUT", "revise candidate <id> with suggestions: <feedback> "
                                   "needs the feedback after the colon")
            return {"operation": "review_candidate", "candidate_id": g[0], "decision": "revise",
                    "suggestions": [feedback]}
        if op == "publish":
            params: dict[str, Any] = {"operation": "publish_candidate", "candidate_id": g[0]}
            if g[1]:
                params["publish_as"] = g[1]
            return params
        if op == "rollback":
            return {"operation": "rollback_skill", "skill_name": g[0]}
        if op == "promote":
            return {"operation": "promote_canary", "skill_name": g[0]}
        if op == "get_mode":
            return {"operation": "get_mode"}
        if op == "set_mode":
            mode = g[0].lower()
            if mode not in ("manual", "assisted", "autonomous"):
                raise EvolverError("INVALID_MODE", f"mode {g[0]!r} is not one of manual, assisted, autonomous")
            return {"operation": "set_mode", "autonomy_mode": mode}
        return {"operation": "repair_state"}
    shown = line if len(line) <= 80 else line[:77] + "..."
    raise EvolverError("UNSUPPORTED_OPERATION", f"not a skill-evolver command: {shown!r}\n{help_text()}",
                       details={"commands": list(COMMANDS)})
