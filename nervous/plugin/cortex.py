"""The cortex types ranking policies and matchers use (specs/skill-cortex.md §10).

A ranking policy sees read-only :class:`CandidateView` records and orders them; the helpers give
the seed order every policy starts from. A matcher keeps its learned state in a
:class:`MatcherMemory` and may use the shared word lists.
"""

from __future__ import annotations

from ..kernel.cortex.matching import MatcherMemory
from ..kernel.cortex.policy import (
    FAILURE_OUTCOMES,
    SUCCESS,
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

__all__ = [
    "FAILURE_OUTCOMES", "SUCCESS", "CandidateView", "MatcherMemory", "RankingPolicy", "at_least",
    "candidate_identity", "has_writing_tag", "identity_of", "is_success", "seed_order", "seed_sort_key", "words",
]
