"""Rule expressions on a linear-time engine: RE2, with Python's ``re`` only where RE2 cannot go.

Skill files are hostile input: one line crafted against a backtracking expression could hold a scan
for hours. Every expression of the detectors is compiled here. RE2 (``google-re2``) matches in time
linear in the input; an expression RE2 cannot compile (a look-around) runs on ``re`` only after
:func:`backtracking_risks` found no nested or ambiguous repetition in it, and is recorded in
:data:`ENGINES` so the test suite can hold every rule expression to that standard.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, TypeVar

import re2

#: ``(pattern, flags) -> "re2" | "re"`` for every expression compiled so far (the first
#: :data:`ENGINES_KEPT`: past them, in a process that has read many skills, the rest are expressions built
#: from names those skills used, compiled and checked alike but not listed)
ENGINES: dict[tuple[str, int], str] = {}
ENGINES_KEPT = 8192
#: the rule expressions (:func:`compile`), kept for the life of the process: their number is the code's
_CACHE: dict[tuple[str, int], Any] = {}
#: how many expressions written in a detector's call (:func:`search` and the like) are kept: some are
#: built from a name a skill uses, and a process reading skills for days must not keep one for each
INLINE_KEPT = 2048
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.max_mem = 64 << 20  # room for the large alternations of the rule set
_RE2_OPTIONS.log_errors = False  # an expression RE2 cannot take is handled below, not logged
_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))

escape = re.escape
Match = re.Match
IGNORECASE = re.IGNORECASE
MULTILINE = re.MULTILINE
DOTALL = re.DOTALL
error = re.error


class UnsafeExpression(ValueError):
    """An expression that needs backtracking and can backtrack catastrophically."""


def compile(pattern: str, flags: int = 0) -> Any:  # noqa: A001 - the same name as re.compile, on purpose
    """A compiled expression with the ``re.Pattern`` methods the detectors use (a rule expression: kept)."""
    key = (pattern, flags)
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = _build(pattern, flags)
    return hit


@functools.lru_cache(maxsize=INLINE_KEPT)
def inline(pattern: str, flags: int = 0) -> Any:
    """An expression written in a detector's call: the rule expression of that spelling, or one compiled
    here and kept among the :data:`INLINE_KEPT` most recently used."""
    rule = _CACHE.get((pattern, flags))
    return rule if rule is not None else _build(pattern, flags)


def compile_listing(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """An expression that lists every match of a line (a tokenizer's words), on ``re`` itself.

    RE2's binding builds each match in Python: for a line of twenty short matches that costs several times
    what ``re`` takes. Only an expression free of backtracking risk (:func:`backtracking_risks`) is taken,
    so it is linear on ``re`` too; any other raises :class:`UnsafeExpression`."""
    risks = backtracking_risks(pattern, flags)
    if risks:
        raise UnsafeExpression(f"{risks[0]}: {pattern[:120]!r}")
    return re.compile(pattern, flags)


def _build(pattern: str, flags: int) -> Any:
    key = (pattern, flags)
    if flags & ~(re.IGNORECASE | re.MULTILINE | re.DOTALL):
        raise ValueError(f"unsupported flags for a rule expression: {flags!r}")
    letters = "".join(letter for flag, letter in _FLAGS if flags & flag)
    text = (f"(?{letters})" if letters else "") + _to_re2_syntax(pattern)
    try:
        compiled: Any = _Re2Rule(re2.compile(text, _RE2_OPTIONS), pattern, flags)
        engine = "re2"
    except re2.error:
        risks = backtracking_risks(pattern, flags)
        if risks:
            raise UnsafeExpression(f"{risks[0]}: {pattern[:120]!r}") from None
        compiled = _ReRule(pattern, flags)
        engine = "re"
    if len(ENGINES) < ENGINES_KEPT:
        ENGINES[key] = engine
    return compiled


_UNANCHORED = re2._Anchor.UNANCHORED
_UNBUILT = object()  # a wide screen not built yet (``_ReRule``)
_ANCHOR_START = re2._Anchor.ANCHOR_START
_ANCHOR_BOTH = re2._Anchor.ANCHOR_BOTH
_NULL_SPAN = (-1, -1)
_bytes_to_chars = re2._re2.BytesToCharLen  # (utf-8 bytes, start, end) -> characters in that byte range


class _Re2Rule:
    """An RE2 expression with the ``re.Pattern`` surface the detectors use.

    ASCII text (nearly every line of a skill) goes straight to RE2: byte offsets are character
    offsets, so no per-call offset translation is needed; other text takes the binding's general path.
    """

    __slots__ = ("_rx", "_raw", "pattern", "flags", "groups", "groupindex")

    def __init__(self, compiled: Any, pattern: str, flags: int) -> None:
        self._rx = compiled
        self._raw = compiled._regexp
        self.pattern = pattern
        self.flags = flags
        self.groups = compiled.groups
        self.groupindex = compiled.groupindex

    def _ascii(self, anchor: Any, text: str, pos: int | None, endpos: int | None) -> Any:
        data = _encoded(text)
        end = len(data) if endpos is None else max(0, min(endpos, len(data)))
        start = 0 if pos is None else max(0, min(pos, end))
        spans = self._raw.Match(anchor, data, start, end)
        if spans[0] == _NULL_SPAN:
            return None
        return re2._Match(self._rx, text, start, end, spans)

    def _whole_utf8(self, anchor: Any, text: str) -> Any:
        """A whole non-ASCII string searched in one RE2 call: the match the binding's general path returns
        (its byte offsets turned into character offsets the same way), or None. That path would encode the
        text again and repeat the search for every match found."""
        data = _utf8(text)
        spans = self._raw.Match(anchor, data, 0, len(data))
        if spans[0] == _NULL_SPAN:
            return None
        chars = {0: 0}
        last = 0
        for offset in sorted({o for span in spans for o in span if o > 0}):
            chars[offset] = chars[last] + _bytes_to_chars(data, last, offset)
            last = offset
        return re2._Match(self._rx, text, 0, len(text),
                          [span if span == _NULL_SPAN else (chars[span[0]], chars[span[1]]) for span in spans])

    def found(self, text: str) -> bool:
        """Whether ``search(text)`` finds a match, without building it."""
        data = _encoded(text) if _is_ascii(text) else _utf8(text)
        return self._raw.Match(_UNANCHORED, data, 0, len(data))[0] != _NULL_SPAN  # type: ignore[no-any-return]

    def search(self, text: str, pos: int | None = None, endpos: int | None = None) -> Any:
        last = _LAST
        if text is last[0] or isinstance(text, str) and text.isascii():
            if pos is None and endpos is None:  # the common case, inlined: a whole line searched
                data = last[1] if text is last[0] else _encoded(text)
                spans = self._raw.Match(_UNANCHORED, data, 0, len(data))
                return None if spans[0] == _NULL_SPAN else re2._Match(self._rx, text, 0, len(data), spans)
            return self._ascii(_UNANCHORED, text, pos, endpos)
        if pos is None and endpos is None and isinstance(text, str):
            return self._whole_utf8(_UNANCHORED, text)
        return self._rx.search(text, pos, endpos)

    def match(self, text: str, pos: int | None = None, endpos: int | None = None) -> Any:
        last = _LAST
        if text is last[0] or isinstance(text, str) and text.isascii():
            if pos is None and endpos is None:  # as in search: a whole ASCII string, inlined
                data = last[1] if text is last[0] else _encoded(text)
                spans = self._raw.Match(_ANCHOR_START, data, 0, len(data))
                return None if spans[0] == _NULL_SPAN else re2._Match(self._rx, text, 0, len(data), spans)
            return self._ascii(_ANCHOR_START, text, pos, endpos)
        if pos is None and endpos is None and isinstance(text, str):
            return self._whole_utf8(_ANCHOR_START, text)
        return self._rx.match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int | None = None, endpos: int | None = None) -> Any:
        if _is_ascii(text):
            return self._ascii(_ANCHOR_BOTH, text, pos, endpos)
        if pos is None and endpos is None and isinstance(text, str):
            return self._whole_utf8(_ANCHOR_BOTH, text)
        return self._rx.fullmatch(text, pos, endpos)

    def finditer(self, text: str, pos: int | None = None, endpos: int | None = None) -> Iterator[Any]:
        if not _is_ascii(text):
            # a whole string with no match is told in one RE2 call (most lines); the binding's general path
            # makes that same call, then translates every match's offsets
            if pos is not None or endpos is not None or not isinstance(text, str) or self.found(text):
                yield from self._rx.finditer(text, pos, endpos)
            return
        for start, end, spans in self._ascii_spans(text, pos, endpos):
            yield re2._Match(self._rx, text, start, end, spans)

    def findall(self, text: str, pos: int | None = None, endpos: int | None = None) -> list[Any]:
        groups = self.groups
        if not _is_ascii(text):
            return [m.group() if not groups else m.groups(default="")[0] if groups == 1 else m.groups(default="")
                    for m in self.finditer(text, pos, endpos)]
        # on ASCII text the groups are cut from RE2's spans, without a match object for each (the shell
        # detector lists every variable of every line this way)
        out: list[Any] = []
        for _start, _end, spans in self._ascii_spans(text, pos, endpos):
            if not groups:
                out.append(text[spans[0][0]:spans[0][1]])
            elif groups == 1:
                out.append(text[spans[1][0]:spans[1][1]] if spans[1][0] >= 0 else "")
            else:
                out.append(tuple(text[a:b] if a >= 0 else "" for a, b in spans[1:]))
        return out

    def spans(self, text: str) -> list[Any]:
        """Each match's spans left to right, ((start, end) of the whole match, of group 1, …) in characters,
        (-1, -1) for a group that took no part: ``finditer`` without building a match object for each."""
        if not _is_ascii(text):
            return [tuple(m.span(g) for g in range(self.groups + 1)) for m in self.finditer(text)]
        return [spans for _start, _end, spans in self._ascii_spans(text, None, None)]

    def _ascii_spans(self, text: str, pos: int | None, endpos: int | None) -> Iterator[tuple[int, int, Any]]:
        """Each match of an ASCII ``text`` left to right as (where its search started, the end, RE2's spans),
        stepping past an empty match as ``re`` does."""
        data = _encoded(text)
        end = len(data) if endpos is None else max(0, min(endpos, len(data)))
        start = 0 if pos is None else max(0, min(pos, end))
        match = self._raw.Match
        while start <= end:
            spans = match(_UNANCHORED, data, start, end)
            if spans[0] == _NULL_SPAN:
                return
            yield start, end, spans
            start = spans[0][1] + 1 if spans[0][1] == spans[0][0] else spans[0][1]

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self._rx.split(text, maxsplit)  # type: ignore[no-any-return]

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        if isinstance(text, str) and self.search(text) is None:
            return text  # nothing to replace: the binding's general path would rebuild the same string
        return self._rx.sub(repl, text, count)  # type: ignore[no-any-return]

    def subn(self, repl: Any, text: str, count: int = 0) -> tuple[str, int]:
        if isinstance(text, str) and self.search(text) is None:
            return text, 0
        return self._rx.subn(repl, text, count)  # type: ignore[no-any-return]


def _raw_set_match(compiled: Any) -> Callable[[bytes], list[int]]:
    """The binding's own ``RE2::Set::Match`` on bytes, past its Python wrapper (which only encodes text and
    turns an empty answer into ``None``): the detectors make one set pass per line."""
    return compiled._set.Match  # type: ignore[no-any-return]


#: distinct answers a :class:`LiteralSets` keeps (the wild sample's skills give a few hundred)
ANSWERS_KEPT = 4096


class LiteralSets:
    """Named sets of literal words, all searched in one RE2 pass: which sets have a word in a text.

    A detector that gates a dozen expressions on cheap word lists would otherwise search the same
    line once per list; the answer is the same as searching each list's alternation on its own.
    """

    __slots__ = ("_set", "_names", "_match", "_answers")

    def __init__(self, sets: dict[str, tuple[str, ...]]) -> None:
        self._names = tuple(sets)
        self._set = re2.Set.SearchSet(_RE2_OPTIONS)
        for words in sets.values():
            self._set.Add("|".join(re.escape(w) for w in words))
        self._set.Compile()
        self._match = _raw_set_match(self._set)
        #: each answer's names, built once per distinct answer (a line holds few of the sets; text made to
        #: hold many combinations gets the first :data:`ANSWERS_KEPT` kept, the rest built each time)
        self._answers: dict[tuple[int, ...], frozenset[str]] = {(): frozenset()}

    def present(self, text: str) -> frozenset[str]:
        """Names of the sets one of whose words occurs in ``text``."""
        found = tuple(self._match(_encoded(text) if _is_ascii(text) else _utf8(text)))
        names = self._answers.get(found)
        if names is None:
            names = frozenset(self._names[i] for i in found)
            if len(self._answers) < ANSWERS_KEPT:
                self._answers[found] = names
        return names


#: the most expressions one RE2 set holds. A set's DFA is built lazily, a state for each combination of its
#: expressions' partial matches that the text reaches: the shell detector's 33 expressions in one set took
#: 0.93 s over the wild sample's shell lines the first time and 0.10 s the second (building, then searching);
#: three sets of 11 took 0.34 s, then 0.14 s (docs/benchmarks.md, "Scan speed, eleventh pass")
SET_SIZE = 11


class Prefilter:
    """Many RE2 expressions searched over one text in a single RE2 set pass, to skip the ones that find nothing.

    A line detector that tries twenty expressions on every line pays twenty searches (and their Python
    overhead) where usually none matches. :meth:`scan` runs all of them at once, in a set pass for each
    :data:`SET_SIZE` of them (an expression on ``re`` through its ASCII screen, on ASCII text); the :class:`Scanned`
    it returns answers ``search``/``finditer``/``findall`` exactly as the expression itself would on that
    text — ``None`` (or nothing) straight away for an expression the set found absent, the expression's
    own result otherwise.

    Why a set pass cannot silently miss: ``RE2::Set::Match`` reports a failed DFA search as "no match",
    but for set matching RE2 never gives up on slow input (its bail-out to the NFA is disabled for
    ``kManyMatch``: the state cache is flushed and rebuilt instead), and a budget too small for the
    DFA makes ``Compile()`` fail here, at import, not a later ``Match``. ``tests/security/
    test_scan_prefilters.py`` holds every set pass to the slow path's answer.
    """

    __slots__ = ("_sets", "_index", "_ascii_only", "_matches", "_wide_exprs", "_wide_index", "_wide_match",
                 "_screened")

    def __init__(self, exprs: list[Any]) -> None:
        self._index: dict[int, int] = {}
        self._ascii_only: set[int] = set()
        # the expressions on ``re``, whose wide screens (for text that is not ASCII, see ``ascii_superset``)
        # make a second set, built on the first such text
        self._wide_exprs: list[Any] = []
        self._wide_index: list[int] = []  # position in the wide set -> the expression's index in the first
        spellings: list[str] = []
        for expr in exprs:
            if id(expr) in self._index:
                continue
            if isinstance(expr, _Re2Rule):
                text: str | None = expr._rx.pattern  # the RE2 spelling, inline flags included
            elif isinstance(expr, _ReRule) and expr._screen is not None:
                # an expression on ``re`` is represented by its screen, which holds for ASCII text only
                text = ascii_superset_text(expr.pattern, expr._flags)
                if text is not None:
                    self._ascii_only.add(id(expr))
                    self._wide_exprs.append(expr)
                    self._wide_index.append(len(spellings))
            else:
                text = None
            if text is not None:
                self._index[id(expr)] = len(spellings)
                spellings.append(text)
        # the expressions dealt in turn to sets of at most SET_SIZE (see there), each set with the indices
        # of its own
        count = max(1, -(-len(spellings) // SET_SIZE))
        self._sets = [re2.Set.SearchSet(_RE2_OPTIONS) for _ in range(count)]
        for i, text in enumerate(spellings):
            self._sets[i % count].Add(text)
        for one in self._sets:
            one.Compile()
        self._matches = [(_raw_set_match(one), range(k, len(spellings), count)) for k, one in enumerate(self._sets)]
        self._screened = frozenset(self._index[k] for k in self._ascii_only)
        self._wide_match: Callable[[bytes], list[int]] | None = None

    def _match(self, data: bytes) -> frozenset[int]:
        """The indices of the expressions the sets find in ``data``."""
        found: list[int] = []
        for match, indices in self._matches:
            hits = match(data)
            if hits:
                found.extend(map(indices.__getitem__, hits))
        return frozenset(found)

    def _wide_set(self) -> Callable[[bytes], list[int]]:
        """The wide screens of the expressions on ``re`` as one set (built once, on the first text that is
        not ASCII); an expression without one is always run on such text (its screen matches anything)."""
        if self._wide_match is None:
            wide = re2.Set.SearchSet(_RE2_OPTIONS)
            for expr in self._wide_exprs:
                text = ascii_superset_text(expr.pattern, expr._flags, wide=True) if expr.wide_screen() is not None else None
                wide.Add(text if text is not None else "")
            wide.Compile()
            self._wide_match = _raw_set_match(wide)
        return self._wide_match

    def group(self, exprs: list[Any]) -> frozenset[int] | None:
        """Several of the set's expressions as one group for :meth:`Scanned.may_match_any` (``None`` when
        one of them is not in the set, so that the group always may match)."""
        if any(id(e) not in self._index for e in exprs):
            return None
        return frozenset(self._index[id(e)] for e in exprs)

    def scan(self, text: str) -> Scanned:
        ascii = _is_ascii(text)
        data = _encoded(text) if ascii else _utf8(text)
        found = self._match(data)
        if not ascii and self._wide_index:
            # the first set's screens say nothing about other text: their wide screens do, on its reading
            # with each non-ASCII character as "?"
            wide = self._wide_index
            found = (found - self._screened) | {wide[i] for i in self._wide_set()(_wide_bytes(text))}
        return Scanned(text, self._index, found)


class Scanned:
    """One text's :class:`Prefilter` result (see there)."""

    __slots__ = ("text", "_index", "_found")

    def __init__(self, text: str, index: dict[int, int], found: frozenset[int]) -> None:
        self.text = text
        self._index = index
        self._found = found

    def may_match(self, expr: Any) -> bool:
        i = self._index.get(id(expr))
        return i is None or i in self._found

    def may_match_any(self, group: frozenset[int] | None) -> bool:
        """False when no expression of a :meth:`Prefilter.group` can match the text: a detector whose every
        finding needs one of them skips them all at once."""
        return group is None or not group.isdisjoint(self._found)

    def search(self, expr: Any) -> Any:
        return expr.search(self.text) if self.may_match(expr) else None

    def finditer(self, expr: Any) -> Iterator[Any]:
        return expr.finditer(self.text) if self.may_match(expr) else iter(())

    def findall(self, expr: Any) -> list[Any]:
        return expr.findall(self.text) if self.may_match(expr) else []


