"""Hard-stop categories on whole words (specs/goals.md §6.3), and plugin-added terms."""

from __future__ import annotations

from typing import Any

import pytest

import nervous
from nervous.engines.goals import HardStopMatcher

ROWS = [
    ("Add reproduction steps to the bug template", None),
    ("Export the policyholder report", None),
    ("Deploy the API to production", "production"),
    ("Rotate API credentials", "credential"),
    ("Avoid data-loss during migration", "data_loss"),
    ("risk of data_loss", "data_loss"),
    ("prevent DataLoss", "data_loss"),
    ("several data losses", "data_loss"),
    ("Fix REGRESSION in parser", "regression"),
    ("Security review of the login flow", "security"),
    ("Update the privacy policies page", "policy"),
    ("non-critical cleanup", "critical"),
    ("productionize the model", None),
    ("insecure defaults", None),
]


@pytest.mark.parametrize("text, category", ROWS)
def test_table(text: str, category: str | None) -> None:
    assert HardStopMatcher().match_text(text) == category


def test_risk_severity_alone_is_not_a_match(goals: Any) -> None:
    goal = goals.analyze("Refactor", risks=[{"severity": "high", "description": "schema churn"}]).goal
    assert HardStopMatcher().match_goal(goal) is None


def test_sources_in_order(goals: Any) -> None:
    goal = goals.analyze("Tidy up", goal="tidy", constraints=["no downtime", "keep credentials safe"],
                         risks=[{"description": "security hole", "severity": "low"}]).goal
    match = HardStopMatcher().match_goal(goal)
    assert match.line == 'Matched hard-stop category "credential" in constraint: keep credentials safe'
    goal = goals.analyze("Tidy", risks=[{"description": "security hole", "severity": "low"}]).goal
    assert HardStopMatcher().match_goal(goal).line == \
        'Matched hard-stop category "security" in risk: low security hole'


def test_first_category_in_order_wins_within_a_source() -> None:
    assert HardStopMatcher().match_text("production security") == "security"


class _ExtraTerms:
    @nervous.hookimpl
    def nervous_hard_stop_terms(self) -> dict[str, list[str]]:
        return {"production": ["prod"], "payments": ["payment", "payments"], "security": []}


def test_plugins_add_terms_never_remove(nervous_pm: Any, goals: Any) -> None:
    nervous_pm.register(_ExtraTerms(), "extra-terms")
    matcher = HardStopMatcher(nervous_pm.hard_stop_terms())
    assert matcher.match_text("ship to prod") == "production"
    assert matcher.match_text("refund payments") == "payments"
    assert matcher.match_text("security audit") == "security"  # built-in terms survive an empty list
    assert matcher.categories[:7] == list(HardStopMatcher().categories)
    fresh = type(goals)(nervous_pm, store=goals.store, scope=goals.scope)
    gid = fresh.analyze("Refund payments").goal.id
    run = fresh.drain(explicit=True).run
    assert "payments" in run.policy.hard_stop_categories
    assert fresh.get(gid).goal.status == "needs_amygdala"
