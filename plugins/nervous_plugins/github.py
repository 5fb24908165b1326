"""The ``github`` registry: skills found in GitHub repositories (specs/protocols.md Part B).

Everything from GitHub is an **unreviewed source**: hits and metadata carry ``reviewed=False`` and
scan status ``unreviewed``; our own security scan is the only gate.

* Search: code search for ``SKILL.md`` files when a token is configured, repository search by
  topic (``topics`` setting, default ``agent-skills``) without one.
* Pinning: every fetch resolves the branch (or short sha) to a full 40-hex commit sha first; the
  skill's ``version`` is that sha and every later read uses it.
* Fetching: the recursive git tree at the sha lists the skill folder (per-directory contents
  listing when the tree is truncated); each file comes from ``/git/blobs/{sha}`` as raw bytes and
  is checked against its git blob id. Symlinks are refused, submodules skipped with a warning.
* Rate limits (§B4): ``retry-after`` is honoured, else the ``x-ratelimit-reset`` of an exhausted
  bucket, else 60 s for a secondary limit; at most 3 attempts; a wait over ``max_wait`` fails at
  once with ``rate_limited`` and the reset time.

Settings ``[plugins.github]``: ``token`` (else ``GITHUB_TOKEN`` / ``GH_TOKEN``), ``api_url``
(GitHub Enterprise: ``https://HOST/api/v3``), ``topics``, ``timeout``, ``max_wait``.
"""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING, Any

from nervous.errors import BadInput, NervousError, NotFound, RegistryError, UsageError
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
    from nervous.plugin.toolkit import HttpClient, HttpStatusError, Response

NAME = "github"
DEFAULT_API = "https://api.github.com"
DEFAULT_TOPICS = ("agent-skills",)
UNREVIEWED = ScanStatus(status="unreviewed", reason="GitHub is an unreviewed source: only our scan applies")
SKILL_FILES = ("SKILL.md", "skill.md", "skills.md", "SKILL.MD")
SKILL_ROOTS = ("skills", ".agents/skills", ".claude/skills")
SKIP_DIRS = frozenset({"node_modules", ".git", "dist", "build", "__pycache__"})
_FULL_SHA = re.compile(r"^[0-9a-f]{40}\Z")
_SECONDARY = "secondary rate limit"
#: the most folders a contents-API walk of one skill lists (a truncated tree's fallback)
MAX_LISTING_FOLDERS = 500




def _factory(ctx: ProviderContext) -> GitHubRegistry:
    s = ctx.settings
    topics = s.get("topics", list(DEFAULT_TOPICS))
    if isinstance(topics, str):
        topics = [topics]
    return GitHubRegistry(
        api_url=s.get("api_url") or DEFAULT_API,
        token=s.get("token") or os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None,
        topics=tuple(str(t) for t in topics),
        timeout=float(s.get("timeout", 15.0)),
        max_wait=float(s.get("max_wait", 60.0)),
        limits=ctx.config.install,
    )


