"""A conformance suite for registry plugins (ours and third parties').

Subclass :class:`RegistryConformance` in a test module and provide three fixtures:
``registry`` (the registry instance, talking to a real or stand-in server), ``query`` (a search
that finds at least one skill) and ``missing_ref`` (a reference the registry does not know)::

    class TestMyRegistry(RegistryConformance):
        @pytest.fixture
        def registry(self, my_server): return MyRegistry(my_server.url)
        @pytest.fixture
        def query(self): return "pdf"
        @pytest.fixture
        def missing_ref(self): return SkillRef("no-such-skill", registry="mine")

The suite checks the contract the engines rely on: typed records, the registry's name on every
hit, a fetch that matches the published per-file digests and the version's fingerprint, and a
clear ``NotFound`` for an unknown skill.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..errors import NotFound
from ..interfaces import Registry
from ..records import SearchHit, SkillBundle, SkillMetadata, SkillRef, SkillVersion


class RegistryConformance:
    """The contract of :class:`nervous.interfaces.Registry`."""

    @pytest.fixture
    def hit(self, registry: Any, query: str) -> SearchHit:
        hits = registry.search(query, limit=10)
        assert hits, f"the query {query!r} must find at least one skill for the suite to run"
        first: SearchHit = hits[0]
        return first

    def test_implements_the_protocol(self, registry: Any) -> None:
        assert isinstance(registry, Registry)
        assert isinstance(registry.name, str) and registry.name

    def test_search_returns_typed_hits_from_this_registry(self, registry: Any, query: str) -> None:
        hits = registry.search(query, limit=10)
        assert all(isinstance(h, SearchHit) for h in hits)
        assert all(h.registry == registry.name for h in hits)
        assert all(isinstance(h.ref, SkillRef) and h.display_name for h in hits)
        assert len(hits) <= 10

    def test_search_honours_the_limit(self, registry: Any, query: str) -> None:
        assert len(registry.search(query, limit=1)) <= 1

    def test_resolve_and_versions(self, registry: Any, hit: SearchHit) -> None:
        meta = registry.resolve(hit.ref)
        assert isinstance(meta, SkillMetadata)
        assert meta.registry == registry.name and meta.ref.name == hit.ref.name
        versions = registry.versions(meta.ref)
        assert versions and all(isinstance(v, SkillVersion) for v in versions)
        detail = registry.version(meta.ref, meta.latest_version)
        assert isinstance(detail, SkillVersion) and detail.version

    def test_fetch_matches_the_published_digests_and_fingerprint(self, registry: Any, hit: SearchHit) -> None:
        from ..fingerprint import bundle_fingerprint
        from ..installer import verify_bundle

        meta = registry.resolve(hit.ref)
        detail = registry.version(meta.ref, meta.latest_version)
        bundle = registry.fetch(meta.ref, detail.version)
        assert isinstance(bundle, SkillBundle)
        assert bundle.skill_md is not None, "a skill bundle holds a SKILL.md"
        assert all(not f.path.startswith("/") and ".." not in f.path.split("/") for f in bundle.files)
        if detail.files:
            verify_bundle(bundle, detail.files, label=str(meta.ref))
        if detail.fingerprint:
            assert bundle_fingerprint(bundle, exclude={"_meta.json"}) == detail.fingerprint

    def test_unknown_skill_is_not_found(self, registry: Any, missing_ref: SkillRef) -> None:
        with pytest.raises(NotFound):
            registry.resolve(missing_ref)
