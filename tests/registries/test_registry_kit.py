"""The registry kit catches what matters: each check fails on a registry that breaks its rule."""

from __future__ import annotations

import hashlib
import time
from typing import Any

import pytest

from nervous.errors import NotFound
from nervous.plugin import (
    FileDigest,
    SearchHit,
    SkillBundle,
    SkillFile,
    SkillMetadata,
    SkillRef,
    SkillVersion,
)
from nervous.testing.registry_suite import RegistryConformance

SKILL = b"---\nname: demo\ndescription: says hello\n---\nSay hello.\n"


class Registry:
    """A well-behaved in-memory registry; each flag breaks one rule."""

    name = "mem"

    def __init__(self, *, digests: bool = True, extra_file: bool = False, changed: bool = False,
                 not_found_on: tuple[str, ...] = ("resolve", "versions", "version", "fetch"), delay: float = 0.0):
        self.digests, self.extra_file, self.changed = digests, extra_file, changed
        self.not_found_on, self.delay = not_found_on, delay

    def _known(self, ref: SkillRef, lookup: str) -> None:
        time.sleep(self.delay)
        if ref.name != "demo":
            if lookup in self.not_found_on:
                raise NotFound(f"no skill {ref.name!r}")
            raise KeyError(ref.name)

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        time.sleep(self.delay)
        return [SearchHit("mem", SkillRef("demo"), "Demo", version="1.0.0")][:limit]

    def resolve(self, ref: SkillRef) -> SkillMetadata:
        self._known(ref, "resolve")
        return SkillMetadata("mem", SkillRef("demo"), "Demo", latest_version="1.0.0", versions=("1.0.0",))

    def versions(self, ref: SkillRef) -> list[SkillVersion]:
        self._known(ref, "versions")
        return [SkillVersion("1.0.0")]

    def version(self, ref: SkillRef, version: str | None = None) -> SkillVersion:
        self._known(ref, "version")
        files = (FileDigest("SKILL.md", len(SKILL), hashlib.sha256(SKILL).hexdigest()),) if self.digests else ()
        return SkillVersion("1.0.0", files=files)

    def fetch(self, ref: SkillRef, version: str | None = None) -> SkillBundle:
        self._known(ref, "fetch")
        files = [SkillFile("SKILL.md", SKILL.replace(b"hello", b"HELLO") if self.changed else SKILL)]
        if self.extra_file:
            files.append(SkillFile("run.sh", b"echo hi\n"))
        return SkillBundle(SkillRef("demo"), tuple(files), version="1.0.0", registry="mem")


KIT = RegistryConformance()
HIT = SearchHit("mem", SkillRef("demo"), "Demo")
MISSING = SkillRef("no-such-skill")


def test_a_well_behaved_registry_passes_every_check() -> None:
    reg = Registry()
    KIT.test_every_version_publishes_file_digests(reg, HIT)
    KIT.test_the_bundle_is_exactly_the_published_files(reg, HIT)
    for lookup in ("resolve", "versions", "version", "fetch"):
        KIT.test_unknown_skill_is_not_found(reg, MISSING, lookup)
    KIT.test_calls_answer_within_the_latency_budget(reg, "demo")


def test_missing_digests_fail() -> None:
    with pytest.raises(AssertionError, match="publishes no per-file digests"):
        KIT.test_every_version_publishes_file_digests(Registry(digests=False), HIT)


@pytest.mark.parametrize(("reg", "message"), [
    (Registry(extra_file=True), r"contradicts version\(\).files: extra \['run.sh'\]"),
    (Registry(changed=True), "SKILL.md: content differs from its digest"),
])
def test_bundles_contradicting_the_published_files_fail(reg: Any, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        KIT.test_the_bundle_is_exactly_the_published_files(reg, HIT)


@pytest.mark.parametrize("lookup", ["versions", "version", "fetch"])
def test_not_found_is_checked_on_every_lookup(lookup: str) -> None:
    reg = Registry(not_found_on=("resolve",))
    with pytest.raises(KeyError):
        KIT.test_unknown_skill_is_not_found(reg, MISSING, lookup)


def test_the_latency_budget_is_enforced() -> None:
    class Strict(RegistryConformance):
        latency_budget = 0.05

    with pytest.raises(AssertionError, match=r"search took 0\.\d+ s \(budget 0.05 s\)"):
        Strict().test_calls_answer_within_the_latency_budget(Registry(delay=0.1), "demo")
