"""Analysis is bounded by construction: linear-time rule expressions, and a deadline that stops a scan.

A skill's author controls every byte the analysers read, so no expression may backtrack
catastrophically and no analyser may hold a scan past its time limit (specs/security.md §8).
"""

from __future__ import annotations

import ast
import json
import re
import tarfile
import time
from pathlib import Path
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nervous_plugins.review_policy import classifier, rx, shell
from nervous_plugins.review_policy.collector import Collector

import nervous
from nervous.engines.scan.engine import ScanLimits, scan_bundle
from nervous.kernel.bounded import DeadlineExceeded, call_with_deadline
from nervous.kernel.records import ScanContext

from .helpers import bundle, skill_md

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "plugins" / "nervous_plugins" / "review_policy"
WILD = ROOT.parent / "shared" / "data" / "security" / "wild" / "wild.tar.gz"
RE_CALLS = {"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"}
WEEKDAYS = ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье")


def reproduction_script() -> str:
    """The 779-byte script of the report: 21 ``sed`` stages on one line, then ``tr``."""
    stages = " | ".join(f'sed "s/{d}/day{i}/"' for _ in range(3) for i, d in enumerate(WEEKDAYS))
    return ('#!/usr/bin/env bash\nA="${1}"\nB=$(echo "$A" | ' + stages
            + ' | tr "[:upper:]" "[:lower:]")\nprintf "%s\\n" "$B"\n')


def _analyse_line(line: str) -> float:
    c = Collector()
    t0 = time.perf_counter()
    shell.analyze_line(c, "scripts/x.sh", 1, line)
    return time.perf_counter() - t0


# ------------------------------------------------------------------ every rule expression is linear-time


def test_rule_expressions_run_on_re2_or_pass_the_backtracking_check() -> None:
    classifier.Classifier().classify(bundle({"scripts/x.sh": reproduction_script(), "a.py": "print(1)\n",
                                             "a.js": "console.log(1)\n"}), ScanContext())
    engines = set(rx.ENGINES.values())
    assert engines <= {"re2", "re"} and list(rx.ENGINES.values()).count("re2") >= 100
    for (pattern, flags), engine in rx.ENGINES.items():
        if engine == "re":  # RE2 could not take it: it must be free of nested and ambiguous repetition
            assert rx.backtracking_risks(pattern, flags) == [], pattern[:100]
    # the expression behind the reported hang runs on RE2
    assert rx.ENGINES[(shell.ENCODED_TO_SHELL.pattern, 0)] == "re2"