_LINE_SAFE: dict[tuple[str, int], bool] = {}


@functools.lru_cache(maxsize=2 * INLINE_KEPT)
def _parsed(pattern: str, flags: int) -> Any:
    """``re``'s parse of an expression, shared by the questions asked of it (is it free of backtracking risk,
    its screens, is it line-screenable): each would parse it again (a tenth of a fresh process's first scan).
    The walks over it only read it."""
    return sre_parse.parse(pattern, flags)


def line_screenable(expr: Any) -> bool:
    """Whether a match of ``expr`` in one line of a text implies a match in the whole text.

    True for expressions whose only assertions are word boundaries and line anchors (``^``/``$`` in
    multi-line mode): a line is bounded by newlines or the ends of the text, where those assertions hold
    exactly as at the ends of the line alone. False for string anchors (``\\A``, ``\\Z``, ``^``/``$``
    without multi-line) and look-arounds, which can see past a line's ends.
    """
    # an expression on ``re`` is asked with the flags it was written with: its compiled flags (the same
    # parse, with the inline and Unicode flags added) would compile it before it is first used
    key = (expr.pattern, expr._flags if isinstance(expr, _ReRule) else expr.flags)
    safe = _LINE_SAFE.get(key)
    if safe is None:
        safe = _LINE_SAFE[key] = _known_answer(key, "line_safe", bool, line_screenable_of)
    return safe


