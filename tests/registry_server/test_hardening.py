"""Hostile input against the registry: header-unsafe content types, lookups of unknown names, made-up
bearer tokens, file names one system or another cannot hold, idle connections, and the publishing
client's answers to a registry that says no."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
import unicodedata
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from nervous.errors import EXIT_REFUSED, EXIT_USAGE, BadInput, UsageError
from nervous.frontends.registry_server.api import create_app
from nervous.frontends.registry_server.archive import content_type
from nervous.frontends.registry_server.blobs import BlobStore
from nervous.frontends.registry_server.catalog import Catalog, now_ms
from nervous.frontends.registry_server.publisher import publish_folder
from nervous.frontends.registry_server.ratelimit import RateLimits
from nervous.frontends.registry_server.rules import (
    Reject,
    check_path,
    check_slug,
    check_version,
    valid_content_type,
)
from nervous.frontends.registry_server.service import Registry
from nervous.kernel.fingerprint import skill_fingerprint
from nervous.kernel.http import HttpStatusError
from nervous.kernel.storage import MemoryStore
from nervous.testing.registry_process import RegistryProcess, nervous_cli

from .conftest import call, publish, skill_folder

SKILL_MD = b"---\nname: demo\ndescription: Demo.\n---\n# Demo\n"


# ---------------------------------------------------------------------------------------------- helpers


def _registry(tmp_path: Path, store: MemoryStore | None = None, **kw: Any) -> Registry:
    """A registry in this process over an in-memory store (no scan: skills are put in by :func:`_put_skill`)."""
    catalog = Catalog(store or MemoryStore(), refresh_interval=3600)
    return Registry(catalog, BlobStore(tmp_path / "blobs"), None, **kw)


def _put_skill(reg: Registry, owner: str, slug: str, files: dict[str, bytes] | None = None,
               ctype: str | None = None) -> None:
    files = files or {"SKILL.md": SKILL_MD}
    rows = [{"path": p, "size": len(b), "sha256": reg.blobs.put(b), "contentType": ctype or content_type(p)}
            for p, b in files.items()]
    record = {"version": "1.0.0", "createdAt": now_ms(), "changelog": "", "license": "MIT-0", "files": rows,
              "publisher": owner, "fingerprint": skill_fingerprint((r["path"], r["sha256"]) for r in rows),
              "moderation": {"verdict": "clean", "ruleIds": []}, "deleted": False}
    reg.catalog.publish(owner, slug, record, display_name=slug, summary="", topics=[], owner_id=f"users:{owner}")


@contextmanager
def _serving(reg: Registry, limits: RateLimits) -> Iterator[str]:
    """The registry's real ASGI app on uvicorn, on 127.0.0.1 in a thread (for limits a test can reach quickly)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(create_app(reg, rate_limits=limits, web=False), log_level="warning",
                                           access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _upload(url: str, token: str, path: str, data: bytes) -> dict[str, Any]:
    sha = hashlib.sha256(data).hexdigest()
    t = call("POST", f"{url}/api/v1/skills/-/upload-url", token=token, body={"path": path, "size": len(data),
                                                                            "sha256": sha})
    assert t.status == 200, t.text
    up = call("POST", t.json()["uploadUrl"], token=token, data=data)
    assert up.status == 200, up.text
    return {"path": path, "size": len(data), "sha256": sha, "storageId": sha}


def _listing(url: str) -> list[tuple[str, str]]:
    items = call("GET", f"{url}/api/v1/skills?limit=200&includeSuspicious=true").json()["items"]
    return sorted((i["slug"], i["latestVersion"]["version"]) for i in items)


# ---------------------------------------------------------------------------------------------- content types


