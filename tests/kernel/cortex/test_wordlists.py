"""The word lists read in one normalisation call hold exactly what a line-by-line reading gives."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from nervous.kernel.cortex import wordlists


def _line_by_line(name: str) -> frozenset[str]:
    """The reference reading: each line stripped, comments skipped, NFKC and case-folded on its own."""
    text = (Path(wordlists.__file__).with_name("data") / f"{name}.txt").read_text(encoding="utf-8")
    out = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.add(unicodedata.normalize("NFKC", line).casefold())
    return frozenset(out)


@pytest.mark.parametrize("name", wordlists.LISTS)
def test_each_shipped_list_matches_the_line_by_line_reading(name: str) -> None:
    words = wordlists.words(name)
    assert words == _line_by_line(name)
    assert words and "" not in words and not any(w.startswith("#") for w in words)


def test_the_names_list_has_non_ascii_entries_normalised() -> None:
    names = wordlists.words("given_names")
    non_ascii = [w for w in names if not w.isascii()]
    assert non_ascii, "the names list is expected to carry accented names"
    assert all(unicodedata.normalize("NFKC", w).casefold() == w for w in non_ascii)


def test_an_unknown_list_is_refused_with_the_available_ones() -> None:
    with pytest.raises(KeyError, match="available: stopwords"):
        wordlists.words("nonsense")