def line_screenable_of(pattern: str, flags: int) -> bool:
    """:func:`line_screenable` of an expression's text and flags, worked out now."""
    try:
        parsed = _parsed(pattern, flags & ~re.UNICODE)
        multiline = bool(parsed.state.flags & re.MULTILINE)
        return _line_safe(parsed, multiline)
    except (re.error, RecursionError, TypeError):
        return False


T = TypeVar("T")


def _known_answer(key: tuple[str, int], name: str, kind: Any, work_out: Callable[[str, int], T]) -> T:
    """An answer about an expression from :mod:`.known_expressions` (one of the detectors' own), or worked
    out now (any other, or an answer of the wrong kind)."""
    from .known_expressions import lookup

    entry = lookup(*key)
    if entry is not None and name in entry and isinstance(entry[name], kind):
        return entry[name]  # type: ignore[no-any-return]
    return work_out(*key)


_LINE_ANCHORS = {sre_parse.AT_BEGINNING, sre_parse.AT_END}
_WORD_ANCHORS = {sre_parse.AT_BOUNDARY, sre_parse.AT_NON_BOUNDARY}


def _line_safe(items: Any, multiline: bool) -> bool:
    for op, av in items:
        if op is sre_parse.AT:
            if av in _WORD_ANCHORS or (multiline and av in _LINE_ANCHORS):
                continue
            return False
        if op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT, sre_parse.GROUPREF, sre_parse.GROUPREF_EXISTS):
            return False
        if op is sre_parse.SUBPATTERN:
            add_flags, del_flags = av[1], av[2]
            if add_flags & re.MULTILINE or del_flags & re.MULTILINE:
                return False  # a scoped (?m) changes the anchors inside: not worth following
            if not _line_safe(av[3], multiline):
                return False
        elif op is sre_parse.BRANCH:
            if not all(_line_safe(b, multiline) for b in av[1]):
                return False
        elif op in _REPEATS:
            if not _line_safe(av[2], multiline):
                return False
        elif op is getattr(sre_parse, "ATOMIC_GROUP", None):
            if not _line_safe(av, multiline):
                return False
    return True


