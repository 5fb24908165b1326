"""What ``nervous scan`` and ``Nervous.scan`` accept: a folder, a SKILL.md, an archive or a reference.

One loader for both front ends. Local paths are read into memory with the scan limits; a registry
reference goes through the installer's gates (a malware verdict is refused before any download)
and is fetched into memory, verified against the registry's digests, and never installed. A
bundle the loader refuses for safety (a limit, a symlink, an encrypted entry) becomes a refusal
finding of the scan rather than an error, so the report says why.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from ...errors import BadInput, UsageError
from ...kernel.records import Finding, ScanContext, SkillBundle, SkillRef

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

#: loader refusals that are scan outcomes (a refused skill), not unusable input
_REFUSAL_CODES = {"limit_exceeded", "unsafe_bundle", "encrypted_archive"}
_INPUT_CODES = {"not_a_folder", "not_a_skill", "bad_input", "not_found"}


@frozen
class ScanTarget:
    bundle: SkillBundle
    context: ScanContext
    source: str | None = None
    extra_findings: tuple[Finding, ...] = ()
    #: paths of a local folder the loader did not read (dot names, ``node_modules``, ignore-file matches);
    #: ``None`` when no folder was read whole (a registry reference, a refused folder)
    left_out: tuple[str, ...] | None = None


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "skill"


def _load_path(path: Path, limits: Any, left_out: list[str]) -> SkillBundle:
    from ...kernel.bundle import load_directory, load_zip

    if path.is_dir():
        return load_directory(path, limits=limits, left_out=left_out)
    if path.name.upper() == "SKILL.MD":
        return load_directory(path.parent, limits=limits, left_out=left_out)
    import stat

    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):  # a device or a pipe could be read forever
        raise BadInput(f"{path}: not a regular file, a folder or a .zip archive", code="bad_input")
    data = path.read_bytes()
    if path.suffix.lower() in (".zip", ".skill") or data[:4] == b"PK\x03\x04":
        return load_zip(data, limits=limits, ref=SkillRef(_slug(path.stem)), name=str(path))
    raise BadInput(f"{path}: expected a skill folder, a SKILL.md or a .zip archive", code="bad_input")


def _fetch(manager: PluginManager, text: str, version: str | None, purpose: str) -> ScanTarget:
    from ..install.installer import Installer, verify_bundle

    plan = Installer(manager).plan(text, version)
    registry = manager.registry(plan.registry)
    bundle = registry.fetch(plan.ref, plan.version.version)
    verify_bundle(bundle, plan.version.files or bundle.expected, label=f"{plan.ref.qualified}@{plan.version.version}")
    context = ScanContext(purpose=purpose, registry_scan=plan.version.scan,  # type: ignore[arg-type]
                          stated_purpose=plan.metadata.summary or "")
    return ScanTarget(bundle, context, plan.registry)


def load_scan_target(manager: PluginManager, target: str | os.PathLike[str], *, version: str | None = None,
                     purpose: str = "install") -> ScanTarget:
    """Read ``target`` into memory for a scan; nothing is executed or installed."""
    from .engine import DEFAULT_LIMITS, refusal_for_bad_input

    text = os.fspath(target)
    if not text.strip():
        raise UsageError("scan needs a path or a skill reference")
    path = Path(text).expanduser()
    context = ScanContext(purpose=purpose)  # type: ignore[arg-type]
    try:
        if path.exists():
            left_out: list[str] = []  # (an archive leaves nothing out: every entry counts)
            bundle = _load_path(path, DEFAULT_LIMITS.loader_limits(), left_out)
            return ScanTarget(bundle, context, "local", left_out=tuple(left_out))
        if text.startswith((".", "/", "~")) or text.lower().endswith((".zip", ".md")):
            raise BadInput(f"{text}: no such file or folder", code="not_found")
        return _fetch(manager, text, version, purpose)
    except BadInput as exc:
        refusal = exc.details.get("rule") in ("NV-LIMIT-001", "NV-SUPPLY-002") or exc.code in _REFUSAL_CODES
        if not refusal or exc.code in _INPUT_CODES:
            raise
        empty = SkillBundle(ref=SkillRef(_slug(path.stem or "skill")), files=())
        return ScanTarget(empty, context, "local" if path.exists() else None,
                          (refusal_for_bad_input(exc.details, exc.message),))


def scan_target(manager: PluginManager, target: str | os.PathLike[str], *, version: str | None = None,
                purpose: str = "install") -> Any:
    """Load and scan ``target``; returns a :class:`nervous.engines.scan.engine.ScanReport`."""
    from .engine import scan_bundle

    loaded = load_scan_target(manager, target, version=version, purpose=purpose)
    return scan_bundle(manager, loaded.bundle, loaded.context, source=loaded.source,
                       extra_findings=loaded.extra_findings, left_out=loaded.left_out)
