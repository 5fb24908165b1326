"""What :mod:`.rx` works out about the detectors' own expressions, worked out once and shipped.

Three questions are asked of an expression the first time a process uses it: whether it could backtrack
on ``re`` (:func:`rx.backtracking_risks`), whether a match in one line is a match in the whole text
(:func:`rx.line_screenable`), and, for one on ``re``, the RE2 screens that rule lines out before ``re`` runs
(:func:`rx.ascii_superset_text`). Each answer is a pure function of the expression's text and flags, and
finding it walks ``re``'s parse of the expression in Python: about a third of what a fresh process spends
before its first scan is done (``nervous scan DIR`` and the install gate pay it every time). So the answers
for the detectors' expressions are kept in ``known_expressions.json`` beside this module, read on first use;
an expression it does not hold (one built from a skill's own words, or one changed since the file was
written) is worked out as before. The file is written by::

    python -m nervous_plugins.review_policy.known_expressions --write

and ``--check`` (run by ``tests/security/test_known_expressions.py``) tells whether it is the one ``--write``
would write now.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: the file, beside this module
TABLE = Path(__file__).with_name("known_expressions.json")
#: the layout of the file (a file of another layout is not read)
FORMAT = 1

_table: dict[tuple[str, int], dict[str, Any]] | None = None


def lookup(pattern: str, flags: int) -> dict[str, Any] | None:
    """The answers kept for an expression (``line_safe``, ``risks``, ``superset``, ``wide``, each present
    only where it was worked out), or ``None``."""
    global _table
    if _table is None:
        _table = _read()
    return _table.get((pattern, flags))


def _read() -> dict[tuple[str, int], dict[str, Any]]:
    """The file's answers by expression; none when it is missing or not of this layout (the answers are
    then worked out as they are asked for, which is only slower)."""
    try:
        doc = json.loads(TABLE.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("expressions"), list):
        return {}
    return {(e["pattern"], e["flags"]): e for e in doc["expressions"]
            if isinstance(e, dict) and isinstance(e.get("pattern"), str) and isinstance(e.get("flags"), int)}


def detector_expressions() -> list[Any]:
    """Every expression the detectors hold once imported, each once, in a stable order (asked in a process
    that has compiled no other: ``--write`` and ``--check`` run as a program of their own)."""
    import gc

    from . import classifier, file_techniques, indicators, jscode, prose, pycode, rx, shell, text  # noqa: F401

    seen: dict[tuple[str, int], Any] = {}
    for obj in gc.get_objects():
        if isinstance(obj, (rx._ReRule, rx._Re2Rule)):
            seen.setdefault(_key(obj), obj)
    return [seen[k] for k in sorted(seen)]


def _key(expr: Any) -> tuple[str, int]:
    from . import rx

    return expr.pattern, expr._flags if isinstance(expr, rx._ReRule) else expr.flags


def answers(expr: Any) -> dict[str, Any]:
    """The answers :mod:`.rx` works out for one expression, computed now (the file's entry for it)."""
    from . import rx

    pattern, flags = _key(expr)
    entry: dict[str, Any] = {"pattern": pattern, "flags": flags, "line_safe": rx.line_screenable_of(pattern, flags)}
    if isinstance(expr, rx._ReRule):
        entry["risks"] = rx.backtracking_risks_of(pattern, flags)
        entry["superset"] = rx.ascii_superset_text_of(pattern, flags)
        entry["wide"] = rx.ascii_superset_text_of(pattern, flags, wide=True)
    return entry


def build() -> dict[str, Any]:
    """The file's content for the detectors' current expressions (every answer worked out, none read)."""
    return {"format": FORMAT, "expressions": [answers(e) for e in detector_expressions()]}


def main(argv: list[str] | None = None) -> int:
    """``--write`` the file for the detectors' current expressions, or ``--check`` that it is the one
    ``--write`` would write (exit 1, saying how to bring it up to date, when it is not)."""
    args = sys.argv[1:] if argv is None else argv
    if args not in (["--write"], ["--check"]):
        print("usage: python -m nervous_plugins.review_policy.known_expressions --write | --check", file=sys.stderr)
        return 2
    doc = build()
    text = json.dumps(doc, ensure_ascii=True, indent=0, sort_keys=True) + "\n"
    if args == ["--check"]:
        try:
            current = TABLE.read_text(encoding="utf-8")
        except OSError as exc:
            current = f"({exc.strerror or exc})"
        if current != text:
            print(f"{TABLE} is not the one the detectors' expressions give: run python -m "
                  "nervous_plugins.review_policy.known_expressions --write", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"{TABLE}: {len(doc['expressions'])} expressions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
