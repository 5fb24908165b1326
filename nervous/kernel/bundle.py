"""Loading skill bundles from folders and zip archives, failing closed (specs/security.md §8).

Every limit is enforced while reading, before anything is scanned or written: a bundle that breaks
one is refused as a whole with :class:`~nervous.errors.BadInput` naming the entry and the limit
(``details``: ``entry``, ``limit``, ``rule`` = ``NV-LIMIT-001`` or ``NV-SUPPLY-002``), never trimmed.

Decisions:

* Symlinks, hard-link-like special entries, devices, FIFOs and sockets are **refused** in folders
  and archives alike, naming the path: a skill is plain files. A symlink is only skipped when §A8
  would skip its path anyway (dot segments, ``node_modules``, ignore-file matches).
* Folders: the paths §A8 leaves out of a fingerprint (dot segments, ``node_modules``, paths in the
  root ``.gitignore``/``.clawhubignore``/``.clawdhubignore``) are not part of the bundle; a caller that
  passes ``left_out`` is told each one (a folder left out whole is named once, with a trailing ``/``).
* Archives: every entry counts (no ignore files); a leading ``./`` and directory entries are the
  only things ignored. ClawHub's ``_meta.json`` is kept (the installer writes it; verification
  leaves it out). A single top-level folder is stripped when the root has no SKILL.md.
* The per-entry compression-ratio limit applies once an entry has produced 64 KiB, so small
  repetitive files (a blank template) are not mistaken for bombs; size limits bound the rest.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from attrs import frozen

from ..errors import BadInput
from .config import InstallConfig
from .fingerprint import SKIPPED_DIRS, ignore_rules, sort_paths
from .records import FileDigest, SkillBundle, SkillFile, SkillRef
from .skillmd import find_skill_file

_DEFAULTS = InstallConfig()
#: Below this many bytes of output an entry's compression ratio is not judged.
RATIO_GRACE_BYTES = 64 * 1024
_CHUNK = 64 * 1024
_DRIVE_RE = re.compile(r"^[A-Za-z]:")


@frozen
class Limits:
    """Fail-closed bundle limits. Defaults come from ``[install]`` (``max_depth`` counts path segments)."""

    max_total_bytes: int = _DEFAULTS.max_total_bytes
    max_files: int = _DEFAULTS.max_files
    max_file_bytes: int = _DEFAULTS.max_file_bytes
    max_depth: int = 10
    max_compression_ratio: float = _DEFAULTS.max_compression_ratio
    max_path_bytes: int = 255
    max_archive_bytes: int = 10 * 1024 * 1024

    @classmethod
    def from_config(cls, install: Any) -> Limits:
        """From an :class:`~nervous.kernel.config.InstallConfig` (or anything with the same attributes)."""
        return cls(
            max_total_bytes=install.max_total_bytes, max_files=install.max_files,
            max_file_bytes=install.max_file_bytes,
            max_depth=int(getattr(install, "max_depth", 10)),
            max_compression_ratio=install.max_compression_ratio,
        )


def _refuse(message: str, *, entry: str | None, limit: str | None = None, code: str = "unsafe_bundle",
            rule: str = "NV-LIMIT-001") -> BadInput:
    details: dict[str, Any] = {"rule": rule}
    if entry is not None:
        details["entry"] = entry
    if limit is not None:
        details["limit"] = limit
    return BadInput(message, code=code, details=details)


class _Budget:
    """Running totals checked as bytes arrive."""

    def __init__(self, limits: Limits, where: str) -> None:
        self.limits = limits
        self.where = where
        self.files = 0
        self.total = 0

    def check_path(self, path: str) -> None:
        lim = self.limits
        if len(path.encode("utf-8")) > lim.max_path_bytes:
            raise _refuse(f"{self.where}: path {path!r} is longer than {lim.max_path_bytes} bytes",
                          entry=path, limit="max_path_bytes", code="limit_exceeded")
        if path.count("/") + 1 > lim.max_depth:
            raise _refuse(f"{self.where}: {path!r} is nested deeper than {lim.max_depth} levels",
                          entry=path, limit="max_depth", code="limit_exceeded")

    def add_file(self, path: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise _refuse(f"{self.where}: more than {self.limits.max_files} files (at {path!r})",
                          entry=path, limit="max_files", code="limit_exceeded")

    def add_bytes(self, path: str, file_bytes: int, n: int) -> None:
        lim = self.limits
        self.total += n
        if file_bytes > lim.max_file_bytes:
            raise _refuse(f"{self.where}: {path!r} is larger than {lim.max_file_bytes} bytes",
                          entry=path, limit="max_file_bytes", code="limit_exceeded")
        if self.total > lim.max_total_bytes:
            raise _refuse(f"{self.where}: files exceed {lim.max_total_bytes} bytes in total (at {path!r})",
                          entry=path, limit="max_total_bytes", code="limit_exceeded")


# --------------------------------------------------------------------------------------------
# Folders
# --------------------------------------------------------------------------------------------


def load_directory(
    path: str | os.PathLike[str], *, limits: Limits | None = None, ref: SkillRef | None = None,
    version: str | None = None, registry: str | None = None, expected: Iterable[FileDigest] = (),
    require_skill_md: bool = True, left_out: list[str] | None = None,
) -> SkillBundle:
    """Read a skill folder into memory (regular files only; see the module notes for what is refused).

    ``left_out`` receives the relative path of each entry not read because §A8 skips it (a dot name,
    ``node_modules``, an ignore-file match), in the order met; a folder ends with ``/`` and is not entered.
    """
    limits = limits or Limits()
    root = Path(path)
    where = f"skill folder {str(root)!r}"
    if not root.is_dir():
        raise BadInput(f"{where} does not exist or is not a folder", code="not_a_folder",
                       details={"entry": str(root)})

    def read_root(name: str) -> bytes | None:
        p = root / name
        if p.is_file() and not p.is_symlink() and p.stat().st_size <= limits.max_file_bytes:
            return p.read_bytes()
        return None

    rules = ignore_rules(read_root)
    budget = _Budget(limits, where)
    files: list[SkillFile] = []

    def walk(folder: Path, prefix: str) -> None:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                if left_out is not None:
                    shown = os.fsencode(rel).decode("utf-8", "backslashreplace")  # any name, printable as JSON
                    left_out.append(shown + "/" if entry.is_dir(follow_symlinks=False) else shown)
                continue
            try:
                entry.name.encode("utf-8")
            except UnicodeEncodeError:
                shown = ascii(os.fsencode(entry.path)[len(os.fsencode(str(root))) + 1:])
                raise _refuse(f"{where}: the name {shown} is not valid UTF-8; skills may contain UTF-8 names "
                              "only", entry=shown, code="unsafe_bundle") from None
            mode = entry.stat(follow_symlinks=False).st_mode
            is_dir = stat.S_ISDIR(mode)
            if rules and rules.ignored(rel, is_dir=is_dir):
                if left_out is not None:
                    left_out.append(rel + "/" if is_dir else rel)
                continue
            budget.check_path(rel)
            if is_dir:
                walk(Path(entry.path), rel + "/")
            elif stat.S_ISREG(mode):
                budget.add_file(rel)
                files.append(SkillFile(rel, _read_file(entry.path, rel, budget)))
            else:
                kind = "a symlink" if stat.S_ISLNK(mode) else "not a regular file"
                raise _refuse(f"{where}: {rel!r} is {kind}; skills may contain regular files only",
                              entry=rel, code="unsafe_bundle")

    try:
        walk(root, "")
    except OSError as exc:  # a special file system (/proc), a vanished or unreadable file
        name = str(exc.filename or root).encode("utf-8", "backslashreplace").decode("utf-8")
        raise BadInput(f"{where}: cannot read {name}: {exc.strerror or exc}", code="bad_input",
                       details={"entry": name}) from None
    return _finish(files, where, ref or SkillRef(root.name), version, registry, expected, require_skill_md)


def _read_file(path: str, rel: str, budget: _Budget) -> bytes:
    size = 0
    chunks = []
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            size += len(chunk)
            budget.add_bytes(rel, size, len(chunk))
            chunks.append(chunk)
    return b"".join(chunks)


# --------------------------------------------------------------------------------------------
# Zip archives
# --------------------------------------------------------------------------------------------


def load_zip(
    data: bytes, *, limits: Limits | None = None, ref: SkillRef | None = None, version: str | None = None,
    registry: str | None = None, expected: Iterable[FileDigest] = (), strip_top: bool | None = None,
    subpath: str | None = None, require_skill_md: bool = True, name: str = "archive",
) -> SkillBundle:
    """Read a skill zip into memory with archive safety (see the module notes).

    ``strip_top``: ``True`` strips one top-level folder whatever its name (GitHub codeload zips),
    ``None`` strips it only when the root has no SKILL.md (ClawHub zips have none), ``False`` never.
    ``subpath`` keeps only that folder's subtree (after stripping); entries outside it are not
    decompressed.
    """
    import io
    import zipfile

    limits = limits or Limits()
    where = name
    if len(data) > limits.max_archive_bytes:
        raise _refuse(f"{where} is {len(data)} bytes, over the download limit of {limits.max_archive_bytes}",
                      entry=None, limit="max_archive_bytes", code="limit_exceeded")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise BadInput(f"{where} is not a readable zip archive: {exc}", code="bad_archive") from None

    # 1. Names: fail closed on anything that could escape or alias.
    entries: list[tuple[str, Any]] = []
    seen: dict[str, str] = {}
    for info in infos:
        raw = info.orig_filename
        if "\x00" in raw:
            raise _refuse(f"{where}: entry name {raw!r} contains a NUL byte", entry=raw)
        path = _safe_entry_path(raw, where)
        mode = (info.external_attr >> 16) & 0xFFFF
        kind = stat.S_IFMT(mode)
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            what = "a symlink" if kind == stat.S_IFLNK else "a device, FIFO or socket"
            raise _refuse(f"{where}: entry {raw!r} is {what}; only regular files are allowed", entry=raw)
        if info.flag_bits & 0x1:
            raise _refuse(f"{where}: entry {raw!r} is encrypted", entry=raw, rule="NV-SUPPLY-002")
        if path is None or raw.endswith("/") or kind == stat.S_IFDIR:
            continue
        folded = name_key(path)
        if folded in seen:
            raise _refuse(f"{where}: duplicate entry {raw!r} (also {seen[folded]!r})", entry=raw)
        seen[folded] = raw
        entries.append((path, info))
    _check_file_dir_clash([p for p, _ in entries], where)

    # 2. Layout: strip a single top folder, keep a subtree; what is left must still be one entry a path
    entries = _layout(entries, where, strip_top, subpath)
    _check_unique([p for p, _ in entries], where)
    _check_file_dir_clash([p for p, _ in entries], where)

    # 3. Contents, with limits enforced while decompressing.
    budget = _Budget(limits, where)
    files: list[SkillFile] = []
    for path, info in entries:
        budget.check_path(path)
        budget.add_file(path)
        if info.file_size > limits.max_file_bytes:
            budget.add_bytes(path, info.file_size, 0)
        files.append(SkillFile(path, _read_entry(zf, info, path, budget, where)))
    return _finish(files, where, ref or SkillRef("skill"), version, registry, expected, require_skill_md)


def _safe_entry_path(raw: str, where: str) -> str | None:
    """The entry's relative path, ``None`` for a bare ``./``; refuses absolute, ``\\`` and dot segments."""
    path = raw
    while path.startswith("./"):
        path = path[2:]
    if not path:
        return None
    if path.startswith("/") or _DRIVE_RE.match(path):
        raise _refuse(f"{where}: entry {raw!r} has an absolute path", entry=raw)
    if "\\" in path:
        raise _refuse(f"{where}: entry {raw!r} contains a backslash", entry=raw)
    segments = path.rstrip("/").split("/") if path.endswith("/") else path.split("/")
    if any(s in ("", ".", "..") for s in segments):
        raise _refuse(f"{where}: entry {raw!r} has an empty, '.' or '..' path segment", entry=raw)
    return path


