"""Registry clients against hostile answers, over real loopback HTTP.

A configured site whose discovery fails never hands its token to another host; names in answers
must match the request; JSON answers are capped in size and time; contents walks are bounded;
only http(s) redirects are followed; non-finite numbers never reach ``--json`` output.
"""

from __future__ import annotations

import hashlib
import io
import json
import socket
import threading
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins import github as github_plugin
from nervous_plugins.clawhub import ClawHubRegistry
from nervous_plugins.github import GitHubRegistry

from nervous.errors import ConfigError, RegistryError
from nervous.kernel import http as kernel_http
from nervous.kernel.http import HttpClient, RedirectRefused, retry_after_seconds
from nervous.kernel.records import SkillRef
from nervous.testing import github_server
from nervous.testing.cli import run_cli
from nervous.testing.github_server import GitHubServer

SKILL_MD = b"---\nname: demo\ndescription: A demo skill.\n---\n# Demo\nHello.\n"

# --------------------------------------------------------------------------------------------
# A small hostile ClawHub: each route answers what the test says


Route = Callable[["_Handler", str, dict[str, str]], None]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hub: Hostile

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        parts = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        self.hub.requests.append({"path": parts.path, "query": query,
                                  "authorization": self.headers.get("Authorization")})
        for prefix, route in self.hub.routes.items():
            if parts.path.startswith(prefix):
                try:
                    route(self, parts.path, query)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
        self.send(404, b"Not found", "text/plain")

    def send(self, status: int, body: Any, ctype: str = "application/json",
             headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


class Hostile:
    def __init__(self, routes: dict[str, Route] | None = None) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: list[dict[str, Any]] = []
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Hostile:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def hub() -> Iterator[Hostile]:
    with Hostile() as server:
        yield server


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def _files() -> list[dict[str, Any]]:
    return [{"path": "SKILL.md", "size": len(SKILL_MD), "sha256": hashlib.sha256(SKILL_MD).hexdigest()}]


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("SKILL.md", SKILL_MD)
    return buf.getvalue()


def _skill_routes(slug: str = "demo", owner: Any = "alice", version: str = "1.0.0",
                  version_slug: str | None = None) -> dict[str, Route]:
    """A whole ClawHub skill whose answers name ``slug``/``owner`` whatever was asked."""

    def skill(h: _Handler, path: str, q: dict[str, str]) -> None:
        if "/versions/" in path:
            h.send(200, {"skill": {"slug": version_slug or slug},
                         "version": {"version": version, "createdAt": 1, "files": _files(),
                                     "security": {"status": "clean"}}})
        elif path.endswith("/scan"):
            h.send(404, {"message": "not found"})
        else:
            h.send(200, {"skill": {"slug": slug, "displayName": "Demo", "summary": "A demo", "stats": {}},
                         "latestVersion": {"version": "1.0.0"}, "owner": {"handle": owner}, "moderation": None})

    def download(h: _Handler, path: str, q: dict[str, str]) -> None:
        h.send(200, _zip(), "application/zip")

    return {"/api/v1/skills/": skill, "/api/v1/download": download}


# --------------------------------------------------------------------------------------------
# 1. Discovery of a configured site: no fallback to another host, no token elsewhere


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str | None]]:
    """Every request any HttpClient sends: (url, token)."""
    calls: list[tuple[str, str | None]] = []
    original = HttpClient._once

    def spy(self: HttpClient, method: str, url: str, *args: Any, **kw: Any) -> Any:
        calls.append((url, self.token))
        if not url.startswith("http://127.0.0.1:"):
            raise AssertionError(f"a request left loopback: {url}")
        return original(self, method, url, *args, **kw)

    monkeypatch.setattr(HttpClient, "_once", spy)
    return calls


def test_truncated_discovery_is_a_registry_error_and_the_token_stays_home(
        hub: Hostile, sent: list[tuple[str, str | None]]) -> None:
    hub.routes["/.well-known/"] = lambda h, p, q: h.send(200, b'{"apiBase": "http://127.0.0.1:1')
    reg = ClawHubRegistry(site=hub.url, token="clh_TEAMSECRET", timeout=2)
    with pytest.raises(RegistryError) as info:
        reg.resolve(SkillRef.parse("@ops/deploy"))
    assert info.value.code == "registry_error" and "discovery" in info.value.message and hub.url in info.value.message
    assert all(url.startswith(hub.url) for url, _ in sent)
    assert all(tok is None for _, tok in sent)  # discovery carries no token; nothing else was sent
    assert any("discovery" in w for w in reg.warnings)


