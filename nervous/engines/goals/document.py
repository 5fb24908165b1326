"""The goal document: one JSON object per project/context scope (specs/goals.md §1, §8.6).

Loading is lenient and reports everything it had to repair; malformed goals are quarantined,
never dropped, and their ids are never reused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from attrs import define, field

from .errors import GoalError
from .model import DrainRun, Goal, GoalConfig, Warn, dump, parse, parse_goal
from .timefmt import iso

FORMAT_VERSION = 1
MAX_DRAIN_RUNS = 200
_ID_RE = re.compile(r"^(goal|plan|drain)-(\d+)\Z")
_TOP_KEYS = ("version", "project", "created_at", "updated_at", "current_goal_id", "goals", "drain_runs",
             "config", "quarantined_goals")


@define
class GoalFile:
    version: int = FORMAT_VERSION
    project: str | None = None
    created_at: str = ""
    updated_at: str = ""
    current_goal_id: str | None = None
    goals: dict[str, Goal] = field(factory=dict)
    drain_runs: dict[str, DrainRun] = field(factory=dict)
    config: GoalConfig = field(factory=GoalConfig)
    quarantined_goals: dict[str, Any] = field(factory=dict)
    extra: dict[str, Any] = field(factory=dict)
    #: malformed goals found on load; moved to ``quarantined_goals`` by the next mutation
    pending_quarantine: dict[str, dict[str, Any]] = field(factory=dict)
    #: whether ``current_goal_id`` named a missing goal on load
    dangling_current: bool = False
    #: whether the document existed before
    existed: bool = False

    def settle(self, now: str) -> None:
        """Repairs deferred to the next mutation: quarantine moves, dangling pointer cleared."""
        for gid, entry in self.pending_quarantine.items():
            self.quarantined_goals[gid] = {**entry, "quarantined_at": now}
        self.pending_quarantine = {}
        self.dangling_current = False  # the pointer was never loaded, so it is written as null
        if not self.created_at:
            self.created_at = now
        self.updated_at = now
        while len(self.drain_runs) > MAX_DRAIN_RUNS:
            oldest = min(self.drain_runs.values(), key=lambda r: (r.created_at, id_number(r.id)))
            del self.drain_runs[oldest.id]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version,
            "project": self.project,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "current_goal_id": self.current_goal_id,
            "goals": {k: dump(g) for k, g in self.goals.items()},
            "drain_runs": {k: dump(r) for k, r in self.drain_runs.items()},
            "config": dump(self.config),
            "quarantined_goals": dict(self.quarantined_goals),
        }
        if self.project is None:
            del out["project"]
        for k, v in self.extra.items():
            out.setdefault(k, v)
        return out

    def all_goal_keys(self) -> Iterable[str]:
        yield from self.goals
        yield from self.quarantined_goals
        yield from self.pending_quarantine
        dropped = self.extra.get("retired_goal_ids")  # dropped from quarantine or archived by reset
        if isinstance(dropped, list):
            yield from (i for i in dropped if isinstance(i, str))


def id_number(ident: str) -> int:
    m = _ID_RE.match(ident or "")
    return int(m.group(2)) if m else -1


def next_id(prefix: str, existing: Iterable[str]) -> str:
    """``<prefix>-NNN``: one past the numeric maximum, at least three digits."""
    top = 0
    for k in existing:
        m = _ID_RE.match(k)
        if m and m.group(1) == prefix:
            top = max(top, int(m.group(2)))
    return f"{prefix}-{top + 1:03d}"


def quarantine_reason(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return f"not an object ({type(raw).__name__})"
    if not isinstance(raw.get("prompt"), str) or not raw["prompt"].strip():
        return "missing prompt"
    if not isinstance(raw.get("intent"), dict):
        return "missing intent"
    return None


def wrong_typed_goals(raw: Any) -> bool:
    """Whether a stored document's top-level ``goals`` is not an object (or an old release set it aside)."""
    return isinstance(raw, dict) and (not isinstance(raw.get("goals", {}), dict) or "_invalid_goals" in raw)


def _quarantine_goals_field(gf: GoalFile, value: Any, taken: set[str], where: str, warn: Warn) -> None:
    """A wrong-typed top-level ``goals`` is quarantined, never dropped: each item of a list becomes a
    quarantined goal under its own id (so the id is never handed out again), anything else one entry."""
    kind = type(value).__name__
    reason = f"the top-level 'goals' field was a JSON {kind}, not an object"
    items = value if isinstance(value, list) else [value]
    for i, item in enumerate(items, 1):
        own = item.get("id") if isinstance(item, dict) else None
        gid = own if isinstance(own, str) and _ID_RE.match(own) else f"invalid-goals-{i:03d}"
        base, n = gid, 1
        while gid in taken or gid in gf.pending_quarantine:
            n += 1
            gid = f"{base}-{n}"
        gf.pending_quarantine[gid] = {"raw": item, "reason": reason}
    warn(f"{where}.goals: expected an object, got a JSON {kind}; its {len(items)} entr"
         f"{'y' if len(items) == 1 else 'ies'} quarantined (see nervous goal quarantine list; a human must "
         "repair or drop them)")


