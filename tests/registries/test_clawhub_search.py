"""Search fan-out over several ClawHub-compatible registries, one of them failing or hanging."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from nervous_plugins.clawhub import ClawHubRegistry

import nervous
from nervous.engines.search import search
from nervous.kernel.manager import PluginManager
from nervous.testing.clawhub_server import ClawHubStandin, skill_md


def _skill(slug: str, owner: str) -> dict[str, Any]:
    return {"slug": slug, "owner": owner, "summary": f"{slug} for pdf files",
            "files": {"SKILL.md": skill_md(slug, "pdf")}}


@pytest.fixture
def hubs() -> Iterator[dict[str, ClawHubStandin]]:
    servers = {
        "hub-a": ClawHubStandin([_skill("pdf-tools", "alice"), _skill("pdf-merge", "bob")]),
        "hub-b": ClawHubStandin([_skill("pdf-tools", "alice"), _skill("pdf-split", "carol")]),
        "hub-c": ClawHubStandin([_skill("pdf-ocr", "dave")]),
    }
    for s in servers.values():
        s.start()
    yield servers
    for s in servers.values():
        s.stop()


@pytest.fixture
def fan_pm(nervous_config: Any, hubs: dict[str, ClawHubStandin]) -> Iterator[PluginManager]:
    class Hubs:
        @nervous.hookimpl
        def nervous_registries(self) -> list[nervous.Provider]:
            return [nervous.Provider(name, "stand-in", lambda ctx, url=s.url, name=name: _named(name, url))
                    for name, s in hubs.items()]

    nervous_config.registries.use = list(hubs)
    nervous_config.registries.timeout = 1.0
    pm = PluginManager(nervous_config, autoload=False)
    pm.register(Hubs(), "test-hubs")
    yield pm
    pm.close()


def _named(name: str, url: str) -> ClawHubRegistry:
    reg = ClawHubRegistry(registry=url, timeout=5, http_options={"retries": 0})
    reg.name = name
    return reg


def test_merged_hits_keep_their_source(fan_pm: PluginManager) -> None:
    result = search(fan_pm, "pdf")
    assert [s.status for s in result.registries] == ["ok", "ok", "ok"]
    assert [(h.registry, h.ref.qualified) for h in result.hits] == [
        ("hub-a", "@alice/pdf-tools"), ("hub-a", "@bob/pdf-merge"),
        ("hub-b", "@alice/pdf-tools"), ("hub-b", "@carol/pdf-split"), ("hub-c", "@dave/pdf-ocr")]


def test_duplicates_within_a_registry_are_dropped(fan_pm: PluginManager) -> None:
    from nervous.engines.search import merge

    hits = search(fan_pm, "pdf", registries=["hub-a"]).hits
    assert merge([list(hits), list(hits)]) == list(hits)


def test_a_hanging_registry_is_reported_while_the_others_answer(
    fan_pm: PluginManager, hubs: dict[str, ClawHubStandin]
) -> None:
    hubs["hub-b"].hang = 30
    t0 = time.monotonic()
    result = search(fan_pm, "pdf")
    elapsed = time.monotonic() - t0
    assert elapsed < 2.0
    status = {s.registry: s for s in result.registries}
    assert status["hub-b"].status == "timeout" and "1 s" in status["hub-b"].message
    assert status["hub-a"].status == status["hub-c"].status == "ok"
    assert {h.registry for h in result.hits} == {"hub-a", "hub-c"}


def test_a_failing_registry_is_reported(fan_pm: PluginManager, hubs: dict[str, ClawHubStandin]) -> None:
    hubs["hub-c"].fail_next(1, status=500)
    result = search(fan_pm, "pdf")
    status = {s.registry: s for s in result.registries}
    assert status["hub-c"].status == "error" and "HTTP 500" in status["hub-c"].message
    assert len(result.hits) == 4


def test_unknown_registry_name_is_an_error_status(fan_pm: PluginManager) -> None:
    result = search(fan_pm, "pdf", registries=["hub-a", "nope"])
    assert [(s.registry, s.status) for s in result.registries] == [("hub-a", "ok"), ("nope", "error")]
    assert "unknown registry 'nope'" in result.registries[1].message
