"""The install gate: the one place that decides whether a skill may reach the disk.

Every path that writes a skill (``install``, acquisition approvals and reflexes, the Python API,
MCP, the evolver's publish, ``integrations install``) calls :meth:`Gate.admit`, always in one order:

1. **registry moderation** — malware, removed, hidden and pending verdicts end here;
2. **integrity** — every published SHA-256 and fingerprint matches, ``_meta.json`` names the skill
   and version that was asked for; a registry that publishes no digests gives an *unverified* skill;
3. **review policy** — the configured policy decides, but the built-in refusals for remote code
   execution, credential exfiltration and unsafe archives are floors no policy lowers;
4. **approval** — who said yes, and how (:class:`Approval`), against ``[approval] mode``;
5. **staged install** — the front end's writer runs inside the admission and nowhere else.

Why one module: front ends differ only in how they ask a person; none keeps its own copy of a check.
"""

from __future__ import annotations

import getpass
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from attrs import field, frozen

from ...errors import BadInput, Refused, RegistryError
from ...kernel.admission import admission, admitted, require_admission
from ...kernel.records import ScanContext, SkillBundle, SkillMetadata, SkillRef, SkillVersion

T = TypeVar("T")

APPROVAL_MODES = ("agent", "person")
#: finding categories whose built-in ``refuse`` no review policy can lower
FLOOR_CATEGORIES = ("execution", "exfiltration")
#: rules that are floors whatever their category (scan limits: an unsafe or oversized archive)
FLOOR_RULES = ("NV-LIMIT-001",)
#: registry verdicts and integrity failures: no approval of any kind overrides them
HARD_CODES = ("malware", "removed", "unavailable", "integrity", "unsafe_path", "meta_mismatch")

@frozen
class Approval:
    """Who said yes to an install, and how.

    ``by``: ``agent`` (a relayed answer: a token, ``--yes``, tool JSON), ``person`` (an answer the
    agent cannot produce itself: a terminal prompt or an MCP elicitation), or ``reflex``.
    ``confirmed``: the extra confirmation a suspicious or unverified skill needs. ``accept_risk``:
    rule ids a person accepted at a terminal to override a refusal.
    """

    by: str = "agent"
    via: str = "token"
    confirmed: bool = False
    accept_risk: tuple[str, ...] = ()
    who: str | None = None

    @classmethod
    def person(cls, via: str, *, accept_risk: Sequence[str] = ()) -> Approval:
        try:
            who = getpass.getuser()
        except Exception:  # no user name on this system: say so rather than guess
            who = "unknown"
        return cls("person", via, True, tuple(accept_risk), who)


@frozen
class Verdict:
    """What the gate found before approval: the review decision, floors, trust in the bytes."""

    label: str
    source: str
    decision: str  # allow | review | refuse
    risk: str = "low"
    rule_ids: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    floors: tuple[str, ...] = ()
    suspicious: bool = False
    verified: bool = True
    report: Any = field(default=None, eq=False, repr=False)
    #: the rules whose own action is ``refuse`` (what a person must name to override)
    refusing: tuple[str, ...] = ()

    @property
    def refused_rules(self) -> tuple[str, ...]:
        """The rule ids a person must name to override a refusal (``policy``: not overridable by rule)."""
        return self.refusing or tuple(r for r in self.rule_ids if r.startswith("NV-")) or ("policy",)

    @property
    def needs_confirmation(self) -> bool:
        return self.suspicious or not self.verified

    @property
    def needs_person(self) -> bool:
        """In ``person`` mode these install only after a person's own confirmation."""
        return self.decision == "review" or self.suspicious or not self.verified

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "source": self.source, "decision": self.decision, "risk": self.risk,
                "rule_ids": list(self.rule_ids), "reasons": list(self.reasons), "floors": list(self.floors),
                "suspicious": self.suspicious, "verified": self.verified}


class NeedsPerson(Refused):
    """``[approval] mode = "person"``: a person must confirm this themselves."""

    code = "needs_person"


