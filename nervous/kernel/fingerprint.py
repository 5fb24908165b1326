"""Skill fingerprints exactly as ClawHub computes them (specs/protocols.md §A8).

The one trap is ordering: ClawHub sorts paths with JavaScript's ``localeCompare`` (ICU root
collation), not by code point, so Python's ``sorted()`` gives a different fingerprint. We use the
Unicode Collation Algorithm with the default table and non-ignorable weights (``pyuca``, loaded on
first use), which agrees with Node on the spec's vectors and on randomised differential tests.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .records import SkillBundle

#: Ignore files read from a skill folder's root (gitignore semantics).
IGNORE_FILES: tuple[str, ...] = (".gitignore", ".clawhubignore", ".clawdhubignore")
#: Folder names skipped wherever they appear (dot-prefixed names are skipped anyway).
SKIPPED_DIRS: frozenset[str] = frozenset({"node_modules", ".git", ".clawhub", ".clawdhub"})

_collator: Any = None


@functools.lru_cache(maxsize=1024)  # a key is 1–7 KB (a 255-byte path): at most a few MB kept
def collation_key(path: str) -> tuple[Any, str]:
    """Sort key reproducing ``a.localeCompare(b)`` order; ties broken by code point.

    Remembered for the last thousand paths: the collation runs in Python, a scan fingerprints every
    bundle it reports on, and skills share most of their paths (``SKILL.md``, ``scripts/…``)."""
    ascii_elements = _ascii_elements() if path.isascii() else None
    if ascii_elements is not None:
        return (_key_former().sort_key_from_collation_elements([e for ch in path for e in ascii_elements[ord(ch)]]),
                path)
    global _collator
    if _collator is None:
        import pyuca

        _collator = pyuca.Collator()
    return (_collator.sort_key(path), path)


@functools.lru_cache(maxsize=1)
def _ascii_elements() -> tuple[tuple[tuple[int, ...], ...], ...] | None:
    """The collation elements of each ASCII character, read from the lines of ``pyuca``'s table that
    define them; ``None`` when the table holds a contraction of ASCII characters (then every path takes
    the whole collator).

    Building the whole collator reads all 30,000 lines of the table (about 0.2 s, in every process that
    fingerprints a skill); an ASCII string is a run of starters with no contraction among them, so its
    elements are its characters' own, in order. ``tests/test_fingerprint.py`` holds the keys built
    here to the collator's on every character and on generated paths."""
    import pyuca.collator

    table = Path(pyuca.collator.__file__).with_name(f"allkeys-{pyuca.Collator.UCA_VERSION}.txt")
    elements: dict[int, tuple[tuple[int, ...], ...]] = {}
    for m in _ASCII_LINE.finditer(b"\n" + table.read_bytes()):
        chars = [int(h, 16) for h in m.group(1).split()]
        if len(chars) > 1:
            if all(c < 0x80 for c in chars):
                return None
            continue  # a contraction that needs a character outside ASCII
        elements[chars[0]] = tuple(tuple(int(w, 16) for w in e.groups())
                                   for e in pyuca.collator.COLL_ELEMENT_PATTERN.finditer(m.group(2).decode("ascii")))
    if len(elements) != 0x80:
        return None
    return tuple(elements[cp] for cp in range(0x80))


#: a line of the table whose first character is ASCII: its characters, and its elements (comment dropped);
#: searched from the newline before it (a literal ``re`` finds fast, where a line anchor is tried everywhere)
_ASCII_LINE = re.compile(rb"\n(00[0-7][0-9A-Fa-f](?: [0-9A-Fa-f]{4,6})*) *;([^#\n]*)")


@functools.lru_cache(maxsize=1)
def _key_former() -> Any:
    """A collator without its table: ``pyuca`` forms the sort key of given collation elements without it."""
    import pyuca

    return pyuca.Collator.__new__(pyuca.Collator)


def sort_paths(paths: Iterable[str]) -> list[str]:
    """``paths`` in ClawHub's order (ICU root collation)."""
    return sorted(paths, key=collation_key)


def skill_fingerprint(entries: Iterable[tuple[str, str]]) -> str:
    """SHA-256 over ``"<path>:<sha256>"`` lines in collation order, joined by ``\\n``.

    ``entries`` are ``(relative path, sha256 hex)`` pairs; empty paths or hashes are dropped as
    ClawHub does. Paths are not filtered here (see :func:`is_fingerprinted_path`).
    """
    kept = [(p, h.lower()) for p, h in entries if p and h]
    kept.sort(key=lambda e: collation_key(e[0]))
    return hashlib.sha256("\n".join(f"{p}:{h}" for p, h in kept).encode("utf-8")).hexdigest()


def skills_sh_folder_hash(entries: Iterable[tuple[str, int, str]]) -> str:
    """The skills.sh folder hash: ``"<path>\\0<size>\\0<sha256>"`` lines, same collation (§A8)."""
    kept = sorted(((p, s, h) for p, s, h in entries if p and h), key=lambda e: collation_key(e[0]))
    return hashlib.sha256("\n".join(f"{p}\0{s}\0{h}" for p, s, h in kept).encode("utf-8")).hexdigest()


def is_fingerprinted_path(path: str) -> bool:
    """False for paths §A8 always skips: a segment starting with ``.``, or under ``node_modules``."""
    segments = path.split("/")
    return bool(path) and not any(not s or s.startswith(".") or s in SKIPPED_DIRS for s in segments)


