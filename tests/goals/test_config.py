"""Goal configuration rules (specs/goals.md §7)."""

from __future__ import annotations

from typing import Any

import pytest

from nervous.engines.goals import GoalError
from nervous.engines.goals.settings import parse_tokens


def test_defaults(goals: Any) -> None:
    cfg = goals.get_config().config
    assert (cfg.drain_mode, cfg.default_drain_policy, cfg.risk_gate_mode, cfg.risk_gate_evidence) == (
        "on_explicit_nervous", "default", "auto_deliberate", None)


def test_set_and_persist(goals: Any) -> None:
    cfg = goals.set_config(drain_mode="always", default_drain_policy="conservative", risk_gate_mode="strict").config
    assert cfg.updated_at == "2026-06-17T09:00:00.000Z"
    again = goals.get_config().config
    assert (again.drain_mode, again.default_drain_policy, again.risk_gate_mode) == ("always", "conservative",
                                                                                     "strict")


@pytest.mark.parametrize("kwargs, code", [
    ({}, "invalid_arg"),
    ({"drain_mode": "sometimes"}, "invalid_arg"),
    ({"risk_gate_mode": "lax"}, "invalid_arg"),
    ({"default_drain_policy": "reckless"}, "invalid_arg"),
    ({"risk_gate_mode": "disabled"}, "not_permitted"),
    ({"risk_gate_mode": "disabled", "dangerous_opt_in": True}, "not_permitted"),
    ({"risk_gate_mode": "disabled", "risk_gate_evidence": "window"}, "not_permitted"),
    ({"risk_gate_evidence": "window", "dangerous_opt_in": True}, "invalid_arg"),
])
def test_refusals_write_nothing(goals: Any, kwargs: dict[str, Any], code: str) -> None:
    goals.analyze("x")
    before = goals.store.read("goals", "demo/main").value
    with pytest.raises(GoalError) as err:
        goals.set_config(**kwargs)
    assert err.value.code == code
    assert goals.store.read("goals", "demo/main").value == before


def test_unknown_values_list_the_allowed_ones(goals: Any) -> None:
    with pytest.raises(GoalError) as err:
        goals.set_config(drain_mode="sometimes")
    assert "off, on_explicit_nervous, always" in err.value.message


def test_disabled_gate_lifecycle(goals: Any) -> None:
    cfg = goals.set_config(risk_gate_mode="disabled", dangerous_opt_in=True, risk_gate_evidence="window 1").config
    assert cfg.risk_gate_evidence == "window 1"
    doc = goals.store.read("goals", "demo/main").value
    assert "dangerous_opt_in" not in doc["config"]
    with pytest.raises(GoalError):
        goals.set_config(risk_gate_evidence="window 2")  # opt-in needed again
    assert goals.set_config(risk_gate_evidence="window 2", dangerous_opt_in=True).config.risk_gate_evidence == \
        "window 2"
    cfg = goals.set_config(risk_gate_mode="user_accepted").config
    assert cfg.risk_gate_evidence is None
    assert "risk_gate_evidence" not in goals.store.read("goals", "demo/main").value["config"]


def test_tokens_and_aliases() -> None:
    assert parse_tokens(["drain=always", "risk=strict", "policy=aggressive"]) == {
        "drain_mode": "always", "risk_gate_mode": "strict", "default_drain_policy": "aggressive"}
    assert parse_tokens(['risk_gate=disabled dangerous_opt_in=true evidence="approved automation window"']) == {
        "risk_gate_mode": "disabled", "dangerous_opt_in": "true", "risk_gate_evidence": "approved automation window"}
    assert parse_tokens(["drain_mode=off", "risk_gate_mode=user_accepted", "default_drain_policy=default",
                         "risk_gate_evidence=x"]) == {"drain_mode": "off", "risk_gate_mode": "user_accepted",
                                                      "default_drain_policy": "default", "risk_gate_evidence": "x"}
    for bad in (["speed=fast"], ["drain"]):
        with pytest.raises(GoalError) as err:
            parse_tokens(bad)
        assert err.value.code == "invalid_arg"
