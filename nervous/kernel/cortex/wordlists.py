"""The word lists the entity filter uses (shipped as package data; extendable, never disabled)."""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

LISTS = ("stopwords", "temporal", "allowlist", "vocabulary", "given_names")


@cache
def words(name: str) -> frozenset[str]:
    """One list, normalised (NFKC, case-folded); ``#`` lines are comments."""
    if name not in LISTS:
        raise KeyError(f"unknown word list {name!r}; available: {', '.join(LISTS)}")
    # read beside this module: importlib.resources would pull in importlib.metadata and email (start-up)
    text = (Path(__file__).with_name("data") / f"{name}.txt").read_text(encoding="utf-8")
    kept = "\n".join(line for line in map(str.strip, text.splitlines()) if line and not line.startswith("#"))
    # Normalised in one call rather than line by line (the names list has thousands of lines and
    # ``perceive`` reads it): NFKC and case folding never join, split or create line breaks, so this
    # is the per-line result. NFKC leaves ASCII unchanged and ASCII case-folds to lower case.
    folded = kept.lower() if kept.isascii() else unicodedata.normalize("NFKC", kept).casefold()
    return frozenset(folded.split("\n")) if folded else frozenset()
