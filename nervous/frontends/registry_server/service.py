"""The registry's behaviour behind the HTTP routes: lookups, visibility, answers, publishing.

Pure Python (no web framework): :mod:`.api` maps requests here and answers with what comes back.
Answers follow ``specs/protocols.md`` Part A; the moderation gates follow the current public
server (§A5): a skill with no installable version is 404 except on ``/versions/{v}`` and ``/scan``.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from attrs import define, field

from ...kernel.bundle import name_key
from ...kernel.fingerprint import skill_fingerprint
from .archive import build_zip, content_type
from .blobs import BlobStore
from .catalog import Catalog, effective_verdict, installable_versions, latest_version, live_versions, now_ms
from .cursor import decode_cursor, encode_cursor
from .moderation import scan_files
from .rules import (
    MALWARE_TEXT,
    SHA_RE,
    UNAUTHORIZED_INVALID,
    UNAUTHORIZED_MISSING,
    VERSION_MALWARE_TEXT,
    Limits,
    Reject,
    check_content_type,
    check_handle,
    check_path,
    check_slug,
    check_version,
    safe_content_type,
)

_SORTS = {"updated": "updated", "recommended": "recommended", "default": "recommended",
          "createdAt": "createdAt", "newest": "createdAt", "created-at": "createdAt",
          "downloads": "downloads", "installs": "downloads", "installsCurrent": "downloads",
          "installsAllTime": "downloads", "stars": "stars", "rating": "stars", "name": "name",
          "trending": "trending"}
_PREFIX_RE = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")
_DIGITS_RE = re.compile(r"^[0-9]+\Z")  # ASCII digits only (str.isdigit() also takes '²')


@define
class Reply:
    status: int
    body: Any
    headers: dict[str, str] = field(factory=dict)
    content_type: str | None = None


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes", "on")


def _int(value: str | None, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise Reject(400, f"Invalid {name}") from None


def _cursor(offset: int) -> str:
    return encode_cursor(offset)


def _offset(cursor: str | None) -> int:
    try:
        return decode_cursor(cursor)
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors too
        raise Reject(400, "Invalid cursor format") from None


def _owner_param(q: Mapping[str, str]) -> str | None:
    raw = q.get("ownerHandle") or q.get("owner")
    return check_handle(raw) if raw else None


class Registry:
    """One server's view of the shared registry."""

    def __init__(self, catalog: Catalog, blobs: BlobStore, pm: Any, *, limits: Limits | None = None,
                 site_url: str | None = None, zip_cache: int = 512, counted_cap: int = 50_000) -> None:
        self.catalog = catalog
        self.blobs = blobs
        self.pm = pm
        self.limits = limits or Limits()
        self.site_url = site_url.rstrip("/") if site_url else None
        self._zips: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()
        self._zip_cap = zip_cache
        self._lock = threading.Lock()
        self._index: list[tuple[str, dict[str, Any]]] | None = None
        self._flags: dict[int, bool] = {}
        # who downloaded what today (one count per caller, day and skill), bounded: the oldest marks go first
        self._counted: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._counted_day = ""
        self._counted_cap = counted_cap
        self._publish_lock = threading.Lock()
        catalog.on_change(self._invalidate)

    def _invalidate(self) -> None:
        self._index = None

    # ------------------------------------------------------------------ identity

    def user(self, authorization: str | None, *, required: bool = False) -> dict[str, Any] | None:
        token = bearer_token(authorization)
        if not token:
            if required:
                raise Reject(401, UNAUTHORIZED_MISSING)
            return None
        user = self.catalog.user_for(token)
        if user is None and required:
            raise Reject(401, UNAUTHORIZED_INVALID)
        return user

    # ------------------------------------------------------------------ lookup

    def find(self, slug: str, q: Mapping[str, str], style: str) -> dict[str, Any]:
        """The one skill a slug (and optional owner) names; 404, or 409 when ambiguous."""
        slug = slug.strip().lower()
        if not slug or "/" in slug or "\\" in slug or ".." in slug:
            raise Reject(404, "Skill not found")
        owner = _owner_param(q)
        if owner:
            doc = self.catalog.get(owner, slug)
            if doc is None:
                raise Reject(404, "Skill not found")
            return doc
        owners = self.catalog.owners_of(slug)
        if not owners:
            raise Reject(404, "Skill not found")
        if len(owners) > 1:
            if style == "404":
                raise Reject(404, "Skill not found")
            if style == "text":
                raise Reject(409, f'Ambiguous skill slug "{slug}". Multiple publishers use this slug. Retry with '
                                  f"ownerHandle, for example: /api/v1/download?slug={slug}&ownerHandle=<owner>.")
            raise Reject(409, "ambiguous", body={
                "code": "AMBIGUOUS_SKILL_SLUG",
                "message": f'Found multiple skills with the slug "{slug}"; specify which one you want to install:',
                "slug": slug,
                "matches": [{"ownerHandle": o, "slug": slug, "ref": f"@{o}/{slug}",
                             "url": f"{self.site_url or ''}/{o}/skills/{slug}"} for o in owners]})
        doc = self.catalog.get(owners[0], slug)
        if doc is None:
            raise Reject(404, "Skill not found")
        return doc

    @staticmethod
    def visible(doc: dict[str, Any]) -> dict[str, Any]:
        """The skill's latest installable version, or 404 (blocked and deleted skills are not public)."""
        latest = latest_version(doc)
        if latest is None:
            raise Reject(404, "Skill not found")
        return latest

    @staticmethod
    def pick(doc: dict[str, Any], q: Mapping[str, str]) -> dict[str, Any]:
        """The requested version (``version`` or ``tag``, default latest), gated for downloads."""
        wanted = q.get("version")
        tag = q.get("tag")
        if wanted is None and tag not in (None, "latest"):
            raise Reject(404, "Version not found")
        if not wanted:
            return Registry.visible(doc)
        for v in doc.get("versions", []):
            if v["version"] == wanted:
                if v.get("deleted"):
                    raise Reject(410, "Version not available")
                if effective_verdict(v) == "malicious":
                    raise Reject(403, VERSION_MALWARE_TEXT)
                return dict(v)
        raise Reject(404, "Version not found")

    # ------------------------------------------------------------------ bodies

    def moderation_body(self, doc: dict[str, Any], version: dict[str, Any] | None = None) -> dict[str, Any] | None:
        version = version or latest_version(doc)
        if version is None:
            mod = (live_versions(doc) or [{}])[-1].get("moderation") or {}
            verdict = "malicious"
        else:
            mod = version.get("moderation") or {}
            verdict = effective_verdict(version)
        if verdict == "clean":
            return None
        override = mod.get("override") or {}
        return {"isSuspicious": verdict == "suspicious", "isMalwareBlocked": verdict == "malicious",
                "verdict": verdict, "reasonCodes": list(mod.get("ruleIds", [])),
                "summary": override.get("reason") or "; ".join(mod.get("reasons", [])[:3]) or None,
                "engineVersion": f"{mod.get('policy') or 'default'}@{mod.get('policyVersion', '1')}",
                "updatedAt": override.get("at") or mod.get("checkedAt") or doc.get("updatedAt")}

    @staticmethod
    def security_body(version: dict[str, Any]) -> dict[str, Any]:
        mod = version.get("moderation") or {}
        status = effective_verdict(version)
        checked = int((mod.get("override") or {}).get("at") or mod.get("checkedAt") or version["createdAt"])
        engine = f"nervous-review/{mod.get('policy') or 'default'}@{mod.get('policyVersion', '1')}"
        return {
            "status": status, "hasWarnings": status != "clean", "checkedAt": checked, "model": engine,
            "hasScanResult": True, "sha256hash": version.get("fingerprint"), "virustotalUrl": None,
            "scanners": {"vt": None, "skillspector": None,
                         "llm": {"status": "completed", "verdict": "benign" if status == "clean" else status,
                                 "normalizedStatus": status, "confidence": "high",
                                 "summary": "; ".join(mod.get("reasons", [])[:3]) or f"Review policy: {status}.",
                                 "dimensions": [], "guidance": None, "findings": None,
                                 "agenticRiskFindings": None, "riskSummary": None, "model": engine,
                                 "checkedAt": checked}},
            "nervous": {"decision": mod.get("decision"), "ruleIds": list(mod.get("ruleIds", [])),
                        "policy": mod.get("policy"), "policyVersion": mod.get("policyVersion"),
                        "sideEffects": list(mod.get("sideEffects", [])), "riskLevel": mod.get("riskLevel"),
                        "override": mod.get("override")},
        }

    @staticmethod
    def latest_body(v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is None:
            return None
        return {"version": v["version"], "createdAt": v["createdAt"], "changelog": v.get("changelog", ""),
                "license": v.get("license")}

    @staticmethod
    def stats(doc: dict[str, Any]) -> dict[str, Any]:
        return {"downloads": int(doc.get("downloads", 0)), "stars": 0, "installs": 0,
                "versions": len(installable_versions(doc)), "comments": 0}

    def skill_md(self, version: dict[str, Any]) -> str | None:
        for name in ("SKILL.md", "skill.md", "skills.md", "SKILL.MD"):
            row = next((f for f in version["files"] if f["path"] == name), None)
            if row is not None and row["size"] <= 200 * 1024:
                return self.blobs.get(row["sha256"]).decode("utf-8", errors="replace")
        return None

    # ------------------------------------------------------------------ search and list

    def rows(self) -> list[tuple[str, dict[str, Any]]]:
        """Listed skills as ``(lower-cased text, document)``; rebuilt only when the catalogue changes."""
        docs = self.catalog.documents()
        index = self._index
        if index is None:
            built = []
            flags: dict[int, bool] = {}
            for doc in docs:
                latest = latest_version(doc)
                if doc.get("deleted") or latest is None:
                    continue
                hay = f"{doc['slug']} {doc.get('displayName', '')} {doc.get('summary', '')}".lower()
                built.append((hay, doc))
                flags[id(doc)] = effective_verdict(latest) == "suspicious"
            self._flags = flags
            self._index = index = built
        return index

    def suspicious(self, doc: dict[str, Any]) -> bool:
        flag = self._flags.get(id(doc))
        if flag is not None:
            return flag
        latest = latest_version(doc)
        return latest is not None and effective_verdict(latest) == "suspicious"

    def search(self, q: Mapping[str, str]) -> dict[str, Any]:
        query = (q.get("q") or "").strip().lower()
        mode = q.get("mode")
        if mode is not None and mode != "exact":
            raise Reject(400, "Invalid search mode")
        limit = max(1, min(_int(q.get("limit"), 10, "limit"), 100))
        if not query:
            return {"results": []}
        with_suspicious = _truthy(q.get("includeSuspicious")) and not _truthy(
            q.get("nonSuspiciousOnly", q.get("nonSuspicious")))
        terms = [t for t in re.split(r"\W+", query) if t]
        scored = []
        for hay, doc in self.rows():
            if mode == "exact":
                lexical = 100.0 if doc["slug"] == query else 0.0
            else:
                lexical = sum(10.0 for t in terms if t in hay) + (50.0 if doc["slug"] == query else 0.0)
            if lexical <= 0 or (not with_suspicious and self.suspicious(doc)):
                continue
            scored.append((5000 + lexical + int(doc.get("downloads", 0)) / 1000.0, doc))
        scored.sort(key=lambda r: (-r[0], r[1]["slug"], r[1]["owner"]))
        return {"results": [self.search_row(score, doc) for score, doc in scored[:limit]]}

    def search_row(self, score: float, doc: dict[str, Any]) -> dict[str, Any]:
        owner, slug = doc["owner"], doc["slug"]
        latest = latest_version(doc)
        suspicious = self.suspicious(doc)
        canonical = f"/{owner}/skills/{slug}"
        owner_body = {"handle": owner, "displayName": owner, "image": None}
        return {
            "id": f"clawhub:{owner}-{slug}", "source": "clawhub", "slug": slug,
            "displayName": doc.get("displayName", slug), "summary": doc.get("summary", ""), "icon": None,
            "score": score, "canonicalUrl": canonical, "links": {"canonical": canonical, "source": None},
            "publisher": {"kind": "user", **owner_body, "official": False}, "official": False, "featured": False,
            "install": {"kind": "clawhub", "reference": f"{owner}/{slug}", "sourceUrl": None},
            "sourceIdentity": {"id": f"{owner}-{slug}", "owner": owner, "repo": None, "host": None,
                               "lifetimeInstalls": None},
            "trust": {"visibility": "public", "installability": "installable",
                      "clawHubVerdict": "suspicious" if suspicious else None, "upstreamScanners": None,
                      "sourceFreshness": "native"},
            "metrics": {"rolling60DayInstalls": 0, "bookmarks": 0, "updatedAt": doc.get("updatedAt")},
            "native": {"skill": {}, "version": {}, "owner": {}, "ownerHandle": owner},
            "ownerHandle": owner, "version": latest["version"] if latest else None,
            "downloads": int(doc.get("downloads", 0)), "updatedAt": doc.get("updatedAt"), "owner": owner_body,
        }

    def list_skills(self, q: Mapping[str, str]) -> dict[str, Any]:
        limit = max(1, min(_int(q.get("limit"), 25, "limit"), 200))
        raw_sort = q.get("sort")
        if raw_sort is not None and raw_sort not in _SORTS:
            raise Reject(400, "Invalid sort query parameter")
        prefix = q.get("prefix")
        if prefix is not None:
            if not _PREFIX_RE.match(prefix) or len(prefix) > 96:
                raise Reject(400, "Invalid prefix query parameter")
            if raw_sort is not None and _SORTS[raw_sort] != "name":
                raise Reject(400, "Prefix listing only supports name sort")
        sort = "name" if prefix is not None else _SORTS.get(raw_sort or "updated", "updated")
        offset = _offset(q.get("cursor"))
        with_suspicious = _truthy(q.get("includeSuspicious")) and not _truthy(q.get("nonSuspiciousOnly"))
        docs = [d for _, d in self.rows() if (with_suspicious or not self.suspicious(d))
                and (prefix is None or d["slug"].startswith(prefix))]
        keys = {"name": lambda d: (d["slug"], d["owner"]),
                "createdAt": lambda d: (-int(d.get("createdAt", 0)), d["slug"]),
                "downloads": lambda d: (-int(d.get("downloads", 0)), d["slug"])}
        docs.sort(key=keys.get(sort, lambda d: (-int(d.get("updatedAt", 0)), d["slug"], d["owner"])))
        page = docs[offset: offset + limit]
        items = []
        for d in page:
            latest = latest_version(d)
            items.append({"slug": d["slug"], "displayName": d.get("displayName"), "summary": d.get("summary"),
                          "description": d.get("summary"), "topics": d.get("topics", []),
                          "tags": {"latest": latest["version"]} if latest else {}, "stats": self.stats(d),
                          "createdAt": d.get("createdAt"), "updatedAt": d.get("updatedAt"),
                          "latestVersion": self.latest_body(latest), "metadata": None})
        nxt = _cursor(offset + limit) if offset + limit < len(docs) else None
        return {"items": items, "nextCursor": nxt}

    # ------------------------------------------------------------------ skill routes

    def detail(self, slug: str, q: Mapping[str, str]) -> dict[str, Any]:
        doc = self.find(slug, q, "json")
        latest = self.visible(doc)
        text = self.skill_md(latest)
        return {
            "skill": {"slug": doc["slug"], "displayName": doc.get("displayName"), "summary": doc.get("summary"),
                      "icon": None, "description": text if text is not None else doc.get("summary"),
                      "topics": doc.get("topics", []), "tags": {"latest": latest["version"]},
                      "stats": self.stats(doc), "createdAt": doc.get("createdAt"), "updatedAt": doc.get("updatedAt")},
            "latestVersion": self.latest_body(latest),
            "metadata": None,
            "owner": {"handle": doc["owner"], "userId": doc.get("ownerId"), "displayName": doc["owner"], "image": None},
            "moderation": self.moderation_body(doc, latest),
        }

    def versions(self, slug: str, q: Mapping[str, str]) -> dict[str, Any]:
        doc = self.find(slug, q, "json")
        self.visible(doc)
        live = installable_versions(doc)[::-1]
        limit = max(1, min(_int(q.get("limit"), 20, "limit"), 50))
        offset = _offset(q.get("cursor"))
        page = live[offset: offset + limit]
        return {"items": [{"version": v["version"], "createdAt": v["createdAt"], "changelog": v.get("changelog", ""),
                           "changelogSource": v.get("changelogSource")} for v in page],
                "nextCursor": _cursor(offset + limit) if offset + limit < len(live) else None}

    def _exact_version(self, doc: dict[str, Any], wanted: str | None,
                       viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        """A version for ``/versions/{v}`` and ``/scan``: blocked versions answer 403 here, except to
        their publisher and to moderators, who see the verdict and its rule ids."""
        if wanted:
            found = next((v for v in doc.get("versions", []) if v["version"] == wanted and not v.get("deleted")), None)
        else:
            live = live_versions(doc)
            found = latest_version(doc) or (live[-1] if live else None)
        if found is None:
            raise Reject(404, "Version not found")
        privileged = viewer is not None and (viewer.get("role") == "moderator" or viewer.get("handle") == doc["owner"])
        if effective_verdict(found) == "malicious" and not privileged:
            raise Reject(403, VERSION_MALWARE_TEXT if latest_version(doc) else MALWARE_TEXT)
        return dict(found)

    def version_detail(self, slug: str, wanted: str, q: Mapping[str, str],
                       viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        doc = self.find(slug, q, "json")
        v = self._exact_version(doc, wanted, viewer)
        return {"skill": {"slug": doc["slug"], "displayName": doc.get("displayName")},
                "version": {"version": v["version"], "createdAt": v["createdAt"], "changelog": v.get("changelog", ""),
                            "changelogSource": v.get("changelogSource"), "license": v.get("license"),
                            "files": [dict(f) for f in v["files"]], "security": self.security_body(v)}}

    def scan(self, slug: str, q: Mapping[str, str], viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        doc = self.find(slug, q, "json")
        v = self._exact_version(doc, q.get("version"), viewer)
        latest = latest_version(doc)
        flagged = effective_verdict(v) != "clean"
        return {"skill": {"slug": doc["slug"], "displayName": doc.get("displayName")},
                "version": {"version": v["version"], "createdAt": v["createdAt"],
                            "changelogSource": v.get("changelogSource")},
                "moderation": None if not flagged else {
                    "scope": "skill",
                    "sourceVersion": {"version": latest["version"], "createdAt": latest["createdAt"]} if latest else None,
                    "matchesRequestedVersion": latest is not None and latest["version"] == v["version"],
                    "isPendingScan": False, "isMalwareBlocked": effective_verdict(v) == "malicious",
                    "isSuspicious": effective_verdict(v) == "suspicious", "isHiddenByMod": False, "isRemoved": False},
                "security": self.security_body(v)}

    def moderation(self, slug: str, q: Mapping[str, str]) -> dict[str, Any]:
        doc = self.find(slug, q, "text")
        latest = latest_version(doc)
        body = self.moderation_body(doc, latest) if latest else None
        if body is None:
            raise Reject(404, "Moderation details unavailable")
        mod = (latest or {}).get("moderation") or {}
        body["evidence"] = [{**f, "evidence": ""} for f in mod.get("findings", [])]
        body["legacyReason"] = None
        return {"moderation": body}

    def install_resolver(self, slug: str, q: Mapping[str, str], base: str) -> dict[str, Any]:
        doc = self.find(slug, q, "404")
        latest = self.visible(doc)
        query = urllib.parse.urlencode({"slug": doc["slug"], "ownerHandle": doc["owner"], "version": latest["version"]})
        return {"ok": True, "slug": doc["slug"], "installKind": "archive",
                "archive": {"version": latest["version"], "downloadUrl": f"{self.site_url or base}/api/v1/download?{query}"}}

    def file(self, slug: str, q: Mapping[str, str]) -> Reply:
        doc = self.find(slug, q, "json")
        path = q.get("path")
        if not path:
            raise Reject(400, "Missing path")
        v = self.pick(doc, q)
        rows = {f["path"]: f for f in v["files"]}
        name = path if path in rows else next((p for p in rows if p.lower() == path.lower()), None)
        if name is None:
            raise Reject(404, "File not found")
        row = rows[name]
        if row["size"] > 10 * 1024 * 1024:
            raise Reject(413, "File exceeds 10MB limit")
        data = self.blobs.get(row["sha256"])
        if _truthy(q.get("preview")):
            if len(data) > 200 * 1024:
                raise Reject(413, "File exceeds 200KB preview limit")
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                raise Reject(415, "File is not UTF-8 text") from None
        digest = row["sha256"]
        return Reply(200, data, {
            "Content-Disposition": "attachment; filename*=UTF-8''" + urllib.parse.quote(name.rsplit("/", 1)[-1]),
            "ETag": f'"{digest}"', "X-Content-SHA256": digest, "X-Content-Size": str(len(data)),
            "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox",
            "Cache-Control": "private, max-age=60"}, safe_content_type(row.get("contentType"), name))

    # ------------------------------------------------------------------ download and resolve

    def archive(self, doc: dict[str, Any], v: dict[str, Any]) -> bytes:
        key = (doc["owner"], doc["slug"], v["version"])
        with self._lock:
            data = self._zips.get(key)
            if data is not None:
                self._zips.move_to_end(key)
                return data
        files = {f["path"]: self.blobs.get(f["sha256"]) for f in v["files"]}
        data = build_zip(files, {"ownerId": doc.get("ownerId"), "slug": doc["slug"], "version": v["version"],
                                 "publishedAt": v["createdAt"]})
        with self._lock:
            self._zips[key] = data
            while len(self._zips) > self._zip_cap:
                self._zips.popitem(last=False)
        return data

    def download(self, q: Mapping[str, str], caller: str) -> Reply:
        slug = (q.get("slug") or "").strip()
        if not slug:
            raise Reject(400, "Missing slug")
        doc = self.find(slug, q, "text")
        v = self.pick(doc, q)
        data = self.archive(doc, v)
        if self._first_today(caller, f"{doc['owner']}/{doc['slug']}"):
            try:
                self.catalog.count_download(doc["owner"], doc["slug"])
            except Exception:  # a statistic must never fail a download
                pass
        return Reply(200, data, {"Content-Disposition": f'attachment; filename="{doc["slug"]}-{v["version"]}.zip"',
                                 "Cache-Control": "private, max-age=60"}, "application/zip")

    def _first_today(self, caller: str, skill: str) -> bool:
        """Whether this is the caller's first download of the skill today (UTC). The marks are
        forgotten when the day changes, and the oldest go first beyond ``counted_cap``."""
        day = time.strftime("%Y-%m-%d", time.gmtime())
        mark = (caller, skill)
        with self._lock:
            if day != self._counted_day:
                self._counted.clear()
                self._counted_day = day
            if mark in self._counted:
                self._counted.move_to_end(mark)
                return False
            self._counted[mark] = None
            while len(self._counted) > self._counted_cap:
                self._counted.popitem(last=False)
            return True

    def resolve(self, q: Mapping[str, str]) -> dict[str, Any]:
        slug = (q.get("slug") or "").strip()
        digest = (q.get("hash") or "").strip()
        if not slug or not digest:
            raise Reject(400, "Missing slug or hash")
        if not SHA_RE.match(digest):
            raise Reject(400, "Invalid hash")
        doc = self.find(slug, q, "text")
        match = None
        for v in live_versions(doc):
            if v.get("fingerprint") == digest:
                match = {"version": v["version"]}
        latest = latest_version(doc)
        return {"slug": doc["slug"], "match": match, "latestVersion": {"version": latest["version"]} if latest else None}

    def security_verdicts(self, body: bytes) -> dict[str, Any]:
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            raise Reject(400, "Invalid JSON body") from None
        items = data.get("items") if isinstance(data, dict) else None
        if not isinstance(items, list) or not 1 <= len(items) <= 100:
            raise Reject(400, "items must contain 1-100 entries")
        out = []
        for item in items:
            item = item if isinstance(item, dict) else {}
            slug = str(item.get("slug", ""))
            ver = item.get("version")
            try:
                doc = self.find(slug, {"ownerHandle": item["ownerHandle"]} if item.get("ownerHandle") else {}, "text")
            except Reject as exc:
                code = "ambiguous_slug" if exc.status == 409 else "not_found"
                out.append({"slug": slug, "version": ver, "error": {"code": code, "message": exc.text}})
                continue
            v = next((x for x in live_versions(doc) if x["version"] == ver), None)
            status = effective_verdict(v) if v else "error"
            passed = status == "clean"
            out.append({"slug": doc["slug"], "ownerHandle": doc["owner"], "version": ver, "ok": passed,
                        "decision": "pass" if passed else "fail", "reasons": [] if passed else [f"security.{status}"],
                        "security": {"status": status, "passed": passed, "signals": {}}})
        return {"schema": "clawhub.skill.security-verdicts.v1", "items": out}

    # ------------------------------------------------------------------ publishing

    def upload_url(self, user: dict[str, Any], body: bytes, base: str) -> dict[str, Any]:
        data = _json_object(body)
        check_path(data.get("path"))
        size, sha = data.get("size"), str(data.get("sha256") or "")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise Reject(400, "Invalid size")
        if size > self.limits.max_file_bytes:
            raise Reject(413, f"File exceeds {self.limits.max_file_bytes // (1024 * 1024)}MB limit")
        if not SHA_RE.match(sha):
            raise Reject(400, "Invalid sha256")
        ticket = f"{sha}.{size}"
        return {"uploadUrl": f"{self.site_url or base}/api/v1/uploads/{ticket}", "uploadTicket": ticket}

    def upload(self, ticket: str, data: bytes) -> dict[str, Any]:
        sha, _, size = ticket.partition(".")
        if not SHA_RE.match(sha) or not _DIGITS_RE.match(size) or len(size) > 12:
            raise Reject(400, "Invalid upload ticket")
        if len(data) != int(size) or hashlib.sha256(data).hexdigest() != sha:
            raise Reject(400, "Upload does not match its SHA-256 or size")
        return {"storageId": self.blobs.put(data)}

    def publish(self, user: dict[str, Any], body: bytes) -> dict[str, Any]:
        data = _json_object(body)
        slug = check_slug(str(data.get("slug") or "").strip().lower())
        version = check_version(data.get("version"))
        owner = check_handle(data.get("ownerHandle") or user["handle"])
        if owner != user["handle"] and user.get("role") != "moderator":
            raise Reject(403, f"Forbidden: this token publishes as @{user['handle']}, not @{owner}")
        rows = data.get("files")
        if not isinstance(rows, list) or not rows:
            raise Reject(400, "files must be a non-empty list")
        if len(rows) > self.limits.max_files:
            raise Reject(413, f"Too many files: {len(rows)} (limit {self.limits.max_files})")
        files: dict[str, bytes] = {}
        seen: dict[str, str] = {}
        table: list[dict[str, Any]] = []
        total = 0
        for row in rows:
            if not isinstance(row, dict):
                raise Reject(400, "Invalid file entry")
            path = check_path(row.get("path"))
            key = name_key(path)
            if key in seen:  # equal once Unicode-normalised and case-folded: one file on most disks
                raise Reject(400, f"Duplicate file path {path!r} (same name as {seen[key]!r} ignoring case and "
                                  "Unicode normalisation)")
            seen[key] = path
            ctype = check_content_type(row.get("contentType"), path)
            sha = str(row.get("sha256") or "")
            storage_id = str(row.get("storageId") or sha)
            if not SHA_RE.match(sha) or storage_id != sha:
                raise Reject(400, f"Invalid sha256 or storageId for {path!r}")
            if not self.blobs.has(sha):
                raise Reject(400, f"File {path!r} was not uploaded (storageId {sha[:12]}…)")
            blob = self.blobs.get(sha)
            if hashlib.sha256(blob).hexdigest() != sha:
                raise Reject(500, f"Stored blob {sha[:12]}… is corrupt")
            total += len(blob)
            if len(blob) > self.limits.max_file_bytes:
                raise Reject(413, f"File {path!r} exceeds {self.limits.max_file_bytes // (1024 * 1024)}MB limit")
            if total > self.limits.max_total_bytes:
                raise Reject(413, f"Upload exceeds {self.limits.max_total_bytes // (1024 * 1024)}MB limit")
            files[path] = blob
            table.append({"path": path, "size": len(blob), "sha256": sha,
                          "contentType": ctype or content_type(path)})
        if not any(p.lower() in ("skill.md", "skills.md") for p in files):
            raise Reject(400, "SKILL.md required")
        at = now_ms()
        existing = self.catalog.get(owner, slug)
        if existing and any(v["version"] == version for v in existing.get("versions", [])):
            raise Reject(409, f"Version {version} of {owner}/{slug} already exists; published versions are immutable")
        from ...errors import NervousError

        try:
            moderation = scan_files(self.pm, slug, owner, version, files, at)
        except NervousError as exc:
            raise Reject(400, f"Upload refused: {exc}") from None
        display = str(data.get("displayName") or slug)[:200]
        summary = _summary(files) or display
        given = data.get("topics")
        topics = [str(t)[:50] for t in (given if isinstance(given, list) else [])[:20] if isinstance(t, str)]
        record = {"version": version, "createdAt": at, "changelog": str(data.get("changelog") or "")[:10_000],
                  "changelogSource": "user" if data.get("changelog") else "auto", "license": "MIT-0",
                  "files": [], "publisher": user["handle"],
                  "fingerprint": skill_fingerprint([(str(r["path"]), str(r["sha256"])) for r in table]),
                  "moderation": moderation, "deleted": False}
        from ...kernel.fingerprint import sort_paths

        order = sort_paths([str(r["path"]) for r in table])
        by_path = {r["path"]: r for r in table}
        record["files"] = [by_path[p] for p in order]
        self.catalog.publish(owner, slug, record, display_name=display, summary=summary, topics=topics,
                             owner_id=f"users:{owner}")
        return {"ok": True, "skillId": f"{owner}/{slug}", "versionId": f"{owner}/{slug}@{version}",
                "status": "published", "slug": slug, "version": version, "publicationStatus": "published",
                "verdict": moderation["verdict"], "ruleIds": moderation["ruleIds"]}

    def override(self, user: dict[str, Any], slug: str, q: Mapping[str, str], body: bytes) -> dict[str, Any]:
        if user.get("role") != "moderator":
            raise Reject(403, "Forbidden: moderator token required")
        data = _json_object(body)
        owner = check_handle(data.get("ownerHandle") or q.get("ownerHandle") or "")
        doc = self.catalog.override(owner, check_slug(slug), check_version(data.get("version")),
                                    str(data.get("verdict") or ""), str(data.get("reason") or ""), user["handle"])
        v = next(x for x in doc["versions"] if x["version"] == data["version"])
        return {"ok": True, "slug": slug, "ownerHandle": owner, "version": v["version"],
                "verdict": effective_verdict(v), "override": v["moderation"]["override"]}

    def delete_version(self, user: dict[str, Any], slug: str, ver: str, q: Mapping[str, str]) -> dict[str, Any]:
        owner = check_handle(q.get("ownerHandle") or user["handle"])
        if owner != user["handle"] and user.get("role") != "moderator":
            raise Reject(403, "Forbidden: only the publisher or a moderator can delete a version")
        self.catalog.soft_delete(owner, check_slug(slug), check_version(ver), user["handle"])
        with self._lock:
            self._zips.pop((owner, slug, ver), None)
        return {"ok": True, "slug": slug, "ownerHandle": owner, "version": ver, "deleted": True}


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise Reject(400, "Invalid JSON body") from None
    if not isinstance(data, dict):
        raise Reject(400, "Invalid JSON body: expected an object")
    return data


def _summary(files: Mapping[str, bytes]) -> str | None:
    """The frontmatter description of SKILL.md, if it parses."""
    from ...kernel.skillmd import parse_skill_md

    name = next((p for p in files if p.lower() in ("skill.md", "skills.md")), None)
    if name is None:
        return None
    try:
        parsed = parse_skill_md(files[name])
    except Exception:
        return None
    desc = getattr(parsed, "description", None)
    return str(desc)[:500] if desc else None


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer …`` header (the scheme's name in any case, RFC 9110 §11.1), or ``""``."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
