"""The plugin manager facade: provider resolution, error attribution, validation of plugins."""

from __future__ import annotations

from typing import Any

import pytest

import nervous
from nervous.errors import PluginError, ProviderError
from nervous.kernel.manager import PluginManager
from nervous.kernel.records import RiskAssessment, ScanContext, SideEffects, SkillBundle, SkillFile, SkillRef
from nervous.testing.growth import assert_linear

BUNDLE = SkillBundle(ref=SkillRef("demo"), files=(SkillFile("SKILL.md", b"---\nname: demo\n---\n"),))


class Exploding:
    @nervous.hookimpl
    def nervous_classify(self, bundle: Any) -> Any:
        raise ValueError("regex compile failed")


def test_an_exception_inside_a_plugin_names_the_plugin(nervous_pm: PluginManager) -> None:
    nervous_pm.register(Exploding(), "exploding")
    with pytest.raises(PluginError) as info:
        nervous_pm.classify(BUNDLE, ScanContext())
    assert info.value.plugin == "exploding"
    assert "plugin 'exploding' failed in nervous_classify: ValueError: regex compile failed" in info.value.message
    assert "-p no:exploding" in info.value.message
    assert isinstance(info.value.__cause__, ValueError)


class Tagger:
    def __init__(self, tags: tuple[str, ...], complete: bool = True, level: str = "low") -> None:
        self.tags, self.complete, self.level = tags, complete, level

    @nervous.hookimpl
    def nervous_classify(self, bundle: Any, context: Any) -> SideEffects:
        return SideEffects(tags=self.tags, complete=self.complete)

    @nervous.hookimpl
    def nervous_score_risk(self, bundle: Any, side_effects: Any, context: Any) -> RiskAssessment:
        return RiskAssessment(self.level, (f"{self.level} from {self.tags}",))


def test_contributions_are_combined_by_the_stated_rules(nervous_pm: PluginManager) -> None:
    for name in ("review-policy",):
        nervous_pm.unregister(name)
    nervous_pm.register(Tagger(("network:api.example.com",), level="medium"), "one")
    nervous_pm.register(Tagger(("shell:git",), complete=False, level="low"), "two")
    se = nervous_pm.classify(BUNDLE, ScanContext())
    assert se.tags == ("network:api.example.com", "shell:git")
    assert se.complete is False
    risk = nervous_pm.score_risk(BUNDLE, se, ScanContext())
    assert risk.level == "medium" and len(risk.reasons) == 2


def test_with_no_classifier_or_scorer_the_worst_is_assumed(nervous_config: Any) -> None:
    pm = PluginManager(nervous_config, autoload=False, builtins=False)
    se = pm.classify(BUNDLE, ScanContext())
    assert not se.complete and "shell:*" in se.tags and "incomplete" in se.flags
    assert pm.score_risk(BUNDLE, se, ScanContext()).level == "high"
    assert pm.judge_intent(BUNDLE, se, ScanContext()) is None


class WrongRecords:
    @nervous.hookimpl
    def nervous_registries(self) -> list[Any]:
        return [("clawhub2", "not a Provider")]


def test_a_provider_hook_must_return_provider_records(nervous_pm: PluginManager) -> None:
    nervous_pm.register(WrongRecords(), "wrong")
    with pytest.raises(PluginError, match="expected nervous.Provider records"):
        nervous_pm.providers("registry")


class Twin:
    @nervous.hookimpl
    def nervous_storage_backends(self) -> list[nervous.Provider]:
        return [nervous.Provider("sqlite", "a second sqlite", lambda ctx: None)]


def test_duplicate_provider_names_both_plugins(nervous_pm: PluginManager) -> None:
    nervous_pm.register(Twin(), "twin")
    with pytest.raises(ProviderError, match="'sqlite' is defined twice: by plugin '(sqlite|twin)' and by plugin"):
        nervous_pm.storage()


class UnknownHook:
    @nervous.hookimpl
    def nervous_not_a_hook(self) -> None:
        return None


def test_a_plugin_with_an_unknown_hook_is_refused(nervous_pm: PluginManager) -> None:
    with pytest.raises(Exception, match="unknown hook 'nervous_not_a_hook'"):
        nervous_pm.register(UnknownHook(), "unknown")


def test_blocked_builtin_is_listed_as_blocked(nervous_config: Any) -> None:
    pm = PluginManager(nervous_config, autoload=False, blocked=["github"])
    infos = {p.name: p for p in pm.plugins()}
    assert infos["github"].status == "blocked"
    assert "github" not in pm.providers("registry")
    assert infos["clawhub"].status == "active" and infos["clawhub"].hooks == ["nervous_registries"]


class Factory:
    @nervous.hookimpl
    def nervous_matchers(self) -> list[nervous.Provider]:
        def boom(ctx: Any) -> Any:
            raise KeyError("model path")

        return [nervous.Provider("boom", "always fails", boom)]


def test_a_failing_factory_names_its_plugin(nervous_pm: PluginManager) -> None:
    nervous_pm.register(Factory(), "fact")
    nervous_pm.config.cortex.matcher = "boom"
    with pytest.raises(PluginError, match="plugin 'fact' could not create matcher 'boom'"):
        nervous_pm.matcher()


def test_unknown_provider_lists_available(nervous_pm: PluginManager) -> None:
    with pytest.raises(ProviderError, match=r"unknown drain policy 'nope'; available: aggressive, conservative, default"):
        nervous_pm.drain_policy("nope")


def test_many_unknown_plugin_sections_are_reported_once_each_in_linear_time(nervous_config: Any) -> None:
    """A 1 MiB configuration holds 32,000 ``[plugins.X]`` sections; each warning was compared with every
    earlier one, 9 s at the start of every command."""
    import time

    def cpu(n: int) -> float:
        nervous_config.plugins.settings = {f"x{i}": {"a": 1} for i in range(n)}
        pm = PluginManager(nervous_config, autoload=False)
        pm.check_selection()  # builds the providers lists once
        pm.warnings.clear()
        start = time.process_time()
        pm.check_selection()
        pm.check_selection()  # the same warnings are not repeated
        spent = time.process_time() - start
        unknown = [w for w in pm.warnings if "configures no known plugin" in w]
        assert len(unknown) == n and unknown[0].startswith("[plugins.x0] configures no known plugin or provider")
        return spent

    assert_linear(cpu, 1000)  # quadratic: 64x
