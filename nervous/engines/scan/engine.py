"""The scan engine: classify → score → judge intent → decide, as a ``nervous.skill-scan.v1`` report.

Used by ``nervous scan``, the installer and the evolver. Limits (specs/security.md §8) are enforced
before classification; exceeding one is a refusal with an ``NV-LIMIT-001`` finding, never a skip.
Nothing in a bundle is executed.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import asdict, field, frozen

from ...kernel.records import (
    Finding,
    IntentVerdict,
    ReviewDecision,
    RiskAssessment,
    ScanContext,
    SideEffects,
    SkillBundle,
)
from ...kernel.sideeffects import ASSUME_WORST, classes_of, icons_of, mcp_hints

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

SCHEMA = "nervous.skill-scan.v1"
LIMIT_RULE = "NV-LIMIT-001"
#: paths of ``target.left_out`` a report lists (``count`` counts them all)
LEFT_OUT_LISTED = 100
_SECRET_RE = re.compile(
    r"(?P<keep>(?:AKIA|ASIA|ghp_|gho_|ghs_|ghu_|github_pat_|xox[abprs]-|sk-|sk_live_|clh_|AIza|glpat-|npm_|hf_|pypi-)"
    r"[A-Za-z0-9_-]{0,4})[A-Za-z0-9_/+=-]{4,}"
    r"|(?P<assign>\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD)[A-Z0-9_]*\s*[=:]\s*['\"]?)"
    r"(?P<val>(?!\$|\{|<)[^\s'\"]{5,})"
)


@frozen
class ScanLimits:
    """Fail-closed limits (§8). Configurable, never disabled: every value must be positive."""

    max_total_bytes: int = 5 * 1024 * 1024
    max_files: int = 200
    max_file_bytes: int = 1024 * 1024
    max_skill_md_bytes: int = 256 * 1024
    max_draft_bytes: int = 64 * 1024
    max_path_bytes: int = 255
    max_depth: int = 10
    max_compression_ratio: float = 100.0
    max_archive_bytes: int = 10 * 1024 * 1024
    max_seconds: float = 30.0

    def __attrs_post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not value or value <= 0:
                from ...errors import UsageError

                raise UsageError(f"scan limit {name} must be positive (limits cannot be disabled)")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def loader_limits(self) -> Any:
        """The same limits for :mod:`nervous.kernel.bundle`'s loaders."""
        from ...kernel.bundle import Limits

        return Limits(max_total_bytes=self.max_total_bytes, max_files=self.max_files,
                      max_file_bytes=self.max_file_bytes, max_depth=self.max_depth,
                      max_compression_ratio=self.max_compression_ratio, max_path_bytes=self.max_path_bytes,
                      max_archive_bytes=self.max_archive_bytes)


DEFAULT_LIMITS = ScanLimits()


@frozen
class ScanReport:
    """The outcome of one scan: the records and the JSON report built from them."""

    decision: str
    side_effects: SideEffects
    risk: RiskAssessment
    review: ReviewDecision
    intent: IntentVerdict | None
    report: dict[str, Any] = field(eq=False)
    elapsed_ms: float = 0.0
    #: CPU milliseconds the scan used: this process's and the analysis worker's (noise-free on a busy machine)
    cpu_ms: float = 0.0

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.side_effects.findings

    def to_json(self) -> dict[str, Any]:
        return self.report


