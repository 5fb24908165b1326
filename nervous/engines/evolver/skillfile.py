"""Published managed skills (§8.1 step 7): markers in the frontmatter, the draft body unchanged."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from attrs import frozen

MANAGED_BY = "skill-evolver"
MARKER_KEYS = ("managed-by", "managed-version", "published-from-candidate")
_DEPRECATION_KEYS = ("disable-model-invocation", "managed-deprecated")


@frozen
class ManagedInfo:
    """What an existing ``SKILL.md`` says about its ownership."""

    managed: bool
    version: int | None
    candidate_id: str | None


def split_draft(draft: str) -> tuple[dict[str, Any], str]:
    """The draft's frontmatter (ordered) and its body, exactly as written after the closing ``---``."""
    from ...kernel.skillmd import parse_skill_md

    text = draft.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r").strip() == "---"), None)
    if end is None:
        return {}, text
    doc = parse_skill_md(text)
    body = "\n".join(lines[end + 1:])
    return dict(doc.frontmatter), body


def managed_info(content: bytes | None) -> ManagedInfo:
    if content is None:
        return ManagedInfo(False, None, None)
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return ManagedInfo(False, None, None)
    front, _ = split_draft(text)
    if str(front.get("managed-by", "")).strip() != MANAGED_BY:
        # a frontmatter that YAML cannot read still counts when the marker line is literally there
        m = re.search(r"(?m)^managed-by:\s*['\"]?skill-evolver['\"]?\s*$", text.split("\n---", 1)[0])
        if not m:
            return ManagedInfo(False, None, None)
    version = front.get("managed-version")
    try:
        ver = int(version) if version is not None and not isinstance(version, bool) else None
    except (TypeError, ValueError):
        ver = None
    cand = front.get("published-from-candidate")
    return ManagedInfo(True, ver, str(cand) if cand is not None else None)


def first_sentence(text: str, limit: int = 1024) -> str:
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    out = m.group(1) if m else text
    return out[:limit]


def _yaml(data: Mapping[str, Any]) -> str:
    import yaml

    return str(yaml.safe_dump(dict(data), default_flow_style=False, sort_keys=False, allow_unicode=True, width=1000))


def compose(draft: str, *, name: str, version: int, candidate_id: str, source_summary: str,
            deprecate: bool = False) -> tuple[str, list[str]]:
    """The ``SKILL.md`` to publish and any warnings (marker keys in the draft are overridden)."""
    front, body = split_draft(draft)
    warnings = []
    overridden = [k for k in ("name", *MARKER_KEYS) if k in front and k != "name"]
    if overridden:
        warnings.append(f"the draft set {', '.join(overridden)}; the evolver's values were used instead")
    description = front.get("description")
    if not isinstance(description, str) or not description.strip():
        description = first_sentence(source_summary) or name
    head: dict[str, Any] = {"name": name, "description": description.strip()[:1024], "managed-by": MANAGED_BY,
                            "managed-version": version, "published-from-candidate": candidate_id}
    rest = {k: v for k, v in front.items() if k not in head and k not in _DEPRECATION_KEYS}
    if deprecate:
        rest["disable-model-invocation"] = True
        rest["managed-deprecated"] = True
    else:
        rest.update({k: v for k, v in front.items() if k in _DEPRECATION_KEYS})
    text = "---\n" + _yaml(head) + (_yaml(rest) if rest else "") + "---\n" + body
    return text, warnings


def retarget(content: bytes, *, name: str, version: int, candidate_id: str) -> str:
    """An existing managed file republished under another name (canary promotion)."""
    text = content.decode("utf-8")
    front, body = split_draft(text)
    head = {"name": name, "description": front.get("description") or name, "managed-by": MANAGED_BY,
            "managed-version": version, "published-from-candidate": candidate_id}
    rest = {k: v for k, v in front.items() if k not in head}
    return "---\n" + _yaml(head) + (_yaml(rest) if rest else "") + "---\n" + body
