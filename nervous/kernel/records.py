"""The shared vocabulary: immutable attrs records that cross the kernel/plugin boundary.

Engines and plugins exchange these records, never ad-hoc dicts. They serialise through the one
converter in :mod:`nervous.kernel.serialize`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Literal

from attrs import field, frozen

from ..errors import UsageError
from ..plugin.provider import Provider as Provider  # re-exported: part of the shared vocabulary

RiskLevel = Literal["low", "medium", "high"]
Decision = Literal["allow", "review", "refuse"]

RISK_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2}
DECISION_ORDER: dict[str, int] = {"allow": 0, "review": 1, "refuse": 2}



# --------------------------------------------------------------------------------------------
# Skill references
# --------------------------------------------------------------------------------------------

_SLUG = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_SLUG_RE = re.compile(rf"^{_SLUG}$")
_SHA_RE = re.compile(r"^[0-9a-f]{7,40}\Z")


@frozen
class SkillRef:
    """A reference to a skill in some registry.

    Accepted spellings (see :meth:`parse`): ``slug``, ``owner/slug``, ``@owner/slug``,
    ``clawhub:@owner/slug``, ``github:owner/repo[/path][@sha]``, ``local:name`` and
    ``<registry>:<name>`` for any registry a plugin adds. ``registry`` is ``None`` when the text
    did not say (the configured registries are tried in order).
    """

    name: str
    owner: str | None = None
    registry: str | None = None
    path: str | None = None
    revision: str | None = None

    @classmethod
    def parse(cls, text: str) -> SkillRef:
        raw = text
        text = text.strip()
        if not text:
            raise UsageError("empty skill reference")
        registry: str | None = None
        m = re.match(r"^([a-z][a-z0-9_-]*):(?!//)(.+)$", text)
        if m:
            registry, text = m.group(1), m.group(2)
        if registry == "github":
            revision = None
            if "@" in text:
                text, revision = text.rsplit("@", 1)
                if not _SHA_RE.match(revision):
                    raise UsageError(f"skill reference {raw!r}: revision must be a hex commit sha")
            parts = [p for p in text.split("/")]
            if len(parts) < 2 or any(not p or p in (".", "..") or "\\" in p for p in parts):
                raise UsageError(f"skill reference {raw!r}: expected github:owner/repo[/path][@sha]")
            owner, repo, path = parts[0], parts[1], "/".join(parts[2:]) or None
            name = parts[-1] if path else repo
            return cls(name=name, owner=owner.lower(), registry="github", path=f"{repo}/{path}" if path else repo,
                       revision=revision)
        owner_name: str | None = None
        if text.startswith("@"):
            text = text[1:]
            if "/" not in text:
                raise UsageError(f"skill reference {raw!r}: expected @owner/slug")
        if "/" in text:
            owner_name, _, text = text.partition("/")
            owner_name = owner_name.strip().lower()
            if not owner_name or not _SLUG_RE.match(owner_name):
                raise UsageError(f"skill reference {raw!r}: invalid owner {owner_name!r}")
        version = None
        if "@" in text:
            text, version = text.split("@", 1)
        if not _SLUG_RE.match(text) or ".." in text:
            raise UsageError(
                f"skill reference {raw!r}: invalid name {text!r} (letters, digits, '.', '_', '-')"
            )
        return cls(name=text.lower() if registry in (None, "clawhub") else text, owner=owner_name,
                   registry=registry, revision=version)

    @property
    def qualified(self) -> str:
        """``@owner/slug`` when the owner is known, else the bare name."""
        if self.registry == "github":
            return f"{self.owner}/{self.path}"
        return f"@{self.owner}/{self.name}" if self.owner else self.name

    def __str__(self) -> str:
        if self.registry == "github":
            base = f"github:{self.owner}/{self.path}"
            return f"{base}@{self.revision}" if self.revision else base
        prefix = f"{self.registry}:" if self.registry else ""
        return f"{prefix}{self.qualified}"


# --------------------------------------------------------------------------------------------
# Registry answers
# --------------------------------------------------------------------------------------------


@frozen
class ScanStatus:
    """A registry's own security verdict (ClawHub's snapshot); an input to our policy, never the answer."""

    status: str = "unknown"  # clean | suspicious | malicious | pending | error | unknown | unreviewed
    reason: str | None = None
    reason_codes: tuple[str, ...] = ()


@frozen
class SearchHit:
    """One search result, keeping where it came from."""

    registry: str
    ref: SkillRef
    display_name: str
    summary: str = ""
    version: str | None = None
    stars: int | None = None
    downloads: int | None = None
    score: float | None = None
    scan: ScanStatus = ScanStatus()
    reviewed: bool = True  # False for unreviewed sources such as GitHub
    url: str | None = None
    updated_at: str | None = None


@frozen
class FileDigest:
    """A file of a published version, as the registry describes it."""

    path: str
    size: int
    sha256: str | None = None


@frozen
class SkillVersion:
    version: str
    created_at: str | None = None
    changelog: str = ""
    files: tuple[FileDigest, ...] = ()
    scan: ScanStatus = ScanStatus()
    fingerprint: str | None = None


@frozen
class SkillMetadata:
    """What a registry knows about one skill (detail view)."""

    registry: str
    ref: SkillRef
    display_name: str
    summary: str = ""
    latest_version: str | None = None
    versions: tuple[str, ...] = ()
    stars: int | None = None
    downloads: int | None = None
    moderation: str = "visible"  # visible | suspicious | hidden | malware | pending | removed
    scan: ScanStatus = ScanStatus()
    reviewed: bool = True
    url: str | None = None


@frozen
class SkillFile:
    """One file of a bundle, with its bytes. ``path`` is relative and ``/``-separated."""

    path: str
    data: bytes = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def text(self) -> str | None:
        """The file as UTF-8 text, or ``None`` when it is not valid UTF-8."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None


