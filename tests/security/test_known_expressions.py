"""The answers shipped in known_expressions.json are the ones rx works out, for every detector expression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from nervous_plugins.review_policy import known_expressions, rx

REGENERATE = "python -m nervous_plugins.review_policy.known_expressions --write"


def test_the_shipped_file_is_the_one_the_detectors_expressions_give() -> None:
    """Worked out afresh in a process of its own (where no other expression was compiled)."""
    proc = subprocess.run([sys.executable, "-m", "nervous_plugins.review_policy.known_expressions", "--check"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_check_says_how_to_bring_a_stale_file_up_to_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "known_expressions.json"
    stale.write_text('{"format": 1, "expressions": []}\n', encoding="utf-8")
    monkeypatch.setattr(known_expressions, "TABLE", stale)
    monkeypatch.setattr(known_expressions, "_table", None)
    assert known_expressions.main(["--check"]) == 1
    assert REGENERATE in capsys.readouterr().err
    assert known_expressions.main(["--bogus"]) == 2


def test_the_public_functions_give_the_shipped_answers() -> None:
    doc = json.loads(known_expressions.TABLE.read_text("utf-8"))
    entries = doc["expressions"]
    on_re = [e for e in entries if "superset" in e]
    assert len(entries) >= 250 and on_re
    for e in on_re:  # an expression on ``re``: all four answers
        assert rx.backtracking_risks(e["pattern"], e["flags"]) == e["risks"] == []
        assert rx.ascii_superset_text(e["pattern"], e["flags"]) == e["superset"]
        assert rx.ascii_superset_text(e["pattern"], e["flags"], wide=True) == e["wide"]
    for e in entries:
        assert known_expressions.lookup(e["pattern"], e["flags"]) == e


@pytest.mark.parametrize("content", [b"", b"not json", b"[]", b'{"format": 999, "expressions": []}',
                                     b'{"format": 1, "expressions": [{"pattern": "a+", "flags": 0, "risks": "x"}]}'])
def test_a_missing_or_bad_file_only_means_working_the_answers_out(content: bytes, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "known_expressions.json"
    bad.write_bytes(content)
    monkeypatch.setattr(known_expressions, "TABLE", bad)
    monkeypatch.setattr(known_expressions, "_table", None)
    rx.ascii_superset_text.cache_clear()
    try:
        assert rx.backtracking_risks("a+", 0) == rx.backtracking_risks_of("a+", 0)
        assert rx.backtracking_risks("(a|ab)*c", 0) == rx.backtracking_risks_of("(a|ab)*c", 0) != []
        assert rx.ascii_superset_text(r"(?<!x)foo\b", 0) == rx.ascii_superset_text_of(r"(?<!x)foo\b", 0)
        assert rx.line_screenable(rx.compile(r"\bfoo\b")) is True
    finally:
        rx.ascii_superset_text.cache_clear()
