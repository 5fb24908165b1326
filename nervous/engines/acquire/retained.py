"""Skills the user kept (``done --keep``): the next acquisition of the same kind of task uses them.

Keeping a skill hands it over to the user: nervous stops managing the folder and the cortex stops
ranking it. Without this note the next similar task would search the registries again and offer
the very skill already installed. One document maps a region to the skill kept for it, with the
task words that led there; a kept folder that is gone is forgotten.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

COLLECTION = "acquire-retained"
KEY = "skills"
#: share of the kept task's words a new task must have to count as the same kind (on a region miss)
MIN_OVERLAP = 0.6


def remember(store: Any, region: str, keywords: Sequence[str], entry: dict[str, Any]) -> None:
    """Note ``entry`` (name, slug, path, version, registry, ref) as the skill kept for ``region``."""

    def put(doc: dict[str, Any]) -> None:
        doc[region] = {**entry, "keywords": list(keywords)}

    store.update(COLLECTION, KEY, put)


def _usable(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return False
    folder = Path(entry["path"])
    return folder.is_dir() and not folder.is_symlink() and (folder / "SKILL.md").is_file()


def find(store: Any, region: str, keywords: Sequence[str]) -> dict[str, Any] | None:
    """The kept skill for ``region``, else one whose task words the new task mostly shares."""
    doc = store.read(COLLECTION, KEY).value or {}
    if not isinstance(doc, dict):
        return None
    words = set(keywords)
    candidates = [doc.get(region)] + [e for r, e in sorted(doc.items()) if r != region and isinstance(e, dict)
                                      and e.get("keywords") and len(words & set(e["keywords"]))
                                      >= MIN_OVERLAP * len(set(e["keywords"]))]
    gone = [r for r, e in doc.items() if isinstance(e, dict) and not _usable(e)]
    if gone:
        def drop(d: dict[str, Any]) -> None:
            for r in gone:
                if isinstance(d.get(r), dict) and not _usable(d[r]):
                    del d[r]

        store.update(COLLECTION, KEY, drop)
    for entry in candidates:
        if _usable(entry):
            assert isinstance(entry, dict)
            return {k: v for k, v in entry.items() if k != "keywords"}
    return None


__all__ = ["remember", "find", "COLLECTION"]
