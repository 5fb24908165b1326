"""Registry installs: resolve and plan, fetch in memory, then hand to :mod:`nervous.engines.install.gate`.

The checks themselves (moderation, integrity, review floors, approval) live in the gate; this
module only knows how to ask a registry for a skill and how to lay it out for the install target.
A suspicious or unverified skill needs an explicit confirmation and never installs as a reflex.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from ...errors import NervousError, NotFound, Refused
from ...kernel.records import InstallRecord, ScanContext, SkillBundle, SkillMetadata, SkillRef, SkillVersion
from . import gate
from .gate import verify_bundle

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager


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
            gate.moderation(meta)
            detail = registry.version(meta.ref, version or meta.latest_version)
            warnings = gate.moderation(meta, detail)
            suspicious = gate.suspicious(meta, detail)
            if suspicious and self.reflex:
                raise Refused(f"{meta.ref.qualified} is flagged suspicious by {registry.name}; suspicious skills "
                              "are never installed in reflex mode", code="suspicious_reflex")
            return InstallPlan(registry=registry.name, ref=meta.ref, requested=requested, metadata=meta,
                               version=detail, needs_confirmation=suspicious or not gate.published_digests(detail),
                               warnings=tuple(warnings))
        if last is not None:
            raise last
        raise NotFound(f"{requested}: no configured registry knows this skill")

    # ------------------------------------------------------------------ installing

    def fetch(self, plan: InstallPlan, *, progress: Callable[[int, int | None], None] | None = None,
              context: ScanContext | None = None) -> tuple[SkillBundle, gate.Verdict]:
        """Download in memory, then the gate's integrity and review stages. Nothing is written."""
        registry = self.pm.registry(plan.registry)
        fetch_kw: dict[str, Any] = {}
        if progress is not None and "progress" in inspect.signature(registry.fetch).parameters:
            fetch_kw["progress"] = progress
        bundle: SkillBundle = registry.fetch(plan.ref, plan.version.version, **fetch_kw)
        label = f"{plan.ref.qualified}@{plan.version.version}"
        verified = gate.integrity(bundle, plan.version, plan.ref, label=label)
        context = context or ScanContext(purpose="install", registry_scan=plan.version.scan,
                                         stated_purpose=plan.metadata.summary or "")
        verdict = gate.review(self.pm, bundle, label=label, source=plan.registry, context=context,
                              suspicious=gate.suspicious(plan.metadata, plan.version), verified=verified)
        return bundle, verdict

    def install(
        self,
        plan: InstallPlan,
        *,
        approval: gate.Approval | None = None,
        force: bool = False,
        progress: Callable[[int, int | None], None] | None = None,
        retry: str = "",
        fetched: tuple[SkillBundle, gate.Verdict] | None = None,
    ) -> InstallRecord:
        """Download, verify, review, check ``approval`` and hand to the install target, through the gate.

        Without ``approval`` nothing installs (silence is never approval); reflex installers approve
        as ``reflex``. ``retry`` is the command a person would run to approve this at a terminal.
        """
        if approval is None:
            approval = gate.Approval("reflex", "reflex") if self.reflex else gate.Approval("none", "none")
        registry = self.pm.registry(plan.registry)
        target = self.pm.install_target()
        layout_ref = SkillRef(name=plan.ref.name, owner=plan.requested.owner, registry=plan.registry)
        preflight = getattr(target, "preflight", None)
        if callable(preflight):
            preflight(layout_ref, registry=plan.registry, force=force)
        bundle, verdict = fetched or self.fetch(plan, progress=progress)
        kwargs: dict[str, Any] = {"force": force}
        params = inspect.signature(target.install).parameters
        if "source" in params:
            kwargs["source"] = {"registry": getattr(registry, "base_url", None) or plan.registry,
                                "ownerHandle": plan.ref.owner, "registryName": plan.registry,
                                "verified": verdict.verified}
        if "layout_ref" in params:
            kwargs["layout_ref"] = layout_ref
        record: InstallRecord = gate.Gate(self.pm).admit(verdict, approval, lambda: target.install(bundle, **kwargs),
                                                         retry=retry)
        self.pm.emit("install", {"ref": str(plan.ref), "registry": plan.registry, "version": plan.version.version,
                                 "fingerprint": record.fingerprint, "path": record.path, "forced": force,
                                 "verified": verdict.verified, "decision": verdict.decision,
                                 "approved_by": approval.by,
                                 "confirmed_suspicious": bool(plan.needs_confirmation and approval.confirmed)})
        return record

    def uninstall(self, reference: str) -> InstallRecord:
        record: InstallRecord = self.pm.install_target().uninstall(reference)
        self.pm.emit("uninstall", {"ref": str(record.ref), "registry": record.registry, "path": record.path,
                                   "version": record.version})
        return record


__all__ = ["Installer", "InstallPlan", "verify_bundle"]
