"""Hooks are called through pluggy: wrappers, firstresult and monitoring behave as pluggy defines them."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

import nervous
from nervous.errors import PluginError
from nervous.kernel.manager import PluginManager, add_hookcall_monitoring
from nervous.kernel.records import IntentVerdict, ScanContext, SideEffects, SkillBundle, SkillFile, SkillRef

BUNDLE = SkillBundle(ref=SkillRef("demo"), files=(SkillFile("SKILL.md", b"---\nname: demo\n---\n"),))


class Classifier:
    @nervous.hookimpl
    def nervous_classify(self, bundle: Any, context: Any) -> SideEffects:
        return SideEffects(tags=("shell:git",), complete=True)


class AddsATag:
    """A new-style wrapper: sees the list of every classifier's result and may change it."""

    @nervous.hookimpl(wrapper=True)
    def nervous_classify(self, bundle: Any, context: Any) -> Generator[None, list[SideEffects], list[SideEffects]]:
        results = yield
        return [*results, SideEffects(tags=("network:wrapped.example",), complete=True)]


def test_a_wrapper_hook_wraps_the_other_implementations(nervous_config: Any) -> None:
    pm = PluginManager(nervous_config, autoload=False, builtins=False)
    pm.register(Classifier(), "classifier")
    pm.register(AddsATag(), "wrapper")
    se = pm.classify(BUNDLE, ScanContext())
    assert se.tags == ("network:wrapped.example", "shell:git")


class FailingWrapper:
    @nervous.hookimpl(wrapper=True)
    def nervous_classify(self, bundle: Any, context: Any) -> Generator[None, Any, Any]:
        yield
        raise ValueError("wrapper broke")


def test_an_exception_in_a_wrapper_names_the_wrapper_plugin(nervous_config: Any) -> None:
    pm = PluginManager(nervous_config, autoload=False, builtins=False)
    pm.register(Classifier(), "classifier")
    pm.register(FailingWrapper(), "bad-wrapper")
    with pytest.raises(PluginError, match=r"plugin 'bad-wrapper' failed in nervous_classify: ValueError: "
                                          r"wrapper broke \(disable it with -p no:bad-wrapper\)"):
        pm.classify(BUNDLE, ScanContext())


class Judge:
    def __init__(self, verdict: str | None) -> None:
        self.verdict, self.calls = verdict, 0

    @nervous.hookimpl
    def nervous_judge_intent(self, bundle: Any) -> IntentVerdict | None:
        self.calls += 1
        return None if self.verdict is None else IntentVerdict(self.verdict, "because")


def test_first_result_stops_the_call_as_pluggy_defines(nervous_config: Any) -> None:
    pm = PluginManager(nervous_config, autoload=False, builtins=False)
    first, abstains, last = Judge("mismatch"), Judge(None), Judge("consistent")
    pm.register(first, "first")  # registered first: called last (LIFO)
    pm.register(abstains, "abstains")
    pm.register(last, "last")
    verdict = pm.judge_intent(BUNDLE, SideEffects(), ScanContext())
    assert verdict is not None and verdict.verdict == "consistent"
    assert (last.calls, abstains.calls, first.calls) == (1, 0, 0)


def test_monitoring_sees_every_hook_call(nervous_config: Any) -> None:
    seen: list[tuple[str, list[str]]] = []
    stop = add_hookcall_monitoring(lambda name, impls, kwargs: seen.append((name, [i.plugin_name for i in impls])),
                                   lambda outcome, name, impls, kwargs: None)
    try:
        pm = PluginManager(nervous_config, autoload=False, builtins=False)
    finally:
        stop()
    pm.register(Classifier(), "classifier")
    pm.classify(BUNDLE, ScanContext())
    pm.emit("search", {"query": "x"})
    assert ("nervous_classify", ["classifier"]) in seen
    assert PluginManager(nervous_config, autoload=False, builtins=False) is not None
    count = len(seen)
    PluginManager(nervous_config, autoload=False, builtins=False).classify(BUNDLE, ScanContext())
    assert len(seen) == count  # monitoring stopped for managers created later


def test_tracing_is_pluggys_own(nervous_config: Any, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NERVOUS_TRACE_PLUGINS", "1")
    pm = PluginManager(nervous_config, autoload=False, builtins=False)
    pm.register(Classifier(), "classifier")
    pm.classify(BUNDLE, ScanContext())
    assert "nervous_classify" in capsys.readouterr().err


class BadArgs:
    @nervous.hookimpl
    def nervous_classify(self, bundle: Any, colour: Any) -> None:
        return None

    @nervous.hookimpl
    def nervous_registries(self) -> list[Any]:
        return []


class NotAGenerator:
    @nervous.hookimpl(wrapper=True)
    def nervous_classify(self, bundle: Any) -> None:
        return None


@pytest.mark.parametrize(("plugin", "message"), [
    (BadArgs(), "hook 'nervous_classify' asks for 'colour', which the hookspec does not offer"),
    (NotAGenerator(), "hook 'nervous_classify' is a wrapper but not a generator function"),
])
def test_register_validates_first_and_leaves_nothing_half_registered(
        nervous_pm: PluginManager, plugin: Any, message: str) -> None:
    before = {p.name for p in nervous_pm.plugins()}
    with pytest.raises(PluginError, match=f"plugin 'invalid' cannot be registered: .*{message}") as info:
        nervous_pm.register(plugin, "invalid")
    assert info.value.plugin == "invalid"
    assert {p.name for p in nervous_pm.plugins()} == before
    assert "invalid" not in [i.plugin_name for i in nervous_pm._pm.hook.nervous_registries.get_hookimpls()]
    nervous_pm.register(Classifier(), "invalid")  # the name is still free