# --------------------------------------------------------------------------------------------
# gitignore semantics
# --------------------------------------------------------------------------------------------


class IgnoreRules:
    """gitignore-style rules (last match wins, ``!`` re-includes, ``/`` anchors, ``dir/`` for folders).

    As in git, nothing inside an ignored folder can be re-included.
    """

    def __init__(self, text: str = "") -> None:
        self._rules: list[tuple[re.Pattern[str], bool, bool]] = []  # (regex, negated, dir_only)
        self.add(text)

    def add(self, text: str) -> None:
        for line in text.replace("\r\n", "\n").split("\n"):
            rule = _compile_rule(line)
            if rule is not None:
                self._rules.append(rule)

    def __bool__(self) -> bool:
        return bool(self._rules)

    def _match(self, path: str, is_dir: bool) -> bool:
        ignored = False
        for regex, negated, dir_only in self._rules:
            if dir_only and not is_dir:
                continue
            if regex.match(path):
                ignored = not negated
        return ignored

    def ignored(self, path: str, is_dir: bool = False) -> bool:
        """Whether ``path`` (relative, ``/``-separated) is ignored, itself or through a parent folder."""
        segments = path.split("/")
        for i in range(1, len(segments)):
            if self._match("/".join(segments[:i]), True):
                return True
        return self._match(path, is_dir)


def _compile_rule(line: str) -> tuple[re.Pattern[str], bool, bool] | None:
    if not line.strip() or line.startswith("#"):
        return None
    # Trailing spaces are dropped unless escaped.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(line) > len(stripped):
        stripped += " "
    line = stripped
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    segments = line.split("/")
    out = "" if anchored else "(?:.*/)?"
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "**":
            out += ".*" if last else "(?:[^/]*/)*"
            continue
        out += _glob(seg) + ("" if last else "/")
    return re.compile(f"^{out}$", re.DOTALL), negated, dir_only


def _glob(segment: str) -> str:
    out, i = "", 0
    while i < len(segment):
        c = segment[i]
        if c == "\\" and i + 1 < len(segment):
            out += re.escape(segment[i + 1])
            i += 2
            continue
        if c == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = segment.find("]", i + 2)
            if end == -1:
                out += re.escape(c)
            else:
                body = segment[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += "[" + body.replace("\\", "\\\\") + "]"
                i = end
        else:
            out += re.escape(c)
        i += 1
    return out


def ignore_rules(read: Callable[[str], bytes | None]) -> IgnoreRules:
    """Rules from a folder's ignore files; ``read(name)`` returns a root file's bytes or ``None``."""
    rules = IgnoreRules()
    for name in IGNORE_FILES:
        data = read(name)
        if data is not None:
            rules.add(data.decode("utf-8", "replace"))
    return rules


def included_paths(paths: Sequence[str], rules: IgnoreRules) -> list[str]:
    """``paths`` minus those §A8 skips (dot segments, ``node_modules``, ignore-file matches)."""
    return [p for p in paths if is_fingerprinted_path(p) and not (rules and rules.ignored(p))]


# --------------------------------------------------------------------------------------------
# Bundles and folders
# --------------------------------------------------------------------------------------------


def bundle_fingerprint(bundle: SkillBundle, *, exclude: Iterable[str] = ()) -> str:
    """Fingerprint of an in-memory bundle, with §A8's skip rules (``exclude``: e.g. ``{"_meta.json"}``)."""
    files = {f.path: f for f in bundle.files}

    def read(name: str) -> bytes | None:
        f = files.get(name)
        return f.data if f is not None else None

    skip = set(exclude)
    kept = included_paths([p for p in files if p not in skip], ignore_rules(read))
    return skill_fingerprint((p, files[p].sha256) for p in kept)


def folder_entries(path: str | os.PathLike[str], *,
                   left_out: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """``(relative path, sha256)`` of the files of a skill folder that §A8 fingerprints.

    Regular files only; symlinks (to files or folders) are skipped, as are dot-prefixed names,
    ``node_modules`` and paths matched by the root ignore files. ``left_out`` receives
    ``(relative path, what it is)`` for each link or special file skipped (so a caller can say so).
    Folders are walked without recursion: any depth the file system allows.
    """
    root = Path(path)

    def read(name: str) -> bytes | None:
        p = root / name
        return p.read_bytes() if p.is_file() and not p.is_symlink() else None

    rules = ignore_rules(read)
    out: list[tuple[str, str]] = []

    pending: list[tuple[str, str]] = [(str(root), "")]  # folders still to list, deepest last
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        below: list[tuple[str, str]] = []
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                continue
            if entry.is_dir(follow_symlinks=False):
                if not (rules and rules.ignored(rel, is_dir=True)):
                    below.append((entry.path, rel + "/"))
            elif entry.is_file(follow_symlinks=False):
                if not (rules and rules.ignored(rel)):
                    out.append((rel, _sha256_file(entry.path)))
            elif left_out is not None and not (rules and rules.ignored(rel)):
                left_out.append((rel, "a symbolic link" if entry.is_symlink() else "not a regular file"))
        pending.extend(reversed(below))  # the first folder by name is listed next, as a recursive walk would
    return out


def folder_fingerprint(path: str | os.PathLike[str]) -> str:
    """Fingerprint of a skill folder on disk, as ``clawhub`` computes it for installed skills."""
    return skill_fingerprint(folder_entries(path))


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()