def name_key(path: str) -> str:
    """One key for the names a file system may treat as one (case-insensitive, or normalising Unicode).

    ``lower``, not ``casefold``: such file systems fold letter by letter (``ß`` and ``ss`` stay two names)."""
    return unicodedata.normalize("NFC", path).lower()


def _check_unique(paths: list[str], where: str) -> None:
    seen: dict[str, str] = {}
    for p in paths:
        key = name_key(p)
        if key in seen:
            raise _refuse(f"{where}: duplicate entry {p!r} (also {seen[key]!r})", entry=p)
        seen[key] = p


def _check_file_dir_clash(paths: list[str], where: str) -> None:
    files = {name_key(p) for p in paths}
    for p in paths:
        parts = p.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if name_key(parent) in files:
                raise _refuse(f"{where}: {parent!r} is both a file and a folder (at {p!r})", entry=p)


def _layout(entries: list[tuple[str, Any]], where: str, strip_top: bool | None,
            subpath: str | None) -> list[tuple[str, Any]]:
    roots = {p.split("/", 1)[0] for p, _ in entries if "/" in p}
    flat = [p for p, _ in entries if "/" not in p]
    if strip_top is None:
        strip_top = (find_skill_file(flat) is None and len(roots) == 1
                     and all(p == "_meta.json" for p in flat))
    if strip_top:
        if len(roots) != 1 or any(p != "_meta.json" for p in flat):
            raise BadInput(f"{where}: expected a single top-level folder", code="bad_archive")
        top = next(iter(roots)) + "/"
        entries = [(p[len(top):], i) if p.startswith(top) else (p, i) for p, i in entries]
    if subpath:
        prefix = subpath.strip("/") + "/"
        entries = [(p[len(prefix):], i) for p, i in entries if p.startswith(prefix)]
        if not entries:
            raise BadInput(f"{where}: no files under {subpath!r}", code="not_found", details={"entry": subpath})
    return entries