def test_discovery_of_a_site_that_is_down_is_unreachable(sent: list[tuple[str, str | None]]) -> None:
    site = f"http://127.0.0.1:{_closed_port()}"
    reg = ClawHubRegistry(site=site, token="clh_TEAMSECRET", timeout=2)
    with pytest.raises(RegistryError) as info:
        reg.search("deploy")
    assert info.value.code == "unreachable" and "discovery" in info.value.message
    assert sent and all(url.startswith(site) and tok is None for url, tok in sent)


def test_a_discovered_api_base_on_another_host_gets_no_token(hub: Hostile,
                                                             sent: list[tuple[str, str | None]]) -> None:
    other = f"http://127.0.0.1:{_closed_port()}"
    hub.routes["/.well-known/"] = lambda h, p, q: h.send(200, {"apiBase": other})
    with pytest.raises(RegistryError) as info:
        ClawHubRegistry(site=hub.url, token="clh_TEAMSECRET").search("x")
    assert info.value.code == "registry_error" and other in info.value.message
    assert all(url.startswith(hub.url) for url, _ in sent)
    # without a token the announced base is used as before
    hub.routes["/.well-known/"] = lambda h, p, q: h.send(200, {"apiBase": hub.url + "/"})
    assert ClawHubRegistry(site=hub.url).base_url == hub.url


def test_cli_named_registry_with_failing_discovery_exits_3(hub: Hostile, tmp_path: Path, nervous_home: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           sent: list[tuple[str, str | None]]) -> None:
    hub.routes["/.well-known/"] = lambda h, p, q: h.send(200, b'{"apiBase": "ht')
    monkeypatch.setenv("TEAM_TOK", "clh_TEAMSECRET")
    config = tmp_path / "nervous.toml"
    config.write_text(f'[registries]\nuse = ["team"]\n\n[registries.team]\nprovider = "clawhub"\n'
                      f'site = "{hub.url}"\ntoken_env = "TEAM_TOK"\n')
    work = tmp_path / "work"
    work.mkdir()
    res = run_cli("--config", str(config), "install", "team:@ops/deploy", "--yes", "--json", cwd=work)
    assert res.exit_code == 3, res.json
    assert res.json["error"]["code"] in ("registry_error", "unreachable")
    assert "discovery" in res.json["error"]["message"]
    assert all(url.startswith(hub.url) for url, _ in sent)
    assert all(r["authorization"] is None for r in hub.requests)


# --------------------------------------------------------------------------------------------
# 2. Server-chosen names


@pytest.mark.parametrize("slug", [".hidden", "demo\n", "$(id)", ".clawhub", "node_modules", "../demo",
                                  "demo@9", "x:demo", 42])
def test_a_skill_detail_naming_an_invalid_slug_is_refused(hub: Hostile, slug: Any) -> None:
    hub.routes.update(_skill_routes(slug=slug))
    with pytest.raises(RegistryError) as info:
        ClawHubRegistry(registry=hub.url).resolve(SkillRef.parse("demo"))
    assert info.value.code == "registry_error"


@pytest.mark.parametrize("owner", ["mallory", "$(id)", ".x", "a/b", ""])
def test_an_owner_other_than_asked_or_invalid_is_refused(hub: Hostile, owner: str) -> None:
    hub.routes.update(_skill_routes(owner=owner))
    reg = ClawHubRegistry(registry=hub.url)
    with pytest.raises(RegistryError):
        reg.resolve(SkillRef.parse("@alice/demo"))
    if owner != "mallory":  # an invalid owner is refused for a bare reference too
        with pytest.raises(RegistryError):
            ClawHubRegistry(registry=hub.url).resolve(SkillRef.parse("demo"))


def test_a_renamed_slug_resolves_to_its_canonical_name_with_a_warning(hub: Hostile) -> None:
    hub.routes.update(_skill_routes(slug="demo-two"))  # protocols A4: old slugs resolve to the canonical skill
    reg = ClawHubRegistry(registry=hub.url)
    assert reg.resolve(SkillRef.parse("demo")).ref.name == "demo-two"
    assert any("resolves to" in w and "demo-two" in w for w in reg.warnings)


