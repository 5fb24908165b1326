"""Scan on publish: the configured review policy decides; its decision becomes the registry verdict.

``refuse`` -> ``malicious`` (blocked: never downloadable), ``review`` -> ``suspicious`` (hidden from
search unless asked, marked in details), ``allow`` -> ``clean``. The verdict, rule ids, policy name
and rules version are stored with the version and served in the scan and moderation answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VERDICT_OF = {"refuse": "malicious", "review": "suspicious", "allow": "clean"}
_SEVERITY = {"critical": "critical", "high": "warn", "medium": "warn", "low": "info", "info": "info"}


def scan_files(pm: Any, slug: str, owner: str, version: str, files: Mapping[str, bytes], at: int) -> dict[str, Any]:
    """Run the review policy over the files; the ``moderation`` record stored with the version."""
    from ...engines.scan.engine import scan_bundle
    from ...kernel.bundle import make_bundle
    from ...kernel.records import ScanContext, SkillRef

    bundle = make_bundle(sorted(files.items()), ref=SkillRef(slug, owner=owner), version=version,
                         registry="nervous-registry")
    result = scan_bundle(pm, bundle, ScanContext(purpose="install"), source="publish")
    report = result.report
    tool = report.get("tool", {})
    findings = [{"code": f.get("rule_id"), "severity": _SEVERITY.get(str(f.get("severity")), "warn"),
                 "file": f.get("file"), "line": f.get("line"), "message": f.get("title") or f.get("rule_id")}
                for f in report.get("findings", [])[:100]]
    rule_ids = list(dict.fromkeys([*result.review.rule_ids, *(f["code"] for f in findings if f["code"])]))
    caps = report.get("capabilities", {})
    return {
        "verdict": VERDICT_OF[result.decision],
        "decision": result.decision,
        "ruleIds": rule_ids,
        "reasons": list(result.review.reasons)[:20],
        "policy": tool.get("policy") or result.review.policy,
        "policyVersion": str(tool.get("rules_version", "1")),
        "policyFingerprint": tool.get("policy_fingerprint"),
        "sideEffects": list(caps.get("classes", [])),
        "riskLevel": caps.get("risk_level"),
        "findings": findings,
        "checkedAt": at,
        "override": None,
    }
