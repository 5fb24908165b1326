"""The acquisition engine (specs/skill-cortex.md §4.3), shared by the CLI, MCP and Python API.

Each public method is one step; between steps the session waits in the store for the agent's (or
person's) answer. Approval is always explicit: a step that installs something needs a token the
previous step issued, bound to the exact candidate, version and fingerprint shown to the user.
"""

from __future__ import annotations

import contextlib
import copy
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import NervousError, NotFound, Refused, UsageError
from ...kernel import clock
from ...kernel.messages import AppendOnce
from ...kernel.records import ScanContext, SearchHit, SkillRef
from ...kernel.sideeffects import classes_of, icons_of, is_secret_env, reflex_eligible
from ..cortex.entities import TaskText, extract_signals, filter_words
from ..install import gate
from ..install.installer import Installer
from . import session as S
from .plan import build_plan

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

OUTCOMES = ("success", "task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error")
#: failures after which the next candidate is suggested (switching needs the user's consent)
SWITCH_AFTER = ("task_mismatch", "runtime_error")

REMEDIES = {
    "task_mismatch": "the skill does not do this kind of task; try another candidate or describe the task differently",
    "runtime_error": "the skill failed while running; check its error output, then try another candidate",
    "auth_error": "check the credentials the skill needs (API key or login) and try again yourself",
    "dependency_missing": "install the missing dependencies listed in the plan, then try again",
    "api_error": "the service behind the skill failed twice; try again later",
    "install_failed": "the skill could not be installed; see the error",
}


def candidate_verdict(cand: dict[str, Any]) -> gate.Verdict:
    """The gate's verdict as the vetting stored it in the session (checked again at install)."""
    return gate.Verdict(f"{cand['name']} v{cand['version']}", str(cand.get("registry")), cand["decision"],
                        cand.get("risk", "high"), tuple(cand.get("rule_ids", ())), tuple(cand.get("reasons", ())),
                        suspicious=bool(cand.get("suspicious", cand.get("needs_confirmation"))),
                        verified=bool(cand.get("verified", True)))


def notice_traits(tags: list[str]) -> list[str]:
    """What the reflex notice's parenthesis says: read-only, then credentials and network hosts."""
    out = ["read-only"]
    for tag in tags:
        kind, _, rest = tag.partition(":")
        sub, _, value = rest.partition(":")
        if kind == "read" and sub == "env" and is_secret_env(value):
            out.append(f"\U0001f511 {value}")
        elif kind == "network" and rest and rest != "*":
            out.append(f"\U0001f310 {rest}")
    return out


class _Busy(Exception):
    """Another process is in the middle of a step of this acquisition."""

    def __init__(self, state: str) -> None:
        super().__init__(state)
        self.state = state


