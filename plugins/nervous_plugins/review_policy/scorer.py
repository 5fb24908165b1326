"""Risk scoring: the blast radius of a skill from its tags and flags (specs/security.md §2)."""

from __future__ import annotations

from nervous.plugin import RiskAssessment, ScanContext, SideEffects
from nervous.plugin.toolkit import classes_of

from .risk import risk_level, risk_reasons


def score(side_effects: SideEffects, context: ScanContext) -> RiskAssessment:
    tags, flags, tiers = side_effects.tags, side_effects.flags, side_effects.shell_tiers
    level = risk_level(tags, flags, tiers, primary_env=side_effects.primary_env)
    reasons = risk_reasons(tags, flags, tiers, primary_env=side_effects.primary_env)
    if context.purpose == "draft":
        # evolver drafts: a credential or network-send capability is already high (specs/evolver.md §6.2)
        classes = classes_of(tags, primary_env=side_effects.primary_env, complete=side_effects.complete)
        if "sensitive_credentials" in classes or "network_send" in flags:
            level = "high"
            reasons.append("draft context: credential or network-send capability")
        if any(f.action == "refuse" for f in side_effects.findings):
            level = "high"
            reasons.append("draft context: a refuse rule fired")
    if not side_effects.complete:
        reasons.append("classification incomplete: worst case assumed")
    return RiskAssessment(level, tuple(dict.fromkeys(reasons)), findings=(), source="review-policy")  # type: ignore[arg-type]