@frozen
class SkillBundle:
    """A skill's files held in memory: what is scanned, verified and installed. Never executed."""

    ref: SkillRef
    files: tuple[SkillFile, ...]
    version: str | None = None
    registry: str | None = None
    expected: tuple[FileDigest, ...] = ()  # per-file digests the registry published, if any

    def file(self, path: str) -> SkillFile | None:
        for f in self.files:
            if f.path == path:
                return f
        return None

    @property
    def skill_md(self) -> SkillFile | None:
        return self.file("SKILL.md") or self.file("skill.md")

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


# --------------------------------------------------------------------------------------------
# Side effects, risk and decisions
# --------------------------------------------------------------------------------------------


@frozen
class Finding:
    """One rule hit with its evidence. ``rule_id`` is stable across releases (``NV-…``)."""

    rule_id: str
    title: str
    category: str
    severity: str  # info | low | medium | high | critical
    action: str  # note | review | refuse
    file: str | None = None
    line: int | None = None
    column: int | None = None
    snippet: str = ""
    evidence: Mapping[str, Any] = field(factory=dict, eq=False)


@frozen
class SideEffects:
    """What a skill can do: side-effect tags (``write:PATH``, ``shell:CMD``...) and flags.

    Classes are derived from the tags (see :func:`nervous.kernel.sideeffects.classes_of`).
    Combining two reports is a union (:meth:`merge`).
    """

    tags: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    shell_tiers: Mapping[str, str] = field(factory=dict)
    complete: bool = True
    primary_env: str | None = None

    def merge(self, other: SideEffects) -> SideEffects:
        tiers = dict(self.shell_tiers)
        tiers.update(other.shell_tiers)
        return SideEffects(
            tags=tuple(sorted(set(self.tags) | set(other.tags))),
            flags=tuple(sorted(set(self.flags) | set(other.flags))),
            findings=tuple(self.findings) + tuple(f for f in other.findings if f not in self.findings),
            shell_tiers=tiers,
            complete=self.complete and other.complete,
            primary_env=self.primary_env or other.primary_env,
        )


@frozen
class RiskAssessment:
    """Blast radius of a skill: a level and the reasons. Combined by taking the highest level."""

    level: RiskLevel
    reasons: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    source: str = ""

    def merge(self, other: RiskAssessment) -> RiskAssessment:
        level = self.level if RISK_ORDER[self.level] >= RISK_ORDER[other.level] else other.level
        return RiskAssessment(
            level=level,
            reasons=tuple(dict.fromkeys(self.reasons + other.reasons)),
            findings=tuple(self.findings) + tuple(f for f in other.findings if f not in self.findings),
            source=",".join(s for s in (self.source, other.source) if s),
        )


@frozen
class IntentVerdict:
    """A host's optional judgement of whether capabilities fit the stated purpose (e.g. from an LLM).

    It may raise a decision (allow → review → refuse), never lower one.
    """

    verdict: Literal["coherent", "incoherent", "deceptive", "unknown"]
    reason: str = ""
    judge: str = ""


@frozen
class ReviewDecision:
    """What to do with a skill: allow, review (ask a person) or refuse, and why."""

    decision: Decision
    risk: RiskAssessment
    reasons: tuple[str, ...] = ()
    rule_ids: tuple[str, ...] = ()
    policy: str = ""


@frozen
class ScanContext:
    """Why a bundle is being judged: ``install`` (third-party skill) or ``draft`` (evolver)."""

    purpose: Literal["install", "draft", "scan"] = "scan"
    registry_scan: ScanStatus | None = None
    stated_purpose: str = ""


# --------------------------------------------------------------------------------------------
# Installs and events
# --------------------------------------------------------------------------------------------


@frozen
class InstallRecord:
    """A skill nervous installed, and where. Skills without one are the user's and never touched."""

    ref: SkillRef
    registry: str
    slug: str
    version: str | None
    fingerprint: str
    path: str
    installed_at: str
    target: str = "skills-dir"
    files: tuple[FileDigest, ...] = ()


@frozen
class Event:
    """A lifecycle event broadcast to ``nervous_event`` implementations (audit logs, telemetry)."""

    kind: str  # e.g. "search", "install", "uninstall", "outcome", "goal.transition", "evolve.publish"
    at: str
    data: Mapping[str, Any] = field(factory=dict)
    source: str = "nervous"