def limit_findings(bundle: SkillBundle, context: ScanContext, limits: ScanLimits = DEFAULT_LIMITS) -> list[Finding]:
    """Every limit the bundle exceeds, as ``NV-LIMIT-001`` findings naming the limit."""
    out: list[Finding] = []

    def hit(limit: str, message: str, file: str | None = None) -> None:
        out.append(Finding(LIMIT_RULE, "Scan limit exceeded", "limits", "high", "refuse", file=file,
                           snippet=message[:200], evidence={"limit": limit}))

    if len(bundle.files) > limits.max_files:
        hit("max_files", f"{len(bundle.files)} files, over the limit of {limits.max_files}")
    if bundle.total_bytes > limits.max_total_bytes:
        hit("max_total_bytes", f"{bundle.total_bytes} bytes in total, over the limit of {limits.max_total_bytes}")
    if context.purpose == "draft" and bundle.total_bytes > limits.max_draft_bytes:
        hit("max_draft_bytes", f"draft is {bundle.total_bytes} bytes, over the limit of {limits.max_draft_bytes}")
    skill = bundle.skill_md
    for f in bundle.files:
        if f.size > limits.max_file_bytes:
            hit("max_file_bytes", f"{f.size} bytes, over the limit of {limits.max_file_bytes}", f.path)
        if f is skill and f.size > limits.max_skill_md_bytes:
            hit("max_skill_md_bytes", f"SKILL.md is {f.size} bytes, over the limit of {limits.max_skill_md_bytes}",
                f.path)
        if len(f.path.encode("utf-8")) > limits.max_path_bytes:
            hit("max_path_bytes", f"path longer than {limits.max_path_bytes} bytes", f.path[:200])
        if f.path.count("/") + 1 > limits.max_depth:
            hit("max_depth", f"nested deeper than {limits.max_depth} levels", f.path)
        if f.path.startswith("/") or ".." in f.path.split("/") or "\\" in f.path:
            hit("unsafe_path", "absolute, '..' or backslash path", f.path[:200])
    return out


def refusal_for_bad_input(details: Mapping[str, Any], message: str) -> Finding:
    """A loader refusal (limits, unsafe entries, encrypted archives) as a finding."""
    rule = str(details.get("rule") or LIMIT_RULE)
    title = "Password-protected archive" if rule == "NV-SUPPLY-002" else "Scan limit exceeded"
    category = "supply-chain" if rule == "NV-SUPPLY-002" else "limits"
    return Finding(rule, title, category, "high" if rule == LIMIT_RULE else "critical", "refuse",
                   file=details.get("entry"), snippet=message[:200],
                   evidence={k: v for k, v in details.items() if k in ("limit", "entry")})


def scan_bundle(pm: PluginManager, bundle: SkillBundle, context: ScanContext | None = None, *,
                limits: ScanLimits = DEFAULT_LIMITS, source: str | None = None,
                extra_findings: tuple[Finding, ...] = (), left_out: Sequence[str] | None = None) -> ScanReport:
    """Scan a bundle held in memory and build its report. Never executes anything from it.

    ``left_out``: the paths of the scanned folder that are not in the bundle (the report's
    ``target.left_out``); ``None`` when that is not known (a bundle not read from a local folder).
    """
    context = context or ScanContext()
    started = time.perf_counter()
    cpu_started = time.process_time()
    worker_cpu = [0.0]
    over = limit_findings(bundle, context, limits) + list(extra_findings)
    if over:
        side_effects = SideEffects(tags=ASSUME_WORST, flags=("incomplete",), findings=tuple(over), complete=False)
    else:
        classified = _classify_bounded(pm, bundle, context, limits.max_seconds - (time.perf_counter() - started),
                                       worker_cpu)
        if classified is not None:
            side_effects = classified
        else:  # cut short at the deadline: nothing is known, assume the worst
            timeout = Finding(LIMIT_RULE, "Scan limit exceeded", "limits", "high", "refuse",
                              snippet=f"analysis stopped at the time limit of {limits.max_seconds:g} s",
                              evidence={"limit": "max_seconds"})
            side_effects = SideEffects(tags=ASSUME_WORST, flags=("incomplete",), findings=(timeout,), complete=False)
            over = [timeout]
    risk = pm.score_risk(bundle, side_effects, context)
    intent = pm.judge_intent(bundle, side_effects, context)
    policy = pm.review_policy()
    review = policy.decide(bundle, side_effects, risk, context, intent)
    decision = review.decision
    if over and decision != "refuse":  # limits are a refusal whatever the policy says
        decision = "refuse"
        review = ReviewDecision("refuse", risk, review.reasons + ("a scan limit was exceeded",),
                                review.rule_ids + (LIMIT_RULE,), review.policy)
    if intent is not None and _rank(decision) < _rank(review.decision):
        decision = review.decision
    report = build_report(bundle, context, side_effects, risk, review, intent, policy, limits,
                          exceeded=[f.evidence.get("limit") for f in over if f.rule_id == LIMIT_RULE],
                          source=source, left_out=left_out)
    elapsed_ms = (time.perf_counter() - started) * 1000
    cpu_ms = (time.process_time() - cpu_started + worker_cpu[0]) * 1000
    return ScanReport(decision, side_effects, risk, review, intent, report, elapsed_ms, cpu_ms)