def test_matching_names_still_resolve(hub: Hostile) -> None:
    hub.routes.update(_skill_routes(slug="Demo", owner="Alice"))
    meta = ClawHubRegistry(registry=hub.url).resolve(SkillRef.parse("@alice/demo"))
    assert meta.ref.qualified == "@alice/demo"


@pytest.mark.parametrize("kw", [{"version": "6.6.6"}, {"version_slug": ".hidden"}, {"version_slug": "other"}])
def test_a_version_answer_for_another_skill_or_version_is_refused(hub: Hostile, kw: dict[str, str]) -> None:
    hub.routes.update(_skill_routes(**kw))
    with pytest.raises(RegistryError):
        ClawHubRegistry(registry=hub.url).version(SkillRef.parse("@alice/demo"), "1.0.0")


@pytest.mark.parametrize("slug", [".hidden", "node_modules", "$(id)"])
def test_cli_install_of_an_invalid_name_installs_nothing(hub: Hostile, tmp_path: Path, nervous_home: Path,
                                                          slug: str) -> None:
    hub.routes.update(_skill_routes(slug=slug))
    work = tmp_path / "work"
    work.mkdir()
    res = run_cli("-c", 'registries.use=["clawhub"]', "install", "demo", "--yes", "--json", cwd=work,
                  env={"CLAWHUB_REGISTRY": hub.url})
    assert res.exit_code == 3, res.json
    assert res.json["error"]["code"] == "registry_error"
    assert not (work / "skills").exists() or not any((work / "skills").iterdir())
    assert not any(r["path"] == "/api/v1/download" for r in hub.requests)


# --------------------------------------------------------------------------------------------
# 3. Size cap and overall deadline for JSON answers


def _endless(h: _Handler, path: str, q: dict[str, str]) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Connection", "close")
    h.end_headers()
    chunk = b" " * (1 << 20)
    while True:
        h.wfile.write(chunk)


def _drip(h: _Handler, path: str, q: dict[str, str]) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Connection", "close")
    h.end_headers()
    for _ in range(400):
        h.wfile.write(b" ")
        h.wfile.flush()
        time.sleep(0.05)


