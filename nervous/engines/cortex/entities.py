"""Entity filtering (specs/skill-cortex.md §5): the deterministic gate every stored word passes.

A lost signal costs one registry search; a stored name leaks a profile. So when in doubt, drop.
Words are *proposed* (by an extractor, possibly an LLM); this module decides which survive, using
only the task text itself and the shipped word lists. It is core code, not a plugin seam.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from attrs import frozen

from ...kernel.cortex.wordlists import words
from ...kernel.lazy import lazy_names

if TYPE_CHECKING:
    from .rejection import Rejection

#: characters stripped from both ends of a raw token (§5.2)
SURROUNDING = ".,;:!?\"'()[]{}<>“”‘’«»„‚‹›"
_POSSESSIVES = ("'s", "’s")
_SENTENCE_END = (".", "!", "?", ":")
#: what may follow a sentence's final punctuation in the same token (a closing quote or bracket)
_CLOSERS = SURROUNDING.replace(".", "").replace("!", "").replace("?", "").replace(":", "")
_BULLET = re.compile(r"^(?:[-*•+·–—]|\d{1,3}[.)]|[a-z][.)])$")
_STEM_SUFFIXES = ("ing", "ed", "es", "s")
#: abbreviations whose final dot does not end a sentence (so "Dr. Smith" keeps its evidence)
_ABBREVIATIONS = frozenset({"dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "sr.", "jr.", "mt.", "ft.", "e.g.",
                            "i.e.", "etc.", "vs.", "inc.", "co.", "ltd.", "no.", "capt.", "gen.", "rev."})


#: the longest task text (or failure detail) perception accepts; longer input is refused, not cut
MAX_TASK_CHARS = 20_000


def check_task_text(text: str, what: str = "task") -> str:
    """Refuse a task text longer than :data:`MAX_TASK_CHARS` (work stays bounded for any input)."""
    if len(text) > MAX_TASK_CHARS:
        from ...errors import BadInput

        raise BadInput(f"{what} is {len(text):,} characters long; at most {MAX_TASK_CHARS:,} are accepted "
                       "(describe the task, not its data)", code="too_large",
                       details={"length": len(text), "limit": MAX_TASK_CHARS})
    return text


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """Crude stemming: strip one of ``ing, ed, es, s`` when at least 3 letters remain."""
    for suffix in _STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stem_equal(a: str, b: str) -> bool:
    return a == b or stem(a) == stem(b)


def has_shape(word: str) -> bool:
    """Rule F2: alphabetic parts joined by single hyphens, 2–30 characters in all."""
    if not 2 <= len(word) <= 30:
        return False
    if word.isalpha():  # the common case, without splitting
        return True
    return all(part and part.isalpha() for part in word.split("-"))


_shape = functools.lru_cache(maxsize=8192)(has_shape)


def normalise(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


class Token(NamedTuple):
    """One whitespace token of a text, stripped as in §5.2 (a tuple: one is made per word of a text)."""

    raw: str
    text: str  # stripped, possessive removed, original case
    lower: str
    plain: bool
    possessive: bool
    sentence_start: bool


def _strip_token(raw: str) -> tuple[str, bool]:
    text = raw.strip(SURROUNDING)
    possessive = False
    if len(text) > 2 and text.casefold().endswith(_POSSESSIVES):
        text, possessive = text[:-2].strip(SURROUNDING), True
    return text, possessive


def tokenize(text: str) -> list[Token]:
    """Split a task text into tokens, marking plain words and sentence starts."""
    text = unicodedata.normalize("NFKC", text)
    tokens: list[Token] = []
    for line in text.splitlines():
        start = True
        for raw in line.split():
            if _BULLET.match(raw):
                start = True
                continue
            stripped, possessive = _strip_token(raw)
            if stripped:
                tokens.append(Token(raw, stripped, stripped.casefold(), _shape(stripped), possessive, start))
            start = raw.rstrip(_CLOSERS).endswith(_SENTENCE_END) and raw.casefold() not in _ABBREVIATIONS
    return tokens


def _bounded_words(text: str) -> set[str]:
    """Every substring of ``text`` that a word of rule F2's shape could equal with non-letters around it.

    That is a maximal run of letters, or consecutive runs joined by single hyphens (at most 30
    characters, the longest shape F2 allows): a set built in time linear in ``text``.
    """
    spans: list[tuple[int, int]] = []
    start = -1
    for i, c in enumerate(text):
        if c.isalpha():
            if start < 0:
                start = i
        elif start >= 0:
            spans.append((start, i))
            start = -1
    if start >= 0:
        spans.append((start, len(text)))
    found: set[str] = set()
    for i, (first, end) in enumerate(spans):
        found.add(text[first:end])
        for nxt_start, nxt_end in spans[i + 1:]:
            if nxt_start != end + 1 or text[end] != "-" or nxt_end - first > 30:
                break
            end = nxt_end
            found.add(text[first:end])
    return found


class TaskText:
    """A task text prepared once for checking many proposed words against it.

    Every check is a dictionary lookup (tokens are indexed by stem, compounds by the words they
    contain) and each word's evidence is computed once, so filtering all the words of a text is
    linear in its length rather than quadratic.
    """

    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.plain = [t for t in self.tokens if t.plain]
        self.compounds = [t.lower for t in self.tokens if not t.plain]
        self.no_lowercase = not any(map(str.islower, text))
        self._stems = {stem(t.lower) for t in self.plain} | {t.lower for t in self.plain}
        #: plain tokens by stem, in text order (``stem_equal(a, b)`` iff their stems are equal)
        self._by_stem: dict[str, list[Token]] = {}
        for tok in self.plain:
            self._by_stem.setdefault(stem(tok.lower), []).append(tok)
        #: maximal alphabetic runs of the compounds: a plain word occurs in one with boundaries iff
        #: it is one of these runs
        self._bounded: set[str] = set()
        for compound in set(self.compounds):
            self._bounded |= _bounded_words(compound)
        self._evidence: dict[str, str | None] = {}
        #: in a text without lower case only possessives are evidence (F5d): their stems, found once
        self._possessive_stems = ({stem(t.lower) for t in self.plain if t.possessive} if self.no_lowercase
                                  else set())

    def occurs_standalone(self, word: str) -> bool:
        return word in self._stems or stem(word) in self._stems

    def occurs_in_compound(self, word: str) -> bool:
        """Whether ``word`` appears inside a compound token with no letter right before or after it."""
        if _shape(word):
            return word in self._bounded
        return self._scan_compounds(word)  # not a word F2 lets through: only direct callers ask

    def _scan_compounds(self, word: str) -> bool:
        for compound in self.compounds:
            start = compound.find(word)
            while start != -1:
                end = start + len(word)
                before_ok = start == 0 or not compound[start - 1].isalpha()
                after_ok = end == len(compound) or not compound[end].isalpha()
                if before_ok and after_ok:
                    return True
                start = compound.find(word, start + 1)
        return False

    def proper_noun_evidence(self, word: str) -> str | None:
        """The F5 sub-rule that marks ``word`` as a proper noun in this text, or ``None``."""
        if word not in self._evidence:
            self._evidence[word] = self._find_evidence(word)
        return self._evidence[word]

    def _find_evidence(self, word: str) -> str | None:
        vocabulary = words("vocabulary")
        if self.no_lowercase:  # the loop below would only look for a possessive: ask the index instead
            if stem(word) in self._possessive_stems:
                return "F5d"
            if word not in vocabulary:
                return "F5"
            return "F5e" if self.occurs_in_compound(word) else None
        seen: set[tuple[str, bool, bool]] = set()
        for tok in self._by_stem.get(stem(word), ()):
            shape = (tok.text, tok.possessive, tok.sentence_start)
            if shape in seen:
                continue  # a repeated token gives the same answer
            seen.add(shape)
            if tok.possessive:
                return "F5d"
            if self.no_lowercase:
                continue  # no case evidence in a text without lower case; only possessives count
            text = tok.text
            if text.isascii():  # every ASCII letter is cased: the same tests with str methods (long texts)
                letters = text if text.isalpha() else "".join(filter(str.isalpha, text))
                if len(letters) >= 2 and letters.isupper():
                    return "F5b"
                if text[1:] != text[1:].lower():
                    return "F5c"
            else:
                letters = "".join(filter(str.isalpha, text))
                if len(letters) >= 2 and all(map(str.isupper, letters)):
                    return "F5b"
                if any(map(str.isupper, text[1:])):
                    return "F5c"
            if tok.text[:1].isupper() and not tok.sentence_start:
                return "F5a"
        if self.no_lowercase and word not in vocabulary:
            return "F5"
        if self.occurs_in_compound(word):
            return "F5e"
        return None


@frozen
class FilterResult:
    kept: tuple[str, ...]
    rejected: tuple[Rejection, ...]


def check_word(proposed: str, task: TaskText) -> tuple[str | None, str | None]:
    """Apply F1–F7 to one proposed word: ``(kept word, None)`` or ``(None, rule)``."""
    # NFKC leaves ASCII text unchanged: skip the call for the common case (long texts)
    raw = (proposed if proposed.isascii() else unicodedata.normalize("NFKC", proposed)).strip()
    stripped = raw.strip(SURROUNDING)
    word = stripped.casefold()
    if word.endswith(_POSSESSIVES) and len(stripped) > 2:
        return None, "F1"
    if not _shape(word):
        return None, "F2"
    if word in words("stopwords") or word in words("temporal"):
        return None, "F3"
    if word in words("allowlist"):
        return word, None
    evidence = task.proper_noun_evidence(word)
    if evidence:
        return None, evidence
    vocabulary = words("vocabulary")
    if word in words("given_names") and word not in vocabulary:
        return None, "F6"
    if not (task.occurs_standalone(word) or word in vocabulary):
        return None, "F7"
    return word, None


def filter_words(proposed: Iterable[str], task_text: str | TaskText, *, cap: int | None = 4,
                 stop_at_cap: bool = False, rejections: bool = True) -> FilterResult:
    """Filter proposed words against the task text; keep order, collapse stem-equal words, cap.

    ``stop_at_cap`` ends at the first word beyond the cap (for callers that only want the kept words);
    ``rejections=False`` leaves ``rejected`` empty (they cost time on long texts and such callers
    never read them).
    """
    task = task_text if isinstance(task_text, TaskText) else TaskText(task_text)
    kept: list[str] = []
    kept_stems: set[str] = set()
    rejected: list[Rejection] = []
    if rejections or not stop_at_cap:  # only these callers can be told what was dropped
        from .rejection import Rejection
    checked: dict[str, tuple[str | None, str | None]] = {}
    for word in proposed:
        if word not in checked:
            checked[word] = check_word(word, task)
        survivor, rule = checked[word]
        if survivor is None:
            if rejections:
                rejected.append(Rejection(word, rule or "?"))
            continue
        if survivor in kept_stems or stem(survivor) in kept_stems:
            continue
        if cap is not None and len(kept) >= cap:
            if stop_at_cap:
                break
            rejected.append(Rejection(word, "cap"))
            continue
        kept.append(survivor)
        kept_stems.update((survivor, stem(survivor)))
    return FilterResult(tuple(kept), tuple(rejected))


def extract_signals(task_text: str, limit: int | None = 4) -> tuple[str, ...]:
    """The default extractor (§5.6): the task's plain tokens in order, filtered, first ``limit``."""
    task = TaskText(task_text)
    return filter_words([t.text for t in task.plain], task, cap=limit, stop_at_cap=True, rejections=False).kept


