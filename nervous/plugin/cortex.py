"""The cortex types ranking policies and matchers use (specs/skill-cortex.md §10).

A ranking policy sees read-only :class:`CandidateView` records and orders them; the helpers give
the seed order every policy starts from. A matcher keeps its learned state in a
:class:`MatcherMemory` and may use the shared word lists.

Each name is loaded from its kernel module on first use: the matcher runs on every ``perceive``,
which on a miss needs neither the ranking records nor the policy Protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.lazy import lazy_names

_POLICY = ["CandidateView", "at_least", "candidate_identity", "has_writing_tag", "identity_of", "is_success",
           "seed_order", "seed_sort_key"]

#: public name -> the module that implements it
_SOURCES: dict[str, str] = {
    **dict.fromkeys(_POLICY, "nervous.kernel.cortex.policy"),
    "FAILURE_OUTCOMES": "nervous.kernel.cortex.outcomes",
    "SUCCESS": "nervous.kernel.cortex.outcomes",
    "MatcherMemory": "nervous.kernel.cortex.matching",
    "words": "nervous.kernel.cortex.wordlists",
    "RankingPolicy": "nervous.plugin.protocols",
}

if TYPE_CHECKING:
    from ..kernel.cortex.matching import MatcherMemory
    from ..kernel.cortex.outcomes import FAILURE_OUTCOMES, SUCCESS
    from ..kernel.cortex.policy import (
        CandidateView,
        at_least,
        candidate_identity,
        has_writing_tag,
        identity_of,
        is_success,
        seed_order,
        seed_sort_key,
    )
    from ..kernel.cortex.wordlists import words
    from .protocols import RankingPolicy


__getattr__, __dir__ = lazy_names(__name__, _SOURCES)


__all__ = [
    "FAILURE_OUTCOMES", "SUCCESS", "CandidateView", "MatcherMemory", "RankingPolicy", "at_least",
    "candidate_identity", "has_writing_tag", "identity_of", "is_success", "seed_order", "seed_sort_key", "words",
]
