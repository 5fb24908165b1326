"""The cortex engine: perception, learning, blacklist, pruning and transfer over the storage interface.

Every mutation is one read-merge-write transaction (``store.update``) whose function loads the
latest document, applies the change, prunes, and returns a result; a stale copy is never written
back (spec §9.1). Reads are lock-free. Every result carries ``warnings``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import BadInput, NotFound, StorageBusy, StorageError, UsageError
from ...kernel import clock
from ...kernel.cortex.matching import MatcherMemory
from ...kernel.cortex.outcomes import FAILURE_OUTCOMES, SUCCESS
from ...kernel.lazy import lazy_names
from ...kernel.messages import AppendOnce
from . import lessons, memory
from .entities import (
    TaskText,
    check_task_text,
    extract_signals,
    filter_words,
    propose_region_name,
    sanitise_detail,
)
from .results import Perception

if TYPE_CHECKING:
    import random

    from ...kernel.cortex.policy import CandidateView
    from ...kernel.manager import PluginManager
    from .outcome import OutcomeResult

# Loaded by the methods that use them, not here: ``perceive`` on a miss needs none of the ranking
# records, weight formulas, pruning, import/export or the outcome record (start-up of ``perceive``).

R = TypeVar("R")
OUTCOMES = (SUCCESS, *sorted(FAILURE_OUTCOMES))
#: a region name (a pattern: ``re`` compiles it when a command names a region; ``perceive`` does not)
_REGION_RE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_BUSY_RETRIES = 3


def _revision() -> str:
    """A fresh document revision; ``uuid`` (and the ``platform`` module it loads) is imported only by writes."""
    import uuid

    return uuid.uuid4().hex


def _deepcopy(value: Any) -> Any:
    import copy

    return copy.deepcopy(value)


def check_region_name(region: Any) -> str:
    if not isinstance(region, str) or not re.match(_REGION_RE, region):
        raise UsageError(f"invalid region name {region!r}: expected letters, digits, '.', '_' or '-' "
                         "(at most 64, kebab-case recommended, e.g. task-management)")
    return region


def check_slug(slug: Any) -> str:
    if not isinstance(slug, str) or not slug.strip() or len(slug) > 300 or any(c.isspace() for c in slug):
        raise UsageError(f"invalid skill identifier {slug!r}: expected a slug, @owner/slug or owner/repo[/path]")
    return slug


def blacklist_keys(source: str, slug: str, owner: str | None) -> tuple[str, ...]:
    """Spec §3.6, the entries that blacklist a skill: its exact slug; for ClawHub also the bare slug
    (which matches every ``@owner/<slug>``) and ``@owner/<slug>``."""
    if source != "clawhub":
        return (slug,)
    bare = slug.split("/", 1)[1] if slug.startswith("@") and "/" in slug else slug
    return (slug, bare) if owner is None else (slug, bare, f"@{owner}/{bare}")


def blacklist_matches(entry: str, source: str, slug: str, owner: str | None) -> bool:
    """Spec §3.6: exact slug; a bare ClawHub entry also matches every ``@owner/<slug>``."""
    return entry in blacklist_keys(source, slug, owner)


def is_blacklisted(entries: AbstractSet[str], source: str, slug: str, owner: str | None) -> bool:
    """Whether any of ``entries`` blacklists the skill: a few set lookups, whatever the list's length."""
    return any(key in entries for key in blacklist_keys(source, slug, owner))


#: the document (beside the memory) listing digests of imported files
IMPORTS_KEY = "imports"


