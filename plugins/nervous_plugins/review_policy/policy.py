"""The ``default`` review policy: findings decide, registry and intent verdicts can only raise."""

from __future__ import annotations

from nervous.plugin import (
    DECISION_ORDER,
    Finding,
    IntentVerdict,
    ReviewDecision,
    RiskAssessment,
    ScanContext,
    SideEffects,
    SkillBundle,
)

ACTION_TO_DECISION = {"note": "allow", "info": "allow", "review": "review", "refuse": "refuse"}


def _raise(current: str, to: str) -> str:
    return to if DECISION_ORDER[to] > DECISION_ORDER[current] else current


def _check(finding: Finding) -> str:
    """What a person should check for a finding: its detector's own line (naming the host, the tool), else the rule's."""
    from .catalogue import what_to_check

    return (finding.evidence or {}).get("check") or what_to_check(finding.rule_id)


class DefaultReviewPolicy:
    """refuse if any finding refuses, else review if any reviews or classification is incomplete, else allow."""

    name = "default"

    @property
    def rules_version(self) -> str:
        from .catalogue import RULES_VERSION

        return RULES_VERSION

    def fingerprint(self, limits: dict[str, object]) -> str:
        """SHA-256 over the active rules, their actions and the limits (reports compare only when equal)."""
        from .catalogue import policy_fingerprint

        return policy_fingerprint(dict(limits), {"policy": self.name})

    def rules(self) -> list[dict[str, object]]:
        from .catalogue import catalogue_json

        return catalogue_json()

    @staticmethod
    def _second_stage(decision: str, side_effects: SideEffects, reasons: list[str]) -> str:
        """Move the rules' decision by at most one step with the second stage's score (second_stage.py)."""
        from nervous.plugin.toolkit import classes_of

        from .catalogue import BY_ID
        from .second_stage import adjust, explain, load_model

        model = load_model()
        if model is None:
            return decision
        findings = [(f.rule_id, f.action) for f in side_effects.findings]
        classes = classes_of(side_effects.tags, primary_env=side_effects.primary_env, complete=side_effects.complete)
        adj = adjust(decision, findings, classes, side_effects.flags, complete=side_effects.complete, model=model)
        if not adj.changed:
            if decision != "allow":
                reasons.append(explain(adj))
            return decision
        line = f"{explain(adj)}: {decision} -> {adj.decision}"
        if adj.decision == "review":
            # a lowered refusal or a raised allow: say what a person should check, from the strongest rule
            order = {"note": 0, "review": 1, "refuse": 2}
            ranked = [f for f in side_effects.findings if f.rule_id in BY_ID and f.action in order]
            if ranked:
                line += f"; check: {_check(min(ranked, key=lambda f: (-order[f.action], f.rule_id)))}"
        reasons.append(line)
        return adj.decision

    def decide(self, bundle: SkillBundle, side_effects: SideEffects, risk: RiskAssessment, context: ScanContext,
               intent: IntentVerdict | None) -> ReviewDecision:
        from .catalogue import BY_ID

        decision = "allow"
        reasons: list[str] = []
        rule_ids: list[str] = []
        for f in side_effects.findings:
            d = ACTION_TO_DECISION.get(f.action, "review")
            if d != "allow":
                rule_ids.append(f.rule_id)
                where = f"{f.file}:{f.line}" if f.file and f.line else (f.file or "bundle")
                check = f"; check: {_check(f)}" if f.action == "review" and f.rule_id in BY_ID else ""
                reasons.append(f"{f.rule_id} {f.title} ({where}) -> {f.action}{check}")
            decision = _raise(decision, d)
        if not side_effects.complete:
            decision = _raise(decision, "review")
            reasons.append("classification incomplete: worst case assumed, a person must review")
        if context.purpose != "draft":
            decision = self._second_stage(decision, side_effects, reasons)
        scan = context.registry_scan
        if scan is not None:
            if scan.status in ("malicious", "malware"):
                decision = _raise(decision, "refuse")
                reasons.append(f"registry scan verdict: {scan.status}" + (f" ({scan.reason})" if scan.reason else ""))
            elif scan.status == "suspicious":
                decision = _raise(decision, "review")
                reasons.append("registry scan verdict: suspicious" + (f" ({scan.reason})" if scan.reason else ""))
        if intent is not None and intent.verdict != "coherent":
            # unknown: a judge was asked and could not tell, which is a concern, never approval
            decision = _raise(decision, "refuse" if intent.verdict == "deceptive" else "review")
            judge = f" {intent.judge}" if intent.judge else ""
            reasons.append(f"intent judge{judge}: {intent.verdict}" + (f": {intent.reason}" if intent.reason else ""))
        if context.purpose == "draft" and risk.level == "high":
            decision = _raise(decision, "refuse")
            reasons.append("draft risk is high (HIGH_RISK_REJECTED)")
        return ReviewDecision(decision=decision, risk=risk, reasons=tuple(dict.fromkeys(reasons)),  # type: ignore[arg-type]
                              rule_ids=tuple(dict.fromkeys(rule_ids)), policy=self.name)
