"""A registry that serves skills from one JSON catalog file.

Catalog format: ``{"skills": {"<slug>": {"summary": "...", "version": "1.0.0",
"files": {"SKILL.md": "...", "scripts/run.sh": "..."}}}}``.
Select it with ``[registries] use = ["demo"]`` and point it at a catalog with
``[plugins.demo] catalog = "/path/to/catalog.json"``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nervous.errors import ConfigError, NotFound
from nervous.plugin import (
    FileDigest,
    Provider,
    SearchHit,
    SkillBundle,
    SkillFile,
    SkillMetadata,
    SkillRef,
    SkillVersion,
    hookimpl,
)


class CatalogRegistry:
    """Implements :class:`nervous.plugin.Registry` over a JSON file."""

    name = "demo"

    def __init__(self, catalog: Path):
        self.catalog = catalog

    def _skills(self) -> dict[str, Any]:
        try:
            data = json.loads(self.catalog.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{self.catalog}: cannot read the demo catalog: {exc}") from None
        skills = data.get("skills") if isinstance(data, dict) else None
        if not isinstance(skills, dict):
            raise ConfigError(f"{self.catalog}: expected an object with a 'skills' table")
        return skills

    def _skill(self, ref: SkillRef) -> dict[str, Any]:
        skill = self._skills().get(ref.name)
        if skill is None:
            raise NotFound(f"demo registry has no skill {ref.name!r}")
        return skill

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        words = query.lower().split()
        hits = []
        for slug, skill in sorted(self._skills().items()):
            text = f"{slug} {skill.get('summary', '')}".lower()
            score = sum(w in text for w in words)
            if score:
                hits.append(SearchHit(registry=self.name, ref=SkillRef(name=slug, registry=self.name),
                                      display_name=slug, summary=skill.get("summary", ""),
                                      version=skill.get("version"), score=float(score)))
        return sorted(hits, key=lambda h: -(h.score or 0))[:limit]

    def resolve(self, ref: SkillRef) -> SkillMetadata:
        skill = self._skill(ref)
        return SkillMetadata(registry=self.name, ref=ref, display_name=ref.name, summary=skill.get("summary", ""),
                             latest_version=skill.get("version"), versions=(skill.get("version", "0.0.0"),))

    def versions(self, ref: SkillRef) -> list[SkillVersion]:
        return [self.version(ref)]

    def version(self, ref: SkillRef, version: str | None = None) -> SkillVersion:
        bundle = self.fetch(ref, version)
        return SkillVersion(version=bundle.version or "0.0.0",
                            files=tuple(FileDigest(f.path, f.size, f.sha256) for f in bundle.files))

    def fetch(self, ref: SkillRef, version: str | None = None) -> SkillBundle:
        skill = self._skill(ref)
        files = tuple(SkillFile(path, text.encode("utf-8")) for path, text in sorted(skill["files"].items()))
        return SkillBundle(ref=ref, files=files, version=skill.get("version"), registry=self.name)


def _factory(ctx: Any) -> CatalogRegistry:
    catalog = ctx.settings.get("catalog")
    if not isinstance(catalog, str):
        raise ConfigError("plugins.demo.catalog: expected the path of a JSON catalog")
    return CatalogRegistry(Path(catalog))


@hookimpl
def nervous_registries() -> list[Provider]:
    return [Provider("demo", "Skills from a JSON catalog file (example plugin)", _factory)]
