"""What a report may say about a skill nervous installed: its install record and a scan of its files.

Reflexes need the fingerprint, the side-effect tags and an ``allow`` scan decision of the exact
files used. For a skill with an install record these come from the record and from scanning the
installed folder (in memory, nothing executed); when the files no longer match the record, the
fingerprint is withheld so a reflex can never be earned by changed content.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any


def _unchanged(record: Any) -> bool:
    root = Path(record.path)
    if not record.files:
        return False
    for f in record.files:
        if f.sha256 is None:
            return False
        p = root / f.path
        try:
            if p.is_symlink() or hashlib.sha256(p.read_bytes()).hexdigest() != f.sha256:
                return False
        except OSError:
            return False
    return True


def facts(manager: Any, slug: str) -> dict[str, Any] | None:
    """``record_outcome`` arguments for ``slug`` from its install record, or ``None`` without one."""
    from ..scan.target import scan_target

    target = manager.install_target()
    record = next((r for r in target.installed() if r.slug == slug), None)
    if record is None:
        return None
    out: dict[str, Any] = {"source": record.registry, "version": record.version, "warnings": []}
    if record.ref.owner and record.registry != "github":
        out["owner"] = record.ref.owner
    if not _unchanged(record):
        out["warnings"].append(f"{slug}: the installed files differ from what was installed; the report is "
                               "recorded without a fingerprint (no reflex)")
        return out
    report = scan_target(manager, record.path, purpose="install")
    out.update(fingerprint=record.fingerprint, tags=list(report.side_effects.tags), scan_decision=report.decision)
    skill_md = Path(record.path) / "SKILL.md"
    if skill_md.is_file():
        out["skill_md_chars"] = len(skill_md.read_text(encoding="utf-8", errors="replace"))
    return out


__all__ = ["facts"]
