"""The ``clawhub`` registry: ClawHub's HTTP API (specs/protocols.md Part A).

Registry resolution: ``[plugins.clawhub] registry`` or ``CLAWHUB_REGISTRY`` (no discovery), else
discovery through ``<site>/.well-known/clawhub.json`` (``site`` setting, ``CLAWHUB_SITE``, default
``https://clawhub.ai``). A configured site whose discovery fails is a registry error for that
registry: nervous never falls back to another host, and a token only travels to the configured
site's own origin (a discovered ``apiBase`` elsewhere is refused while a token is set). Token: ``[plugins.clawhub] token`` or ``CLAWHUB_TOKEN``, sent as a bearer
token. Moderation is read in both the current visibility (gated skills are 404 except on
``/versions/{v}`` and ``/scan``) and the legacy one (403 / 423 / 410 everywhere).

Names in the registry's answers (slug, owner handle, version) must pass the rules of a typed
reference, and the owner and version must match the request; otherwise the answer is refused as a
``registry_error``. A renamed slug resolves to its canonical skill (protocols A4), with a warning. Non-finite
numbers in answers (``1e400``, ``NaN``) are dropped.

The network client is imported on first use, never when the plugin loads.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from nervous.errors import NervousError, NotFound, Refused, RegistryError, UsageError
from nervous.plugin import (
    FileDigest,
    ScanStatus,
    SearchHit,
    SkillBundle,
    SkillMetadata,
    SkillRef,
    SkillVersion,
)

if TYPE_CHECKING:
    from nervous.plugin import ProviderContext
    from nervous.plugin.toolkit import HttpClient, HttpStatusError

DEFAULT_SITE = "https://clawhub.ai"
#: how long a skill or version answer is reused within one process (plan, then fetch)
MEMO_SECONDS = 30.0
NAME = "clawhub"

T = TypeVar("T")


def _factory(ctx: ProviderContext) -> ClawHubRegistry:
    settings = ctx.settings
    install = ctx.config.install
    # a [registries.<name>] entry has its own URL and token: no CLAWHUB_* fallback leaks into it
    env: dict[str, str] = {} if settings.get("registry_name") else dict(os.environ)
    registry = ClawHubRegistry(
        registry=settings.get("registry") or env.get("CLAWHUB_REGISTRY") or None,
        site=settings.get("site") or env.get("CLAWHUB_SITE") or None,
        token=settings.get("token") or env.get("CLAWHUB_TOKEN") or None,
        timeout=float(settings.get("timeout", 15.0)),
        download_timeout=float(settings.get("download_timeout", 60.0)),
        max_download_bytes=int(settings.get("max_download_bytes", 10 * 1024 * 1024)),
        limits=install,
    )
    if settings.get("registry_name"):
        registry.name = str(settings["registry_name"])
    return registry


class ClawHubRegistry:
    """A :class:`nervous.plugin.protocols.Registry` speaking ClawHub's ``/api/v1`` routes."""

    name = NAME

    def __init__(
        self,
        *,
        registry: str | None = None,
        site: str | None = None,
        token: str | None = None,
        timeout: float = 15.0,
        download_timeout: float = 60.0,
        max_download_bytes: int = 10 * 1024 * 1024,
        limits: Any = None,
        http_options: dict[str, Any] | None = None,
    ) -> None:
        self._registry = registry.rstrip("/") if registry else None
        self.site = (site or DEFAULT_SITE).rstrip("/")
        # links point at the site that serves this registry: the one configured, else the registry itself
        self._link_base = site.rstrip("/") if site else self._registry
        self._memo: dict[tuple[str, ...], tuple[float, Any]] = {}
        self.token = token
        self.timeout = timeout
        self.download_timeout = download_timeout
        self.max_download_bytes = max_download_bytes
        self.limits = limits
        self.http_options = dict(http_options or {})
        self._http: HttpClient | None = None
        self.warnings: list[str] = []

    # ------------------------------------------------------------------ connection

    @property
    def base_url(self) -> str:
        """The resolved registry API base (discovered once when not configured)."""
        if self._registry is None:
            self._registry = self._discover()
        return self._registry

    def _discover(self) -> str:
        """The API base announced by ``<site>/.well-known/clawhub.json`` (then ``clawdhub.json``).

        Only the public default site falls back (to itself) when discovery fails; any other site is a
        registry error, so a team registry's token never travels to another host.
        """
        from nervous.plugin.toolkit import HttpClient

        probe = HttpClient(self.site, timeout=self.timeout, **{**self.http_options, "retries": 0})
        reasons: list[str] = []
        unreachable = False
        for path in ("/.well-known/clawhub.json", "/.well-known/clawdhub.json"):
            try:
                data = probe.get_json(path)
            except NervousError as exc:
                reasons.append(exc.message)
                unreachable = unreachable or exc.code == "unreachable"
                continue
            base = (data.get("apiBase") or data.get("registry")) if isinstance(data, dict) else None
            if isinstance(base, str) and base.startswith(("http://", "https://")):
                return self._check_discovered(base.rstrip("/"))
            reasons.append(f"{path}: no apiBase in the answer")
        if _origin(self.site) == _origin(DEFAULT_SITE):
            self.warnings.append(f"{self.name}: discovery at {self.site} failed; using {DEFAULT_SITE}")
            return DEFAULT_SITE
        message = (f"{self.name}: discovery at {self.site} failed ({'; '.join(reasons)}); set the registry "
                   "url to skip discovery")
        self.warnings.append(message)
        raise RegistryError(message, code="unreachable" if unreachable else "registry_error",
                            details={"site": self.site, "registry": self.name})

    def _check_discovered(self, base: str) -> str:
        """A discovered API base may not downgrade to http, nor take a token to another origin."""
        site = _origin(self.site)
        found = _origin(base)
        if site[0] == "https" and found[0] != "https":
            raise RegistryError(f"{self.name}: discovery at {self.site} announced an http API base {base}; refused",
                                code="registry_error", details={"site": self.site, "apiBase": base})
        if self.token and found != site:
            raise RegistryError(
                f"{self.name}: discovery at {self.site} announced an API base on another host ({base}); the token "
                "is only sent to the configured site (set the registry url explicitly to trust it)",
                code="registry_error", details={"site": self.site, "apiBase": base})
        return base

    def _checked_ref(self, ref: SkillRef, slug: Any, owner: Any, what: str, *, renamed: bool = True) -> SkillRef:
        """The registry's names for ``ref``: valid as a typed reference and equal to what was asked."""
        answered = _answer_ref(slug if slug is not None else ref.name, owner, self.name, what=what)
        if owner is None and ref.owner:  # the answer does not say: the owner asked for stands
            answered = SkillRef(name=answered.name, owner=ref.owner.lower(), registry=self.name)
        if ref.owner and answered.owner != ref.owner.lower():
            raise RegistryError(
                f"{self.name}: asked for {ref.qualified}, the registry's {what} names {answered.qualified}; refused "
                "(another publisher than the one asked for)",
                code="registry_error", details={"requested": ref.qualified, "answered": answered.qualified})
        if answered.name != ref.name.lower() and not renamed:
            raise RegistryError(
                f"{self.name}: asked for {ref.qualified}, the registry's {what} names {answered.qualified}; refused",
                code="registry_error", details={"requested": ref.qualified, "answered": answered.qualified})
        if answered.name != ref.name.lower():
            # a renamed or merged slug resolves to the canonical skill (protocols A4): it installs under the
            # canonical name, which passed the rules of a typed reference above, and the user is told
            self.warnings.append(f"{self.name}: {ref.qualified} resolves to {answered.qualified} (renamed); "
                                 f"installing it under {answered.name}")
        return answered

    @property
    def link_base(self) -> str:
        """Where ``url`` links point: the configured site, else the configured registry, else the public site."""
        return self._link_base or self.site

    def _remember(self, key: tuple[str, ...], load: Any, *, reuse: bool = False) -> Any:
        """Ask the registry and keep the answer; with ``reuse``, an answer kept a few seconds ago serves.

        Only :meth:`fetch` reuses: the detail and version an install was just planned (and gated) on
        are not fetched again, while every explicit ``resolve``/``version`` call sees the registry now.
        """
        import time

        hit = self._memo.get(key)
        if reuse and hit is not None and time.monotonic() - hit[0] < MEMO_SECONDS:
            return hit[1]
        value = load()
        self._memo[key] = (time.monotonic(), value)
        return value

    @property
    def http(self) -> HttpClient:
        if self._http is None:
            from nervous.plugin.toolkit import HttpClient

            self._http = HttpClient(self.base_url, token=self.token, timeout=self.timeout,
                                    download_timeout=self.download_timeout, **self.http_options)
        return self._http

    def close(self) -> None:
        self._http = None
        self._memo.clear()

    # ------------------------------------------------------------------ search

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        data = self._get("/api/v1/search", {"q": query, "limit": max(1, min(limit, 100))}, what="search")
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise RegistryError(f"clawhub search: unexpected answer from {self.base_url} (no 'results' list)")
        hits: list[SearchHit] = []
        for row in rows:
            hit = self._hit(row)
            if hit is not None:
                hits.append(hit)
        return hits[:limit]

    def _hit(self, row: Any) -> SearchHit | None:
        if not isinstance(row, dict) or not isinstance(row.get("slug"), str):
            return None
        # Rows from other catalogs (skills.sh) are not ClawHub-hosted and are skipped on purpose.
        source = row.get("source")
        if source not in (None, "clawhub"):
            return None
        owner = row.get("ownerHandle") or (row.get("publisher") or {}).get("handle") \
            or (row.get("owner") or {}).get("handle")
        metrics = row.get("metrics") or {}
        trust = row.get("trust") or {}
        verdict = trust.get("clawHubVerdict")
        raw_mod = row.get("moderation")
        mod: dict[str, Any] = raw_mod if isinstance(raw_mod, dict) else {}
        if not isinstance(verdict, str):  # older servers flag rows instead of giving a verdict
            if row.get("isMalwareBlocked") is True or mod.get("isMalwareBlocked") is True:
                verdict = "malicious"
            elif row.get("isSuspicious") is True or mod.get("isSuspicious") is True:
                verdict = "suspicious"
        canonical = row.get("canonicalUrl")
        if not isinstance(canonical, str) and isinstance(owner, str):
            canonical = f"/{owner}/skills/{row['slug']}"
        try:
            ref = _answer_ref(row["slug"], owner if isinstance(owner, str) else None, self.name)
        except NervousError:
            return None  # a row whose names no user could type is skipped
        return SearchHit(
            registry=self.name, ref=ref, display_name=str(row.get("displayName") or row["slug"]),
            summary=str(row.get("summary") or ""), version=row.get("version") or None,
            stars=_int(metrics.get("bookmarks")), downloads=_int(row.get("downloads")),
            score=_float(row.get("score")),
            scan=ScanStatus(status=str(verdict)) if isinstance(verdict, str) else ScanStatus("unknown"),
            reviewed=True, url=f"{self.link_base}{canonical}" if isinstance(canonical, str) else None,
            updated_at=_iso(row.get("updatedAt")),
        )

    # ------------------------------------------------------------------ skill detail

    def resolve(self, ref: SkillRef, *, _reuse: bool = False) -> SkillMetadata:
        data = self._remember(("skill", ref.owner or "", ref.name),
                              lambda: self._skill_get(ref, "", what="skill detail"), reuse=_reuse)
        skill = data.get("skill") or {}
        if not skill:
            raise NotFound(f"clawhub: skill {ref.qualified} not found at {self.base_url}", code="not_found")
        owner = (data.get("owner") or {}).get("handle")
        latest = (data.get("latestVersion") or {}).get("version")
        mod = data.get("moderation") or None
        stats = skill.get("stats") or {}
        moderation = "visible"
        scan = ScanStatus("unknown")
        if isinstance(mod, dict):
            codes = tuple(str(c) for c in mod.get("reasonCodes") or ())
            if mod.get("isMalwareBlocked") or mod.get("verdict") == "malicious":
                moderation = "malware"
                scan = ScanStatus("malicious", mod.get("summary"), codes)
            elif mod.get("isSuspicious") or mod.get("verdict") == "suspicious":
                moderation = "suspicious"
                scan = ScanStatus("suspicious", mod.get("summary"), codes)
        checked = self._checked_ref(ref, skill.get("slug"), owner, "skill detail")
        slug, owner = checked.name, checked.owner
        if owner and not ref.owner:  # the same answer under the owner-qualified name
            self._memo[("skill", owner.lower(), slug)] = self._memo[("skill", "", ref.name)]
        return SkillMetadata(
            registry=self.name,
            ref=checked,
            display_name=str(skill.get("displayName") or slug), summary=str(skill.get("summary") or ""),
            latest_version=latest, versions=(latest,) if latest else (),
            stars=_int(stats.get("stars")), downloads=_int(stats.get("downloads")),
            moderation=moderation, scan=scan, reviewed=True,
            url=f"{self.link_base}/{owner}/skills/{slug}" if owner else None,
        )

    def versions(self, ref: SkillRef) -> list[SkillVersion]:
        out: list[SkillVersion] = []
        cursor: str | None = None
        for _page in range(100):  # bounded paging: a short page is not the end, a null cursor is
            params: dict[str, Any] = {"limit": 50}
            if cursor:
                params["cursor"] = cursor
            data = self._skill_get(ref, "/versions", params, what="versions")
            for item in data.get("items") or []:
                if isinstance(item, dict) and isinstance(item.get("version"), str):
                    out.append(SkillVersion(version=item["version"], created_at=_iso(item.get("createdAt")),
                                            changelog=str(item.get("changelog") or "")))
            cursor = data.get("nextCursor")
            if not cursor:
                break
        return out

    def version(self, ref: SkillRef, version: str | None = None, *, _reuse: bool = False) -> SkillVersion:
        if version is None:
            version = self.resolve(ref).latest_version
            if version is None:
                raise NotFound(f"clawhub: {ref.qualified} has no hosted version (GitHub-backed skills are "
                               "installed through the github registry)", code="no_version")
        from urllib.parse import quote

        data = self._remember(("version", ref.owner or "", ref.name, version),
                              lambda: self._skill_get(ref, f"/versions/{quote(version, safe='')}",
                                                      what=f"version {version}"), reuse=_reuse)
        body = data.get("version") or {} if isinstance(data, dict) else {}
        if not isinstance(body, dict) or not body:
            raise NotFound(f"clawhub: {ref.qualified} version {version} not found", code="not_found")
        skill = data.get("skill")
        if isinstance(skill, dict) and skill.get("slug") is not None:
            self._checked_ref(ref, skill.get("slug"), None, f"version {version}", renamed=False)
        answered = body.get("version")
        if answered is not None and answered != version:
            raise RegistryError(f"{self.name}: asked for {ref.qualified} version {version!r}, the registry answered "
                                f"version {str(answered)[:80]!r}; refused", code="registry_error",
                                details={"requested": version, "answered": str(answered)[:200]})
        files = tuple(
            FileDigest(path=str(f["path"]), size=_int(f.get("size")) or 0,
                       sha256=str(f["sha256"]).lower() if f.get("sha256") else None)
            for f in body.get("files") or [] if isinstance(f, dict) and f.get("path")
        )
        fingerprint = None
        if files and all(f.sha256 for f in files):
            from nervous.plugin.toolkit import skill_fingerprint

            fingerprint = skill_fingerprint((f.path, f.sha256 or "") for f in files)
        return SkillVersion(version=version, created_at=_iso(body.get("createdAt")),
                            changelog=str(body.get("changelog") or ""), files=files,
                            scan=_scan_status(body.get("security")), fingerprint=fingerprint)

    # ------------------------------------------------------------------ downloads

    def download(self, ref: SkillRef, version: str, progress: Any = None) -> bytes:
        """The hosted zip of one version (no checksum header: verify against ``files[]``)."""
        params = {"slug": ref.name, "ownerHandle": ref.owner, "version": version}
        resp = self._call(lambda: self.http.get_bytes("/api/v1/download", params, max_bytes=self.max_download_bytes,
                                                      progress=progress), ref, "download")
        ctype = resp.header("content-type", "") or ""
        if ctype.startswith("application/json"):
            raise Refused(f"clawhub: {ref.qualified} is GitHub-backed; install it from its GitHub source",
                          code="github_backed")
        return resp.body

    def file(self, ref: SkillRef, path: str, version: str | None = None) -> bytes:
        params = {"path": path, "version": version, "ownerHandle": ref.owner}
        from urllib.parse import quote

        resp = self._call(lambda: self.http.get_bytes(f"/api/v1/skills/{quote(ref.name, safe='')}/file", params,
                                                      max_bytes=self.max_download_bytes), ref, f"file {path}")
        return resp.body

    def fetch(self, ref: SkillRef, version: str | None = None, progress: Any = None) -> SkillBundle:
        meta = self.resolve(ref, _reuse=True)
        version = version or meta.latest_version
        if version is None:
            raise NotFound(f"clawhub: {ref.qualified} has no hosted version", code="no_version")
        detail = self.version(meta.ref, version, _reuse=True)
        data = self.download(meta.ref, version, progress=progress)
        from nervous.plugin.toolkit import Limits, load_zip

        limits = Limits()
        if self.limits is not None:
            limits = Limits(max_total_bytes=self.limits.max_total_bytes, max_files=self.limits.max_files,
                            max_file_bytes=self.limits.max_file_bytes,
                            max_compression_ratio=self.limits.max_compression_ratio,
                            max_archive_bytes=self.max_download_bytes)
        return load_zip(data, limits=limits, ref=meta.ref, version=version, registry=self.name, expected=detail.files,
                        strip_top=False, name=f"clawhub archive {meta.ref.qualified}@{version}")

    # ------------------------------------------------------------------ error mapping

    def _get(self, path: str, params: dict[str, Any] | None = None, *, what: str) -> Any:
        return self._call(lambda: self.http.get_json(path, params), None, what)

    def _skill_get(self, ref: SkillRef, suffix: str, params: dict[str, Any] | None = None, *, what: str) -> Any:
        from urllib.parse import quote

        q = dict(params or {})
        if ref.owner:
            q["ownerHandle"] = ref.owner
        path = f"/api/v1/skills/{quote(ref.name, safe='')}{suffix}"
        return self._call(lambda: self.http.get_json(path, q), ref, what)

    def _call(self, fn: Callable[[], T], ref: SkillRef | None, what: str) -> T:
        from nervous.plugin.toolkit import HttpStatusError

        try:
            return fn()
        except HttpStatusError as exc:
            raise self._map_error(exc, ref, what) from None

    def _map_error(self, exc: HttpStatusError, ref: SkillRef | None, what: str) -> NervousError:
        status = exc.status
        label = ref.qualified if ref is not None else "request"
        text = _error_text(exc)
        if status == 409 and ref is not None:
            return _ambiguous(ref, exc)
        if status == 404 and ref is not None and what in ("skill detail", "download", "versions") \
                or (status == 404 and ref is not None and what.startswith("file ")):
            reason = self._moderation_reason(ref)
            if reason is not None:
                return reason
            return NotFound(f"clawhub: skill {label} not found (or not available) at {self.base_url}: {text}",
                            code="not_found", details={"status": 404, "url": exc.details.get("url")})
        moderated = _moderation_error(status, text, label)
        if moderated is not None:
            return moderated
        if status == 404:
            return NotFound(f"clawhub: {label}: {text} ({what})", code="not_found",
                            details={"status": 404, "url": exc.details.get("url")})
        if status == 401:
            return RegistryError(f"clawhub: {text}", code="unauthorized", details=exc.details)
        exc.message = f"clawhub {what}: {exc.message}"
        exc.args = (exc.message,)
        return exc

    def _moderation_reason(self, ref: SkillRef) -> NervousError | None:
        """After a 404, ``/scan`` tells why a known skill is unavailable (current servers)."""
        from urllib.parse import quote

        from nervous.plugin.toolkit import HttpStatusError

        q = {"ownerHandle": ref.owner} if ref.owner else {}
        try:
            self.http.get_json(f"/api/v1/skills/{quote(ref.name, safe='')}/scan", q)
        except HttpStatusError as exc:
            if exc.status == 409:
                return _ambiguous(ref, exc)
            return _moderation_error(exc.status, _error_text(exc), ref.qualified)
        except NervousError:
            return None
        return None


