"""Dedupe advice (§10.2): prefer patching a published skill, then merging into an open candidate, then creating.

Enforcement lives in the operations (one open candidate per target, ``SHOULD_PATCH_EXISTING``);
this module gives the agent the deterministic overlap figures behind the preference, so the
``dedupe_basis`` it records says why.
"""

from __future__ import annotations

import re
from typing import Any

from .journal import read_regular
from .names import SKILLS_DIR
from .record import OPEN_STATUSES
from .skillfile import managed_info
from .state import State

_SECTIONS = ("use this skill when", "trigger signals", "standard steps", "required tools")
_WORD = re.compile(r"[a-z0-9]{3,}")
PATCH_AT = 0.5
ADJACENT_AT = 0.25


def fingerprint(text: str) -> set[str]:
    """Words of the sections that describe scenario, triggers, steps and tools."""
    words: set[str] = set()
    current = None
    for line in text.lower().split("\n"):
        m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            current = m.group(1)
        elif current in _SECTIONS:
            words |= set(_WORD.findall(line))
    return words


def overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def suggest(state: State, target: str, draft: str) -> dict[str, Any]:
    mine = fingerprint(draft)
    published: list[tuple[float, str]] = []
    skills = state.workspace / SKILLS_DIR
    for entry in sorted(skills.glob("learned-*/SKILL.md")) if skills.is_dir() and not skills.is_symlink() else []:
        data = read_regular(entry, entry.relative_to(state.workspace).as_posix())
        if data is None:
            continue
        if managed_info(data).managed:
            published.append((overlap(mine, fingerprint(data.decode("utf-8", "replace"))), entry.parent.name))
    open_ = [(overlap(mine, fingerprint(state.draft(str(r["candidate_id"])))), str(r["candidate_id"]),
              str(r["target_skill"])) for r in state.records if r.get("status") in OPEN_STATUSES]
    if any(name == target for _, name in published):
        return _advice("patch_skill", target, None, 1.0, f"matched {target} by name")
    same = next((o for o in open_ if o[2] == target), None)
    if same is not None:
        return _advice("merge_candidate", target, same[1], 1.0, f"open candidate {same[1]} targets {target}")
    best_pub = max(published, default=(0.0, ""))
    best_open = max(open_, default=(0.0, "", ""))
    if best_pub[0] >= PATCH_AT:
        return _advice("patch_skill", best_pub[1], None, best_pub[0],
                       f"matched {best_pub[1]} on triggers+steps+tools ({best_pub[0]:.2f})")
    if best_open[0] >= PATCH_AT:
        return _advice("merge_candidate", best_open[2], best_open[1], best_open[0],
                       f"overlaps open candidate {best_open[1]} ({best_open[0]:.2f})")
    if best_pub[0] >= ADJACENT_AT:
        return _advice("patch_skill", best_pub[1], None, best_pub[0],
                       f"adjacent to {best_pub[1]} ({best_pub[0]:.2f}); patching keeps skills fewer and broader")
    return _advice("create_skill", target, None, max(best_pub[0], best_open[0]), f"new workflow: {target}")


def _advice(action: str, target: str, candidate: str | None, score: float, basis: str) -> dict[str, Any]:
    return {"action": action, "target_skill": target, "candidate_id": candidate, "score": round(score, 3),
            "dedupe_basis": basis}