class GitHubRegistry:
    """A :class:`nervous.plugin.protocols.Registry` over the GitHub REST API (version 2022-11-28)."""

    name = NAME
    #: GitHub gives no SHA-256 digests of a folder's files: installs from it are unverified (nervous.engines.install.gate)
    publishes_digests = False

    def __init__(self, *, api_url: str = DEFAULT_API, token: str | None = None,
                 topics: tuple[str, ...] = DEFAULT_TOPICS, timeout: float = 15.0, max_wait: float = 60.0,
                 limits: Any = None, http_options: dict[str, Any] | None = None) -> None:
        self.api_url = api_url.rstrip("/")
        self.token = token or None
        self.topics = topics
        self.timeout = timeout
        self.max_wait = max_wait
        self.limits = limits
        self.http_options = dict(http_options or {})
        self.warnings: list[str] = []
        self._http: HttpClient | None = None
        self._trees: dict[tuple[str, str, str], dict[str, Any]] = {}

    @property
    def http(self) -> HttpClient:
        if self._http is None:
            from nervous.plugin.toolkit import HttpClient

            options = {"sleep": time.sleep, "clock": time.time, **self.http_options}
            self._http = HttpClient(
                self.api_url, token=self.token, timeout=self.timeout, retries=2, max_wait=self.max_wait,
                headers={"X-GitHub-Api-Version": "2022-11-28"}, should_retry=_should_retry,
                wait_policy=_wait_policy, **options)
        return self._http

    # ------------------------------------------------------------------ search

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        limit = max(1, min(limit, 100))
        if self.token:
            return self._search_code(query, limit)
        return self._search_repos(query, limit)

    def _search_code(self, query: str, limit: int) -> list[SearchHit]:
        words = " ".join(w for w in query.split() if ":" not in w and w.upper() not in ("AND", "OR", "NOT"))
        q = f"{words[:200]} filename:SKILL.md".strip()
        data = self._get("/search/code", {"q": q, "per_page": min(limit * 2, 100)}, what="code search")
        if data.get("incomplete_results"):
            self.warnings.append("github: code search timed out on GitHub's side; results are partial")
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for item in data.get("items") or []:
            repo = item.get("repository") or {}
            full, path = repo.get("full_name"), item.get("path")
            if not isinstance(full, str) or "/" not in full or not isinstance(path, str):
                continue
            if path.rsplit("/", 1)[-1] not in SKILL_FILES:
                continue
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            ref = _ref(full, folder)
            if str(ref) in seen:
                continue
            seen.add(str(ref))
            hits.append(SearchHit(
                registry=NAME, ref=ref, display_name=ref.name, summary=str(repo.get("description") or ""),
                score=_num(item.get("score")), scan=UNREVIEWED, reviewed=False,
                url=_tree_url(full, None, folder)))
            if len(hits) >= limit:
                break
        return hits

    def _search_repos(self, query: str, limit: int) -> list[SearchHit]:
        words = " ".join(w for w in query.split() if ":" not in w)[:200]
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for topic in self.topics or DEFAULT_TOPICS:
            q = f"{words} topic:{topic} archived:false".strip()
            data = self._get("/search/repositories", {"q": q, "sort": "stars", "order": "desc",
                                                      "per_page": limit}, what="repository search")
            for repo in data.get("items") or []:
                full = repo.get("full_name")
                if not isinstance(full, str) or full.lower() in seen or repo.get("archived"):
                    continue
                seen.add(full.lower())
                ref = _ref(full, "")
                hits.append(SearchHit(
                    registry=NAME, ref=ref, display_name=full, summary=str(repo.get("description") or ""),
                    stars=_int(repo.get("stargazers_count")), score=_num(repo.get("score")), scan=UNREVIEWED,
                    reviewed=False, url=repo.get("html_url"), updated_at=repo.get("pushed_at")))
        hits.sort(key=lambda h: -(h.stars or 0))
        return hits[:limit]

    # ------------------------------------------------------------------ metadata

    def resolve(self, ref: SkillRef) -> SkillMetadata:
        owner, repo, _ = _split(ref)
        facts = self._get(f"/repos/{_q(owner)}/{_q(repo)}", what=f"repository {owner}/{repo}", ref=ref)
        pinned = self.pin(ref, facts)
        return SkillMetadata(
            registry=NAME, ref=pinned, display_name=pinned.name, summary=str(facts.get("description") or ""),
            latest_version=pinned.revision, versions=(pinned.revision or "",), stars=_int(facts.get("stargazers_count")),
            moderation="visible", scan=UNREVIEWED, reviewed=False,
            url=_tree_url(f"{owner}/{repo}", pinned.revision, _split(pinned)[2]))

    def versions(self, ref: SkillRef) -> list[SkillVersion]:
        return [self.version(ref)]

    def version(self, ref: SkillRef, version: str | None = None) -> SkillVersion:
        pinned = self.pin(ref if version is None else _with_revision(ref, version))
        listing = self._listing(pinned)
        return SkillVersion(version=pinned.revision or "", files=tuple(
            FileDigest(path=p, size=size) for p, size, _ in listing), scan=UNREVIEWED)

    # ------------------------------------------------------------------ pinning

    def pin(self, ref: SkillRef, facts: dict[str, Any] | None = None) -> SkillRef:
        """``ref`` with ``revision`` = the full commit sha and ``path`` = the skill folder (§B5, §B6)."""
        owner, repo, folder = _split(ref)
        rev = ref.revision
        if rev is None or not _FULL_SHA.match(rev):
            if rev is None:
                if facts is None:
                    facts = self._get(f"/repos/{_q(owner)}/{_q(repo)}", what=f"repository {owner}/{repo}", ref=ref)
                rev = str(facts.get("default_branch") or "main")
            commit = self._get(f"/repos/{_q(owner)}/{_q(repo)}/commits/{_q(rev)}",
                               what=f"commit {rev} of {owner}/{repo}", ref=ref)
            sha = commit.get("sha")
            if not isinstance(sha, str) or not _FULL_SHA.match(sha):
                raise RegistryError(f"github: {owner}/{repo}@{rev} did not resolve to a full commit sha")
            rev = sha
        tree = self._tree(owner, repo, rev)
        folder = self._locate(owner, repo, rev, folder, tree)
        return _ref(f"{owner}/{repo}", folder, rev)

    def _tree(self, owner: str, repo: str, sha: str) -> dict[str, Any]:
        """The recursive tree at a pinned sha (immutable, so cached per registry instance)."""
        key = (owner.lower(), repo.lower(), sha)
        if key not in self._trees:
            data = self._get(f"/repos/{_q(owner)}/{_q(repo)}/git/trees/{sha}", {"recursive": 1},
                             what=f"tree of {owner}/{repo}@{sha[:12]}")
            if not isinstance(data, dict):
                raise RegistryError(f"github: unexpected tree answer for {owner}/{repo}@{sha[:12]}")
            self._trees[key] = data
        return self._trees[key]

    def _locate(self, owner: str, repo: str, sha: str, folder: str, tree: dict[str, Any]) -> str:
        """The skill folder in a pinned tree, by the search order of §B6."""
        truncated = bool(tree.get("truncated"))
        blobs = {e["path"] for e in tree.get("tree") or [] if isinstance(e, dict) and e.get("type") == "blob"}

        def has_skill(d: str) -> bool:
            prefix = f"{d}/" if d else ""
            if any(f"{prefix}{n}" in blobs for n in SKILL_FILES):
                return True
            if truncated:
                names = {e.get("name") for e in self._dir(owner, repo, sha, d, missing_ok=True)}
                return any(n in names for n in SKILL_FILES)
            return False

        where = f"{owner}/{repo}@{sha[:12]}"
        if folder:
            if not has_skill(folder):
                raise NotFound(f"github: no SKILL.md in {folder!r} of {where}", code="not_found")
            return folder
        if has_skill(""):
            return ""
        found: list[str] = []
        for root in SKILL_ROOTS:
            children = sorted({p[len(root) + 1:].split("/", 1)[0] for p in blobs if p.startswith(root + "/")})
            if truncated:
                children = [e["name"] for e in self._dir(owner, repo, sha, root, missing_ok=True)
                            if e.get("type") == "dir"]
            found += [f"{root}/{c}" for c in children if has_skill(f"{root}/{c}")]
        if not found and not truncated:
            for p in sorted(blobs):
                parts = p.split("/")
                if parts[-1] in SKILL_FILES and len(parts) <= 6 and not any(s in SKIP_DIRS for s in parts[:-1]):
                    d = "/".join(parts[:-1])
                    if not any(d.startswith(f + "/") for f in found):
                        found.append(d)
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            return found[0]
        if not found:
            hint = " (the tree is too large to search: name the folder, github:owner/repo/path)" if truncated else ""
            raise NotFound(f"github: no skill (SKILL.md) found in {where}{hint}", code="not_found")
        choices = [f"github:{owner}/{repo}/{f}" for f in found]
        raise UsageError(f"github: {owner}/{repo} holds {len(found)} skills; name one: " + ", ".join(choices[:20]),
                         code="ambiguous_skill", details={"matches": choices})

    # ------------------------------------------------------------------ fetching

    def _dir(self, owner: str, repo: str, sha: str, path: str, *, missing_ok: bool = False) -> list[dict[str, Any]]:
        try:
            data = self._get(f"/repos/{_q(owner)}/{_q(repo)}/contents/{_q(path, safe='/')}", {"ref": sha},
                             what=f"folder {path!r} of {owner}/{repo}")
        except NotFound:
            if missing_ok:
                return []
            raise
        return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []

    def _listing(self, pinned: SkillRef) -> list[tuple[str, int, str]]:
        """``(path relative to the skill folder, size, git blob sha)`` for the pinned skill's files."""
        owner, repo, folder = _split(pinned)
        sha = pinned.revision or ""
        tree = self._tree(owner, repo, sha)
        prefix = f"{folder}/" if folder else ""
        out: list[tuple[str, int, str]] = []
        if not tree.get("truncated"):
            for e in tree.get("tree") or []:
                path = e.get("path", "")
                if not path.startswith(prefix) or e.get("type") == "tree":
                    continue
                rel = path[len(prefix):]
                self._admit(out, rel, e.get("type"), e.get("mode"), e.get("size"), e.get("sha"), pinned)
            return sorted(out)
        # Truncated: walk the folder with the contents API, each folder once, only strictly downwards
        # (a listing that names the folder itself, a parent or another tree is not followed).
        stack = [folder]
        seen = {folder}
        while stack:
            d = stack.pop()
            if len(seen) > MAX_LISTING_FOLDERS:
                raise RegistryError(f"github: {pinned} has more than {MAX_LISTING_FOLDERS} folders to list; refused",
                                    code="registry_error", details={"limit": MAX_LISTING_FOLDERS})
            inside = f"{d}/" if d else ""
            for e in self._dir(owner, repo, sha, d):
                path = str(e.get("path", ""))
                if not path.startswith(inside) or path == d or not path[len(inside):] \
                        or "/" in path[len(inside):] or not path.startswith(prefix):
                    self.warnings.append(f"github: the listing of {d or '/'} names {path[:200]!r} outside it; skipped")
                    continue
                rel = path[len(prefix):]
                if e.get("type") == "dir":
                    if path not in seen:
                        seen.add(path)
                        stack.append(path)
                else:
                    kind = {"file": "blob", "symlink": "symlink", "submodule": "commit"}.get(str(e.get("type")), "?")
                    self._admit(out, rel, kind, None, e.get("size"), e.get("sha"), pinned)
        return sorted(out)

    def _admit(self, out: list[tuple[str, int, str]], rel: str, kind: Any, mode: Any, size: Any, sha: Any,
               pinned: SkillRef) -> None:
        if kind == "commit" or mode == "160000":
            self.warnings.append(f"github: submodule {rel!r} in {pinned} skipped")
            return
        if mode == "120000" or kind == "symlink":
            raise BadInput(f"github: {rel!r} in {pinned} is a symlink; skills may contain regular files only",
                           code="unsafe_bundle", details={"entry": rel, "rule": "NV-LIMIT-001"})
        if kind != "blob" or not isinstance(sha, str):
            return
        out.append((rel, size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else 0, sha))

    def fetch(self, ref: SkillRef, version: str | None = None) -> SkillBundle:
        from nervous.plugin.toolkit import Limits, check_listing, is_fingerprinted_path, make_bundle

        pinned = self.pin(ref if version is None else _with_revision(ref, version))
        owner, repo, _ = _split(pinned)
        limits = Limits.from_config(self.limits) if self.limits is not None else Limits()
        listing = [e for e in self._listing(pinned) if is_fingerprinted_path(e[0])]
        where = f"github skill {pinned}"
        check_listing([(p, s) for p, s, _ in listing], limits=limits, where=where)
        files: list[tuple[str, bytes]] = []
        for rel, _size, blob in listing:
            resp = self._raw(f"/repos/{_q(owner)}/{_q(repo)}/git/blobs/{blob}", limits.max_file_bytes,
                             what=f"file {rel!r} of {pinned}")
            data = resp.body
            if _git_blob_sha(data) != blob:
                raise BadInput(f"github: {rel!r} of {pinned} does not match its git blob id {blob}",
                               code="integrity_error", details={"entry": rel})
            files.append((rel, data))
        return make_bundle(files, limits=limits, ref=pinned, version=pinned.revision, registry=NAME,
                           where=where)

    # ------------------------------------------------------------------ HTTP

    def _get(self, path: str, params: dict[str, Any] | None = None, *, what: str,
             ref: SkillRef | None = None) -> Any:
        resp = self._call(lambda: self.http.request(
            "GET", path, params, headers={"Accept": "application/vnd.github+json"}), what, ref)
        data = resp.json()
        if not isinstance(data, (dict, list)):
            raise RegistryError(f"github {what}: unexpected answer from {self.api_url}")
        return data

    def _raw(self, path: str, max_bytes: int, *, what: str) -> Response:
        return self._call(lambda: self.http.request(
            "GET", path, headers={"Accept": "application/vnd.github.raw"}, max_bytes=max_bytes,
            timeout=self.http.download_timeout), what, None)

    def _call(self, fn: Any, what: str, ref: SkillRef | None) -> Response:
        from nervous.plugin.toolkit import HttpStatusError

        try:
            return fn()  # type: ignore[no-any-return]
        except HttpStatusError as exc:
            raise self._map_error(exc, what, ref) from None
        except RegistryError as exc:
            if exc.code == "rate_limited":
                raise RegistryError(f"github {what}: rate limited by GitHub; {exc.message.split('; ', 1)[-1]}"
                                    + ("" if self.token else " (set GITHUB_TOKEN for a higher limit)"),
                                    code="rate_limited", details=exc.details) from None
            raise

    def _map_error(self, exc: HttpStatusError, what: str, ref: SkillRef | None) -> NervousError:
        resp = exc.response
        message = _message(resp)
        details = dict(exc.details)
        if _is_rate_limited(resp):
            reset = resp.header("x-ratelimit-reset")
            when = ""
            if reset and reset.isdigit() and len(reset) <= 11:  # an epoch second, not a 400-digit number
                when = time.strftime(" (resets at %Y-%m-%d %H:%M:%S UTC)", time.gmtime(int(reset)))
                details["retry_at"] = int(reset)
            kind = "secondary rate limit" if _SECONDARY in message.lower() else \
                f"API rate limit ({resp.header('x-ratelimit-resource') or 'core'})"
            hint = "" if self.token else "; set GITHUB_TOKEN or [plugins.github] token for a higher limit"
            return RegistryError(f"github {what}: {kind} exceeded{when}{hint}",
                                 code="rate_limited", details=details)
        if resp.status == 401:
            return RegistryError(f"github {what}: {message or 'authentication required'} (HTTP 401); "
                                 "check GITHUB_TOKEN or [plugins.github] token", code="auth_failed", details=details)
        if resp.status == 404:
            target = str(ref) if ref is not None else what
            return NotFound(f"github: {target} not found (missing or private)", details=details)
        if resp.status == 422:
            errs = resp.json().get("errors") if resp.body.startswith(b"{") else None
            extra = "; ".join(str(e.get("message") or e.get("code")) for e in errs or [] if isinstance(e, dict))
            return UsageError(f"github {what}: {message}{': ' + extra if extra else ''}", code="invalid_query",
                              details=details)
        return RegistryError(f"github {what}: HTTP {resp.status}: {message or '(empty body)'}", details=details)


