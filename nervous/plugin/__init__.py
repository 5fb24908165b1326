"""The plugin API: everything a plugin author imports lives under ``nervous.plugin``.

* :mod:`nervous.plugin.hookspecs` — every hook, with its contract; :data:`hookimpl` marks
  implementations;
* :class:`Provider` and :class:`ProviderContext` — how a plugin offers a named registry, store,
  policy... and what its factory receives;
* the Protocols providers implement (:mod:`nervous.plugin.protocols`);
* :class:`Store` and its records, and the records plugins exchange;
* :mod:`nervous.plugin.cortex` — the cortex types ranking policies and matchers use;
* :mod:`nervous.plugin.toolkit` — helpers plugins legitimately need (HTTP client, durable files,
  bundles, fingerprints, SKILL.md parsing, the side-effect vocabulary).

Errors are in :mod:`nervous.errors`. Built-in plugins import nothing else from nervous.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import hookimpl
from ..kernel.lazy import lazy_names

_RECORDS = ["DECISION_ORDER", "Event", "FileDigest", "Finding", "InstallRecord", "IntentVerdict", "ReviewDecision",
            "RiskAssessment", "ScanContext", "ScanStatus", "SearchHit", "SideEffects", "SkillBundle", "SkillFile",
            "SkillMetadata", "SkillRef", "SkillVersion"]
_STORAGE = ["SCHEMA_VERSION", "MemoryStore", "Problem", "R", "Snapshot", "Store", "StoreInfo", "Updated",
            "check_collection", "check_document", "check_key", "shape_validator"]
_PROTOCOLS = ["Registry", "InstallTarget", "ReviewPolicy", "Matcher", "RankingPolicy", "DrainPolicy"]

#: public name -> the module that implements it (loaded on first use: the records and the storage
#: contract are imported by kernel modules that this package's own modules depend on)
_SOURCES: dict[str, str] = {
    **dict.fromkeys(_RECORDS, "nervous.kernel.records"),
    **dict.fromkeys(_STORAGE, "nervous.kernel.storage"),
    **dict.fromkeys(_PROTOCOLS, "nervous.plugin.protocols"),
    "hookspec": "nervous.plugin.hookspecs",
    # attrs records, loaded on first use: the kernel imports this package on every start-up
    "Provider": "nervous.plugin.provider",
    "ProviderContext": "nervous.plugin.context",
}

if TYPE_CHECKING:
    from ..kernel.records import (
        DECISION_ORDER,
        Event,
        FileDigest,
        Finding,
        InstallRecord,
        IntentVerdict,
        ReviewDecision,
        RiskAssessment,
        ScanContext,
        ScanStatus,
        SearchHit,
        SideEffects,
        SkillBundle,
        SkillFile,
        SkillMetadata,
        SkillRef,
        SkillVersion,
    )
    from ..kernel.storage import (
        SCHEMA_VERSION,
        MemoryStore,
        Problem,
        R,
        Snapshot,
        Store,
        StoreInfo,
        Updated,
        check_collection,
        check_document,
        check_key,
        shape_validator,
    )
    from .context import ProviderContext
    from .hookspecs import hookspec
    from .protocols import DrainPolicy, InstallTarget, Matcher, RankingPolicy, Registry, ReviewPolicy
    from .provider import Provider


__getattr__, __dir__ = lazy_names(__name__, _SOURCES)


__all__ = [
    "hookimpl", "hookspec", "Provider", "ProviderContext",
    "Registry", "InstallTarget", "ReviewPolicy", "Matcher", "RankingPolicy", "DrainPolicy",
    "Store", "StoreInfo", "Problem", "Snapshot", "Updated", "R", "MemoryStore", "SCHEMA_VERSION",
    "check_collection", "check_document", "check_key", "shape_validator",
    "DECISION_ORDER", "Event", "FileDigest", "Finding", "InstallRecord", "IntentVerdict", "ReviewDecision",
    "RiskAssessment", "ScanContext", "ScanStatus", "SearchHit", "SideEffects", "SkillBundle", "SkillFile",
    "SkillMetadata", "SkillRef", "SkillVersion",
]