def test_a_content_type_that_is_not_a_media_type_is_refused(server: RegistryProcess, alice: str) -> None:
    url = server.url
    skill = _upload(url, alice, "SKILL.md", SKILL_MD)
    text = _upload(url, alice, "f.txt", b"hello\n")
    for bad in ("text/\u2603", "text/plain\r\nSet-Cookie: a=b", "text/plain\nX: y", "text/plain\n", "text/plain\x00", "plain",
                "text/", "/plain", "text/plain; charset", "text/plain; a=\"\x7f\"", "a/" + "b" * 100, 7):
        answer = call("POST", f"{url}/api/v1/skills", token=alice,
                      body={"slug": "ctype", "version": "1.0.0", "files": [skill, {**text, "contentType": bad}]})
        assert answer.status == 400 and "Invalid contentType for 'f.txt'" in answer.text, (bad, answer.status)
    assert _listing(url) == []
    for also_good in ("text/plain; charset=utf-8;", "application/vnd.acme+json"):  # an empty parameter is allowed
        assert valid_content_type(also_good), also_good
    good = "text/plain; charset=utf-8"
    ok = call("POST", f"{url}/api/v1/skills", token=alice,
              body={"slug": "ctype", "version": "1.0.0", "files": [skill, {**text, "contentType": good}]})
    assert ok.status == 200, ok.text
    got = call("GET", f"{url}/api/v1/skills/ctype/file?path=f.txt&version=1.0.0")
    assert got.status == 200 and got.headers["content-type"] == good and got.body == b"hello\n"
    derived = call("GET", f"{url}/api/v1/skills/ctype/file?path=SKILL.md&version=1.0.0")  # none given: by extension
    assert derived.status == 200 and derived.headers["content-type"].startswith("text/markdown")


@pytest.mark.parametrize("stored", ["text/\u2603", "text/plain\r\nX-Evil: 1", "text/plain\x00", "x" * 300])
def test_a_stored_unsafe_content_type_is_never_sent(tmp_path: Path, stored: str) -> None:
    """Rows stored before content types were checked may hold anything: the file answer sends a safe one."""
    reg = _registry(tmp_path)
    _put_skill(reg, "alice", "legacy", {"SKILL.md": SKILL_MD, "notes.txt": b"hi\n"}, ctype=stored)
    reply = reg.file("legacy", {"path": "notes.txt", "version": "1.0.0"})
    assert reply.status == 200 and reply.content_type == "text/plain" and reply.body == b"hi\n"
    with _serving(reg, RateLimits()) as url:
        answer = call("GET", f"{url}/api/v1/skills/legacy/file?path=notes.txt&version=1.0.0")
        assert answer.status == 200 and answer.headers["content-type"].startswith("text/plain") and answer.body == b"hi\n"


# ---------------------------------------------------------------------------------------------- unknown names


def test_lookups_of_unknown_slugs_never_reload_the_catalogue(tmp_path: Path) -> None:
    reg = _registry(tmp_path)
    for i in range(30):
        _put_skill(reg, "alice", f"tool-{i}")
    reg.catalog.refresh(force=True)
    before = reg.catalog.reloads
    for i in range(200):
        with pytest.raises(Reject) as miss:
            reg.find(f"nope-{i}", {}, "json")
        assert miss.value.status == 404
    answer = reg.security_verdicts(b'{"items": [' + b",".join(b'{"slug": "x%d", "version": "1.0.0"}' % i
                                                             for i in range(100)) + b"]}")
    assert all(item["error"]["code"] == "not_found" for item in answer["items"])
    assert reg.catalog.reloads == before  # (each miss used to reload every skill document)
    assert reg.find("tool-3", {}, "json")["slug"] == "tool-3"


