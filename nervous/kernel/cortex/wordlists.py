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
    out = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            # NFKC leaves ASCII unchanged and ASCII case-folds to lower case: skip the work (start-up)
            out.add(line.lower() if line.isascii() else unicodedata.normalize("NFKC", line).casefold())
    return frozenset(out)