class _Tx:
    """Per-attempt scratch space of a transaction function (it may run more than once)."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.today = memory.today_of(now)
        self.warnings: list[str] = []
        self.warn = AppendOnce(self.warnings)


class Cortex:
    """The skill cortex over one store (default: the configured storage backend)."""

    def __init__(self, manager: PluginManager, store: Any | None = None) -> None:
        self.manager = manager
        self.cfg = manager.config.cortex
        self._store = store
        self._matcher_memory: MatcherMemory | None = None

    # ------------------------------------------------------------------ plumbing

    @property
    def store(self) -> Any:
        if self._store is None:
            self._store = self.manager.storage()
        return self._store

    def policy(self) -> Any:
        return self.manager.ranking_policy()

    def matcher(self) -> Any:
        return self.manager.matcher()

    def _now(self, now: float | None) -> float:
        return clock.now() if now is None else now

    def _read(self) -> tuple[dict[str, Any], list[str], bool]:
        """The latest document, its warnings, and whether it needed recovery (degrade to search)."""
        try:
            snap = self.store.read(memory.COLLECTION, memory.KEY)
        except StorageBusy:
            raise
        except (StorageError, BadInput) as exc:
            if exc.code == "unsupported_version":
                raise
            return {}, [f"cortex memory unreadable ({exc.message}); perception degrades to search"], True
        warnings = list(dict.fromkeys(snap.warnings))
        doc = snap.value if isinstance(snap.value, dict) else {}
        memory.check_version(doc)
        return doc, warnings, bool(warnings)

    def _transaction(self, fn: Callable[[dict[str, Any], _Tx], R], *, now: float | None = None,
                     prune: bool = True, protected: Callable[[], tuple[str, str] | None] | None = None,
                     stamp: bool = True, pruned: list[str] | None = None) -> tuple[R, list[str]]:
        """Run ``fn`` on the latest document inside one storage transaction, then prune and stamp."""
        moment = self._now(now)
        scratch: list[_Tx] = []

        def apply(doc: dict[str, Any]) -> R:
            tx = _Tx(moment)
            scratch[:] = [tx]
            memory.check_version(doc)
            self._quarantine_malformed(doc, tx)
            result = fn(doc, tx)
            if prune:
                removed = self._prune(doc, tx, protected() if protected else None)
                if pruned is not None:
                    pruned[:] = removed  # what this (last) attempt removed, for the caller
            if stamp:
                memory.ensure_v1(doc)
                doc.setdefault("ext_version", 1)
                doc["revision"] = _revision()
            return result

        for attempt in range(_BUSY_RETRIES + 1):
            try:
                updated = self.store.update(memory.COLLECTION, memory.KEY, apply)
                break
            except StorageBusy:
                if attempt == _BUSY_RETRIES:
                    raise
                import random

                time.sleep(random.uniform(0.1, 0.3))
        warnings = list(dict.fromkeys([*updated.warnings, *(scratch[0].warnings if scratch else [])]))
        return updated.result, warnings

    def _quarantine_malformed(self, doc: dict[str, Any], tx: _Tx) -> None:
        """Move malformed candidates to ``quarantine`` at the first mutation after they were found (§3.8)."""
        for name, region in list(memory.motor(doc).items()):
            if not isinstance(region, dict):
                memory.ext(doc, "quarantine", list).append(
                    {"path": f"cortex.motor.{name}", "value": region, "reason": "region is not an object",
                     "at": clock.utc_timestamp(tx.now)})
                del doc["cortex"]["motor"][name]
                tx.warn(f"cortex.motor.{name}: not an object; moved to quarantine")
                continue
            cands = region.get("candidates")
            if cands is None:
                continue
            if not isinstance(cands, list):
                memory.ext(doc, "quarantine", list).append(
                    {"path": f"cortex.motor.{name}.candidates", "value": cands,
                     "reason": "candidates is not a list", "at": clock.utc_timestamp(tx.now)})
                region["candidates"] = []
                continue
            bad = [c for c in cands if not memory.is_valid_candidate(c)]
            for i, c in enumerate(cands):
                if not memory.is_valid_candidate(c):
                    memory.ext(doc, "quarantine", list).append(
                        {"path": f"cortex.motor.{name}.candidates[{i}]", "value": c,
                         "reason": "candidate without a string slug", "at": clock.utc_timestamp(tx.now)})
                    tx.warn(f"cortex.motor.{name}.candidates[{i}]: no string slug; moved to quarantine")
            if bad:
                region["candidates"] = [c for c in cands if memory.is_valid_candidate(c)]
            for i, raw in enumerate(region["candidates"]):
                cand = memory.Candidate(raw, region, tx.today, f"cortex.motor.{name}.candidates[{i}]", tx.warn)
                self._coerce(cand)

    @staticmethod
    def _coerce(cand: memory.Candidate) -> None:
        """Write back coerced values of a candidate read with warnings (§3.5: coercion may change values)."""
        weight = cand.weight
        if cand.raw.get("weight") != weight:
            cand.raw["weight"] = weight
        runs = cand.raw.get("runs")
        if isinstance(runs, dict):
            for key in ("success", "fail", "recent_successes_7d", "consecutive_successes"):
                if key in runs:
                    value = memory.as_count(runs[key], key, lambda _m: None)
                    if runs[key] != value:
                        runs[key] = value

    def _prune(self, doc: dict[str, Any], tx: _Tx, protected: tuple[str, str] | None) -> list[str]:
        blacklist = set(memory.blacklist(doc))
        state = self._matcher_state(doc, create=False)
        matcher = self.matcher()

        def forget(region: str) -> None:
            if state is not None and hasattr(matcher, "forget"):
                matcher.forget(state, region)

        def listed(source: str, slug: str) -> bool:
            return is_blacklisted(blacklist, source, slug, None)

        from . import pruning

        return pruning.prune(doc, self.cfg, tx.today, protected=protected, is_blacklisted=listed,
                             forget_matcher_region=forget)

    def _matcher_state(self, doc: dict[str, Any], *, create: bool) -> dict[str, Any] | None:
        name = getattr(self.matcher(), "name", self.cfg.matcher)
        states = doc.get("matcher_state")
        if not isinstance(states, dict):
            if not create:
                return None
            states = memory.ext(doc, "matcher_state")
        state = states.get(name)
        if not isinstance(state, dict):
            if not create:
                return None
            state = states[name] = {}
        return state

    # ------------------------------------------------------------------ views and ranking

    def _views(self, doc: dict[str, Any], region_name: str, now: float, warn: Callable[[str], None],
               policy_name: str) -> list[tuple[CandidateView, memory.Candidate]]:
        region = memory.motor(doc).get(region_name)
        if not isinstance(region, dict):
            return []
        today = memory.today_of(now)
        blacklist = set(memory.blacklist(doc))
        out = []
        for i, raw in enumerate(memory.region_candidates(region)):
            path = f"cortex.motor.{region_name}.candidates[{i}]"
            if not memory.is_valid_candidate(raw):
                warn(f"{path}: no string slug; excluded (quarantined at the next change)")
                continue
            cand = memory.Candidate(raw, region, today, path, warn)
            owner = raw.get("owner") if isinstance(raw.get("owner"), str) else None
            if is_blacklisted(blacklist, cand.source, cand.slug, owner):
                continue
            out.append((self._view(cand, today, policy_name), cand))
        return out

    def _view(self, cand: memory.Candidate, today: Any, policy_name: str) -> CandidateView:
        from ...kernel.cortex.policy import CandidateView
        from .formulas import effective_weight

        last_used = cand.last_used
        return CandidateView(
            identity=cand.identity, slug=cand.slug, source=cand.source, version=cand.version,
            fingerprint=cand.fingerprint, weight=cand.weight,
            effective_weight=effective_weight(cand.weight, last_used, today, self.cfg),
            successes=cand.successes, failures=cand.failures, runs_total=cand.successes + cand.failures,
            consecutive_successes=cand.consecutive, last_used=memory.date_epoch(last_used),
            reflex=cand.reflex, tags=cand.tags, policy_state=cand.policy_state(policy_name))

    def _rank(self, doc: dict[str, Any], region: str, now: float, rng: random.Random | None,
              warn: Callable[[str], None]) -> list[tuple[CandidateView, memory.Candidate]]:
        policy = self.policy()
        pairs = self._views(doc, region, now, warn, policy.name)
        by_id = {v.identity: (v, c) for v, c in pairs}
        if rng is None:
            import random

            rng = random.Random(f"{region}|{int(now)}")
        ranked = [by_id[v.identity] for v in policy.rank(region, [v for v, _ in pairs], now, rng)
                  if v.identity in by_id]
        warned = lessons.warned_slugs(doc, self.cfg)
        return [p for p in ranked if p[0].slug not in warned] + [p for p in ranked if p[0].slug in warned]

    def _fast_path_blockers(self, region: str, ranked: Sequence[tuple[CandidateView, memory.Candidate]]) -> list[str]:
        """The local fast-path conditions of the first-ranked candidate, then the policy's veto."""
        from . import formulas

        top_view, top = ranked[0]
        policy = self.policy()
        reasons = formulas.fast_path_reasons(top, top_view.effective_weight, self.cfg,
                                             seed_evidence=not getattr(policy, "reflex_rule", False))
        if reasons:
            return reasons
        # optional hook: a policy may withhold the fast path (e.g. when the runner-up is too close),
        # or, with ``reflex_rule``, decide it on its own evidence in place of the seed's gates
        veto = getattr(policy, "reflex_allowed", None)
        if veto is not None:
            allowed, why = veto(region, [v for v, _ in ranked])
            if not allowed:
                return [f"ranking policy withholds reflex: {why}"]
        return []

    def fast_path_check(self, region: str, ranked: Sequence[CandidateView], *,
                        now: float | None = None) -> list[str]:
        """Why the first of ``ranked`` (an order from :meth:`rank_region`) may not take the fast path.

        Empty means every locally checkable condition holds (§4.2.5) and the active policy allows
        reflex; the registry checks (latest version, fingerprint, scan status) remain the caller's.
        """
        if not ranked:
            return ["no candidate"]
        doc, _warnings, _degraded = self._read()
        moment = self._now(now)
        policy_name = self.policy().name
        pairs = {v.identity: (v, c) for v, c in self._views(doc, region, moment, lambda _m: None, policy_name)}
        if ranked[0].identity not in pairs:
            return [f"{ranked[0].identity} is not a candidate of region {region!r}"]
        return self._fast_path_blockers(region, [pairs[v.identity] for v in ranked if v.identity in pairs])

    def rank_region(self, region: str, *, now: float | None = None,
                    rng: random.Random | None = None) -> list[CandidateView]:
        """The region's eligible candidates in the active policy's order (blacklisted removed)."""
        doc, _warnings, _degraded = self._read()
        return [v for v, _ in self._rank(doc, region, self._now(now), rng, lambda _m: None)]

    # ------------------------------------------------------------------ perception

    def matcher_memory(self, doc: dict[str, Any]) -> MatcherMemory:
        """What the matcher sees; rebuilt only when the document's revision changed."""
        revision = doc.get("revision") if isinstance(doc.get("revision"), str) else None
        cached = self._matcher_memory
        if revision is not None and cached is not None and cached.revision == revision:
            return cached
        motor = memory.motor(doc)
        signals: dict[str, list[str]] = {name: [] for name, r in motor.items() if isinstance(r, dict)}
        for pattern in memory.patterns(doc):
            if isinstance(pattern, dict) and pattern.get("region") in signals:
                signals[pattern["region"]].extend(s for s in pattern.get("signal") or [] if isinstance(s, str))
        last_used = {name: str(r.get("last_used", "")) for name, r in motor.items() if isinstance(r, dict)}
        state = self._matcher_state(doc, create=False) or {}
        built = MatcherMemory({k: tuple(v) for k, v in signals.items()}, last_used, state, revision)
        self._matcher_memory = built
        return built

    def perceive(self, task: str, *, now: float | None = None, rng: random.Random | None = None) -> Perception:
        """Phase 1: route a task to a learned region (hit) or to a miss (search)."""
        if not isinstance(task, str) or not task.strip():
            raise UsageError("perceive needs a non-empty task description")
        check_task_text(task)
        moment = self._now(now)
        doc, warnings, degraded = self._read()
        keywords: tuple[str, ...] = ()
        proposal: str | None = None
        if degraded:
            keywords = extract_signals(task, 5)
            proposal = propose_region_name(keywords)
            return Perception(False, None, 0.0, keywords=keywords, proposed_region=proposal, degraded=True,
                              warnings=tuple(warnings))
        warn = AppendOnce(warnings)

        matches = tuple(self.matcher().match(task, self.matcher_memory(doc), 3))
        if not matches:
            keywords = extract_signals(task, 5)
            proposal = propose_region_name(keywords)
            return Perception(False, None, 0.0, keywords=keywords, proposed_region=proposal,
                              warnings=tuple(warnings))
        region, score = matches[0]
        ranked = self._rank(doc, region, moment, rng, warn)
        if not ranked:
            keywords = extract_signals(task, 5)
            proposal = propose_region_name(keywords)
            return Perception(False, region, score, matches, keywords=keywords, proposed_region=proposal,
                              warnings=tuple(warnings))
        top_view, _top = ranked[0]
        reasons = self._fast_path_blockers(region, ranked)
        reflex = not reasons
        if reflex:
            reasons = ["all local conditions hold; the registry version, fingerprint and scan status must "
                       "still be checked before installing"]
        relevant = lessons.relevant(doc, region, [v.slug for v, _ in ranked], self.cfg)
        warn.extend(lessons.unknown_type_warnings(doc))
        return Perception(True, region, score, matches, tuple(v for v, _ in ranked), reflex,
                          top_view.identity, tuple(reasons), tuple(relevant), keywords, proposal,
                          warnings=tuple(warnings))

    # ------------------------------------------------------------------ learning

    def record_outcome(
        self,
        region: str,
        slug: str,
        outcome: str,
        *,
        source: str = "clawhub",
        version: str | None = None,
        fingerprint: str | None = None,
        tags: Sequence[str] | None = None,
        skill_md_chars: int | None = None,
        task: str | None = None,
        detail: str | None = None,
        owner: str | None = None,
        scan_decision: str | None = None,
        deps_missing: Iterable[str] = (),
        env_present: Iterable[str] = (),
        env_missing: Iterable[str] = (),
        description_misleading: bool = False,
        now: float | None = None,
    ) -> OutcomeResult:
        """Phase 4 for one attempt, in one transaction (spec §4.3.4).

        ``tags`` are the side effects classified for ``fingerprint`` (``None`` keeps the stored ones);
        reflex needs them, the fingerprint and ``scan_decision="allow"``. ``task`` is used only for
        entity-filtered signals after a successful search-solved task; it is never stored.
        """
        check_region_name(region)
        check_slug(slug)
        if outcome not in OUTCOMES:
            raise UsageError(f"unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
        if not isinstance(source, str) or not source:
            raise UsageError("source must be a registry name such as clawhub, github or local")
        if skill_md_chars is not None and (isinstance(skill_md_chars, bool) or not isinstance(skill_md_chars, int)
                                           or skill_md_chars < 0):
            raise UsageError(f"skill_md_chars must be a non-negative integer, got {skill_md_chars!r}")
        # everything derived from the raw task text happens here, outside the stored document
        signals: tuple[str, ...] = ()
        observed: tuple[str, ...] = ()
        if isinstance(task, str):
            check_task_text(task)
        if isinstance(detail, str):
            check_task_text(detail, "detail")
        if task and outcome == SUCCESS:
            text = TaskText(task)
            proposed = [t.text for t in text.plain]
            signals = filter_words(proposed, text, cap=self.cfg.signals_per_task).kept
            observed = filter_words(proposed, text, cap=None).kept
        clean_detail = sanitise_detail(detail or "")
        missing_deps = [str(d) for d in deps_missing]
        env_present, env_missing = [str(k) for k in env_present], [str(k) for k in env_missing]
        tag_list = None if tags is None else list(dict.fromkeys(str(t) for t in tags))
        from . import formulas, pruning
        from .outcome import OutcomeResult

        policy = self.policy()
        own_rule = bool(getattr(policy, "reflex_rule", False))
        matcher = self.matcher()
        identity = f"{source}:{slug}"

        def apply(doc: dict[str, Any], tx: _Tx) -> OutcomeResult:
            memory.ensure_v1(doc)
            motor = doc["cortex"]["motor"]
            reg = motor.get(region)
            if not isinstance(reg, dict):
                reg = motor[region] = {"candidates": [], "last_used": tx.today.isoformat()}
            cands = reg.setdefault("candidates", [])
            raw = next((c for c in cands if memory.is_valid_candidate(c)
                        and memory.Candidate(c, reg, tx.today, "", tx.warn).identity == identity), None)
            if raw is None:
                raw = memory.new_candidate(slug, source, self.cfg.initial_weight)
                cands.append(raw)
            path = f"cortex.motor.{region}.candidates[{cands.index(raw)}]"
            cand = memory.Candidate(raw, reg, tx.today, path, tx.warn)
            changed = ((version is not None and cand.version not in (None, "", version))
                       or (fingerprint is not None and cand.fingerprint not in (None, fingerprint)))
            if changed:
                cand.set("reflex", False)
                cand.set_runs(consecutive_successes=0)
                new_state = policy.on_version_change(self._view(cand, tx.today, policy.name))
                cand.set_policy_state(policy.name, new_state)
            for name, value in (("version", version), ("fingerprint", fingerprint), ("owner", owner),
                                ("skill_md_chars", skill_md_chars)):
                if value is not None:
                    cand.set(name, value)
            if tag_list is not None:
                cand.set("side_effects", tag_list)
                if fingerprint is not None:
                    cand.set("side_effects_for", fingerprint)
            if scan_decision is not None:
                cand.set("scan_decision", scan_decision)
            if outcome == SUCCESS:
                formulas.apply_success(cand, tx.now, self.cfg)
            else:
                formulas.apply_failure(cand, outcome, clean_detail, tx.now, self.cfg)
            cand.set("last_used", tx.today.isoformat())
            reg["last_used"] = tx.today.isoformat()
            blacklisted = is_blacklisted(set(memory.blacklist(doc)), source, slug, owner)
            blockers = formulas.promotion_blockers(cand, blacklisted, self.cfg, seed_evidence=not own_rule)
            if not own_rule:
                if outcome == SUCCESS:
                    cand.set("reflex", not blockers)
                elif blockers and cand.reflex:
                    cand.set("reflex", False)
            # the active policy's state, after the seed update
            region_pairs = self._region_pairs(reg, tx.today, tx.warn, policy.name)
            views = [v for v, _ in region_pairs]
            used = next(v for v in views if v.identity == identity)
            states = policy.on_outcome(region, views, used, outcome, tx.now) or {}
            for view, other in region_pairs:
                if view.identity in states:
                    other.set_policy_state(policy.name, states[view.identity])
            if own_rule:
                blockers += self._reflex_by_rule(policy, region, reg, tx, identity, outcome == SUCCESS and not blockers)
            # sensory
            added: list[str] = []
            if outcome == SUCCESS and signals:
                added = pruning.merge_signals(doc, region, list(signals), self.cfg.max_signals_per_pattern)
            if outcome == SUCCESS and observed and hasattr(matcher, "observe"):
                state = self._matcher_state(doc, create=True)
                assert state is not None
                matcher.observe(state, region, list(observed))
            # prefrontal
            events: list[str] = []
            if missing_deps:
                events += lessons.dependency_missing(doc, region, missing_deps, self.cfg, tx.today)
            events += lessons.environment(doc, region, env_present, env_missing, self.cfg, tx.today)
            if outcome == "task_mismatch" and description_misleading:
                events += lessons.quality_event(doc, region, slug, clean_detail, self.cfg, tx.today)
            if outcome == SUCCESS:
                events += lessons.quality_success(doc, region, slug, self.cfg, tx.today)
            effective = formulas.effective_weight(cand.weight, cand.last_used, tx.today, self.cfg)
            return OutcomeResult(
                region, slug, source, outcome, cand.weight, effective, cand.reflex, cand.successes,
                cand.failures, cand.consecutive,
                outcome == SUCCESS and formulas.retention_suggested(cand, self.cfg), tuple(blockers),
                tuple(added), tuple(events))

        removed: list[str] = []
        result, warnings = self._transaction(apply, now=now, protected=lambda: (region, identity), pruned=removed)
        return OutcomeResult(**{**_fields(result), "pruned": tuple(removed), "warnings": tuple(warnings)})

    def _region_pairs(self, reg: dict[str, Any], today: Any, warn: Callable[[str], None],
                      policy_name: str) -> list[tuple[CandidateView, memory.Candidate]]:
        out = []
        for raw in reg["candidates"]:
            if memory.is_valid_candidate(raw):
                cand = memory.Candidate(raw, reg, today, "", warn)
                out.append((self._view(cand, today, policy_name), cand))
        return out

    def _reflex_by_rule(self, policy: Any, region: str, reg: dict[str, Any], tx: _Tx, identity: str,
                        may_promote: bool) -> list[str]:
        """Promotion and demotion on the policy's own evidence rule, after its state is updated.

        The used candidate is promoted when ``may_promote`` (a success with every content condition
        held) and the rule holds with it first; any reflex candidate of the region whose rule no
        longer holds, given the evidence this outcome added, is demoted. Returns the used
        candidate's blockers from the rule.
        """
        pairs = self._region_pairs(reg, tx.today, tx.warn, policy.name)
        views = [v for v, _ in pairs]
        why_used: list[str] = []
        for view, cand in pairs:
            if view.identity != identity and not cand.reflex:
                continue
            allowed, why = policy.reflex_allowed(region, [view, *(v for v in views if v.identity != view.identity)])
            if view.identity == identity:
                if not allowed:
                    why_used.append(f"ranking policy rule: {why}")
                if may_promote and allowed:
                    cand.set("reflex", True)
                elif cand.reflex:
                    cand.set("reflex", False)
            elif not allowed:
                cand.set("reflex", False)
        return why_used

    def record_dependency_check(self, region: str, key: str, present: bool, *,
                                now: float | None = None) -> dict[str, Any]:
        """A Phase 3 pre-check of a ``dependency_warning``: present contradicts, missing validates."""
        check_region_name(region)

        def apply(doc: dict[str, Any], tx: _Tx) -> list[str]:
            if present:
                return lessons.dependency_present(doc, region, key, self.cfg, tx.today)
            return lessons.dependency_missing(doc, region, [key], self.cfg, tx.today)

        events, warnings = self._transaction(apply, now=now)
        return {"events": events, "warnings": warnings}

    def bump_stats(self, *, now: float | None = None, **increments: int) -> dict[str, Any]:
        """Add to the v1 ``stats`` counters (searches, installs, cache_hits, reflexes_fired)."""
        for key, value in increments.items():
            if key not in memory.STATS_KEYS or isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UsageError(f"stats: unknown counter {key!r} or bad increment {value!r}; counters: "
                                 f"{', '.join(memory.STATS_KEYS)}")

        def apply(doc: dict[str, Any], tx: _Tx) -> dict[str, Any]:
            memory.ensure_v1(doc)
            for key, value in increments.items():
                current = doc["stats"].get(key, 0)
                doc["stats"][key] = (current if isinstance(current, int) else 0) + value
            return dict(doc["stats"])

        stats, warnings = self._transaction(apply, now=now, prune=False)
        return {"stats": stats, "warnings": warnings}

    # ------------------------------------------------------------------ cold start

    def describe_region(self, region: str, text: str, *, now: float | None = None) -> dict[str, Any]:
        """Teach the matcher an existing region's description (entity-filtered words only)."""
        check_region_name(region)
        words = extract_signals(text, None)

        def apply(doc: dict[str, Any], tx: _Tx) -> list[str]:
            if not isinstance(memory.motor(doc).get(region), dict):
                raise NotFound(f"no region {region!r} in the cortex; learn it first (nervous report)")
            matcher = self.matcher()
            # a matcher may weigh a description apart from a solved task (``describe``)
            learn = getattr(matcher, "describe", None) or getattr(matcher, "observe", None)
            if words and learn is not None:
                state = self._matcher_state(doc, create=True)
                assert state is not None
                learn(state, region, list(words))
            return list(words)

        kept, warnings = self._transaction(apply, now=now, prune=False)
        return {"region": region, "words": kept, "warnings": warnings}

    # ------------------------------------------------------------------ blacklist

    def blacklist_add(self, identifier: str, reason: str | None = None, *, source: str = "user",
                      evidence: str | None = None, now: float | None = None) -> dict[str, Any]:
        check_slug(identifier)
        if source not in ("user", "registry"):
            raise UsageError(f"blacklist source must be user or registry, got {source!r}")

        def apply(doc: dict[str, Any], tx: _Tx) -> dict[str, Any]:
            memory.ensure_v1(doc)
            added = identifier not in doc["blacklist"]
            if added:
                doc["blacklist"].append(identifier)
                info = memory.ext(doc, "blacklist_info")
                info[identifier] = {"source": source, "reason": sanitise_detail(reason or ""),
                                    "added_at": clock.utc_timestamp(tx.now), "evidence": evidence or ""}
            demoted = []
            for name, reg in memory.motor(doc).items():
                for raw in memory.region_candidates(reg):
                    if not memory.is_valid_candidate(raw):
                        continue
                    cand = memory.Candidate(raw, reg, tx.today, "", tx.warn)
                    owner = raw.get("owner") if isinstance(raw.get("owner"), str) else None
                    if blacklist_matches(identifier, cand.source, cand.slug, owner) and cand.reflex:
                        cand.set("reflex", False)
                        demoted.append(f"{name}/{cand.slug}")
            return {"identifier": identifier, "added": added, "reflex_demoted": demoted}

        result, warnings = self._transaction(apply, now=now)
        return {**result, "warnings": warnings}

    def blacklist_remove(self, identifier: str, *, now: float | None = None) -> dict[str, Any]:
        check_slug(identifier)

        def apply(doc: dict[str, Any], tx: _Tx) -> bool:
            entries = memory.blacklist(doc)
            if identifier not in entries:
                raise NotFound(f"{identifier!r} is not blacklisted")
            doc["blacklist"] = [e for e in doc["blacklist"] if e != identifier]
            info = doc.get("blacklist_info")
            if isinstance(info, dict):
                info.pop(identifier, None)
            return True

        _done, warnings = self._transaction(apply, now=now)
        return {"identifier": identifier, "removed": True, "warnings": warnings}

    def blacklist_list(self) -> dict[str, Any]:
        doc, warnings, _degraded = self._read()
        stored = doc.get("blacklist_info")
        info: dict[str, Any] = stored if isinstance(stored, dict) else {}
        entries = []
        for e in memory.blacklist(doc):
            extra = info.get(e)
            entries.append({"identifier": e, **(extra if isinstance(extra, dict) else {})})
        return {"blacklist": entries, "warnings": warnings}

    # ------------------------------------------------------------------ administration

    def forget(self, region: str, *, now: float | None = None) -> dict[str, Any]:
        """Remove a region with its patterns, lessons, counters and matcher words."""
        check_region_name(region)

        def apply(doc: dict[str, Any], tx: _Tx) -> int:
            motor = memory.motor(doc)
            if region not in motor:
                raise NotFound(f"no region {region!r} in the cortex")
            count = len(memory.region_candidates(motor[region]))
            del motor[region]
            return count

        removed, warnings = self._transaction(apply, now=now)
        return {"region": region, "candidates_removed": removed, "warnings": warnings}

    def retire(self, region: str, slug: str, *, source: str = "clawhub", now: float | None = None) -> dict[str, Any]:
        """Remove a candidate from motor: it was kept as a long-term skill and leaves our management (§4.3.4)."""
        check_region_name(region)
        check_slug(slug)
        identity = f"{source}:{slug}"

        def apply(doc: dict[str, Any], tx: _Tx) -> bool:
            reg = memory.motor(doc).get(region)
            if not isinstance(reg, dict):
                return False
            cands = memory.region_candidates(reg)
            kept = [c for c in cands if not (memory.is_valid_candidate(c) and
                                             memory.Candidate(c, reg, tx.today, "", tx.warn).identity == identity)]
            reg["candidates"] = kept
            return len(kept) != len(cands)

        removed, warnings = self._transaction(apply, now=now)
        return {"region": region, "slug": slug, "source": source, "removed": removed, "warnings": warnings}

    def quarantine_list(self, *, now: float | None = None) -> dict[str, Any]:
        """Malformed entries set aside (§3.2), and those found now that the next change sets aside."""
        doc, warnings, _degraded = self._read()
        stored = doc.get("quarantine")
        stored = stored if isinstance(stored, list) else []
        probe = _deepcopy(doc)
        self._quarantine_malformed(probe, _Tx(self._now(now)))
        raw_found = probe.get("quarantine")
        found: list[Any] = raw_found if isinstance(raw_found, list) else []
        entries = [{**e, "pending": False} if isinstance(e, dict) else {"value": e, "pending": False} for e in stored]
        entries += [{**e, "pending": True} for e in found[len(stored):]]
        return {"quarantine": entries, "warnings": warnings}

    def quarantine_clear(self, *, now: float | None = None) -> dict[str, Any]:
        """Discard every quarantined entry (after a person has looked at them)."""

        def apply(doc: dict[str, Any], tx: _Tx) -> int:
            entries = doc.get("quarantine")
            count = len(entries) if isinstance(entries, list) else 0
            if "quarantine" in doc:
                doc["quarantine"] = []
            return count

        cleared, warnings = self._transaction(apply, now=now)
        return {"cleared": cleared, "warnings": warnings}

    def prune(self, *, now: float | None = None) -> dict[str, Any]:
        removed_box: list[str] = []

        def apply(doc: dict[str, Any], tx: _Tx) -> list[str]:
            removed = self._prune(doc, tx, None)
            removed_box[:] = removed
            return removed

        removed, warnings = self._transaction(apply, now=now, prune=False)
        return {"removed": removed, "warnings": warnings}

    def _all_candidates(self, doc: dict[str, Any], now: float,
                        warn: Callable[[str], None]) -> list[tuple[str, CandidateView, memory.Candidate]]:
        out = []
        today = memory.today_of(now)
        policy_name = self.cfg.ranking_policy
        for name, reg in memory.motor(doc).items():
            if not isinstance(reg, dict):
                warn(f"cortex.motor.{name}: not an object; ignored")
                continue
            for i, raw in enumerate(memory.region_candidates(reg)):
                path = f"cortex.motor.{name}.candidates[{i}]"
                if not memory.is_valid_candidate(raw):
                    warn(f"{path}: no string slug; excluded (quarantined at the next change)")
                    continue
                cand = memory.Candidate(raw, reg, today, path, warn)
                out.append((name, self._view(cand, today, policy_name), cand))
        return out

    def show(self, *, now: float | None = None) -> dict[str, Any]:
        """A readable summary: regions, candidates with effective weights, signals, lessons."""
        moment = self._now(now)
        doc, warnings, degraded = self._read()
        warn = AppendOnce(warnings)

        blacklist = memory.blacklist(doc)
        listed = set(blacklist)
        regions: dict[str, Any] = {}
        mem = self.matcher_memory(doc)
        for name, view, cand in self._all_candidates(doc, moment, warn):
            entry = regions.setdefault(name, {"last_used": str(memory.motor(doc)[name].get("last_used", "")),
                                              "signals": list(mem.signals.get(name, ())), "candidates": []})
            owner = cand.raw.get("owner") if isinstance(cand.raw.get("owner"), str) else None
            entry["candidates"].append({
                "slug": view.slug, "source": view.source, "version": view.version,
                "weight": round(view.weight, 6), "effective_weight": round(view.effective_weight, 6),
                "successes": view.successes, "failures": view.failures,
                "consecutive_successes": view.consecutive_successes, "reflex": view.reflex,
                "last_used": cand.last_used.isoformat(), "side_effects": list(view.tags),
                "blacklisted": is_blacklisted(listed, view.source, view.slug, owner)})
        warn.extend(lessons.unknown_type_warnings(doc))
        return {"regions": regions, "lessons": [dict(x) for x in memory.lessons(doc) if isinstance(x, dict)],
                "blacklist": blacklist, "stats": dict(memory.stats(doc)), "degraded": degraded,
                "warnings": warnings}

    def stats(self, *, now: float | None = None) -> dict[str, Any]:
        moment = self._now(now)
        doc, warnings, degraded = self._read()
        warn = AppendOnce(warnings)

        rows = self._all_candidates(doc, moment, warn)
        signals = sum(len(p.get("signal") or []) for p in memory.patterns(doc) if isinstance(p, dict))
        return {
            "regions": len(memory.motor(doc)),
            "candidates": len(rows),
            "reflex_candidates": sum(1 for _n, v, _c in rows if v.reflex),
            "patterns": len(memory.patterns(doc)),
            "signals": signals,
            "lessons": len(memory.lessons(doc)),
            "blacklist": len(memory.blacklist(doc)),
            "stats": {k: memory.stats(doc).get(k, 0) for k in memory.STATS_KEYS},
            "limits": {"regions": self.cfg.max_regions, "candidates_per_region": self.cfg.max_candidates_per_region,
                       "signals_per_pattern": self.cfg.max_signals_per_pattern, "lessons": self.cfg.max_lessons},
            "store": getattr(self.store, "name", "?"),
            "degraded": degraded,
            "warnings": warnings,
        }

    # ------------------------------------------------------------------ transfer

    def import_v1(self, path_or_doc: str | Path | dict[str, Any], *, now: float | None = None) -> dict[str, Any]:
        """Import an original ``cortex.json``: copied unchanged into an empty store, else merged (§9.2)."""
        from . import transfer

        incoming = (_deepcopy(path_or_doc) if isinstance(path_or_doc, dict)
                    else transfer.load_file(path_or_doc))
        memory.check_version(incoming)
        if not incoming:
            raise BadInput("the imported document is empty")
        shape = memory.shape_problem(incoming)
        if shape is not None:
            raise BadInput(f"the imported document has the wrong shape: {shape}; nothing was imported",
                           code="bad_input")
        digest = transfer.document_digest(incoming)
        # which documents were imported is kept beside the memory, so a copied import stays lossless
        seen = self.store.read(memory.COLLECTION, IMPORTS_KEY).value or {}
        known = seen.get("sha256")
        again = isinstance(known, list) and digest in known

        def apply(doc: dict[str, Any], tx: _Tx) -> dict[str, Any]:
            for message in transfer.import_warnings(incoming, tx.today):
                tx.warn(message)
            if not doc:
                doc.update(_deepcopy(incoming))
                return {"mode": "copied"}
            merged = _deepcopy(incoming)
            if again:  # its counters were added the first time: never count them twice
                merged.pop("stats", None)
                tx.warn("this document was imported before; its stats were not added again")
            counts = transfer.merge_into(doc, merged, self.cfg, tx.today)
            self._quarantine_malformed(doc, tx)
            self._prune(doc, tx, None)
            doc.setdefault("ext_version", 1)
            doc["revision"] = _revision()
            return {"mode": "merged", **counts}

        result, warnings = self._transaction(apply, now=now, prune=False, stamp=False)
        if not again:
            def remember(d: dict[str, Any]) -> None:
                digests = d.get("sha256")
                d["sha256"] = [*(digests if isinstance(digests, list) else []), digest][-100:]

            self.store.update(memory.COLLECTION, IMPORTS_KEY, remember)
        return {**result, "warnings": warnings}

    def export(self, format: str | None = None) -> dict[str, Any]:
        """The stored document (native), or exactly the v1 schema with ``skill-cortex-v1``."""
        if format not in (None, "native", "skill-cortex-v1"):
            raise UsageError(f"unknown export format {format!r}; expected native or skill-cortex-v1")
        from . import transfer

        doc, warnings, _degraded = self._read()
        if not doc:
            doc = {"version": 1, "cortex": {"sensory": {"patterns": []}, "motor": {}, "prefrontal": {"lessons": []}},
                   "blacklist": [], "stats": {k: 0 for k in memory.STATS_KEYS}}
        out = transfer.strict_v1(doc) if format == "skill-cortex-v1" else doc
        return {"document": out, "warnings": warnings}


def _fields(result: OutcomeResult) -> dict[str, Any]:
    from attrs import asdict

    return asdict(result, recurse=False)


#: ``OutcomeResult``, still importable from here, loaded when first asked for
__getattr__, __dir__ = lazy_names(__name__, {"OutcomeResult": "nervous.engines.cortex.outcome"})


__all__ = ["Cortex", "Perception", "OutcomeResult", "OUTCOMES", "blacklist_matches", "is_blacklisted"]
