"""Entity filtering: every worked example of spec §5.4, our own cases, and properties."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nervous.engines.cortex.entities import (
    extract_signals,
    filter_words,
    has_shape,
    propose_region_name,
    sanitise_detail,
    stem,
)

from .entity_cases import CASES


@pytest.mark.parametrize(("task", "proposed", "kept", "rejected"), CASES, ids=[c[0][:40] for c in CASES])
def test_spec_examples(task: str, proposed: list[str], kept: list[str], rejected: dict[str, str]) -> None:
    result = filter_words(proposed, task)
    assert list(result.kept) == kept
    rules = {r.word: r.rule for r in result.rejected}
    for word, rule in rejected.items():
        assert rules[word].startswith(rule), (word, rules[word], rule)


OWN_CASES = [
    # (task, proposed, kept)
    ("Ping Dr. Smith about the Berlin offsite", ["ping", "smith", "berlin", "offsite"], ["ping", "offsite"]),
    ("upload invoice_2024.pdf to the shared drive", ["upload", "invoice", "pdf", "drive"], ["upload", "pdf", "drive"]),
    ("schedule a call with jennifer next week", ["schedule", "call", "jennifer", "week"], ["schedule", "call", "week"]),
    ("Text 555-0100 when the build fails", ["text", "build", "555-0100"], ["text", "build"]),
    ("summarize the thread from @alice_dev", ["summarize", "thread", "alice"], ["summarize", "thread"]),
    ("check disk usage on srv-01.internal", ["check", "disk", "usage", "srv"], ["check", "disk", "usage"]),
    ("Export the McKinsey deck as PDF", ["export", "mckinsey", "deck", "pdf"], ["export", "deck", "pdf"]),
    ("find cheap hotels in São Paulo", ["search", "hotels", "são", "paulo"], ["search", "hotels"]),
    ("convert $1,200 to euros", ["convert", "1,200", "euros"], ["convert", "euros"]),
    ("Open the Q4_report.xlsx file", ["open", "report", "xlsx", "file"], ["open", "xlsx", "file"]),
]


@pytest.mark.parametrize(("task", "proposed", "kept"), OWN_CASES, ids=[c[0][:40] for c in OWN_CASES])
def test_own_examples(task: str, proposed: list[str], kept: list[str]) -> None:
    assert list(filter_words(proposed, task).kept) == kept


def test_default_extractor_follows_the_spec_example() -> None:
    assert extract_signals("Look up Alice's Q3 sales report") == ("look", "sales", "report")
    assert extract_signals("Look up Alice's Q3 sales report", 2) == ("look", "sales")


def test_bullets_and_new_lines_start_sentences() -> None:
    text = "notes:\n- Deploy the server\n* Backup everything"
    assert filter_words(["deploy", "backup"], text).kept == ("deploy", "backup")


def test_sanitised_detail() -> None:
    assert sanitise_detail("failed to open /home/alice/Q3.xlsx") == "failed to open …"
    assert sanitise_detail("service unavailable, retry failed") == "service unavailable, retry failed"
    assert sanitise_detail("Token for Bob rejected by api.example.com") == "Token for … rejected by …"
    assert len(sanitise_detail("word " * 100)) <= 120


def test_region_name_proposal() -> None:
    assert propose_region_name(("query", "sales", "report")) == "query-sales"
    assert propose_region_name(()) is None


def test_stem_is_crude_and_bounded() -> None:
    assert stem("screenshots") == "screenshot"
    assert stem("running") == "runn"
    assert stem("bus") == "bus"  # fewer than 3 letters would remain


_word = st.text(alphabet=st.characters(codec="utf-8"), min_size=0, max_size=12)


@given(st.lists(_word, max_size=8), st.text(max_size=80))
def test_kept_words_are_shaped_lowercase_and_capped(proposed: list[str], task: str) -> None:
    result = filter_words(proposed, task)
    assert len(result.kept) <= 4
    for word in result.kept:
        assert has_shape(word)
        assert word == word.casefold()
        assert not any(ch.isdigit() for ch in word)


@given(st.text(max_size=120))
def test_extracted_signals_occur_in_the_text(task: str) -> None:
    lowered = unicodedata.normalize("NFKC", task).casefold()
    for word in extract_signals(task, None):
        assert stem(word) in lowered or word in lowered
