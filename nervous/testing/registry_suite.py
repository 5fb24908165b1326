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
hit, published per-file SHA-256 digests for every version, a fetch that matches them exactly (no file
missing, none extra, no byte changed) and the version's fingerprint, an archive ``_meta.json`` naming
the skill and version asked for, ``NotFound`` from every lookup of an unknown skill, and answers
within :attr:`RegistryConformance.latency_budget` seconds per call (override the attribute for a
slow stand-in).

A registry that publishes no digests fails the suite unless it says so with a class attribute
``publishes_digests = False`` (on the registry, where the install gate reads it too); installs from
it are then *unverified* (shown everywhere, confirmed explicitly, never reflexes), and the suite
checks that the install gate treats them so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from ..errors import NotFound
from ..kernel.records import SearchHit, SkillBundle, SkillMetadata, SkillRef, SkillVersion
from ..plugin.protocols import Registry


class RegistryConformance:
    """The contract of :class:`nervous.plugin.Registry`."""

    #: seconds one call may take against the test server (search, resolve, versions, version, fetch)
    latency_budget: float = 5.0
    #: ``False`` only for a source that cannot publish SHA-256 digests (e.g. a code host): the digest
    #: checks are then skipped, visibly, and installs from it are unverified. ``None`` (the default)
    #: reads the registry's own ``publishes_digests`` attribute, the one the install gate reads.
    publishes_digests: bool | None = None

    def _digests(self, registry: Any) -> bool:
        if self.publishes_digests is not None:
            return self.publishes_digests
        return bool(getattr(registry, "publishes_digests", True))

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
        from ..engines.install import gate

        meta = registry.resolve(hit.ref)
        detail = registry.version(meta.ref, meta.latest_version)
        bundle = registry.fetch(meta.ref, detail.version)
        assert isinstance(bundle, SkillBundle)
        assert bundle.skill_md is not None, "a skill bundle holds a SKILL.md"
        assert all(not f.path.startswith("/") and ".." not in f.path.split("/") for f in bundle.files)
        label = f"{meta.ref.qualified}@{detail.version}"
        verified = gate.integrity(bundle, detail, meta.ref, label=label)  # digests, fingerprint, _meta.json
        if self._digests(registry):
            assert verified, (f"{registry.name} publishes no SHA-256 digests or fingerprint for {label}: installs "
                              "from it would be unverified; publish them, or declare publishes_digests = False")
        else:
            assert not verified, f"{registry.name} declares publishes_digests = False but published digests"
            review = gate.review(_manager(), bundle, label=label, source=registry.name, verified=verified)
            assert review.needs_confirmation and review.decision != "allow", "an unverified skill is never allow"

    def test_every_version_publishes_file_digests(self, registry: Any, hit: SearchHit) -> None:
        if not self._digests(registry):
            pytest.skip("declared: this registry publishes no SHA-256 digests")
        meta = registry.resolve(hit.ref)
        for v in registry.versions(meta.ref)[:3]:
            detail = registry.version(meta.ref, v.version)
            assert detail.files, (f"version {v.version} of {meta.ref} publishes no per-file digests: an "
                                  "install could not be verified against what the registry announced")
            assert all(f.sha256 and len(f.sha256) == 64 and f.size >= 0 for f in detail.files), detail.files

    def test_the_bundle_is_exactly_the_published_files(self, registry: Any, hit: SearchHit) -> None:
        meta = registry.resolve(hit.ref)
        detail = registry.version(meta.ref, meta.latest_version)
        bundle = registry.fetch(meta.ref, detail.version)
        published = {f.path: f for f in detail.files}
        fetched = {f.path: f for f in bundle.files}
        extra = sorted(set(fetched) - set(published) - {"_meta.json"})
        missing = sorted(set(published) - set(fetched))
        assert not extra and not missing, f"fetch() contradicts version().files: extra {extra}, missing {missing}"
        import hashlib

        for path, digest in published.items():
            data = fetched[path].data
            assert len(data) == digest.size, f"{path}: {len(data)} bytes fetched, {digest.size} published"
            if self._digests(registry):
                assert hashlib.sha256(data).hexdigest() == digest.sha256, f"{path}: content differs from its digest"

    @pytest.mark.parametrize("lookup", ["resolve", "versions", "version", "fetch"])
    def test_unknown_skill_is_not_found(self, registry: Any, missing_ref: SkillRef, lookup: str) -> None:
        with pytest.raises(NotFound):
            getattr(registry, lookup)(missing_ref)

    def test_calls_answer_within_the_latency_budget(self, registry: Any, query: str) -> None:
        def timed(what: str, call: Callable[[], Any]) -> Any:
            started = time.monotonic()
            result = call()
            elapsed = time.monotonic() - started
            assert elapsed <= self.latency_budget, f"{what} took {elapsed:.2f} s (budget {self.latency_budget} s)"
            return result

        hits = timed("search", lambda: registry.search(query, limit=10))
        ref = hits[0].ref
        meta = timed("resolve", lambda: registry.resolve(ref))
        timed("versions", lambda: registry.versions(meta.ref))
        detail = timed("version", lambda: registry.version(meta.ref, meta.latest_version))
        timed("fetch", lambda: registry.fetch(meta.ref, detail.version))


def _manager() -> Any:
    """A plugin manager with the built-in plugins only (the gate's review stage needs the classifier)."""
    from ..kernel.config import Config
    from ..kernel.manager import PluginManager

    return PluginManager(Config(), autoload=False)
