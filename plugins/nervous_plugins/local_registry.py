"""The ``local`` registry: folders of skills on disk, for air-gapped teams and internal catalogs.

Settings ``[plugins.local] paths = ["catalog", "/srv/skills"]``: each folder holds skills as
``<name>/SKILL.md`` plus files. Relative paths are tried against the directory of each
configuration file in use (most specific first), then the current directory. When two folders
hold a skill of the same name, the first folder listed wins (with a warning).

Trust: a local catalog is the organisation's own, so hits are ``reviewed=True`` (not an
unreviewed source like GitHub), but nobody has scanned them for us: the scan status is
``unknown`` and our own security scan decides, exactly as for any other install.

Versions come from the frontmatter ``version`` or ``metadata.version`` (default ``0.0.0``); a
folder has one version, the one on disk.

A skill folder may hold a ``_meta.json`` (a ClawHub install leaves one, naming the skill's slug,
owner and version). It is served with the skill like ClawHub's own: scanned, listed with its SHA-256
among the version's files and installed, but left out of the published fingerprint as every
registry's metadata file is (docs/plugins/fingerprint.md), and the install gate checks that it names
this skill and version (``meta_mismatch`` otherwise: correct or delete the file).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nervous.errors import NotFound, RegistryError, UsageError
from nervous.plugin import (
    FileDigest,
    ScanStatus,
    SearchHit,
    SkillBundle,
    SkillMetadata,
    SkillRef,
    SkillVersion,
)

if TYPE_CHECKING:
    from nervous.plugin import ProviderContext
    from nervous.plugin.toolkit import SkillDoc

NAME = "local"
DEFAULT_VERSION = "0.0.0"
UNKNOWN_SCAN = ScanStatus(status="unknown", reason="local catalog: not scanned by a registry")
_WORD = re.compile(r"[a-z0-9]+")
#: Weights of a query term found in the skill's name, description and body.
NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 5.0, 2.0, 0.5




def _factory(ctx: ProviderContext) -> LocalRegistry:
    raw = ctx.settings.get("paths", [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise UsageError("[plugins.local] paths must be a list of folder paths")
    bases = _config_dirs(getattr(ctx.config, "sources", []))
    return LocalRegistry([_resolve(p, bases) for p in raw], limits=ctx.config.install)


def _config_dirs(sources: list[str]) -> list[Path]:
    """Directories of the configuration files in use, most specific (last applied) first."""
    dirs: list[Path] = []
    for source in reversed(sources):
        candidate = Path(source.removesuffix(" [tool.nervous]"))
        if candidate.is_file() and candidate.parent not in dirs:
            dirs.append(candidate.parent)
    return dirs


def _resolve(path: str, bases: list[Path]) -> Path:
    p = Path(path).expanduser()
    if p.is_absolute():
        return p
    for base in bases:
        if (base / p).is_dir():
            return base / p
    return Path.cwd() / p


class _Entry:
    """One skill folder of the catalog with its parsed SKILL.md."""

    def __init__(self, folder: Path, doc: SkillDoc) -> None:
        self.folder = folder
        self.doc = doc
        self.name = folder.name
        self.version = doc.version or DEFAULT_VERSION
        self.name_words = set(_WORD.findall(f"{self.name} {doc.name or ''}".lower()))
        self.description = (doc.description or "").lower()
        self.body = doc.body.lower()

    def score(self, terms: list[str]) -> float:
        total = 0.0
        for term in terms:
            if term in self.name_words:
                total += NAME_WEIGHT
            elif term in self.name.lower():
                total += NAME_WEIGHT / 2
            total += DESCRIPTION_WEIGHT * min(self.description.count(term), 3)
            total += BODY_WEIGHT * min(self.body.count(term), 5)
        return total


class LocalRegistry:
    """A :class:`nervous.plugin.protocols.Registry` over folders of skills; never touches the network."""

    name = NAME

    def __init__(self, paths: list[Path], *, limits: Any = None) -> None:
        self.paths = [Path(p) for p in paths]
        self.limits = limits
        from nervous.plugin.toolkit import AppendOnce

        self.warnings: list[str] = []
        self._warn = AppendOnce(self.warnings)  # a catalog of many broken skills stays linear
        #: SKILL.md path -> (digest of its bytes, parsed): one acquisition reads the catalog for the
        #: search and again for each candidate's resolve, version and fetch; unchanged files are not re-parsed
        self._parsed: dict[Path, tuple[bytes, SkillDoc]] = {}

    # ------------------------------------------------------------------ catalog

    def catalog(self) -> dict[str, _Entry]:
        """Every valid skill by folder name (read fresh: the folders are the source of truth; a
        SKILL.md whose bytes did not change since the last read is not parsed again)."""
        from nervous.plugin.toolkit import find_skill_file, parse_skill_md

        if not self.paths:
            raise RegistryError("local: no skill folders configured (set [plugins.local] paths)",
                                code="not_configured")
        existing = [p for p in self.paths if p.is_dir()]
        for p in self.paths:
            if not p.is_dir():
                self._warn(f"local: skill folder {str(p)!r} does not exist")
        if not existing:
            raise RegistryError("local: none of the configured skill folders exists: "
                                + ", ".join(repr(str(p)) for p in self.paths), code="unavailable")
        import hashlib

        out: dict[str, _Entry] = {}
        parsed: dict[Path, tuple[bytes, SkillDoc]] = {}
        max_bytes = int(getattr(self.limits, "max_skill_md_bytes", 256 * 1024))
        for root in existing:
            for folder in sorted(root.iterdir(), key=lambda p: p.name):
                if folder.name.startswith(".") or not folder.is_dir():
                    continue
                skill_file = find_skill_file(p.name for p in folder.iterdir() if p.is_file())
                if skill_file is None:
                    continue
                path = folder / skill_file
                if path.stat().st_size > max_bytes:
                    self._warn(f"local: {str(path)!r} is larger than {max_bytes} bytes; skipped")
                    continue
                raw = path.read_bytes()
                digest = hashlib.sha256(raw).digest()
                known = self._parsed.get(path)
                doc = (known[1] if known is not None and known[0] == digest
                       else parse_skill_md(raw, directory=folder.name, max_bytes=max_bytes))
                parsed[path] = (digest, doc)
                if doc.errors:
                    self._warn(f"local: {str(path)!r} skipped: {'; '.join(doc.errors)}")
                    continue
                if folder.name in out:
                    self._warn(f"local: {folder.name!r} in {str(root)!r} is shadowed by "
                               f"{str(out[folder.name].folder)!r}")
                    continue
                out[folder.name] = _Entry(folder, doc)
        self._parsed = parsed
        return out

    def _entry(self, ref: SkillRef) -> _Entry:
        if ref.registry not in (None, NAME):
            raise UsageError(f"local: {ref} is not a local reference (local:NAME)")
        catalog = self.catalog()
        entry = catalog.get(ref.name) or next(
            (e for n, e in catalog.items() if n.casefold() == ref.name.casefold()), None)
        if entry is None:
            raise NotFound(f"local: no skill named {ref.name!r} in " + ", ".join(repr(str(p)) for p in self.paths))
        return entry

    # ------------------------------------------------------------------ Registry

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        terms = list(dict.fromkeys(_WORD.findall(query.lower())))
        scored = [(e.score(terms) if terms else 1.0, e) for e in self.catalog().values()]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1].name))
        return [self._hit(e, s) for s, e in ranked[: max(1, limit)]]

    def _hit(self, e: _Entry, score: float) -> SearchHit:
        return SearchHit(registry=NAME, ref=SkillRef(e.name, registry=NAME), display_name=e.doc.name or e.name,
                         summary=e.doc.description or "", version=e.version, score=score, scan=UNKNOWN_SCAN,
                         reviewed=True, url=e.folder.as_uri())

    def resolve(self, ref: SkillRef) -> SkillMetadata:
        e = self._entry(ref)
        return SkillMetadata(registry=NAME, ref=SkillRef(e.name, registry=NAME), display_name=e.doc.name or e.name,
                             summary=e.doc.description or "", latest_version=e.version, versions=(e.version,),
                             moderation="visible", scan=UNKNOWN_SCAN, reviewed=True, url=e.folder.as_uri())

    def versions(self, ref: SkillRef) -> list[SkillVersion]:
        return [self.version(ref)]

    def version(self, ref: SkillRef, version: str | None = None) -> SkillVersion:
        from nervous.plugin.toolkit import bundle_fingerprint

        bundle = self.fetch(ref, version)
        # without _meta.json, as the install gate recomputes it (a folder carrying one was refused as changed)
        return SkillVersion(version=bundle.version or DEFAULT_VERSION,
                            files=tuple(FileDigest(f.path, f.size, f.sha256) for f in bundle.files),
                            scan=UNKNOWN_SCAN, fingerprint=bundle_fingerprint(bundle, exclude={"_meta.json"}))

    def fetch(self, ref: SkillRef, version: str | None = None) -> SkillBundle:
        from nervous.plugin.toolkit import Limits, load_directory

        e = self._entry(ref)
        wanted = version or ref.revision
        if wanted and wanted != e.version:
            raise NotFound(f"local: {e.name} is at version {e.version}, not {wanted} (a folder has one version)",
                           code="version_not_found")
        limits = Limits.from_config(self.limits) if self.limits is not None else Limits()
        return load_directory(e.folder, limits=limits, ref=SkillRef(e.name, registry=NAME), version=e.version,
                              registry=NAME)
