"""The acquisition engine (specs/skill-cortex.md §4.3), shared by the CLI, MCP and Python API.

Each public method is one step; between steps the session waits in the store for the agent's (or
person's) answer. Approval is always explicit: a step that installs something needs a token the
previous step issued, bound to the exact candidate, version and fingerprint shown to the user.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .. import clock
from ..cortex.entities import TaskText, extract_signals, filter_words
from ..errors import NervousError, NotFound, Refused, UsageError
from ..installer import Installer, verify_bundle
from ..records import ScanContext, SearchHit, SkillRef
from ..scan import scan_bundle
from ..sideeffects import classes_of, icons_of, reflex_eligible
from . import session as S
from .plan import build_plan

OUTCOMES = ("success", "task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error")

REMEDIES = {
    "task_mismatch": "the skill does not do this kind of task; try another candidate or describe the task differently",
    "runtime_error": "the skill failed while running; check its error output, then try another candidate",
    "auth_error": "check the credentials the skill needs (API key or login) and try again yourself",
    "dependency_missing": "install the missing dependencies listed in the plan, then try again",
    "api_error": "the service behind the skill failed twice; try again later",
    "install_failed": "the skill could not be installed; see the error",
}


class Acquirer:
    """Runs the loop over the configured registries, classifier, policy, cortex and store."""

    def __init__(self, manager: Any) -> None:
        from ..cortex.engine import Cortex

        self.pm = manager
        self.cfg = manager.config.cortex
        self.cortex = Cortex(manager)

    @property
    def store(self) -> Any:
        return self.pm.storage()

    # ------------------------------------------------------------------ phase 1 and 2

    def start(self, task: str) -> S.AcquireState:
        """Perceive the task; on a miss search; vet every candidate; ask for approval (or reflex)."""
        if not isinstance(task, str) or not task.strip():
            raise UsageError("acquire needs a task description")
        now = clock.now()
        warnings: list[str] = list(self._cleanup_stale(now))
        perception = self.cortex.perceive(task)
        warnings += list(perception.warnings)
        text = TaskText(task)
        task_words = list(filter_words([t.text for t in text.plain], text, cap=None).kept)
        keywords = list(perception.keywords or extract_signals(task, 5))
        doc: dict[str, Any] = {
            "id": S.new_session_id(), "created_at": now, "updated_at": now, "hit": perception.hit,
            "region": perception.region if perception.hit else (perception.proposed_region or "general"),
            "keywords": keywords, "task_words": task_words, "mode": "standard", "switches": 0,
            "attempts": [], "api_retries": 0, "installed": None, "tokens": {},
            "lessons": list(perception.lessons), "registries": [],
        }
        if perception.hit:
            doc["candidates"] = [self._vet_known(view, warnings) for view in
                                 perception.candidates[: self.cfg.max_search_candidates]]
        else:
            doc["candidates"] = self._search(keywords, doc, warnings)
        for i, cand in enumerate(doc["candidates"]):
            cand["index"] = i
        usable = [c["index"] for c in doc["candidates"] if c["decision"] != "refuse"]
        if not doc["candidates"]:
            return self._finish(doc, "no_candidates", "no registry offered a skill for this task", warnings)
        if not usable:
            return self._finish(doc, "refused", "every candidate was refused; see each one's reasons", warnings)
        top = doc["candidates"][0]
        if perception.hit and perception.reflex and top["decision"] != "refuse":
            blockers = self._reflex_blockers(top)
            doc["reflex_reasons"] = blockers or list(perception.reflex_reasons)
            if not blockers:
                doc["mode"] = "reflex"
                S.issue_tokens(doc, [0], now)
                msg = (f"⚡ reflex: {top['name']} v{top['version']} "
                       f"({round(100 * top['history'].get('effective_weight', 0))}% weight) will be installed and "
                       "used; say cancel to abort")
                return self._save(doc, "reflex", msg, ("approve", "cancel"), warnings)
        S.issue_tokens(doc, usable, now)
        return self._save(doc, "awaiting_approval",
                          f"{len(usable)} candidate(s) need your explicit approval before anything is installed",
                          ("approve", "cancel"), warnings)

    def _search(self, keywords: list[str], doc: dict[str, Any], warnings: list[str]) -> list[dict[str, Any]]:
        from ..search import search

        query = " ".join(keywords[:5]) or "skill"
        use = list(self.pm.config.registries.use)
        primary = [n for n in use if n != "github"]
        hits: list[SearchHit] = []
        if primary:
            result = search(self.pm, query, registries=primary, limit=self.cfg.search_limit)
            doc["registries"] += [{"registry": s.registry, "status": s.status, "message": s.message}
                                  for s in result.registries]
            hits = [h for h in result.hits if self._relevant(h, keywords)]
        picked = hits[: self.cfg.max_search_candidates]
        if len(picked) < self.cfg.github_supplement_below and "github" in use:
            result = search(self.pm, query, registries=["github"], limit=self.cfg.search_limit)
            doc["registries"] += [{"registry": s.registry, "status": s.status, "message": s.message}
                                  for s in result.registries]
            extra = [h for h in result.hits if self._relevant(h, keywords)]
            picked += extra[: self.cfg.max_search_candidates - len(picked)]
        for status in doc["registries"]:
            if status["status"] != "ok":
                warnings.append(f"registry {status['registry']} {status['status']}: {status['message']}")
        return [self._vet(h.ref if h.ref.registry else SkillRef(h.ref.name, h.ref.owner, h.registry),
                          warnings, hit=h) for h in picked]

    @staticmethod
    def _relevant(hit: SearchHit, keywords: list[str]) -> bool:
        text = f"{hit.ref.name} {hit.display_name} {hit.summary}".lower()
        return not keywords or any(k.lower() in text for k in keywords)

    def _vet_known(self, view: Any, warnings: list[str]) -> dict[str, Any]:
        owner = None
        ref = SkillRef(name=view.slug, registry=view.source)
        if view.source == "github":
            ref = SkillRef.parse(f"github:{view.slug}")
        cand = self._vet(ref, warnings, owner=owner)
        cand["history"] = {"weight": round(view.weight, 4), "effective_weight": round(view.effective_weight, 4),
                           "successes": view.successes, "failures": view.failures,
                           "consecutive_successes": view.consecutive_successes, "reflex": view.reflex,
                           "stored_version": view.version, "stored_fingerprint": view.fingerprint,
                           "tags": list(view.tags)}
        return cand

    def _vet(self, ref: SkillRef, warnings: list[str], *, hit: SearchHit | None = None,
             owner: str | None = None) -> dict[str, Any]:
        """Resolve, gate on the registry's verdict, fetch in memory and scan. Never installs."""
        cand: dict[str, Any] = {
            "ref": str(ref), "registry": ref.registry or (hit.registry if hit else None), "name": ref.name,
            "summary": hit.summary if hit else "", "version": hit.version if hit else None, "fingerprint": None,
            "stars": hit.stars if hit else None, "downloads": hit.downloads if hit else None,
            "scan_status": hit.scan.status if hit else "unknown", "reviewed": hit.reviewed if hit else True,
            "decision": "refuse", "risk": "high", "reasons": [], "rule_ids": [], "tags": [], "flags": [],
            "classes": [], "icons": "", "history": {}, "needs_confirmation": False,
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
                    needs_confirmation=plan.needs_confirmation)
        warnings += [w for w in plan.warnings if w not in warnings]
        try:
            registry = self.pm.registry(plan.registry)
            bundle = registry.fetch(plan.ref, detail.version)
            verify_bundle(bundle, detail.files or bundle.expected, label=f"{plan.ref.qualified}@{detail.version}")
        except NervousError as exc:
            cand["reasons"] = [exc.message]
            cand["rule_ids"] = [f"fetch:{exc.code}"]
            return cand
        from ..fingerprint import bundle_fingerprint

        cand["fingerprint"] = detail.fingerprint or bundle_fingerprint(bundle, exclude={"_meta.json"})
        report = scan_bundle(self.pm, bundle, ScanContext(purpose="install", registry_scan=detail.scan,
                                                          stated_purpose=cand["summary"]), source=plan.registry)
        se = report.side_effects
        classes = classes_of(se.tags, primary_env=se.primary_env, complete=se.complete)
        skill_md = bundle.skill_md
        cand.update(decision=report.decision, risk=report.risk.level, reasons=list(report.review.reasons),
                    rule_ids=list(report.review.rule_ids), tags=list(se.tags), flags=list(se.flags),
                    classes=classes, icons=icons_of(classes),
                    skill_md_chars=len(skill_md.text() or "") if skill_md else None)
        if plan.needs_confirmation and cand["decision"] == "allow":
            cand["decision"] = "review"
        return cand

    def _auto_blacklist(self, ref: SkillRef, reason: str, warnings: list[str]) -> None:
        identifier = f"@{ref.owner}/{ref.name}" if ref.owner else ref.name
        try:
            self.cortex.blacklist_add(identifier if ref.owner else ref.name, reason, source="registry")
        except NervousError as exc:
            warnings.append(f"could not blacklist {identifier}: {exc.message}")

    def _reflex_blockers(self, cand: dict[str, Any]) -> list[str]:
        """The registry-side reflex conditions (the cortex checked the local ones)."""
        hist = cand["history"]
        out = []
        if cand["decision"] != "allow":
            out.append(f"our scan decided {cand['decision']}, not allow")
        clean = cand["scan_status"] == "clean" or (cand["registry"] == "local" and cand["reviewed"])
        if not clean:
            out.append(f"registry scan status is {cand['scan_status']}, not clean")
        if cand["needs_confirmation"]:
            out.append("the registry flags it suspicious")
        if hist.get("stored_version") != cand["version"]:
            out.append(f"version changed ({hist.get('stored_version')} → {cand['version']})")
        if hist.get("stored_fingerprint") != cand["fingerprint"]:
            out.append("content fingerprint changed since the last successful use")
        if not reflex_eligible(cand["tags"]):
            out.append("it writes, deletes or runs shell commands")
        return out

    # ------------------------------------------------------------------ phase 3

    def approve(self, token: str, *, confirm_suspicious: bool = False) -> S.AcquireState:
        """Install the candidate a token approves; on an install failure switch automatically."""
        sid = S.session_of(token)
        now = clock.now()
        doc = self._load(sid)
        if doc.get("state") not in ("awaiting_approval", "reflex"):
            raise Refused(f"acquisition {sid} is {doc.get('state')}; nothing waits for approval", code="invalid_token")

        def take(d: dict[str, Any]) -> dict[str, Any]:
            return S.redeem(d, token, now)

        approved = self.store.update(S.COLLECTION, sid, take, create=False).result
        doc = self._load(sid)
        index = approved["candidate"]
        warnings: list[str] = []
        order = [index] + [c["index"] for c in doc["candidates"]
                           if c["index"] != index and c["decision"] == "allow" and not c["needs_confirmation"]
                           and not any(a["candidate"] == c["index"] for a in doc["attempts"])]
        tried = 0
        for i in order:
            cand = doc["candidates"][i]
            if i != index:
                if tried > self.cfg.max_switches or doc["switches"] >= self.cfg.max_switches:
                    break
                doc["switches"] += 1
                warnings.append(f"switching to the next candidate: {cand['name']}")
            tried += 1
            try:
                record = self._install(cand, approved if i == index else None,
                                       confirmed=confirm_suspicious and i == index, reflex=doc["mode"] == "reflex")
            except NervousError as exc:
                doc["attempts"].append({"candidate": i, "outcome": "install_failed", "detail": exc.message})
                warnings.append(f"install of {cand['name']} failed: {exc.message}")
                if exc.code in ("confirmation_required", "changed_since_approval"):
                    break
                continue
            doc["installed"] = {"candidate": i, "slug": record.slug, "path": record.path,
                                "version": record.version, "fingerprint": record.fingerprint,
                                "registry": record.registry, "at": now}
            plan = build_plan(Path(record.path), cand, doc["lessons"])
            doc["plan"] = plan
            for key in plan["dependencies"]["env"]:
                pass
            self.pm.emit("acquire.install", {"session": sid, "candidate": cand["ref"], "version": cand["version"],
                                             "mode": doc["mode"]})
            msg = (f"installed {cand['name']} v{cand['version']}; "
                   + ("reflex: go ahead and use it" if doc["mode"] == "reflex" else
                      "show the plan and wait for confirmation before using it"))
            if not plan["dependencies"]["ok"]:
                msg += "; missing dependencies: " + ", ".join(
                    plan["dependencies"]["missing_bins"] + plan["dependencies"]["missing_env"])
            return self._save(doc, "installed", msg, ("done", "cancel"), warnings)
        report = self._failure_report(doc)
        return self._finish(doc, "failed", "installation failed for every approved candidate", warnings,
                            extra={"report": report})

    def _install(self, cand: dict[str, Any], approved: dict[str, Any] | None, *, confirmed: bool,
                 reflex: bool) -> Any:
        installer = Installer(self.pm, reflex=reflex)
        plan = installer.plan(SkillRef.parse(cand["ref"]), cand["version"])
        if approved is not None and approved["version"] != plan.version.version:
            raise Refused(f"{cand['name']} changed since it was shown (version {approved['version']} → "
                          f"{plan.version.version}); run the acquisition again", code="changed_since_approval")
        record = installer.install(plan, confirmed=confirmed)
        if cand["fingerprint"] and record.fingerprint != cand["fingerprint"]:
            installer.uninstall(record.slug)
            raise Refused(f"{cand['name']} content changed since it was vetted (fingerprint mismatch); nothing "
                          "kept", code="changed_since_approval")
        return record

    def cancel(self, token: str) -> S.AcquireState:
        """Cancel the acquisition a token belongs to; uninstall what it installed."""
        sid = S.session_of(token)
        doc = self._load(sid)
        if token not in doc.get("tokens", {}):
            raise NotFound("unknown approval token: it does not belong to this acquisition", code="invalid_token")
        warnings: list[str] = []
        if doc.get("installed") and doc.get("state") in S.WAITING_FOR_OUTCOME + ("retention",):
            self._uninstall(doc, warnings)
        if doc.get("state") in S.TERMINAL:
            raise Refused(f"acquisition {sid} already ended ({doc['state']})", code="invalid_transition")
        for tok in doc["tokens"].values():
            if not tok["used"]:
                tok["used"] = "superseded"
        return self._finish(doc, "cancelled", "cancelled: nothing more will be installed", warnings)

    # ------------------------------------------------------------------ phase 4

    def done(self, slug: str, outcome: str | None = None, *, detail: str | None = None,
             session: str | None = None, keep: bool | None = None) -> S.AcquireState:
        """Record an outcome (learning), recover per the failure table, clean up and prune.

        With ``keep`` (and no outcome) answer a pending retention suggestion.
        """
        if outcome is not None and outcome not in OUTCOMES:
            raise UsageError(f"unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
        doc = self._find(slug, session, retention=outcome is None)
        warnings: list[str] = []
        if outcome is None:
            if keep is None:
                raise UsageError("say --keep or --release for the retention suggestion, or give --outcome")
            if keep:
                return self._finish(doc, "retained", f"{slug} is kept as a long-term skill; nervous will not remove "
                                    "it", warnings)
            self._uninstall(doc, warnings)
            return self._finish(doc, "done", f"{slug} uninstalled", warnings)
        inst = doc["installed"]
        cand = doc["candidates"][inst["candidate"]]
        if outcome == "api_error" and doc["api_retries"] == 0:
            doc["api_retries"] = 1
            return self._save(doc, "retry", f"api error: wait {self.cfg.api_retry_delay:g} s and retry once",
                              ("done",), warnings, extra={"retry_after": self.cfg.api_retry_delay})
        deps = doc.get("plan", {}).get("dependencies", {})
        result = self.cortex.record_outcome(
            doc["region"], cand["name"] if cand["registry"] != "github" else cand["ref"].removeprefix("github:"),
            outcome, source=cand["registry"], version=cand["version"], fingerprint=cand["fingerprint"],
            tags=cand["tags"], skill_md_chars=cand.get("skill_md_chars"), detail=detail,
            task=" ".join(doc["task_words"]) if (outcome == "success" and not doc["hit"]) else None,
            owner=SkillRef.parse(cand["ref"]).owner if cand["registry"] != "github" else None,
            scan_decision=cand["decision"],
            deps_missing=deps.get("missing_bins", []) if outcome == "dependency_missing" else (),
            env_present=[k for k, v in deps.get("env", {}).items() if v],
            env_missing=deps.get("missing_env", []))
        warnings += list(result.warnings)
        doc["attempts"].append({"candidate": inst["candidate"], "outcome": outcome, "detail": detail or ""})
        learned = {"learned": result.to_json()}
        self.pm.emit("acquire.outcome", {"session": doc["id"], "candidate": cand["ref"], "outcome": outcome})
        if outcome == "success":
            if result.retention_suggested:
                return self._save(doc, "retention", f"{slug} worked well and is small: keep it as a long-term "
                                  "skill? (--keep or --release)", ("keep", "release"), warnings, extra=learned)
            self._uninstall(doc, warnings)
            return self._finish(doc, "done", f"learned from the success of {slug}; cached skill removed", warnings,
                                extra=learned)
        if outcome == "dependency_missing":
            missing = deps.get("missing_bins", []) + deps.get("missing_env", [])
            msg = ("install what is missing" + (f" ({', '.join(missing)})" if missing else "")
                   + ", then continue only after the user confirms; report the outcome again")
            return self._save(doc, "awaiting_dependency", msg, ("done", "cancel"), warnings,
                              extra={**learned, "missing": missing})
        self._uninstall(doc, warnings)
        if outcome == "auth_error":
            return self._finish(doc, "failed", "authentication failed: " + REMEDIES["auth_error"], warnings,
                                extra={**learned, "report": self._failure_report(doc)})
        remaining = [c["index"] for c in doc["candidates"]
                     if c["decision"] != "refuse" and not any(a["candidate"] == c["index"] for a in doc["attempts"])]
        if remaining and doc["switches"] < self.cfg.max_switches:
            doc["switches"] += 1
            doc["installed"] = None
            S.issue_tokens(doc, remaining, clock.now())
            return self._save(doc, "awaiting_approval",
                              f"{slug} failed ({outcome}); switch to the next candidate only with the user's consent",
                              ("approve", "cancel"), warnings, extra=learned)
        return self._finish(doc, "failed", "every candidate failed; see the report", warnings,
                            extra={**learned, "report": self._failure_report(doc)})

    # ------------------------------------------------------------------ queries

    def status(self, session: str) -> S.AcquireState:
        doc = self._load(session)
        return self._state(doc, [])

    # ------------------------------------------------------------------ helpers

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
        if not inst or inst.get("removed"):
            return
        try:
            Installer(self.pm).uninstall(inst["slug"])
        except NotFound:
            pass
        except NervousError as exc:
            warnings.append(f"could not uninstall {inst['slug']}: {exc.message}")
            return
        inst["removed"] = True

    def _cleanup_stale(self, now: float) -> list[str]:
        """Crash cleanup: skills cached by abandoned sessions (a day old) are removed."""
        warnings: list[str] = []
        for key in self.store.keys(S.COLLECTION):
            doc = self.store.read(S.COLLECTION, key).value
            if not doc or doc.get("state") not in S.WAITING_FOR_OUTCOME or now - doc.get("updated_at", now) < 86400:
                continue
            self._uninstall(doc, warnings)
            self._finish(doc, "cancelled", "abandoned: the cached skill was removed", warnings)
            warnings.append(f"removed {doc['installed']['slug']} left installed by an abandoned acquisition")
        return warnings

    def _load(self, sid: str) -> dict[str, Any]:
        snap = self.store.read(S.COLLECTION, sid)
        if snap.value is None:
            raise NotFound(f"no acquisition {sid}", code="invalid_token")
        return snap.value

    def _find(self, slug: str, session: str | None, *, retention: bool) -> dict[str, Any]:
        states = ("retention",) if retention else S.WAITING_FOR_OUTCOME
        keys = [session] if session else self.store.keys(S.COLLECTION)
        found = []
        for key in keys:
            doc = self.store.read(S.COLLECTION, key).value
            if doc and doc.get("state") in states and doc.get("installed") and doc["installed"]["slug"] == slug:
                found.append(doc)
        if not found:
            what = "a retention answer" if retention else "an outcome"
            raise NotFound(f"no acquisition of {slug!r} is waiting for {what}", code="not_found")
        return max(found, key=lambda d: d["updated_at"])

    def _save(self, doc: dict[str, Any], state: str, message: str, nxt: tuple[str, ...], warnings: list[str],
              extra: dict[str, Any] | None = None) -> S.AcquireState:
        doc["state"], doc["message"], doc["next"] = state, message, list(nxt)
        doc["updated_at"] = clock.now()
        doc["extra"] = extra or {}
        snapshot = copy.deepcopy(doc)

        def put(d: dict[str, Any]) -> None:
            # tokens redeemed concurrently stay redeemed
            used = {t for t, r in d.get("tokens", {}).items() if r.get("used")}
            d.clear()
            d.update(copy.deepcopy(snapshot))
            for t in used & set(d["tokens"]):
                d["tokens"][t]["used"] = d["tokens"][t]["used"] or True

        self.store.update(S.COLLECTION, doc["id"], put)
        return self._state(doc, warnings)

    def _finish(self, doc: dict[str, Any], state: str, message: str, warnings: list[str],
                extra: dict[str, Any] | None = None) -> S.AcquireState:
        return self._save(doc, state, message, (), warnings, extra)

    def _state(self, doc: dict[str, Any], warnings: list[str]) -> S.AcquireState:
        open_tokens = {t for t, r in doc.get("tokens", {}).items() if not r["used"]}
        cands = []
        for c in doc.get("candidates", []):
            c = dict(c)
            if c.get("token") not in open_tokens:
                c.pop("token", None)
            cands.append(c)
        data = {"region": doc["region"], "hit": doc["hit"], "mode": doc["mode"], "keywords": doc["keywords"],
                "candidates": cands, "registries": doc.get("registries", []), "installed": doc.get("installed"),
                "plan": doc.get("plan"), "attempts": doc.get("attempts", []), "lessons": doc.get("lessons", []),
                "reflex_reasons": doc.get("reflex_reasons", []), **doc.get("extra", {})}
        return S.AcquireState(doc["id"], doc["state"], doc.get("message", ""), tuple(doc.get("next", ())), data,
                              tuple(dict.fromkeys(warnings)))
