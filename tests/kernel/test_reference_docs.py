"""The plugin reference in docs/plugins/ is generated from the code and complete."""

from __future__ import annotations

from nervous.plugin import hookspecs, reference


def test_the_hook_reference_is_current() -> None:
    assert reference.HOOKS_DOC.read_text(encoding="utf-8") == reference.hooks_markdown(), (
        "docs/plugins/hooks.md is stale: run python -m nervous.plugin.reference --write")


def test_every_hook_is_documented() -> None:
    text = reference.HOOKS_DOC.read_text(encoding="utf-8")
    hooks = [n for n in dir(hookspecs) if n.startswith("nervous_")]
    assert hooks and all(f"## `{hook}`" in text for hook in hooks)
    assert all(getattr(hookspecs, hook).__doc__ for hook in hooks)


def test_the_record_reference_is_current_and_every_field_has_a_meaning() -> None:
    text = reference.RECORDS_DOC.read_text(encoding="utf-8")
    assert text == reference.records_markdown(reference.read_meanings(text)), (
        "docs/plugins/records.md is stale: run python -m nervous.plugin.reference --write")
    assert reference.undocumented(text) == []


def test_a_field_without_a_meaning_is_caught() -> None:
    text = reference.RECORDS_DOC.read_text(encoding="utf-8")
    broken = text.replace("| the skill's slug (or repository name on GitHub) |", "|  |")
    assert reference.undocumented(broken) == ["SkillRef.name"]
    assert reference.main([]) == 0


def test_the_fingerprint_example_is_right() -> None:
    import hashlib
    import re

    from nervous.plugin.toolkit import skill_fingerprint

    text = (reference.ROOT / "docs" / "plugins" / "fingerprint.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", text, re.M)
    files = {path: content.encode().decode("unicode_escape").encode() for path, content in rows}
    assert set(files) == {"SKILL.md", "scripts/run.sh", "Notes.md"}
    published = re.search(r"has the fingerprint `([0-9a-f]{64})`", text).group(1)  # type: ignore[union-attr]
    assert skill_fingerprint((p, hashlib.sha256(d).hexdigest()) for p, d in files.items()) == published


def test_the_reference_does_not_depend_on_resolved_types() -> None:
    import attrs

    from nervous.kernel.records import ScanStatus, SearchHit

    attrs.resolve_types(ScanStatus)  # other code (cattrs) may have done this earlier in the process
    attrs.resolve_types(SearchHit)
    assert reference.main([]) == 0