# ------------------------------------------------------------------------------------------ 1. moderation


def moderation(meta: SkillMetadata, detail: SkillVersion | None = None) -> list[str]:
    """The registry's verdict on the skill and version: refusals raise, a suspicious flag warns."""
    label = meta.ref.qualified
    if meta.moderation == "malware" or meta.scan.status == "malicious":
        reason = meta.scan.reason or "flagged as malicious"
        codes = f" [{', '.join(meta.scan.reason_codes)}]" if meta.scan.reason_codes else ""
        raise Refused(f"{label} is blocked as malware by {meta.registry}: {reason}{codes}; it is never "
                      "downloaded", code="malware", details={"reason_codes": list(meta.scan.reason_codes)})
    if meta.moderation == "pending":
        raise RegistryError(f"{label} is pending a security scan at {meta.registry}; try again later",
                            code="scan_pending")
    if meta.moderation == "removed":
        raise Refused(f"{label} was removed by {meta.registry}'s moderators", code="removed")
    if meta.moderation == "hidden":
        raise Refused(f"{label} is currently unavailable at {meta.registry}", code="unavailable")
    if detail is None:
        return []
    label = f"{label}@{detail.version}"
    status = detail.scan.status
    if status == "malicious":
        raise Refused(f"{label} is flagged as malicious by {meta.registry}'s scan: "
                      f"{detail.scan.reason or 'no reason given'}; it is never downloaded", code="malware")
    if status == "pending":
        raise RegistryError(f"{label} is pending a security scan at {meta.registry}; try again later",
                            code="scan_pending")
    warnings = []
    if suspicious(meta, detail):
        codes = ", ".join(meta.scan.reason_codes or detail.scan.reason_codes)
        why = detail.scan.reason or meta.scan.reason
        warnings.append(f"{label} is flagged suspicious by {meta.registry}" + (f" ({codes})" if codes else "")
                        + (f": {why}" if why else ""))
    if status in ("unknown", "error", "unreviewed"):
        warnings.append(f"{label} has no clean registry scan ({status}): treated as unreviewed")
    if not published_digests(detail):
        warnings.append(f"{label}: {meta.registry} publishes no SHA-256 digests or fingerprint: the install is "
                        "UNVERIFIED and needs an explicit confirmation")
    return warnings


def suspicious(meta: SkillMetadata, detail: SkillVersion) -> bool:
    return meta.moderation == "suspicious" or detail.scan.status == "suspicious"


def published_digests(detail: SkillVersion, bundle: SkillBundle | None = None) -> bool:
    """Whether the registry published anything to check the bytes against."""
    files = detail.files or (bundle.expected if bundle is not None else ())
    return bool(detail.fingerprint) or any(d.sha256 for d in files)


# ------------------------------------------------------------------------------------------ 2. integrity


def integrity(bundle: SkillBundle, detail: SkillVersion, requested: SkillRef, *, label: str) -> bool:
    """Check the bytes against what the registry published; ``True`` when they were verified.

    Raises on any mismatch. ``False`` means the registry published nothing to check against (an
    unverified install); locally computed digests prove nothing about what the author uploaded.
    """
    verify_bundle(bundle, detail.files or bundle.expected, label=label)
    if detail.fingerprint:
        from ...kernel.fingerprint import bundle_fingerprint

        got = bundle_fingerprint(bundle, exclude={"_meta.json"})
        if got != detail.fingerprint:
            raise BadInput(f"{label}: content fingerprint {got} does not match the registry's {detail.fingerprint}",
                           code="integrity")
    check_meta(bundle, requested, detail.version, label=label)
    return published_digests(detail, bundle)


