"""A GitHub REST API stand-in for tests (specs/protocols.md §B7): loopback, random port, one thread.

Driven by fixtures (:class:`FakeRepo`), faithful in routes, status codes, header names and body
shapes, not in search ranking. Behaviour knobs: per-resource primary rate limits (403 or 429 with
``x-ratelimit-remaining: 0``), a secondary limit with ``retry-after``, truncated trees, incomplete
code-search results, tokens, and a request log.

Usage::

    with GitHubServer() as gh:
        repo = gh.add_repo("acme/skills", description="Team skills", topics=["agent-skills"])
        repo.commit({"skills/pdf/SKILL.md": b"---\\nname: pdf\\n..."})
        client_url = gh.url
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from attrs import define, field

DOCS = "https://docs.github.com/rest"


@define
class Symlink:
    """A symlink entry in a fixture commit (git mode 120000)."""

    target: str


@define
class Submodule:
    """A submodule entry in a fixture commit (git mode 160000)."""

    commit: str


Entry = bytes | Symlink | Submodule


def git_blob_sha(data: bytes) -> str:
    """Git's blob id: SHA-1 of ``blob <len>\\0<bytes>``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@define
class FakeRepo:
    """A repository fixture: metadata, branches and immutable commits of flat ``path -> entry`` maps."""

    owner: str
    name: str
    description: str | None = None
    topics: list[str] = field(factory=list)
    stars: int = 0
    archived: bool = False
    fork: bool = False
    license: str | None = "MIT"
    default_branch: str = "main"
    pushed_at: str = "2026-02-01T10:00:00Z"
    repo_id: int = 0
    branches: dict[str, str] = field(factory=dict)
    commits: dict[str, dict[str, Entry]] = field(factory=dict)
    private: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def commit(self, files: Mapping[str, Entry], branch: str | None = None) -> str:
        """Record a commit with exactly ``files`` on ``branch`` (default branch); returns its sha."""
        branch = branch or self.default_branch
        parent = self.branches.get(branch, "")
        digest = hashlib.sha1(parent.encode())
        for path in sorted(files):
            entry = files[path]
            digest.update(path.encode() + b"\0" + repr(entry).encode() if not isinstance(entry, bytes)
                          else path.encode() + b"\0" + git_blob_sha(entry).encode())
        sha = digest.hexdigest()
        self.commits[sha] = dict(files)
        self.branches[branch] = sha
        return sha

    def head(self) -> dict[str, Entry]:
        return self.commits[self.branches[self.default_branch]]


def _tree_sha(entries: Mapping[str, Entry], prefix: str) -> str:
    h = hashlib.sha1(b"tree")
    for path in sorted(p for p in entries if p.startswith(prefix)):
        e = entries[path]
        h.update(path.encode() + (git_blob_sha(e) if isinstance(e, bytes) else repr(e)).encode())
    return h.hexdigest()


class GitHubServer:
    """The stand-in. ``url`` is the API base; ``codeload_url`` serves zips (``/{o}/{r}/zip/{sha}``)."""

    def __init__(self, *, tokens: tuple[str, ...] = ("ghp_test_token",), latency: float = 0.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.tokens = set(tokens)
        self.latency = latency
        self.clock = clock
        #: requests allowed per window, per resource, for anonymous and authenticated callers
        self.limits: dict[str, tuple[int, int]] = {"core": (60, 5000), "search": (10, 30), "code_search": (10, 10)}
        self.windows: dict[str, int] = {"core": 3600, "search": 60, "code_search": 60}
        self.used: dict[tuple[str, str], tuple[int, int]] = {}  # (identity, resource) -> (window start, count)
        #: status for an exhausted primary limit (GitHub uses 403 and 429)
        self.primary_status = 403
        #: answer the next N requests with a secondary limit (status, retry-after seconds or None)
        self.secondary_remaining = 0
        self.secondary_status = 403
        self.secondary_retry_after: int | None = 1
        #: full names of repositories whose recursive trees come back ``truncated: true``
        self.truncate_trees: set[str] = set()
        self.incomplete_results = False
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ fixtures

    def add_repo(self, full_name: str, **kw: Any) -> FakeRepo:
        owner, name = full_name.split("/")
        repo = FakeRepo(owner=owner, name=name, repo_id=1000 + len(self.repos), **kw)
        self.repos[full_name.lower()] = repo
        return repo

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> GitHubServer:
        server = self

        class Handler(_Handler):
            gh = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="github-stand-in", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> GitHubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def codeload_url(self) -> str:
        return f"{self.url}/codeload"

    def requests(self, path_prefix: str = "") -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.log if r["path"].startswith(path_prefix)]

    # ------------------------------------------------------------------ rate limits

    def _limit_state(self, identity: str, resource: str, authed: bool, count: bool) -> tuple[int, int, int, int]:
        """(limit, remaining, used, reset epoch) after counting this request when ``count``."""
        limit = self.limits[resource][1 if authed else 0]
        window = self.windows[resource]
        now = int(self.clock())
        with self._lock:
            start, used = self.used.get((identity, resource), (now, 0))
            if now >= start + window:
                start, used = now, 0
            if count and used < limit:
                used += 1
            self.used[(identity, resource)] = (start, used)
        return limit, max(limit - used, 0), used, start + window

    def _exhausted(self, identity: str, resource: str, authed: bool) -> bool:
        limit = self.limits[resource][1 if authed else 0]
        now = int(self.clock())
        with self._lock:
            start, used = self.used.get((identity, resource), (now, 0))
            return now < start + self.windows[resource] and used >= limit