class Screen:
    """Per-file screen for per-line detectors: an expression that finds nothing in the whole text
    cannot match any of its lines, so it is searched once over the text and skipped on every line.

    :meth:`search` answers exactly as ``expr.search(line)`` for any whole line of the text (a
    ``"\\n"``-separated piece); expressions whose match in a line may not be one in the text (see
    :func:`line_screenable`) are always searched on the line itself.

    ``screen_re``: an expression on ``re`` is ruled out too, by its screen (:func:`ascii_superset` has no
    assertion left, so a match in a line is one in the text). Worth it where every line would be searched:
    the screen's one pass costs what the lines' passes would. Where a detector's gate picks a few lines of
    a file, a pass over the whole file costs more than it saves (measured: 1.04× on the slowest skills).
    """

    __slots__ = ("_text", "_present", "_screen_re")

    def __init__(self, text: str, *, screen_re: bool = False) -> None:
        self._text = text
        self._present: dict[int, bool] = {}
        self._screen_re = screen_re

    def may_match(self, expr: Any) -> bool:
        """False when ``expr`` cannot match any line of the text."""
        key = id(expr)
        present = self._present.get(key)
        if present is None:
            if self._screen_re and isinstance(expr, _ReRule):
                present = not expr._cannot_match(self._text, None, None)
            else:
                present = not line_screenable(expr) or (
                    expr.found(self._text) if isinstance(expr, _Re2Rule) else expr.search(self._text) is not None)
            self._present[key] = present
        return present

    def search(self, expr: Any, line: str) -> Any:
        return expr.search(line) if self.may_match(expr) else None

    def finditer(self, expr: Any, line: str) -> Iterator[Any]:
        return expr.finditer(line) if self.may_match(expr) else iter(())

    def findall(self, expr: Any, line: str) -> list[Any]:
        return expr.findall(line) if self.may_match(expr) else []


def marked_lines(expr: Any, text: str) -> set[int]:
    """The indices of the ``"\\n"``-separated lines of ``text`` that ``expr`` finds something in, and maybe a
    few more, from one search of the whole text instead of one per line.

    Each match marks every line it touches. A line with a match of its own is marked: for an expression
    that is :func:`line_screenable`, a match in a line is a match in the text, so the search of the text,
    reaching that line, reports a match starting in it or one starting earlier that runs into it. For
    other expressions (look-arounds, string anchors) a line's match may be none in the text: each caller's
    expression is held to :func:`line_screenable` by the tests (an RE2 spelling ``re`` cannot parse, such
    as inline flags inside an alternation, is checked part by part there). Only an expression on RE2 can
    mark lines (one on ``re`` is refused).
    """
    if not isinstance(expr, _Re2Rule):
        raise ValueError(f"lines are marked by an expression on RE2, not {expr.pattern[:60]!r}")
    marked: set[int] = set()
    # on the UTF-8 bytes, with byte offsets (a newline is one byte there and in no other character's bytes:
    # the lines are the same), each search starting at the line after the last one marked (a line's own
    # match still starts in it, or one from an earlier line runs into it)
    data = _encoded(text) if _is_ascii(text) else _utf8(text)
    search, n, count = expr._raw.Match, len(data), data.count
    line = pos = 0  # the index of the line starting at ``pos``
    while pos <= n:
        start, end = search(_UNANCHORED, data, pos, n)[0]
        if start < 0:
            break
        first = line + count(b"\n", pos, start)
        last = max(start, end - 1)
        line = first + count(b"\n", start, last)
        marked.update(range(first, line + 1))
        pos = data.find(b"\n", last) + 1
        if pos == 0:
            break
        line += 1
    return marked


