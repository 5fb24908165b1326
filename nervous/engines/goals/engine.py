"""The goal store engine and its Python API: one object, one method per action.

Every mutation is a single :meth:`nervous.kernel.storage.Store.update` (load the latest document,
mutate, validate, save), so concurrent processes never lose each other's changes and a refused
action writes nothing. Queries read without locking. Every result carries the warnings met on
the way (storage recovery, coercion, quarantine).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define, field

from ...errors import BadInput, NervousError
from ...kernel import clock
from ...kernel.storage import Store
from . import args as A
from . import document
from .actions import MUTATIONS, Ctx, readiness_gaps, resolve
from .document import GoalFile
from .drain import clamp_max_goals, latest_run
from .drain import drain as run_drain
from .errors import GoalError, invalid_arg
from .hardstop import HardStopMatcher
from .location import Scope, resolve_scope
from .model import STATUSES, DrainPolicySpec, DrainRun, Goal, GoalConfig, dump
from .render import (
    config_markdown,
    goal_markdown,
    is_due,
    list_markdown,
    next_hint,
    run_hint,
    run_markdown,
    summary_markdown,
)
from .settings import describe
from .settings import set_config as apply_config
from .status import ACTIONABLE, NON_TERMINAL, WAITING

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

COLLECTION = "goals"
#: the largest stored goal (its JSON) and goal document: well inside what ``goal import`` reads back (64 MiB)
MAX_GOAL_BYTES = 1 << 20
MAX_DOCUMENT_BYTES = 32 << 20
#: where ``reset`` keeps the documents it cleared, keyed ``<scope>@<archive id>``
ARCHIVES = "goal-archives"
T = TypeVar("T")


@define
class GoalResult:
    """What every action returns; :meth:`to_json` is the envelope of specs/goals.md §5."""

    action: str
    goal: Goal | None = None
    goals: list[Goal] = field(factory=list)
    run: DrainRun | None = None
    config: GoalConfig | None = None
    markdown: str = ""
    next: str = ""
    warnings: list[str] = field(factory=list)
    data: dict[str, Any] = field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": True, "action": self.action}
        if self.goal is not None:
            out["goal"] = dump(self.goal)
        if self.goals or self.action == "list":
            out["goals"] = dump(self.goals)
        if self.run is not None:
            out["run"] = dump(self.run)
        if self.config is not None:
            out["config"] = dump(self.config)
        out.update(self.data)
        out["markdown"] = self.markdown
        out["next"] = self.next
        out["warnings"] = list(self.warnings)
        return out


class Goals:
    """Durable goals for one project/context scope (specs/goals.md).

    ``Goals(manager)`` resolves the scope from the environment (``NERVOUS_PROJECT``,
    ``NERVOUS_CONTEXT``, the git branch, ``NERVOUS_GOALS_PATH``) and stores through
    ``manager.storage()``; tests and embedders may pass ``store`` and ``scope`` explicitly.
    """

    def __init__(self, manager: PluginManager, *, store: Store | None = None, scope: Scope | None = None) -> None:
        self.manager = manager
        self.scope = scope or resolve_scope()
        if store is None:
            if self.scope.path is not None:
                from .filestore import SingleFileStore

                store = SingleFileStore(self.scope.path, lock_timeout=manager.config.storage.lock_timeout)
            else:
                store = manager.storage()
        self.store: Store = store
        self._matcher: HardStopMatcher | None = None

    # ------------------------------------------------------------------ plumbing

    @property
    def key(self) -> str:
        return self.scope.key if self.scope.path is None else str(self.scope.path)

    def _policy_names(self) -> list[str]:
        return sorted(self.manager.providers("drain policy"))

    def _default_policy(self) -> str:
        return str(self.manager.config.goals.default_drain_policy)

    def matcher(self) -> HardStopMatcher:
        if self._matcher is None:
            self._matcher = HardStopMatcher(self.manager.hard_stop_terms())
        return self._matcher

    def _load(self, raw: dict[str, Any] | None, warn: Callable[[str], None], *, stored: bool = True) -> GoalFile:
        if stored:
            self._keep_copy(raw, warn)
        return document.load(raw, warn, known_policies=self._policy_names(), default_policy=self._default_policy(),
                             where=f"goals {self.key}")

    def _doc_path(self) -> Path | None:
        """The file holding this scope's document, when the backend keeps one file per document."""
        if self.scope.path is not None:
            return self.scope.path
        where = getattr(self.store, "document_path", None)
        if not callable(where):
            return None
        try:
            path = where(COLLECTION, self.key)
        except NervousError:
            return None
        return path if isinstance(path, Path) else None

    def _guard(self) -> None:
        """Refuse a goal document that is a FIFO, a device or a folder before any read (it would block)."""
        from .filestore import check_regular

        path = self._doc_path()
        if path is not None:
            check_regular(path)

    def _keep_copy(self, raw: dict[str, Any] | None, warn: Callable[[str], None]) -> None:
        """A document whose ``goals`` field has the wrong type is copied aside once (``<file>.corrupt-*``)
        before anything rewrites it; its goals are quarantined by :func:`document.load`."""
        if not document.wrong_typed_goals(raw):
            return
        path = self._doc_path()
        if path is None:
            return  # the stored value is kept verbatim in the quarantined entries
        from ...kernel.durable import quarantine

        try:
            copy = quarantine(path)
        except OSError as exc:
            warn(f"{path}: could not keep a copy of the document ({exc.strerror or exc})")
            return
        if copy is not None:
            warn(f"{path}: a copy of the document as it was is kept as {copy}")

    def _read(self) -> tuple[GoalFile, list[str]]:
        self._guard()
        snap = self.store.read(COLLECTION, self.key)
        warnings = list(snap.warnings)
        gf = self._load(snap.value, warnings.append)
        return gf, warnings

    def _mutate(self, fn: Callable[[GoalFile, Ctx], T]) -> tuple[T, GoalFile, list[str]]:
        """One transaction: parse the latest document, apply ``fn``, write it back."""
        box: dict[str, Any] = {}

        def apply(doc: dict[str, Any]) -> None:
            warnings: list[str] = []
            gf = self._load(doc, warnings.append)
            if gf.project is None:
                gf.project = self.scope.project
            ctx = Ctx(clock.now())
            try:
                result = fn(gf, ctx)
            except NervousError as exc:  # refused: nothing is written, but what we noticed is still said
                exc.warnings[:0] = [w for w in [*warnings, *ctx.warnings] if w not in exc.warnings]
                raise
            gf.settle(ctx.now)
            new = gf.to_json()
            self._check_size(new, result)
            doc.clear()
            doc.update(new)
            box.update(result=result, gf=gf, warnings=warnings + ctx.warnings)

        self._guard()
        updated = self.store.update(COLLECTION, self.key, apply)
        warnings = list(dict.fromkeys([*updated.warnings, *box["warnings"]]))
        return box["result"], box["gf"], warnings

    @staticmethod
    def _check_size(doc: dict[str, Any], result: Any) -> None:
        """Refuse (``too_large``) a write that would store an oversized goal or document; nothing is written."""
        from ...kernel.durable import dumps_json

        goal = result if isinstance(result, Goal) else None
        if goal is not None:
            size = len(dumps_json(dump(goal)))
            if size > MAX_GOAL_BYTES:
                raise GoalError("too_large", f"goal {goal.id} would be {size:,} bytes stored; at most "
                                f"{MAX_GOAL_BYTES:,} are accepted; nothing was written",
                                details={"size": size, "limit": MAX_GOAL_BYTES})
        size = len(dumps_json(doc))
        if size > MAX_DOCUMENT_BYTES:
            raise GoalError("too_large", f"the goal document would be {size:,} bytes; at most {MAX_DOCUMENT_BYTES:,} "
                            "are accepted (so an export can be imported again); nothing was written",
                            details={"size": size, "limit": MAX_DOCUMENT_BYTES})

    def _emit(self, action: str, goal: Goal | None, warnings: list[str], **data: Any) -> None:
        payload = {"scope": self.key, **data}
        if goal is not None:
            payload.update(goal_id=goal.id, status=goal.status)
        warnings.extend(self.manager.emit(f"goal.{action}", payload, source="goals"))

    def _replan_limit(self, gf: GoalFile) -> int:
        try:
            return int(self.manager.drain_policy(gf.config.default_drain_policy).max_replans)
        except NervousError:
            return 3

    def _goal_result(self, action: str, goal: Goal, gf: GoalFile, warnings: list[str]) -> GoalResult:
        hint = next_hint(goal, replan_limit=self._replan_limit(gf))
        gaps = readiness_gaps(goal)
        data: dict[str, Any] = {"readiness_gaps": gaps} if goal.intent.needs_magi else {}
        md = goal_markdown(goal, current=gf.current_goal_id == goal.id, hint=hint)
        return GoalResult(action, goal=goal, markdown=md, next=hint, warnings=warnings, data=data)

    def _act(self, action: str, **kwargs: Any) -> GoalResult:
        fn = MUTATIONS[action]
        goal, gf, warnings = self._mutate(lambda gf, ctx: fn(gf, ctx, **kwargs))
        self._emit(action, goal, warnings)
        return self._goal_result(action, goal, gf, warnings)

    # ------------------------------------------------------------------ mutating actions

    def analyze(self, prompt: str, **intent: Any) -> GoalResult:
        """Turn a request into a durable goal; it becomes current. ``intent``: see specs §5.1."""
        return self._act("analyze", prompt=prompt, **intent)

    def refine(self, goal_id: str | None = None, **intent: Any) -> GoalResult:
        return self._act("refine", goal_id=goal_id, **intent)

    def plan(self, goal_id: str | None = None, *, subtasks: Any = None, magi_used: bool | None = None,
             magi_output_ref: str | None = None) -> GoalResult:
        return self._act("plan", goal_id=goal_id, subtasks=subtasks, magi_used=magi_used,
                         magi_output_ref=magi_output_ref)

    def link(self, goal_id: str | None = None, *, links: Any = None) -> GoalResult:
        return self._act("link", goal_id=goal_id, links=links)

    def verify(self, goal_id: str | None = None, *, checks: Any = None, all_axon_complete: bool | None = None,
               recommendation: str | None = None, concerns: Any = None, override_evidence: str | None = None,
               actor: str | None = None) -> GoalResult:
        return self._act("verify", goal_id=goal_id, checks=checks, all_axon_complete=all_axon_complete,
                         recommendation=recommendation, concerns=concerns, override_evidence=override_evidence,
                         actor=actor)

    def complete(self, goal_id: str | None = None) -> GoalResult:
        return self._act("complete", goal_id=goal_id)

    def block(self, goal_id: str | None = None, *, reason: str | None = None, evidence: str | None = None, related_ids: Any = None,
              next_revisit_at: str | None = None, unblock_conditions: Any = None) -> GoalResult:
        return self._act("block", goal_id=goal_id, reason=reason, evidence=evidence, related_ids=related_ids,
                         next_revisit_at=next_revisit_at, unblock_conditions=unblock_conditions)

    def escalate(self, goal_id: str | None = None, *, reason: str | None = None, evidence: str | None = None, related_ids: Any = None,
                 next_revisit_at: str | None = None, unblock_conditions: Any = None) -> GoalResult:
        return self._act("escalate", goal_id=goal_id, reason=reason, evidence=evidence, related_ids=related_ids,
                         next_revisit_at=next_revisit_at, unblock_conditions=unblock_conditions)

    def accept_risk(self, goal_id: str | None = None, *, reason: str | None = None, evidence: str | None = None,
                    risk_gate_mode: str | None = None, actor: str | None = None, scope: str | None = None,
                    related_ids: Any = None, expires_at: str | None = None) -> GoalResult:
        return self._act("accept_risk", goal_id=goal_id, reason=reason, evidence=evidence,
                         risk_gate_mode=risk_gate_mode, actor=actor, scope=scope, related_ids=related_ids,
                         expires_at=expires_at)

    def record_failure(self, goal_id: str | None = None, *, reason: str | None = None, evidence: str | None = None, related_ids: Any = None,
                       retryability: str | None = None, max_attempts: int | None = None,
                       next_retry_at: str | None = None) -> GoalResult:
        return self._act("record_failure", goal_id=goal_id, reason=reason, evidence=evidence,
                         related_ids=related_ids, retryability=retryability, max_attempts=max_attempts,
                         next_retry_at=next_retry_at)

    def reopen(self, goal_id: str | None = None, *, reason: str | None = None, evidence: str | None = None,
               related_ids: Any = None) -> GoalResult:
        return self._act("reopen", goal_id=goal_id, reason=reason, evidence=evidence, related_ids=related_ids)

    def cancel(self, goal_id: str | None = None, *, reason: str | None = None) -> GoalResult:
        return self._act("cancel", goal_id=goal_id, reason=reason)

    def set_current(self, goal_id: str) -> GoalResult:
        return self._act("set_current", goal_id=goal_id)

    def drain(self, *, policy_name: str | None = None, max_goals: int | None = None, evidence: Any = None,
              force: bool | None = None, explicit: bool | None = None) -> GoalResult:
        """A bounded pass over open goals; see specs/goals.md §6. Not progress-bearing."""
        limit = clamp_max_goals(max_goals)
        name = A.optional_str(policy_name, "policy_name") or None
        matcher = self.matcher()

        def step(gf: GoalFile, ctx: Ctx) -> DrainRun:
            chosen = name or gf.config.default_drain_policy
            available = self._policy_names()
            if chosen not in available:
                raise invalid_arg(f"policy_name: unknown drain policy {chosen!r}; available: "
                                  f"{', '.join(available) or 'none'}")
            budgets = self.manager.drain_policy(chosen)
            policy = DrainPolicySpec(name=chosen, max_goals=limit, max_replans_per_goal=int(budgets.max_replans),
                                     max_retries_per_goal=int(budgets.max_retries),
                                     max_no_progress_iterations=int(budgets.max_no_progress),
                                     hard_stop_categories=matcher.categories)
            return run_drain(gf, ctx, policy, matcher, evidence=evidence, force=force, explicit=explicit)

        run, _gf, warnings = self._mutate(step)
        self._emit("drain", None, warnings, run_id=run.id, run_status=run.status)
        return GoalResult("drain", run=run, markdown=run_markdown(run), next=run_hint(run), warnings=warnings)

    def set_config(self, *, drain_mode: str | None = None, default_drain_policy: str | None = None,
                   risk_gate_mode: str | None = None, risk_gate_evidence: str | None = None,
                   dangerous_opt_in: bool | None = None) -> GoalResult:
        names = self._policy_names()
        cfg, _gf, warnings = self._mutate(lambda gf, ctx: apply_config(
            gf, ctx, names, drain_mode=drain_mode, default_drain_policy=default_drain_policy,
            risk_gate_mode=risk_gate_mode, risk_gate_evidence=risk_gate_evidence,
            dangerous_opt_in=dangerous_opt_in))
        self._emit("set_config", None, warnings, config=dump(cfg))
        return GoalResult("set_config", config=cfg, markdown=config_markdown(cfg), next="", warnings=warnings)

    # ------------------------------------------------------------------ queries

    def get_config(self) -> GoalResult:
        gf, warnings = self._read()
        return GoalResult("get_config", config=gf.config, markdown=config_markdown(gf.config), warnings=warnings)

    def get(self, goal_id: str | None = None) -> GoalResult:
        """A goal (default: current) with its summary and the resume hint."""
        gf, warnings = self._read()
        goal = resolve(gf, goal_id)
        return self._goal_result("get", goal, gf, warnings)

    def list(self, status_filter: Any = None, *, include_quarantined: bool = False) -> GoalResult:
        wanted = A.str_list(status_filter, "status_filter")
        for s in wanted or []:
            if s not in STATUSES:
                raise invalid_arg(f"status_filter: {s!r} is not one of {', '.join(STATUSES)}")
        gf, warnings = self._read()
        goals = sorted((g for g in gf.goals.values() if not wanted or g.status in wanted),
                       key=lambda g: (g.created_at, document.id_number(g.id)))
        data: dict[str, Any] = {"current_goal_id": gf.current_goal_id}
        if A.flag(include_quarantined, "include_quarantined"):
            data["quarantined_goals"] = {**gf.quarantined_goals,
                                         **{k: {**v, "pending": True} for k, v in gf.pending_quarantine.items()}}
        hint = "resume the current goal with get current" if goals else "start a goal with analyze"
        md = list_markdown(goals, gf.current_goal_id)
        if data.get("quarantined_goals"):
            md += "\n\n**Quarantined** (repair or drop each one):\n\n" + self.quarantined().markdown
        return GoalResult("list", goals=goals, markdown=md, next=hint,
                          warnings=warnings, data=data)

    def summary(self) -> GoalResult:
        gf, warnings = self._read()
        now_t = clock.now()
        goals = sorted(gf.goals.values(), key=lambda g: (g.created_at, document.id_number(g.id)))
        counts = {s: sum(1 for g in goals if g.status == s) for s in STATUSES}
        try:
            current: Goal | None = resolve(gf, "current")
        except GoalError:
            current = None
        run = latest_run(gf)
        policy_retries = 3
        try:
            policy_retries = int(self.manager.drain_policy(gf.config.default_drain_policy).max_retries)
        except NervousError:
            pass

        def retry_due(g: Goal) -> bool:
            f = g.failure
            if f is None or f.retryability != "retryable" or f.attempts >= f.max_attempts \
                    or f.attempts > policy_retries:
                return False
            t = clock.parse_timestamp(f.next_retry_at) if f.next_retry_at else None
            return t is None or t <= now_t

        attention = {
            "due_revisits": [g.id for g in goals if is_due(g, now_t)],
            "retry_due": [g.id for g in goals if g.status in NON_TERMINAL and retry_due(g)],
            "unclassified_failures": [g.id for g in goals if g.status in NON_TERMINAL and g.failure is not None
                                      and g.failure.retryability == "unknown"],
            "awaiting_human": [g.id for g in goals if g.status in WAITING and g.blocker is not None
                               and g.blocker.awaits_human],
            "quarantined": len(gf.quarantined_goals) + len(gf.pending_quarantine),
        }

        def brief(g: Goal) -> dict[str, str]:
            return {"id": g.id, "status": g.status, "prompt": g.prompt}

        data: dict[str, Any] = {
            "counts": counts,
            "current": brief(current) if current is not None else None,
            "config_line": describe(gf.config),
            "active": [brief(g) for g in goals if g.status in ACTIONABLE],
            "needs_attention": attention,
            "last_drain": {"id": run.id, "status": run.status, "created_at": run.created_at} if run else None,
        }
        hint = next_hint(current, replan_limit=self._replan_limit(gf)) if current else "start a goal with analyze"
        return GoalResult("summary", markdown=summary_markdown(data), next=hint, warnings=warnings,
                          data={"summary": data})

    # ------------------------------------------------------------------ import and dispatch

    def import_file(self, path: str | Path, *, replace: bool = False) -> GoalResult:
        """Import an original NERVous ``cortex.json`` (or a nervous goal file) into this scope."""
        from ...kernel.durable import read_user_file

        p = Path(path)
        try:
            raw = json.loads(read_user_file(p).decode("utf-8"))
        except OSError as exc:
            raise BadInput(f"{p}: cannot read ({exc.strerror or exc})") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise BadInput(f"{p}: not a JSON goal file ({exc})") from None
        if not isinstance(raw, dict):
            raise BadInput(f"{p}: expected a JSON object at the top level, got {type(raw).__name__}")
        source_warnings: list[str] = []
        source = self._load(raw, lambda m: source_warnings.append(f"{p.name}: {m}"), stored=False)

        def step(gf: GoalFile, ctx: Ctx) -> dict[str, int]:
            if gf.goals and not replace:
                raise GoalError("exists", f"goals {self.key} already holds {len(gf.goals)} goal(s); import into an "
                                "empty scope or pass replace=True (--replace)")
            gf.goals = source.goals
            gf.drain_runs = source.drain_runs
            gf.config = source.config
            gf.quarantined_goals = {**source.quarantined_goals}
            gf.pending_quarantine = dict(source.pending_quarantine)
            gf.current_goal_id = source.current_goal_id
            gf.dangling_current = source.dangling_current
            gf.extra = {k: v for k, v in source.extra.items() if k != "meta"} | (
                {"meta": raw["meta"]} if isinstance(raw.get("meta"), dict) else {})
            gf.project = source.project or self.scope.project
            gf.created_at = source.created_at or ctx.now
            return {"goals": len(source.goals), "drain_runs": len(source.drain_runs),
                    "quarantined": len(source.quarantined_goals) + len(source.pending_quarantine)}

        counts, gf, warnings = self._mutate(step)
        warnings = list(dict.fromkeys(source_warnings + warnings))
        self._emit("import", None, warnings, source=str(p), **counts)
        md = (f"Imported {counts['goals']} goal(s), {counts['drain_runs']} drain run(s) and "
              f"{counts['quarantined']} quarantined goal(s) from {p} into {self.key}.")
        return GoalResult("import", markdown=md, next="resume with get current", warnings=warnings,
                          data={"imported": counts})

    # ------------------------------------------------------------------ quarantine, export, reset

    def quarantined(self) -> GoalResult:
        """Every quarantined goal with its reason (repair or drop each one)."""
        from .quarantine import entries, plain

        gf, warnings = self._read()
        found = entries(gf)
        rows = [{"id": gid, "reason": plain(e.get("reason", "unknown reason")),
                 "quarantined_at": e.get("quarantined_at"), "pending": bool(e.get("pending")), "raw": e.get("raw")}
                for gid, e in sorted(found.items(), key=lambda kv: document.id_number(kv[0]))]
        md = "No quarantined goals." if not rows else "\n".join(
            ["| id | reason | since |", "|---|---|---|"]
            + [f"| {plain(r['id'])} | {r['reason']} | {plain(r['quarantined_at'] or 'this load')} |" for r in rows])
        hint = "repair each one (goal quarantine repair ID) or drop it (goal quarantine drop ID)" if rows else ""
        return GoalResult("quarantine_list", markdown=md, next=hint, warnings=warnings, data={"quarantined": rows})

    def repair(self, goal_id: str, goal: Any = None) -> GoalResult:
        """Put a quarantined goal back, from its stored value or a corrected ``goal`` object."""
        from .quarantine import repair

        restored, gf, warnings = self._mutate(lambda gf, ctx: repair(gf, ctx, goal_id=goal_id, goal=goal))
        self._emit("quarantine_repair", restored, warnings)
        return self._goal_result("quarantine_repair", restored, gf, warnings)

    def drop(self, goal_id: str) -> GoalResult:
        """Discard a quarantined goal for good (its id is never reused)."""
        from .quarantine import drop

        info, _gf, warnings = self._mutate(lambda gf, ctx: drop(gf, ctx, goal_id=goal_id))
        self._emit("quarantine_drop", None, warnings, **info)
        return GoalResult("quarantine_drop", markdown=f"Dropped quarantined goal {info['goal_id']} ({info['reason']}).",
                          next="", warnings=warnings, data={"dropped": info})

    def export(self) -> GoalResult:
        """The whole goal document of this scope, in the format ``import`` reads."""
        gf, warnings = self._read()
        doc = gf.to_json()
        doc["quarantined_goals"] = {**doc["quarantined_goals"], **gf.pending_quarantine}
        md = f"{len(gf.goals)} goal(s), {len(gf.drain_runs)} drain run(s) from {self.key}."
        return GoalResult("export", markdown=md, next="", warnings=warnings, data={"document": doc})

    def archives(self) -> GoalResult:
        """The archives ``reset`` made of this scope, oldest first."""
        store = self._archive_store()
        prefix = f"{self.key}@"
        rows = []
        for key in store.keys(ARCHIVES):
            if key.startswith(prefix):
                doc = store.read(ARCHIVES, key).value or {}
                goals = doc.get("goals")
                rows.append({"archive_id": key[len(prefix):], "goals": len(goals) if isinstance(goals, dict) else 0})
        md = "No archives." if not rows else "\n".join(
            ["| archive | goals |", "|---|---|"] + [f"| {r['archive_id']} | {r['goals']} |" for r in rows])
        return GoalResult("archives", markdown=md, next="", warnings=[], data={"archives": rows})

    def archived(self, archive_id: str) -> GoalResult:
        """One archive's document (export it, then ``import --replace`` restores it)."""
        snap = self._archive_store().read(ARCHIVES, f"{self.key}@{archive_id}")
        if not snap.value:
            raise GoalError("not_found", f"no archive {archive_id!r} for {self.key} (see goal archives)")
        return GoalResult("export", markdown=f"archive {archive_id} of {self.key}", next="",
                          warnings=list(snap.warnings), data={"document": snap.value, "archive_id": archive_id})

    def _archive_store(self) -> Store:
        return self.store if self.scope.path is None else self.manager.storage()

    def reset(self) -> GoalResult:
        """Archive this scope's goals, then start empty (settings are kept).

        The archive is written first, from the document as read; the reset then refuses if the
        document changed in between, so nothing is cleared that is not in the archive.
        """
        self._guard()
        snap = self.store.read(COLLECTION, self.key)
        before = snap.value or {}
        stamp = clock.now()
        archive_id = time.strftime("%Y%m%dT%H%M%S", time.gmtime(stamp)) + f"{stamp % 1:.3f}"[1:] + "Z"
        if not before:
            return GoalResult("reset", markdown="There were no goals; nothing to archive.",
                              next="start a goal with analyze", warnings=list(snap.warnings),
                              data={"archive_id": None, "archived": {"goals": 0, "drain_runs": 0, "quarantined": 0}})

        def keep(doc: dict[str, Any]) -> None:
            doc.clear()
            doc.update(before)

        self._archive_store().update(ARCHIVES, f"{self.key}@{archive_id}", keep)
        expected = {k: v for k, v in self._load(before, lambda _m: None, stored=False).to_json().items() if k != "project"}

        def step(gf: GoalFile, ctx: Ctx) -> dict[str, int]:
            if {k: v for k, v in gf.to_json().items() if k != "project"} != expected:
                raise GoalError("storage_busy", f"goals {self.key} changed during the reset; nothing was cleared "
                                f"(archive {archive_id} kept); try again")
            counts = {"goals": len(gf.goals), "drain_runs": len(gf.drain_runs),
                      "quarantined": len(gf.quarantined_goals) + len(gf.pending_quarantine)}
            kept = list(gf.all_goal_keys())
            gf.goals, gf.drain_runs, gf.quarantined_goals, gf.pending_quarantine = {}, {}, {}, {}
            gf.current_goal_id = None
            gf.extra = {k: v for k, v in gf.extra.items() if k == "meta"}
            gf.extra["retired_goal_ids"] = sorted(set(kept), key=document.id_number)  # ids are never reused
            return counts

        counts, _gf, warnings = self._mutate(step)
        self._emit("reset", None, warnings, archive_id=archive_id, **counts)
        md = f"Archived {counts['goals']} goal(s) as {archive_id} and started empty."
        return GoalResult("reset", markdown=md, next="start a goal with analyze", warnings=warnings,
                          data={"archive_id": archive_id, "archived": counts})

    def dispatch(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The single-tool entry point: ``{"action": ..., ...flat args}`` → the JSON envelope."""
        action = str(params.get("action", "")).strip()
        try:
            result = self._dispatch(action, {k: v for k, v in params.items() if k != "action"})
        except NervousError as exc:
            return {"ok": False, "action": action, "code": exc.code, "message": exc.message, "warnings": []}
        return result.to_json()

    def _dispatch(self, action: str, kw: dict[str, Any]) -> GoalResult:
        simple = {"get": ("goal_id",), "complete": ("goal_id",), "set_current": ("goal_id",),
                  "get_config": (), "summary": ()}
        if action in simple:
            A.reject_unknown(kw, set(simple[action]), action)
            return getattr(self, action)(**kw)  # type: ignore[no-any-return]
        if action == "list":
            A.reject_unknown(kw, {"status_filter", "include_quarantined"}, action)
            return self.list(kw.get("status_filter"), include_quarantined=bool(kw.get("include_quarantined")))
        if action == "drain":
            A.reject_unknown(kw, {"policy_name", "max_goals", "evidence", "force", "explicit"}, action)
            return self.drain(**kw)
        if action == "set_config":
            A.reject_unknown(kw, {"drain_mode", "default_drain_policy", "risk_gate_mode", "risk_gate_evidence",
                                  "dangerous_opt_in"}, action)
            return self.set_config(**kw)
        if action in MUTATIONS:
            import inspect

            params = inspect.signature(MUTATIONS[action]).parameters
            if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
                A.reject_unknown(kw, set(params) - {"gf", "ctx", "status"}, action)
            elif action == "escalate":
                A.reject_unknown(kw, {"goal_id", "reason", "evidence", "related_ids", "next_revisit_at",
                                      "unblock_conditions"}, action)
            return self._act(action, **kw)
        actions = sorted({*MUTATIONS, *simple, "list", "drain", "set_config"})
        raise invalid_arg(f"unknown action {action!r}; available: {', '.join(actions)}")
