"""Draft checks and derived risk (§6): the scan hooks decide refusals, the evolver's stricter table decides levels.

Every draft goes through ``pm.classify``, ``pm.score_risk`` and the review policy (via
:func:`nervous.engines.scan.engine.scan_bundle` in the ``draft`` context). On top of the classifier's output the
evolver adds its scope rules (NV-SCOPE-001/002/003) and the derived-risk table of §6.2, comparing
the draft with the currently published version for patches. Effective risk is the maximum of the
declared and derived levels, so a mislabelled draft cannot unlock auto-publishing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from .errors import EvolverError
from .record import max_risk

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

MAX_DRAFT_BYTES = 64 * 1024

#: evolver-specific reasons behind a derived level (rule ids of the draft context)
RULE_WIDENS = "EVO-RISK-WIDEN"  # patch adds write, delete or shell to a version that had none
RULE_CREDENTIALS = "EVO-RISK-CRED"  # a sensitive-credential capability
RULE_PRIVILEGED = "EVO-RISK-PRIV"  # privileged shell
RULE_POLICY_HIGH = "EVO-RISK-POLICY-HIGH"  # the risk scorer's draft-context level is high
RULE_DEPRECATE = "EVO-RISK-DEPRECATE"
RULE_CREATE_EFFECTS = "EVO-RISK-CREATE-EFFECTS"  # a new skill with write, delete, shell or network
RULE_NEW_TAG = "EVO-RISK-NEW-TAG"  # a patch adding any other new tag
RULE_BOUNDARY = "EVO-RISK-BOUNDARY"  # a patch changing risk boundaries or approval wording
RULE_REVIEW = "EVO-RISK-REVIEW"  # the review policy asks for a person

_BOUNDARY_SECTIONS = ("risk boundaries", "do not use this skill when")
_APPROVAL_RE = re.compile(r"(?i)\b(approv\w*|escalat\w*|confirm\w*|ask the user|permission)\b")
_PATH_TAG_KINDS = ("write:", "delete:", "read:file:")
_NON_PATH_QUALIFIERS = ("remote:", "repo:", "db:", "env:", "secret:")
_OTHER_SKILL_RE = re.compile(r"(?i)(?:^|[\s\"'`(=:])((?:[~.\w-]*/)*skills/(?!learned-)[a-z0-9][\w.-]*/[\w./-]*)")


def check_draft_bytes(draft: object, what: str = "draft") -> str:
    """The draft as text, or ``DRAFT_TOO_LARGE`` (over 64 KiB, not UTF-8, or containing NUL)."""
    if isinstance(draft, bytes):
        try:
            text = draft.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EvolverError("DRAFT_TOO_LARGE", f"{what} is not valid UTF-8 (byte {exc.start})") from None
    elif isinstance(draft, str):
        text = draft
    else:
        raise EvolverError("MISSING_FIELD", f"{what} must be text")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise EvolverError("DRAFT_TOO_LARGE", f"{what} is not valid UTF-8 (lone surrogate)") from None
    if size > MAX_DRAFT_BYTES:
        raise EvolverError("DRAFT_TOO_LARGE", f"{what} is {size} bytes; the limit is {MAX_DRAFT_BYTES}")
    if "\x00" in text:
        raise EvolverError("DRAFT_TOO_LARGE", f"{what} contains a NUL character")
    if not text.strip():
        raise EvolverError("MISSING_FIELD", f"{what} is empty")
    return text


@frozen
class Assessment:
    """The outcome of checking one draft."""

    derived: str
    effective: str
    rule_ids: tuple[str, ...]
    reasons: tuple[str, ...]
    tags: tuple[str, ...]
    flags: tuple[str, ...]
    decision: str
    findings: tuple[dict[str, Any], ...] = field(factory=tuple)


def _outside_workspace(path: str) -> bool:
    p = path.strip().strip("\"'")
    if not p or p == "?" or p.startswith(_NON_PATH_QUALIFIERS):
        return False
    return (p.startswith(("/", "~", "$home", "${home}")) or re.match(r"^[a-z]:[\\/]", p) is not None
            or ".." in re.split(r"[\\/]", p))


def _scope_findings(text: str, tags: Iterable[str], flags: Iterable[str]) -> list[Any]:
    from ...kernel.records import Finding

    out = []
    for tag in tags:
        for kind in _PATH_TAG_KINDS:
            if tag.startswith(kind) and _outside_workspace(tag[len(kind):]):
                out.append(Finding("NV-SCOPE-001", "File action outside the workspace", "scope", "high", "refuse",
                                   file="SKILL.md", snippet=tag, evidence={"tag": tag}))
    for lineno, line in enumerate(text.split("\n"), 1):
        for m in _OTHER_SKILL_RE.finditer(line):
            out.append(Finding("NV-SCOPE-002", "Reference into another skill's directory", "scope", "high", "refuse",
                               file="SKILL.md", line=lineno, snippet=line.strip()[:200],
                               evidence={"path": m.group(1)}))
    if "network_send" in set(flags):
        out.append(Finding("NV-SCOPE-003", "Network upload in a draft", "scope", "high", "refuse", file="SKILL.md",
                           snippet="the draft can upload or push data", evidence={"flag": "network_send"}))
    return out


def _sections(text: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.split("\n"):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            current = m.group(1).strip().lower()
            out.setdefault(current, [])
        elif current is not None:
            out[current].append(line.strip())
    return {k: "\n".join(x for x in v if x) for k, v in out.items()}


def _approval_lines(text: str) -> set[str]:
    return {" ".join(line.split()) for line in text.split("\n") if _APPROVAL_RE.search(line)}


def assess(pm: PluginManager, draft: str, *, change_type: str, declared: str, baseline: bytes | None = None,
           stated_purpose: str = "", name: str = "learned-draft") -> Assessment:
    """Scan the draft, apply the refuse rules, and compute derived and effective risk.

    Raises ``DRAFT_REFUSED`` (a refuse rule fired: rule ids and evidence in the details) or
    ``HIGH_RISK_REJECTED`` (effective risk high).
    """
    from ...kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef
    from ...kernel.sideeffects import classes_of
    from ..scan.engine import finding_json, scan_bundle

    bundle = SkillBundle(SkillRef(name), (SkillFile("SKILL.md", draft.encode("utf-8")),))
    context = ScanContext(purpose="draft", stated_purpose=stated_purpose)
    report = scan_bundle(pm, bundle, context)
    se = report.side_effects
    tags, flags = tuple(se.tags), tuple(se.flags)
    findings = list(se.findings) + _scope_findings(draft, tags, flags)
    refusing = [f for f in findings if f.action == "refuse"]
    evidence = tuple(finding_json(f) for f in refusing)
    if refusing:
        ids = tuple(dict.fromkeys(f.rule_id for f in refusing))
        raise EvolverError("DRAFT_REFUSED", f"the draft hits refuse rules for drafts: {', '.join(ids)}; a person "
                           "must rewrite it", details={"rule_ids": list(ids), "findings": list(evidence),
                                                       "reasons": list(report.review.reasons)})

    rules: list[str] = []
    reasons: list[str] = []

    def add(level_rule: str, reason: str) -> None:
        rules.append(level_rule)
        reasons.append(reason)

    high: list[str] = []
    classes = classes_of(tags, primary_env=se.primary_env, complete=se.complete)
    if "sensitive_credentials" in classes:
        add(RULE_CREDENTIALS, "the draft handles sensitive credentials")
        high.append(RULE_CREDENTIALS)
    if "privileged" in flags or any(t in ("shell:sudo", "shell:su", "shell:doas", "shell:pkexec") for t in tags):
        add(RULE_PRIVILEGED, "the draft uses privileged shell")
        high.append(RULE_PRIVILEGED)
    if report.risk.level == "high":
        add(RULE_POLICY_HIGH, "risk scoring (draft context): " + "; ".join(report.risk.reasons[:4]))
        high.append(RULE_POLICY_HIGH)
    base_tags: set[str] = set()
    base_text = ""
    if baseline is not None and change_type in ("patch_skill", "deprecate_skill"):
        base_text = baseline.decode("utf-8", "replace")
        base_bundle = SkillBundle(SkillRef(name), (SkillFile("SKILL.md", baseline),))
        base_tags = set(pm.classify(base_bundle, context).tags)
    new_tags = sorted(set(tags) - base_tags) if change_type != "create_skill" else []
    if change_type != "create_skill":
        widening = sorted({t.split(":", 1)[0] for t in new_tags if t.startswith(("write:", "delete:", "shell:"))})
        read_only_before = not any(t.startswith(("write:", "delete:", "shell:")) for t in base_tags)
        if widening and read_only_before:
            add(RULE_WIDENS, f"the patch adds {', '.join(widening)} to a version that had no write, delete or shell")
            high.append(RULE_WIDENS)
    if high:
        derived = "high"
    else:
        medium = False
        if change_type == "deprecate_skill":
            add(RULE_DEPRECATE, "deprecating a managed skill is always medium")
            medium = True
        if change_type == "create_skill" and any(t.startswith(("write:", "delete:", "shell:", "network:"))
                                                 for t in tags):
            add(RULE_CREATE_EFFECTS, "a new skill with write, delete, shell or network side effects")
            medium = True
        if change_type == "patch_skill" and new_tags:
            add(RULE_NEW_TAG, f"the patch adds side effects: {', '.join(new_tags[:8])}")
            medium = True
        if change_type == "patch_skill" and baseline is not None:
            before, after = _sections(base_text), _sections(draft)
            changed = [s for s in _BOUNDARY_SECTIONS if before.get(s) != after.get(s)]
            if _approval_lines(base_text) != _approval_lines(draft):
                changed.append("approval or escalation wording")
            if changed:
                add(RULE_BOUNDARY, f"the patch changes {', '.join(changed)}")
                medium = True
        if report.decision == "review" or not se.complete:
            add(RULE_REVIEW, "the review policy asks for a person: " + "; ".join(report.review.reasons[:3]))
            medium = True
        derived = "medium" if medium else "low"
    effective = max_risk(declared, derived)
    assessment = Assessment(derived, effective, tuple(dict.fromkeys(rules)), tuple(reasons), tags, flags,
                            report.decision, evidence)
    if effective == "high":
        raise EvolverError("HIGH_RISK_REJECTED", "the draft is high risk (" + "; ".join(reasons or
                           [f"declared {declared}"]) + "); a person must rewrite it before it can be a candidate",
                           details={"rule_ids": list(assessment.rule_ids), "reasons": list(reasons),
                                    "declared_risk_level": declared, "derived_risk_level": derived,
                                    "tags": list(tags), "flags": list(flags)})
    return assessment
