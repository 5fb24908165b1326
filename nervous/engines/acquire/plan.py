"""The execution plan handed to the agent: what the installed skill does and what it needs.

Built only by reading the installed ``SKILL.md``; nothing in the skill is executed. Dependency
pre-checks look at names only: a binary on ``PATH``, an environment variable set — never a value.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

from ...kernel.skillmd import parse_skill_md

_STEP_RE = re.compile(r"^\s*(?:\d+[.)]|[-*])\s+(.*\S)\s*$")
_HEADING_RE = re.compile(r"^#{2,3}\s+(.*\S)\s*$")
MAX_STEPS = 8


def step_summary(body: str) -> list[str]:
    """The body's numbered steps in order (its headings when it has none), at most :data:`MAX_STEPS`."""
    steps: list[str] = []
    headings: list[str] = []
    in_code = False
    for line in body.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = _HEADING_RE.match(line)
        step = _STEP_RE.match(line) if re.match(r"^\s*\d+[.)]", line) else None
        for m, into in ((heading, headings), (step, steps)):
            if m:
                text = re.sub(r"[*_`]", "", m.group(1)).strip()
                if text and text not in into:
                    into.append(text[:120])
    return (steps or headings)[:MAX_STEPS]


def dependency_checks(doc: Any) -> dict[str, Any]:
    bins = {b: shutil.which(b) is not None for b in doc.required_bins}
    any_bins = {b: shutil.which(b) is not None for b in doc.required_any_bins}
    env = {name: bool(os.environ.get(name)) for name in doc.required_env}
    if doc.primary_env and doc.primary_env not in env:
        env[doc.primary_env] = bool(os.environ.get(doc.primary_env))
    missing_bins = [b for b, ok in bins.items() if not ok]
    if any_bins and not any(any_bins.values()):
        missing_bins.append(" or ".join(any_bins))
    return {
        "bins": bins,
        "any_bins": any_bins,
        "env": env,
        "missing_bins": missing_bins,
        "missing_env": [n for n, ok in env.items() if not ok],
        "ok": not missing_bins and all(env.values()),
    }


def build_plan(skill_dir: Path, candidate: dict[str, Any], lessons: list[dict[str, Any]]) -> dict[str, Any]:
    path = skill_dir / "SKILL.md"
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    doc = parse_skill_md(text)
    return {
        "skill": candidate["name"],
        "version": candidate["version"],
        "path": str(skill_dir),
        "description": doc.description or candidate.get("summary", ""),
        "steps": step_summary(doc.body),
        "icons": candidate.get("icons", ""),
        "classes": candidate.get("classes", []),
        "side_effects": candidate.get("tags", []),
        "lessons": lessons,
        "dependencies": dependency_checks(doc),
        "skill_md_chars": len(text),
    }