def test_a_skill_another_server_just_published_is_found_with_one_reload(tmp_path: Path) -> None:
    store = MemoryStore()
    reg = _registry(tmp_path, store)
    _put_skill(reg, "alice", "old")
    reg.catalog.refresh(force=True)
    other = _registry(tmp_path, store)  # a second server on the same store and blobs
    _put_skill(other, "bob", "fresh")
    before = reg.catalog.reloads
    barrier = threading.Barrier(16)
    found: list[list[str]] = []

    def look() -> None:
        barrier.wait()
        found.append(reg.catalog.owners_of("fresh"))
        found.append(reg.catalog.owners_of("still-unknown"))

    threads = [threading.Thread(target=look) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(found).count(["bob"]) == 16 and sorted(found).count([]) == 16
    assert reg.catalog.reloads == before + 1  # the waiting callers used the one reload


# ---------------------------------------------------------------------------------------------- made-up tokens


def test_a_made_up_bearer_counts_against_the_address(tmp_path: Path) -> None:
    reg = _registry(tmp_path)
    _put_skill(reg, "alice", "demo")
    token = reg.catalog.create_token("alice")
    with _serving(reg, RateLimits(read=5, download=5)) as url:
        statuses = [call("GET", f"{url}/api/v1/skills/demo", token=f"clh_forged{i}").status for i in range(6)]
        assert statuses == [200] * 5 + [429]  # an invalid token on a read reads as anonymous, charged to the address
        assert call("GET", f"{url}/api/v1/skills/demo").status == 429
        assert call("GET", f"{url}/api/v1/skills/demo", token=token).status == 200  # a real token is its own caller
        for i in range(4):
            assert call("GET", f"{url}/api/v1/download?slug=demo", token=f"garbage-{i}").status == 200
        assert call("GET", f"{url}/api/v1/download?slug=demo", token=token).status == 200
        assert call("GET", f"{url}/api/v1/skills/demo", token=token).json()["skill"]["stats"]["downloads"] == 2


def test_download_marks_are_bounded(tmp_path: Path) -> None:
    reg = _registry(tmp_path, counted_cap=10)
    _put_skill(reg, "alice", "demo")
    for i in range(50):
        assert reg.download({"slug": "demo"}, f"ip:10.0.0.{i}").status == 200
    assert len(reg._counted) == 10
    reg.download({"slug": "demo"}, "ip:10.0.0.49")  # still remembered: not counted twice
    assert reg.catalog.get("alice", "demo")["downloads"] == 50  # type: ignore[index]


# ---------------------------------------------------------------------------------------------- file names


@pytest.mark.parametrize("path", [
    "_META.json", "_Meta.JSON", ".GIT/config", ".Git/HEAD", "sub/.git/config", "Node_Modules/x.js", ".ClawHub/x",
    "a\nb.md", "c\rd", "e\x1bf", "g\x7fh", "i\x85j", "bad\u202egpj.md", "x\u2066y", "z\u200fw", "l\u2028m",
    "s\ud800t", "CON", "con", "aux.txt", "Nul.tar.gz", "dir/COM1.md", "lpt9", "com\u00b9", "prn .txt",
    "a. ", "b ", "notes.", "dir./x.md", "a:b", "dir/x:stream", "c:/x", "../x", "/abs", "a\\b", "a//b", "./a",
])
def test_unsafe_file_names_are_refused(path: str) -> None:
    with pytest.raises(Reject) as refused:
        check_path(path)
    assert refused.value.status == 400 and refused.value.text.startswith("Invalid file path")
    assert refused.value.text.isprintable()


@pytest.mark.parametrize("path", [
    "SKILL.md", "scripts/run.sh", "b_c.md", "b-c.md", "README", "café.md", unicodedata.normalize("NFD", "café.md"),
    ".env.example", "docs/v1.2/notes.md", "console.md", "auxiliary.txt", "com10.md", "lpt.txt", "con-fig/x.md",
    "a.b.c", "dir/_meta.json", "my file.md", "日本語/説明.md", "emoji-\U0001f468\u200d\U0001f469.md",
])
def test_ordinary_file_names_stay_accepted(path: str) -> None:
    assert check_path(path) == path


def test_names_equal_after_normalisation_and_case_folding_are_duplicates(server: RegistryProcess, alice: str) -> None:
    url = server.url
    skill = _upload(url, alice, "SKILL.md", SKILL_MD)
    one = _upload(url, alice, "café.md", b"one\n")
    two = _upload(url, alice, "cafe\u0301.md", b"two\n")
    pairs = [("café.md", unicodedata.normalize("NFD", "café.md")), ("Über.md", "üBER.md"), ("a.md", "A.MD")]
    for first, second in pairs:
        answer = call("POST", f"{url}/api/v1/skills", token=alice, body={
            "slug": "dupes", "version": "1.0.0",
            "files": [skill, {**one, "path": first}, {**two, "path": second}]})
        assert answer.status == 400 and "Duplicate file path" in answer.text, (first, second, answer.text)
    for bad in ("_META.json", "a\nb.md", "aux.txt", "b "):
        answer = call("POST", f"{url}/api/v1/skills", token=alice,
                      body={"slug": "dupes", "version": "1.0.0", "files": [skill, {**one, "path": bad}]})
        assert answer.status == 400 and answer.text.startswith("Invalid file path"), (bad, answer.text)
    assert _listing(url) == []
    ok = call("POST", f"{url}/api/v1/skills", token=alice,
              body={"slug": "dupes", "version": "1.0.0", "files": [skill, one]})
    assert ok.status == 200, ok.text
    # such disks fold letter by letter: "ß" and "ss" stay two names
    both = call("POST", f"{url}/api/v1/skills", token=alice, body={
        "slug": "dupes", "version": "1.0.1", "files": [skill, {**one, "path": "straße.md"}, {**two, "path": "strasse.md"}]})
    assert both.status == 200, both.text


def test_a_name_with_a_line_end_is_refused(server: RegistryProcess, alice: str) -> None:
    """(``$`` also matches before a final line end: the name checks anchor at the very end.)"""
    for check, value in ((check_slug, "dupes\n"), (check_version, "1.0.0\n"), (check_slug, "a\nb")):
        with pytest.raises(Reject):
            check(value)
    skill = _upload(server.url, alice, "SKILL.md", SKILL_MD)
    answer = call("POST", f"{server.url}/api/v1/skills", token=alice,
                  body={"slug": "dupes", "version": "1.0.0\n", "files": [skill]})
    assert answer.status == 400 and answer.text.startswith("Invalid version"), answer.text
    assert _listing(server.url) == []


# ---------------------------------------------------------------------------------------------- connections


def test_connections_over_the_cap_are_answered_503(server_env: dict[str, str], tmp_path: Path) -> None:
    env = {**server_env, "NERVOUS_REGISTRY_MAX_CONNECTIONS": "4"}
    with RegistryProcess(env, tmp_path / "data") as proc:
        host, port = proc.url.removeprefix("http://").split(":")
        slow = []
        for _ in range(4):  # clients that never finish their headers
            s = socket.create_connection((host, int(port)))
            s.sendall(b"GET /api/v1/skills HTTP/1.1\r\nHost: x\r\n")
            slow.append(s)
        time.sleep(0.3)
        busy = call("GET", f"{proc.url}/api/v1/skills")
        assert busy.status == 503
        for s in slow:
            s.close()
        deadline = time.monotonic() + 10
        while call("GET", f"{proc.url}/api/v1/skills").status != 200:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def _closed_within(sock: socket.socket, seconds: float) -> float:
    """Seconds until the server closed ``sock`` (reading nothing but the end), failing after ``seconds``."""
    started = time.monotonic()
    sock.settimeout(seconds)
    assert sock.recv(1024) == b"", "the server answered instead of closing the connection"
    return time.monotonic() - started


def test_a_request_head_that_does_not_arrive_in_time_closes_the_connection(server_env: dict[str, str],
                                                                           tmp_path: Path) -> None:
    env = {**server_env, "NERVOUS_REGISTRY_HEAD_TIMEOUT": "1", "NERVOUS_REGISTRY_MAX_CONNECTIONS": "3"}
    with RegistryProcess(env, tmp_path / "data") as proc:
        host, port = proc.url.removeprefix("http://").split(":")
        address = (host, int(port))
        silent = socket.create_connection(address)  # opens and sends nothing
        dripping = socket.create_connection(address)  # sends its headers a byte at a time
        with silent, dripping:
            dripping.sendall(b"GET /api/v1/skills HTTP/1.1\r\n")
            for byte in b"Host: x\r\nX-A: b":
                dripping.sendall(bytes([byte]))
                time.sleep(0.05)
            assert _closed_within(silent, 10) < 10
            assert _closed_within(dripping, 10) < 10
        # a kept-alive connection: the first request is answered, a second head left unfinished is cut off
        kept = socket.create_connection(address)
        with kept:
            kept.settimeout(10)
            kept.sendall(b"GET /api/v1/skills HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += kept.recv(65536)
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200"), head[:40]
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:")))
            while len(body) < length:
                body += kept.recv(65536)
            time.sleep(1.5)  # idle between requests past the head deadline: kept open (the keep-alive rules)
            kept.sendall(b"GET /api/v1/skills HTTP/1.1\r\n")
            assert 0.5 < _closed_within(kept, 10) < 10  # the unfinished head's own deadline
        # slow clients no longer hold the server's connections: a full house of them is cleared in time
        slow = [socket.create_connection(address) for _ in range(3)]
        for s in slow:
            s.sendall(b"GET /api/v1/skills HTTP/1.1\r\nHost: x\r\n")
        deadline = time.monotonic() + 10
        while call("GET", f"{proc.url}/api/v1/skills").status != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        for s in slow:
            s.close()


def test_a_request_body_must_keep_arriving(server_env: dict[str, str], tmp_path: Path) -> None:
    """After its head, a body has the head's time again, moved on by a second for every 500 bytes received."""
    env = {**server_env, "NERVOUS_REGISTRY_HEAD_TIMEOUT": "1"}
    head = b"POST /api/v1/skills HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
    with RegistryProcess(env, tmp_path / "data") as proc:
        host, port = proc.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as dripping:  # a byte every tenth of a second
            dripping.sendall(head % 100_000)
            started = time.monotonic()
            dripping.settimeout(0.1)
            answer = None
            while answer is None and time.monotonic() - started < 10:
                try:
                    dripping.sendall(b" ")
                    answer = dripping.recv(1024)
                except TimeoutError:
                    continue
                except OSError:  # reset: the server closed the connection first
                    answer = b""
            assert answer == b"" and 0.5 < time.monotonic() - started < 10
        body = b"{" + b" " * 9_998 + b"}"
        with socket.create_connection((host, int(port))) as steady:  # 2,000 bytes every half second: on time
            steady.sendall(head % len(body))
            for k in range(0, len(body), 2_000):
                time.sleep(0.5)
                steady.sendall(body[k:k + 2_000])
            steady.settimeout(10)
            assert steady.recv(1024).startswith(b"HTTP/1.1 ")  # answered (the request itself is refused), not cut off


def test_an_upgrade_request_is_answered_as_plain_http(server: RegistryProcess) -> None:
    """(The registry has no WebSocket endpoint: a connection is never handed to a protocol the deadlines do
    not watch.)"""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as s:
        s.settimeout(10)
        s.sendall(b"GET /api/v1/skills HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                  b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        assert s.recv(1024).startswith(b"HTTP/1.1 200")


def test_a_bad_head_timeout_is_a_usage_error(server_env: dict[str, str], tmp_path: Path) -> None:
    import subprocess
    import sys

    base = [sys.executable, "-m", "nervous", "registry", "serve", "--port", "0", "--data", str(tmp_path / "d")]
    for value in ("0", "soon", "-3", "nan", "inf", "3601"):
        proc = subprocess.run(base, env={**server_env, "NERVOUS_REGISTRY_HEAD_TIMEOUT": value},
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "NERVOUS_REGISTRY_HEAD_TIMEOUT" in proc.stderr, (value, proc.stderr)
        assert "Traceback" not in proc.stderr
        proc = subprocess.run([*base, "--head-timeout", value], env=server_env, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 2 and "--head-timeout" in proc.stderr, (value, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_a_bad_connection_cap_is_a_usage_error(server_env: dict[str, str], tmp_path: Path) -> None:
    import subprocess
    import sys

    for value in ("0", "many", "-3", "1e9"):
        proc = subprocess.run([sys.executable, "-m", "nervous", "registry", "serve", "--port", "0", "--data",
                               str(tmp_path / "d")], env={**server_env, "NERVOUS_REGISTRY_MAX_CONNECTIONS": value},
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "NERVOUS_REGISTRY_MAX_CONNECTIONS" in proc.stderr, (value, proc.stderr)
        assert "Traceback" not in proc.stderr
    for value in ("0", "many", "100001"):
        proc = subprocess.run([sys.executable, "-m", "nervous", "registry", "serve", "--port", "0", "--data",
                               str(tmp_path / "d"), "--max-connections", value], env=server_env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "--max-connections" in proc.stderr, (value, proc.stderr)


# ---------------------------------------------------------------------------------------------- publishing client


def test_a_bad_version_or_slug_is_refused_before_anything_is_sent(server: RegistryProcess, alice: str,
                                                                    tmp_path: Path) -> None:
    folder = skill_folder(tmp_path, "notes")
    blobs = server.data_dir / "blobs"
    for kw in ({"version": "1.0"}, {"version": "v1.0.0"}, {"slug": "Bad Slug"}, {"slug": "under_score"}):
        with pytest.raises(UsageError) as refused:
            publish(server, alice, folder, **kw)
        assert refused.value.exit_code == EXIT_USAGE and "Invalid" in refused.value.message
    assert not blobs.exists() or not any(p.is_file() for p in blobs.rglob("*"))  # no upload happened


@pytest.mark.parametrize("names", [["aux.txt"], ["notes."], ["Notes.md", "notes.md"], ["a\x1bb.md"]])
def test_a_folder_with_names_a_registry_refuses_uploads_nothing(server: RegistryProcess, alice: str, tmp_path: Path,
                                                                names: list[str]) -> None:
    folder = skill_folder(tmp_path, "notes")
    for name in names:
        try:
            (folder / name).write_text("x\n")
        except OSError:
            pytest.skip(f"this file system cannot hold {name!r}")
    if len({p.name for p in folder.iterdir()}) < len(names) + 1:
        pytest.skip("a case-insensitive file system")
    with pytest.raises(BadInput) as refused:
        publish(server, alice, folder, "1.0.0")
    assert refused.value.exit_code == EXIT_USAGE and refused.value.code == "bad_path"
    blobs = server.data_dir / "blobs"
    assert not blobs.exists() or not any(p.is_file() for p in blobs.rglob("*"))


def test_a_registry_that_says_no_is_exit_1(server: RegistryProcess, alice: str, tmp_path: Path) -> None:
    folder = skill_folder(tmp_path, "notes")
    publish(server, alice, folder, "1.0.0")
    with pytest.raises(HttpStatusError) as dup:
        publish(server, alice, folder, "1.0.0")
    assert dup.value.status == 409 and dup.value.exit_code == EXIT_REFUSED
    with pytest.raises(HttpStatusError) as forged:
        publish_folder(server.url, "clh_forged", folder, version="1.0.1")
    assert forged.value.status == 401 and forged.value.exit_code == EXIT_REFUSED
    with pytest.raises(HttpStatusError) as other:
        publish(server, alice, folder, "1.0.1", owner="bob")
    assert other.value.status == 403 and other.value.exit_code == EXIT_REFUSED


# ---------------------------------------------------------------------------------------------- messages


def test_bad_tickets_and_sizes_get_plain_messages(server: RegistryProcess, alice: str) -> None:
    url = server.url
    for ticket in (f"{'0' * 64}.\u00b2", f"{'0' * 64}.{'9' * 5000}", f"{'0' * 64}.-1", f"{'0' * 64}.\u0663"):
        answer = call("POST", f"{url}/api/v1/uploads/{urllib.parse.quote(ticket)}", token=alice, data=b"x")
        assert answer.status == 400 and answer.text == "Invalid upload ticket", (ticket[-5:], answer.text[:200])
    for size in (True, False, 1.5, "3", -1):
        answer = call("POST", f"{url}/api/v1/skills/-/upload-url", token=alice,
                      body={"path": "SKILL.md", "size": size, "sha256": "0" * 64})
        assert answer.status == 400 and answer.text == "Invalid size", (size, answer.text)
    raw = b'{"slug": "demo", "version": "1.0.0", "displayName": "\\ud800", "files": []}'
    answer = call("POST", f"{url}/api/v1/skills", token=alice, data=raw, headers={"Content-Type": "application/json"})
    assert answer.status == 400 and "codec" not in answer.text and "int()" not in answer.text
    page = call("GET", f"{url}/?q=a%00b%1b")
    assert page.status == 200 and "\x00" not in page.text and "\x1b" not in page.text and "<title>Results for ab" \
        in page.text


def test_publish_says_which_links_and_special_files_it_left_out(server: RegistryProcess, alice: str,
                                                                 tmp_path: Path) -> None:
    folder = skill_folder(tmp_path, "linked", "Has a link and a pipe.")
    outside = tmp_path / "outside.md"
    outside.write_text("not part of the skill\n")
    (folder / "passwd.md").symlink_to(outside)
    os.mkfifo(folder / "pipe.md")
    out = nervous_cli(["publish", str(folder), "--version", "1.0.0"],
                      {**server.env, "CLAWHUB_REGISTRY": server.url, "CLAWHUB_TOKEN": alice})
    assert out["_exit"] == 0, out
    assert "passwd.md: not published (a symbolic link; only regular files are)" in out["warnings"]
    assert "pipe.md: not published (not a regular file; only regular files are)" in out["warnings"]
    files = call("GET", f"{server.url}/api/v1/skills/linked/versions/1.0.0").json()["version"]["files"]
    assert sorted(f["path"] for f in files) == ["SKILL.md"]
