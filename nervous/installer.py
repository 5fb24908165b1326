"""The install engine: resolve → version detail → moderation gates → download → verify → install.

Why an engine in the kernel: every path that installs a skill (CLI, acquisition loop, MCP) must pass
the same gates in the same order. The registry's own verdict is an input, never the whole answer:

* malware (moderation or a ``malicious`` scan) is refused with the registry's reason and the
  archive is never downloaded;
* a pending scan is "try again later"; a removed or hidden skill is refused;
* a suspicious skill installs only with an explicit confirmation, and never in reflex mode;
* every downloaded file is checked against the version's published SHA-256 (the clawhub CLI does
  not), and the content fingerprint is recomputed, before the install target sees a byte.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from .errors import BadInput, NervousError, NotFound, Refused, RegistryError
from .records import InstallRecord, SkillBundle, SkillMetadata, SkillRef, SkillVersion

if TYPE_CHECKING:
    from .manager import PluginManager


@frozen
class InstallPlan:
    """What would be installed, and whether a person must confirm it first."""

    registry: str
    ref: SkillRef  # as resolved by the registry (owner known)
    requested: SkillRef  # as the user wrote it (decides the folder layout)
    metadata: SkillMetadata
    version: SkillVersion
    needs_confirmation: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def unreviewed(self) -> bool:
        return self.version.scan.status in ("unknown", "error", "unreviewed") or not self.metadata.reviewed


class Installer:
    """Installs skills from the configured registries into the configured install target."""

    def __init__(self, pm: PluginManager, *, reflex: bool = False) -> None:
        self.pm = pm
        self.reflex = reflex

    # ------------------------------------------------------------------ planning

    def registry_for(self, ref: SkillRef) -> list[Any]:
        if ref.registry:
            return [self.pm.registry(ref.registry)]
        return list(self.pm.registries())

    def plan(self, reference: str | SkillRef, version: str | None = None) -> InstallPlan:
        """Resolve and gate without downloading anything."""
        requested = SkillRef.parse(reference) if isinstance(reference, str) else reference
        version = version or requested.revision if requested.registry != "github" else version
        last: NervousError | None = None
        for registry in self.registry_for(requested):
            try:
                meta = registry.resolve(requested)
            except NotFound as exc:
                last = exc
                continue
            self._gate_metadata(meta)
            detail = registry.version(meta.ref, version or meta.latest_version)
            warnings = self._gate_version(meta, detail)
            suspicious = meta.moderation == "suspicious" or detail.scan.status == "suspicious"
            if suspicious and self.reflex:
                raise Refused(f"{meta.ref.qualified} is flagged suspicious by {registry.name}; suspicious skills "
                              "are never installed in reflex mode", code="suspicious_reflex")
            return InstallPlan(registry=registry.name, ref=meta.ref, requested=requested, metadata=meta,
                               version=detail, needs_confirmation=suspicious, warnings=tuple(warnings))
        if last is not None:
            raise last
        raise NotFound(f"{requested}: no configured registry knows this skill")

    @staticmethod
    def _gate_metadata(meta: SkillMetadata) -> None:
        label = meta.ref.qualified
        if meta.moderation == "malware" or meta.scan.status == "malicious":
            reason = meta.scan.reason or "flagged as malicious"
            codes = f" [{', '.join(meta.scan.reason_codes)}]" if meta.scan.reason_codes else ""
            raise Refused(f"{label} is blocked as malware by {meta.registry}: {reason}{codes}; it is never "
                          "downloaded", code="malware", details={"reason_codes": list(meta.scan.reason_codes)})
        if meta.moderation == "pending":
            raise RegistryError(f"{label} is pending a security scan at {meta.registry}; try again later",
                                code="scan_pending")
        if meta.moderation == "removed":
            raise Refused(f"{label} was removed by {meta.registry}'s moderators", code="removed")
        if meta.moderation == "hidden":
            raise Refused(f"{label} is currently unavailable at {meta.registry}", code="unavailable")

    @staticmethod
    def _gate_version(meta: SkillMetadata, detail: SkillVersion) -> list[str]:
        label = f"{meta.ref.qualified}@{detail.version}"
        status = detail.scan.status
        if status == "malicious":
            raise Refused(f"{label} is flagged as malicious by {meta.registry}'s scan: "
                          f"{detail.scan.reason or 'no reason given'}; it is never downloaded", code="malware")
        if status == "pending":
            raise RegistryError(f"{label} is pending a security scan at {meta.registry}; try again later",
                                code="scan_pending")
        warnings = []
        if status == "suspicious" or meta.moderation == "suspicious":
            codes = ", ".join(meta.scan.reason_codes or detail.scan.reason_codes)
            warnings.append(f"{label} is flagged suspicious by {meta.registry}"
                            + (f" ({codes})" if codes else "")
                            + (f": {detail.scan.reason or meta.scan.reason}" if (detail.scan.reason or meta.scan.reason)
                               else ""))
        if status in ("unknown", "error", "unreviewed"):
            warnings.append(f"{label} has no clean registry scan ({status}): treated as unreviewed")
        return warnings

    # ------------------------------------------------------------------ installing

    def install(
        self,
        plan: InstallPlan,
        *,
        confirmed: bool = False,
        force: bool = False,
        progress: Callable[[int, int | None], None] | None = None,
    ) -> InstallRecord:
        """Download, verify and hand to the install target. Suspicious needs ``confirmed``."""
        if plan.needs_confirmation and self.reflex:
            raise Refused(f"{plan.ref.qualified} is suspicious; never installed in reflex mode", code="suspicious_reflex")
        if plan.needs_confirmation and not confirmed:
            raise Refused(f"{plan.ref.qualified} is flagged suspicious; install it only after an explicit "
                          "confirmation ('install anyway')", code="confirmation_required",
                          details={"warnings": list(plan.warnings)})
        registry = self.pm.registry(plan.registry)
        target = self.pm.install_target()
        layout_ref = SkillRef(name=plan.ref.name, owner=plan.requested.owner, registry=plan.registry)
        preflight = getattr(target, "preflight", None)
        if callable(preflight):
            preflight(layout_ref, registry=plan.registry, force=force)
        fetch_kw: dict[str, Any] = {}
        if progress is not None and "progress" in inspect.signature(registry.fetch).parameters:
            fetch_kw["progress"] = progress
        bundle: SkillBundle = registry.fetch(plan.ref, plan.version.version, **fetch_kw)
        expected = plan.version.files or bundle.expected
        verify_bundle(bundle, expected, label=f"{plan.ref.qualified}@{plan.version.version}")
        if plan.version.fingerprint:
            from .fingerprint import bundle_fingerprint

            got = bundle_fingerprint(bundle, exclude={"_meta.json"})
            if got != plan.version.fingerprint:
                raise BadInput(f"{plan.ref.qualified}@{plan.version.version}: content fingerprint {got} does not "
                               f"match the registry's {plan.version.fingerprint}", code="integrity")
        kwargs: dict[str, Any] = {"force": force}
        params = inspect.signature(target.install).parameters
        if "source" in params:
            kwargs["source"] = {"registry": getattr(registry, "base_url", None) or plan.registry,
                                "ownerHandle": plan.ref.owner, "registryName": plan.registry}
        if "layout_ref" in params:
            kwargs["layout_ref"] = layout_ref
        record: InstallRecord = target.install(bundle, **kwargs)
        self.pm.emit("install", {"ref": str(plan.ref), "registry": plan.registry, "version": plan.version.version,
                                 "fingerprint": record.fingerprint, "path": record.path, "forced": force,
                                 "confirmed_suspicious": bool(plan.needs_confirmation and confirmed)})
        return record

    def uninstall(self, reference: str) -> InstallRecord:
        record: InstallRecord = self.pm.install_target().uninstall(reference)
        self.pm.emit("uninstall", {"ref": str(record.ref), "registry": record.registry, "path": record.path,
                                   "version": record.version})
        return record


def verify_bundle(bundle: SkillBundle, expected: tuple[Any, ...], *, label: str) -> None:
    """Every published file present with its SHA-256, and nothing unpublished besides ``_meta.json``."""
    if not expected:
        return
    want = {d.path: d.sha256 for d in expected if d.sha256}
    if not want:
        return
    got = {f.path: f.sha256 for f in bundle.files}
    problems = []
    for path, digest in sorted(want.items()):
        if path not in got:
            problems.append(f"{path}: missing from the archive")
        elif got[path] != digest:
            problems.append(f"{path}: sha256 {got[path]} differs from the published {digest}")
    for path in sorted(set(got) - set(want) - {"_meta.json"}):
        problems.append(f"{path}: not among the version's published files")
    if problems:
        raise BadInput(f"{label}: integrity check failed; nothing was installed: " + "; ".join(problems),
                       code="integrity", details={"problems": problems})


__all__ = ["Installer", "InstallPlan", "verify_bundle"]