def _module_regex_literals(path: Path) -> list[tuple[int, str]]:
    """String literals handed to a ``re`` function in a module (call sites that bypass :mod:`rx`)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RE_CALLS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            out.append((node.lineno, node.args[0] if node.args else None))
    return out  # type: ignore[return-value]


def test_detectors_compile_every_expression_through_rx() -> None:
    for path in sorted(POLICY.glob("*.py")):
        if path.name == "rx.py":
            continue
        direct = _module_regex_literals(path)
        assert direct == [], f"{path.name}: call rx instead of re at lines {[n for n, _ in direct]}"


@pytest.mark.parametrize("path", ["nervous/kernel/sideeffects.py", "nervous/engines/scan/engine.py",
                                  "plugins/nervous_plugins/review_policy/rx.py"])
def test_remaining_re_expressions_pass_the_backtracking_check(path: str) -> None:
    for lineno, arg in _module_regex_literals(ROOT / path):
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            assert rx.backtracking_risks(arg.value) == [], f"{path}:{lineno}"


@pytest.mark.parametrize("pattern", [
    r"(a+)+$", r"(?:\s*[^|\n]+)*?\|\s*sh", r"(?:a|aa)*c", r"(?:ab|a\w*)+c", r"(?:[^\n]*,)*(?=x)",
    r"(?:x\s*\S+)+(?!y)",
])
def test_backtracking_check_flags_known_catastrophic_shapes(pattern: str) -> None:
    assert rx.backtracking_risks(pattern) != []


@pytest.mark.parametrize("pattern", [r"\bcurl\b[^\n|;]*\|\s*(?:ba)?sh\b(?!\.)", r"(?:all\s+|any\s+|the\s+)+\w+",
                                     r"(?:[^.\n]|\.(?=\S)){0,80}\bto\b", r"(?<![\w.])/etc/passwd"])
def test_backtracking_check_accepts_linear_shapes(pattern: str) -> None:
    assert rx.backtracking_risks(pattern) == []


def _first_chars_by_testing(op: object, av: object, fold: bool) -> frozenset[int] | None:
    """The definition :func:`rx._atom_first_chars` computes from sets: every character of the sample tested."""
    test = rx._char_test(op, av)
    if test is None:
        return None
    return frozenset(cp for cp in rx._SAMPLE if test(chr(cp)) or (
        fold and any(len(v) == 1 and test(v) for v in (chr(cp).lower(), chr(cp).upper()))))


def _elements(seq: object) -> list[tuple[object, object]]:
    """Every one-character element of a parsed expression, at any depth."""
    out = []
    for op, av in seq:  # type: ignore[attr-defined]
        if op is sre_parse.SUBPATTERN:
            out += _elements(av[-1])
        elif op is sre_parse.BRANCH:
            for b in av[1]:
                out += _elements(b)
        elif op in rx._REPEATS:
            out += _elements(av[2])
        elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            out += _elements(av[1])
        elif op in (sre_parse.LITERAL, sre_parse.NOT_LITERAL, sre_parse.ANY, sre_parse.IN):
            out.append((op, av))
    return out


FIRST_CHAR_SHAPES = [r"[^\n]", r"\w", r"\W", r"[\s\d]", r"[^\S]", r"[a-z]", r"[\u0100-\uffff]", r"k", r"s", r"\u017f",
                     r"\u212a", r"\u0130", r"\u00df", r"[^a-z_]", r".", r"[\x00-\x7f]", r"\u0390", r"\u1e9e", r"\u0250"]


def test_first_characters_built_from_sets_agree_with_testing_every_character() -> None:
    classifier.Classifier().classify(bundle({"a.md": "x\n"}), ScanContext())
    patterns = [p for (p, f), e in rx.ENGINES.items() if e == "re"] + FIRST_CHAR_SHAPES
    checked = 0
    for pattern in patterns:
        for op, av in _elements(sre_parse.parse(pattern)):
            for fold in (False, True):
                rx._ATOM_FIRSTS.clear()
                assert rx._atom_first_chars(op, av, fold) == _first_chars_by_testing(op, av, fold), (pattern, op, av)
                checked += 1
    assert checked > 500


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.characters(max_codepoint=0x900), st.tuples(st.characters(max_codepoint=0x900),
                                                                         st.characters(max_codepoint=0x900))),
                min_size=1, max_size=4), st.booleans(), st.booleans())
def test_first_characters_of_any_class_agree_with_testing_every_character(items: list[object], negate: bool,
                                                                        fold: bool) -> None:
    parts = "".join(re.escape(i) if isinstance(i, str) else f"{re.escape(min(i))}-{re.escape(max(i))}" for i in items)
    (op, av), = sre_parse.parse(f"[{'^' if negate else ''}{parts}]")
    rx._ATOM_FIRSTS.clear()
    assert rx._atom_first_chars(op, av, fold) == _first_chars_by_testing(op, av, fold)


def test_a_new_catastrophic_expression_cannot_be_compiled() -> None:
    # RE2 takes this one and runs it in linear time ...
    assert rx.compile(r"(?:\|\s*[^|\n]+)*?\|\s*sh").search("| a" * 5000 + "| x") is None
    # ... and one that needs backtracking is refused before it can reach a skill
    with pytest.raises(rx.UnsafeExpression):
        rx.compile(r"(?:\s*[^|\n]+)*?(?<!x)\|\s*sh")


# ------------------------------------------------------------------ the reported hang, by synthetic reproduction


def test_reproduction_is_779_bytes_and_analysed_in_linear_time() -> None:
    script = reproduction_script()
    assert len(script.encode("utf-8")) == 779
    longest = max(script.splitlines(), key=len)
    _analyse_line(longest)  # warm-up (compiles the expressions)
    assert min(_analyse_line(longest) for _ in range(3)) < 1.0  # was: minutes of CPU, unfinished


def test_reproduction_scan_completes_and_is_not_refused(nervous_pm) -> None:
    b = bundle({"SKILL.md": skill_md("Convert weekday names.\n\nRun `scripts/x.sh MONDAY`.\n"),
                "scripts/x.sh": reproduction_script()})
    r = scan_bundle(nervous_pm, b, ScanContext(purpose="install"), limits=ScanLimits(max_seconds=10))
    assert r.side_effects.complete and r.report["limits"]["exceeded"] is None
    assert r.decision != "refuse" and "NV-LIMIT-001" not in {f.rule_id for f in r.findings}


@pytest.mark.skipif(not WILD.exists(), reason="the wild sample is not on this machine")
def test_wild_item_1064_scans_within_its_time_limit(nervous_pm) -> None:
    """The item that hung: read in memory by id, only its decision and timing are looked at."""
    from nervous.kernel.records import SkillBundle, SkillFile, SkillRef

    files = []
    with tarfile.open(WILD, "r:gz") as tf:
        for member in tf:
            if member.isfile() and member.name.lstrip("./").startswith("items/wild-1064/"):
                fh = tf.extractfile(member)
                assert fh is not None
                files.append(SkillFile(member.name.lstrip("./").split("/", 2)[2], fh.read()))
    assert files
    b = SkillBundle(ref=SkillRef("wild-1064"), files=tuple(sorted(files, key=lambda f: f.path)))
    t0 = time.perf_counter()
    r = scan_bundle(nervous_pm, b, ScanContext(purpose="install"), limits=ScanLimits(max_seconds=20))
    assert time.perf_counter() - t0 < 20
    assert r.side_effects.complete and r.report["limits"]["exceeded"] is None


# ------------------------------------------------------------------ adversarial lines: time stays linear


def _linear(make, n: int) -> None:  # type: ignore[no-untyped-def]
    """Analysis of a line 8 times longer takes at most ~8 times longer (generous slack for a loaded machine)."""
    small, large = make(n), make(8 * n)
    _analyse_line(small)
    t_small = min(_analyse_line(small) for _ in range(2))
    t_large = min(_analyse_line(large) for _ in range(2))
    assert t_large <= 8 * 4 * t_small + 0.25, (len(small), t_small, len(large), t_large)


_PIECES = st.sampled_from(["|", " | ", "sed 's/a/b/'", "tr a b", "echo", "$(", ")", "`", "\"", "'", "\\\"", ";",
                           "&&", "||", ">", "<", " ", "\t", "base64 -d", "sh", "bash -c", "curl https://x.example/a",
                           "~/.ssh/id_rsa", "eval", "${X}", "понедельник", "日本", "🙂", "\u200b", "-", "--", "=", ","])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=st.lists(_PIECES, min_size=1, max_size=8).map("".join))
def test_random_separator_and_pipeline_runs_stay_linear(unit: str) -> None:
    _linear(lambda n: "echo x " + unit * n, max(1, 300 // max(1, len(unit))))


@pytest.mark.parametrize("make", [
    lambda n: 'B=$(echo "$A"' + ' | sed "s/пн/d/"' * n + " | tr a b)",  # long pipelines
    lambda n: "echo " + '"$(' * n + "x" + ')"' * n,  # nested quotes and substitutions
    lambda n: "curl https://a.example/x " + "| tee y " * n + "| bash",
    lambda n: "x" + " |" * n + " sh",  # runs of separators
    lambda n: "echo " + "\u00e9\u0416\u65e5" * n + " | base64 -d | sh",  # unicode
    lambda n: "rm -rf " + "-f " * n + "/",
    lambda n: "eval $(echo " + "a" * n + " | base64 -d",
], ids=["pipeline", "nested", "tee-stages", "separators", "unicode", "flags", "unterminated"])
def test_adversarial_lines_stay_linear(make) -> None:  # type: ignore[no-untyped-def]
    _linear(make, 200)


# ------------------------------------------------------------------ the deadline stops analysis


class _SlowClassifier:
    """A classifier that never returns: what a pathological analyser looks like from outside."""

    @nervous.hookimpl
    def nervous_classify(self, bundle, context):  # type: ignore[no-untyped-def]
        while True:
            time.sleep(0.01)


def test_deadline_kills_a_classification_that_never_ends(nervous_pm) -> None:
    nervous_pm.register(_SlowClassifier(), "slow-classifier")
    t0 = time.perf_counter()
    r = scan_bundle(nervous_pm, bundle({"SKILL.md": skill_md("Explain tuples.\n")}), ScanContext(purpose="install"),
                    limits=ScanLimits(max_seconds=1.0))
    elapsed = time.perf_counter() - t0
    assert elapsed < 2.0  # the limit plus at most one second
    assert r.decision == "refuse" and not r.side_effects.complete
    assert r.report["limits"]["exceeded"] == ["max_seconds"]
    assert "incomplete" in r.report["capabilities"]["flags"]
    assert json.dumps(r.report)  # a complete report, not an exception


def test_call_with_deadline_returns_results_and_raises_errors() -> None:
    assert call_with_deadline(lambda: {"a": (1, 2)}, 5) == {"a": (1, 2)}
    with pytest.raises(ZeroDivisionError):
        call_with_deadline(lambda: 1 / 0, 5)
    t0 = time.perf_counter()
    with pytest.raises(DeadlineExceeded):
        call_with_deadline(lambda: re.match(r"(a+)+$", "a" * 40 + "b"), 0.3)  # C code a signal cannot stop
    assert time.perf_counter() - t0 < 1.3


def test_an_expression_for_listing_matches_on_re_must_be_free_of_backtracking() -> None:
    assert rx.compile_listing(r"[a-z]+|[0-9]+").findall("ab 12 cd") == ["ab", "12", "cd"]
    with pytest.raises(rx.UnsafeExpression):
        rx.compile_listing(r"(a+)+b")
