"""Caches for pure functions of skill text whose size stays bounded whatever the skills hold.

A process that reads many skills (a batch scan, the MCP server, a registry) keeps these caches for its
whole life. A bound on the number of entries alone would still let a few thousand long strings stay in
memory (a base64 blob of a megabyte, a URL as long), so a text longer than ``longest`` characters is
computed each time and never kept; skills repeat their short identifiers, hosts and tags, which is what
the caches are for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def remember_short(maxsize: int, longest: int = 512) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
    """An LRU cache of ``maxsize`` entries over a one-string function, for strings of ``longest`` or fewer."""

    def wrap(fn: Callable[[str], T]) -> Callable[[str], T]:
        cached = functools.lru_cache(maxsize=maxsize)(fn)

        @functools.wraps(fn)
        def call(text: str) -> T:
            return cached(text) if len(text) <= longest else fn(text)

        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return call

    return wrap

