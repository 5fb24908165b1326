"""The goal store's own configuration (specs/goals.md §7): drain mode, default policy, risk gate.

Disabling the risk gate is a dangerous choice, so it needs an explicit opt-in and evidence in the
same call, and leaving ``disabled`` forgets the evidence.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from typing import Any

from . import args as A
from .actions import Ctx
from .document import GoalFile
from .errors import GoalError, invalid_arg
from .model import DRAIN_MODES, GATE_MODES, GoalConfig

SETTING_KEYS = ("drain_mode", "default_drain_policy", "risk_gate_mode", "risk_gate_evidence")

#: ``key=value`` spellings a command front end accepts
ALIASES = {
    "drain": "drain_mode", "drain_mode": "drain_mode",
    "risk": "risk_gate_mode", "risk_gate": "risk_gate_mode", "risk_gate_mode": "risk_gate_mode",
    "policy": "default_drain_policy", "default_drain_policy": "default_drain_policy",
    "evidence": "risk_gate_evidence", "risk_gate_evidence": "risk_gate_evidence",
    "dangerous_opt_in": "dangerous_opt_in",
}


def parse_tokens(tokens: Sequence[str]) -> dict[str, str]:
    """``drain=always risk="user_accepted"`` → canonical keys; quoted values allowed."""
    words: list[str] = []
    for token in tokens:
        words.extend(shlex.split(token) if any(q in token for q in "\"'") else [token])
    out: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        canonical = ALIASES.get(key.strip().lower().replace("-", "_"))
        if not sep or canonical is None:
            raise invalid_arg(f"set_config: {word!r} is not key=value with a known key "
                              f"({', '.join(sorted(ALIASES))})")
        out[canonical] = value.strip()
    return out


def set_config(gf: GoalFile, ctx: Ctx, policies: Iterable[str], *, drain_mode: Any = None,
               default_drain_policy: Any = None, risk_gate_mode: Any = None, risk_gate_evidence: Any = None,
               dangerous_opt_in: Any = None) -> GoalConfig:
    if all(v is None for v in (drain_mode, default_drain_policy, risk_gate_mode, risk_gate_evidence)):
        raise invalid_arg(f"set_config needs at least one of {', '.join(SETTING_KEYS)}")
    drain = A.choice(drain_mode, "drain_mode", DRAIN_MODES)
    gate = A.choice(risk_gate_mode, "risk_gate_mode", GATE_MODES)
    policy = A.optional_str(default_drain_policy, "default_drain_policy")
    available = sorted(policies)
    if policy is not None and policy not in available:
        raise invalid_arg(f"default_drain_policy: unknown policy {policy!r}; available: {', '.join(available)}")
    evidence = A.optional_str(risk_gate_evidence, "risk_gate_evidence")
    opt_in = A.flag(dangerous_opt_in, "dangerous_opt_in") or False
    cfg = gf.config
    if gate == "disabled" and cfg.risk_gate_mode != "disabled":
        if not opt_in or not evidence:
            raise GoalError("not_permitted", "disabling the risk gate needs dangerous_opt_in=true and a non-empty "
                            "risk_gate_evidence in the same call")
    elif evidence is not None:
        target = gate or cfg.risk_gate_mode
        if target != "disabled" or not opt_in or not evidence:
            raise invalid_arg("risk_gate_evidence is accepted only while the gate is disabled, non-empty, and with "
                              "dangerous_opt_in=true")
    if drain is not None:
        cfg.drain_mode = drain
    if policy is not None:
        cfg.default_drain_policy = policy
    if gate is not None:
        cfg.risk_gate_mode = gate
    if cfg.risk_gate_mode == "disabled":
        if evidence:
            cfg.risk_gate_evidence = evidence
    else:
        cfg.risk_gate_evidence = None
    cfg.updated_at = ctx.now
    return cfg


def describe(cfg: GoalConfig) -> str:
    line = f"drain={cfg.drain_mode} policy={cfg.default_drain_policy} risk={cfg.risk_gate_mode}"
    if cfg.risk_gate_evidence:
        line += f" (evidence: {cfg.risk_gate_evidence})"
    return line
