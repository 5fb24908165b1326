"""The review policy's second stage: a small logistic model over what the rules found.

Why: static rules sit at a trade-off frontier (a rule that stops refusing an ordinary skill also stops
catching some malicious one). The second stage weighs the *combination* of findings a skill has (which
rules fired at which action, how many families, the side-effect classes and flags) and moves the rules'
decision by at most one step: a soft refusal with a low score becomes *review*, a review with a low score
becomes *allow*, an allowed skill with a high score becomes *review*. It never reads text: its features are
rule ids, actions, counts, classes and flags only, so it cannot memorise content.

Guarantees that do not depend on the score: a refusal by a rule in ``hard_rules`` (the techniques spec §9
names: credentials sent out, payloads fetched or decoded and run, concealment, prior-approval claims,
persistence plants, …) stays a refusal; an incomplete scan stays at least *review*, and what went
unread never lowers a refusal's score; rules in ``review_floor`` are never released to *allow*.

The weights live in ``second_stage.json`` beside this module, written by
``python benchmarks/train_second_stage.py`` (deterministic: same inputs, byte-identical file).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from attrs import frozen

MODEL_PATH = Path(__file__).with_name("second_stage.json")
FORMAT = 1
ACTIONS = ("note", "review", "refuse")
#: the features that say part of the skill went unread
UNSEEN = frozenset({"incomplete", "flag:incomplete"})


def family(rule_id: str) -> str:
    """``NV-EXEC-001`` -> ``NV-EXEC`` (``NV-SUPPLY-003b`` -> ``NV-SUPPLY``)."""
    head, _, _ = rule_id.rpartition("-")
    return head or rule_id


def features(findings: Iterable[tuple[str, str]], classes: Iterable[str] = (), flags: Iterable[str] = (),
             *, complete: bool = True) -> dict[str, float]:
    """Binary features of one skill from its findings ``(rule id, action)``, classes and flags."""
    fired = {(r, a) for r, a in findings if a in ACTIONS}
    out: dict[str, float] = {f"rule:{r}:{a}": 1.0 for r, a in fired}
    acting = {(r, a) for r, a in fired if a != "note"}
    for fam in {family(r) for r, _ in acting}:
        out[f"family:{fam}"] = 1.0
    n_refuse = len({r for r, a in acting if a == "refuse"})
    n_review = len({r for r, a in acting if a == "review"})
    n_fam = len({family(r) for r, _ in acting})
    if n_refuse:
        out["refuse_rules:" + ("1" if n_refuse == 1 else "2+")] = 1.0
    if n_review:
        out["review_rules:" + ("1" if n_review == 1 else "2" if n_review == 2 else "3+")] = 1.0
    if n_fam >= 2:
        out["families:2+"] = 1.0
    if n_fam >= 3:
        out["families:3+"] = 1.0
    for c in classes:
        out[f"class:{c}"] = 1.0
    for f in flags:
        out[f"flag:{f}"] = 1.0
    if not complete:
        out["incomplete"] = 1.0
    return out


@frozen
class Model:
    weights: Mapping[str, float]
    bias: float
    hard_rules: frozenset[str]
    review_floor: frozenset[str]
    t_refuse: float  # a soft refusal stays a refusal at or above this probability
    t_review: float  # a review stays a review at or above this probability
    t_raise: float  # an allowed skill with findings goes to review at or above this probability

    def score(self, feats: Mapping[str, float]) -> float:
        z = self.bias + sum(self.weights.get(k, 0.0) * v for k, v in feats.items())
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    def top(self, feats: Mapping[str, float], n: int = 3) -> list[tuple[str, float]]:
        """The ``n`` features that pushed the score most (largest absolute weight), with their weights."""
        pushed = [(k, self.weights[k] * v) for k, v in feats.items() if self.weights.get(k)]
        return sorted(pushed, key=lambda kv: (-abs(kv[1]), kv[0]))[:n]


def model_from_json(doc: Mapping[str, Any]) -> Model:
    if doc.get("format") != FORMAT:
        raise ValueError(f"second-stage model format {doc.get('format')!r} is not {FORMAT}")
    t = doc["thresholds"]
    return Model(weights=dict(doc["weights"]), bias=float(doc["bias"]), hard_rules=frozenset(doc["hard_rules"]),
                 review_floor=frozenset(doc["review_floor"]), t_refuse=float(t["refuse"]),
                 t_review=float(t["review"]), t_raise=float(t["raise"]))


@lru_cache(maxsize=1)
def load_model() -> Model | None:
    """The shipped model, or ``None`` when no data file is present (the rules decide alone)."""
    if not MODEL_PATH.exists():
        return None
    return model_from_json(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


@frozen
class Adjustment:
    decision: str
    probability: float
    top: tuple[tuple[str, float], ...]
    changed: bool


def adjust(rules_decision: str, findings: Iterable[tuple[str, str]], classes: Iterable[str],
           flags: Iterable[str], *, complete: bool, model: Model) -> Adjustment:
    """The rules' decision moved by at most one step by the model's probability (see the module doc)."""
    findings = list(findings)
    feats = features(findings, classes, flags, complete=complete)
    if rules_decision == "refuse":
        # what the scan could not read is no evidence for the skill: at a refusal it may only raise the
        # score (else a file made unreadable on purpose, or a broken frontmatter, would soften the refusal)
        feats = {k: v for k, v in feats.items() if k not in UNSEEN or model.weights.get(k, 0.0) > 0}
    p = model.score(feats)
    decision = rules_decision
    refusing = {r for r, a in findings if a == "refuse"}
    reviewing = {r for r, a in findings if a == "review"}
    if rules_decision == "refuse":
        if refusing and not (refusing & model.hard_rules) and p < model.t_refuse:
            decision = "review"
    elif rules_decision == "review":
        if complete and reviewing and not (reviewing & model.review_floor) and p < model.t_review:
            decision = "allow"
    elif findings and p >= model.t_raise:
        decision = "review"
    return Adjustment(decision, p, tuple(model.top(feats)), decision != rules_decision)


def explain(adj: Adjustment) -> str:
    """One line: the score, the features that pushed it and what the second stage did."""
    pushed = ", ".join(f"{k} {w:+.2f}" for k, w in adj.top) or "no weighted feature"
    return f"second stage: score {adj.probability:.2f} (pushed by {pushed})"
