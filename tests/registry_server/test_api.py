"""The ClawHub read and install surface of a real server process (protocols Part A)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

from nervous.kernel.fingerprint import folder_fingerprint, skill_fingerprint
from nervous.testing.registry_process import RegistryProcess

from .conftest import call, publish, skill_folder


def test_publish_then_search_detail_versions_file_download_resolve(server: RegistryProcess, alice: str,
                                                                   tmp_path: Path) -> None:
    folder = skill_folder(tmp_path, "gifgrep", "Search GIF providers from the terminal.",
                          {"scripts/run.sh": "echo hi\n", "b_c.md": "x\n", "b-c.md": "y\n", "README.md": "Demo\n"})
    out = publish(server, alice, folder, "1.2.3", changelog="first")
    assert out["verdict"] == "clean" and out["publicationStatus"] == "published"
    url = server.url

    # searchable within one request
    hits = call("GET", f"{url}/api/v1/search?q=gif").json()["results"]
    assert [h["slug"] for h in hits] == ["gifgrep"]
    assert hits[0]["ownerHandle"] == "alice" and hits[0]["install"]["reference"] == "alice/gifgrep"

    detail = call("GET", f"{url}/api/v1/skills/gifgrep").json()
    assert detail["latestVersion"]["version"] == "1.2.3"
    assert detail["skill"]["description"] == (folder / "SKILL.md").read_text()
    assert detail["moderation"] is None and detail["owner"]["handle"] == "alice"

    ver = call("GET", f"{url}/api/v1/skills/gifgrep/versions/1.2.3").json()["version"]
    rows = {f["path"]: f for f in ver["files"]}
    assert set(rows) == {"SKILL.md", "scripts/run.sh", "b_c.md", "b-c.md", "README.md"}
    for path, row in rows.items():
        assert row["sha256"] == hashlib.sha256((folder / path).read_bytes()).hexdigest()
    assert [f["path"] for f in ver["files"]] == ["b_c.md", "b-c.md", "README.md", "scripts/run.sh", "SKILL.md"]
    assert ver["security"]["status"] == "clean" and ver["security"]["nervous"]["policyVersion"]
    published_fp = skill_fingerprint((f["path"], f["sha256"]) for f in ver["files"])
    assert published_fp == folder_fingerprint(folder) == out["fingerprint"]

    f = call("GET", f"{url}/api/v1/skills/gifgrep/file?path=scripts/run.sh")
    assert f.status == 200 and f.body == b"echo hi\n"
    assert f.headers["x-content-sha256"] == rows["scripts/run.sh"]["sha256"]
    assert f.headers["x-content-type-options"] == "nosniff"

    z1 = call("GET", f"{url}/api/v1/download?slug=gifgrep")
    z2 = call("GET", f"{url}/api/v1/download?slug=gifgrep&version=1.2.3")
    assert z1.status == 200 and z1.headers["content-type"] == "application/zip"
    assert z1.body == z2.body  # deterministic
    with zipfile.ZipFile(io.BytesIO(z1.body)) as zf:
        names = zf.namelist()
        assert names[-1] == "_meta.json" and names[:-1] == [f["path"] for f in ver["files"]]
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in zf.infolist())
        meta = zf.read("_meta.json").decode()
        assert list(json.loads(meta)) == ["ownerId", "slug", "version", "publishedAt"]
        assert not meta.endswith("\n")

    res = call("GET", f"{url}/api/v1/resolve?slug=gifgrep&hash={published_fp}").json()
    assert res == {"slug": "gifgrep", "match": {"version": "1.2.3"}, "latestVersion": {"version": "1.2.3"}}
    assert call("GET", f"{url}/api/v1/resolve?slug=gifgrep&hash={'0' * 64}").json()["match"] is None
    assert call("GET", f"{url}/api/v1/resolve?slug=gifgrep&hash=xyz").text == "Invalid hash"

    inst = call("GET", f"{url}/api/v1/skills/gifgrep/install").json()
    assert inst["ok"] and inst["archive"]["version"] == "1.2.3"
    assert inst["archive"]["downloadUrl"].startswith(url + "/api/v1/download?")


def test_errors_are_plain_text_with_rate_headers(server: RegistryProcess) -> None:
    url = server.url
    a = call("GET", f"{url}/api/v1/skills/nope")
    assert a.status == 404 and a.text == "Skill not found" and a.headers["content-type"].startswith("text/plain")
    assert a.headers["x-ratelimit-limit"] == "3000" and "ratelimit-reset" in a.headers
    assert call("GET", f"{url}/api/v1/skills?sort=bogus").text == "Invalid sort query parameter"
    assert call("GET", f"{url}/api/v1/search?q=x&mode=fuzzy").status == 400
    assert call("GET", f"{url}/api/v1/download").text == "Missing slug"
    assert call("GET", f"{url}/api/v1/skills?prefix=a&sort=downloads").text == "Prefix listing only supports name sort"
    wk = call("GET", f"{url}/.well-known/clawhub.json").json()
    assert wk["apiBase"] == url and wk["registry"] == url


def test_list_pages_with_cursor_and_ambiguous_slug(server: RegistryProcess, alice: str, tmp_path: Path) -> None:
    bob = server.token("bob")
    for i in range(5):
        publish(server, alice, skill_folder(tmp_path / "a", f"tool-{i}"), "1.0.0")
    publish(server, bob, skill_folder(tmp_path / "b", "tool-0"), "2.0.0")
    url = server.url
    seen, cursor = [], None
    while True:
        page = call("GET", f"{url}/api/v1/skills?limit=2&sort=name" + (f"&cursor={cursor}" if cursor else "")).json()
        seen += [i["slug"] for i in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(["tool-0", "tool-0", "tool-1", "tool-2", "tool-3", "tool-4"])
    amb = call("GET", f"{url}/api/v1/skills/tool-0")
    assert amb.status == 409 and amb.json()["code"] == "AMBIGUOUS_SKILL_SLUG"
    assert {m["ownerHandle"] for m in amb.json()["matches"]} == {"alice", "bob"}
    dl = call("GET", f"{url}/api/v1/download?slug=tool-0")
    assert dl.status == 409 and dl.text.startswith('Ambiguous skill slug "tool-0"')
    assert call("GET", f"{url}/api/v1/skills/tool-0/install").status == 404
    assert call("GET", f"{url}/api/v1/skills/tool-0?ownerHandle=@Bob").json()["latestVersion"]["version"] == "2.0.0"


def test_rate_limit_answers_429_with_retry_after(server_env: dict[str, str], tmp_path: Path) -> None:
    with RegistryProcess(server_env, tmp_path / "d", extra_args=(), overrides=()) as proc:
        statuses = []
        for _ in range(2500):
            a = call("GET", f"{proc.url}/api/v1/download?slug=none")
            statuses.append(a.status)
            if a.status == 429:
                break
        assert statuses[-1] == 429 and len(statuses) >= 1201  # (more only if a minute window ended)
        assert a.text == "Rate limit exceeded"
        assert a.headers["x-ratelimit-remaining"] == "0" and int(a.headers["retry-after"]) >= 1


def test_a_port_in_use_is_a_clear_error(server: RegistryProcess, server_env: dict[str, str], tmp_path: Path) -> None:
    import subprocess
    import sys
    import urllib.parse

    port = urllib.parse.urlsplit(server.url).port
    proc = subprocess.run([sys.executable, "-m", "nervous", "registry", "serve", "--port", str(port),
                           "--data", str(tmp_path / "other")], env=server_env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_requests_the_store_cannot_hold_are_400_never_500(server: RegistryProcess, alice: str) -> None:
    url = server.url
    long_slug = "a" * 300
    for path in (f"/api/v1/skills/{long_slug}?ownerHandle=alice", "/api/v1/skills/x%00?ownerHandle=alice",
                 "/api/v1/download?slug=x%00&ownerHandle=alice", f"/api/v1/resolve?slug={long_slug}&ownerHandle=alice"):
        answer = call("GET", url + path)
        assert answer.status in (400, 404), (path, answer.status, answer.text[:200])
    deep = b"[" * 100_000 + b"]" * 100_000
    for path in ("/api/v1/skills", "/api/cli/telemetry/install"):
        answer = call("POST", url + path, token=alice, data=deep, headers={"Content-Type": "application/json"})
        assert answer.status in (400, 413), (path, answer.status, answer.text[:200])
    answer = call("POST", f"{url}/api/v1/uploads/{'0' * 64}.{'9' * 5000}", token=alice, data=b"x")
    assert answer.status in (400, 404), answer.text[:200]


def test_the_bearer_scheme_is_read_in_any_case(server: RegistryProcess, alice: str) -> None:
    for scheme in ("Bearer", "bearer", "BEARER"):
        answer = call("GET", f"{server.url}/api/v1/whoami", headers={"Authorization": f"{scheme} {alice}"})
        assert answer.status == 200 and answer.json()["user"]["handle"] == "alice", (scheme, answer.status)
    assert call("GET", f"{server.url}/api/v1/whoami", headers={"Authorization": f"Basic {alice}"}).status == 401


def test_a_cors_preflight_is_answered_on_every_route(server: RegistryProcess, alice: str) -> None:
    for path in ("/api/v1/skills", "/api/v1/skills/demo/versions", "/api/v1/whoami", "/.well-known/clawhub.json"):
        answer = call("OPTIONS", server.url + path)
        assert answer.status == 204 and "OPTIONS" in answer.headers["access-control-allow-methods"], (path, answer.status)
        assert "authorization" in answer.headers["access-control-allow-headers"].lower()
    assert call("GET", f"{server.url}/api/v1/whoami", token=alice).status == 200  # other methods reach their routes
    assert call("GET", f"{server.url}/api/v1/skills").status == 200
