"""Scan speed: the analysers' cost grows linearly with the input, and the skills that were slow stay fast.

The cost is measured as CPU time (``time.process_time``) of classification in this process, which
other load on a shared machine does not inflate the way it inflates wall time. Wild items are read
in memory by id; only their timing and decisions are looked at, never their content.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nervous_plugins.review_policy import classifier, rx

from nervous.engines.scan.engine import scan_bundle
from nervous.kernel.records import ScanContext, SkillBundle

from .helpers import WILD, bundle, skill_md, wild_items

CONTEXT = ScanContext(purpose="install")


def _re_expressions() -> list[tuple[str, int]]:
    classifier.Classifier().classify(bundle({"a.py": "print(1)\n", "a.js": "console.log(1)\n",
                                             "scripts/x.sh": "echo hi\n", "a.go": "package main\n"}), CONTEXT)
    return sorted(k for k, engine in rx.ENGINES.items() if engine == "re")


def _cpu_classify(b: SkillBundle) -> float:
    c = classifier.Classifier()
    t0 = time.process_time()
    c.classify(b, CONTEXT)
    return time.process_time() - t0


# ------------------------------------------------------------------ the RE2 screen in front of ``re`` expressions


def test_every_re_expression_has_a_screen() -> None:
    expressions = _re_expressions()
    assert expressions
    for pattern, flags in expressions:
        assert rx.compile(pattern, flags)._screen is not None, pattern[:100]


_ASCII = st.characters(min_codepoint=0, max_codepoint=127)


@pytest.mark.parametrize("key", _re_expressions(), ids=lambda k: k[0][:40])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_screen_never_rejects_a_text_the_expression_matches(key: tuple[str, int], data: st.DataObject) -> None:
    """Texts built to match each expression (and noise around them): the screen lets every match through,
    and the wrapped expression answers exactly what ``re`` answers."""
    pattern, flags = key
    plain = re.compile(pattern, flags)
    wrapped = rx.compile(pattern, flags)
    text = data.draw(st.one_of(st.from_regex(plain, alphabet=_ASCII), st.text(_ASCII, max_size=80)))
    for s in (text, text + "\n", " " + text, text.upper(), text.lower()):
        expected = plain.search(s)
        got = wrapped.search(s)
        assert (got is None) == (expected is None), (pattern[:80], s[:80])
        if expected is not None:
            assert got.span() == expected.span() and got.groups() == expected.groups()
        assert [m.span() for m in wrapped.finditer(s)] == [m.span() for m in plain.finditer(s)]


@pytest.mark.parametrize("pattern,text", [
    (r"(?i)(?<!x)k\s+s(?=\W)", "K\x0b\x1cS!"),  # ``re``'s \s takes vertical tab and \x1c-\x1f; RE2's does not
    (r"(?i)(?<=a)\w+$", "aSK"),
    (r"(?m)^(?!#)\S+\s*$", "# x\nvalue\n"),
    (r"(['\"])(?:(?!\1).){2,5}\1", "say 'abc' now"),
    (r"(?s)<(\w+)(?<!p)>.{0,30}?</\1>", "<b>\nx</b>"),
    (r"(?i)\bcurl\b[^\n|]*\|\s*(?:ba)?sh\b(?!\s*-c)", "CURL https://x.example/i | BaSh"),
])
def test_the_screen_agrees_with_re_on_tricky_ascii(pattern: str, text: str) -> None:
    assert rx.compile(pattern).search(text) is not None
    assert re.search(pattern, text) is not None


def test_the_screen_is_bypassed_for_non_ascii_text_and_positions() -> None:
    r = rx.compile(r"(?i)(?<![\w])stra(?:ss|ß)e\b(?!-)")
    assert r.search("die Straße hier") is not None  # not ASCII: ``re`` alone decides
    assert r.search("xx strasse", 3) is not None  # a start position: ``re`` alone decides
    assert r.search("nothing here") is None


# ------------------------------------------------------------------ shapes that were slow, reproduced synthetically


def _other_code_file(lines: int) -> str:
    """A long source file in a language without a detector (read line by line by the fallback)."""
    body = []
    for i in range(lines):
        body.append(f"    value{i % 97} := compute(alpha{i % 13}, beta) + offset // adjust the totals for row {i}")
    return "package main\n\nfunc main() {\n" + "\n".join(body) + "\n}\n"


def _script_file(lines: int) -> str:
    out = []
    for i in range(lines):
        out.append(f"const item{i} = await load(`${{base}}/rows/{i}`, {{ limit: {i % 50} }}); // page {i}")
    return "\n".join(out) + "\n"


def _markdown_file(sections: int) -> str:
    out = []
    for i in range(sections):
        out.append(f"## Step {i}\n\nRun the report for region {i} and keep the output in `out/{i}.csv`.\n\n"
                   f"```bash\nreport --region {i} --format csv > out/{i}.csv\nwc -l out/{i}.csv\n```\n")
    return "\n".join(out)


@pytest.mark.parametrize("make,name,unit", [
    (_other_code_file, "main.go", 2000),
    (_script_file, "scripts/load.mjs", 2000),
    (_markdown_file, "docs/guide.md", 300),
], ids=["fallback-lines", "script-lines", "markdown-blocks"])
def test_large_files_are_analysed_in_linear_time(make, name: str, unit: int) -> None:  # type: ignore[no-untyped-def]
    small = bundle({"SKILL.md": skill_md("# Tool\n"), name: make(unit)})
    large = bundle({"SKILL.md": skill_md("# Tool\n"), name: make(8 * unit)})
    _cpu_classify(small)
    t_small = min(_cpu_classify(small) for _ in range(2))
    t_large = min(_cpu_classify(large) for _ in range(2))
    assert t_large <= 8 * 2.0 * t_small + 0.05, (t_small, t_large)


class _Counting:
    """Stands in for the ``re`` expression behind a screen and counts the calls that reach it."""

    def __init__(self, inner: re.Pattern[str], counts: dict[str, int]) -> None:
        self._inner, self._counts = inner, counts

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        self._counts["re"] += 1
        return getattr(self._inner, name)


def _re_calls(b: SkillBundle) -> tuple[int, float]:
    """(calls that reached a ``re`` engine, CPU seconds) while classifying ``b``."""
    counts = {"re": 0}
    wrapped = [rx.inline(*k) for k in _re_expressions()]
    saved = [w._re for w in wrapped]  # (compiled now, if not yet)
    for w, inner in zip(wrapped, saved, strict=True):
        w._compiled = _Counting(inner, counts)
    try:
        cpu = _cpu_classify(b)
    finally:
        for w, inner in zip(wrapped, saved, strict=True):
            w._compiled = inner
    return counts["re"], cpu


def test_a_long_source_file_without_a_detector_is_cheap() -> None:
    """The fallback reads each line of a file in a language without a detector for downloads piped into
    a shell; ``re`` ran a 15-way alternation on every line (about 80 µs a line, 1.6 s of the slowest
    wild item). With the screen, ``re`` runs on none of 20,000 ordinary lines."""
    b = bundle({"SKILL.md": skill_md("# Tool\n"), "main.go": _other_code_file(20_000)})
    _cpu_classify(bundle({"a.go": "package main\n"}))
    calls, cpu = _re_calls(b)
    assert calls < 50, calls
    assert cpu < 3.0, cpu


# ------------------------------------------------------------------ the slowest wild items, by id

SLOW_WILD = ("wild-0610", "wild-1133", "wild-1530", "wild-0085", "wild-1418")


@pytest.mark.skipif(not WILD.exists(), reason="the wild sample is not on this machine")
def test_slowest_wild_items_stay_bounded(nervous_pm) -> None:
    """The five slowest items of the wild sample (0.35–1.9 MB; 1.3–3.3 s of CPU each on a loaded machine
    before, wild-0610 the slowest through ``re`` on every line of its sources): few lines reach ``re``,
    each classifies within a few seconds of CPU, and a whole scan of each ends within its time limit."""
    items = wild_items(SLOW_WILD)
    assert all(b.files for b in items.values())
    for item_id, b in items.items():
        lines = sum((f.text() or "").count("\n") for f in b.files)
        calls, cpu = _re_calls(b)
        # measured: 1.3–13 % of lines (string literals in scripts pass the screen of the quoted-string
        # expression); without the screen several expressions reached ``re`` on every line
        assert calls < max(200, lines // 4), (item_id, calls, lines)
        assert cpu < 6.0, (item_id, round(cpu, 2))
        r = scan_bundle(nervous_pm, b, CONTEXT)
        assert r.report["limits"]["exceeded"] is None and "NV-LIMIT-001" not in {f.rule_id for f in r.findings}
        assert r.cpu_ms > 0


def test_scan_reports_its_cpu_time(nervous_pm) -> None:
    r = scan_bundle(nervous_pm, bundle({"SKILL.md": skill_md("# Tool\n" + "Run the report.\n" * 2000)}), CONTEXT)
    assert 0 < r.cpu_ms < 30_000 and r.elapsed_ms > 0
