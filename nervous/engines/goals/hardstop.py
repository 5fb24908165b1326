"""Hard-stop categories matched on whole words (specs/goals.md §6.3).

Text and terms are normalised the same way (lower-case, every run of non-alphanumerics including
``_`` and ``-`` becomes a space) and a term matches only as a run of whole consecutive tokens, so
"reproduction" never matches "production" and "policyholder" never matches "policy".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from attrs import frozen

from .model import Goal

BUILTIN_TERMS: dict[str, tuple[str, ...]] = {
    "critical": ("critical",),
    "security": ("security",),
    "data_loss": ("data loss", "data losses", "dataloss"),
    "regression": ("regression", "regressions"),
    "policy": ("policy", "policies"),
    "credential": ("credential", "credentials"),
    "production": ("production",),
}

_SEPARATORS = re.compile(r"[\W_]+")


def tokens(text: str) -> tuple[str, ...]:
    return tuple(t for t in _SEPARATORS.sub(" ", text.lower()).split(" ") if t)


@frozen
class HardStopMatch:
    category: str
    source: str
    value: str

    @property
    def line(self) -> str:
        return f'Matched hard-stop category "{self.category}" in {self.source}: {self.value}'


class HardStopMatcher:
    """The built-in categories plus any terms plugins add (never fewer)."""

    def __init__(self, extra: Mapping[str, Sequence[str]] | None = None) -> None:
        merged: dict[str, list[str]] = {c: list(ts) for c, ts in BUILTIN_TERMS.items()}
        for category, terms in (extra or {}).items():
            bucket = merged.setdefault(str(category), [])
            bucket.extend(t for t in terms if isinstance(t, str) and t not in bucket)
        self.terms: dict[str, tuple[tuple[str, ...], ...]] = {
            c: tuple(tok for tok in (tokens(t) for t in ts) if tok) for c, ts in merged.items()
        }

    @property
    def categories(self) -> list[str]:
        return list(self.terms)

    def match_text(self, text: str) -> str | None:
        """The first category whose term appears as whole tokens in ``text``."""
        toks = tokens(text)
        for category, terms in self.terms.items():
            for term in terms:
                n = len(term)
                if any(toks[i:i + n] == term for i in range(len(toks) - n + 1)):
                    return category
        return None

    def match_goal(self, goal: Goal) -> HardStopMatch | None:
        """Sources in order: prompt, goal, each constraint, each risk as "<severity> <description>"."""
        sources: list[tuple[str, str]] = [("prompt", goal.prompt), ("goal", goal.intent.goal)]
        sources += [("constraint", c) for c in goal.intent.constraints]
        sources += [("risk", f"{r.severity} {r.description}") for r in goal.intent.risks]
        for source, value in sources:
            category = self.match_text(value or "")
            if category is not None:
                return HardStopMatch(category, source, value)
        return None