#: idle classification workers per plugin manager, for the plugins it had when they were forked
_WORKERS: weakref.WeakKeyDictionary[Any, tuple[Any, list[Any]]] = weakref.WeakKeyDictionary()
_WORKERS_LOCK = threading.Lock()
_MAX_IDLE = 4


def _classify_bounded(pm: Any, bundle: SkillBundle, context: ScanContext, seconds: float,
                      worker_cpu: list[float] | None = None) -> SideEffects | None:
    """``pm.classify`` in a worker process killed at the deadline (§8: a timeout is a refusal).

    ``None`` when cut short. Workers are forked from this process (so they have its plugins without
    pickling them) and kept warm for the next scan; a worker that hit the deadline is killed. The
    worker's CPU seconds are added to ``worker_cpu[0]`` when given.
    """
    from ...kernel.bounded import DeadlineExceeded, Worker, call_with_deadline, can_fork

    if seconds <= 0:
        return None
    if not can_fork():
        try:
            return call_with_deadline(lambda: pm.classify(bundle, context), seconds)  # type: ignore[no-any-return]
        except DeadlineExceeded:
            return None
    snapshot = tuple((i.name, i.status) for i in pm.plugins())
    with _WORKERS_LOCK:
        known, idle = _WORKERS.get(pm, (None, []))
        if known != snapshot:  # plugins changed since those workers were forked
            for w in idle:
                w.close()
            idle = []
            _WORKERS[pm] = (snapshot, idle)
            weakref.finalize(pm, _close_all, idle)
        worker = idle.pop() if idle else None
    if worker is None:
        worker = Worker(pm.classify, pause_gc=True)  # nervous's own process: its collector is ours to tune
    try:
        result = worker.call((bundle, context), seconds)
    except DeadlineExceeded:
        return None
    except BaseException:
        worker.close(kill=True)
        raise
    if worker_cpu is not None:
        worker_cpu[0] += worker.last_cpu
    with _WORKERS_LOCK:
        if _WORKERS.get(pm, (None, None))[1] is idle and len(idle) < _MAX_IDLE:
            idle.append(worker)
            worker = None
    if worker is not None:
        worker.close()
    return result  # type: ignore[no-any-return]


def _close_all(workers: list[Any]) -> None:
    for w in workers:
        w.close()
    workers.clear()


def _rank(decision: str) -> int:
    return {"allow": 0, "review": 1, "refuse": 2}[decision]


