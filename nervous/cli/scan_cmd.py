"""``nervous scan PATH|REF``: classify a skill and decide allow / review / refuse, without installing.

Exit codes (specs/security.md §11.3): 1 when the decision is ``refuse`` or the risk level reaches
``--fail-on``; 2 for usage errors and bad input; else 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..errors import BadInput, NotFound, RegistryError, UsageError
from .app import emit, get_app, json_option

RISK_ORDER = {"low": 0, "medium": 1, "high": 2}
#: Loader refusals that are scan outcomes (a refused skill), not unusable input.
_REFUSAL_CODES = {"limit_exceeded", "unsafe_bundle", "encrypted_archive"}


def _load_local(path: Path, limits: Any) -> Any:
    from ..bundle import load_directory, load_zip
    from ..records import SkillRef

    if path.is_dir():
        return load_directory(path, limits=limits.loader_limits())
    if path.suffix.lower() in (".zip", ".skill") or path.read_bytes()[:4] == b"PK\x03\x04":
        return load_zip(path.read_bytes(), limits=limits.loader_limits(), ref=SkillRef(_slug(path.stem)),
                        name=str(path))
    raise BadInput(f"{path}: expected a skill folder or a .zip archive", code="bad_input")


def _slug(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "skill"


def _fetch_remote(manager: Any, text: str) -> tuple[Any, Any, str]:
    """Fetch a registry reference into memory (never installed); returns (bundle, scan status, registry)."""
    from ..records import SkillRef

    ref = SkillRef.parse(text)
    registries = [manager.registry(ref.registry)] if ref.registry else manager.registries()
    if not registries:
        raise UsageError("no registry is configured ([registries] use)")
    errors: list[str] = []
    for registry in registries:
        try:
            bundle = registry.fetch(ref, ref.revision)
        except NotFound as exc:
            errors.append(f"{registry.name}: {exc.message}")
            continue
        except RegistryError as exc:
            errors.append(f"{registry.name}: {exc.message}")
            continue
        status = None
        try:
            status = registry.version(ref, bundle.version).scan
        except Exception:  # a verdict we cannot read is simply absent; the local scan still runs
            status = None
        return bundle, status, registry.name
    raise NotFound(f"skill {text!r} not found: " + "; ".join(errors), details={"ref": text})


@click.command(name="scan")
@click.argument("target")
@click.option("--format", "fmt", default="table", show_default=True, metavar="table|json|sarif",
              help="Report format (any format a plugin provides).")
@click.option("--fail-on", type=click.Choice(["low", "medium", "high"]), default=None,
              help="Also exit 1 when the risk level reaches this level.")
@click.option("--context", "purpose", type=click.Choice(["install", "draft", "scan"]), default="install",
              show_default=True, help="Which rule actions apply (third-party install or evolver draft).")
@json_option
def scan(target: str, fmt: str, fail_on: str | None, purpose: str, as_json: bool) -> None:
    """Scan a skill folder, a .zip, or a registry reference (fetched, never installed)."""
    from ..records import ScanContext, SkillBundle, SkillRef
    from ..scan import DEFAULT_LIMITS, refusal_for_bad_input, scan_bundle

    app = get_app()
    manager = app.manager
    if as_json:
        fmt = "json"
    limits = DEFAULT_LIMITS
    path = Path(target)
    registry_scan = None
    source = None
    extra: tuple[Any, ...] = ()
    try:
        if path.exists():
            bundle = _load_local(path, limits)
            source = "local"
        elif target.startswith((".", "/", "~")) or target.lower().endswith(".zip"):
            raise BadInput(f"{target}: no such file or folder", code="not_found")
        else:
            bundle, registry_scan, source = _fetch_remote(manager, target)
    except BadInput as exc:
        refusal = exc.details.get("rule") in ("NV-LIMIT-001", "NV-SUPPLY-002") or exc.code in _REFUSAL_CODES
        if not refusal or exc.code in ("not_a_folder", "not_a_skill", "bad_input", "not_found"):
            raise
        extra = (refusal_for_bad_input(exc.details, exc.message),)
        bundle = SkillBundle(ref=SkillRef(_slug(path.stem or "skill")), files=())
    context = ScanContext(purpose=purpose, registry_scan=registry_scan)  # type: ignore[arg-type]
    result = scan_bundle(manager, bundle, context, limits=limits, source=source, extra_findings=extra)
    report = result.report
    failed = result.decision == "refuse" or (
        fail_on is not None and RISK_ORDER[report["capabilities"]["risk_level"]] >= RISK_ORDER[fail_on])
    if fmt == "json":
        emit(True, {"exit_code": 1 if failed else 0, **report})
    else:
        render = manager.report_format(fmt)
        text = render(report)
        emit(False, {}, text)
    if failed:
        raise click.exceptions.Exit(1)


__all__ = ["scan", "json"]
