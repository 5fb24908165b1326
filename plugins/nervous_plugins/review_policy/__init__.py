"""Built-in classifier, risk scorer and ``default`` review policy (specs/security.md).

Hooks: ``nervous_classify`` (static side-effect classification), ``nervous_score_risk`` (install or
draft risk level) and ``nervous_review_policies`` (the ``default`` policy). Detectors are imported
on first use so loading the plugin stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, RiskAssessment, ScanContext, SideEffects, SkillBundle, hookimpl

_CLASSIFIER: Any = None


def _classifier() -> Any:
    global _CLASSIFIER
    if _CLASSIFIER is None:
        from .classifier import Classifier

        _CLASSIFIER = Classifier()
    return _CLASSIFIER


@hookimpl
def nervous_classify(bundle: SkillBundle, context: ScanContext) -> SideEffects:
    return _classifier().classify(bundle, context)  # type: ignore[no-any-return]


@hookimpl
def nervous_score_risk(bundle: SkillBundle, side_effects: SideEffects, context: ScanContext) -> RiskAssessment:
    from .scorer import score

    return score(side_effects, context)


def _default_policy(ctx: Any) -> Any:
    from .policy import DefaultReviewPolicy

    return DefaultReviewPolicy()


@hookimpl
def nervous_review_policies() -> list[Provider]:
    return [Provider("default", "Refuse malicious patterns, review powerful or undecidable skills, else allow.",
                     _default_policy)]