def test_an_endless_json_answer_is_too_large(hub: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    assert kernel_http.MAX_JSON_BYTES == 16 * 1024 * 1024
    monkeypatch.setattr(kernel_http, "MAX_JSON_BYTES", 2 * 1024 * 1024)
    hub.routes["/api/v1/search"] = _endless
    with pytest.raises(RegistryError) as info:
        ClawHubRegistry(registry=hub.url, http_options={"retries": 0}).search("x")
    assert info.value.code == "too_large"


def test_a_declared_oversize_json_answer_is_refused_before_reading(hub: Hostile,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_http, "MAX_JSON_BYTES", 1000)
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(200, {"results": [], "pad": "x" * 5000})
    with pytest.raises(RegistryError) as info:
        HttpClient(hub.url, retries=0).get_json("/api/v1/search")
    assert info.value.code == "too_large"


def _drip_headers(h: _Handler, path: str, q: dict[str, str]) -> None:
    h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    for _ in range(400):  # one header byte at a time, each well inside the socket timeout
        h.wfile.write(b"X-Slow: y\r\n"[_ % 11:_ % 11 + 1])
        h.wfile.flush()
        time.sleep(0.05)


@pytest.mark.parametrize("route", [_drip, _drip_headers], ids=["body", "headers"])
def test_a_dripping_answer_ends_at_the_deadline(hub: Hostile, route: Route) -> None:
    hub.routes["/api/v1/search"] = route
    client = HttpClient(hub.url, retries=0, timeout=0.25)  # deadline 0.25 s × DEADLINE_FACTOR
    t0 = time.monotonic()
    with pytest.raises(RegistryError) as info:
        client.get_json("/api/v1/search")
    assert info.value.code == "unreachable" and "did not complete within 1 s" in info.value.message
    assert time.monotonic() - t0 < 0.25 * kernel_http.DEADLINE_FACTOR + 2


def _cut_short(h: _Handler, path: str, q: dict[str, str]) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/zip")
    h.send_header("Content-Length", "1000")
    h.send_header("Connection", "close")
    h.end_headers()
    h.wfile.write(b"P" * 500)  # then the connection closes


def test_an_answer_shorter_than_announced_is_a_network_error_and_retried(hub: Hostile) -> None:
    hub.routes["/api/v1/download"] = _cut_short
    client = HttpClient(hub.url, retries=1, sleep=lambda s: None)
    with pytest.raises(RegistryError) as info:
        client.get_bytes("/api/v1/download", max_bytes=10_000)
    assert info.value.code == "unreachable"
    assert "ended after 500 of the 1000 bytes it announced" in info.value.message
    assert len(hub.requests) == 2  # retried, as any network failure


def test_a_token_with_a_line_end_is_trimmed_and_one_with_a_control_character_refused(hub: Hostile) -> None:
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(200, {"results": []})
    HttpClient(hub.url, token="clh_SECRETVALUE\r\n").get_json("/api/v1/search")
    assert hub.requests[-1]["authorization"] == "Bearer clh_SECRETVALUE"
    for token in ("clh_SECRET\rVALUE", "clh_SECRET\x1bVALUE", "clh_SECRET\u2603"):
        with pytest.raises(ConfigError) as info:
            HttpClient(hub.url, token=token)
        assert "SECRET" not in info.value.message and "not shown" in info.value.message
    assert len(hub.requests) == 1


def test_a_token_with_a_control_character_never_reaches_the_output(hub: Hostile, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    res = run_cli("-c", 'registries.use=["clawhub"]', "inspect", "@alice/demo", "--json", cwd=work,
                  env={"CLAWHUB_REGISTRY": hub.url, "CLAWHUB_TOKEN": "clh_SECRET\rVALUE",
                       "NERVOUS_HOME": str(tmp_path / "home")})
    assert res.exit_code == 2, res.stdout
    assert res.json["error"]["code"] == "config_error"
    assert "SECRET" not in res.stdout + res.stderr and not hub.requests


# --------------------------------------------------------------------------------------------
# 4. GitHub contents walk: a folder listing itself is not walked again; walks are bounded


@pytest.fixture
def gh() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        server.add_repo("acme/skills").commit({"skills/pdf/SKILL.md": b"---\nname: pdf\ndescription: x\n---\n",
                                               "skills/pdf/a.txt": b"a\n"})
        server.truncate_trees.add("acme/skills")
        yield server


_SKILL_ENTRY = {"type": "file", "name": "SKILL.md", "path": "skills/pdf/SKILL.md", "size": 5, "sha": "0" * 40}


def _contents_with(monkeypatch: pytest.MonkeyPatch, extra: Callable[[str], list[dict[str, Any]]]) -> None:
    original = github_server._Handler._contents

    def contents(self: Any, repo: Any, path: str, query: dict[str, str]) -> None:
        added = extra(path.strip("/"))
        if not added:
            return original(self, repo, path, query)
        return self._json(200, added)

    monkeypatch.setattr(github_server._Handler, "_contents", contents)


def test_a_contents_listing_naming_its_own_folder_is_walked_once(gh: GitHubServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def extra(path: str) -> list[dict[str, Any]]:
        if path != "skills/pdf":
            return []
        return [_SKILL_ENTRY, {"type": "dir", "name": "pdf", "path": "skills/pdf"}, {"type": "dir", "name": "..", "path": "skills"},
                {"type": "dir", "name": "x", "path": "other/place"}]

    _contents_with(monkeypatch, extra)
    reg = GitHubRegistry(api_url=gh.url, token="ghp_test_token")
    pinned = reg.pin(SkillRef.parse("github:acme/skills/skills/pdf"))
    assert [f.path for f in reg.version(pinned).files] == ["SKILL.md"]
    assert len(gh.requests("/repos/acme/skills/contents/skills/pdf")) <= 3  # pins, then one walk
    assert not gh.requests("/repos/acme/skills/contents/other")


def test_a_contents_walk_is_bounded(gh: GitHubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(github_plugin, "MAX_LISTING_FOLDERS", 20)

    def extra(path: str) -> list[dict[str, Any]]:  # every folder holds a new, deeper one
        return [_SKILL_ENTRY, {"type": "dir", "name": "d", "path": f"{path}/d"}] if path.startswith("skills/pdf") \
            else []

    _contents_with(monkeypatch, extra)
    reg = GitHubRegistry(api_url=gh.url, token="ghp_test_token")
    pinned = reg.pin(SkillRef.parse("github:acme/skills/skills/pdf"))
    with pytest.raises(RegistryError):
        reg.version(pinned)
    assert len(gh.requests("/repos/acme/skills/contents/")) <= 22


# --------------------------------------------------------------------------------------------
# 5. Redirects: http(s) only, never https to http


def test_a_redirect_to_ftp_is_refused(hub: Hostile) -> None:
    ftp = f"ftp://127.0.0.1:{_closed_port()}/x"
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(302, b"", "text/plain", {"Location": ftp})
    with pytest.raises(RedirectRefused) as info:
        HttpClient(hub.url, retries=0).get_json("/api/v1/search")
    assert info.value.code == "registry_error" and "ftp" in info.value.message


def test_redirects_between_http_urls_still_work(hub: Hostile) -> None:
    hub.routes["/old"] = lambda h, p, q: h.send(301, b"", "text/plain", {"Location": "/api/v1/search"})
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(200, {"results": []})
    assert HttpClient(hub.url, retries=0).get_json("/old") == {"results": []}


@pytest.mark.parametrize("target", ["http://example.org/x", "ftp://example.org/x", "file:///etc/passwd"])
def test_https_never_redirects_down_or_sideways(target: str) -> None:
    handler = kernel_http._Redirects()
    req = urllib.request.Request("https://registry.example.org/api")
    with pytest.raises(RedirectRefused):
        handler.redirect_request(req, None, 302, "Found", {}, target)
    assert handler.redirect_request(req, None, 302, "Found", {}, "https://cdn.example.org/x") is not None


# --------------------------------------------------------------------------------------------
# 6. Non-finite numbers


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_numbers_in_answers_are_dropped(hub: Hostile) -> None:
    rows = (b'{"results": [{"source": "clawhub", "slug": "demo", "ownerHandle": "alice", "score": 1e400, '
            b'"downloads": NaN, "updatedAt": -Infinity, "metrics": {"bookmarks": 1e400}}]}')
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(200, rows)
    hit = ClawHubRegistry(registry=hub.url).search("demo")[0]
    assert hit.score is None and hit.downloads is None and hit.stars is None and hit.updated_at is None

    def versions(h: _Handler, path: str, q: dict[str, str]) -> None:
        if path.endswith("/versions"):
            h.send(200, b'{"items": [{"version": "1.0.0", "createdAt": 1e400}], "nextCursor": null}')
        else:
            h.send(200, b'{"skill": {"slug": "demo"}, "version": {"version": "1.0.0", "createdAt": NaN, '
                        b'"files": [{"path": "SKILL.md", "size": Infinity}]}}')

    hub.routes["/api/v1/skills/"] = versions
    reg = ClawHubRegistry(registry=hub.url)
    assert reg.versions(SkillRef.parse("@alice/demo"))[0].created_at is None
    detail = reg.version(SkillRef.parse("@alice/demo"), "1.0.0")
    assert detail.created_at is None and detail.files[0].size == 0


def test_cli_search_json_stays_valid_json(hub: Hostile, tmp_path: Path, nervous_home: Path) -> None:
    rows = b'{"results": [{"source": "clawhub", "slug": "demo", "ownerHandle": "alice", "score": 1e400}]}'
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(200, rows)
    res = run_cli("-c", 'registries.use=["clawhub"]', "search", "demo", "--json", cwd=tmp_path,
                  env={"CLAWHUB_REGISTRY": hub.url})
    assert res.exit_code == 0, res.stdout
    assert _strict(res.stdout)["hits"][0]["ref"].endswith("@alice/demo")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "NaN"])
def test_non_finite_retry_after_is_ignored(value: str, hub: Hostile) -> None:
    assert retry_after_seconds({"retry-after": value}, 1_771_404_506.0) is None
    assert retry_after_seconds({"ratelimit-reset": value}, 1_771_404_506.0) is None
    assert retry_after_seconds({"x-ratelimit-reset": value}, 1_771_404_506.0) is None
    hub.routes["/api/v1/search"] = lambda h, p, q: h.send(429, b"busy", "text/plain", {"Retry-After": value})
    sleeps: list[float] = []
    with pytest.raises(RegistryError) as info:
        HttpClient(hub.url, retries=1, sleep=sleeps.append).get_json("/api/v1/search")
    assert len(sleeps) == 1 and 0 <= sleeps[0] < 5
    _strict(json.dumps(info.value.to_json()))


def test_a_huge_error_body_is_cut_to_a_message() -> None:
    from nervous.kernel.http import ERROR_TEXT_CHARS, clean_error_text

    text = clean_error_text("Error: " + "x" * (1 << 20))
    assert len(text) == ERROR_TEXT_CHARS and text.endswith("\u2026") and text.startswith("xxx")
    assert clean_error_text("Error: not found") == "not found"
