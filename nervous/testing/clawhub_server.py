"""A ClawHub-compatible stand-in server for tests, benchmarks and offline demos.

It speaks the routes, parameters, status codes, header names, body shapes and error texts of
``specs/protocols.md`` Part A (checklist §A9) on ``127.0.0.1`` with a random port, in a thread.
Ranking quality is not imitated. Skills are seeded from plain dicts::

    {"slug": "demo", "owner": "alice", "displayName": "Demo", "summary": "…",
     "versions": [{"version": "1.0.0", "files": {"SKILL.md": "---\\nname: demo\\n…"},
                   "security": "clean"}],            # or a full snapshot dict, or None
     "moderation": None,                             # or {"isSuspicious", "isMalwareBlocked", "verdict", …}
     "visibility": "public"}                         # hidden-pending | hidden-mod | removed

A single-version skill may say ``"version": "1.0.0", "files": {...}`` instead of ``versions``.
Knobs for failure modes: :meth:`rate_limit`, :meth:`fail_next`, :attr:`latency`,
:attr:`hang`, ``legacy_moderation`` (older servers' 403/423/410 visibility) and
``legacy_search_rows`` (the flat search row shape). Every request is logged in
:attr:`requests`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BASE_EPOCH_MS = 1_754_000_000_000

MALWARE_TEXT = "Blocked: this skill has been flagged as malicious by ClawScan and cannot be downloaded."
VERSION_MALWARE_TEXT = ("Blocked: this skill version has been flagged as malicious by ClawScan and cannot be "
                        "downloaded.")
PENDING_TEXT = "This skill is pending a ClawScan security review. Please try again in a few minutes."
REMOVED_TEXT = "This skill has been removed by a moderator."
HIDDEN_TEXT = "This skill is currently unavailable."
UNAUTHORIZED_TEXT = "Unauthorized: API token is missing. Run `clawhub login` to authenticate."

_CONTENT_TYPES = {".md": "text/markdown", ".sh": "application/x-sh", ".py": "text/x-python",
                  ".json": "application/json", ".txt": "text/plain", ".js": "text/javascript",
                  ".yaml": "text/yaml", ".yml": "text/yaml", ".png": "image/png"}
_SORTS = {"updated": "updated", "recommended": "recommended", "default": "recommended",
          "createdAt": "createdAt", "newest": "createdAt", "created-at": "createdAt",
          "downloads": "downloads", "installs": "downloads", "installsCurrent": "downloads",
          "installsAllTime": "downloads", "stars": "stars", "rating": "stars", "name": "name",
          "trending": "trending"}
_PREFIX_RE = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")


def _content_type(path: str) -> str:
    for ext, ctype in _CONTENT_TYPES.items():
        if path.lower().endswith(ext):
            return ctype
    return "application/octet-stream"


def _sort_paths(paths: Iterable[str]) -> list[str]:
    """Entry order of hosted zips: the collation of §A8 when available, code points otherwise."""
    try:
        from nervous.kernel import fingerprint as fp

        key = getattr(fp, "path_sort_key", None) or getattr(fp, "sort_key", None)
        if key is not None:
            return sorted(paths, key=key)
        order = getattr(fp, "sort_paths", None)
        if order is not None:
            return list(order(list(paths)))
    except ImportError:
        pass
    return sorted(paths)


def _fingerprint(files: Mapping[str, bytes]) -> str:
    from nervous.kernel.fingerprint import skill_fingerprint

    return skill_fingerprint([(p, hashlib.sha256(b).hexdigest()) for p, b in files.items()])


def _security(status: str | None, checked_at: int) -> dict[str, Any] | None:
    """A ClawScan snapshot whose ``status`` derives from the LLM verdict (§A4.6)."""
    if status is None:
        return None
    verdict = {"clean": "benign", "suspicious": "suspicious", "malicious": "malicious",
               "pending": "loading", "error": "failed"}.get(status, status)
    llm_status = "completed" if status in ("clean", "suspicious", "malicious") else (
        "pending" if status == "pending" else "failed")
    return {
        "status": status, "hasWarnings": status != "clean", "checkedAt": checked_at, "model": "stand-in-llm",
        "hasScanResult": status not in ("pending",), "sha256hash": hashlib.sha256(status.encode()).hexdigest(),
        "virustotalUrl": None,
        "scanners": {
            "vt": None, "skillspector": None,
            "llm": {"status": llm_status, "verdict": verdict, "normalizedStatus": status, "confidence": "high",
                    "summary": f"Stand-in verdict: {status}.", "dimensions": [], "guidance": None,
                    "findings": None, "agenticRiskFindings": None, "riskSummary": None,
                    "model": "stand-in-llm", "checkedAt": checked_at},
        },
    }


class _Version:
    def __init__(self, spec: Mapping[str, Any], index: int) -> None:
        self.version = str(spec["version"])
        self.created_at = int(spec.get("createdAt", BASE_EPOCH_MS + index * 86_400_000))
        self.changelog = str(spec.get("changelog", ""))
        self.changelog_source = spec.get("changelogSource", "user")
        self.deleted = bool(spec.get("deleted", False))
        self.license = spec.get("license", "MIT-0")
        raw_files = spec.get("files") or {}
        self.files: dict[str, bytes] = {
            p: (v.encode() if isinstance(v, str) else bytes(v)) for p, v in raw_files.items()
        }
        #: files served in the zip instead of ``files`` (to simulate tampering or hostile archives)
        self.zip_override: bytes | None = spec.get("zipBytes")
        self.served_files: dict[str, bytes] | None = spec.get("servedFiles")
        #: a registry that publishes no SHA-256 digests (installs from it are unverified)
        self.no_digests = bool(spec.get("noDigests", False))
        #: ``_meta.json`` fields served instead of the true ones (to simulate a mislabelled archive)
        self.meta_override: dict[str, Any] | None = spec.get("meta")
        sec = spec.get("security", "clean")
        self.security: dict[str, Any] | None = sec if isinstance(sec, dict) else _security(
            sec, self.created_at + 100_000)

    @property
    def status(self) -> str | None:
        return None if self.security is None else str(self.security.get("status"))

    def file_rows(self) -> list[dict[str, Any]]:
        rows = [{"path": p, "size": len(b), "sha256": hashlib.sha256(b).hexdigest(), "contentType": _content_type(p)}
                for p, b in ((p, self.files[p]) for p in _sort_paths(self.files))]
        if self.no_digests:
            for row in rows:
                del row["sha256"]
        return rows


class _Skill:
    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.slug = str(spec["slug"]).lower()
        owner = spec.get("owner", "stand-in")
        if isinstance(owner, Mapping):
            self.owner = str(owner["handle"]).lower()
            self.owner_display = owner.get("displayName", self.owner)
            self.owner_id = owner.get("userId", f"users:{self.owner}")
        else:
            self.owner = str(owner).lower()
            self.owner_display = self.owner.title()
            self.owner_id = f"users:{self.owner}"
        self.display_name = spec.get("displayName", self.slug.replace("-", " ").title())
        self.summary = spec.get("summary", f"{self.display_name} skill.")
        self.topics = list(spec.get("topics", []))
        versions = spec.get("versions")
        if versions is None and "files" in spec:
            versions = [{"version": spec.get("version", "1.0.0"), "files": spec["files"],
                         "security": spec.get("security", "clean"), "noDigests": spec.get("noDigests", False),
                         "meta": spec.get("meta")}]
        self.versions = [_Version(v, i) for i, v in enumerate(versions or [])]
        self.moderation: dict[str, Any] | None = spec.get("moderation")
        self.visibility = spec.get("visibility", "public")
        self.github: dict[str, Any] | None = spec.get("github")
        self.install_block: dict[str, Any] | None = spec.get("installBlock")
        stats = spec.get("stats", {})
        self.downloads = int(stats.get("downloads", spec.get("downloads", 0)))
        self.stars = int(stats.get("stars", spec.get("stars", 0)))
        self.installs = int(stats.get("installs", 0))
        self.created_at = int(spec.get("createdAt", BASE_EPOCH_MS - 10 * 86_400_000))
        self.aliases = [str(a).lower() for a in spec.get("aliases", [])]
        self.download_days: set[tuple[str, str]] = set()

    @property
    def live_versions(self) -> list[_Version]:
        return [v for v in self.versions if not v.deleted]

    @property
    def latest(self) -> _Version | None:
        live = self.live_versions
        return live[-1] if live else None

    @property
    def updated_at(self) -> int:
        latest = self.latest
        return latest.created_at if latest else self.created_at

    @property
    def malware(self) -> bool:
        mod = self.moderation or {}
        return bool(mod.get("isMalwareBlocked")) or mod.get("verdict") == "malicious"

    @property
    def suspicious(self) -> bool:
        mod = self.moderation or {}
        return bool(mod.get("isSuspicious")) or mod.get("verdict") == "suspicious"

    @property
    def flagged(self) -> bool:
        return self.malware or self.suspicious

    def skill_gate(self) -> tuple[int, str] | None:
        """The skill-level moderation gate (applies to every version)."""
        if self.visibility == "removed":
            return 410, REMOVED_TEXT
        if self.visibility == "hidden-mod":
            return 403, HIDDEN_TEXT
        if self.malware:
            return 403, MALWARE_TEXT
        if self.visibility == "hidden-pending":
            return 423, PENDING_TEXT
        return None

    def version_gate(self, version: _Version | None) -> tuple[int, str] | None:
        gate = self.skill_gate()
        if gate:
            return gate
        if version is not None and version.status == "malicious":
            return 403, VERSION_MALWARE_TEXT
        return None

    def moderation_body(self) -> dict[str, Any] | None:
        if not self.flagged:
            return None
        mod = dict(self.moderation or {})
        verdict = mod.get("verdict") or ("malicious" if self.malware else "suspicious")
        return {"isSuspicious": bool(mod.get("isSuspicious", self.suspicious)),
                "isMalwareBlocked": bool(mod.get("isMalwareBlocked", self.malware)),
                "verdict": verdict, "reasonCodes": list(mod.get("reasonCodes", [])),
                "summary": mod.get("summary"), "engineVersion": mod.get("engineVersion", "stand-in-1"),
                "updatedAt": mod.get("updatedAt", self.updated_at)}


class ClawHubStandin:
    """The stand-in registry. Use as a context manager, or call :meth:`start` / :meth:`stop`."""

    def __init__(
        self,
        skills: Iterable[Mapping[str, Any]] = (),
        *,
        legacy_moderation: bool = False,
        legacy_search_rows: bool = False,
        skills_sh_rows: bool = False,
        latency: float = 0.0,
        tokens: Iterable[str] = ("clh_test_token",),
        site_prefix: str = "",
    ) -> None:
        self._skills: list[_Skill] = []
        self._lock = threading.Lock()
        self.legacy_moderation = legacy_moderation
        self.legacy_search_rows = legacy_search_rows
        self.skills_sh_rows = skills_sh_rows
        #: seconds added to every answer (benchmarks)
        self.latency = latency
        #: when set, requests wait this long (or until :meth:`stop`) before answering
        self.hang: float = 0.0
        self.tokens = set(tokens)
        self.prefix = site_prefix.rstrip("/")
        #: every request: ``{"method", "path", "query", "authorization", "status"}``
        self.requests: list[dict[str, Any]] = []
        self.telemetry: list[dict[str, Any]] = []
        self._failures: list[tuple[int, str, dict[str, str]]] = []
        self._rate_after: int | None = None
        self._rate_count = 0
        self._rate_retry_after = 1
        self._rate_headers: dict[str, str] = {}
        self._served = 0
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        for spec in skills:
            self.add_skill(spec)

    # ------------------------------------------------------------------ fixtures and knobs

    def add_skill(self, spec: Mapping[str, Any]) -> None:
        with self._lock:
            self._skills.append(_Skill(spec))

    def rate_limit(self, *, after: int = 0, count: int = 1, retry_after: int = 1,
                   headers: Mapping[str, str] | None = None) -> None:
        """Answer 429 ``Rate limit exceeded`` to ``count`` requests once ``after`` more have passed."""
        with self._lock:
            self._rate_after = self._served + after
            self._rate_count = count
            self._rate_retry_after = retry_after
            self._rate_headers = dict(headers or {})

    def fail_next(self, count: int = 1, status: int = 500, body: str | None = None,
                  retry_after: int | None = None) -> None:
        """Answer the next ``count`` requests with ``status`` (503 carries ``Retry-After``)."""
        text = body or {503: "Rate limit temporarily unavailable", 502: "Bad Gateway",
                        504: "Gateway Timeout"}.get(status, "Internal Server Error")
        headers: dict[str, str] = {}
        if retry_after is not None or status == 503:
            headers["Retry-After"] = str(retry_after if retry_after is not None else 1)
        with self._lock:
            self._failures.extend([(status, text, headers)] * count)

    def paths_requested(self, method: str | None = None) -> list[str]:
        return [r["path"] for r in self.requests if method is None or r["method"] == method]

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        """The registry base URL (what ``CLAWHUB_REGISTRY`` or ``--registry`` takes)."""
        assert self._server is not None, "stand-in not started"
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}{self.prefix}"

    def start(self) -> ClawHubStandin:
        standin = self

        class Handler(_Handler):
            server_version = "clawhub-standin/1"
            owner = standin

        self._stopping.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="clawhub-standin", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ClawHubStandin:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ lookup

    def _candidates(self, slug: str, owner: str | None) -> list[_Skill]:
        slug = slug.lower()
        found = [s for s in self._skills if s.slug == slug or slug in s.aliases]
        if owner:
            found = [s for s in found if s.owner == owner.lstrip("@").lower()]
        return found

    def _base_site(self, handler: _Handler) -> str:
        host = handler.headers.get("Host") or "127.0.0.1"
        return f"http://{host}{self.prefix}"


class _Reply(Exception):
    """Raised by route code to answer at once."""

    def __init__(self, status: int, body: bytes | str | dict[str, Any] | list[Any],
                 headers: Mapping[str, str] | None = None, content_type: str | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.content_type = content_type


def _text(status: int, text: str, headers: Mapping[str, str] | None = None) -> _Reply:
    return _Reply(status, text, headers, "text/plain; charset=utf-8")


class _Handler(BaseHTTPRequestHandler):
    owner: ClawHubStandin
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # ------------------------------------------------------------------ plumbing

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_OPTIONS(self) -> None:
        self._send(204, b"", {}, None)

    def _dispatch(self, method: str) -> None:
        st = self.owner
        parsed = urllib.parse.urlsplit(self.path)
        path = parsed.path
        if st.prefix and path.startswith(st.prefix):
            path = path[len(st.prefix):] or "/"
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(parsed.query, keep_blank_values=True).items()}
        body = b""
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            body = self.rfile.read(length)
        entry: dict[str, Any] = {"method": method, "path": path, "query": query,
                 "authorization": self.headers.get("Authorization"), "status": None}
        with st._lock:
            st.requests.append(entry)
            st._served += 1
            served = st._served
            failure = st._failures.pop(0) if st._failures else None
            limited = (st._rate_after is not None and served > st._rate_after and st._rate_count > 0)
            if limited:
                st._rate_count -= 1
        if st.latency:
            time.sleep(st.latency)
        if st.hang:
            st._stopping.wait(st.hang)
        try:
            if failure is not None:
                raise _text(failure[0], failure[1], failure[2])
            if limited:
                reset = st._rate_retry_after
                raise _text(429, "Rate limit exceeded", {
                    "X-RateLimit-Remaining": "0", "RateLimit-Remaining": "0",
                    "Retry-After": str(reset), "RateLimit-Reset": str(max(reset, 1)),
                    "X-RateLimit-Reset": str(int(time.time()) + reset), **st._rate_headers})
            self._route(method, path, query, body)
            raise _text(404, "Not found")
        except _Reply as reply:
            entry["status"] = reply.status
            self._reply(reply)

    def _reply(self, reply: _Reply) -> None:
        body = reply.body
        ctype = reply.content_type
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            ctype = ctype or "application/json"
        elif isinstance(body, str):
            data = body.encode()
            ctype = ctype or "text/plain; charset=utf-8"
        else:
            data = bytes(body)
            ctype = ctype or "application/octet-stream"
        headers = {"Access-Control-Allow-Origin": "*", "X-RateLimit-Limit": "3000", "RateLimit-Limit": "3000",
                   "X-RateLimit-Reset": str(int(time.time()) // 60 * 60 + 60),
                   "RateLimit-Reset": str(60 - int(time.time()) % 60 or 1)}
        if reply.status < 300 and ctype.startswith("application/json"):
            headers["Cache-Control"] = "no-store"
        headers.update(reply.headers)
        self._send(reply.status, data, headers, ctype)

    def _send(self, status: int, data: bytes, headers: Mapping[str, str], ctype: str | None) -> None:
        try:
            self.send_response(status)
            if ctype:
                self.send_header("Content-Type", ctype)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _token_valid(self) -> bool:
        auth = self.headers.get("Authorization") or ""
        return auth.startswith("Bearer ") and auth[7:].strip() in self.owner.tokens

    # ------------------------------------------------------------------ routes

    def _route(self, method: str, path: str, q: dict[str, str], body: bytes) -> None:
        st = self.owner
        if method == "GET" and path in ("/.well-known/clawhub.json",):
            base = st._base_site(self)
            raise _Reply(200, {"apiBase": base, "authBase": base, "minCliVersion": "0.1.0", "registry": base})
        if method == "GET" and path == "/.well-known/clawdhub.json":
            raise _text(404, "Not found")
        if method == "POST" and path == "/api/cli/telemetry/install":
            if not self._token_valid():
                raise _text(401, UNAUTHORIZED_TEXT)
            try:
                st.telemetry.append(json.loads(body or b"{}"))
            except ValueError:
                raise _text(400, "Invalid JSON body") from None
            raise _Reply(200, {"ok": True})
        if method == "POST" and path == "/api/v1/skills/-/security-verdicts":
            self._security_verdicts(body)
        if method != "GET":
            return
        if path == "/api/v1/search":
            self._search(q)
        if path == "/api/v1/skills":
            self._list(q)
        if path in ("/api/v1/resolve", "/api/v1/skills/resolve"):
            self._resolve(q)
        if path == "/api/v1/download":
            self._download(q)
        m = re.match(r"^/api/v1/skills/([^/]+)(?:/(.*))?$", path)
        if m:
            slug = urllib.parse.unquote(m.group(1))
            rest = m.group(2) or ""
            self._skill_route(slug, rest, q)

    # ---------------------------------------------------------------- search and list

    def _visible_in_listings(self, s: _Skill, non_suspicious_only: bool) -> bool:
        if s.visibility != "public" or s.malware:
            return False
        if s.suspicious and (non_suspicious_only or not self.owner.legacy_moderation):
            return False
        return True

    def _search(self, q: dict[str, str]) -> None:
        st = self.owner
        query = q.get("q", "").strip()
        mode = q.get("mode")
        if mode is not None and mode != "exact":
            raise _text(400, "Invalid search mode")
        limit = _int_param(q.get("limit"), 10, "limit")
        limit = max(1, min(limit, 100))
        if not query:
            raise _Reply(200, {"results": []})
        nso = q.get("nonSuspiciousOnly", q.get("nonSuspicious", "")).lower() in ("true", "1")
        terms = [t for t in re.split(r"\W+", query.lower()) if t]
        rows: list[tuple[float, _Skill]] = []
        with st._lock:
            skills = list(st._skills)
        for s in skills:
            if not self._visible_in_listings(s, nso):
                continue
            hay = f"{s.slug} {s.display_name} {s.summary}".lower()
            if mode == "exact":
                lexical = 100.0 if s.slug == query.lower() else 0.0
            else:
                lexical = sum(10.0 for t in terms if t in hay) + (50.0 if s.slug == query.lower() else 0.0)
            if lexical <= 0:
                continue
            rows.append((5 * 1000 + lexical + s.downloads / 1000.0, s))
        rows.sort(key=lambda r: -r[0])
        results = [self._search_row(score, s) for score, s in rows[:limit]]
        if st.skills_sh_rows and len(results) < limit:
            results.append(self._skills_sh_row(query))
        raise _Reply(200, {"results": results})

    def _search_row(self, score: float, s: _Skill) -> dict[str, Any]:
        row = self._search_row_body(score, s)
        if self.owner.legacy_moderation:  # older servers listed suspicious skills and flagged the row
            row["isSuspicious"] = s.suspicious
        return row

    def _search_row_body(self, score: float, s: _Skill) -> dict[str, Any]:
        owner = {"handle": s.owner, "displayName": s.owner_display, "image": None}
        latest = s.latest
        if self.owner.legacy_search_rows:
            return {"score": score, "slug": s.slug, "displayName": s.display_name, "summary": s.summary,
                    "icon": None, "version": latest.version if latest else None, "downloads": s.downloads,
                    "updatedAt": s.updated_at, "ownerHandle": s.owner, "owner": owner}
        canonical = f"/{s.owner}/skills/{s.slug}"
        return {
            "id": f"clawhub:{s.owner}-{s.slug}", "source": "clawhub", "slug": s.slug,
            "displayName": s.display_name, "summary": s.summary, "icon": None, "score": score,
            "canonicalUrl": canonical, "links": {"canonical": canonical, "source": None},
            "publisher": {"kind": "user", "handle": s.owner, "displayName": s.owner_display, "image": None,
                          "official": False},
            "official": False, "featured": False,
            "install": {"kind": "clawhub", "reference": f"{s.owner}/{s.slug}", "sourceUrl": None},
            "sourceIdentity": {"id": f"{s.owner}-{s.slug}", "owner": s.owner, "repo": None, "host": None,
                               "lifetimeInstalls": None},
            "trust": {"visibility": "public", "installability": "installable", "clawHubVerdict": None,
                      "upstreamScanners": None, "sourceFreshness": "native"},
            "metrics": {"rolling60DayInstalls": s.installs, "bookmarks": s.stars, "updatedAt": s.updated_at},
            "native": {"skill": {}, "version": {}, "owner": {}, "ownerHandle": s.owner},
            "ownerHandle": s.owner, "version": None, "downloads": s.downloads, "updatedAt": s.updated_at,
            "owner": owner,
        }

    def _skills_sh_row(self, query: str) -> dict[str, Any]:
        slug = re.sub(r"[^a-z0-9-]+", "-", query.lower()).strip("-") or "external"
        return {
            "id": f"skills-sh:octo/skills/{slug}", "source": "skills-sh", "slug": slug,
            "displayName": f"{slug} (skills.sh)", "summary": "An external catalog entry.", "icon": None,
            "score": 1.0, "canonicalUrl": f"/skills-sh/octo/skills/{slug}",
            "links": {"canonical": f"/skills-sh/octo/skills/{slug}", "source": "https://github.com/octo/skills"},
            "publisher": None, "official": False, "featured": False,
            "install": {"kind": "skills-sh", "reference": f"skills-sh:octo/skills/{slug}",
                        "sourceUrl": f"https://github.com/octo/skills/tree/main/skills/{slug}"},
            "sourceIdentity": {"id": f"octo/skills/{slug}", "owner": "octo", "repo": "skills", "host": "github.com",
                               "lifetimeInstalls": 7},
            "trust": {"visibility": "public", "installability": "installable", "clawHubVerdict": None,
                      "upstreamScanners": None, "sourceFreshness": "observed-only"},
            "metrics": {"rolling60DayInstalls": None, "bookmarks": None, "updatedAt": BASE_EPOCH_MS},
            "native": None, "ownerHandle": "octo", "version": None, "downloads": 0, "updatedAt": BASE_EPOCH_MS,
            "owner": None,
        }

    def _list(self, q: dict[str, str]) -> None:
        st = self.owner
        limit = max(1, min(_int_param(q.get("limit"), 25, "limit"), 200))
        sort_raw = q.get("sort")
        prefix = q.get("prefix")
        if sort_raw is not None and sort_raw not in _SORTS:
            raise _text(400, "Invalid sort query parameter")
        if prefix is not None:
            if len(prefix) > 96 or not _PREFIX_RE.match(prefix):
                raise _text(400, "Invalid prefix query parameter")
            if sort_raw is not None and _SORTS[sort_raw] != "name":
                raise _text(400, "Prefix listing only supports name sort")
            sort = "name"
        else:
            sort = _SORTS.get(sort_raw or "updated", "updated")
        nso = q.get("nonSuspiciousOnly", "").lower() in ("true", "1")
        with st._lock:
            items = [s for s in st._skills if self._visible_in_listings(s, nso)]
        if prefix is not None:
            items = [s for s in items if s.slug.startswith(prefix)]
        keys = {"name": lambda s: (s.slug, s.owner), "downloads": lambda s: (-s.downloads, s.slug),
                "stars": lambda s: (-s.stars, s.slug), "createdAt": lambda s: (-s.created_at, s.slug)}
        items.sort(key=keys.get(sort, lambda s: (-s.updated_at, s.slug)))
        offset = _decode_cursor(q.get("cursor"))
        page = items[offset: offset + limit]
        next_cursor = _encode_cursor(offset + limit) if offset + limit < len(items) else None
        raise _Reply(200, {"items": [self._list_item(s) for s in page], "nextCursor": next_cursor})

    def _list_item(self, s: _Skill) -> dict[str, Any]:
        latest = s.latest
        return {
            "slug": s.slug, "displayName": s.display_name, "summary": s.summary,
            "description": s.summary, "topics": s.topics,
            "tags": {"latest": latest.version} if latest else {},
            "stats": self._stats(s), "createdAt": s.created_at, "updatedAt": s.updated_at,
            "latestVersion": self._latest_body(latest), "metadata": None,
        }

    def _stats(self, s: _Skill) -> dict[str, int]:
        return {"downloads": s.downloads, "stars": s.stars, "installs": s.installs,
                "versions": len(s.live_versions), "comments": 0}

    @staticmethod
    def _latest_body(v: _Version | None) -> dict[str, Any] | None:
        if v is None:
            return None
        return {"version": v.version, "createdAt": v.created_at, "changelog": v.changelog, "license": v.license}

    # ---------------------------------------------------------------- skill routes

    def _ambiguous_json(self, slug: str, matches: list[_Skill]) -> _Reply:
        site = "https://clawhub.ai"
        return _Reply(409, {
            "code": "AMBIGUOUS_SKILL_SLUG",
            "message": f'Found multiple skills with the slug "{slug}"; specify which one you want to install:',
            "slug": slug,
            "matches": [{"ownerHandle": s.owner, "slug": s.slug, "ref": f"@{s.owner}/{s.slug}",
                         "url": f"{site}/{s.owner}/skills/{s.slug}"} for s in matches],
        })

    @staticmethod
    def _ambiguous_text(slug: str) -> _Reply:
        return _text(409, f'Ambiguous skill slug "{slug}". Multiple publishers use this slug. Retry with '
                          f"ownerHandle, for example: /api/v1/download?slug={slug}&ownerHandle=<owner>.")

    def _find(self, slug: str, q: dict[str, str], ambiguity: str) -> _Skill:
        owner = (q.get("ownerHandle") or q.get("owner") or "").strip().lstrip("@").lower() or None
        with self.owner._lock:
            found = self.owner._candidates(slug, owner)
        if not found:
            raise _text(404, "Skill not found")
        if len(found) > 1:
            if ambiguity == "json":
                raise self._ambiguous_json(slug.lower(), found)
            if ambiguity == "text":
                raise self._ambiguous_text(slug.lower())
            raise _text(404, "Skill not found")
        return found[0]

    def _public_gate(self, s: _Skill) -> None:
        """Detail-like routes: current servers hide every gated skill behind a 404."""
        gate = s.skill_gate()
        if gate is None:
            return
        if self.owner.legacy_moderation:
            if s.malware and gate[1] == MALWARE_TEXT:
                return  # older servers showed malware-blocked skills with their moderation
            raise _text(*gate)
        raise _text(404, "Skill not found")

    def _download_gate(self, s: _Skill, v: _Version | None) -> None:
        """Download and file: gated skills are 404 today, the gate status on older servers."""
        gate = s.skill_gate()
        if gate is not None:
            if self.owner.legacy_moderation:
                raise _text(*gate)
            raise _text(404, "Skill not found")
        vgate = s.version_gate(v)
        if vgate is not None:
            raise _text(*vgate)

    def _pick_version(self, s: _Skill, q: dict[str, str], *, deleted_status: int = 410) -> _Version:
        wanted = q.get("version")
        tag = q.get("tag")
        if wanted is None and tag is not None:
            if tag != "latest":
                raise _text(404, "Version not found")
            wanted = None
        if wanted is None:
            latest = s.latest
            if latest is None:
                raise _text(404, "Version not found")
            return latest
        for v in s.versions:
            if v.version == wanted:
                if v.deleted:
                    raise _text(deleted_status, "Version not available" if deleted_status == 410
                                else "Version not found")
                return v
        raise _text(404, "Version not found")

    def _skill_route(self, slug: str, rest: str, q: dict[str, str]) -> None:
        if rest == "":
            s = self._find(slug, q, "json")
            self._public_gate(s)
            self._detail(s)
        if rest == "versions":
            s = self._find(slug, q, "json")
            self._public_gate(s)
            live = s.live_versions[::-1]
            limit = max(1, min(_int_param(q.get("limit"), 20, "limit"), 50))
            offset = _decode_cursor(q.get("cursor"))
            page = live[offset: offset + limit]
            nxt = _encode_cursor(offset + limit) if offset + limit < len(live) else None
            raise _Reply(200, {"items": [{"version": v.version, "createdAt": v.created_at, "changelog": v.changelog,
                                          "changelogSource": v.changelog_source} for v in page],
                               "nextCursor": nxt})
        m = re.match(r"^versions/([^/]+)$", rest)
        if m:
            s = self._find(slug, q, "json")
            wanted = urllib.parse.unquote(m.group(1))
            version = next((v for v in s.versions if v.version == wanted and not v.deleted), None)
            gate = s.version_gate(version)
            if gate is not None:
                raise _text(*gate)
            if version is None:
                raise _text(404, "Version not found")
            body: dict[str, Any] = {"version": version.version, "createdAt": version.created_at,
                                    "changelog": version.changelog, "changelogSource": version.changelog_source,
                                    "license": version.license, "files": version.file_rows()}
            if version.security is not None:
                body["security"] = version.security
            raise _Reply(200, {"skill": {"slug": s.slug, "displayName": s.display_name}, "version": body})
        if rest == "file":
            s = self._find(slug, q, "json")
            path = q.get("path")
            if not path:
                raise _text(400, "Missing path")
            v = self._pick_version(s, q)
            self._download_gate(s, v)
            files = v.served_files if v.served_files is not None else v.files
            name = path if path in files else next((p for p in files if p.lower() == path.lower()), None)
            if name is None:
                raise _text(404, "File not found")
            data = files[name]
            if len(data) > 10 * 1024 * 1024:
                raise _text(413, "File exceeds 10MB limit")
            digest = hashlib.sha256(data).hexdigest()
            raise _Reply(200, data, {
                "Content-Disposition": "attachment; filename*=UTF-8''" + urllib.parse.quote(name.rsplit("/", 1)[-1]),
                "ETag": f'"{digest}"', "X-Content-SHA256": digest, "X-Content-Size": str(len(data)),
                "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox",
                "Cache-Control": "private, max-age=60"}, _content_type(name))
        if rest == "install":
            s = self._find(slug, q, "404")
            self._public_gate(s)
            self._install_resolver(s, q)
        if rest == "moderation":
            s = self._find(slug, q, "text")
            if not s.flagged or s.visibility != "public" or (s.malware and not self.owner.legacy_moderation):
                raise _text(404, "Moderation details unavailable")
            mod = s.moderation_body() or {}
            mod["evidence"] = [{"code": c, "severity": "warn", "file": "SKILL.md", "line": 1,
                                "message": c, "evidence": ""} for c in mod.get("reasonCodes", [])]
            mod["legacyReason"] = None
            raise _Reply(200, {"moderation": mod})
        if rest == "scan":
            s = self._find(slug, q, "json")
            version = None
            if q.get("version"):
                version = next((v for v in s.versions if v.version == q["version"] and not v.deleted), None)
                if version is None:
                    raise _text(404, "Version not found")
            else:
                version = s.latest
            gate = s.version_gate(version)
            if gate is not None:
                raise _text(*gate)
            if version is None:
                raise _text(404, "Version not found")
            latest = s.latest
            raise _Reply(200, {
                "skill": {"slug": s.slug, "displayName": s.display_name},
                "version": {"version": version.version, "createdAt": version.created_at,
                            "changelogSource": version.changelog_source},
                "moderation": None if not s.flagged else {
                    "scope": "skill",
                    "sourceVersion": {"version": latest.version, "createdAt": latest.created_at} if latest else None,
                    "matchesRequestedVersion": latest is version, "isPendingScan": False,
                    "isMalwareBlocked": s.malware, "isSuspicious": s.suspicious, "isHiddenByMod": False,
                    "isRemoved": False},
                "security": version.security,
            })
        raise _text(404, "Not found")

    def _detail(self, s: _Skill) -> None:
        latest = s.latest
        skill_md = None
        if latest is not None:
            for name in ("SKILL.md", "skill.md", "skills.md"):
                if name in latest.files:
                    skill_md = latest.files[name].decode("utf-8", errors="replace")
                    break
        raise _Reply(200, {
            "skill": {"slug": s.slug, "displayName": s.display_name, "summary": s.summary, "icon": None,
                      "description": skill_md if skill_md is not None else s.summary, "topics": s.topics,
                      "tags": {"latest": latest.version} if latest else {}, "stats": self._stats(s),
                      "createdAt": s.created_at, "updatedAt": s.updated_at},
            "latestVersion": self._latest_body(latest),
            "metadata": None,
            "owner": {"handle": s.owner, "userId": s.owner_id, "displayName": s.owner_display, "image": None},
            "moderation": s.moderation_body(),
        })

    def _install_resolver(self, s: _Skill, q: dict[str, str]) -> None:
        if s.install_block:
            block = s.install_block
            raise _Reply(int(block.get("status", 423)), {
                "ok": False, "slug": s.slug, "reason": block.get("reason", "github_verification_pending"),
                "status": int(block.get("status", 423)),
                "message": block.get("message", "GitHub-backed skill security scan is in progress. Try again "
                                                "shortly, or rerun with --force-install to install the "
                                                "unverified upstream commit.")})
        latest = s.latest
        if latest is not None:
            base = self.owner._base_site(self)
            raise _Reply(200, {"ok": True, "slug": s.slug, "installKind": "archive", "archive": {
                "version": latest.version,
                "downloadUrl": f"{base}/api/v1/download?slug={s.slug}&ownerHandle={s.owner}&version={latest.version}"}})
        if s.github:
            g = s.github
            raise _Reply(200, {"ok": True, "slug": s.slug, "installKind": "github", "github": {
                "repo": g["repo"], "path": g.get("path", ""), "commit": g["commit"],
                "contentHash": g.get("contentHash", "0" * 64),
                "sourceUrl": f"https://github.com/{g['repo']}/tree/{g['commit']}/{g.get('path', '')}"}})
        raise _Reply(409, {"ok": False, "slug": s.slug, "reason": "archive_version_missing", "status": 409,
                           "message": "This skill has no installable version."})

    # ---------------------------------------------------------------- download and resolve

    def _download(self, q: dict[str, str]) -> None:
        slug = (q.get("slug") or "").strip()
        if not slug:
            raise _text(400, "Missing slug")
        s = self._find(slug, q, "text")
        if s.latest is None and s.github and not q.get("version") and not q.get("tag"):
            self._download_gate(s, None)
            g = s.github
            raise _Reply(200, {"sourceRef": "public-github", "repo": g["repo"], "commit": g["commit"],
                               "path": g.get("path", ""), "contentHash": g.get("contentHash", "0" * 64),
                               "archiveUrl": f"https://api.github.com/repos/{g['repo']}/zipball/{g['commit']}"})
        v = self._pick_version(s, q)
        self._download_gate(s, v)
        data = v.zip_override if v.zip_override is not None else build_zip(
            v.served_files if v.served_files is not None else v.files,
            {"ownerId": s.owner_id, "slug": s.slug, "version": v.version, "publishedAt": v.created_at,
             **(v.meta_override or {})})
        ident = self.headers.get("Authorization") or self.client_address[0]
        day = time.strftime("%Y-%m-%d", time.gmtime())
        with self.owner._lock:
            if (ident, day) not in s.download_days:
                s.download_days.add((ident, day))
                s.downloads += 1
        raise _Reply(200, data, {"Content-Disposition": f'attachment; filename="{s.slug}-{v.version}.zip"',
                                 "Cache-Control": "private, max-age=60"}, "application/zip")

    def _resolve(self, q: dict[str, str]) -> None:
        slug = (q.get("slug") or "").strip()
        digest = (q.get("hash") or "").strip()
        if not slug or not digest:
            raise _text(400, "Missing slug or hash")
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise _text(400, "Invalid hash")
        s = self._find(slug, q, "text")
        match = None
        for v in s.live_versions:
            if _fingerprint(v.files) == digest:
                match = {"version": v.version}
        latest = s.latest
        raise _Reply(200, {"slug": s.slug, "match": match,
                           "latestVersion": {"version": latest.version} if latest else None})

    def _security_verdicts(self, body: bytes) -> None:
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            raise _text(400, "Invalid JSON body") from None
        items = data.get("items") if isinstance(data, dict) else None
        if not isinstance(items, list) or not 1 <= len(items) <= 100:
            raise _text(400, "items must contain 1-100 entries")
        out = []
        for item in items:
            slug = str(item.get("slug", ""))
            owner = item.get("ownerHandle")
            with self.owner._lock:
                found = self.owner._candidates(slug, owner)
            if len(found) != 1:
                code = "not_found" if not found else "ambiguous_slug"
                out.append({"slug": slug, "version": item.get("version"),
                            "error": {"code": code, "message": "Skill not found" if not found else
                                      f'Ambiguous skill slug "{slug}"'}})
                continue
            s = found[0]
            v = next((x for x in s.versions if x.version == item.get("version")), None)
            status = "malicious" if s.malware else (v.status if v and v.status else "error")
            passed = status == "clean" and not s.malware
            out.append({"slug": s.slug, "ownerHandle": s.owner, "version": item.get("version"), "ok": passed,
                        "decision": "pass" if passed else "fail",
                        "reasons": [] if passed else [f"security.{status}"],
                        "security": {"status": status, "passed": passed, "signals": {}}})
        raise _Reply(200, {"schema": "clawhub.skill.security-verdicts.v1", "items": out})


# ------------------------------------------------------------------------------------------ helpers


def build_zip(files: Mapping[str, bytes], meta: Mapping[str, Any] | None) -> bytes:
    """A hosted-skill zip (protocols §A7.4); the registry server's own builder, so both agree byte for byte."""
    from nervous.frontends.registry_server.archive import build_zip as build

    return build(files, meta)


def _int_param(value: str | None, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise _text(400, f"Invalid {name}") from None


def _encode_cursor(offset: int) -> str:
    from nervous.frontends.registry_server.cursor import encode_cursor

    return encode_cursor(offset)


def _decode_cursor(cursor: str | None) -> int:
    from nervous.frontends.registry_server.cursor import decode_cursor

    try:
        return decode_cursor(cursor)
    except ValueError:
        raise _text(400, "Invalid cursor format") from None


def skill_md(name: str, description: str, body: str = "") -> str:
    """A minimal SKILL.md text (fixtures)."""
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body or description}\n"


__all__ = ["ClawHubStandin", "build_zip", "skill_md", "MALWARE_TEXT", "VERSION_MALWARE_TEXT", "PENDING_TEXT",
           "REMOVED_TEXT", "HIDDEN_TEXT"]