class _ReRule:
    """An expression that needs ``re`` (a look-around), screened by an RE2 expression first.

    The screen (:func:`ascii_superset`) matches wherever the expression could match in ASCII text,
    and more: when it finds nothing in an ASCII string, the expression cannot match there either, and
    ``re`` is not run. Every match returned is ``re``'s own, so results are exactly those of ``re``;
    the screen only saves the backtracking engine's time on the many lines where nothing can match
    (a large alternation on ``re`` costs tens of microseconds per line even when nothing matches).

    Built when first used, as its screens are: an expression is checked for backtracking (by :func:`_build`)
    when the detectors are imported, but ``re`` compiles it, and RE2 its screen, in the process that reads a
    line with it (the ``re`` expressions were two fifths of the plugin's import, and a small skill uses few).
    """

    __slots__ = ("_compiled", "_ascii_screen", "_wide", "_flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        self._ascii_screen: Any = _UNBUILT
        # the same for any text, read with each non-ASCII character as "?" (see _wide_bytes); built on the
        # first text that is not ASCII
        self._wide: Any = _UNBUILT

    @property
    def _re(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self._flags)
        return compiled

    @property
    def _screen(self) -> Any:
        """The screen for ASCII text (``None``: there is none, ``re`` always runs)."""
        screen = self._ascii_screen
        if screen is _UNBUILT:
            screen = self._ascii_screen = ascii_superset(self.pattern, self._flags)
        return screen

    @property
    def flags(self) -> int:
        return self._re.flags

    @property
    def groups(self) -> int:
        return self._re.groups

    @property
    def groupindex(self) -> Any:
        return self._re.groupindex

    def _cannot_match(self, text: Any, pos: int | None, endpos: int | None) -> bool:
        screen = self._ascii_screen
        if screen is _UNBUILT:
            screen = self._screen
        if screen is None or pos is not None or endpos is not None or not isinstance(text, str):
            return False
        if not text.isascii():
            wide = self.wide_screen()
            if wide is None:
                return False
            data = _wide_bytes(text)
            return wide.Match(_UNANCHORED, data, 0, len(data))[0] == _NULL_SPAN  # type: ignore[no-any-return]
        data = _encoded(text)
        return screen.Match(_UNANCHORED, data, 0, len(data))[0] == _NULL_SPAN  # type: ignore[no-any-return]

    def wide_screen(self) -> Any:
        """The screen for text that is not ASCII (``None``: there is none, ``re`` always runs there)."""
        if self._wide is _UNBUILT:
            self._wide = ascii_superset(self.pattern, self._flags, wide=True)
        return self._wide

    def search(self, text: str, pos: int | None = None, endpos: int | None = None) -> Any:
        if self._cannot_match(text, pos, endpos):
            return None
        return self._re.search(text, *_positions(pos, endpos, len(text)))

    def match(self, text: str, pos: int | None = None, endpos: int | None = None) -> Any:
        if self._cannot_match(text, pos, endpos):
            return None
        return self._re.match(text, *_positions(pos, endpos, len(text)))

    def fullmatch(self, text: str, pos: int | None = None, endpos: int | None = None) -> Any:
        if self._cannot_match(text, pos, endpos):
            return None
        return self._re.fullmatch(text, *_positions(pos, endpos, len(text)))

    def finditer(self, text: str, pos: int | None = None, endpos: int | None = None) -> Iterator[Any]:
        if self._cannot_match(text, pos, endpos):
            return iter(())
        return self._re.finditer(text, *_positions(pos, endpos, len(text)))

    def findall(self, text: str, pos: int | None = None, endpos: int | None = None) -> list[Any]:
        if self._cannot_match(text, pos, endpos):
            return []
        return self._re.findall(text, *_positions(pos, endpos, len(text)))

    def spans(self, text: str) -> list[Any]:
        """As :meth:`_Re2Rule.spans`."""
        return [tuple(m.span(g) for g in range(self.groups + 1)) for m in self.finditer(text)]

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self._re.split(text, maxsplit)

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        if self._cannot_match(text, None, None):
            return text  # nothing to replace (an expression that can match nothing has a screen that does too)
        return self._re.sub(repl, text, count)

    def subn(self, repl: Any, text: str, count: int = 0) -> tuple[str, int]:
        if self._cannot_match(text, None, None):
            return text, 0
        return self._re.subn(repl, text, count)


def _positions(pos: int | None, endpos: int | None, n: int) -> tuple[int, int]:
    return (0 if pos is None else pos), (n if endpos is None else endpos)


_STRUCTURE = {sre_parse.BRANCH, sre_parse.SUBPATTERN, sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT,
              sre_parse.GROUPREF, sre_parse.GROUPREF_EXISTS, getattr(sre_parse, "ATOMIC_GROUP", None)} - {None}
_ASCII = [chr(i) for i in range(128)]
_ATOM_SETS: dict[tuple[Any, Any, int], frozenset[int]] = {}


#: a bounded repetition whose bounds lie further apart than this is left open in a screen: ``[^.\\n]{0,80}``
#: becomes ``[^.\\n]{0,}``. RE2 runs such a window after a word list as a DFA whose states remember how far
#: back every place the window may have started lies; on prose, which starts one at every other word, the
#: state cache fills and RE2 falls back to its NFA (50 µs for a line of fifty characters). The open window
#: is a handful of states, and a screen may match more than its expression.
WINDOW_KEPT = 8


def ascii_superset(pattern: str, flags: int = 0, *, wide: bool = False) -> Any:
    """An RE2 expression that matches some substring of every ASCII string ``pattern`` matches in.

    Built from ``re``'s own parse of the expression: every look-around, anchor and word boundary is
    dropped (an assertion removed can only allow more matches), a back-reference becomes any text,
    and every single-character element becomes the exact set of ASCII characters ``re`` itself
    matches with it under the flags in force there (found by asking ``re``, so case folding and
    Unicode classes such as ``\\s`` agree by construction). ``None`` when RE2 cannot take the result.

    ``wide``: the screen of any text read through :func:`_wide_bytes` (each non-ASCII character as one
    ``?``): every element that may match some non-ASCII character also matches ``?`` (decided conservatively
    by :func:`_may_match_non_ascii`), so a match on the text is still one of the screen on its reading.
    """
    text = ascii_superset_text(pattern, flags, wide=wide)
    if text is None:
        return None
    try:
        return re2.compile(text, _RE2_OPTIONS)._regexp
    except re2.error:
        return None


@functools.lru_cache(maxsize=2 * INLINE_KEPT)
def ascii_superset_text(pattern: str, flags: int = 0, *, wide: bool = False) -> str | None:
    """The RE2 spelling of :func:`ascii_superset` (``None`` where it cannot be built).

    Remembered: each expression on ``re`` asks for it when it is compiled and again in every line set
    that holds it, and building it walks the whole parsed expression (a third of the plugin's import); the
    detectors' own are read from :mod:`.known_expressions`."""
    return _known_answer((pattern, flags), "wide" if wide else "superset", (str, type(None)),
                         functools.partial(ascii_superset_text_of, wide=wide))


def ascii_superset_text_of(pattern: str, flags: int = 0, *, wide: bool = False) -> str | None:
    """:func:`ascii_superset_text`, worked out now."""
    parsed = _parsed(pattern, flags)
    try:
        return _superset_seq(parsed, parsed.state, parsed.state.flags | flags, wide)
    except (ValueError, RecursionError):
        return None


def _superset_seq(seq: Any, state: Any, flags: int, wide: bool = False) -> str:
    out: list[str] = []
    for op, av in seq:
        if op in (sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            continue
        if op is sre_parse.SUBPATTERN:
            _group, add, remove, body = av
            out.append("(?:" + _superset_seq(body, state, (flags | add) & ~remove, wide) + ")")
        elif op is sre_parse.BRANCH:
            out.append("(?:" + "|".join(_superset_seq(b, state, flags, wide) for b in av[1]) + ")")
        elif op in _REPEATS:
            lo, hi, body = av
            lo = min(lo, 1000)
            # a wide window is left open (see WINDOW_KEPT): the screen still matches wherever ``re`` can
            upper = "" if hi is sre_parse.MAXREPEAT or hi > 1000 or hi - lo > WINDOW_KEPT else str(hi)
            out.append("(?:" + _superset_seq(body, state, flags, wide) + "){" + f"{lo},{upper}" + "}")
        elif op is getattr(sre_parse, "ATOMIC_GROUP", None):
            out.append("(?:" + _superset_seq(av, state, flags, wide) + ")")
        elif op is sre_parse.GROUPREF:
            out.append("[\\x00-\\x7f]*")
        elif op is sre_parse.GROUPREF_EXISTS:
            _group, yes, no = av
            out.append("(?:" + _superset_seq(yes, state, flags, wide) + "|"
                       + (_superset_seq(no, state, flags, wide) if no is not None else "") + ")")
        else:
            chars = _atom_set(op, av, state, flags)
            if wide and _may_match_non_ascii(op, av, flags):
                chars = chars | _WIDE_MARK
            out.append(_ascii_class(chars))
    return "".join(out)


#: what stands for every non-ASCII character in a text read for a wide screen
_WIDE_MARK = frozenset((ord("?"),))


def _may_match_non_ascii(op: Any, av: Any, flags: int) -> bool:
    """Whether a one-character element may match a non-ASCII character: False only for ASCII literals and
    sets of them that hold no letter under case folding (a letter may fold to one: the Kelvin sign to
    "k", the long s to "s"; no non-ASCII character folds to an ASCII digit or punctuation)."""
    fold = bool(flags & re.IGNORECASE)

    def plain(lo: int, hi: int) -> bool:
        return hi < 128 and not (fold and any(chr(x).isalpha() for x in range(lo, hi + 1)))

    if op is sre_parse.LITERAL:
        return not plain(av, av)
    if op is sre_parse.IN:
        for item_op, item in av:
            if item_op is sre_parse.LITERAL and plain(item, item):
                continue
            if item_op is sre_parse.RANGE and plain(item[0], item[1]):
                continue
            return True  # a negation, a category (\d, \w, \s are Unicode-wide) or a non-ASCII member
        return False
    return True


def _wide_bytes(text: str) -> bytes:
    """``text`` as ASCII bytes with each non-ASCII character (one code point) as one ``?``, for the wide
    screens; the last one is kept, since the detectors try many expressions on one line in a row."""
    global _LAST_WIDE
    last = _LAST_WIDE
    if text is last[0]:
        return last[1]
    data = text.encode("ascii", "replace")
    _LAST_WIDE = (text, data)
    return data


_LAST_WIDE: tuple[Any, bytes] = (object(), b"")


#: the flags an element's characters depend on, as plain integers (``re``'s flags are an enum whose every
#: operation runs in Python: a rule set has thousands of elements)
_CASE, _CASE_AND_DOT = int(re.IGNORECASE), int(re.IGNORECASE | re.DOTALL)


def _atom_set(op: Any, av: Any, state: Any, flags: int) -> frozenset[int]:
    """The ASCII characters a one-character element matches, as ``re`` decides under ``flags``."""
    eff = int(flags) & _CASE_AND_DOT
    if op is sre_parse.LITERAL and not eff & _CASE:
        return frozenset((av,)) if av < 128 else frozenset()
    key = (op, tuple(av) if isinstance(av, list) else av, eff)
    hit = _ATOM_SETS.get(key)
    if hit is not None:
        return hit
    from re import _compiler  # type: ignore[attr-defined]

    base = int(state.flags) & _CASE_AND_DOT
    # the element alone, wrapped in a group that sets the flags in force where it stood
    inner = sre_parse.SubPattern(state, [(op, av)])
    group = sre_parse.SubPattern(state, [(sre_parse.SUBPATTERN, (None, eff & ~base, base & ~eff, inner))])
    one = _compiler.compile(group, 0)
    found = frozenset(ord(ch) for ch in _ASCII if one.fullmatch(ch))
    _ATOM_SETS[key] = found
    return found


_CLASSES: dict[frozenset[int], str] = {}


def _ascii_class(chars: frozenset[int]) -> str:
    if not chars:
        return "\\x{80}"  # matches no ASCII character: the screen is only used on ASCII text
    hit = _CLASSES.get(chars)
    if hit is None:
        runs: list[list[int]] = []
        for c in sorted(chars):
            if runs and runs[-1][1] == c - 1:
                runs[-1][1] = c
            else:
                runs.append([c, c])
        hit = "[" + "".join(f"\\x{{{a:02x}}}" + (f"-\\x{{{b:02x}}}" if b > a else "") for a, b in runs) + "]"
        _CLASSES[chars] = hit
    return hit


#: the last ASCII string encoded for RE2 and its bytes, as one tuple (replaced whole, so threads never see a
#: string paired with another's bytes): the detectors run many expressions over one line in a row, which
#: then encode it once (the string is held, so its identity cannot be reused meanwhile)
_LAST: tuple[Any, bytes] = (object(), b"")


def _is_ascii(text: Any) -> bool:
    return text is _LAST[0] or isinstance(text, str) and text.isascii()


#: the same for the last non-ASCII string and its UTF-8 bytes
_LAST_UTF8: tuple[Any, bytes] = (object(), b"")


def _utf8(text: str) -> bytes:
    global _LAST_UTF8
    last = _LAST_UTF8
    if text is last[0]:
        return last[1]
    data = text.encode("utf-8")
    _LAST_UTF8 = (text, data)
    return data


def _encoded(text: str) -> bytes:
    global _LAST
    last = _LAST
    if text is last[0]:
        return last[1]
    data = text.encode("ascii")
    _LAST = (text, data)
    return data


def match_texts(expr: Any, text: str) -> list[str]:
    """The text of every match of an RE2 ``expr`` in ``text``, left to right (``findall`` without groups).

    Run on the text's UTF-8 bytes, where RE2 matches whole characters: no match objects are built and no
    byte offsets translated into character offsets (a large non-ASCII file holds thousands of matches, and
    a screen over them needs their text only). ``expr`` must not match the empty string."""
    ascii = _is_ascii(text)
    data = _encoded(text) if ascii else _utf8(text)
    raw = expr._raw.Match
    out: list[str] = []
    start, end = 0, len(data)
    while start < end:
        s, e = raw(_UNANCHORED, data, start, end)[0]
        if s < 0 or e == s:
            break
        out.append(data[s:e].decode("ascii" if ascii else "utf-8"))
        start = e
    return out


def _to_re2_syntax(pattern: str) -> str:
    """Python spellings RE2 writes differently: ``\\Z`` is ``\\z``, ``\\uXXXX`` is ``\\x{XXXX}``."""
    def one(m: re.Match[str]) -> str:
        esc = m.group(0)
        if esc == r"\Z":
            return r"\z"
        if esc[1] in "uU":
            return r"\x{" + esc[2:] + "}"
        return esc

    return re.sub(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", one, pattern)


def search(pattern: str, string: str, flags: int = 0) -> Any:
    return inline(pattern, flags).search(string)


def match(pattern: str, string: str, flags: int = 0) -> Any:
    return inline(pattern, flags).match(string)


def fullmatch(pattern: str, string: str, flags: int = 0) -> Any:
    return inline(pattern, flags).fullmatch(string)


def finditer(pattern: str, string: str, flags: int = 0) -> Iterator[Any]:
    return inline(pattern, flags).finditer(string)  # type: ignore[no-any-return]


def findall(pattern: str, string: str, flags: int = 0) -> list[Any]:
    return inline(pattern, flags).findall(string)  # type: ignore[no-any-return]


def split(pattern: str, string: str, maxsplit: int = 0, flags: int = 0) -> list[str]:
    return inline(pattern, flags).split(string, maxsplit)  # type: ignore[no-any-return]


def sub(pattern: str, repl: str | Callable[[Any], str], string: str, count: int = 0, flags: int = 0) -> str:
    return inline(pattern, flags).sub(repl, string, count)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ static check for the ``re`` fallback

_REPEATS = {sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, getattr(sre_parse, "POSSESSIVE_REPEAT", None)} - {None}
_BIG = 16  # a repetition bounded by more than this behaves like an unbounded one on a long line


def backtracking_risks(pattern: str, flags: int = 0) -> list[str]:
    """Why ``pattern`` could backtrack exponentially on ``re``: nested unbounded repetitions, or a
    repetition of alternatives that can begin with the same character. Empty when neither occurs (the
    detectors' own expressions: read from :mod:`.known_expressions`)."""
    return _known_answer((pattern, flags), "risks", list, backtracking_risks_of)


def backtracking_risks_of(pattern: str, flags: int = 0) -> list[str]:
    """:func:`backtracking_risks`, worked out now."""
    risks: list[str] = []
    parsed = _parsed(pattern, flags)
    _walk(parsed, 0, risks, parsed.state.flags)
    return risks


def _walk(seq: Any, depth: int, risks: list[str], flags: int) -> None:
    for op, av in seq:
        if op in _REPEATS:
            lo, hi, body = av
            unbounded = hi is sre_parse.MAXREPEAT or hi > _BIG
            if unbounded:
                risk = _iteration_risk(body, flags)
                if risk:
                    risks.append(risk)
            _walk(body, depth + (1 if unbounded else 0), risks, flags)
        elif op is sre_parse.SUBPATTERN:
            _walk(av[-1], depth, risks, flags)
        elif op is sre_parse.BRANCH:
            for branch in av[1]:
                _walk(branch, depth, risks, flags)
        elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            _walk(av[1], depth, risks, flags)


def _iteration_risk(body: Any, flags: int) -> str | None:
    """Why a text could split into iterations of ``body`` in more than one way, if it could."""
    lo, hi = body.getwidth()
    if lo == hi:
        return None  # fixed width: iterations fall at fixed offsets
    inner = body
    while len(inner) == 1 and inner[0][0] is sre_parse.SUBPATTERN:
        inner = inner[0][1][-1]
    branches = inner[0][1][1] if len(inner) == 1 and inner[0][0] is sre_parse.BRANCH else [inner]
    if len(branches) > 1 and _ambiguous_branches(inner, flags):
        return "repeated alternatives that overlap"
    firsts = [_first_chars(b, flags) for b in branches]
    if any(not f for f in firsts):
        return "nested repetition"
    wrap = frozenset().union(*firsts)  # type: ignore[arg-type]
    if not all(_delimited(b, flags, wrap) for b in branches):
        return "nested repetition"
    return None


def _can_repeat_text(seq: Any) -> bool:
    """The body contains a repetition that can match more than one character."""
    for op, av in seq:
        if op in _REPEATS:
            lo, hi, body = av
            if lo != hi and (hi is sre_parse.MAXREPEAT or hi > 1):  # a fixed count {n} splits one way only
                return True
            if _can_repeat_text(body):
                return True
        elif op is sre_parse.SUBPATTERN and _can_repeat_text(av[-1]):
            return True
        elif op is sre_parse.BRANCH and any(_can_repeat_text(b) for b in av[1]):
            return True
    return False


def _delimited(body: Any, flags: int, wrap: frozenset[int]) -> bool:
    """One iteration of ``body`` can end in one place only: it is a chain of characters and
    single-character repetitions where nothing a repeated or optional element matches can also start
    what follows it (``wrap`` starts the next iteration). ``(?:-\\S+\\s+)*`` is linear, ``(a+)+``,
    ``(?:a|aa)*`` and ``(?:\\s*\\S+)*`` are not."""
    chain = _chain(body, flags)
    if not chain or all(optional for _, _, optional in chain):
        return False
    chain = chain + [(wrap, False, False)]
    for i, (chars, repeats, optional) in enumerate(chain[:-1]):
        if not (repeats or optional):
            continue
        follow: set[int] = set()
        for nxt, _, opt in chain[i + 1:]:  # what may come next: up to the first element that must match
            follow |= nxt
            if not opt:
                break
        if chars & follow:
            return False
    return True


def _chain(seq: Any, flags: int) -> list[tuple[frozenset[int], bool, bool]] | None:
    """``[(characters, repeats, optional)]`` for a body made of single characters, else ``None``."""
    out: list[tuple[frozenset[int], bool, bool]] = []
    for op, av in seq:
        if op is sre_parse.AT:
            continue
        if op is sre_parse.SUBPATTERN:
            inner = _chain(av[-1], flags)
            if inner is None:
                return None
            out.extend(inner)
            continue
        if op in _REPEATS:
            lo, hi, body = av
            if len(body) != 1:
                return None
            chars = _first_chars(body, flags)
            if chars is None:
                return None
            out.append((chars, lo != hi and (hi is sre_parse.MAXREPEAT or hi > 1), lo == 0))
            continue
        chars = _first_chars([(op, av)], flags)
        if chars is None:
            return None
        out.append((chars, False, False))
    return out


def _ambiguous_branches(seq: Any, flags: int) -> bool:
    """Two alternatives of a repeated group can start matching the same text (``a|ab``, ``\\w|x``)."""
    for op, av in seq:
        if op is sre_parse.SUBPATTERN:
            return _ambiguous_branches(av[-1], flags)
        if op is sre_parse.BRANCH:
            starts = [(_literal_prefix(b, flags), _first_chars(b, flags)) for b in av[1]]
            for i, (pa, fa) in enumerate(starts):
                for pb, fb in starts[i + 1:]:
                    if pa and pb:
                        if pa.startswith(pb) or pb.startswith(pa):
                            return True
                    elif fa is None or fb is None or fa & fb:
                        return True
        return False
    return False


def _literal_prefix(seq: Any, flags: int) -> str:
    out = []
    for op, av in seq:
        if op is not sre_parse.LITERAL:
            break
        out.append(chr(av))
    text = "".join(out)
    return text.lower() if flags & re.IGNORECASE else text


_SAMPLE = range(0x800)  # first characters are compared on this range (ASCII, Latin, Greek, Cyrillic...)
_CATEGORIES: dict[Any, Callable[[str], bool]] = {
    sre_parse.CATEGORY_DIGIT: str.isdigit, sre_parse.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre_parse.CATEGORY_SPACE: str.isspace, sre_parse.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre_parse.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre_parse.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def _first_chars(seq: Any, flags: int) -> frozenset[int] | None:
    """Code points (of :data:`_SAMPLE`) a sequence can begin with; ``None`` when unknown or possibly empty."""
    fold = bool(flags & re.IGNORECASE)
    for op, av in seq:
        if op is sre_parse.AT:
            continue  # \b, ^, $: consume nothing
        if op is sre_parse.SUBPATTERN:
            return _first_chars(av[-1], flags)
        if op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            continue
        if op in _REPEATS and av[0] >= 1:
            return _first_chars(av[2], flags)
        if op is sre_parse.BRANCH:
            sets = [_first_chars(b, flags) for b in av[1]]
            return None if any(x is None for x in sets) else frozenset().union(*sets)  # type: ignore[arg-type]
        return _atom_first_chars(op, av, fold)
    return None


#: :func:`_atom_first_chars` answers, per element and case folding (a rule set repeats its elements)
_ATOM_FIRSTS: dict[tuple[Any, ...], frozenset[int] | None] = {}
_SAMPLE_SET = frozenset(_SAMPLE)


def _atom_first_chars(op: Any, av: Any, fold: bool) -> frozenset[int] | None:
    """The code points of :data:`_SAMPLE` a one-character element matches: each ``ch`` of which
    :func:`_char_test` holds, or under ``fold`` holds of its one-character lower or upper case.

    Built from sets (the element's characters, :data:`_CATEGORY_SETS`, :data:`_FOLDED_FROM`) rather than by
    testing every character of the sample against every element: that testing was most of the review
    policy's import. ``tests/security/test_bounded_analysis.py`` holds it to the character-by-character definition."""
    key = (op, tuple(av) if isinstance(av, list) else av, fold)
    if key in _ATOM_FIRSTS:
        return _ATOM_FIRSTS[key]
    test = _char_test(op, av)
    found = None if test is None else _element_set(op, av)
    if found is not None and fold:
        extra: set[int] = set()
        for cp in found:
            extra.update(_FOLDED_FROM.get(cp, ()))
        extra.update(cp for cp, other in _FOLDS_OUT_OF_SAMPLE if test(other))  # type: ignore[misc]
        found = found | extra
    if len(_ATOM_FIRSTS) < INLINE_KEPT:
        _ATOM_FIRSTS[key] = found
    return found


def _element_set(op: Any, av: Any) -> frozenset[int] | None:
    """The code points of :data:`_SAMPLE` of which :func:`_char_test` holds (``None`` where it has no test)."""
    if op is sre_parse.LITERAL:
        return frozenset((av,)) & _SAMPLE_SET
    if op is sre_parse.NOT_LITERAL:
        return _SAMPLE_SET - {av}
    if op is sre_parse.ANY:
        return _SAMPLE_SET - {ord("\n")}
    if op is sre_parse.IN:
        negate = bool(av) and av[0][0] is sre_parse.NEGATE
        found: set[int] = set()
        for o, a in av:
            if o is sre_parse.NEGATE:
                continue
            if o is sre_parse.LITERAL:
                found.add(a)
            elif o is sre_parse.RANGE:
                found.update(range(a[0], min(a[1], _SAMPLE[-1]) + 1))
            elif o is sre_parse.CATEGORY and a in _CATEGORY_SETS:
                found |= _CATEGORY_SETS[a]
            else:
                return None
        found &= _SAMPLE_SET
        return _SAMPLE_SET - found if negate else frozenset(found)
    return None


def _char_test(op: Any, av: Any) -> Callable[[str], bool] | None:
    if op is sre_parse.LITERAL:
        return lambda c: ord(c) == av
    if op is sre_parse.NOT_LITERAL:
        return lambda c: ord(c) != av
    if op is sre_parse.ANY:
        return lambda c: c != "\n"
    if op is sre_parse.IN:
        negate = bool(av) and av[0][0] is sre_parse.NEGATE
        tests = [_item_test(o, a) for o, a in av if o is not sre_parse.NEGATE]
        if any(t is None for t in tests):
            return None

        def test(c: str) -> bool:
            return any(t(c) for t in tests) != negate  # type: ignore[misc]

        return test
    return None


def _item_test(op: Any, av: Any) -> Callable[[str], bool] | None:
    if op is sre_parse.LITERAL:
        return lambda c: ord(c) == av
    if op is sre_parse.RANGE:
        return lambda c: av[0] <= ord(c) <= av[1]
    if op is sre_parse.CATEGORY:
        return _CATEGORIES.get(av)
    return None


#: each category's characters in the sample
_CATEGORY_SETS = {cat: frozenset(cp for cp in _SAMPLE if test(chr(cp))) for cat, test in _CATEGORIES.items()}


def _fold_tables() -> tuple[dict[int, tuple[int, ...]], tuple[tuple[int, str], ...]]:
    """For case folding: the characters of the sample whose one-character lower or upper case is a given
    character of the sample, and the characters whose lower or upper case lies outside the sample."""
    folded_from: dict[int, list[int]] = {}
    outside: list[tuple[int, str]] = []
    for cp in _SAMPLE:
        ch = chr(cp)
        for other in sorted({ch.lower(), ch.upper()} - {ch}):
            if len(other) != 1:
                continue
            if ord(other) in _SAMPLE_SET:
                folded_from.setdefault(ord(other), []).append(cp)
            else:
                outside.append((cp, other))
    return {k: tuple(v) for k, v in folded_from.items()}, tuple(outside)


_FOLDED_FROM, _FOLDS_OUT_OF_SAMPLE = _fold_tables()