def verify_bundle(bundle: SkillBundle, expected: tuple[Any, ...], *, label: str) -> None:
    """Every published file present with its SHA-256, and nothing unpublished besides ``_meta.json``."""
    want = {d.path: d.sha256 for d in expected if d.sha256}
    if not want:
        return
    got = {f.path: f.sha256 for f in bundle.files}
    problems = []
    for path, digest in sorted(want.items()):
        if path not in got:
            problems.append(f"{path}: missing from the archive")
        elif got[path] != digest:
            problems.append(f"{path}: sha256 {got[path]} differs from the published {digest}")
    for path in sorted(set(got) - set(want) - {"_meta.json"}):
        problems.append(f"{path}: not among the version's published files")
    if problems:
        raise BadInput(f"{label}: integrity check failed; nothing was installed: " + "; ".join(problems),
                       code="integrity", details={"problems": problems})


def check_meta(bundle: SkillBundle, requested: SkillRef, version: str | None, *, label: str) -> None:
    """A registry archive's ``_meta.json`` must name the slug, owner and version that were asked for."""
    meta_file = bundle.file("_meta.json")
    if meta_file is None:
        return
    try:
        meta = json.loads(meta_file.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadInput(f"{label}: the archive's _meta.json is not valid JSON; nothing was installed",
                       code="meta_mismatch") from None
    if not isinstance(meta, dict):
        raise BadInput(f"{label}: the archive's _meta.json is not an object; nothing was installed",
                       code="meta_mismatch")
    problems = []
    slug = meta.get("slug")
    if slug is not None and slug != requested.name:
        problems.append(f"slug {slug!r} (asked for {requested.name!r})")
    owner = meta.get("ownerHandle", meta.get("owner"))
    if owner is not None and requested.owner and str(owner).lstrip("@") != requested.owner:
        problems.append(f"owner {owner!r} (asked for {requested.owner!r})")
    got_version = meta.get("version")
    if got_version is not None and version and str(got_version) != version:
        problems.append(f"version {got_version!r} (asked for {version!r})")
    if problems:
        raise BadInput(f"{label}: the archive's _meta.json names another skill: " + "; ".join(problems)
                       + "; nothing was installed. _meta.json is the registry's record of the skill it serves: the "
                       "registry must correct it (in a local registry folder: correct or delete the skill folder's "
                       "_meta.json)", code="meta_mismatch", details={"problems": problems, "file": "_meta.json"})


# ------------------------------------------------------------------------------------------ 3. review


def review(pm: Any, bundle: SkillBundle, *, label: str, source: str, context: ScanContext | None = None,
           suspicious: bool = False, verified: bool = True) -> Verdict:
    """The configured policy's decision, raised to the built-in floors; a policy can only add risk."""
    from ..scan.engine import scan_bundle

    report = scan_bundle(pm, bundle, context or ScanContext(purpose="install"), source=source)
    floors = tuple(dict.fromkeys(
        f.rule_id for f in report.side_effects.findings
        if f.action == "refuse" and (f.category in FLOOR_CATEGORIES or f.rule_id in FLOOR_RULES)))
    decision, reasons, rule_ids = report.decision, list(report.review.reasons), list(report.review.rule_ids)
    if floors and decision != "refuse":
        decision = "refuse"
        reasons.append(f"built-in rule(s) {', '.join(floors)} refuse whatever the configured policy decides")
    rule_ids += [r for r in floors if r not in rule_ids]
    if decision == "allow" and (suspicious or not verified):
        decision = "review"
    refusing = tuple(dict.fromkeys(f.rule_id for f in report.side_effects.findings if f.action == "refuse"))
    return Verdict(label, source, decision, report.risk.level, tuple(rule_ids), tuple(reasons), floors,
                   suspicious, verified, report, refusing)


# ------------------------------------------------------------------------------------------ 4. approval


def approval_mode(pm: Any) -> str:
    mode = getattr(getattr(pm.config, "approval", None), "mode", "agent")
    return mode if mode in APPROVAL_MODES else "person"


def check_approval(verdict: Verdict, approval: Approval, mode: str, *, retry: str = "") -> None:
    """Raise unless ``approval`` is enough for ``verdict`` under ``mode``. ``retry`` says how to ask again."""
    label = verdict.label
    if verdict.decision == "refuse":
        needed = verdict.refused_rules
        accepted = set(approval.accept_risk)
        final = "policy" in needed or bool(set(needed) & set(FLOOR_RULES))  # no rule to accept, or limits
        overridable = approval.by == "person" and approval.via == "terminal" and not final
        if overridable and set(needed) <= accepted:
            return
        how = (f"; a person who disagrees can override it only at a terminal: {retry} "
               + " ".join(f"--accept-risk {r}" for r in needed)) if retry and not final else ""
        if final:
            how = "; this refusal cannot be overridden (a scan limit, or a policy refusal naming no rule)"
        elif approval.accept_risk and not overridable:
            how = "; --accept-risk is honoured only from a person at an interactive terminal" + how
        missing = sorted(set(needed) - accepted)
        if approval.accept_risk and overridable and missing:
            how = f"; not accepted: {', '.join(missing)}" + how
        raise Refused(f"{label} is refused ({', '.join(needed)}): " + ("; ".join(verdict.reasons) or "refused")
                      + how, code="refused", details={"rule_ids": list(verdict.rule_ids),
                                                      "floors": list(verdict.floors)})
    if approval.by == "reflex":
        why = [w for w, bad in (("our scan did not allow it", verdict.decision != "allow"),
                                ("the registry flags it suspicious", verdict.suspicious),
                                ("it is unverified (no published digests)", not verdict.verified)) if bad]
        if why:
            raise Refused(f"{label} is never installed as a reflex: {'; '.join(why)}", code="reflex_blocked")
        return
    if approval.by not in ("agent", "person"):
        raise Refused(f"{label}: nothing approved this install (silence is never approval)",
                      code="confirmation_required")
    if mode == "person" and verdict.needs_person and approval.by != "person":
        what = "; ".join(w for w, bad in (("review-level", verdict.decision == "review"),
                                           ("flagged suspicious", verdict.suspicious),
                                           ("unverified", not verdict.verified)) if bad)
        raise NeedsPerson(f"{label} is {what}: with [approval] mode = \"person\" it installs only after the "
                          "person confirms it themselves" + (f"; ask them to run at a terminal: {retry}" if retry
                                                              else ""),
                          details={"run": retry, "verdict": verdict.to_json()})
    if verdict.needs_confirmation and not approval.confirmed:
        what = " and ".join(w for w, bad in (("flagged suspicious by its registry", verdict.suspicious),
                                              ("unverified (its registry publishes no digests)",
                                               not verdict.verified)) if bad)
        raise Refused(f"{label} is {what}; install it only after an explicit confirmation "
                      "(--confirm-suspicious / confirm_suspicious: 'install anyway')", code="confirmation_required",
                      details={"verdict": verdict.to_json()})


# ------------------------------------------------------------------------------------------ 5. staged install


class Gate:
    """Admits one candidate through every stage, then runs the front end's writer inside the admission."""

    def __init__(self, pm: Any) -> None:
        self.pm = pm

    def admit(self, verdict: Verdict, approval: Approval, writer: Callable[[], T], *, retry: str = "") -> T:
        """Check approval for ``verdict`` and run ``writer`` (the staged install) as admitted."""
        check_approval(verdict, approval, approval_mode(self.pm), retry=retry)
        overridden = verdict.decision == "refuse"
        with admission(verdict):
            result = writer()
        data = {"skill": verdict.label, "source": verdict.source, "decision": verdict.decision,
                "verified": verdict.verified, "suspicious": verdict.suspicious, "approved_by": approval.by,
                "via": approval.via, "who": approval.who}
        if overridden:
            data["accepted_rules"] = list(approval.accept_risk)
            self.pm.emit("install.override", data)
        self.pm.emit("gate.admit", data)
        return result


__all__ = ["Approval", "Gate", "admission", "NeedsPerson", "Verdict", "admitted", "approval_mode", "check_approval",
           "check_meta", "integrity", "moderation", "published_digests", "require_admission", "review",
           "suspicious", "verify_bundle", "APPROVAL_MODES"]
