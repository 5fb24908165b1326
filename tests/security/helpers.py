"""Builders for inert test skills (text only, never executed)."""

from __future__ import annotations

from typing import Any

from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef

FRONT = "---\nname: {name}\ndescription: {description}\n{extra}---\n"


def skill_md(body: str, *, name: str = "demo-tool", description: str = "Formats reports for the user.",
             extra: str = "") -> str:
    return FRONT.format(name=name, description=description, extra=extra) + body


def bundle(files: dict[str, str | bytes], *, name: str = "demo-tool") -> SkillBundle:
    if "SKILL.md" not in files:
        files = {"SKILL.md": skill_md("# Demo\n"), **files}
    out = []
    for path, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        out.append(SkillFile(path, data))
    return SkillBundle(ref=SkillRef(name), files=tuple(out))


def scan(pm: Any, files: dict[str, str | bytes], *, purpose: str = "install", **ctx: Any) -> Any:
    from nervous.engines.scan.engine import scan_bundle

    return scan_bundle(pm, bundle(files), ScanContext(purpose=purpose, **ctx))  # type: ignore[arg-type]


def rule_ids(result: Any) -> set[str]:
    return {f.rule_id for f in result.findings}


def actions(result: Any, rule_id: str) -> set[str]:
    return {f.action for f in result.findings if f.rule_id == rule_id}