def _read_entry(zf: Any, info: Any, path: str, budget: _Budget, where: str) -> bytes:
    import zipfile

    lim = budget.limits
    compressed = max(int(info.compress_size), 1)
    size = 0
    chunks = []
    try:
        with zf.open(info) as fh:
            while chunk := fh.read(_CHUNK):
                size += len(chunk)
                budget.add_bytes(path, size, len(chunk))
                if size > RATIO_GRACE_BYTES and size / compressed > lim.max_compression_ratio:
                    raise _refuse(
                        f"{where}: {path!r} expands more than {lim.max_compression_ratio:g}:1 (a zip bomb?)",
                        entry=path, limit="max_compression_ratio", code="limit_exceeded")
                chunks.append(chunk)
    except BadInput:
        raise
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError, ValueError) as exc:
        raise BadInput(f"{where}: cannot read entry {path!r}: {exc}", code="bad_archive",
                       details={"entry": path}) from None
    return b"".join(chunks)


# --------------------------------------------------------------------------------------------
# Remote listings (files fetched one by one, e.g. from GitHub)
# --------------------------------------------------------------------------------------------


def check_listing(entries: Iterable[tuple[str, int]], *, limits: Limits | None = None,
                  where: str = "listing") -> None:
    """Refuse a remote file listing (``(path, size)``) before anything is downloaded.

    Same path rules as archives and the same count, size, depth and total limits; sizes are the
    server's claims, so the bytes must be checked again as they arrive (:func:`make_bundle`).
    """
    budget = _Budget(limits or Limits(), where)
    seen: dict[str, str] = {}
    for path, size in entries:
        safe = _safe_entry_path(path, where)
        if safe is None or safe != path or path.endswith("/"):
            raise _refuse(f"{where}: entry {path!r} is not a plain relative file path", entry=path)
        folded = name_key(path)
        if folded in seen:
            raise _refuse(f"{where}: duplicate entry {path!r} (also {seen[folded]!r})", entry=path)
        seen[folded] = path
        budget.check_path(path)
        budget.add_file(path)
        budget.add_bytes(path, int(size), int(size))
    _check_file_dir_clash(list(seen.values()), where)


def make_bundle(files: Iterable[tuple[str, bytes]], *, limits: Limits | None = None, ref: SkillRef,
                version: str | None = None, registry: str | None = None, expected: Iterable[FileDigest] = (),
                require_skill_md: bool = True, where: str = "bundle") -> SkillBundle:
    """A bundle from ``(path, bytes)`` pairs already in memory, with every limit and path rule applied."""
    items = list(files)
    check_listing(((p, len(d)) for p, d in items), limits=limits, where=where)
    return _finish([SkillFile(p, d) for p, d in items], where, ref, version, registry, expected,
                   require_skill_md)


# --------------------------------------------------------------------------------------------


def _finish(files: list[SkillFile], where: str, ref: SkillRef, version: str | None, registry: str | None,
            expected: Iterable[FileDigest], require_skill_md: bool) -> SkillBundle:
    if require_skill_md and find_skill_file(f.path for f in files) is None:
        raise BadInput(f"{where} has no SKILL.md at its root", code="not_a_skill")
    by_path = {f.path: f for f in files}
    ordered = tuple(by_path[p] for p in sort_paths(by_path))
    return SkillBundle(ref=ref, files=ordered, version=version, registry=registry, expected=tuple(expected))
