"""Registry metadata through a :class:`nervous.kernel.storage.Store` (SQLite for one server, PostgreSQL for several).

Collections: ``registry_skills`` (one document per ``owner/slug``, versions inside it, so that a
publish is one atomic document update: the whole version or nothing), ``registry_tokens``
(publisher and moderator tokens, by SHA-256), ``registry_meta`` (a generation counter that tells
other servers to refresh their search cache). Log ``registry_audit``: publishes, overrides, deletions.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from .rules import Reject, version_key

SKILLS = "registry_skills"
TOKENS = "registry_tokens"
META = "registry_meta"
AUDIT = "registry_audit"

VERDICTS = ("clean", "suspicious", "malicious")


def now_ms() -> int:
    return int(time.time() * 1000)


def token_id(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def effective_verdict(version: dict[str, Any]) -> str:
    """The scan verdict, unless a moderator overrode it."""
    mod = version.get("moderation") or {}
    override = mod.get("override")
    if override:
        return str(override["verdict"])
    return str(mod.get("verdict") or "clean")


def live_versions(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Versions not soft-deleted, oldest first by semver."""
    return sorted((v for v in doc.get("versions", []) if not v.get("deleted")), key=lambda v: version_key(v["version"]))


def installable_versions(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [v for v in live_versions(doc) if effective_verdict(v) != "malicious"]


def latest_version(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The newest live version that is not blocked as malware."""
    ok = installable_versions(doc)
    return ok[-1] if ok else None


class Catalog:
    """Reads and atomic writes of registry metadata, with an in-memory search cache.

    The cache holds every skill document; it is refreshed when the shared generation counter
    moves (checked at most every ``refresh_interval`` seconds), so a second server sees a
    publish within that interval, and the publishing server at once.
    """

    def __init__(self, store: Any, *, refresh_interval: float = 1.0) -> None:
        self.store = store
        self.refresh_interval = refresh_interval
        self._lock = threading.Lock()
        self._docs: dict[str, dict[str, Any]] = {}
        self._generation: int | None = None
        self._checked = 0.0
        self._listeners: list[Callable[[], None]] = []
        self._reload_lock = threading.Lock()
        self._reloads_started = 0  # reloads begun (the one in progress included)
        self._reload_done_start = 0  # the number of the last reload that finished
        #: full reloads of the cache so far (each reads every skill document)
        self.reloads = 0

    # ---------------------------------------------------------------- cache

    def on_change(self, fn: Callable[[], None]) -> None:
        self._listeners.append(fn)

    def _read_generation(self) -> int:
        value = self.store.read(META, "generation").value or {}
        return int(value.get("n", 0))

    def refresh(self, force: bool = False, *, check: bool = False) -> None:
        """Reload the cache when the shared generation counter moved (read at most every
        ``refresh_interval`` seconds; at once with ``check``), or unconditionally with ``force``.

        One reload at a time: callers that arrive while one runs wait for it, and use the result
        of a reload that started after they arrived instead of starting another (so a burst of
        callers costs at most two reloads, never one each).
        """
        now = time.monotonic()
        if not force and not check and self._generation is not None and now - self._checked < self.refresh_interval:
            return
        arrived = self._reloads_started
        with self._reload_lock:
            if self._reload_done_start > arrived:  # a reload that began after we arrived has finished
                return
            gen = self._read_generation()
            self._checked = time.monotonic()
            if not force and gen == self._generation:
                return
            self._reloads_started += 1
            started = self._reloads_started
            docs = {}
            for key in self.store.keys(SKILLS):
                doc = self.store.read(SKILLS, key).value
                if doc:
                    docs[key] = doc
            with self._lock:
                self._docs = docs
                self._generation = gen
            self._reload_done_start = started
            self.reloads += 1
        for fn in self._listeners:
            fn()

    def documents(self) -> list[dict[str, Any]]:
        self.refresh()
        with self._lock:
            return list(self._docs.values())

    def _cache_put(self, key: str, doc: dict[str, Any]) -> None:
        with self._lock:
            self._docs[key] = doc
        for fn in self._listeners:
            fn()

    def _bump(self) -> None:
        def inc(d: dict[str, Any]) -> int:
            d["n"] = int(d.get("n", 0)) + 1
            return int(d["n"])

        gen = self.store.update(META, "generation", inc).result
        with self._lock:
            if self._generation is not None and gen == self._generation + 1:
                self._generation = gen

    # ---------------------------------------------------------------- lookups

    def get(self, owner: str, slug: str) -> dict[str, Any] | None:
        doc = self.store.read(SKILLS, f"{owner}/{slug}").value
        if doc and not doc.get("deleted"):
            return dict(doc)
        return None

    def owners_of(self, slug: str) -> list[str]:
        """Publishers with a live skill of this slug.

        On a miss the generation counter is read at once (one small read, what a hit costs), and
        the cache reloaded only if another server changed something since: a skill published a
        moment ago elsewhere is found, and a lookup of an unknown name never reloads the catalogue.
        """
        def scan() -> list[str]:
            with self._lock:
                return sorted(d["owner"] for d in self._docs.values() if d["slug"] == slug and not d.get("deleted"))

        self.refresh()
        found = scan()
        if not found:
            self.refresh(check=True)
            found = scan()
        return found

    # ---------------------------------------------------------------- tokens

    def create_token(self, handle: str, role: str = "publisher", display_name: str | None = None) -> str:
        if role not in ("publisher", "moderator"):
            raise ValueError(f"role must be publisher or moderator, not {role!r}")
        token = "clh_" + secrets.token_urlsafe(32)

        def put(d: dict[str, Any]) -> None:
            d.update({"handle": handle, "role": role, "displayName": display_name or handle,
                      "createdAt": now_ms(), "revoked": False})

        self.store.update(TOKENS, token_id(token), put)
        self.store.append(AUDIT, {"at": now_ms(), "event": "token_created", "handle": handle, "role": role})
        return token

    def revoke_token(self, token: str) -> str | None:
        """``"revoked"``, ``"already revoked"``, or ``None`` when no such token exists (a store failure raises)."""
        from ...errors import NotFound

        def revoke(d: dict[str, Any]) -> tuple[bool, Any]:
            was = bool(d.get("revoked"))
            d["revoked"] = True
            return was, d.get("handle")

        try:
            was, handle = self.store.update(TOKENS, token_id(token), revoke, create=False).result
        except NotFound:
            return None
        if was:
            return "already revoked"
        self.store.append(AUDIT, {"at": now_ms(), "event": "token_revoked", "handle": handle})
        return "revoked"

    def user_for(self, token: str) -> dict[str, Any] | None:
        doc = self.store.read(TOKENS, token_id(token)).value
        if not doc or doc.get("revoked"):
            return None
        return dict(doc)

    # ---------------------------------------------------------------- writes

    def publish(self, owner: str, slug: str, version: dict[str, Any], *, display_name: str, summary: str,
                topics: list[str], owner_id: str) -> dict[str, Any]:
        """Add an immutable version; 409 if that version exists (even soft-deleted). Atomic."""
        key = f"{owner}/{slug}"
        at = int(version["createdAt"])

        def add(doc: dict[str, Any]) -> dict[str, Any]:
            if any(v["version"] == version["version"] for v in doc.get("versions", [])):
                raise Reject(409, f"Version {version['version']} of {owner}/{slug} already exists; published "
                                  "versions are immutable")
            if not doc:
                doc.update({"slug": slug, "owner": owner, "ownerId": owner_id, "createdAt": at,
                            "downloads": 0, "versions": []})
            doc["deleted"] = False
            doc["displayName"] = display_name
            doc["summary"] = summary
            doc["topics"] = topics
            doc["updatedAt"] = at
            doc["versions"].append(version)
            return dict(doc)

        doc: dict[str, Any] = self.store.update(SKILLS, key, add).result
        self._cache_put(key, doc)
        self._bump()
        self.store.append(AUDIT, {"at": at, "event": "publish", "skill": key, "version": version["version"],
                                  "publisher": version.get("publisher"),
                                  "verdict": version["moderation"]["verdict"],
                                  "ruleIds": version["moderation"].get("ruleIds", [])})
        return doc

    def _edit_version(self, owner: str, slug: str, ver: str, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        key = f"{owner}/{slug}"

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            if not doc or doc.get("deleted"):
                raise Reject(404, "Skill not found")
            for v in doc.get("versions", []):
                if v["version"] == ver:
                    edit(v)
                    doc["updatedAt"] = now_ms()
                    return dict(doc)
            raise Reject(404, "Version not found")

        doc: dict[str, Any] = self.store.update(SKILLS, key, change).result
        self._cache_put(key, doc)
        self._bump()
        return doc

    def override(self, owner: str, slug: str, ver: str, verdict: str, reason: str, moderator: str) -> dict[str, Any]:
        """A moderator's verdict over the scan's, with a reason (audit-logged)."""
        if verdict not in VERDICTS:
            raise Reject(400, f"Invalid verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
        if not reason.strip():
            raise Reject(400, "An override needs a reason")
        at = now_ms()
        previous: list[str] = []

        def edit(v: dict[str, Any]) -> None:
            previous[:] = [effective_verdict(v)]
            v.setdefault("moderation", {})["override"] = {"verdict": verdict, "reason": reason,
                                                          "by": moderator, "at": at}

        doc = self._edit_version(owner, slug, ver, edit)
        self.store.append(AUDIT, {"at": at, "event": "override", "skill": f"{owner}/{slug}", "version": ver,
                                  "from": previous[0] if previous else None, "to": verdict, "reason": reason,
                                  "by": moderator})
        return doc

    def soft_delete(self, owner: str, slug: str, ver: str, by: str) -> dict[str, Any]:
        def edit(v: dict[str, Any]) -> None:
            v["deleted"] = True

        doc = self._edit_version(owner, slug, ver, edit)
        self.store.append(AUDIT, {"at": now_ms(), "event": "delete", "skill": f"{owner}/{slug}", "version": ver,
                                  "by": by})
        return doc

    def count_download(self, owner: str, slug: str) -> None:
        def inc(d: dict[str, Any]) -> None:
            if d:
                d["downloads"] = int(d.get("downloads", 0)) + 1

        self.store.update(SKILLS, f"{owner}/{slug}", inc, create=False)

    def audit(self, limit: int | None = None) -> list[dict[str, Any]]:
        return list(self.store.read_log(AUDIT, limit=limit))
