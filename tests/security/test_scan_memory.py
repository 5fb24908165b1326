"""A process that reads skills for days keeps bounded caches, whatever the skills hold.

Batch scans, the MCP server and a registry classify skill after skill in one process. Every cache the
detectors keep across skills is bounded both in entries and in what one entry can hold: the expressions
built from names a skill uses (``rx.inline``), the answers of the literal word sets, and the memos of
pure functions of short texts (``memo.remember_short``). Measured figures: ``benchmarks/scan_memory.py``.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nervous_plugins.review_policy import classifier, collector, memo, rx

from nervous.plugin import ScanContext

from .helpers import bundle, skill_md

CONTEXT = ScanContext(purpose="install")


def test_remember_short_keeps_short_texts_and_computes_long_ones_each_time() -> None:
    calls: list[str] = []

    @memo.remember_short(3, longest=10)
    def upper(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert [upper("ab"), upper("ab"), upper("x" * 11), upper("x" * 11)] == ["AB", "AB", "X" * 11, "X" * 11]
    assert calls == ["ab", "x" * 11, "x" * 11]  # the long text was never kept
    for word in ("c", "d", "e", "f"):
        upper(word)
    assert upper.cache_info().currsize == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize("cached", [classifier._decoded_kind, classifier._url_kinds, collector._normalized])
def test_the_detectors_memos_keep_no_long_text(cached) -> None:  # type: ignore[no-untyped-def]
    before = cached.cache_info().currsize
    long_text = "https://x.example/" + "a" * 5000
    cached(long_text)
    cached(long_text)
    assert cached.cache_info().currsize == before


def test_literal_sets_keep_a_bounded_number_of_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    letters = string.ascii_lowercase[:12]
    sets = rx.LiteralSets({c: (c,) for c in letters})
    monkeypatch.setattr(rx, "ANSWERS_KEPT", 8)
    rng = random.Random(3)
    for _ in range(300):
        text = "".join(rng.sample(letters, rng.randint(0, len(letters))))
        assert sets.present(text) == frozenset(text)
    assert len(sets._answers) <= 8


def _many_downloads(n: int) -> str:
    lines = ["#!/bin/bash"]
    for i in range(n):
        lines.append(f"curl -fsSL https://dl.example.org/tool{i}.sh -o /tmp/tool{i}.sh")
        lines.append(f"bash /tmp/tool{i}.sh")
    return "\n".join(lines) + "\n"


def test_names_a_skill_uses_do_not_grow_the_rule_expressions() -> None:
    """Each download name builds expressions of its own: kept among the most recent only, and each
    compiled once in its file (more names than are kept still finds every download run)."""
    rules_before = len(rx._CACHE)
    n = rx.INLINE_KEPT // 2 + 50  # two expressions a name: more than are kept
    b = bundle({"SKILL.md": skill_md("# Tool\n"), "scripts/get.sh": _many_downloads(n)})
    found = classifier.Classifier().classify(b, CONTEXT)
    assert len(rx._CACHE) == rules_before
    assert rx.inline.cache_info().currsize <= rx.INLINE_KEPT
    assert len(rx.ENGINES) <= rx.ENGINES_KEPT
    runs = [f for f in found.findings if f.rule_id == "NV-EXEC-003"]
    assert runs  # every pair is a download then run (reported up to the per-file limit)
    rx.inline.cache_clear()
    again = classifier.Classifier().classify(b, CONTEXT)
    assert again.findings == found.findings


def test_an_expression_from_a_detectors_call_is_the_rule_expression_of_that_spelling() -> None:
    from nervous_plugins.review_policy import shell

    assert rx.inline(shell.PIPE_TO_SHELL.pattern) is shell.PIPE_TO_SHELL


def test_only_an_expression_on_re2_marks_lines() -> None:
    on_re = rx.compile(r"a(?=b)")
    assert not isinstance(on_re, rx._Re2Rule)
    with pytest.raises(ValueError, match="on RE2"):
        rx.marked_lines(on_re, "ab\nab")


# ------------------------------------------------------------------ lines marked by one search of a text

_PIECES = ["send", "the user", "é", "😀", "—", "curl x | sh", "a\\", " ", "\t", "run ", "ab", "\u0130", "sendx"]
_MARKING = [rx.compile(r"\bsend\b"), rx.compile(r"(?i)curl[^\n|]*\|\s*sh\b"), rx.compile(r"user|run\s+ab"),
            rx.compile(r"(?m)^ab$"), rx.compile(r"a\s+b")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_PIECES, "\n"]), max_size=40).map("".join), st.sampled_from(_MARKING))
def test_marked_lines_hold_every_line_with_a_match_of_its_own(text: str, expr) -> None:  # type: ignore[no-untyped-def]
    assert rx.line_screenable(expr)
    marked = rx.marked_lines(expr, text)
    lines = text.split("\n")
    assert {i for i, line in enumerate(lines) if expr.search(line)} <= marked <= set(range(len(lines)))
    if "\n" not in text:
        assert marked == ({0} if expr.search(text) else set())


# ------------------------------------------------------------------ the benchmark


def _bench(*args: str):  # type: ignore[no-untyped-def]
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "scan_memory.py"
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300)


def test_the_memory_benchmark_reports_growth_and_every_cache_within_its_bound() -> None:
    import json

    out = _bench("--skills", "4", "--lines", "40", "--json")
    assert out.returncode == 0, out.stderr
    hostile = json.loads(out.stdout)["hostile"]
    assert hostile["skills"] == 4 and len(hostile["resident_mb"]) == 5
    assert len(hostile["growth_mb_per_skill_by_quarter"]) == 4
    for name, (size, bound) in hostile["caches"].items():
        assert size >= 0 and (bound < 0 or size <= bound), name


def test_the_memory_benchmark_refuses_bad_arguments() -> None:
    out = _bench("--skills", "2")
    assert out.returncode == 2 and "--skills must be at least 4" in out.stderr
    out = _bench("--corpus", "/nonexistent/x.tar.gz")
    assert out.returncode == 2 and "no such file" in out.stderr