def propose_region_name(signals: Sequence[str]) -> str | None:
    """A kebab-case region name from the first two filtered signals (§4.3.1 step 5)."""
    parts = [s for s in signals if re.fullmatch(r"[a-z]+", s)][:2]
    name = "-".join(parts)
    return name if parts and len(name) <= 40 else None


def sanitise_detail(text: str, limit: int = 120) -> str:
    """Free text that is stored (§5.5): tokens failing F2/F5 against the text become ``…``."""
    task = TaskText(text)
    out: list[str] = []
    for raw in unicodedata.normalize("NFKC", text).split():
        stripped, possessive = _strip_token(raw)
        lowered = stripped.casefold()
        if not stripped:
            piece = raw  # punctuation only
        elif possessive or not has_shape(stripped):
            piece = "…"
        elif lowered in words("allowlist") or lowered in words("stopwords"):
            piece = raw
        elif task.proper_noun_evidence(lowered):
            piece = "…"
        else:
            piece = raw
        if piece == "…" and out and out[-1] == "…":
            continue
        out.append(piece)
    result = " ".join(out)
    if len(result) > limit:
        result = result[: limit - 1] + "…"
    return result


#: :class:`Rejection` (in :mod:`.rejection`), still importable from here, loaded when first asked for
__getattr__, __dir__ = lazy_names(__name__, {"Rejection": "nervous.engines.cortex.rejection"})