class _Handler(BaseHTTPRequestHandler):
    gh: GitHubServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        pass

    # ------------------------------------------------------------------ plumbing

    def do_GET(self) -> None:  # noqa: N802
        gh = self.gh
        parts = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parts.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(parts.query, keep_blank_values=True).items()}
        auth = self.headers.get("Authorization", "")
        token = auth.split(" ", 1)[1].strip() if " " in auth else None
        with gh._lock:
            gh.log.append({"method": "GET", "path": path, "query": query, "token": token is not None,
                           "accept": self.headers.get("Accept"), "user_agent": self.headers.get("User-Agent"),
                           "api_version": self.headers.get("X-GitHub-Api-Version")})
        if gh.latency:
            time.sleep(gh.latency)
        self._rl: tuple[int, int, int, int, str] | None = None
        if path.startswith("/codeload/"):
            return self._codeload(path)
        if token is not None and token not in gh.tokens:
            return self._json(401, {"message": "Bad credentials", "documentation_url": DOCS, "status": "401"})
        authed = token is not None
        resource = "code_search" if path == "/search/code" else "search" if path.startswith("/search/") else "core"
        identity = token or self.client_address[0]
        if path == "/rate_limit":
            return self._rate_limit(identity, authed)
        if resource == "code_search" and not authed:
            self._rl = (*gh._limit_state(identity, "core", False, False)[:4], "core")
            return self._json(401, {"message": "Requires authentication", "documentation_url": DOCS, "status": "401"})
        if gh.secondary_remaining > 0:
            gh.secondary_remaining -= 1
            limit, remaining, used, reset = gh._limit_state(identity, resource, authed, True)
            self._rl = (limit, remaining, used, reset, resource)
            extra = {"retry-after": str(gh.secondary_retry_after)} if gh.secondary_retry_after is not None else {}
            return self._json(gh.secondary_status, {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
                           "again. If you reach out to GitHub Support for help, please include the request ID.",
                "documentation_url": DOCS, "status": str(gh.secondary_status)}, extra)
        if gh._exhausted(identity, resource, authed):
            limit, remaining, used, reset = gh._limit_state(identity, resource, authed, False)
            self._rl = (limit, 0, used, reset, resource)
            who = "user" if authed else self.client_address[0]
            return self._json(gh.primary_status, {
                "message": f"API rate limit exceeded for {who}. (But here's the good news: Authenticated requests "
                           "get a higher rate limit. Check out the documentation for more details.)",
                "documentation_url": DOCS, "status": str(gh.primary_status)})
        self._rl = (*gh._limit_state(identity, resource, authed, True), resource)
        try:
            self._route(path, query)
        except _Answer as ans:
            self._json(ans.status, ans.body)

    def _send(self, status: int, body: bytes, content_type: str, extra: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-GitHub-Api-Version-Selected", "2022-11-28")
        if self._rl is not None:
            limit, remaining, used, reset, resource = self._rl
            self.send_header("x-ratelimit-limit", str(limit))
            self.send_header("x-ratelimit-remaining", str(remaining))
            self.send_header("x-ratelimit-used", str(used))
            self.send_header("x-ratelimit-reset", str(reset))
            self.send_header("x-ratelimit-resource", resource)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any, extra: Mapping[str, str] | None = None) -> None:
        self._send(status, json.dumps(data, indent=2).encode(), "application/json; charset=utf-8", extra)

    def _raw_wanted(self) -> bool:
        accept = self.headers.get("Accept", "")
        return "application/vnd.github.raw" in accept or "application/vnd.github.v3.raw" in accept

    # ------------------------------------------------------------------ routing

    def _route(self, path: str, query: dict[str, str]) -> None:
        if path == "/search/code":
            return self._search_code(query)
        if path == "/search/repositories":
            return self._search_repos(query)
        m = re.match(r"^/repos/([^/]+)/([^/]+)(/.*)?$", path)
        if not m:
            raise _Answer(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})
        repo = self.gh.repos.get(f"{m.group(1)}/{m.group(2)}".lower())
        if repo is None or repo.private:
            raise _Answer(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})
        rest = m.group(3) or ""
        if rest == "":
            return self._json(200, self._repo_json(repo))
        if rest.startswith("/commits/"):
            sha = self._resolve(repo, rest[len("/commits/"):])
            return self._json(200, self._commit_json(repo, sha))
        if rest.startswith("/git/trees/"):
            return self._tree(repo, rest[len("/git/trees/"):], query)
        if rest.startswith("/git/blobs/"):
            return self._blob(repo, rest[len("/git/blobs/"):])
        if rest == "/contents" or rest.startswith("/contents/"):
            return self._contents(repo, rest[len("/contents"):].lstrip("/"), query)
        if rest.startswith("/zipball"):
            ref = rest[len("/zipball"):].lstrip("/") or repo.default_branch
            sha = self._resolve(repo, ref)
            location = f"{self.gh.codeload_url}/{repo.owner}/{repo.name}/legacy.zip/{sha}"
            return self._send(302, b"", "text/html; charset=utf-8", {"Location": location})
        raise _Answer(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})

    def _resolve(self, repo: FakeRepo, ref: str) -> str:
        if ref in repo.branches:
            return repo.branches[ref]
        if re.fullmatch(r"[0-9a-f]{7,40}", ref):
            found = [s for s in repo.commits if s.startswith(ref)]
            if len(found) == 1:
                return found[0]
        raise _Answer(422, {"message": f"No commit found for SHA: {ref}", "documentation_url": DOCS, "status": "422"})

    # ------------------------------------------------------------------ shapes

    def _api(self, suffix: str) -> str:
        return f"{self.gh.url}{suffix}"

    def _owner_json(self, repo: FakeRepo) -> dict[str, Any]:
        return {"login": repo.owner, "id": 1, "type": "Organization", "url": self._api(f"/users/{repo.owner}"),
                "html_url": f"https://github.com/{repo.owner}"}

    def _repo_min(self, repo: FakeRepo) -> dict[str, Any]:
        return {"id": repo.repo_id, "name": repo.name, "full_name": repo.full_name, "private": repo.private,
                "owner": self._owner_json(repo), "html_url": f"https://github.com/{repo.full_name}",
                "description": repo.description, "fork": repo.fork,
                "url": self._api(f"/repos/{repo.full_name}")}

    def _repo_json(self, repo: FakeRepo) -> dict[str, Any]:
        lic = {"key": repo.license.lower(), "name": f"{repo.license} License", "spdx_id": repo.license} \
            if repo.license else None
        return {**self._repo_min(repo), "default_branch": repo.default_branch, "stargazers_count": repo.stars,
                "watchers_count": repo.stars, "forks_count": 0, "topics": list(repo.topics),
                "archived": repo.archived, "disabled": False, "license": lic, "pushed_at": repo.pushed_at,
                "updated_at": repo.pushed_at, "created_at": "2025-01-01T00:00:00Z", "visibility": "public",
                "language": "Python", "score": 1.0}

    def _commit_json(self, repo: FakeRepo, sha: str) -> dict[str, Any]:
        tree = _tree_sha(repo.commits[sha], "")
        return {"sha": sha, "node_id": "C_" + sha[:10], "url": self._api(f"/repos/{repo.full_name}/commits/{sha}"),
                "html_url": f"https://github.com/{repo.full_name}/commit/{sha}",
                "commit": {"message": "fixture commit", "tree": {"sha": tree, "url": self._api(
                    f"/repos/{repo.full_name}/git/trees/{tree}")},
                    "author": {"name": "fixture", "date": repo.pushed_at}}, "parents": [], "files": []}

    # ------------------------------------------------------------------ git data

    def _tree(self, repo: FakeRepo, ref: str, query: dict[str, str]) -> None:
        sha = self._resolve(repo, ref)
        files = repo.commits[sha]
        recursive = query.get("recursive") not in (None, "", "0", "false")
        dirs: set[str] = set()
        for p in files:
            parts = p.split("/")
            dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        paths = sorted(set(files) | dirs)
        if not recursive:
            paths = [p for p in paths if "/" not in p]
        tree: list[dict[str, Any]] = []
        for p in paths:
            if p in dirs:
                tree.append({"path": p, "mode": "040000", "type": "tree", "sha": _tree_sha(files, p + "/"),
                             "url": self._api(f"/repos/{repo.full_name}/git/trees/{_tree_sha(files, p + '/')}")})
                continue
            e = files[p]
            if isinstance(e, Submodule):
                tree.append({"path": p, "mode": "160000", "type": "commit", "sha": e.commit})
            else:
                data = e if isinstance(e, bytes) else e.target.encode()
                blob = git_blob_sha(data)
                tree.append({"path": p, "mode": "120000" if isinstance(e, Symlink) else "100644", "type": "blob",
                             "sha": blob, "size": len(data),
                             "url": self._api(f"/repos/{repo.full_name}/git/blobs/{blob}")})
        truncated = recursive and repo.full_name.lower() in self.gh.truncate_trees
        if truncated:
            tree = tree[: max(1, len(tree) // 3)]
        self._json(200, {"sha": _tree_sha(files, ""), "url": self._api(f"/repos/{repo.full_name}/git/trees/{sha}"),
                         "tree": tree, "truncated": truncated})

    def _blob(self, repo: FakeRepo, sha: str) -> None:
        for files in repo.commits.values():
            for e in files.values():
                data = e if isinstance(e, bytes) else e.target.encode() if isinstance(e, Symlink) else None
                if data is not None and git_blob_sha(data) == sha:
                    if self._raw_wanted():
                        return self._send(200, data, "application/octet-stream")
                    return self._json(200, {"sha": sha, "node_id": "B_" + sha[:10], "size": len(data),
                                            "url": self._api(f"/repos/{repo.full_name}/git/blobs/{sha}"),
                                            "content": _b64_lines(data), "encoding": "base64"})
        raise _Answer(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})

    def _contents(self, repo: FakeRepo, path: str, query: dict[str, str]) -> None:
        sha = self._resolve(repo, query.get("ref") or repo.default_branch)
        files = repo.commits[sha]
        path = path.strip("/")
        base = f"/repos/{repo.full_name}/contents/"
        if path in files:
            e = files[path]
            if isinstance(e, bytes) and self._raw_wanted():
                return self._send(200, e, "application/octet-stream")
            return self._json(200, self._content_entry(repo, sha, path, e, full=True))
        prefix = path + "/" if path else ""
        children: dict[str, dict[str, Any]] = {}
        for p, e in files.items():
            if not p.startswith(prefix):
                continue
            rest = p[len(prefix):]
            name = rest.split("/", 1)[0]
            child = prefix + name
            if "/" in rest:
                children[name] = {"type": "dir", "name": name, "path": child, "sha": _tree_sha(files, child + "/"),
                                  "size": 0, "url": self._api(f"{base}{child}?ref={sha}"),
                                  "html_url": f"https://github.com/{repo.full_name}/tree/{sha}/{child}",
                                  "git_url": None, "download_url": None}
            else:
                children[name] = self._content_entry(repo, sha, child, e, full=False)
        if not children:
            raise _Answer(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})
        self._json(200, [children[k] for k in sorted(children)])

    def _content_entry(self, repo: FakeRepo, sha: str, path: str, e: Entry, *, full: bool) -> dict[str, Any]:
        name = path.rsplit("/", 1)[-1]
        if isinstance(e, Submodule):
            return {"type": "submodule", "name": name, "path": path, "sha": e.commit, "size": 0,
                    "url": self._api(f"/repos/{repo.full_name}/contents/{path}?ref={sha}"),
                    "html_url": None, "git_url": None, "download_url": None}
        data = e if isinstance(e, bytes) else e.target.encode()
        blob = git_blob_sha(data)
        out: dict[str, Any] = {
            "type": "symlink" if isinstance(e, Symlink) else "file", "name": name, "path": path, "sha": blob,
            "size": len(data), "url": self._api(f"/repos/{repo.full_name}/contents/{path}?ref={sha}"),
            "html_url": f"https://github.com/{repo.full_name}/blob/{sha}/{path}",
            "git_url": self._api(f"/repos/{repo.full_name}/git/blobs/{blob}"),
            "download_url": f"https://raw.githubusercontent.com/{repo.full_name}/{sha}/{path}",
            "_links": {"self": self._api(f"/repos/{repo.full_name}/contents/{path}?ref={sha}")},
        }
        if full and isinstance(e, Symlink):
            out["target"] = e.target
        elif full:
            out["encoding"] = "base64"
            out["content"] = _b64_lines(data)
        return out

    def _codeload(self, path: str) -> None:
        m = re.match(r"^/codeload/([^/]+)/([^/]+)/(?:legacy\.)?zip/(.+)$", path)
        repo = self.gh.repos.get(f"{m.group(1)}/{m.group(2)}".lower()) if m else None
        if m is None or repo is None:
            return self._send(404, b"404: Not Found", "text/plain; charset=utf-8")
        try:
            sha = self._resolve(repo, m.group(3))
        except _Answer:
            return self._send(404, b"404: Not Found", "text/plain; charset=utf-8")
        top = f"{repo.owner}-{repo.name}-{sha[:7]}/"
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(zipfile.ZipInfo(top, date_time=(1980, 1, 1, 0, 0, 0)), b"")
            for p in sorted(repo.commits[sha]):
                e = repo.commits[sha][p]
                if isinstance(e, Submodule):
                    continue
                info = zipfile.ZipInfo(top + p, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3
                info.external_attr = (0o120777 if isinstance(e, Symlink) else 0o100644) << 16
                zf.writestr(info, e if isinstance(e, bytes) else e.target.encode())
        self._send(200, buf.getvalue(), "application/zip",
                   {"Content-Disposition": f"attachment; filename={repo.owner}-{repo.name}-{sha[:7]}.zip"})

    def _rate_limit(self, identity: str, authed: bool) -> None:
        resources = {}
        for res in ("core", "search", "code_search"):
            limit, remaining, used, reset = self.gh._limit_state(identity, res, authed, False)
            resources[res] = {"limit": limit, "remaining": remaining, "used": used, "reset": reset, "resource": res}
        self._json(200, {"resources": resources, "rate": resources["core"]})

    # ------------------------------------------------------------------ search

    def _search_code(self, query: dict[str, str]) -> None:
        q = query.get("q", "")
        if "(" in q or ")" in q:
            raise _Answer(422, {"message": "Validation Failed", "errors": [
                {"message": "The search contains parentheses, which are not supported.", "resource": "Search",
                 "field": "q", "code": "invalid"}], "documentation_url": DOCS, "status": "422"})
        terms, quals = _parse_query(q)
        if not terms and not quals:
            raise _Answer(422, {"message": "Validation Failed", "errors": [
                {"resource": "Search", "field": "q", "code": "missing"}], "documentation_url": DOCS, "status": "422"})
        for key in ("repo", "user", "org"):
            for value in quals.get(key, []):
                known = any(r.full_name.lower() == value.lower() if key == "repo" else r.owner.lower() == value.lower()
                            for r in self.gh.repos.values())
                if not known:
                    raise _Answer(422, {"message": "Validation Failed", "errors": [
                        {"message": "The listed users and repositories cannot be searched either because the "
                                    "resources do not exist or you do not have permission to view them.",
                         "resource": "Search", "field": "q", "code": "invalid"}], "documentation_url": DOCS,
                        "status": "422"})
        if any("*" in v for v in quals.get("path", []) + quals.get("filename", [])):
            return self._json(200, {"total_count": 0, "incomplete_results": False, "items": []})
        items: list[dict[str, Any]] = []
        for repo in sorted(self.gh.repos.values(), key=lambda r: r.full_name.lower()):
            if repo.private or repo.archived or (repo.fork and "fork" not in quals) or not repo.branches:
                continue
            if any(repo.full_name.lower() != v.lower() for v in quals.get("repo", [])):
                continue
            if any(repo.owner.lower() != v.lower() for v in quals.get("org", []) + quals.get("user", [])):
                continue
            sha = repo.branches[repo.default_branch]
            for path, e in sorted(repo.commits[sha].items()):
                if not isinstance(e, bytes):
                    continue
                name = path.rsplit("/", 1)[-1]
                if any(name.lower() != v.lower() for v in quals.get("filename", [])):
                    continue
                if any(not (path.lower().startswith(v.lower().strip("/") + "/") or
                            ("/" + v.lower().strip("/") + "/") in "/" + path.lower())
                       for v in quals.get("path", [])):
                    continue
                if any(not name.lower().endswith("." + v.lower()) for v in quals.get("extension", [])):
                    continue
                haystack = (path + "\n" + e.decode("utf-8", "replace")).lower()
                if not all(t.lower() in haystack for t in terms):
                    continue
                score = 1.0 + sum(haystack.count(t.lower()) for t in terms)
                items.append({
                    "name": name, "path": path, "sha": git_blob_sha(e),
                    "url": self._api(f"/repositories/{repo.repo_id}/contents/{path}?ref={sha}"),
                    "git_url": self._api(f"/repositories/{repo.repo_id}/git/blobs/{git_blob_sha(e)}"),
                    "html_url": f"https://github.com/{repo.full_name}/blob/{sha}/{path}",
                    "repository": self._repo_min(repo), "score": score})
        items.sort(key=lambda i: -i["score"])
        self._json(200, self._page({"total_count": len(items), "incomplete_results": self.gh.incomplete_results},
                                   items, query))

    def _search_repos(self, query: dict[str, str]) -> None:
        terms, quals = _parse_query(query.get("q", ""))
        sort, order = query.get("sort"), query.get("order", "desc")
        if sort not in (None, "", "stars", "forks", "help-wanted-issues", "updated"):
            raise _Answer(422, {"message": "Validation Failed", "errors": [
                {"resource": "Search", "field": "sort", "code": "invalid"}], "documentation_url": DOCS,
                "status": "422"})
        items = []
        for repo in self.gh.repos.values():
            if repo.private:
                continue
            if any(t.lower() not in [x.lower() for x in repo.topics] for t in quals.get("topic", [])):
                continue
            if quals.get("archived") and str(repo.archived).lower() != quals["archived"][-1].lower():
                continue
            if quals.get("fork") and quals["fork"][-1].lower() == "false" and repo.fork:
                continue
            stars = quals.get("stars", [])
            if stars and stars[-1].startswith(">") and not repo.stars > int(stars[-1].lstrip(">=")):
                continue
            text = f"{repo.full_name} {repo.description or ''} {' '.join(repo.topics)}".lower()
            if not all(t.lower() in text for t in terms):
                continue
            items.append(self._repo_json(repo))
        if sort == "stars":
            items.sort(key=lambda r: r["stargazers_count"], reverse=order != "asc")
        elif sort == "updated":
            items.sort(key=lambda r: r["pushed_at"], reverse=order != "asc")
        else:
            items.sort(key=lambda r: (-len(terms), -r["stargazers_count"], r["full_name"]))
        self._json(200, self._page({"total_count": len(items), "incomplete_results": False}, items, query))

    def _page(self, head: dict[str, Any], items: list[Any], query: dict[str, str]) -> dict[str, Any]:
        try:
            per_page = max(1, min(int(query.get("per_page", 30)), 100))
            page = max(1, int(query.get("page", 1)))
        except ValueError:
            raise _Answer(422, {"message": "Validation Failed", "documentation_url": DOCS, "status": "422"}) from None
        return {**head, "items": items[(page - 1) * per_page: page * per_page]}


class _Answer(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


def _b64_lines(data: bytes) -> str:
    text = base64.b64encode(data).decode()
    return "\n".join(text[i:i + 60] for i in range(0, len(text), 60)) + "\n"


def _parse_query(q: str) -> tuple[list[str], dict[str, list[str]]]:
    terms: list[str] = []
    quals: dict[str, list[str]] = {}
    for token in re.findall(r'"[^"]*"|\S+', q):
        m = re.match(r"^([a-z_]+):(.+)$", token)
        if m and not token.startswith('"'):
            quals.setdefault(m.group(1), []).append(m.group(2).strip('"'))
        elif token.upper() not in ("AND", "OR", "NOT"):
            terms.append(token.strip('"'))
    return terms, quals


__all__ = ["GitHubServer", "FakeRepo", "Symlink", "Submodule", "git_blob_sha"]