def build_report(bundle: SkillBundle, context: ScanContext, side_effects: SideEffects, risk: RiskAssessment,
                 review: ReviewDecision, intent: IntentVerdict | None, policy: Any, limits: ScanLimits, *,
                 exceeded: list[Any] | None = None, source: str | None = None,
                 left_out: Sequence[str] | None = None) -> dict[str, Any]:
    from ... import __version__

    classes = classes_of(side_effects.tags, primary_env=side_effects.primary_env, complete=side_effects.complete)
    rules_version = str(getattr(policy, "rules_version", "1"))
    fp_fn = getattr(policy, "fingerprint", None)
    policy_fp = fp_fn(limits.as_dict()) if callable(fp_fn) else hashlib.sha256(json.dumps(
        {"policy": getattr(policy, "name", "?"), "limits": limits.as_dict()}, sort_keys=True).encode()).hexdigest()
    scan = context.registry_scan
    return {
        "schema": SCHEMA,
        "tool": {"name": "nervous", "version": __version__, "rules_version": rules_version,
                 "policy_fingerprint": policy_fp, "policy": getattr(policy, "name", None)},
        "target": {
            "context": context.purpose,
            "ref": str(bundle.ref),
            "source": source or bundle.registry,
            "version": bundle.version,
            "fingerprint": _fingerprint(bundle),
            "files": len(bundle.files),
            "bytes": bundle.total_bytes,
            "left_out": (None if left_out is None else
                         {"count": len(left_out), "paths": list(left_out[:LEFT_OUT_LISTED])}),
        },
        "capabilities": {
            "classes": classes,
            "icons": icons_of(classes),
            "risk_level": risk.level,
            "risk_reasons": list(risk.reasons),
            "tags": list(side_effects.tags),
            "flags": list(side_effects.flags),
            "shell_tiers": dict(side_effects.shell_tiers),
            "complete": side_effects.complete,
            "mcp": mcp_hints(side_effects.tags, side_effects.flags, side_effects.shell_tiers),
        },
        "findings": [finding_json(f) for f in sorted(side_effects.findings,
                                                      key=lambda f: (f.file or "", f.line or 0, f.rule_id))],
        "decision": review.decision if _rank(review.decision) >= 0 else "refuse",
        "reasons": list(review.reasons),
        "limits": {"exceeded": ([x for x in (exceeded or []) if x] or None),
                   "values": limits.as_dict(),
                   "raised": {k: v for k, v in limits.as_dict().items() if v > DEFAULT_LIMITS.as_dict()[k]}},
        "registry": ({"verdict": scan.status, "status": scan.status, "reason": scan.reason,
                      "reason_codes": list(scan.reason_codes)} if scan is not None else None),
        "intent": ({"verdict": intent.verdict, "reason": intent.reason, "judge": intent.judge}
                   if intent is not None else None),
    }


def finding_json(f: Finding) -> dict[str, Any]:
    """A finding as report JSON: snippet masked, and defanged when the finding refuses."""
    snippet = mask_secrets(f.snippet)[:200]
    evidence = {k: v for k, v in dict(f.evidence).items()}
    if f.action == "refuse":
        snippet = defang(snippet)
        evidence = json.loads(defang(json.dumps(evidence, default=str)))
        for key in ("host", "hosts"):
            if isinstance(evidence.get(key), str):
                evidence[key] = defang_host(evidence[key])
            elif isinstance(evidence.get(key), list):
                evidence[key] = [defang_host(str(h)) for h in evidence[key]]
    return {"rule_id": f.rule_id, "title": f.title, "category": f.category, "severity": f.severity,
            "action": f.action, "file": f.file, "line": f.line, "column": f.column, "snippet": snippet,
            "evidence": evidence}


def mask_secrets(text: str) -> str:
    """Keep the first 4 characters of anything that looks like a secret, mask the rest."""

    def repl(m: re.Match[str]) -> str:
        if m.group("assign") is not None:
            val = m.group("val")
            return m.group("assign") + val[:4] + "****"
        return m.group(0)[:max(4, len(m.group("keep") or ""))] + "****"

    return _SECRET_RE.sub(repl, text)


def defang(text: str) -> str:
    """``https://evil.example/x`` → ``hxxps://evil[.]example/x``; bare IPv4 addresses too."""

    def url(m: re.Match[str]) -> str:
        scheme, rest = m.group(1), m.group(2)
        host, sep, path = rest.partition("/")
        return scheme.replace("t", "x", 2) + "://" + host.replace(".", "[.]") + sep + path

    text = re.sub(r"(?i)\b(https?|ftp|wss?)://([^\s'\"<>`]+)", url, text)
    return re.sub(r"\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b", r"\1.\2.\3[.]\4", text)


def defang_host(host: str) -> str:
    return host.replace(".", "[.]")


def _fingerprint(bundle: SkillBundle) -> str:
    from ...kernel.fingerprint import bundle_fingerprint

    return bundle_fingerprint(bundle, exclude={"_meta.json"})
