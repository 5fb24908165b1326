"""The ranking-policy contract shared by the cortex engine and the policy plugins (spec §10.1).

The engine hands a policy read-only :class:`CandidateView` records (stored fields, the effective
weight computed for ``now`` and the policy's own ``policy_state``); the policy returns an order and,
after an outcome, new per-candidate state. The seed weight, counters and reflex rules are kept by
the engine whatever the policy, so switching policy never loses learning.

This module stays light: the plugins and the engine import it at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from attrs import field, frozen

from .outcomes import FAILURE_OUTCOMES, SUCCESS

#: threshold comparisons are made on values rounded to this many decimals (spec §1)
THRESHOLD_DECIMALS = 10

#: side-effect tag prefixes that keep a candidate out of reflex
WRITING_PREFIXES: tuple[str, ...] = ("write:", "delete:", "shell:")


def candidate_identity(source: str, slug: str) -> str:
    """A candidate's identity inside its region, ``(source, slug)`` as one string key."""
    return f"{source}:{slug}"


def _tags(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _state(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


@frozen
class CandidateView:
    """What a ranking policy sees of one candidate; never written back as a whole."""

    identity: str
    slug: str
    source: str
    version: str | None
    fingerprint: str | None
    weight: float
    effective_weight: float
    successes: int
    failures: int
    runs_total: int
    consecutive_successes: int
    #: epoch seconds of the candidate's last use, ``None`` when unknown
    last_used: float | None
    reflex: bool
    tags: tuple[str, ...] = field(default=(), converter=_tags)
    #: this policy's own opaque state for the candidate (``policy_state[<policy name>]``)
    policy_state: dict[str, Any] = field(factory=dict, converter=_state, eq=False)


def at_least(value: float, threshold: float) -> bool:
    """``value >= threshold`` on values rounded to 10 decimals (0.8999999999999 counts as 0.9)."""
    return round(value, THRESHOLD_DECIMALS) >= round(threshold, THRESHOLD_DECIMALS)


def is_success(outcome: str) -> bool:
    return outcome == SUCCESS


def identity_of(candidate: CandidateView | str) -> str:
    """The identity of a view, or the string itself (``on_outcome`` accepts either)."""
    return candidate if isinstance(candidate, str) else candidate.identity


def seed_sort_key(view: CandidateView) -> tuple[float, float, int, str]:
    """The seed's order: effective weight desc; ties: stored weight desc, successes desc, slug asc."""
    return (
        -round(view.effective_weight, THRESHOLD_DECIMALS),
        -round(view.weight, THRESHOLD_DECIMALS),
        -view.successes,
        view.slug,
    )


def seed_order(candidates: Iterable[CandidateView], min_effective: float = 0.3) -> list[CandidateView]:
    """The original skill-cortex ranking: drop effective weight below the floor, then sort."""
    kept = [c for c in candidates if at_least(c.effective_weight, min_effective)]
    return sorted(kept, key=seed_sort_key)


def has_writing_tag(tags: Iterable[str]) -> bool:
    return any(tag.startswith(WRITING_PREFIXES) for tag in tags)


# one spelling of the contract: the Protocol (with its defaults) lives in the plugin API
from ...plugin.protocols import RankingPolicy  # noqa: E402

__all__ = [
    "FAILURE_OUTCOMES",
    "SUCCESS",
    "CandidateView",
    "RankingPolicy",
    "at_least",
    "candidate_identity",
    "has_writing_tag",
    "identity_of",
    "is_success",
    "seed_order",
    "seed_sort_key",
]