def load(raw: dict[str, Any] | None, warn: Warn, *, known_policies: Iterable[str] = ("default",),
         default_policy: str = "default", where: str = "goals") -> GoalFile:
    """Parse a stored document; ``None`` or ``{}`` is a fresh store."""
    if not raw:
        return GoalFile(config=GoalConfig(default_drain_policy=default_policy))
    version = raw.get("version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise GoalError("unsupported_version",
                        f"{where}: format version {version!r} is not supported (this release reads version "
                        f"{FORMAT_VERSION}); the document was left untouched")
    gf = GoalFile(existed=True)
    meta_raw = raw.get("meta")
    meta: dict[str, Any] = meta_raw if isinstance(meta_raw, dict) else {}
    for key in ("project", "created_at", "updated_at"):
        value = raw.get(key, meta.get(key))
        if isinstance(value, str):
            setattr(gf, key, value)
        elif value is not None:
            warn(f"{where}.{key}: expected a string, got {value!r}; ignored")
    gf.extra = {k: v for k, v in raw.items() if k not in _TOP_KEYS}

    goals_raw = raw.get("goals", {})
    taken = set(raw.get("quarantined_goals") or {}) if isinstance(raw.get("quarantined_goals"), dict) else set()
    if "_invalid_goals" in gf.extra:  # set aside by an earlier release: quarantined like the goals field
        _quarantine_goals_field(gf, gf.extra.pop("_invalid_goals"), taken, where, warn)
    if not isinstance(goals_raw, dict):
        _quarantine_goals_field(gf, goals_raw, taken, where, warn)
        goals_raw = {}
    for gid, graw in goals_raw.items():
        reason = quarantine_reason(graw)
        if reason is not None:
            gf.pending_quarantine[gid] = {"raw": graw, "reason": reason}
            warn(f"goal {gid} quarantined: {reason} (kept verbatim in quarantined_goals)")
            continue
        goal = parse_goal(graw, f"goals.{gid}", warn)
        if goal.id != gid:
            warn(f"goals.{gid}: id {goal.id!r} differs from its key; using {gid!r}")
            goal.id = gid
        gf.goals[gid] = goal

    quarantined = raw.get("quarantined_goals", {})
    if isinstance(quarantined, dict):
        gf.quarantined_goals = dict(quarantined)
        for gid, entry in quarantined.items():
            reason = entry.get("reason", "unknown reason") if isinstance(entry, dict) else "unknown reason"
            warn(f"goal {gid} is quarantined ({reason}); a human must repair or drop it "
                 f"(nervous goal quarantine repair {gid} | drop {gid} --yes)")

    runs = raw.get("drain_runs", {})
    if isinstance(runs, dict):
        for rid, rraw in runs.items():
            if not isinstance(rraw, dict):
                warn(f"drain_runs.{rid}: not an object; dropped")
                continue
            run = parse(DrainRun, {"id": rid, **rraw}, f"drain_runs.{rid}", warn)
            run.id = rid
            gf.drain_runs[rid] = run

    cfg_raw = raw.get("config", {})
    gf.config = parse(GoalConfig, cfg_raw if cfg_raw is not None else {}, "config", warn)
    if "default_drain_policy" not in (cfg_raw or {}):
        gf.config.default_drain_policy = default_policy
    known = set(known_policies)
    if gf.config.default_drain_policy not in known:
        warn(f"config.default_drain_policy: unknown policy {gf.config.default_drain_policy!r}"
             f" (available: {', '.join(sorted(known))}); using {default_policy!r}")
        gf.config.default_drain_policy = default_policy if default_policy in known else "default"
    if gf.config.risk_gate_mode == "disabled" and not (gf.config.risk_gate_evidence or "").strip():
        warn("config.risk_gate_mode: 'disabled' without risk_gate_evidence; using 'auto_deliberate'")
        gf.config.risk_gate_mode = "auto_deliberate"
    if gf.config.risk_gate_mode != "disabled" and gf.config.risk_gate_evidence is not None:
        warn("config.risk_gate_evidence: present while the gate is not disabled; ignored")
        gf.config.risk_gate_evidence = None

    current = raw.get("current_goal_id")
    if isinstance(current, str):
        if current in gf.goals:
            gf.current_goal_id = current
        else:
            warn(f"current_goal_id {current!r} names no goal; ignored")
            gf.dangling_current = True
    return gf


def fresh_timestamps(gf: GoalFile) -> None:
    now = iso()
    gf.created_at = gf.created_at or now
    gf.updated_at = now
