"""Workspace state (§2, §5.1): config, registry, sidecars and drafts, read and written through a transaction.

The registry is canonical for records; each change also rewrites the candidate's sidecar, raw draft
and rendering in the same transaction so ``repair_state`` can rebuild a lost registry. Reading never
creates files.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from attrs import define, field

from ...kernel import clock
from .errors import EvolverError
from .journal import Transaction
from .names import STATE_DIR, check_candidate_id, resolve_in_workspace
from .record import CHANGE_TYPES, MODES, RISK_LEVELS, STATUSES, complete, ordered
from .render import parse_legacy, render_candidate

CONFIG = f"{STATE_DIR}/config.json"
REGISTRY = f"{STATE_DIR}/registry.json"
CANDIDATES = f"{STATE_DIR}/candidates"
DRAFTS = f"{CANDIDATES}/drafts"
DEFAULT_CONFIG: dict[str, Any] = {"version": 1, "autonomy_mode": "manual"}


def sidecar_path(cid: str) -> str:
    return f"{CANDIDATES}/{check_candidate_id(cid, legacy=True)}.json"


def draft_path(cid: str) -> str:
    return f"{DRAFTS}/{check_candidate_id(cid, legacy=True)}.md"


def rendering_path(cid: str) -> str:
    return f"{CANDIDATES}/{check_candidate_id(cid, legacy=True)}.md"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _load(workspace: Path, rel: str, warnings: list[str]) -> tuple[dict[str, Any] | None, bool]:
    from ...kernel.durable import load_json

    path = resolve_in_workspace(workspace, rel)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):  # a FIFO or a device would block the read forever
        raise EvolverError("UNSAFE_PATH", f"./{rel} is not a regular file; it was not read — remove it",
                           details={"path": rel})
    result = load_json(path)
    warnings.extend(result.warnings)
    if result.corrupt:
        return None, True
    return result.value, False


#: registry key keeping records of the wrong shape verbatim (set aside, never dropped, for a person to repair)
QUARANTINED = "quarantined_records"


def record_problem(r: dict[str, Any]) -> str | None:
    """Why a registry record (completed with defaults) cannot be used, or ``None``."""
    try:
        check_candidate_id(r.get("candidate_id"), legacy=True)
    except EvolverError as exc:
        return exc.message
    for key, allowed in (("status", STATUSES), ("risk_level", RISK_LEVELS), ("change_type", CHANGE_TYPES)):
        if not isinstance(r.get(key), str) or r[key] not in allowed:
            return f"{key} {r.get(key)!r} is not one of {', '.join(allowed)}"
    if not isinstance(r.get("target_skill"), str) or not r["target_skill"].strip():
        return f"target_skill {r.get('target_skill')!r} is not a skill name"
    for key in ("signal_count", "revision_count"):
        if not isinstance(r.get(key), int) or isinstance(r[key], bool):
            return f"{key} {r.get(key)!r} is not a whole number"
    for key in ("matched_rules", "source_tools", "review_suggestions"):
        if not isinstance(r.get(key), list):
            return f"{key} {r.get(key)!r} is not a list"
    for key in ("source_summary", "signal_type"):
        if key in r and not isinstance(r[key], str):
            return f"{key} {r[key]!r} is not a string"
    return None


def _sort_records(workspace: Path, raw: list[Any], extra: dict[str, Any],
                  warnings: list[str]) -> list[dict[str, Any]]:
    """The usable records; the others are moved to ``extra[QUARANTINED]`` with a warning (and the registry
    file is copied aside once, ``registry.json.corrupt-*``), so nothing is lost on the next write."""
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    set_aside: list[dict[str, Any]] = []
    for r in raw:
        rec = complete(r) if isinstance(r, dict) else None
        problem = "not an object" if rec is None else record_problem(rec)
        if problem is None and rec is not None and rec["candidate_id"] in seen:
            problem = f"duplicate candidate_id {rec['candidate_id']!r} (the first record is kept)"
        if problem is not None:
            set_aside.append({"record": r, "reason": problem, "quarantined_at": clock.utc_timestamp()})
            cid = r.get("candidate_id") if isinstance(r, dict) else None
            warnings.append(f"./{REGISTRY}: record {cid!r} quarantined: {problem} (kept verbatim under "
                            f"'{QUARANTINED}'; repair it by hand, then move it back into 'records')")
            continue
        assert rec is not None
        seen.add(rec["candidate_id"])
        records.append(rec)
    old = extra.get(QUARANTINED)
    kept = old if isinstance(old, list) else ([] if old is None else [old])
    for entry in kept:
        reason = entry.get("reason", "unknown reason") if isinstance(entry, dict) else "unknown reason"
        warnings.append(f"./{REGISTRY}: a record is quarantined ({reason}); repair it by hand under '{QUARANTINED}'")
    if set_aside:
        extra[QUARANTINED] = [*kept, *set_aside]
        from ...kernel.durable import quarantine

        try:
            copy = quarantine(resolve_in_workspace(workspace, REGISTRY))
        except OSError:
            copy = None
        if copy is not None:
            warnings.append(f"./{REGISTRY}: a copy as it was is kept as {copy.name}")
    return records


@define
class State:
    """The loaded config and registry of one workspace, plus what this operation changed."""

    workspace: Path
    tx: Transaction
    config: dict[str, Any]
    records: list[dict[str, Any]]
    registry_extra: dict[str, Any] = field(factory=dict)
    warnings: list[str] = field(factory=list)
    corrupt: list[str] = field(factory=list)
    exists: bool = False
    _dirty: dict[str, str] = field(factory=dict)  # candidate id -> operation
    _drafts: dict[str, str] = field(factory=dict)
    _config_dirty: bool = False
    _history: dict[str, list[dict[str, Any]]] = field(factory=dict)

    @classmethod
    def load(cls, workspace: Path, tx: Transaction) -> State:
        warnings: list[str] = []
        corrupt: list[str] = []
        config, bad = _load(workspace, CONFIG, warnings)
        if bad:
            corrupt.append(CONFIG)
        if config is not None and config.get("autonomy_mode") not in MODES:
            warnings.append(f"./{CONFIG}: autonomy_mode {config.get('autonomy_mode')!r} is not a mode; using manual")
            config = {**config, "autonomy_mode": "manual"}
        registry, bad = _load(workspace, REGISTRY, warnings)
        records: list[dict[str, Any]] = []
        extra: dict[str, Any] = {}
        if bad:
            corrupt.append(REGISTRY)
        elif registry is not None:
            raw = registry.get("records")
            if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
                corrupt.append(REGISTRY)
                warnings.append(f"./{REGISTRY}: 'records' is not a list of objects")
            extra = {k: v for k, v in registry.items() if k not in ("version", "records")}
            if isinstance(raw, list):
                records = _sort_records(workspace, raw, extra, warnings)
        exists = (workspace / STATE_DIR).is_dir()
        return cls(workspace, tx, dict(config or DEFAULT_CONFIG), records, extra, warnings, corrupt, exists)

    # ------------------------------------------------------------------ reading
    @property
    def mode(self) -> str:
        return str(self.config.get("autonomy_mode", "manual"))

    def find(self, cid: str) -> dict[str, Any] | None:
        return next((r for r in self.records if r.get("candidate_id") == cid), None)

    def get(self, cid: object) -> dict[str, Any]:
        from .names import lookup_id

        key = lookup_id(cid)
        rec = self.find(key)
        if rec is None:
            raise EvolverError("CANDIDATE_NOT_FOUND", f"no candidate {key} in ./{REGISTRY}")
        return rec

    def sidecar(self, cid: str) -> dict[str, Any] | None:
        raw = self.tx.read(sidecar_path(cid))
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            self.warnings.append(f"./{sidecar_path(cid)} is not valid JSON; ignored")
            return None
        return value if isinstance(value, dict) else None

    def draft(self, cid: str) -> str:
        """The raw draft (byte-exact from ``drafts/``), else the legacy rendering's fenced block."""
        if cid in self._drafts:
            return self._drafts[cid]
        raw = self.tx.read(draft_path(cid))
        if raw is not None:
            return raw.decode("utf-8", "replace")
        legacy = self.tx.read(rendering_path(cid))
        if legacy is not None:
            parsed = parse_legacy(legacy.decode("utf-8", "replace"), f"./{rendering_path(cid)}")
            self.warnings.extend(parsed.warnings)
            return parsed.draft
        return ""

    def open_for_target(self, target: str, *, exclude: str | None = None) -> dict[str, Any] | None:
        from .record import OPEN_STATUSES

        return next((r for r in self.records if r.get("target_skill") == target and r.get("status") in OPEN_STATUSES
                     and r.get("candidate_id") != exclude), None)

    def published_name(self, rec: dict[str, Any]) -> str | None:
        name = rec.get("published_name")
        if isinstance(name, str) and name:
            return name
        target = rec.get("target_skill")
        if not isinstance(target, str) or rec.get("published_version") is None:
            return None
        return target + "-canary" if rec.get("promotion_channel") == "canary" and not target.endswith("-canary") \
            else target

    def latest_published(self, name: str) -> dict[str, Any] | None:
        live = [r for r in self.records if r.get("status") == "published" and self.published_name(r) == name]
        return max(live, key=lambda r: int(r.get("published_version") or 0), default=None)

    # ------------------------------------------------------------------ changing
    def add(self, record: dict[str, Any], draft: str, operation: str) -> None:
        self.records.append(record)
        self.changed(record, operation, None, draft=draft)

    def changed(self, record: dict[str, Any], operation: str, status_before: str | None, *,
                draft: str | None = None) -> None:
        cid = str(record["candidate_id"])
        record["updated_at"] = clock.utc_timestamp()
        if draft is not None:
            self._drafts[cid] = draft
            record["draft_sha256"] = sha256(draft)
        self._dirty[cid] = operation
        self._history.setdefault(cid, []).append({"at": record["updated_at"], "operation": operation,
                                                  "status_before": status_before,
                                                  "status_after": record.get("status")})

    def set_mode(self, mode: str) -> None:
        self.config = {**self.config, "version": self.config.get("version", 1), "autonomy_mode": mode}
        self._config_dirty = True

    def flush(self) -> None:
        """Add every pending file change (registry, sidecars, drafts, renderings, config) to the transaction."""
        if self._config_dirty:
            self.tx.write_json(CONFIG, self.config)
        if not self._dirty:
            return
        for cid in self._dirty:
            rec = ordered(next(r for r in self.records if r["candidate_id"] == cid))
            draft = self.draft(cid)
            old = self.sidecar(cid) or {}
            history = list(old.get("history") or []) + self._history.get(cid, [])
            if cid in self._drafts or self.tx.read(draft_path(cid)) is None:
                self.tx.write_text(draft_path(cid), draft)
            rec.setdefault("draft_sha256", sha256(draft))
            sidecar = {"version": 1, "record": rec, "draft_file": f"drafts/{cid}.md",
                       "draft_sha256": sha256(draft), "history": history}
            self.tx.write_json(sidecar_path(cid), sidecar)
            self.tx.write_text(rendering_path(cid), render_candidate(rec, draft))
        self.write_registry()

    def write_registry(self) -> None:
        doc = {"version": 1, **self.registry_extra, "records": [ordered(r) for r in self.records]}
        self.tx.write_json(REGISTRY, doc)
        if not (self.workspace / CONFIG).exists() and not self._config_dirty:
            self.tx.write_json(CONFIG, self.config)
