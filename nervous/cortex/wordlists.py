"""The word lists the entity filter uses (shipped as package data; extendable, never disabled)."""

from __future__ import annotations

import unicodedata
from functools import cache

LISTS = ("stopwords", "temporal", "allowlist", "vocabulary", "given_names")


@cache
def words(name: str) -> frozenset[str]:
    """One list, normalised (NFKC, case-folded); ``#`` lines are comments."""
    if name not in LISTS:
        raise KeyError(f"unknown word list {name!r}; available: {', '.join(LISTS)}")
    from importlib import resources

    text = resources.files("nervous.cortex").joinpath("data").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    out = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.add(unicodedata.normalize("NFKC", line).casefold())
    return frozenset(out)