# --------------------------------------------------------------------------------------------
# Rate-limit rule (§B4)
# --------------------------------------------------------------------------------------------


def _message(resp: Response) -> str:
    try:
        data = resp.json()
    except NervousError:
        return resp.text.strip()[:300]
    return str(data.get("message") or "") if isinstance(data, dict) else ""


def _is_rate_limited(resp: Response) -> bool:
    if resp.status not in (403, 429):
        return False
    return resp.header("x-ratelimit-remaining") == "0" or resp.header("retry-after") is not None \
        or _SECONDARY in resp.text.lower() or resp.status == 429


def _should_retry(resp: Response) -> bool:
    if resp.status in (403, 429):
        return _is_rate_limited(resp)
    return resp.status == 408 or resp.status >= 500


def _wait_policy(resp: Response | None, attempt: int, now: float) -> float | None:
    """Seconds to wait before the next attempt; ``None`` = the client's exponential back-off."""
    if resp is None or resp.status not in (403, 429):
        return None
    retry_after = resp.header("retry-after")
    if retry_after is not None:
        seconds = _finite(retry_after)
        if seconds is not None:
            return max(seconds, 0.0)
    reset = resp.header("x-ratelimit-reset")
    if resp.header("x-ratelimit-remaining") == "0" and reset:
        seconds = _finite(reset)
        if seconds is not None:
            return max(seconds - now, 1.0)
    return float(60.0 * 2 ** (attempt - 1))  # secondary limit without a hint: at least a minute