# ---------------------------------------------------------------------------------------- helpers


def _error_text(exc: HttpStatusError) -> str:
    from nervous.plugin.toolkit import clean_error_text

    resp = exc.response
    if (resp.header("content-type") or "").startswith("application/json"):
        try:
            data = resp.json()
        except NervousError:
            return clean_error_text(resp.text)
        if isinstance(data, dict) and data.get("message"):
            return str(data["message"])
    return clean_error_text(resp.text) or f"HTTP {resp.status}"


def _moderation_error(status: int, text: str, label: str) -> NervousError | None:
    lowered = text.lower()
    if status == 403 and "malicious" in lowered:
        return Refused(f"clawhub refused {label}: {text}", code="malware",
                       details={"status": 403, "registry_reason": text})
    if status == 423:
        return RegistryError(f"clawhub: {label} is pending a security scan; try again later ({text})",
                             code="scan_pending", details={"status": 423, "registry_reason": text})
    if status == 410:
        if "moderator" in lowered:
            return Refused(f"clawhub: {label} was removed by a moderator ({text})", code="removed",
                           details={"status": 410, "registry_reason": text})
        return NotFound(f"clawhub: {label}: {text}", code="version_unavailable", details={"status": 410})
    if status == 403:
        return Refused(f"clawhub: {label} is unavailable ({text})", code="unavailable",
                       details={"status": 403, "registry_reason": text})
    return None


