"""Accumulates what detectors find in one bundle: tags, flags, shell tiers, rule hits and facts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import define, field

from nervous.plugin.toolkit import normalize_tag

from .memo import remember_short

TIER_ORDER = {"SAFE": 0, "CAUTION": 1, "RISKY": 2, "DANGEROUS": 3}


@remember_short(8192)
def _normalized(tag: str) -> str | None:
    """A tag's canonical spelling, or None for one that is not a tag: a pure function of the text, which the
    detectors repeat on every line naming the same command, host or file."""
    try:
        return normalize_tag(tag)
    except ValueError:
        return None


@define
class Hit:
    rule_id: str
    file: str | None
    line: int | None
    column: int | None = None
    snippet: str = ""
    evidence: dict[str, Any] = field(factory=dict)
    action: str | None = None  # overrides the catalogue action (e.g. vendor-installer exception)


@define
class Collector:
    tags: dict[str, tuple[str | None, int | None]] = field(factory=dict)
    flags: set[str] = field(factory=set)
    tiers: dict[str, str] = field(factory=dict)
    hits: list[Hit] = field(factory=list)
    #: bundle-level facts for "combined with" rules: name -> list of (file, line)
    facts: dict[str, list[tuple[str | None, int | None, str]]] = field(factory=dict)
    primary_env: str | None = None
    #: words naming what the skill is about (name, description, required binaries)
    subject: set[str] = field(factory=set)
    #: why the bundle is classified (install, draft, scan)
    purpose: str = "scan"
    #: the skill says it is a security tool (scanner, auditor): its documentation quotes attack patterns
    security_tool: bool = False
    #: binaries the skill declares it needs
    bins: set[str] = field(factory=set)
    #: hosts the skill's own frontmatter names (homepage, repository, metadata URLs)
    declared_hosts: set[str] = field(factory=set)
    #: accounts on code hosts whose repositories the skill's own frontmatter names
    declared_owners: set[str] = field(factory=set)
    #: words of those repositories' owners and names (a vendor's own site is named after them)
    declared_repo_words: set[str] = field(factory=set)
    #: environment variables the skill's metadata declares (requires.env, primaryEnv)
    declared_env: set[str] = field(factory=set)
    #: the skill's own name (frontmatter ``name``, lower case)
    skill_name: str = ""
    #: per-line analyses (their arguments but the file and line number) that appended no hit and no fact:
    #: run again on the same arguments they would only repeat tags, flags and tiers already set
    quiet: set[tuple[object, ...]] = field(factory=set)
    #: hits and facts recorded so far (only :meth:`hit` and :meth:`fact` add them)
    records: int = 0

    def tag(self, tag: str, file: str | None = None, line: int | None = None) -> None:
        t = _normalized(tag)
        if t is not None:
            self.tags.setdefault(t, (file, line))

    def tier(self, cmd: str, tier: str) -> None:
        cur = self.tiers.get(cmd)
        if cur is None or TIER_ORDER[tier] > TIER_ORDER[cur]:
            self.tiers[cmd] = tier

    def fact(self, name: str, file: str | None = None, line: int | None = None, via: str = "") -> None:
        self.facts.setdefault(name, []).append((file, line, via))
        self.records += 1

    def has(self, name: str) -> bool:
        return bool(self.facts.get(name))

    def hit(self, rule_id: str, file: str | None, line: int | None, snippet: str = "", *,
            column: int | None = None, action: str | None = None, **evidence: Any) -> Hit:
        h = Hit(rule_id, file, line, column, snippet[:200], dict(evidence), action)
        self.hits.append(h)
        self.records += 1
        return h

    def analyse_once(self, key: tuple[object, ...], analyse: Callable[[], bool]) -> None:
        """Run one per-line analysis, unless the same ``key`` (its arguments but the file and line) already
        ran in this scan and appended no hit and no fact: it could only set again tags, flags and tiers
        already set. ``analyse`` returns False when its answer must not be remembered (it handed code to a
        detector that reads the collector)."""
        if key in self.quiet:
            return
        before = self.records
        if analyse() and self.records == before:
            self.quiet.add(key)

    def rule_ids(self) -> set[str]:
        return {h.rule_id for h in self.hits}
