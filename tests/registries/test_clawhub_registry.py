"""The clawhub registry plugin against the stand-in over real loopback HTTP."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from nervous_plugins.clawhub import ClawHubRegistry

from nervous.errors import NotFound, RegistryError, UsageError
from nervous.kernel.http import HttpClient, retry_after_seconds
from nervous.kernel.records import SkillRef
from nervous.testing.clawhub_server import ClawHubStandin, skill_md

SKILLS = [
    {"slug": "gifgrep", "owner": "steipete", "displayName": "GifGrep", "summary": "Search GIF providers.",
     "stats": {"downloads": 1234, "stars": 12},
     "versions": [{"version": f"1.{i}.0", "files": {"SKILL.md": skill_md("gifgrep", f"v{i}")}} for i in range(60)]},
    {"slug": "gif-maker", "owner": "bob", "summary": "Make a GIF.", "files": {"SKILL.md": skill_md("gif-maker", "x")}},
    {"slug": "shady-gif", "owner": "eve", "summary": "GIF tool.", "files": {"SKILL.md": skill_md("shady-gif", "x")},
     "moderation": {"isSuspicious": True, "isMalwareBlocked": False, "verdict": "suspicious", "reasonCodes": []}},
    {"slug": "twin", "owner": "alice", "files": {"SKILL.md": skill_md("twin", "a")}},
    {"slug": "twin", "owner": "bob", "files": {"SKILL.md": skill_md("twin", "b")}},
]


@pytest.fixture
def standin() -> Iterator[ClawHubStandin]:
    with ClawHubStandin(SKILLS, skills_sh_rows=True) as server:
        yield server


def _registry(url: str, **kw: Any) -> tuple[ClawHubRegistry, list[float]]:
    sleeps: list[float] = []
    kw.setdefault("http_options", {})["sleep"] = sleeps.append
    return ClawHubRegistry(registry=url, **kw), sleeps


def test_search_native_rows_skip_other_catalogs_and_suspicious(standin: ClawHubStandin) -> None:
    reg, _ = _registry(standin.url)
    hits = reg.search("gif", limit=10)
    assert [h.ref.qualified for h in hits] == ["@steipete/gifgrep", "@bob/gif-maker"]
    top = hits[0]
    assert top.registry == "clawhub" and top.downloads == 1234 and top.version is None  # current servers
    assert top.url == f"{standin.url}/steipete/skills/gifgrep"  # links follow the configured registry
    assert any(r["path"] == "/api/v1/search" and r["query"]["q"] == "gif" for r in standin.requests)


def test_search_legacy_flat_rows(standin: ClawHubStandin) -> None:
    standin.legacy_search_rows = True
    standin.legacy_moderation = True
    reg, _ = _registry(standin.url)
    hits = {h.ref.qualified: h for h in reg.search("gif")}
    assert hits["@steipete/gifgrep"].version == "1.59.0"
    assert "@eve/shady-gif" in hits  # older servers listed suspicious skills


def test_detail_versions_paging_and_version_files(standin: ClawHubStandin) -> None:
    reg, _ = _registry(standin.url)
    meta = reg.resolve(SkillRef.parse("gifgrep"))
    assert meta.ref.owner == "steipete" and meta.latest_version == "1.59.0" and meta.moderation == "visible"
    versions = reg.versions(meta.ref)
    assert len(versions) == 60 and versions[0].version == "1.59.0"
    assert sum(1 for r in standin.requests if r["path"].endswith("/versions")) == 2  # followed nextCursor
    detail = reg.version(meta.ref, "1.3.0")
    assert [f.path for f in detail.files] == ["SKILL.md"] and detail.scan.status == "clean"
    assert detail.fingerprint and len(detail.fingerprint) == 64


def test_owner_is_sent_as_owner_handle_and_token_as_bearer(standin: ClawHubStandin) -> None:
    reg, _ = _registry(standin.url, token="clh_test_token")
    meta = reg.resolve(SkillRef.parse("@Bob/twin"))
    assert meta.ref.qualified == "@bob/twin"
    last = standin.requests[-1]
    assert last["query"]["ownerHandle"] == "bob" and last["authorization"] == "Bearer clh_test_token"


def test_ambiguous_slug_is_a_choice_never_a_pick(standin: ClawHubStandin) -> None:
    reg, _ = _registry(standin.url)
    with pytest.raises(UsageError) as info:
        reg.resolve(SkillRef.parse("twin"))
    assert info.value.details["matches"] == ["@alice/twin", "@bob/twin"]


def test_discovery_through_well_known(standin: ClawHubStandin) -> None:
    reg = ClawHubRegistry(site=standin.url)
    assert reg.base_url == standin.url
    assert reg.search("gifgrep")[0].ref.name == "gifgrep"
    assert standin.requests[0]["path"] == "/.well-known/clawhub.json"


def test_unknown_skill_is_not_found(standin: ClawHubStandin) -> None:
    reg, _ = _registry(standin.url)
    with pytest.raises(NotFound) as info:
        reg.resolve(SkillRef.parse("nope"))
    assert "nope" in info.value.message and standin.url in info.value.message


def test_503_retry_after_then_success(standin: ClawHubStandin) -> None:
    reg, sleeps = _registry(standin.url)
    standin.fail_next(2, status=503)
    assert reg.search("gif")
    assert len(sleeps) == 2 and all(1 <= s <= 1.25 for s in sleeps)


def test_unreachable_registry_is_a_clear_error() -> None:
    reg, sleeps = _registry("http://127.0.0.1:9")
    with pytest.raises(RegistryError) as info:
        reg.search("x")
    assert info.value.code == "unreachable" and "127.0.0.1:9" in info.value.message and len(sleeps) == 2


def test_retry_after_forms() -> None:
    now = 1_771_404_506.0
    assert retry_after_seconds({"retry-after": "34"}, now) == 34
    assert retry_after_seconds({"retry-after": "Wed, 18 Feb 2026 08:49:00 GMT"}, now) == pytest.approx(34, abs=1)
    assert retry_after_seconds({"retry-after": "1771404540"}, now) == pytest.approx(34)
    assert retry_after_seconds({"ratelimit-reset": "12"}, now) == 12
    assert retry_after_seconds({"x-ratelimit-reset": "1771404516"}, now) == pytest.approx(10)
    assert retry_after_seconds({}, now) is None


def test_bearer_token_travels_with_plain_client_calls(standin: ClawHubStandin) -> None:
    client = HttpClient(standin.url, token="secret", retries=0)
    assert client.get_json("/api/v1/search", {"q": "gif"})["results"]
    assert standin.requests[-1]["authorization"] == "Bearer secret"


def test_a_hanging_registry_times_out(standin: ClawHubStandin) -> None:
    standin.hang = 30
    reg, _ = _registry(standin.url, timeout=0.3, http_options={"retries": 0})
    t0 = time.monotonic()
    with pytest.raises(RegistryError) as info:
        reg.search("gif")
    assert time.monotonic() - t0 < 3 and "timed out" in info.value.message
