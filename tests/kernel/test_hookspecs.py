"""Every hookspec is prefixed, typed and documented with its return contract."""

from __future__ import annotations

import inspect

import pytest

from nervous.plugin import hookspecs

HOOKS = sorted(n for n in dir(hookspecs) if n.startswith("nervous_"))


def test_there_are_hooks_for_every_purpose() -> None:
    for needed in ("nervous_registries", "nervous_install_targets", "nervous_classify", "nervous_score_risk",
                   "nervous_review_policies", "nervous_storage_backends", "nervous_ranking_policies",
                   "nervous_matchers", "nervous_event"):
        assert needed in HOOKS


@pytest.mark.parametrize("name", HOOKS)
def test_hookspec_is_documented_and_typed(name: str) -> None:
    fn = getattr(hookspecs, name)
    doc = inspect.getdoc(fn) or ""
    assert len(doc.splitlines()) >= 3, f"{name} needs a docstring with its contract"
    assert ":returns:" in doc or "return values are ignored" in doc, f"{name}: state the return contract"
    assert "Combined:" in doc or "First result wins" in doc or "return values are ignored" in doc, (
        f"{name}: say how results are combined"
    )
    sig = inspect.signature(fn)
    assert sig.return_annotation is not inspect.Signature.empty, f"{name}: annotate the return type"
    for p in sig.parameters.values():
        assert p.annotation is not inspect.Parameter.empty, f"{name}({p.name}): annotate it"


def test_hookspecs_are_documented_in_the_plugin_guide() -> None:
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "docs" / "plugins.md").read_text(encoding="utf-8")
    undocumented = [h for h in HOOKS if h not in guide]
    assert not undocumented, f"docs/plugins.md does not mention: {undocumented}"
