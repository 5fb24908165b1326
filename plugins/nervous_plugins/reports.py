"""Scan report writers: ``json``, ``sarif`` (SARIF 2.1.0) and ``table`` (for people).

Each provider's factory returns ``render(report: dict) -> str`` over a ``nervous.skill-scan.v1``
report (specs/security.md §11). The SARIF writer reads rule metadata from the built-in catalogue and
falls back to the finding itself for rules a third-party plugin added.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from nervous.plugin import Provider, hookimpl
from nervous.plugin.toolkit import nervous_version

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SECURITY_SEVERITY = {"critical": 9.5, "high": 8.0, "medium": 5.5, "low": 3.0, "info": 1.0}
LEVEL = {"refuse": "error", "review": "warning", "note": "note", "info": "note"}
DEFAULT_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False)


def _catalogue() -> dict[str, dict[str, Any]]:
    try:
        from nervous_plugins.review_policy.catalogue import catalogue_json
    except ImportError:  # the review-policy plugin is not installed
        return {}
    return {r["id"]: r for r in catalogue_json()}


def _fingerprint(rule_id: str, path: str, snippet: str) -> str:
    norm = re.sub(r"\s+", " ", snippet).strip().lower()
    import hashlib

    return hashlib.sha256(f"{rule_id}\n{path}\n{norm}".encode()).hexdigest()


def render_sarif(report: dict[str, Any]) -> str:
    """SARIF 2.1.0, one run; rule ids are the catalogue's, levels follow the finding's action."""
    catalogue = _catalogue()
    findings = report.get("findings", [])
    rule_ids = list(dict.fromkeys(f["rule_id"] for f in findings))
    rules = []
    for rid in rule_ids:
        meta = catalogue.get(rid)
        sample = next(f for f in findings if f["rule_id"] == rid)
        title = (meta or {}).get("title") or sample.get("title") or rid
        severity = (meta or {}).get("severity") or sample.get("severity") or "medium"
        category = (meta or {}).get("category") or sample.get("category") or "security"
        rules.append({
            "id": rid,
            "name": re.sub(r"[^A-Za-z0-9]+", "", title.title()) or rid,
            "shortDescription": {"text": title},
            "fullDescription": {"text": (meta or {}).get("description") or title},
            "help": {"text": (meta or {}).get("remediation") or "Review the finding."},
            "defaultConfiguration": {"level": DEFAULT_LEVEL.get(severity, "warning")},
            "properties": {"tags": [category, "security"],
                           "security-severity": f"{SECURITY_SEVERITY.get(severity, 5.5):.1f}",
                           "precision": "high" if severity in ("critical", "high") else "medium"},
        })
    index = {rid: i for i, rid in enumerate(rule_ids)}
    results = []
    for f in findings:
        path = f.get("file") or "SKILL.md"
        region: dict[str, Any] = {"startLine": max(1, int(f.get("line") or 1))}
        if f.get("column"):
            region["startColumn"] = max(1, int(f["column"]))
        if f.get("snippet"):
            region["snippet"] = {"text": f["snippet"]}
        message = f["title"] + (f": {f['snippet']}" if f.get("snippet") else "")
        results.append({
            "ruleId": f["rule_id"],
            "ruleIndex": index[f["rule_id"]],
            "level": LEVEL.get(f.get("action", "review"), "warning"),
            "message": {"text": message[:1000]},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": path, "uriBaseId": "SKILLROOT"},
                "region": region,
            }}],
            "partialFingerprints": {"nervous/v1": _fingerprint(f["rule_id"], path, f.get("snippet", ""))},
            "properties": {"action": f.get("action"), "severity": f.get("severity"), "category": f.get("category")},
        })
    tool = report.get("tool", {})
    caps = report.get("capabilities", {})
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "nervous",
                "semanticVersion": tool.get("version", nervous_version),
                "informationUri": "https://github.com/nervous-agents/nervous",
                "rules": rules,
                "properties": {"rules_version": tool.get("rules_version"),
                               "policy_fingerprint": tool.get("policy_fingerprint")},
            }},
            "originalUriBaseIds": {"SKILLROOT": {"description": {"text": "The scanned skill's root folder."}}},
            "invocations": [{"executionSuccessful": True}],
            "results": results,
            "properties": {
                "decision": report.get("decision"),
                "classes": caps.get("classes", []),
                "tags": caps.get("tags", []),
                "mcp": caps.get("mcp", {}),
                "risk_level": caps.get("risk_level"),
                "target": report.get("target", {}),
            },
        }],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False)


#: findings a table shows: a report of thousands (a folder at the scan limits) would fill the terminal
TABLE_ROWS = 40
#: paths left out of a folder scan that the table names (the JSON report lists up to 100, and counts all)
LEFT_OUT_SHOWN = 5
_ACTION_ORDER = {"refuse": 0, "review": 1}


def _action_rank(action: str) -> int:
    return _ACTION_ORDER.get(action, len(_ACTION_ORDER))


def render_table(report: dict[str, Any]) -> str:
    """A short summary and one row per finding (refusals first, at most :data:`TABLE_ROWS`), for people."""
    from nervous.plugin.toolkit import table

    caps = report.get("capabilities", {})
    target = report.get("target", {})
    lines = [
        f"{target.get('ref')}  ({target.get('files')} files, {target.get('bytes')} bytes)",
        f"decision: {report.get('decision')}   risk: {caps.get('risk_level')}   "
        f"{caps.get('icons', '')} {', '.join(caps.get('classes', []))}",
    ]
    left_out = target.get("left_out") or {}
    if left_out.get("count"):  # a folder's dot names, node_modules and ignored paths: say they were not read
        shown = left_out.get("paths", [])[:LEFT_OUT_SHOWN]
        more = left_out["count"] - len(shown)
        lines.append(f"not scanned: {left_out['count']:,} path(s) left out (dot names, node_modules, ignore files): "
                     + ", ".join(shown) + (f" (+{more:,} more: target.left_out in --json)" if more > 0 else ""))
    if caps.get("flags"):
        lines.append("flags: " + ", ".join(caps["flags"]))
    if caps.get("tags"):
        shown = caps["tags"][:12]
        more = len(caps["tags"]) - len(shown)
        lines.append("tags: " + ", ".join(shown) + (f" (+{more} more)" if more > 0 else ""))
    findings = report.get("findings", [])
    if findings:
        # refusals first, then reviews, each in the report's order; a person reads the first screenful
        listed = sorted(findings, key=lambda f: _action_rank(f["action"]))[:TABLE_ROWS]
        rows = [[f["action"], f["rule_id"], f"{f.get('file') or '-'}:{f.get('line') or '-'}", f["title"],
                 f.get("snippet", "")] for f in listed]
        lines += ["", table(rows, ["action", "rule", "where", "title", "evidence"])]
        if len(findings) > len(listed):
            rest = Counter(f["action"] for f in findings) - Counter(f["action"] for f in listed)
            by_action = ", ".join(f"{rest[a]:,} {a}" for a in sorted(rest, key=_action_rank))
            lines.append(f"... and {len(findings) - len(listed):,} more findings ({by_action}); "
                         "--json or --format sarif lists every one")
    else:
        lines.append("no findings")
    # what decided beyond the findings: registry verdict, intent judge, incomplete classification, limits
    others = [r for r in report.get("reasons", []) if not str(r).startswith("NV-")]
    if others:
        lines += [""] + [f"also: {r}" for r in others]
    return "\n".join(lines)


def _factory(fn: Callable[[dict[str, Any]], str]) -> Callable[[Any], Callable[[dict[str, Any]], str]]:
    return lambda ctx: fn


@hookimpl
def nervous_report_formats() -> list[Provider]:
    return [
        Provider("json", "The nervous.skill-scan.v1 JSON report.", _factory(render_json)),
        Provider("sarif", "SARIF 2.1.0 for code-scanning tools.", _factory(render_sarif)),
        Provider("table", "A readable summary with one row per finding.", _factory(render_table)),
    ]