class Acquirer:
    """Runs the loop over the configured registries, classifier, policy, cortex and store."""

    def __init__(self, manager: PluginManager) -> None:
        from ..cortex.engine import Cortex

        self.pm = manager
        self.cfg = manager.config.cortex
        self.cortex = Cortex(manager)
        #: what this object noticed on the way (documents set aside), reported with every answer
        self._notes: list[str] = []

    @property
    def store(self) -> Any:
        return self.pm.storage()

    # ------------------------------------------------------------------ phase 1 and 2

    def start(self, task: str, *, interactive: bool = True) -> S.AcquireState:
        """Perceive the task; on a miss search; vet every candidate; ask for approval (or reflex).

        ``interactive=False`` says the host cannot show a cancellable notice: the reflex fast path
        is then never taken (standard mode, explicit approval).
        """
        if not isinstance(task, str) or not task.strip():
            raise UsageError("acquire needs a task description")
        now = clock.now()
        warnings: list[str] = list(self._sweep_sessions(now))
        perception, doc = self._new_session(task, now, warnings)
        keywords = doc["keywords"]
        from . import retained

        kept = retained.find(self.store, doc["region"], keywords)
        if kept is not None:
            doc["candidates"] = []
            return self._finish(doc, "retained", f"use {kept['name']}, kept earlier at {kept['path']}: nothing was "
                                "searched or installed", warnings, extra={"retained": kept})
        if perception.hit:
            self._bump(warnings, cache_hits=1)
            known = [self._vet_known(view, warnings) for view in
                     perception.candidates[: self.cfg.max_search_candidates]]
            vanished = [c for c in known if any(r.endswith(":not_found") for r in c["rule_ids"])]
            doc["candidates"] = [c for c in known if c not in vanished]
            if vanished and not any(c["decision"] != "refuse" for c in doc["candidates"]):
                # a remembered skill that no longer exists anywhere must not end the acquisition
                warnings.append("remembered skill(s) no longer found in their registry: "
                                + ", ".join(c["ref"] for c in vanished) + "; searching instead")
                seen = {c["ref"] for c in doc["candidates"]}
                doc["candidates"] += [c for c in self._search(keywords, doc, warnings) if c["ref"] not in seen]
        else:
            doc["candidates"] = self._search(keywords, doc, warnings)
        for i, cand in enumerate(doc["candidates"]):
            cand["index"] = i
        usable = self._usable(doc)
        if not doc["candidates"]:
            return self._finish(doc, "no_candidates", "no registry offered a skill for this task", warnings)
        if not usable:
            return self._finish(doc, "refused", "every candidate was refused; see each one's reasons", warnings,
                                extra={"report": self._failure_report(doc)})
        top = doc["candidates"][0]
        if perception.hit and perception.reflex and top["decision"] != "refuse":
            blockers = self._reflex_blockers(top)
            if not interactive:
                blockers.append("this host cannot show a cancellable notice")
            doc["reflex_reasons"] = blockers or list(perception.reflex_reasons)
            if not blockers:
                doc["mode"] = "reflex"
                hist = top["history"]
                runs = hist.get("successes", 0) + hist.get("failures", 0)
                rate = round(100 * hist.get("successes", 0) / runs) if runs else 0
                traits = notice_traits(top["tags"])
                doc["notice"] = {"name": top["name"], "version": top["version"], "success_rate": rate,
                                 "traits": traits}
                S.issue_tokens(doc, [0], now)
                msg = (f"⚡ Skill Cortex reflex: {top['name']} v{top['version']} ({rate}% success rate) "
                       f"({', '.join(traits)}): will install and execute; say cancel to abort")
                return self._save(doc, "reflex", msg, ("approve", "cancel"), warnings)
        elif perception.hit:
            doc["reflex_reasons"] = list(perception.reflex_reasons)
        S.issue_tokens(doc, usable, now)
        return self._save(doc, "awaiting_approval",
                          f"{len(usable)} candidate(s) need your explicit approval before anything is installed",
                          ("approve", "cancel"), warnings)

    def _new_session(self, task: str, now: float, warnings: list[str]) -> tuple[Any, dict[str, Any]]:
        """Perceive ``task`` and start a session document holding only entity-filtered words."""
        perception = self.cortex.perceive(task)
        AppendOnce(warnings).extend(perception.warnings)
        text = TaskText(task)
        doc: dict[str, Any] = {
            "id": S.new_session_id(), "created_at": now, "updated_at": now, "hit": perception.hit,
            "region": perception.region or perception.proposed_region or "general",
            "keywords": list(perception.keywords or extract_signals(task, 5)),
            "task_words": list(filter_words([t.text for t in text.plain], text, cap=None).kept),
            "mode": "standard", "switches": 0, "attempts": [], "api_retries": 0, "installed": None,
            "tokens": {}, "lessons": list(perception.lessons), "registries": [], "approved": [],
        }
        return perception, doc

    def request(self, reference: str, *, version: str | None = None, task: str | None = None) -> S.AcquireState:
        """An explicit install of one named skill, gated like an acquisition.

        A host (the MCP server, an agent loop) must never approve on the user's behalf: the skill
        is vetted exactly as a search hit (registry gates, in-memory fetch, integrity, our scan)
        and a one-candidate session with a single-use token is stored. Installing needs
        :meth:`approve` with that token, so plan, ``done``, learning and clean-up are the loop's.
        ``task`` (what the skill is wanted for) decides the region the outcome is learned under;
        without it the skill's own summary is used.
        """
        if not isinstance(reference, str) or not reference.strip():
            raise UsageError("install needs a skill reference such as @owner/slug or github:owner/repo")
        if task is not None and (not isinstance(task, str) or not task.strip()):
            raise UsageError("task, when given, must be a non-empty description")
        ref = SkillRef.parse(reference.strip())
        if version:
            if ref.registry == "github":
                raise UsageError("github references pin a commit with @sha, not a version")
            ref = SkillRef(ref.name, ref.owner, ref.registry, ref.path, version)
        now = clock.now()
        warnings: list[str] = []
        candidate = self._vet(ref, warnings)
        candidate["index"] = 0
        about = task.strip() if task else (candidate.get("summary") or candidate["name"])
        _perception, doc = self._new_session(about, now, warnings)
        doc["candidates"] = [candidate]
        doc["request"] = {"kind": "install", "reference": reference.strip(), "version": version}
        if candidate["decision"] == "refuse":
            return self._finish(doc, "refused", f"{candidate['name']} cannot be installed: "
                                + ("; ".join(candidate["reasons"]) or "refused by policy"), warnings)
        S.issue_tokens(doc, [0], now)
        message = (f"{candidate['name']} v{candidate['version']} was vetted ({candidate['decision']}, risk "
                   f"{candidate['risk']}); it is installed only with the user's explicit approval")
        if candidate["needs_confirmation"]:
            message += "; the registry flags it suspicious: approving it also needs confirm_suspicious"
        return self._save(doc, "awaiting_approval", message, ("approve", "cancel"), warnings)

    def _search(self, keywords: list[str], doc: dict[str, Any], warnings: list[str]) -> list[dict[str, Any]]:
        from ..search import search

        query = " ".join(keywords[:5]) or "skill"
        use = list(self.pm.config.registries.use)
        primary = [n for n in use if n != "github"]
        hits: list[SearchHit] = []
        blacklisted = self._blacklisted()
        if primary:
            result = search(self.pm, query, registries=primary, limit=self.cfg.search_limit)
            doc["registries"] += [{"registry": s.registry, "status": s.status, "message": s.message}
                                  for s in result.registries]
            self._bump(warnings, searches=len(result.registries))
            hits = [h for h in result.hits if self._relevant(h, keywords) and not blacklisted(h)]
        picked = hits[: self.cfg.max_search_candidates]
        if len(picked) < self.cfg.github_supplement_below and "github" in use:
            result = search(self.pm, query, registries=["github"], limit=self.cfg.search_limit)
            doc["registries"] += [{"registry": s.registry, "status": s.status, "message": s.message}
                                  for s in result.registries]
            self._bump(warnings, searches=1)
            extra = [h for h in result.hits if self._relevant(h, keywords) and not blacklisted(h)]
            picked += extra[: self.cfg.max_search_candidates - len(picked)]
        for status in doc["registries"]:
            if status["status"] != "ok":
                warnings.append(f"registry {status['registry']} {status['status']}: {status['message']}")
        return [self._vet(h.ref if h.ref.registry else SkillRef(h.ref.name, h.ref.owner, h.registry),
                          warnings, hit=h) for h in picked]

    def _blacklisted(self) -> Any:
        from ..cortex.engine import is_blacklisted

        entries = {e["identifier"] for e in self.cortex.blacklist_list()["blacklist"]}

        def check(hit: SearchHit) -> bool:
            slug = hit.ref.name if hit.registry != "github" else str(hit.ref).removeprefix("github:")
            return is_blacklisted(entries, hit.registry, slug, hit.ref.owner)

        return check

    @staticmethod
    def _relevant(hit: SearchHit, keywords: list[str]) -> bool:
        text = f"{hit.ref.name} {hit.display_name} {hit.summary}".lower()
        return not keywords or any(k.lower() in text for k in keywords)

    @staticmethod
    def _usable(doc: dict[str, Any]) -> list[int]:
        return [c["index"] for c in doc["candidates"] if c["decision"] != "refuse"]

    def _vet_known(self, view: Any, warnings: list[str]) -> dict[str, Any]:
        ref = SkillRef(name=view.slug, registry=view.source)
        if view.source == "github":
            ref = SkillRef.parse(f"github:{view.slug}")
        cand = self._vet(ref, warnings)
        cand["history"] = {"weight": round(view.weight, 4), "effective_weight": round(view.effective_weight, 4),
                           "successes": view.successes, "failures": view.failures,
                           "consecutive_successes": view.consecutive_successes, "reflex": view.reflex,
                           "stored_version": view.version, "stored_fingerprint": view.fingerprint,
                           "tags": list(view.tags)}
        return cand

    def _vet(self, ref: SkillRef, warnings: list[str], *, hit: SearchHit | None = None) -> dict[str, Any]:
        """Resolve, gate on the registry's verdict, fetch in memory and scan. Never installs."""
        cand: dict[str, Any] = {
            "ref": str(ref), "registry": ref.registry or (hit.registry if hit else None), "name": ref.name,
            "summary": hit.summary if hit else "", "version": hit.version if hit else None, "fingerprint": None,
            "stars": hit.stars if hit else None, "downloads": hit.downloads if hit else None,
            "scan_status": hit.scan.status if hit else "unknown", "reviewed": hit.reviewed if hit else True,
            "decision": "refuse", "risk": "high", "reasons": [], "rule_ids": [], "tags": [], "flags": [],
            "classes": [], "icons": "", "history": {}, "needs_confirmation": False, "notes": [],
            "verified": False, "suspicious": False,
        }
        installer = Installer(self.pm)
        try:
            plan = installer.plan(ref)
        except Refused as exc:
            cand["reasons"] = [exc.message]
            cand["rule_ids"] = [f"registry:{exc.code}"]
            if exc.code == "malware":
                self._auto_blacklist(ref, exc.message, warnings)
            return cand
        except NervousError as exc:
            cand["reasons"] = [exc.message]
            cand["rule_ids"] = [f"registry:{exc.code}"]
            return cand
        meta, detail = plan.metadata, plan.version
        cand.update(ref=str(SkillRef(plan.ref.name, plan.ref.owner, plan.registry, plan.ref.path, plan.ref.revision)),
                    registry=plan.registry, summary=meta.summary or cand["summary"],
                    version=detail.version, stars=meta.stars if meta.stars is not None else cand["stars"],
                    downloads=meta.downloads if meta.downloads is not None else cand["downloads"],
                    scan_status=detail.scan.status, reviewed=meta.reviewed,
                    needs_confirmation=plan.needs_confirmation, notes=list(plan.warnings))
        try:
            bundle, verdict = installer.fetch(plan, context=ScanContext(
                purpose="install", registry_scan=detail.scan, stated_purpose=cand["summary"]))
        except NervousError as exc:
            cand["reasons"] = [exc.message]
            cand["rule_ids"] = [f"fetch:{exc.code}"]
            return cand
        from ...kernel.fingerprint import bundle_fingerprint

        cand["fingerprint"] = detail.fingerprint or bundle_fingerprint(bundle, exclude={"_meta.json"})
        cand["content"] = _every_file(bundle.files)
        se = verdict.report.side_effects
        classes = classes_of(se.tags, primary_env=se.primary_env, complete=se.complete)
        skill_md = bundle.skill_md
        cand.update(decision=verdict.decision, risk=verdict.risk, reasons=list(verdict.reasons),
                    rule_ids=list(verdict.rule_ids), tags=list(se.tags), flags=list(se.flags),
                    classes=classes, icons=icons_of(classes), verified=verdict.verified,
                    suspicious=verdict.suspicious, needs_confirmation=verdict.needs_confirmation,
                    skill_md_chars=len(skill_md.text() or "") if skill_md else None)
        return cand

    def _auto_blacklist(self, ref: SkillRef, reason: str, warnings: list[str]) -> None:
        """A registry malware verdict blacklists the candidate (owner-qualified when the owner is known)."""
        identifier = f"@{ref.owner}/{ref.name}" if ref.owner and ref.registry != "github" else (
            str(ref).removeprefix("github:") if ref.registry == "github" else ref.name)
        try:
            result = self.cortex.blacklist_add(identifier, reason, source="registry", evidence=reason)
        except NervousError as exc:
            warnings.append(f"could not blacklist {identifier}: {exc.message}")
            return
        if result.get("added"):
            warnings.append(f"{identifier} blacklisted: the registry reports malware")

    def _reflex_blockers(self, cand: dict[str, Any]) -> list[str]:
        """The registry-side reflex conditions (the cortex checked the local ones)."""
        hist = cand["history"]
        out = []
        if cand["decision"] != "allow":
            out.append(f"our scan decided {cand['decision']}, not allow")
        clean = cand["scan_status"] == "clean" or (cand["registry"] == "local" and cand["reviewed"])
        if not clean:
            out.append(f"registry scan status is {cand['scan_status']}, not clean")
        if cand.get("suspicious", cand["needs_confirmation"]):
            out.append("the registry flags it suspicious")
        if not cand.get("verified", True):
            out.append("it is unverified (the registry publishes no digests)")
        if hist.get("stored_version") != cand["version"]:
            out.append(f"version changed ({hist.get('stored_version')} → {cand['version']})")
        if hist.get("stored_fingerprint") != cand["fingerprint"]:
            out.append("content fingerprint changed since the last successful use")
        if not reflex_eligible(cand["tags"]):
            out.append("it writes, deletes or runs shell commands")
        return out

    # ------------------------------------------------------------------ phase 3

    def approve(self, token: str, *more_tokens: str, confirm_suspicious: bool = False,
                approval: gate.Approval | None = None) -> S.AcquireState:
        """Install the candidate a token approves (or the first of an ordered list of approved ones).

        On an install failure the next *approved* candidate is tried automatically (at most
        ``max_switches`` switches per task); an unapproved candidate needs its own approval.
        ``approval`` says who answered (default: the agent relaying the user's answer with the token);
        when ``[approval] mode = "person"`` asks for more, the answer is a ``needs_person`` state and
        the token stays open.
        """
        tokens = [token, *more_tokens]
        sids = {S.session_of(t) for t in tokens}
        if len(sids) != 1:
            raise UsageError("approve takes tokens of one acquisition only")
        sid = sids.pop()
        now = clock.now()
        self._load(sid)
        mode = gate.approval_mode(self.pm)

        def take(d: dict[str, Any]) -> list[dict[str, Any]]:
            self._refuse_wrong_shape(d)
            if d.get("state") not in S.WAITING_FOR_APPROVAL:
                known = any(t in d.get("tokens", {}) for t in tokens)
                raise Refused(f"acquisition {sid} is {d.get('state')}; nothing waits for approval"
                              + ("" if known else " (and this token does not belong to it)"), code="invalid_token")
            if len(set(tokens)) != len(tokens):
                raise UsageError("the same token was given twice")
            records = [S.redeem(d, t, now) for t in tokens]
            given = self._approval(d, confirm_suspicious, approval)
            for r, t in zip(records, tokens, strict=True):  # the gate's approval stage, before any token is spent
                gate.check_approval(candidate_verdict(d["candidates"][r["candidate"]]), given, mode,
                                    retry=f"nervous approve {t}")
            S.supersede_open_tokens(d)
            d["state"] = "installing"
            d["approved"] = d.get("approved", []) + [r["candidate"] for r in records]
            d["updated_at"] = now
            return records

        try:
            approved = self.store.update(S.COLLECTION, sid, take, create=False).result
        except gate.NeedsPerson as exc:
            doc = self._load(sid)
            state = self._state(doc, [])
            return S.AcquireState(state.session, "needs_person", exc.message, ("approve", "cancel"),
                                  {**state.data, "person_must_run": exc.details.get("run")}, state.warnings)
        doc = self._load(sid)
        warnings: list[str] = []
        reflex = doc["mode"] == "reflex"
        given = self._approval(doc, confirm_suspicious, approval)
        if reflex:
            self._bump(warnings, reflexes_fired=1)
        for n, rec in enumerate(approved):
            i = rec["candidate"]
            cand = doc["candidates"][i]
            if self._tried(doc) > self.cfg.max_switches:
                warnings.append(f"not trying {cand['name']}: at most {self.cfg.max_switches} switches per task")
                break
            if n > 0:
                warnings.append(f"switching to the next approved candidate: {cand['name']}")
            try:
                record = self._install(cand, rec, approval=given, reflex=reflex)
            except NervousError as exc:
                doc["attempts"].append({"candidate": i, "outcome": "install_failed", "detail": exc.message})
                doc["switches"] = max(0, self._tried(doc) - 1)
                warnings.append(f"install of {cand['name']} failed: {exc.message}")
                if exc.code == "malware":
                    self._auto_blacklist(SkillRef.parse(cand["ref"]), exc.message, warnings)
                continue
            return self._installed(doc, i, record, warnings, now)
        return self._after_failure(doc, "installation failed for every approved candidate", warnings, {})

    def _installed(self, doc: dict[str, Any], i: int, record: Any, warnings: list[str],
                   now: float) -> S.AcquireState:
        cand = doc["candidates"][i]
        doc["installed"] = {"candidate": i, "slug": record.slug, "path": record.path, "version": record.version,
                            "fingerprint": record.fingerprint, "registry": record.registry, "at": now}
        doc["switches"] = max(0, self._tried(doc) - 1)
        self._bump(warnings, installs=1)
        plan = build_plan(Path(record.path), cand, doc["lessons"])
        plan["lesson_checks"] = self._lesson_checks(doc, warnings)
        doc["plan"] = plan
        self.pm.emit("acquire.install", {"session": doc["id"], "candidate": cand["ref"], "version": cand["version"],
                                         "mode": doc["mode"]})
        slug = record.slug
        msg = (f"installed {cand['name']} v{cand['version']}; "
               + ("reflex: use it now" if doc["mode"] == "reflex" else
                  "show the plan and wait for the user's confirmation before using it")
               + f"; then report: nervous done {slug} --outcome success|<failure type>")
        deps = plan["dependencies"]
        if not deps["ok"]:
            msg += "; missing dependencies: " + ", ".join(deps["missing_bins"] + deps["missing_env"])
        return self._save(doc, "installed", msg, ("done", "cancel"), warnings)

    def _lesson_checks(self, doc: dict[str, Any], warnings: list[str]) -> list[dict[str, Any]]:
        """Run the pre-check of every ``dependency_warning`` lesson (``which KEY``); names only."""
        out = []
        for lesson in doc["lessons"]:
            if lesson.get("type") != "dependency_warning" or not isinstance(lesson.get("key"), str):
                continue
            present = shutil.which(lesson["key"]) is not None
            out.append({"key": lesson["key"], "present": present})
            try:
                result = self.cortex.record_dependency_check(doc["region"], lesson["key"], present)
                AppendOnce(warnings).extend(result["warnings"])
            except NervousError as exc:
                warnings.append(f"could not record the check of {lesson['key']}: {exc.message}")
        return out

    @staticmethod
    def _tried(doc: dict[str, Any]) -> int:
        """How many distinct candidates this task has tried (installs and executions together)."""
        return len({a["candidate"] for a in doc["attempts"]} | ({doc["installed"]["candidate"]}
                                                                  if doc.get("installed") else set()))

    @staticmethod
    def _approval(doc: dict[str, Any], confirm: bool, given: gate.Approval | None) -> gate.Approval:
        """Who approved: a reflex session's notice, the caller's stated approval, or the agent's token."""
        if doc.get("mode") == "reflex" and given is None:
            return gate.Approval("reflex", "reflex")
        return given or gate.Approval("agent", "token", confirmed=confirm)

    def _install(self, cand: dict[str, Any], approved: dict[str, Any], *, approval: gate.Approval,
                 reflex: bool) -> Any:
        import attrs

        installer = Installer(self.pm, reflex=reflex)
        plan = installer.plan(SkillRef.parse(cand["ref"]), cand["version"])
        # resolved by owner, laid out by bare slug (skills/<slug>), as `clawhub install <slug>` does
        plan = attrs.evolve(plan, requested=SkillRef(plan.ref.name, None, plan.registry))
        latest = plan.metadata.latest_version
        if plan.version.version != approved["version"] or (latest and latest != approved["version"]):
            raise Refused(f"{cand['name']} changed since it was shown (version {approved['version']} → "
                          f"{latest or plan.version.version}); run the acquisition again",
                          code="changed_since_approval")
        expected = approved["fingerprint"]
        if expected and plan.version.fingerprint and plan.version.fingerprint != expected:
            raise Refused(f"{cand['name']} content changed since it was vetted (fingerprint mismatch); nothing "
                          "installed", code="changed_since_approval")
        record = installer.install(plan, approval=approval)
        # the registry's fingerprint leaves out dot files and ignored paths; what was vetted is every file
        vetted = approved.get("content")
        if (expected and self._installed_fingerprint(record) != expected
                or vetted and record.files and _every_file(record.files) != vetted):
            try:
                installer.uninstall(record.slug)
            except NervousError:
                pass
            raise Refused(f"{cand['name']} content changed since it was vetted (fingerprint mismatch); nothing "
                          "kept", code="changed_since_approval")
        return record

    @staticmethod
    def _installed_fingerprint(record: Any) -> str:
        """The content fingerprint of the installed folder, as the registry computes it (no ``_meta.json``)."""
        from ...kernel.fingerprint import folder_entries, skill_fingerprint

        return skill_fingerprint([(p, h) for p, h in folder_entries(record.path) if p != "_meta.json"])

    def cancel(self, token: str) -> S.AcquireState:
        """Cancel the acquisition a token belongs to; uninstall what it installed. Changes no weight.

        The cancel is claimed in one transaction of the session, before anything is uninstalled, so a
        concurrent ``approve`` or ``done`` is refused. While another process is installing or
        reporting (a step in progress) the cancel waits for that step to end, then cancels what it left.
        """
        sid = S.session_of(token)
        self._load(sid)
        deadline = time.monotonic() + S.STEP_WAIT

        def check(d: dict[str, Any]) -> None:
            if token not in d.get("tokens", {}):
                raise NotFound("unknown approval token: it does not belong to this acquisition", code="invalid_token")
            if d.get("state") in S.TERMINAL:
                raise Refused(f"acquisition {sid} already ended ({d['state']})", code="invalid_transition")
            if d.get("state") in S.IN_PROGRESS and clock.now() - d.get("updated_at", 0) < S.STALE_STEP:
                raise _Busy(str(d["state"]))

        while True:
            try:
                doc = self._claim(sid, check)
                break
            except _Busy as busy:
                if time.monotonic() >= deadline:
                    raise Refused(f"acquisition {sid} is still {busy.state} in another process; nothing was "
                                  f"cancelled: run nervous cancel {token} again once that step has ended",
                                  code="invalid_transition") from None
                time.sleep(0.1)
        warnings: list[str] = []
        with self._release_on_error(doc):
            if doc.get("installed"):
                self._uninstall(doc, warnings)
            S.supersede_open_tokens(doc)
            return self._finish(doc, "cancelled", "cancelled: nothing more will be installed and nothing is learned",
                                warnings)

    def _claim(self, sid: str, check: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Claim the session for one step in a single transaction: ``check`` refuses (raises) unless the
        step may run; otherwise the stored state becomes ``reporting``, so every concurrent step is refused
        until :meth:`_save` stores the step's result. Returns the document as it was before the claim."""
        now = clock.now()

        def take(d: dict[str, Any]) -> dict[str, Any]:
            self._refuse_wrong_shape(d)
            check(d)
            before = copy.deepcopy(d)
            d["state"], d["updated_at"] = "reporting", now
            return before

        claimed: dict[str, Any] = self.store.update(S.COLLECTION, sid, take, create=False).result
        return claimed

    @contextlib.contextmanager
    def _release_on_error(self, doc: dict[str, Any]) -> Iterator[None]:
        """Give a claimed session back (its state before the claim) when the step fails unexpectedly.

        What the step already did is kept: an outcome learned is marked on the install, so it is never
        learned twice.
        """
        state, installed = doc["state"], copy.deepcopy(doc.get("installed"))
        try:
            yield
        except BaseException:
            if doc.get("installed") and installed and doc["installed"].get("learned"):
                installed["learned"] = doc["installed"]["learned"]

            def put(d: dict[str, Any]) -> None:
                if d.get("state") == "reporting":
                    d["state"], d["installed"], d["updated_at"] = state, installed, clock.now()

            try:
                self.store.update(S.COLLECTION, doc["id"], put, create=False)
            except NervousError:
                pass
            raise

    # ------------------------------------------------------------------ phase 4

    def done(self, slug: str, outcome: str | None = None, *, detail: str | None = None,
             session: str | None = None, keep: bool | None = None, misleading: bool = False) -> S.AcquireState:
        """Record an outcome (learning), recover per the failure table, clean up and prune.

        With ``keep`` (and no outcome) answer a pending retention suggestion. ``misleading`` says the
        skill's description promised what it cannot do (a quality-warning event with ``task_mismatch``).
        """
        if outcome is not None and outcome not in OUTCOMES:
            raise UsageError(f"unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
        if outcome is None and keep is None:
            raise UsageError("say --keep or --release for the retention suggestion, or give --outcome")
        if outcome is not None and keep is not None:
            raise UsageError("give either an outcome or a retention answer (--keep/--release), not both")
        if not isinstance(slug, str) or not slug.strip():
            raise UsageError("done needs the slug of the installed skill")
        found = self._find(slug, session, retention=outcome is None)
        sid, seen = found["id"], found["installed"]
        states = ("retention",) if outcome is None else S.WAITING_FOR_OUTCOME

        def check(d: dict[str, Any]) -> None:
            # the answer is claimed atomically: a concurrent `done` or `cancel` of this install is refused
            inst = d.get("installed") or {}
            if d.get("state") not in states or (inst.get("slug"), inst.get("at")) != (seen["slug"], seen.get("at")):
                raise Refused(f"acquisition {sid} of {slug!r} is {d.get('state')} now: another call answered it "
                              f"first; nothing waits for {'a retention answer' if outcome is None else 'an outcome'}",
                              code="invalid_transition")
            if outcome is not None and inst.get("learned"):
                raise Refused(f"the outcome of {slug!r} in acquisition {sid} was already learned "
                              f"({inst['learned']}); an outcome is learned once", code="invalid_transition")

        doc = self._claim(sid, check)
        with self._release_on_error(doc):
            return self._answer(doc, outcome, keep, detail, misleading)

    def _answer(self, doc: dict[str, Any], outcome: str | None, keep: bool | None, detail: str | None,
                misleading: bool) -> S.AcquireState:
        """The step of :meth:`done` once this process has claimed the session."""
        warnings: list[str] = []
        inst = doc["installed"]
        cand = doc["candidates"][inst["candidate"]]
        if outcome is None:
            return self._retention(doc, cand, bool(keep), warnings)
        state = doc["state"]
        deps = doc.get("plan", {}).get("dependencies", {})
        if outcome == "api_error" and doc["api_retries"] == 0:
            doc["api_retries"] = 1
            return self._save(doc, "retry", f"api error: wait {self.cfg.api_retry_delay:g} s and retry once, then "
                              "report the outcome again", ("done", "cancel"), warnings,
                              extra={"retry_after": self.cfg.api_retry_delay})
        if outcome == "dependency_missing" and state != "awaiting_dependency":
            missing = list(deps.get("missing_bins", [])) + list(deps.get("missing_env", []))
            for key in deps.get("missing_bins", []):
                try:
                    checked = self.cortex.record_dependency_check(doc["region"], key, False)
                    warnings += list(checked["warnings"])
                except NervousError as exc:
                    warnings.append(f"could not record the missing dependency {key}: {exc.message}")
            msg = ("show the user exactly what must be installed"
                   + (f" ({', '.join(missing)})" if missing else (f" ({detail})" if detail else ""))
                   + "; install it only after a separate confirmation, then run the skill again and report the "
                   "outcome (report dependency_missing again if the user declines)")
            return self._save(doc, "awaiting_dependency", msg, ("done", "cancel"), warnings,
                              extra={"missing": missing})
        if outcome == "auth_error" and state != "awaiting_credentials":
            env = [k for k in deps.get("env", {})]
            msg = ("authentication failed: ask the user to check the credentials"
                   + (f" ({', '.join(env)})" if env else "") + "; no automatic retry. If they fix them, run the "
                   "skill again and report the outcome; otherwise report auth_error again")
            return self._save(doc, "awaiting_credentials", msg, ("done", "cancel"), warnings)
        result = self.cortex.record_outcome(
            doc["region"], self._cortex_slug(cand), outcome, source=cand["registry"], version=cand["version"],
            fingerprint=cand["fingerprint"], tags=cand["tags"], skill_md_chars=cand.get("skill_md_chars"),
            detail=detail, task=" ".join(doc["task_words"]) if (outcome == "success" and not doc["hit"]) else None,
            owner=SkillRef.parse(cand["ref"]).owner if cand["registry"] != "github" else None,
            scan_decision=cand["decision"], description_misleading=misleading and outcome == "task_mismatch",
            env_present=[k for k, v in deps.get("env", {}).items() if v],
            env_missing=deps.get("missing_env", []))
        inst["learned"] = outcome
        warnings += list(result.warnings)
        doc["attempts"].append({"candidate": inst["candidate"], "outcome": outcome, "detail": detail or ""})
        learned = {"learned": result.to_json()}
        self.pm.emit("acquire.outcome", {"session": doc["id"], "candidate": cand["ref"], "outcome": outcome})
        if outcome == "success":
            if result.retention_suggested:
                return self._save(doc, "retention", f"{cand['name']} worked well and is small: keep it as a "
                                  f"long-term skill? (nervous done {inst['slug']} --keep or --release)",
                                  ("keep", "release"), warnings, extra=learned)
            self._uninstall(doc, warnings)
            return self._finish(doc, "done", f"learned from the success of {cand['name']}; cached skill removed",
                                warnings, extra=learned)
        self._uninstall(doc, warnings)
        if outcome not in SWITCH_AFTER:
            return self._finish(doc, "failed", f"{cand['name']} failed ({outcome}): {REMEDIES[outcome]}", warnings,
                                extra={**learned, "report": self._failure_report(doc)})
        return self._after_failure(doc, f"{cand['name']} failed ({outcome}) and was uninstalled", warnings, learned)

    def _retention(self, doc: dict[str, Any], cand: dict[str, Any], keep: bool,
                   warnings: list[str]) -> S.AcquireState:
        inst = doc["installed"]
        if not keep:
            self._uninstall(doc, warnings)
            return self._finish(doc, "done", f"{cand['name']} uninstalled", warnings)
        retired = self.cortex.retire(doc["region"], self._cortex_slug(cand), source=cand["registry"])
        warnings += list(retired["warnings"])
        release = getattr(self.pm.install_target(), "release", None)
        if callable(release):
            try:
                release(inst["slug"])
            except NervousError as exc:
                warnings.append(f"could not hand {inst['slug']} over: {exc.message}")
        inst["retained"] = True
        from . import retained

        retained.remember(self.store, doc["region"], doc["keywords"],
                          {"name": cand["name"], "slug": inst["slug"], "path": inst["path"],
                           "version": inst.get("version"), "registry": cand["registry"], "ref": cand["ref"]})
        return self._finish(doc, "retained", f"{cand['name']} stays installed at {inst['path']} as a long-term "
                            "skill; nervous no longer manages or removes it", warnings)

    def _after_failure(self, doc: dict[str, Any], message: str, warnings: list[str],
                       extra: dict[str, Any]) -> S.AcquireState:
        """Offer the untried candidates for a consented switch, or finish with the full report."""
        doc["installed"] = None if not (doc.get("installed") or {}).get("retained") else doc["installed"]
        tried = {a["candidate"] for a in doc["attempts"]}
        remaining = [i for i in self._usable(doc) if i not in tried]
        if remaining and len(tried) <= self.cfg.max_switches:
            S.issue_tokens(doc, remaining, clock.now())
            return self._save(doc, "awaiting_approval", message + "; switching to another candidate needs the "
                              "user's approval", ("approve", "cancel"), warnings, extra=extra)
        why = "every candidate failed" if not remaining else f"at most {self.cfg.max_switches} switches per task"
        return self._finish(doc, "failed", f"{message}; {why}: see the report", warnings,
                            extra={**extra, "report": self._failure_report(doc)})

    @staticmethod
    def _cortex_slug(cand: dict[str, Any]) -> str:
        return str(cand["ref"]).removeprefix("github:") if cand["registry"] == "github" else str(cand["name"])

    # ------------------------------------------------------------------ queries

    def status(self, session: str) -> S.AcquireState:
        doc = self._load(session)
        return self._state(doc, [])

    # ------------------------------------------------------------------ helpers

    def _bump(self, warnings: list[str], **increments: int) -> None:
        try:
            result = self.cortex.bump_stats(**increments)
            AppendOnce(warnings).extend(result["warnings"])
        except NervousError as exc:
            warnings.append(f"could not update the cortex stats: {exc.message}")

    def _failure_report(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for a in doc["attempts"]:
            cand = doc["candidates"][a["candidate"]]
            out.append({"candidate": cand["name"], "version": cand["version"], "outcome": a["outcome"],
                        "detail": a["detail"], "remedy": REMEDIES.get(a["outcome"], "")})
        for cand in doc["candidates"]:
            if cand["decision"] == "refuse":
                out.append({"candidate": cand["name"], "version": cand["version"], "outcome": "refused",
                            "detail": "; ".join(cand["reasons"]), "remedy": "not installable: refused by policy"})
        return out

    def _uninstall(self, doc: dict[str, Any], warnings: list[str]) -> None:
        inst = doc.get("installed")
        if not inst or inst.get("removed") or inst.get("retained"):
            return
        try:
            Installer(self.pm).uninstall(inst["slug"])
        except NotFound:
            pass
        except NervousError as exc:
            warnings.append(f"could not uninstall {inst['slug']}: {exc.message}")
            return
        inst["removed"] = True

    def _sweep_sessions(self, now: float) -> list[str]:
        """Crash cleanup (§4.3.5): skills left installed by acquisitions idle for a day are offered for
        removal — never removed without the user's word. Acquisitions finished more than
        :data:`S.FINISHED_KEPT` ago are deleted: they hold nothing more to act on, and every acquisition
        reads the stored ones, so keeping them all would slow each new one down forever."""
        warnings: list[str] = []
        for key in self.store.keys(S.COLLECTION):
            doc = self._read_session(key)
            if doc and doc.get("state") in S.TERMINAL and now - doc.get("updated_at", now) > S.FINISHED_KEPT:
                try:
                    self.store.delete(S.COLLECTION, key)
                except NervousError as exc:
                    self._note(f"could not delete the acquisition {key} finished long ago: {exc.message}")
                continue
            if (not doc or doc.get("state") not in S.WAITING_FOR_OUTCOME + S.IN_PROGRESS + ("retention",)
                    or now - doc.get("updated_at", now) < 86400 or not doc.get("installed")):
                continue
            inst = doc["installed"]
            if inst.get("removed") or inst.get("retained"):
                continue
            token = next(iter(doc.get("tokens", {})), None)
            warnings.append(f"{inst['slug']} is still installed by an acquisition abandoned since "
                            f"{clock.utc_timestamp(doc['updated_at'])}"
                            + (f"; remove it with: nervous cancel {token}" if token else ""))
        return warnings

    def _read_session(self, key: str) -> dict[str, Any] | None:
        """One stored session; a document of the wrong shape is set aside (with a warning) and ``None``."""
        doc = self.store.read(S.COLLECTION, key).value
        if doc is None:
            return None
        problem = S.shape_problem(doc)
        if problem is None:
            value: dict[str, Any] = doc
            return value
        self._set_aside(key, doc, problem)
        return None

    def _set_aside(self, key: str, doc: Any, problem: str) -> None:
        """Keep a wrong-shaped session document verbatim in :data:`S.QUARANTINE` and remove it from the
        sessions, so it never breaks another acquisition (nothing is installed, learned or removed)."""
        now = clock.now()
        stamp = clock.utc_timestamp(now)
        kept = f"{key}@{stamp}"

        def put(d: dict[str, Any]) -> None:
            d.clear()
            d.update({"session": key, "reason": problem, "set_aside_at": now, "document": doc})

        try:
            self.store.update(S.QUARANTINE, kept, put)
            self.store.delete(S.COLLECTION, key)
        except NervousError as exc:
            self._note(f"acquisition {key} has a stored document of the wrong shape ({problem}) and could not be "
                       f"set aside: {exc.message}; it is ignored")
            return
        self._note(f"acquisition {key} had a stored document of the wrong shape ({problem}); it was set aside "
                   f"as {S.QUARANTINE}/{kept} and takes no further part in any acquisition")

    def _note(self, message: str) -> None:
        if message not in self._notes:
            self._notes.append(message)

    def _refuse_wrong_shape(self, d: dict[str, Any]) -> None:
        """Inside a session's transaction: refuse a document whose shape changed since it was read."""
        problem = S.shape_problem(d)
        if problem is not None:
            raise Refused(f"acquisition {d.get('id')!r} has a stored document of the wrong shape ({problem}); "
                          "nothing was done: run the command again to set it aside", code="corrupt_session")

    def _load(self, sid: str) -> dict[str, Any]:
        doc = self._read_session(sid)
        if doc is None:
            exc: NervousError
            if self._notes:
                exc = Refused(f"acquisition {sid} was set aside: its stored document has the wrong shape; "
                              "nothing was done", code="corrupt_session")
            else:
                exc = NotFound(f"no acquisition {sid}", code="invalid_token")
            exc.warnings[:0] = list(self._notes)
            raise exc
        return doc

    def _find(self, slug: str, session: str | None, *, retention: bool) -> dict[str, Any]:
        states = ("retention",) if retention else S.WAITING_FOR_OUTCOME
        keys = [session] if session else self.store.keys(S.COLLECTION)
        found = []
        for key in keys:
            doc = self._read_session(key)
            if not doc or not doc.get("installed"):
                continue
            inst = doc["installed"]
            name = doc["candidates"][inst["candidate"]]["name"]
            if doc.get("state") in states and slug in (inst["slug"], name):
                found.append(doc)
        if not found:
            what = "a retention answer (--keep/--release)" if retention else "an outcome"
            where = f" in acquisition {session}" if session else ""
            missing = NotFound(f"no acquisition of {slug!r}{where} is waiting for {what}", code="not_found")
            missing.warnings[:0] = list(self._notes)
            raise missing
        if len(found) > 1 and not session:
            raise UsageError(f"{len(found)} acquisitions of {slug!r} wait for {'an answer' if retention else 'an outcome'}"
                             f"; say which with --session ({', '.join(d['id'] for d in found)})")
        chosen: dict[str, Any] = found[0]
        return chosen

    def _save(self, doc: dict[str, Any], state: str, message: str, nxt: tuple[str, ...], warnings: list[str],
              extra: dict[str, Any] | None = None) -> S.AcquireState:
        doc["state"], doc["message"], doc["next"] = state, message, list(nxt)
        doc["updated_at"] = clock.now()
        doc["extra"] = extra or {}
        snapshot = copy.deepcopy(doc)

        def put(d: dict[str, Any]) -> None:
            # tokens redeemed concurrently stay redeemed
            used = {t: r["used"] for t, r in d.get("tokens", {}).items() if r.get("used")}
            d.clear()
            d.update(copy.deepcopy(snapshot))
            for t, how in used.items():
                if t in d["tokens"] and not d["tokens"][t]["used"]:
                    d["tokens"][t]["used"] = how

        self.store.update(S.COLLECTION, doc["id"], put)
        return self._state(doc, warnings)

    def _finish(self, doc: dict[str, Any], state: str, message: str, warnings: list[str],
                extra: dict[str, Any] | None = None) -> S.AcquireState:
        S.supersede_open_tokens(doc)
        return self._save(doc, state, message, (), warnings, extra)

    def _state(self, doc: dict[str, Any], warnings: list[str]) -> S.AcquireState:
        open_tokens = {t for t, r in doc.get("tokens", {}).items() if not r["used"]}
        cands = []
        for c in doc.get("candidates", []):
            c = dict(c)
            c.pop("content", None)  # the digest of every vetted file: bound into the token, not shown
            if c.get("token") not in open_tokens:
                c.pop("token", None)
            cands.append(c)
        data = {"region": doc["region"], "hit": doc["hit"], "mode": doc["mode"], "keywords": doc["keywords"],
                "candidates": cands, "registries": doc.get("registries", []), "installed": doc.get("installed"),
                "plan": doc.get("plan"), "attempts": doc.get("attempts", []), "switches": doc.get("switches", 0),
                "lessons": doc.get("lessons", []), "reflex_reasons": doc.get("reflex_reasons", []),
                "notice": doc.get("notice"), **doc.get("extra", {})}
        return S.AcquireState(doc["id"], doc["state"], doc.get("message", ""), tuple(doc.get("next", ())), data,
                              tuple(dict.fromkeys([*self._notes, *warnings])))


def _every_file(files: Any) -> str:
    """The fingerprint of every file (``path``, ``sha256``) of a skill, with none of §A8's skips but ``_meta.json``."""
    from ...kernel.fingerprint import skill_fingerprint

    return skill_fingerprint((f.path, f.sha256) for f in files if f.path != "_meta.json")