# --------------------------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------------------------


def _split(ref: SkillRef) -> tuple[str, str, str]:
    """``(owner, repo, folder)`` of a GitHub reference."""
    if ref.registry not in (None, NAME) or not ref.owner or not ref.path:
        raise UsageError(f"github: {ref} is not a GitHub reference (github:owner/repo[/path][@sha])")
    repo, _, folder = ref.path.partition("/")
    return ref.owner, repo, folder.strip("/")


def _ref(full_name: str, folder: str, revision: str | None = None) -> SkillRef:
    owner, repo = full_name.split("/", 1)
    text = f"github:{owner}/{repo}" + (f"/{folder}" if folder else "") + (f"@{revision}" if revision else "")
    return SkillRef.parse(text)


def _with_revision(ref: SkillRef, version: str) -> SkillRef:
    if not re.fullmatch(r"[0-9a-f]{7,40}", version):
        raise UsageError(f"github: version {version!r} must be a commit sha")
    owner, repo, folder = _split(ref)
    return _ref(f"{owner}/{repo}", folder, version)


def _tree_url(full_name: str, sha: str | None, folder: str) -> str:
    base = f"https://github.com/{full_name}"
    if not folder and not sha:
        return base
    return f"{base}/tree/{sha or 'HEAD'}" + (f"/{folder}" if folder else "")


def _git_blob_sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _q(part: str, safe: str = "") -> str:
    from urllib.parse import quote

    return quote(part, safe=safe)


def _finite(text: str) -> float | None:
    from nervous.plugin.toolkit import text_number

    return text_number(text)


def _int(value: Any) -> int | None:
    from nervous.plugin.toolkit import answer_int

    return answer_int(value)


def _num(value: Any) -> float | None:
    from nervous.plugin.toolkit import answer_number

    return answer_number(value)
