"""The human-readable candidate file (§5.2) and the legacy parser for files without a sidecar (§5.3).

The rendering is never parsed when a sidecar exists; the draft sits in a fence one backtick longer
than any backtick run inside it, so nested fences survive. Legacy files are read greedily: the
draft ends at the *last* matching closing fence, because it is the last section of the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from attrs import define, field

from .record import FIELDS

_FENCE_OPEN_RE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[ \t]*([^`\n]*)$")


def fence_for(text: str) -> str:
    """Backticks one longer than the longest run in ``text`` (at least three)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _bullet(label: str, value: Any) -> str:
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value) if value else "none"
    elif value is None or value == "":
        value = "none"
    return f"- {label}: {value}"


def render_candidate(record: Mapping[str, Any], draft: str) -> str:
    lines = ["---"]
    for key in FIELDS:
        lines.append(f"{key}: {json.dumps(record.get(key), ensure_ascii=False)}")
    lines += ["---", "", f"# Candidate {record.get('candidate_id')}", "", "## Why This Was Learned", "",
              str(record.get("source_summary") or "").strip() or "(no summary)", "", "## Review Notes", ""]
    lines += [
        _bullet("scope", f"./skills/{record.get('published_name') or record.get('target_skill')}/SKILL.md"),
        _bullet("target", record.get("target_skill")),
        _bullet("change type", record.get("change_type")),
        _bullet("risk", record.get("risk_level")),
        _bullet("dedupe basis", record.get("dedupe_basis")),
        _bullet("matched rules", record.get("matched_rules")),
        _bullet("source tools", record.get("source_tools")),
        _bullet("diff summary", record.get("diff_summary")),
        _bullet("review suggestions", record.get("review_suggestions")),
        _bullet("autonomy mode", record.get("autonomy_mode")),
        _bullet("promotion channel", record.get("promotion_channel")),
    ]
    fence = fence_for(draft)
    body = draft if draft.endswith("\n") or not draft else draft + "\n"
    lines += ["", "## Proposed Skill Content", "", f"{fence}md"]
    return "\n".join(lines) + "\n" + body + fence + "\n"


@define
class LegacyCandidate:
    record: dict[str, Any]
    draft: str
    warnings: list[str] = field(factory=list)


def parse_legacy(text: str, source: str = "candidate file") -> LegacyCandidate:
    """Read an original candidate ``.md``: JSON-ish frontmatter lines and the fenced draft."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    record: dict[str, Any] = {}
    warnings: list[str] = []
    body_start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            warnings.append(f"{source}: frontmatter is not closed; read what was there")
            end = len(lines)
        for raw in lines[1:end]:
            key, sep, value = raw.partition(":")
            if not sep or not key.strip() or raw[:1].isspace():
                continue
            value = value.strip()
            try:
                record[key.strip()] = json.loads(value)
            except ValueError:
                record[key.strip()] = value
        body_start = end + 1
    draft = _legacy_draft(lines[body_start:])
    if draft is None:
        warnings.append(f"{source}: no fenced draft after '## Proposed Skill Content'; imported with an empty draft")
        draft = ""
    return LegacyCandidate(record, draft, warnings)


def _legacy_draft(lines: list[str]) -> str | None:
    heading = next((i for i, ln in enumerate(lines) if ln.strip().lower() == "## proposed skill content"), None)
    if heading is None:
        return None
    opening = None
    for i in range(heading + 1, len(lines)):
        m = _FENCE_OPEN_RE.match(lines[i])
        if m:
            opening = (i, m.group(1))
            break
    if opening is None:
        return None
    start, fence = opening
    char, size = fence[0], len(fence)
    close_re = re.compile(rf"^[ ]{{0,3}}{re.escape(char)}{{{size},}}[ \t]*$")
    close = next((i for i in range(len(lines) - 1, start, -1) if close_re.match(lines[i])), None)
    if close is None:  # truncated file: keep everything after the opening fence
        content = lines[start + 1:]
        while content and content[-1] == "":
            content.pop()
        return "\n".join(content) + ("\n" if content else "")
    return "\n".join(lines[start + 1:close]) + "\n"