def _ambiguous(ref: SkillRef, exc: HttpStatusError) -> UsageError:
    matches: list[str] = []
    try:
        data = exc.response.json()
        if isinstance(data, dict):
            for m in data.get("matches") or []:
                if isinstance(m, dict):
                    matches.append(str(m.get("ref") or f"@{m.get('ownerHandle')}/{m.get('slug')}"))
    except NervousError:
        pass
    choices = ", ".join(matches) if matches else "retry with an owner-qualified reference @owner/slug"
    return UsageError(
        f"clawhub: the slug {ref.name!r} is used by several publishers; choose one of: {choices}",
        code="ambiguous_slug", details={"slug": ref.name, "matches": matches},
    )


def _scan_status(security: Any) -> ScanStatus:
    if not isinstance(security, dict):
        return ScanStatus("unknown", "the registry has no security scan for this version")
    status = str(security.get("status") or "unknown")
    llm = ((security.get("scanners") or {}).get("llm") or {}) if isinstance(security.get("scanners"), dict) else {}
    reason = llm.get("summary") if isinstance(llm, dict) else None
    return ScanStatus(status=status, reason=reason)


def _origin(url: str) -> tuple[str, str, int | None]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def _answer_ref(slug: Any, owner: Any, registry: str, *, what: str = "answer") -> SkillRef:
    """A registry's slug and owner handle, held to the rules a user-typed reference passes."""
    if not isinstance(slug, str) or (owner is not None and not isinstance(owner, str)):
        raise RegistryError(f"{registry}: the registry's {what} has no valid slug/owner; refused",
                            code="registry_error")
    text = f"@{owner}/{slug}" if owner is not None else slug
    try:
        parsed = SkillRef.parse(text)
    except UsageError:
        parsed = None
    if parsed is None or parsed.registry is not None or parsed.revision is not None \
            or parsed.name != slug.lower() or (owner is not None and parsed.owner != owner.lower()) \
            or slug.lower() in _RESERVED_NAMES or (owner is not None and owner.lower() in _RESERVED_NAMES):
        raise RegistryError(f"{registry}: the registry's {what} names an invalid skill {text[:120]!r}; refused",
                            code="registry_error", details={"answered": text[:200]})
    return SkillRef(name=parsed.name, owner=parsed.owner, registry=registry)


#: folder names a registry may not choose for a skill (tool folders next to installed skills)
_RESERVED_NAMES = frozenset({"node_modules", ".clawhub", ".clawdhub", ".git"})


def _int(value: Any) -> int | None:
    from nervous.plugin.toolkit import answer_int

    return answer_int(value)


def _float(value: Any) -> float | None:
    from nervous.plugin.toolkit import answer_number

    return answer_number(value)


def _iso(ms: Any) -> str | None:
    seconds = _float(ms)
    if seconds is None:
        return None
    from nervous.plugin.toolkit import utc_timestamp

    try:
        return utc_timestamp(seconds / 1000.0)
    except (OverflowError, ValueError, OSError):
        return None  # a date no calendar holds
